"""Chapter 22's thesis tier: a compressed transformer bounded on the copying source, five seeds.

    make miniature-thesis      (seeds and ablations side by side, then the variants)
    python -m miniature.thesis seeds --out data/ch22_thesis_seeds.json
    python -m miniature.thesis ablations --out data/ch22_thesis_ablations.json
    python -m miniature.thesis variants --out data/ch22_thesis_variants.json [--only dense,lora]
    python -m miniature.thesis sizes --seeds 0 --out data/ch22_thesis_sizes_seed0.json

The seeds tier's copying run (`tiers.seed_data("repeat")`: S, its scored sample, the fresh
documents) with the recipe that learns the copy, `RECIPE`: a random 1,000-dimensional subspace
of all the model's numbers (not of LoRA's), learning rate 0.05 for 3,000 steps, training
windows that start at a document's leading EOD, and a quantizer of 21 levels over +- 3 root mean
squares of w. `seeds` runs it for seeds 0-4; `ablations` runs seed 0 with one part of the
recipe put back as Step 11 of Chapter 22 had it; `variants` runs the recipe's other three ways of
training the same GPT (`VARIANTS`: dense, LoRA, SubLoRA; `miniature.subspace`) for seeds 0-4,
each changing only what the variant needs, and adds to each row its bound with the recipe's
choice paid (`paid`); `sizes` runs the recipe unchanged on four GPT shapes (`SIZES`, 1 or 2
layers, width 32 to 128: about 16,000 to 400,000 numbers) for seeds 0-2, the same data and
d = 1,000 for every shape, so that only the model's size changes. Each run is
`copying_probe.bound_row`: the real arithmetic code, the prefix code, the bound with its four
parts, the true risk on the fresh documents, the halves of the document scored apart. The file
records the command, the commit, the machine, the time and every row; `ch22_thesis.py` reads
it (the size sweep: `ch25_sizes_copying.py`).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import torch

import miniature  # noqa: F401  (pins CPU kernels first)
from miniature.copying_probe import bound_row, parser
from miniature.tiers import git_commit, machine

RECIPE = {"kind": "subspace", "d": 1_000, "lr": 0.05, "steps": 3_000, "batch": 16,
          "aligned": True, "levels": 21, "clip_sd": 3.0}
SEEDS = (0, 1, 2, 3, 4)
# Step 11's configuration, one part at a time (seed 0): what each part of the recipe is worth
ABLATIONS = {
    "LoRA's subspace (SubLoRA, rank 4 on query, value and head)": {"kind": "sublora"},
    "windows at random tokens": {"aligned": False},
    "the book's quantizer (11 levels over max |w|)": {"levels": 11, "clip_sd": 0.0},
    "Step 11's schedule (learning rate 0.01, 800 steps)": {"lr": 0.01, "steps": 800},
}
# The recipe's other variants, each fixed before any of its runs: what differs from RECIPE.
# Dense and LoRA train their numbers directly with AdamW, whose steps on a coordinate are about
# lr in size, so they take the seeds tier's learning rate for these kinds (tiers.SEED_LR, 3e-3),
# not the 0.05 the subspace's d = 1,000 coordinates take; SubLoRA is the recipe on LoRA's numbers.
VARIANTS = {
    "dense": {"kind": "full", "lr": 3e-3},
    "LoRA": {"kind": "lora", "lr": 3e-3},
    "SubLoRA": {"kind": "sublora"},
}
# Model shapes of the size sweep (n_layer, n_embd), each fixed before its first run; 4 heads
SIZES = ((1, 32), (1, 64), (2, 64), (2, 128))
SIZE_SEEDS = (0, 1, 2)
MORE_BITS = 20  # the after-the-fact allowance: a choice among 2^20 configurations, in both roots
TRIED = {"dense": 1, "LoRA": 1, "SubLoRA": 1}  # configurations run per variant (all recorded)


def options(seed: int, change: dict | None = None) -> argparse.Namespace:
    args = parser().parse_args([])
    for key, value in {**RECIPE, **(change or {}), "seed": seed}.items():
        setattr(args, key, value)
    return args


N_POPULATION, N_SCORED, VOCAB = 100_000, 5_000, 32  # tiers.seed_data("repeat"): N, n and V


def paid_bound(row: dict, more_bits: float = MORE_BITS) -> float:
    """A row's bits-per-token bound at its alpha with the recipe's choice among 2^more_bits
    configurations paid in both roots: eps / (8 * 2^more_bits) in each (in the Occam root the
    same as more_bits bits of message). At 0 it is the row's own bound."""
    import math

    import pacbound

    from miniature.experiment import EPS, EXTRA_BITS

    return pacbound.subsampling_bound(
        train_error=row["true_smoothed"] + row["gap"]["sample_minus_true"],
        loss_range=pacbound.loss_range(row["best_alpha"], VOCAB),
        complexity_nats=(row["prefix_bits"] + EXTRA_BITS) * math.log(2),
        n_population=N_POPULATION, n_sample=N_SCORED,
        eps=EPS / len(pacbound.ALPHA_GRID) / 2.0**more_bits)


