"""The longer tiers of Chapter 22, run by hand (not by `make regenerate`).

    make miniature-long            # CPU, one process: N and d sweeps on the Markov source
    make miniature-gpu OUT=dir     # CUDA, every visible GPU through torchrun (DDP)

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
    try:
        return subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True,
                              text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


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
    rows, t0 = [], time.time()
    docsets: dict[int, object] = {}
    for n_docs, d in t["runs"]:
        if n_docs not in docsets:  # the first N documents of one seeded stream, made once
            docsets = {n_docs: markov_docset(src, n_docs, seed=SEED_S)}
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
            write_record(name, t, world, device, t0, rows, out)  # after every run: a crash
    if rank == 0:  # loses at most the run in progress
        write_record(name, t, world, device, t0, rows, out)
        print(f"tier {name}: wrote {out}", file=sys.stderr)
    if ddp:
        dist.destroy_process_group()


def write_record(name: str, t: dict, world: int, device: str, t0: float, rows: list[dict],
                 out: Path) -> None:
    """The data file: every finished run, with command, commit, machine, time, peak memory."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    record = {
        "tier": name, "command": "python -m miniature.tiers " + " ".join(sys.argv[1:]),
        "runs_override": os.environ.get("CH22_LONG_RUNS"), "commit": git_commit(),
        "machine": machine(), "processes": world, "device": device,
        "seconds": round(time.time() - t0, 1), "peak_rss_mib": round(peak, 1),
        "config": dataclasses.asdict(t["cfg"]),
        "train": {"steps": t["steps"], "qat_steps": t["qat"], "lr": t["lr"],
                  "batch_size": TrainConfig().batch_size},
        "n_sample": t["n_sample"], "n_fresh": t["n_fresh"], "runs": rows,
    }
    record["complete"] = len(rows) == len(t["runs"])
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


def summary(r) -> dict:
    return {k: round(v, 4) if isinstance(v, float) else v for k, v in {
        "message_bits": r.message.total, "prefix_bits": r.prefix_bits,
        "sample_bits_raw": r.sample_bits_raw, "sample_bits": r.sample_bits,
        "bound_bits": r.bound_bits, "best_alpha": r.best_alpha, "sample_top1": r.sample_top1,
        "bound_top1": r.bound_top1, "true_bits": r.heldout_bits, "true_se": r.heldout_se,
        "true_top1": r.heldout_top1, "seconds": r.seconds}.items()}


def evaluate_trained(param, S, t, sample, fresh, dev) -> dict:
    """Rank 0 after DDP training: the same coding and bound as run_method."""
    from miniature import experiment

    return summary(experiment.finish(param, S, t["cfg"], sample, fresh, dev, [], time.time()))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tier", choices=sorted(TIERS))
    ap.add_argument("--out", type=Path, default=None)
    ap.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    args = ap.parse_args()
    torch.set_num_threads(1 if args.device == "cpu" else torch.get_num_threads())
    out = args.out or (LONG_FILE if args.tier == "long" else Path("ch22_gpu_tier.json"))
    run_tier(args.tier, out, args.device)


if __name__ == "__main__":
    main()
