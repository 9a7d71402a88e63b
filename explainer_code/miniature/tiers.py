"""The longer tiers of Chapter 22, run by hand (not by `make regenerate`).

    make miniature-long            # CPU, one process: N and d sweeps on the Markov source
    make miniature-gpu OUT=dir     # CUDA, every visible GPU through torchrun (DDP)
    make miniature-ablation        # CPU: ch22_markov.py's LoRA, subspace and full runs

`long` trains SubLoRA on the Markov source of ch22_markov.py for several training-set sizes N and
subspace dimensions d and writes `data/ch22_long_tier.json`, with the command, the commit, the
machine and the time it took; ch22_scaling.py reads that file and draws the figures.
`gpu` runs the same sweep with a larger model and more steps on CUDA; each process takes its
slice of every batch (DistributedDataParallel averages the gradients), rank 0 scores and bounds
and writes `<OUT>/ch22_gpu_tier.json`. Progress (steps, loss, time left) goes to stderr.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import platform
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

import miniature  # noqa: F401  (pins CPU kernels first)
from miniature.corpus import DATA_DIR, make_markov_source, markov_docset
from miniature.experiment import run_method
from miniature.model import GPTConfig
from miniature.subspace import Parametrization
from miniature.train import TrainConfig, train

REPO = Path(__file__).resolve().parents[2]
LONG_FILE = DATA_DIR / "ch22_long_tier.json"
SOURCE = {"vocab": 32, "concentration": 0.1, "p_end": 1 / 64, "seed": 0}
SEED_S, SEED_FRESH, SEED_SAMPLE = 1, 2, 3

TIERS = {
    "long": {"cfg": GPTConfig(vocab_size=32, block_size=64, n_layer=2, n_head=4, n_embd=64),
             "steps": 800, "qat": 100, "n_sample": 5_000, "n_fresh": 5_000, "lr": 1e-2,
             "runs": [(1_000, 1_000), (10_000, 1_000), (100_000, 1_000), (1_000_000, 1_000),
                      (100_000, 250), (100_000, 500), (100_000, 2_000)]},  # d <= 2,432 LoRA numbers
    "gpu": {"cfg": GPTConfig(vocab_size=32, block_size=128, n_layer=4, n_head=4, n_embd=128),
            "steps": 3_000, "qat": 300, "n_sample": 10_000, "n_fresh": 10_000, "lr": 1e-2,
            "runs": [(n, d) for n in (100_000, 1_000_000) for d in (1_000, 4_000)]},
}


def git_commit() -> str:
    """HEAD, with "-dirty" when a tracked file differs from it: that commit alone did not run."""
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True,
                              text=True, check=True).stdout.strip()
        clean = subprocess.run(["git", "diff", "--quiet", "HEAD"], cwd=REPO).returncode == 0
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return head if clean else f"{head}-dirty"


def machine() -> str:
    gpu = torch.cuda.get_device_name(0) if torch.cuda.is_available() else "no GPU"
    return (f"{platform.machine()} {platform.processor() or ''} {os.cpu_count()} CPUs, "
            f"{gpu}, torch {torch.__version__}, python {platform.python_version()}").strip()


def run_tier(name: str, out: Path, device: str) -> None:
    t = dict(TIERS[name])
    if os.environ.get("CH22_TIER_STEPS"):  # a smoke test of the machinery: few steps
        t["steps"] = int(os.environ["CH22_TIER_STEPS"])
        t["qat"] = t["steps"] // 4
        t["n_sample"] = t["n_fresh"] = 200
    if os.environ.get("CH22_LONG_RUNS"):  # e.g. "1000:1000,100000:500" for a reduced sweep
        runs = os.environ["CH22_LONG_RUNS"].split(",")
        t["runs"] = [tuple(int(v) for v in r.split(":")) for r in runs]
    ddp = int(os.environ.get("WORLD_SIZE", "1")) > 1
    rank, world = 0, 1
    if ddp:
        dist.init_process_group("nccl" if device == "cuda" else "gloo")
        rank, world = dist.get_rank(), dist.get_world_size()
        if device == "cuda":
            torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", "0")))
    dev = f"cuda:{torch.cuda.current_device()}" if device == "cuda" else "cpu"
    src = make_markov_source(**SOURCE)
    fresh = markov_docset(src, t["n_fresh"], seed=SEED_FRESH)
    rows, tables, t0 = [], [], time.time()
    docsets: dict[int, object] = {}
    for n_docs, d in t["runs"]:
        if n_docs not in docsets:  # the first N documents of one seeded stream, made once
            docsets = {n_docs: markov_docset(src, n_docs, seed=SEED_S)}
            if rank == 0 and n_docs not in {r["n_docs"] for r in tables}:
                tables += table_rows(src, docsets[n_docs], fresh, table_samples(t))
        S = docsets[n_docs]
        sample = np.random.default_rng(SEED_SAMPLE).integers(0, n_docs, size=t["n_sample"])
        tcfg = TrainConfig(steps=t["steps"], qat_steps=t["qat"], lr=t["lr"], log_every=100)
        label = f"N={n_docs:,} d={d:,}"
        if rank == 0:
            print(f"tier {name}: {label}", file=sys.stderr, flush=True)
        if ddp:
            param = Parametrization(t["cfg"], "sublora", d, 0, 137, device=dev)
            ids = [torch.cuda.current_device()] if device == "cuda" else None
            module = DDP(param, device_ids=ids)
            train(param, S.stream, tcfg, rank=rank, world=world, module=module, label=label)
            if rank == 0:
                row = evaluate_trained(param, S, t, sample, fresh, dev)
            dist.barrier()
        else:
            r = run_method("sublora", S, t["cfg"], tcfg, d=d, sample=sample, heldout=fresh,
                           device=dev, label=label)
            row = summary(r)
        if rank == 0:
            row.update(n_docs=n_docs, d=d)
            rows.append(row)
            print(f"tier {name}: {label} bound {row['bound_bits']:.3f} "
                  f"({time.time() - t0:.0f} s so far)", file=sys.stderr, flush=True)
            write_record(name, t, world, device, t0, rows, out, tables)  # every run: a crash
    if rank == 0:  # loses at most the run in progress
        write_record(name, t, world, device, t0, rows, out, tables)
        print(f"tier {name}: wrote {out}", file=sys.stderr)
    if ddp:
        dist.destroy_process_group()


def write_record(name: str, t: dict, world: int, device: str, t0: float, rows: list[dict],
                 out: Path, tables: list[dict]) -> None:
    """The data file: every finished run, with command, commit, machine, time, peak memory."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    record = {
        "tier": name, "command": "python -m miniature.tiers " + " ".join(sys.argv[1:]),
        "runs_override": os.environ.get("CH22_LONG_RUNS"), "commit": git_commit(),
        "machine": machine(), "processes": world, "device": device,
        "seconds": round(time.time() - t0, 1), "peak_rss_mib": round(peak, 1),
        "config": {**dataclasses.asdict(t["cfg"]), "lora_rank": 4},  # Parametrization: rank 4
        "train": {"steps": t["steps"], "qat_steps": t["qat"], "lr": t["lr"],
                  "batch_size": TrainConfig().batch_size},
        "n_sample": t["n_sample"], "n_fresh": t["n_fresh"], "runs": rows, "tables": tables,
    }
    record["complete"] = len(rows) == len(t["runs"])
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


