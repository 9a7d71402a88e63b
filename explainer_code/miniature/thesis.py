"""Chapter 22's thesis tier: a compressed transformer bounded on the copying source, five seeds.

    make miniature-thesis      (two processes side by side, about 20 min on 2 cores)
    python -m miniature.thesis seeds --out data/ch22_thesis_seeds.json
    python -m miniature.thesis ablations --out data/ch22_thesis_ablations.json

The seeds tier's copying run (`tiers.seed_data("repeat")`: S, its scored sample, the fresh
documents) with the recipe that learns the copy, `RECIPE`: a random 1,000-dimensional subspace
of all the model's numbers (not of LoRA's), learning rate 0.05 for 3,000 steps, training
windows that start at a document's leading EOD, and a quantizer of 21 levels over +- 3 root mean
squares of w. `seeds` runs it for seeds 0-4; `ablations` runs seed 0 with one part of the
recipe put back as Step 11 of Chapter 22 had it. Each run is `copying_probe.bound_row`: the
real arithmetic code, the prefix code, the bound with its four parts, the true risk on the fresh
documents, the halves of the document scored apart. The file records the command, the commit,
the machine, the time and every row; `ch22_thesis.py` reads it.
"""

from __future__ import annotations

import argparse
import json
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


def options(seed: int, change: dict | None = None) -> argparse.Namespace:
    args = parser().parse_args([])
    for key, value in {**RECIPE, **(change or {}), "seed": seed}.items():
        setattr(args, key, value)
    return args


def write(out: Path, what: str, rows: list[dict], t0: float) -> None:
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
    out.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=("seeds", "ablations"))
    ap.add_argument("--out", type=Path, required=True)
    a = ap.parse_args()
    torch.set_num_threads(1)
    t0, rows = time.time(), []
    plan = ([(s, "recipe", None) for s in SEEDS] if a.what == "seeds"
            else [(0, name, change) for name, change in ABLATIONS.items()])
    for seed, name, change in plan:
        row = bound_row(options(seed, change))
        rows.append({"run": name, "change": change or {}, **row})
        print(f"{name}, seed {seed}: bound {row['bound_bits']:.3f}, true risk "
              f"{row['true_smoothed']:.3f}, {row['seconds']:.0f} s", flush=True)
        write(a.out, a.what, rows, t0)  # every finished run is kept


if __name__ == "__main__":
    main()
