"""A diagnostic probe: does a variant learn the copying source, and how fast? (not run by the book)

    python -m miniature.copying_probe --kind sublora --lr 1e-2 --steps 800 --eval-every 200

Trains one variant of `miniature.subspace` on the copying source of the seeds tier (RepeatSource
V = 32, B = 16; S = 100,000 documents, seed 1) with `miniature.train.train`, and every
`--eval-every` steps scores `--n-eval` fresh documents (seed 2) read after their leading EOD,
printing bits per token on the first half (best possible log2 31 = 4.954), on the copied second
half (best 0), on the closing EOD (best 0), and over the whole document (best 2.402). The options
change one thing at a time against the book's configuration (the seeds tier's SubLoRA: d = 1,000,
rank 4 on query, value and head, lr 1e-2, 800 steps, batch 16).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

import miniature  # noqa: F401  (pins CPU kernels first)
from miniature.corpus import EOD, RepeatSource, repeat_docset
from miniature.model import GPTConfig
from miniature.theta_adam import OPTIMIZERS, ProbeParametrization, make_optimizer, train_step
from miniature.train import TrainConfig

BOOK_CFG = GPTConfig(vocab_size=32, block_size=64, n_layer=2, n_head=4, n_embd=64)
LN2 = math.log(2)


@torch.no_grad()
def copy_scores(param: ProbeParametrization, docs: np.ndarray) -> dict[str, float]:
    """Bits per token by part of the document, for equal-length documents `docs` (n, 2B)."""
    n, two_b = docs.shape
    seq = np.zeros((n, two_b + 2), dtype=np.int64)
    seq[:, 1 : two_b + 1] = docs
    seq[:, 0] = seq[:, -1] = EOD
    x, y = torch.from_numpy(seq[:, :-1]), torch.from_numpy(seq[:, 1:])
    logits = param(x)
    nll = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1), reduction="none")
    bits = (nll / LN2).view(n, two_b + 1)
    b = two_b // 2
    return {"first": float(bits[:, :b].mean()), "second": float(bits[:, b:two_b].mean()),
            "eod": float(bits[:, two_b].mean()), "overall": float(bits.mean())}


def parser() -> argparse.ArgumentParser:
    """The probe's options, each defaulting to the book's configuration (`miniature.thesis` reads
    them too)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kind", default="sublora", choices=("sublora", "lora", "subspace", "full"))
    ap.add_argument("--d", type=int, default=1_000)
    ap.add_argument("--rank", type=int, default=4)
    ap.add_argument("--everywhere", action="store_true", help="LoRA on every matrix")
    ap.add_argument("--lora-alpha", type=float, default=32.0)
    ap.add_argument("--lr", type=float, default=1e-2)
    ap.add_argument("--steps", type=int, default=800)
    ap.add_argument("--warmup", type=int, default=100)
    ap.add_argument("--min-lr-frac", type=float, default=0.1)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--seed", type=int, default=0,
                    help="model s, projector 137 + s, batches 1337 + s")
    ap.add_argument("--proj-scale", type=float, default=1.0, help="theta0 + c P w")
    ap.add_argument("--projector", default="rdkronqr")
    ap.add_argument("--optimizer", default="adamw", choices=OPTIMIZERS)
    ap.add_argument("--eval-every", type=int, default=200)
    ap.add_argument("--n-eval", type=int, default=512)
    ap.add_argument("--n-docs", type=int, default=100_000)
    ap.add_argument("--json", default="", help="append a JSON line with the result to this file")
    ap.add_argument("--qat", type=int, default=100, help="quantization-aware steps (--bound)")
    ap.add_argument("--levels", type=int, default=11,
                    help="(--bound) quantization levels (quantization-aware steps, code)")
    ap.add_argument("--clip-sd", type=float, default=0.0,
                    help="(--bound) quantize over +- this many root-mean-squares of w, not max|w|")
    ap.add_argument("--qat-lr", type=float, default=None,
                    help="learning rate of the quantization-aware steps (default lr / 10)")
    ap.add_argument("--save", default="", help="(--bound) save w and the optimizer's state after "
                    "the training steps, before the quantization-aware ones")
    ap.add_argument("--load", default="", help="(--bound) start from a --save file: only the "
                    "quantization-aware steps, the code and the bound are run")
    ap.add_argument("--aligned", action="store_true", help="(--bound) training windows start at "
                    "a document's leading EOD, as the scoring reads documents")
    ap.add_argument("--n-head", type=int, default=BOOK_CFG.n_head)
    ap.add_argument("--n-layer", type=int, default=BOOK_CFG.n_layer)
    ap.add_argument("--n-embd", type=int, default=BOOK_CFG.n_embd)
    ap.add_argument("--bound", action="store_true",
                    help="the seeds tier's run instead: its data, 100 quantization-aware steps, "
                         "coding and the bound (miniature.experiment.finish)")
    return ap