def table_samples(t: dict) -> list[int]:
    """The sample sizes n to bound count tables at: this tier's, and the GPU tier's too (its runs
    use the same source, S and sample seed), unless the tier is a smoke test."""
    if os.environ.get("CH22_TIER_STEPS"):
        return [t["n_sample"]]
    return sorted({t["n_sample"], TIERS["gpu"]["n_sample"]})


def table_rows(src, S, fresh, samples: list[int]) -> list[dict]:
    """The best count table of `miniature.ngram`'s grid on S, bounded from a sample of each size
    drawn as the runs draw theirs; its true risk exact for orders 0-1, on `fresh` for order 2."""
    from miniature import ngram

    rows = []
    for n in samples:
        sample = np.random.default_rng(SEED_SAMPLE).integers(0, S.n_docs, size=n)
        best, _ = ngram.best_table(S, SOURCE["vocab"], sample)
        if best.table.order <= 1:
            true, se = ngram.exact_bits(src, best.table, best.best_alpha), 0.0
        else:
            true, se = ngram.heldout_bits(best.table, fresh, best.best_alpha)
        rows.append({"n_docs": S.n_docs, "n_sample": n, "order": best.table.order,
                     "precision": best.table.precision, "message_bits": best.table.message_bits,
                     "bound_bits": round(best.bound_bits, 4), "best_alpha": best.best_alpha,
                     "true_bits": round(true, 4), "true_se": round(se, 4),
                     "bound_top1": round(best.bound_top1, 4)})
    return rows