def paid(row: dict, more_bits: float = MORE_BITS) -> dict:
    """A row's bounds with the recipe's choice among 2^more_bits configurations paid in both
    roots (`paid_bound`): the bits-per-token bound at the row's alpha, its Occam and Hoeffding
    parts (`experiment.gap_parts`; the sample-minus-true and smoothing parts do not change), and
    the top-1 bound (eps / 2^more_bits)."""
    import math

    import pacbound

    from miniature.experiment import EPS, EXTRA_BITS, gap_parts

    sample = row["true_smoothed"] + row["gap"]["sample_minus_true"]
    nats = (row["prefix_bits"] + EXTRA_BITS) * math.log(2)
    n_pop, n = N_POPULATION, N_SCORED
    gap = gap_parts(sample_smoothed=sample, true_smoothed=row["true_smoothed"],
                    true_raw=row["true_bits"], alpha=row["best_alpha"], vocab=VOCAB,
                    charged_bits=row["prefix_bits"] + EXTRA_BITS, n_population=n_pop,
                    n_sample=n, eps=EPS / 2.0**more_bits)
    bound = paid_bound(row, more_bits)
    top1 = pacbound.subsampling_bound(
        train_error=row["sample_top1"], loss_range=1.0, complexity_nats=nats,
        n_population=n_pop, n_sample=n, eps=EPS / 2.0**more_bits)
    return {"more_bits": more_bits, "bound_bits": round(bound, 4), "bound_top1": round(top1, 4),
            "occam": round(gap.occam, 4), "hoeffding": round(gap.hoeffding, 4)}