def main() -> None:
    args = parser().parse_args()
    torch.set_num_threads(1)
    if args.bound:
        bound_run(args)
        return
    rep = RepeatSource(32, 16)
    S = repeat_docset(rep, args.n_docs, seed=1)
    fresh = np.stack(rep.sample(args.n_eval, seed=2))
    cfg = dataclasses.replace(BOOK_CFG, lora_everywhere=args.everywhere, lora_alpha=args.lora_alpha,
                              n_head=args.n_head, n_layer=args.n_layer, n_embd=args.n_embd)
    param = ProbeParametrization(cfg, args.kind, args.d, args.seed, 137 + args.seed,
                            lora_rank=args.rank, projector=args.projector,
                            proj_scale=args.proj_scale)
    print(f"kind {args.kind} D {param.D} d {param.d} rank {args.rank} everywhere {args.everywhere}"
          f" lr {args.lr} steps {args.steps} batch {args.batch} seed {args.seed} proj_scale "
          f"{args.proj_scale} projector {args.projector} optimizer {args.optimizer}", flush=True)
    t0, trace = time.time(), []
    s0 = copy_scores(param, fresh)
    trace.append({"step": 0, "seconds": 0.0, **s0})
    done = 0
    # train in chunks of eval_every steps along ONE schedule: the lr of step k is that of the
    # full run (the batches differ from one uninterrupted call only in their random windows)
    while done < args.steps:
        chunk = min(args.eval_every, args.steps - done)
        tcfg = TrainConfig(steps=args.steps, qat_steps=0, batch_size=args.batch, lr=args.lr,
                           warmup=args.warmup, min_lr_frac=args.min_lr_frac,
                           seed=1337 + args.seed + done, log_every=chunk)
        train_chunk(param, S.stream, tcfg, args.optimizer, done, chunk)
        done += chunk
        s = copy_scores(param, fresh)
        trace.append({"step": done, "seconds": round(time.time() - t0, 1), **s})
        print(f"  step {done:5d} {time.time() - t0:6.0f} s  first {s['first']:.3f}  second "
              f"{s['second']:.3f}  eod {s['eod']:.3f}  overall {s['overall']:.3f} bits "
              f"(best 4.954 / 0 / 0 / {rep.best_bits():.3f})", flush=True)
    if args.json:
        with open(args.json, "a", encoding="utf-8") as f:
            f.write(json.dumps({"args": vars(args), "argv": sys.argv[1:], "trace": trace}) + "\n")


def bound_run(args: argparse.Namespace) -> None:
    """`bound_row`, printed as a JSON line (and appended to `--json`)."""
    row = bound_row(args)
    print(json.dumps(row), flush=True)
    if args.json:
        with open(args.json, "a", encoding="utf-8") as f:
            f.write(json.dumps({"args": vars(args), "argv": sys.argv[1:], "bound": row}) + "\n")