def summary(r) -> dict:
    return {k: round(v, 4) if isinstance(v, float) else v for k, v in {
        "true_smoothed": r.heldout_smoothed,
        "message_bits": r.message.total, "prefix_bits": r.prefix_bits,
        "sample_bits_raw": r.sample_bits_raw, "sample_bits": r.sample_bits,
        "bound_bits": r.bound_bits, "best_alpha": r.best_alpha, "sample_top1": r.sample_top1,
        "bound_top1": r.bound_top1, "true_bits": r.heldout_bits, "true_se": r.heldout_se,
        "true_top1": r.heldout_top1, "seconds": r.seconds}.items()}


def evaluate_trained(param, S, t, sample, fresh, dev) -> dict:
    """Rank 0 after DDP training: the same coding and bound as run_method."""
    from miniature import experiment

    return summary(experiment.finish(param, S, t["cfg"], sample, fresh, dev, [], time.time()))


# ------------------------------------------------------------------------------ the seeds tier
SEEDS_FILE = DATA_DIR / "ch22_seeds_tier.json"
SEEDS = (0, 1, 2, 3, 4)
SEED_LR = {"sublora": 1e-2, "subspace": 1e-2, "lora": 3e-3, "full": 3e-3}  # ch22_markov.py's
SEED_CFG = GPTConfig(vocab_size=32, block_size=64, n_layer=2, n_head=4, n_embd=64)
SEED_RUNS = ([("markov", kind, 1_000) for kind in ("sublora", "lora", "subspace", "full")]
             + [("repeat", "sublora", 1_000)])


# Two more seed tiers, each fixed before any of its seeds ran: the d sweep of ch22_scaling.py
# (N = 100,000, the seeds tier's data and steps; d = 1,000 is the seeds tier's own SubLoRA row)
# and ch22_wordnet.py's run (d = 500, n = 10,000, the test split held out).
DSWEEP_FILE = DATA_DIR / "ch22_seeds_dsweep.json"
DSWEEP_RUNS = [("markov", "sublora", d) for d in (250, 2_000)]
WORDNET_FILE = DATA_DIR / "ch22_seeds_wordnet.json"
WORDNET_RUNS = [("wordnet", "sublora", 500)]
SEED_TIERS = {"seeds": (SEED_RUNS, SEEDS_FILE), "seeds-d": (DSWEEP_RUNS, DSWEEP_FILE),
              "seeds-wordnet": (WORDNET_RUNS, WORDNET_FILE)}
# ch22_markov.py's ablation: the three variants it does not train itself (SubLoRA it does), at
# its configuration (the seeds tier's seed 0), every number at full precision, since the script
# prints them rounded as it printed its own runs. Kept out of `make regenerate` for its cost:
# the four trainings took about 180 CPU-s, over BOOK.md's 150 s for a script.
ABLATION_FILE = DATA_DIR / "ch22_ablation.json"
ABLATION_KINDS = ("lora", "subspace", "full")


def seed_data(source: str) -> tuple:
    """(S, sample, held-out documents, model shape) of one source, as its default-tier script."""
    from miniature.corpus import (
        WORDNET_VOCAB,
        DocSet,
        RepeatSource,
        load_wordnet,
        repeat_docset,
        split_documents,
    )

    if source == "wordnet":  # ch22_wordnet.py: split 0, 5,000 test documents, n = 10,000
        docs = load_wordnet()
        train_idx, test_idx = split_documents(len(docs), 5_000, 0)
        S = DocSet.from_docs([docs[i] for i in train_idx])
        test = DocSet.from_docs([docs[i] for i in test_idx])
        sample = np.random.default_rng(SEED_SAMPLE).integers(0, S.n_docs, size=10_000)
        return S, sample, test, dataclasses.replace(SEED_CFG, vocab_size=WORDNET_VOCAB)
    sample = np.random.default_rng(SEED_SAMPLE).integers(0, 100_000, size=5_000)
    if source == "repeat":
        rep = RepeatSource(32, 16)
        return (repeat_docset(rep, 100_000, seed=SEED_S), sample,
                repeat_docset(rep, 5_000, seed=SEED_FRESH), SEED_CFG)
    src = make_markov_source(**SOURCE)
    return (markov_docset(src, 100_000, seed=SEED_S), sample,
            markov_docset(src, 5_000, seed=SEED_FRESH), SEED_CFG)


