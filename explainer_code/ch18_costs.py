"""Chapters 18 and 20: what a random projection costs, and what it does under AdamW.

Claims, numbered as the output blocks:
  [1] A dense Gaussian P at the paper's size (D = 351,744 LoRA numbers, d = 50,000) has
      1.76e10 entries, 70.35 GB as float32: more than most accelerators hold, less than the
      largest (80 GB and more). The authors' dense operator never stores it: it regenerates P
      from its seed in row chunks of at most 2e8 entries [SOURCE: sublora/nn/projectors.py:
      233-251 @c606ea6], about 0.8 GB each (88 computed, 89 drawn: the loop adds one for the
      remaining rows). Its real cost is compute: D d multiply-adds and as
      many Gaussian draws for P w, and again for P^T g in the backward pass.
  [2] Directions of w in the null space of P get zero gradient. Under plain SGD they never
      move; under AdamW, the authors' optimizer [SOURCE: sublora/nn/projectors.py:188
      @c606ea6], the per-coordinate scaling mixes directions and they drift. A 95 x 271 block
      (the rdkronqr remainder's shape), a least-squares loss, 2,000 steps, no weight decay.
  [3] A Gaussian D x d matrix with N(0, 1/D) entries at D = 2,384 is not close to orthonormal
      for the d of Chapter 18's grid: its singular values spread widely around 1.
  [4] Rebuilding the weights from w against the network's own work: the rdkronqr products for
      all of GPT-2 small's weights and for its LoRA numbers (d = 50,000), and one forward plus
      backward pass of GPT-2 small on a micro-batch of 8 x 1,024 tokens, counted as 3 multiply-
      adds per weight per token (attention scores not counted).
Seeds: 0 (block, target), 1 and 2 (the two Gaussian matrices). float64; singular values and
norms rounded to at most four significant digits.
The values Chapter 18 quotes are printed through `glue(name, ...)` (script_glue.py), so that
the page refers to them by name.
"""

from __future__ import annotations

import math

import numpy as np
import pacbound as pb
import torch
from script_glue import glue

torch.set_num_threads(1)
torch.set_default_dtype(torch.float64)

D_LORA, D_SUB = 351_744, 50_000  # [SOURCE: config/sublora_bounds.yaml:26-29 @c606ea6]
CHUNK_MAX = 2e8  # [SOURCE: sublora/nn/projectors.py:234 @c606ea6]
BLOCK_ROWS, BLOCK_COLS, STEPS, LR = 95, 271, 2_000, 1e-3
D_TOY, D_GRID = 2_384, (128, 1_024)  # Chapter 18's toy D and two subspace sizes
GPT2_WEIGHTS = 123_689_472  # nanoGPT's count (Chapter 5)
MICRO_BATCH, CONTEXT = 8, 1_024


def kron_madds(D: int, d: int) -> int:
    """Multiply-adds of one rdkronqr product P w: two factor products and the remainder."""
    (D1, d1), (De, de) = pb.kron_shapes(D, d)
    return D1 * d1 * d1 + D1 * d1 * D1 + De * de


def drift(optimizer: str) -> tuple[float, float]:
    """(null-space norm, row-space norm) of w after STEPS steps on 0.5 |P w - y|^2."""
    rng = np.random.default_rng(0)
    P = torch.tensor(rng.standard_normal((BLOCK_ROWS, BLOCK_COLS)) / math.sqrt(BLOCK_ROWS))
    y = torch.tensor(rng.standard_normal(BLOCK_ROWS))
    w = torch.zeros(BLOCK_COLS, requires_grad=True)
    opt = (torch.optim.SGD([w], lr=LR) if optimizer == "SGD"
           else torch.optim.AdamW([w], lr=LR, weight_decay=0.0))  # fmt: skip
    for _ in range(STEPS):
        opt.zero_grad()
        (0.5 * (P @ w - y).square().sum()).backward()
        opt.step()
    q, _ = torch.linalg.qr(P.T)  # orthonormal basis of the row space, (271, 95)
    w = w.detach()
    row = q @ (q.T @ w)
    return float((w - row).norm()), float(row.norm())


