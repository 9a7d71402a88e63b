"""A sweep over model shapes at a fixed training set and a fixed subspace dimension d.

Chapters 25 and 26 use it. Each run trains SubLoRA (Chapter 20) with `run_method` of
`miniature.experiment` on the Markov source of Chapter 22, codes it, bounds it, and then scores
the *bounded* predictor (the quantized model, smoothed with the alpha the bound chose) on fresh
documents, so that the bound and the true risk are about the same predictor.

Seeds of one repetition `rep`: model initialisation `rep`, projector `137 + rep`, batches
`1337 + rep`. The source, the training set S, the sampled documents and the fresh documents are
the same for every run, so a difference between shapes is not a difference between data sets.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import math
import os
import platform
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pacbound
import torch

import miniature  # noqa: F401  (pins the CPU kernels before torch is used)
from miniature.corpus import DATA_DIR, DocSet, make_markov_source, markov_docset
from miniature.evaluate import score
from miniature.experiment import EXTRA_BITS, finish
from miniature.model import GPTConfig
from miniature.subspace import Parametrization, count_params
from miniature.train import LEVELS, TrainConfig, train

LORA_RANK = 4  # as the authors' configuration   [SOURCE: config/sublora_bounds.yaml]
VOCAB, CONCENTRATION, P_END, BLOCK = 32, 0.1, 1 / 64, 64  # Chapter 22's Markov source
SEED_SOURCE, SEED_S, SEED_FRESH, SEED_SAMPLE = 0, 1, 2, 3
LONG_FILE = DATA_DIR / "ch25_long_tier.json"
REPO = Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class Shape:
    n_layer: int
    n_head: int
    n_embd: int

    def label(self) -> str:
        return f"({self.n_layer},{self.n_head},{self.n_embd})"


@dataclass(frozen=True)
class SweepRun:
    shape: Shape
    rep: int
    base_params: int  # weights of the network, tied head counted once
    lora_numbers: int  # D: numbers the projector maps into
    d: int
    message_bits: int  # L
    prefix_bits: float  # K = L + 2 log2 L + 1
    sample_bits: float  # smoothed, quantized, on the n sampled documents of S, at best alpha
    bound_bits: float
    best_alpha: float
    true_bits: float  # the same predictor on fresh documents
    true_se: float
    sample_top1: float
    bound_top1: float
    true_top1: float
    seconds: float


def seeds(rep: int) -> tuple[int, int, int]:
    """(model, projector, batches) seeds of repetition `rep`."""
    return rep, 137 + rep, 1337 + rep


def run_shape(shape: Shape, rep: int, S: DocSet, fresh: DocSet, sample: np.ndarray, *,
              vocab: int, block: int, d: int, steps: int, qat_steps: int, lr: float) -> SweepRun:
    """Train, code and bound SubLoRA at `shape`; score the bounded predictor on `fresh`."""
    cfg = GPTConfig(vocab_size=vocab, block_size=block, n_layer=shape.n_layer,
                    n_head=shape.n_head, n_embd=shape.n_embd)
    model_seed, proj_seed, batch_seed = seeds(rep)
    tcfg = TrainConfig(steps=steps, qat_steps=qat_steps, lr=lr, seed=batch_seed,
                       log_every=max(1, steps // 4))
    param = Parametrization(cfg, "sublora", d, model_seed, proj_seed)
    t0 = time.time()
    losses = train(param, S.stream, tcfg, label=shape.label())
    res = finish(param, S, cfg, sample, None, "cpu", losses, t0)
    # the bounded predictor: quantized w, smoothed at the alpha the bound chose
    codes, codebook = pacbound.quantize_uniform(param.w.detach().numpy(), LEVELS)
    param.override = torch.tensor(pacbound.dequantize(codes, codebook), dtype=torch.float32)
    h = score(param, fresh, np.arange(fresh.n_docs), block, vocab)
    per_doc = h.bits(res.best_alpha)
    param.override = None
    counts = count_params(cfg, LORA_RANK)
    return SweepRun(shape, rep, counts["base"], res.D, res.d, res.message.total,
                    res.prefix_bits, res.smoothed[res.best_alpha], res.bound_bits,
                    res.best_alpha, float(per_doc.mean()),
                    float(per_doc.std(ddof=1) / math.sqrt(len(per_doc))), res.sample_top1,
                    res.bound_top1, float(h.top1_error().mean()), time.time() - t0)


def complexity_bits(run: SweepRun) -> float:
    """K plus the hyperparameter bits: what the bound pays for the predictor."""
    return run.prefix_bits + EXTRA_BITS


@dataclass(frozen=True)
class Tier:
    shapes: tuple[Shape, ...]
    reps: int
    n_docs: int  # N
    n_sample: int  # n
    n_fresh: int
    d: int
    steps: int
    qat_steps: int
    lr: float


TIERS = {
    "default": Tier((Shape(1, 2, 32), Shape(2, 2, 48), Shape(2, 4, 64)), reps=3,
                    n_docs=100_000, n_sample=2_000, n_fresh=2_000, d=500, steps=400,
                    qat_steps=50, lr=1e-2),
    "long": Tier((Shape(1, 2, 32), Shape(2, 2, 48), Shape(2, 4, 64), Shape(2, 4, 96),
                  Shape(2, 4, 128)), reps=3, n_docs=100_000, n_sample=2_000, n_fresh=2_000,
                 d=500, steps=1_200, qat_steps=150, lr=1e-2),
}


def data(tier: Tier) -> tuple[DocSet, DocSet, np.ndarray]:
    """(S, fresh documents, indices of the n sampled documents of S), the same for every run."""
    src = make_markov_source(VOCAB, CONCENTRATION, P_END, SEED_SOURCE)
    S = markov_docset(src, tier.n_docs, SEED_S)
    fresh = markov_docset(src, tier.n_fresh, SEED_FRESH)
    sample = np.random.default_rng(SEED_SAMPLE).integers(0, S.n_docs, tier.n_sample)
    return S, fresh, sample


def sweep(tier: Tier) -> list[SweepRun]:
    """Every shape of the tier, repetitions 0..reps-1, in that order."""
    S, fresh, sample = data(tier)
    return [run_shape(shape, rep, S, fresh, sample, vocab=VOCAB, block=BLOCK, d=tier.d,
                      steps=tier.steps, qat_steps=tier.qat_steps, lr=tier.lr)
            for shape in tier.shapes for rep in range(tier.reps)]


def mean_se(values: list[float]) -> tuple[float, float]:
    """Mean and standard error of the mean (sample standard deviation / sqrt(count))."""
    a = np.asarray(values, dtype=float)
    return float(a.mean()), float(a.std(ddof=1) / math.sqrt(len(a)))


def run_to_json(run: SweepRun) -> dict:
    out = dataclasses.asdict(run)
    out["shape"] = [run.shape.n_layer, run.shape.n_head, run.shape.n_embd]
    return out


def run_from_json(obj: dict) -> SweepRun:
    return SweepRun(**{**obj, "shape": Shape(*obj["shape"])})


def _git(*args: str) -> str:
    try:
        return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def write_long_tier(out: Path) -> None:
    """Run the long tier on this machine and write its results with their provenance."""
    torch.set_num_threads(1)
    tier = TIERS["long"]
    t0 = time.time()
    runs = sweep(tier)
    this_file = Path(__file__).read_bytes()
    record = {
        "provenance": (
            "Written by `python -m miniature.sizes long` (run from explainer_code/); read by "
            "ch26_figure3.py. Markov source of Chapter 22; "
            "seeds of repetition r: model r, projector 137 + r, batches 1337 + r; source 0, "
            "S 1, fresh 2, sample 3. One thread, CPU kernels pinned."),
        "command": "cd explainer_code && ../.venv/bin/python -m miniature.sizes long",
        "commit": _git("rev-parse", "HEAD"),
        "tree_dirty": bool(_git("status", "--porcelain", "--", "explainer_code")),
        "sizes_py_sha256": hashlib.sha256(this_file).hexdigest(),
        "machine": (f"{platform.machine()} {os.cpu_count()} CPUs, torch {torch.__version__}, "
                    f"python {platform.python_version()}"),
        "seconds": round(time.time() - t0),
        "tier": {**dataclasses.asdict(tier),
                 "shapes": [[s.n_layer, s.n_head, s.n_embd] for s in tier.shapes]},
        "runs": [run_to_json(r) for r in runs],
    }
    out.write_text(json.dumps(record, indent=1) + "\n", encoding="utf-8")


def read_long_tier(path: Path = LONG_FILE) -> tuple[dict, list[SweepRun]]:
    """The committed long tier: its record (without runs) and its runs."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as err:
        raise SystemExit(f"{path}: cannot read the long tier ({err}); "
                         "run `python -m miniature.sizes long` from explainer_code/") from err
    runs = [run_from_json(r) for r in record.pop("runs")]
    return record, runs


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tier", choices=["long"])
    parser.add_argument("--out", type=Path, default=LONG_FILE)
    args = parser.parse_args(argv)
    write_long_tier(args.out)
    print(f"wrote {args.out}", file=sys.stderr)


if __name__ == "__main__":
    main()