def seed_run(source: str, kind: str, d: int, seed: int, data: dict) -> dict:
    """One run of a seeds tier: model seed `seed`, projector 137 + seed, batches 1337 + seed;
    the data (S, sample, held-out documents) are those of the default tier, the same for every
    seed."""
    from miniature.experiment import result_gap

    S, sample, fresh, cfg = data[source]
    tcfg = TrainConfig(steps=800, qat_steps=100, lr=SEED_LR[kind], seed=1337 + seed,
                       log_every=100)
    r = run_method(kind, S, cfg, tcfg, d=d, sample=sample, heldout=fresh, model_seed=seed,
                   proj_seed=137 + seed, label=f"{source} {kind} d={d} seed {seed}")
    gap = result_gap(r, cfg.vocab_size, S.n_docs, len(sample))
    row = summary(r)
    row.update(source=source, kind=kind, d=d, seed=seed, coded=r.d,
               true_smoothed=round(r.heldout_smoothed, 4),
               true_smoothed_se=round(r.heldout_smoothed_se, 4),
               gap={k: round(getattr(gap, k), 4) for k in
                    ("occam", "hoeffding", "sample_minus_true", "smoothing")})
    return row


def run_seeds(out: Path, tier: str = "seeds") -> None:
    """Every (source, kind, d) of the tier's runs with every seed of SEEDS, on one CPU thread."""
    only = os.environ.get("CH22_SEED_SOURCES")  # e.g. "markov": a part of the tier
    kinds = os.environ.get("CH22_SEED_KINDS")  # e.g. "subspace,full": a part, in parallel
    runs = [r for r in SEED_TIERS[tier][0] if (not only or r[0] in only.split(","))
            and (not kinds or r[1] in kinds.split(","))]
    data = {source: seed_data(source) for source in sorted({r[0] for r in runs})}
    rows, calls, t0 = [], [], time.time()
    if out.exists():  # resume: keep the finished runs (and the record) of earlier calls
        old = json.loads(out.read_text(encoding="utf-8"))
        rows, calls = old["runs"], old.get("calls", [])
        if not calls:  # a file of the first format: one call, recorded at the top level
            calls = [{"sources": "markov", "commit": old["commit"], "machine": old["machine"],
                      "started": "2026-12-01 19:50 UTC", "seconds": old["seconds_this_call"]}]
    calls.append({"sources": only or "all", "kinds": kinds or "all",
                  "seeds": os.environ.get("CH22_SEEDS", "all"), "commit": git_commit(),
                  "machine": machine(), "kernels": os.environ.get("EXPLAINER_KERNELS", "unknown"),
                  "started": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "seconds": 0})
    done = {(r["source"], r["kind"], r["d"], r["seed"]) for r in rows}
    seeds = [int(x) for x in os.environ.get("CH22_SEEDS", "").split(",") if x] or SEEDS
    for source, kind, d in runs:
        for seed in seeds:
            if (source, kind, d, seed) in done:
                continue
            rows.append(seed_run(source, kind, d, seed, data))
            print(f"tier {tier}: {source} {kind} d={d} seed {seed} bound "
                  f"{rows[-1]['bound_bits']:.3f} ({time.time() - t0:.0f} s)", file=sys.stderr,
                  flush=True)
            calls[-1]["seconds"] = round(time.time() - t0, 1)
            write_seeds(out, rows, calls, runs, tier, data)
    calls[-1]["seconds"] = round(time.time() - t0, 1)
    write_seeds(out, rows, calls, runs, tier, data)