def main() -> None:
    print("Chapters 18 and 20 -- what a projection costs and what AdamW does with it "
          "(ch18_costs.py)")  # fmt: skip

    # [1]
    entries = D_LORA * D_SUB
    chunks = math.ceil(entries / CHUNK_MAX)
    chunk_rows = D_LORA // chunks
    print(f"[1] Dense P for D = {glue('dense_D', D_LORA, ',')}, d = {glue('dense_d', D_SUB, ',')}: "
          f"{glue('dense_entries', entries, '.3g')} entries, "
          f"{glue('dense_gb', entries * 4 / 1e9, '.2f')} GB as float32")  # fmt: skip
    drawn = math.ceil(D_LORA / chunk_rows)  # the loop runs until every row is drawn
    last_rows = D_LORA - (drawn - 1) * chunk_rows
    print(f"    the authors' dense operator computes {glue('chunks', chunks)} chunks of "
          f"{glue('chunk_rows', chunk_rows, ',')} rows, "
          f"{glue('chunk_gb', chunk_rows * D_SUB * 4 / 1e9, '.2f')} GB each, and its loop draws "
          f"{glue('chunks_drawn', drawn)}: {glue('full_chunks_drawn', drawn - 1)} of them and a "
          f"last of {glue('last_chunk_rows', last_rows)} rows; it never stores the "
          "whole")  # fmt: skip
    print(f"    per product P w: {glue('dense_product_madds', entries, '.3g')} multiply-adds and "
          f"{glue('dense_draws', entries, '.3g')} Gaussian draws; "
          "the backward pass repeats both for P^T g")  # fmt: skip
    assert 70e9 < entries * 4 < 80e9 and chunk_rows * D_SUB <= CHUNK_MAX and drawn == chunks + 1

    # [2]
    sgd, adamw = drift("SGD"), drift("AdamW")
    print(f"[2] A {glue('block_rows', BLOCK_ROWS)} x {glue('block_cols', BLOCK_COLS)} block, "
          f"{glue('drift_steps', STEPS, ',')} steps of lr {glue('drift_lr', LR, 'g')} on a "
          f"least-squares loss, w starting at 0; gradients lie in P's row space "
          f"({BLOCK_ROWS} of {BLOCK_COLS} directions):")  # fmt: skip
    print(f"    SGD:   null-space norm of w below 1e-9: {sgd[0] < 1e-9}; row-space norm "
          f"{glue('sgd_row_norm', sgd[1], '.2f')}")  # fmt: skip
    print(f"    AdamW: null-space norm of w {glue('adamw_null_norm', adamw[0], '.2f')}; row-space "
          f"norm {glue('adamw_row_norm', adamw[1], '.2f')}")
    assert sgd[0] < 1e-9 and adamw[0] > 0.05 * adamw[1]

    # [3]
    print(f"[3] Singular values of a {glue('toy_D', D_TOY, ',')} x d matrix with "
          f"N(0, 1/{D_TOY:,}) entries (an orthonormal P has all of them 1):")  # fmt: skip
    spreads = []
    for seed, d in enumerate(D_GRID, start=1):
        g = np.random.default_rng(seed).standard_normal((D_TOY, d)) / math.sqrt(D_TOY)
        s = np.linalg.svd(g, compute_uv=False)
        spreads.append((s.min(), s.max()))
        print(f"    d = {glue(f'sv_d{d}', d, '5,')}: from {glue(f'sv_d{d}_min', s.min(), '.2f')} "
              f"to {glue(f'sv_d{d}_max', s.max(), '.2f')} (1 -+ sqrt(d / D) = "
              f"{glue(f'sv_d{d}_theory_min', 1 - math.sqrt(d / D_TOY), '.2f')}, "
              f"{glue(f'sv_d{d}_theory_max', 1 + math.sqrt(d / D_TOY), '.2f')})")  # fmt: skip
    assert spreads[0][0] < 0.85 and spreads[1][1] > 1.5

    # [4]
    all_w, lora = kron_madds(GPT2_WEIGHTS, D_SUB), kron_madds(D_LORA, D_SUB)
    net = 3 * GPT2_WEIGHTS * MICRO_BATCH * CONTEXT
    print(f"[4] Work per micro-batch of {glue('micro_batch', MICRO_BATCH)} x "
          f"{glue('context', CONTEXT, ',')} tokens, GPT-2 small, d = {D_SUB:,}:")  # fmt: skip
    print(f"    network forward + backward, {glue('madds_per_weight_token', 3)} x "
          f"{GPT2_WEIGHTS:,} x {MICRO_BATCH * CONTEXT:,} = {glue('network_madds', net, '.3g')} "
          "multiply-adds")  # fmt: skip
    print(f"    rebuilding all weights from w (rdkronqr): "
          f"{glue('rebuild_all_madds', all_w, '.3g')} per product, "
          f"{glue('rebuild_all_madds_backward', 2 * all_w, '.3g')} with the backward; "
          f"{glue('rebuild_all_share', 2 * all_w / net, '.1%')} of the network's work")  # fmt: skip
    print(f"    rebuilding the LoRA numbers only: {lora:.3g} per product, {2 * lora:.3g} with "
          f"the backward; {2 * lora / net:.4%} of the network's work")  # fmt: skip
    assert 0.005 < 2 * all_w / net < 0.03
    print("All assertions passed.")


if __name__ == "__main__":
    main()