def write(out: Path, what: str, rows: list[dict], t0: float,
          calls: list[dict] | None = None) -> None:
    """The data file, rewritten after every run; `calls` (variants): one entry per call that
    added runs to it (its part, commit, machine, start and seconds), summed into `seconds`."""
    record = {
        "tier": f"thesis {what}",
        "command": f"make miniature-thesis (python -m miniature.thesis {what} --out ...)",
        "commit": git_commit(), "machine": machine(), "threads": torch.get_num_threads(),
        "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(t0)),
        "seconds": round(time.time() - t0, 1), "recipe": RECIPE,
        "seed_rule": "model s, projector 137 + s, batches 1337 + s",
        "selection": ("The recipe was found by diagnostic runs of miniature.copying_probe on this "
                      "source's S (losses on fresh documents) and by bound runs on its sample; "
                      "their number was not recorded. ch22_thesis.py prints the bound with 20 "
                      "more bits, the price of a choice among a million configurations."),
        "runs": rows}
    if what == "variants":
        calls[-1]["seconds"] = round(time.time() - t0, 1)
        record.update(
            commit=calls[-1]["commit"], started=calls[0]["started"],
            seconds=round(sum(c["seconds"] for c in calls), 1), calls=calls,
            recipe={**RECIPE, "variants": VARIANTS},
            selection=(
                "Each variant's settings were fixed before its first run: the recipe's, with the "
                "learning rate of the seeds tier (tiers.SEED_LR) for the kinds trained directly. "
                f"Configurations run per variant: {TRIED}; each is one of the configurations "
                f"that the {MORE_BITS}-bit allowance (a choice among 2^{MORE_BITS}) already pays "
                "for. 'paid' is each row's bound with that allowance in both roots."),
            configurations_tried=TRIED)
    if what == "sizes":
        record.update(
            sizes=SIZES, seeds=sorted({r["seed"] for r in rows}),
            command=f"make miniature-sizes (python -m miniature.thesis sizes --seeds "
                    f"{','.join(str(s) for s in sorted({r['seed'] for r in rows}))} --out ...)",
            selection=(
                "The four shapes and three seeds were fixed before the first run; every shape "
                "runs the recipe unchanged (d, learning rate, steps, quantizer), on the same data. "
                "'paid' is each row's bound with the recipe's 20-bit allowance in both roots."))
    out.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("seeds", "ablations", "variants", "sizes"))
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--seeds", default="0,1,2", help="(sizes) the seeds this call runs, of "
                    "SIZE_SEEDS; make miniature-sizes runs one call per seed side by side")
    ap.add_argument("--only", default="", help="(variants) a comma-separated part of VARIANTS; "
                    "the runs already in --out are kept and not run again")
    a = ap.parse_args()
    torch.set_num_threads(1)
    t0, rows, calls = time.time(), [], None
    if a.what == "seeds":
        plan = [(s, "recipe", None) for s in SEEDS]
    elif a.what == "ablations":
        plan = [(0, name, change) for name, change in ABLATIONS.items()]
    elif a.what == "sizes":
        seeds = [int(x) for x in a.seeds.split(",")]
        if not set(seeds) <= set(SIZE_SEEDS):
            raise SystemExit(f"--seeds {a.seeds}: choose among {SIZE_SEEDS}")
        plan = [(s, f"{n_layer} x {n_embd}", {"n_layer": n_layer, "n_embd": n_embd})
                for s in seeds for n_layer, n_embd in SIZES]
    else:
        names = a.only.split(",") if a.only else list(VARIANTS)
        unknown = set(names) - set(VARIANTS)
        if unknown:
            raise SystemExit(f"unknown variants {sorted(unknown)}: choose from {list(VARIANTS)}")
        calls = []
        if a.out.exists():  # resume: keep every finished run and the calls that made them
            old = json.loads(a.out.read_text(encoding="utf-8"))
            rows, calls = old["runs"], old["calls"]
        calls.append({"only": a.only or "all", "commit": git_commit(), "machine": machine(),
                      "kernels": os.environ.get("EXPLAINER_KERNELS", "unknown"), "threads": 1,
                      "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(t0)),
                      "seconds": 0.0})
        done = {(r["run"], r["seed"]) for r in rows}
        plan = [(s, name, VARIANTS[name]) for name in VARIANTS if name in names for s in SEEDS
                if (name, s) not in done]
    for seed, name, change in plan:
        row = bound_row(options(seed, change))
        if a.what in ("variants", "sizes"):
            row["paid"] = paid(row)
        rows.append({"run": name, "change": change or {}, **row})
        more = f" (paid {row['paid']['bound_bits']:.3f})" if "paid" in row else ""
        print(f"{name}, seed {seed}: bound {row['bound_bits']:.3f}{more}, true risk "
              f"{row['true_smoothed']:.3f}, {row['seconds']:.0f} s", flush=True)
        write(a.out, a.what, rows, t0, calls)  # every finished run is kept


if __name__ == "__main__":
    main()