def run_ablation(out: Path) -> None:
    """ch22_markov.py's LoRA, subspace and full runs (seed 0), unrounded, with the record."""
    from miniature.experiment import result_gap

    S, sample, fresh, cfg = seed_data("markov")
    t0, rows = time.time(), []
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    for kind in ABLATION_KINDS:
        tcfg = TrainConfig(steps=800, qat_steps=100, lr=SEED_LR[kind], log_every=100)
        r = run_method(kind, S, cfg, tcfg, d=1_000, sample=sample, heldout=fresh,
                       label=f"ablation {kind}")
        gap = result_gap(r, cfg.vocab_size, S.n_docs, len(sample))
        rows.append({"kind": kind, "coded": r.d, "message_bits": r.message.total,
                     "sample_bits_raw": r.sample_bits_raw, "sample_bits": r.sample_bits,
                     "sample_smoothed": r.smoothed[r.best_alpha], "best_alpha": r.best_alpha,
                     "bound_bits": r.bound_bits, "bound_top1": r.bound_top1,
                     "true_bits": r.heldout_bits, "true_smoothed": r.heldout_smoothed,
                     "gap": {k: getattr(gap, k) for k in
                             ("occam", "hoeffding", "sample_minus_true", "smoothing", "total")},
                     "seconds": round(r.seconds, 1)})
        print(f"tier ablation: {kind} bound {r.bound_bits:.3f} ({time.time() - t0:.0f} s)",
              file=sys.stderr, flush=True)
    record = {"tier": "ablation", "command": "make miniature-ablation (python -m miniature.tiers"
              " ablation)", "commit": git_commit(), "machine": machine(),
              "kernels": os.environ.get("EXPLAINER_KERNELS", "unknown"), "started": started,
              "seconds": round(time.time() - t0, 1), "threads": 1,
              "config": dataclasses.asdict(cfg), "lora_rank": 4,
              "train": {"steps": 800, "qat_steps": 100, "lr": SEED_LR,
                        "batch_size": TrainConfig().batch_size},
              "seeds": "model 0, projector 137, batches 1337 (the seeds tier's seed 0)",
              "n_docs": int(S.n_docs), "n_sample": len(sample), "n_fresh": int(fresh.n_docs),
              "runs": rows}
    out.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


def write_seeds(out: Path, rows: list[dict], calls: list[dict], runs: list[tuple],
                tier: str = "seeds", data: dict | None = None) -> None:
    """The part's data file; `complete`: every seed of every run of this part is in it."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    planned = {(s, k, d, seed) for s, k, d in runs for seed in SEEDS}
    done = {(r["source"], r["kind"], r["d"], r["seed"]) for r in rows}
    make = {"seeds": "miniature-seeds", "seeds-d": "miniature-seeds-d",
            "seeds-wordnet": "miniature-seeds-wordnet"}[tier]
    # What ran, read from the data: N, n and the held-out documents of each source, and the
    # model shape (V differs between sources: 32 for the Markov and copying sources, 48 for
    # WordNet). The top-level sizes and shape are those every source of this call shares.
    sizes = {src: [int(v[0].n_docs), len(v[1]), int(v[2].n_docs)]
             for src, v in (data or {}).items()}
    shapes = {v[3].vocab_size for v in (data or {}).values()}
    assert len({tuple(s) for s in sizes.values()}) <= 1 and len(shapes) <= 1, (
        f"one seeds file per data size and vocabulary: {sizes}, V in {shapes}")
    n_docs, n_sample, n_fresh = next(iter(sizes.values()), [100_000, 5_000, 5_000])
    cfg = next(iter((data or {}).values()), (None, None, None, SEED_CFG))[3]
    record = {"tier": tier, "command": f"make {make} (python -m miniature.tiers {tier};"
              " CH22_SEED_SOURCES=markov or repeat and CH22_SEED_KINDS=subspace,full run a part,"
              " resuming the file named by --out)",
              "calls": calls, "processes": 1, "device": "cpu", "threads": 1,
              "peak_rss_mib": round(peak, 1),
              "config": {**dataclasses.asdict(cfg),
                         "lora_rank": "4 for sublora and lora (Parametrization), 0 otherwise"},
              "train": {"steps": 800, "qat_steps": 100, "lr": SEED_LR,
                                        "batch_size": TrainConfig().batch_size},
              "seeds": list(SEEDS), "seed_rule": "model s, projector 137 + s, batches 1337 + s",
              "n_docs": n_docs, "n_sample": n_sample, "n_fresh": n_fresh,
              "complete": planned <= done, "runs": rows}
    if tier != "seeds":  # the sizes of each source's data: N, n, held-out documents
        record["sizes"] = sizes
    out.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tier", choices=[*sorted(TIERS), *sorted(SEED_TIERS), "ablation"])
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    args = ap.parse_args()
    torch.set_num_threads(1 if args.device == "cpu" else torch.get_num_threads())
    if args.tier in SEED_TIERS:
        torch.set_num_threads(1)
        run_seeds(args.out or SEED_TIERS[args.tier][1], args.tier)
        return
    if args.tier == "ablation":
        torch.set_num_threads(1)
        run_ablation(args.out or ABLATION_FILE)
        return
    out = args.out or (LONG_FILE if args.tier == "long" else Path("ch22_gpu_tier.json"))
    run_tier(args.tier, out, args.device)


if __name__ == "__main__":
    main()