def bound_row(args: argparse.Namespace) -> dict:
    """One run of the seeds tier's copying row (`tiers.seed_run`) with this probe's options: its
    data, quantization-aware steps, coding, scoring and bound (`experiment.finish`); the row
    of `tiers.summary` with the seed, the gap's four parts, the halves' scores (fresh documents,
    at the trained and at the quantized w) and the training losses in bits."""
    from miniature import theta_adam
    from miniature.experiment import result_gap
    from miniature.tiers import seed_data, summary

    t0 = time.time()
    S, sample, fresh, cfg = seed_data("repeat")
    cfg = dataclasses.replace(cfg, lora_everywhere=args.everywhere, lora_alpha=args.lora_alpha,
                              n_head=args.n_head, n_layer=args.n_layer, n_embd=args.n_embd)
    tcfg = TrainConfig(steps=args.steps, qat_steps=args.qat, batch_size=args.batch, lr=args.lr,
                       warmup=args.warmup, min_lr_frac=args.min_lr_frac, seed=1337 + args.seed)
    param = ProbeParametrization(cfg, args.kind, args.d, args.seed, 137 + args.seed,
                                 lora_rank=args.rank, projector=args.projector,
                                 proj_scale=args.proj_scale)
    losses = theta_adam.train(param, S.stream, tcfg, args.optimizer, levels=args.levels,
                              clip_sd=args.clip_sd, qat_lr=args.qat_lr, save=args.save,
                              load=args.load, aligned=args.aligned)
    halves = quantized_halves(param, args.levels, args.clip_sd, args.n_eval)
    r = theta_adam.finish(param, S, cfg, sample, fresh, "cpu", losses, t0, levels=args.levels,
                          clip_sd=args.clip_sd)
    gap = result_gap(r, cfg.vocab_size, S.n_docs, len(sample))
    row = summary(r)
    row.update(seed=args.seed, n_params=param.D, true_smoothed_se=r.heldout_smoothed_se,
               halves=halves,
               train_losses_bits=[round(x / math.log(2), 3) for x in losses],
               gap={k: round(getattr(gap, k), 4) for k in
                    ("occam", "hoeffding", "sample_minus_true", "smoothing")})
    return row


def quantized_halves(param: ProbeParametrization, levels: int, clip_sd: float,
                     n_eval: int) -> dict[str, dict[str, float]]:
    """`copy_scores` of the probe's fresh documents (seed 2) at the trained w ("raw") and at its
    quantized value ("quantized", `theta_adam.quantize`), rounded to 4 digits."""
    from miniature.theta_adam import quantize

    fresh = np.stack(RepeatSource(32, 16).sample(n_eval, seed=2))
    out = {"raw": copy_scores(param, fresh)}
    codes, book = quantize(param.w.detach().cpu().numpy(), levels, clip_sd)
    param.override = torch.tensor(np.asarray(book, dtype=np.float32)[codes])
    out["quantized"] = copy_scores(param, fresh)
    param.override = None
    return {k: {p: round(v, 4) for p, v in d.items()} for k, d in out.items()}


_OPT: dict = {}


def train_chunk(param: ProbeParametrization, stream: np.ndarray, tcfg: TrainConfig,
                optimizer: str, start: int, n: int) -> None:
    """Steps start .. start + n - 1 of one run (`miniature.train`'s schedule and batches, the
    chosen optimizer), keeping the optimizer's state between chunks; no quantization-aware steps."""
    from miniature import train as tr

    opt = _OPT.setdefault("opt", make_optimizer(param, tcfg, optimizer))
    rng = np.random.default_rng(tcfg.seed)
    block = param.cfg.block_size
    for step in range(start, start + n):
        x, y = tr.get_batch(stream, tr.batch_offsets(rng, len(stream), block, tcfg.batch_size),
                            block, param.w.device)
        train_step(param, opt, x, y, tr.lr_at(step, tcfg), tcfg)


if __name__ == "__main__":
    main()
