"""Training the vector w: AdamW on next-token cross-entropy, then quantization-aware steps.

nanoGPT's recipe in miniature [SOURCE: nanoGPT train.py @3adf61e]: random windows of
`block_size` tokens from the training stream, linear warm-up then cosine decay of the learning
rate, gradient clipping at 1.0. The authors train w with AdamW, betas (0.9, 0.999), eps 1e-6,
weight decay 1e-2 [SOURCE: sublora-bounds-for-llms config/sublora_train.yaml:7-27 @c606ea6].

Quantization-aware steps (the authors' config runs none, `max_quant_iters: 0`): the forward pass
uses the 11-level quantized w, the gradient updates the real-valued w (straight-through).

Batches come from one numpy generator per run, drawn for the global batch; under
DistributedDataParallel each process takes its slice, so 1 process and k processes see the same
tokens and, with DDP's gradient average, take the same steps (tests/test_miniature_ddp.py).
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass

import numpy as np
import pacbound
import torch
import torch.nn.functional as F

from miniature.subspace import Parametrization

LEVELS = 11  # quantization levels   [SOURCE: BY:35, config/sublora_bounds.yaml]


@dataclass(frozen=True)
class TrainConfig:
    steps: int = 1500
    qat_steps: int = 200
    batch_size: int = 16
    lr: float = 5e-3
    min_lr_frac: float = 0.1
    warmup: int = 100
    weight_decay: float = 1e-2
    grad_clip: float = 1.0
    seed: int = 1337
    log_every: int = 100


def lr_at(step: int, cfg: TrainConfig) -> float:
    """Warm-up to cfg.lr over cfg.warmup steps, then cosine down to cfg.lr * min_lr_frac."""
    if step < cfg.warmup:
        return cfg.lr * (step + 1) / cfg.warmup
    frac = (step - cfg.warmup) / max(1, cfg.steps - cfg.warmup)
    return cfg.lr * (cfg.min_lr_frac + (1 - cfg.min_lr_frac) * 0.5 * (1 + math.cos(math.pi * frac)))


def batch_offsets(rng: np.random.Generator, stream_len: int, block: int, n: int) -> np.ndarray:
    return rng.integers(0, stream_len - block - 1, size=n)


def get_batch(stream: np.ndarray, offsets: np.ndarray, block: int,
              device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    """Inputs and next-token targets, each (B, block), from windows of the token stream."""
    rows = offsets[:, None] + np.arange(block + 1)[None, :]
    chunk = torch.from_numpy(stream[rows].astype(np.int64)).to(device)
    return chunk[:, :-1], chunk[:, 1:]


def quantizer(levels: int = LEVELS):
    """w (tensor) -> the quantized w: codebook[codes] of pacbound.quantize_uniform (Chapter 15)."""

    def q(w: torch.Tensor) -> torch.Tensor:
        codes, codebook = pacbound.quantize_uniform(w.detach().cpu().numpy(), levels)
        values = np.asarray(codebook, dtype=np.float32)[np.asarray(codes)]
        return torch.from_numpy(values).to(w.device)

    return q


def train(param: Parametrization, stream: np.ndarray, cfg: TrainConfig, *, rank: int = 0,
          world: int = 1, module: torch.nn.Module | None = None, label: str = "") -> list[float]:
    """Train `param.w` in place; returns the mean training loss (nats) of each logging interval.

    `module` is what the forward pass calls: `param` itself, or a DistributedDataParallel
    wrapper of it (then `world` processes each take batch_size / world windows of every batch).
    """
    module = module or param
    device = param.w.device
    block = param.cfg.block_size
    if cfg.batch_size % world:
        raise ValueError("batch_size must be a multiple of the number of processes")
    local = cfg.batch_size // world
    rng = np.random.default_rng(cfg.seed)
    opt = torch.optim.AdamW([param.w], lr=cfg.lr, betas=(0.9, 0.999), eps=1e-6,
                            weight_decay=cfg.weight_decay)
    total = cfg.steps + cfg.qat_steps
    losses, running, t0 = [], 0.0, time.time()
    for step in range(total):
        if step == cfg.steps and cfg.qat_steps:
            param.ste = quantizer()
        lr = lr_at(min(step, cfg.steps - 1), cfg) if step < cfg.steps else cfg.lr * cfg.min_lr_frac
        for group in opt.param_groups:
            group["lr"] = lr
        offsets = batch_offsets(rng, len(stream), block, cfg.batch_size)
        x, y = get_batch(stream, offsets[rank * local : (rank + 1) * local], block, device)
        logits = module(x)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_([param.w], cfg.grad_clip)
        opt.step()
        running += loss.item()
        if (step + 1) % cfg.log_every == 0:
            losses.append(running / cfg.log_every)
            running = 0.0
            if rank == 0:
                spent = time.time() - t0
                left = spent / (step + 1) * (total - step - 1)
                phase = "qat" if step >= cfg.steps else "train"
                print(f"  {label} {phase} step {step + 1}/{total} loss {losses[-1]:.3f} nats "
                      f"({spent:.0f} s, about {left:.0f} s left)", file=sys.stderr, flush=True)
    param.ste = None
    return losses
