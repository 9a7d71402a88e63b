"""Chapter 7: nanoGPT's pretraining recipe in numbers, and two of its choices measured.

Claims, numbered as the output blocks:
  [1] The recipe's arithmetic: tokens per optimizer step (12 x 1,024 x 5 x 8 = 491,520 in
      nanoGPT [SOURCE: nanoGPT train.py:48-50 @3adf61e]; 8 x 1,024 x 40 = 327,680 in the authors'
      SubLoRA configuration [SOURCE: sublora-bounds-for-llms config/sublora_train.yaml:7-12
      @c606ea6]); 600,000 steps make about 295 billion tokens, about 33 passes over OpenWebText's
      9,035,582,198 training tokens [SOURCE: nanoGPT data/openwebtext/prepare.py:26-38, 77-78];
      the vocabulary 50,257 padded to 50,304 = 64 x 786; the residual-projection std
      0.02 / sqrt(2 n_layer) at n_layer = 12.
  [2] nanoGPT's learning-rate schedule (train.py:231-242): linear warm-up over 2,000 steps to 6e-4,
      cosine decay to 6e-5 at step 600,000, printed at a few steps; the authors' warm-up starts
      from 0 instead (sublora/utils.py:41-44 @c606ea6).
  [3] Weight decay only on tensors with two or more dimensions (model.py:270-271): for GPT-2 small
      without biases, 50 tensors with 124,354,560 numbers are decayed, 25 LayerNorm weight vectors
      with 19,200 numbers are not.
  [4] Measured: the residual stream's size after the last block, relative to its size entering the
      first, at initialization, for n_layer = 2 .. 32, with the 0.02 / sqrt(2 n_layer) scaling of
      the residual projections and without it (gpt_lab.model, n_embd = 128; M = 5 seeds each,
      mean +- standard error). With the scaling the growth stays flat in depth; without it, it
      grows with depth, from 16 to 32 layers by more than sqrt 2, and from 2 to 32 by more than
      sqrt(32 / 2) = 4, the cap if the writes were independent and of one fixed size (ratios per
      seed, paired).
  [5] Measured: a small GPT trained on a Markov source (V = 16), 300 AdamW steps at peak learning
      rate 1e-2, constant or with warm-up and cosine decay to a tenth (M = 4 seeds each): the
      untrained loss sits just above log2 V (over the 4 distinct untrained models: both
      schedules share their seeds), and the decayed schedule ends lower, by more than 2 standard
      errors of the difference.
Deterministic: numpy default_rng and torch.manual_seed with fixed seeds, one torch thread,
float32; losses printed to 3 decimals, ratios to 3 significant digits.
The figure ch07_residual_growth.png draws [4] and the training curves of [5].
Every value the chapter quotes is printed through `glue(name, ...)` (script_glue.py), so that
the page refers to it by name.
"""

from __future__ import annotations

import math
from dataclasses import replace

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import torch
import torch.nn as nn
from gpt_lab.model import GPT, GPTConfig
from pacbound.markov import random_markov_chain, sample_documents, state_marginals
from script_glue import glue
from script_io import save_figure

torch.set_num_threads(1)

# nanoGPT train.py:48-68 and config/train_gpt2.py @3adf61e
NANO = {
    "batch_size": 12,
    "block_size": 1024,
    "grad_accum": 5 * 8,
    "max_iters": 600_000,
    "lr": 6e-4,
    "min_lr": 6e-5,
    "warmup": 2_000,
    "lr_decay_iters": 600_000,
}
SUBLORA = {
    "batch_size": 8,
    "block_size": 1024,
    "grad_accum": 40,
}  # config/sublora_train.yaml @c606ea6
OWT_TRAIN_DOCS, OWT_VAL_DOCS = 8_009_762, 4_007  # prepare.py:34, 38
OWT_TRAIN_TOKENS, OWT_VAL_TOKENS = 9_035_582_198, 4_434_897  # prepare.py:77-78
VOCAB, VOCAB_PADDED = 50_257, 50_304
N_LAYER, N_EMBD, CTX = 12, 768, 1_024  # GPT-2 small

DEPTHS = (2, 4, 8, 16, 32)
INIT_SEEDS = (0, 1, 2, 3, 4)
INIT_CFG = GPTConfig(block_size=32, vocab_size=64, n_layer=2, n_head=4, n_embd=128)

TRAIN_SEEDS = (10, 11, 12, 13)
CHAIN_SEED, V_SMALL, CONCENTRATION = 7, 16, 0.3
TRAIN_CFG = GPTConfig(block_size=32, vocab_size=V_SMALL, n_layer=2, n_head=2, n_embd=32)
STEPS, BATCH, PEAK_LR = 300, 16, 1e-2
WARMUP = 30  # a tenth of the steps, as nanoGPT warms up over a small share of its run
EVAL_DOCS = 1_000
EVAL_EVERY = 50
FIGURE_NAME = "ch07_residual_growth.png"


def nano_lr(it: int, lr: float, min_lr: float, warmup: int, decay_iters: int) -> float:
    """nanoGPT's get_lr (train.py:231-242): linear warm-up, cosine decay, then min_lr."""
    if it < warmup:
        return lr * (it + 1) / (warmup + 1)
    if it > decay_iters:
        return min_lr
    ratio = (it - warmup) / (decay_iters - warmup)
    return min_lr + 0.5 * (1.0 + math.cos(math.pi * ratio)) * (lr - min_lr)


def decay_split(n_layer: int, n_embd: int, vocab: int, ctx: int) -> tuple[int, int, int, int]:
    """(decayed tensors, their numbers, other tensors, their numbers) for nanoGPT with bias=False.

    Decayed: wte (tied with lm_head, counted once), wpe, and per block c_attn, attn.c_proj, c_fc,
    mlp.c_proj; not decayed: two LayerNorm weights per block and ln_f.
    """
    per_block = n_embd * 3 * n_embd + n_embd * n_embd + 2 * n_embd * 4 * n_embd
    decayed = vocab * n_embd + ctx * n_embd + n_layer * per_block
    return 2 + 4 * n_layer, decayed, 2 * n_layer + 1, (2 * n_layer + 1) * n_embd


def build(cfg: GPTConfig, seed: int, scaled: bool) -> GPT:
    """gpt_lab's GPT (nanoGPT's init); with scaled=False the c_proj weights get plain N(0, 0.02)."""
    torch.manual_seed(seed)
    model = GPT(cfg)
    if not scaled:
        for name, p in model.named_parameters():
            if name.endswith("c_proj.weight"):
                nn.init.normal_(p, mean=0.0, std=0.02)
    return model


@torch.no_grad()
def residual_growth(cfg: GPTConfig, seed: int, scaled: bool) -> float:
    """RMS of the residual stream after the last block over its RMS entering the first block."""
    model = build(cfg, seed, scaled)
    gen = torch.Generator().manual_seed(seed + 1_000)
    idx = torch.randint(0, cfg.vocab_size, (4, cfg.block_size), generator=gen)
    trace = model(idx, trace=True)
    first, last = trace.residual[0], trace.residual[-1]
    return float(last.pow(2).mean().sqrt() / first.pow(2).mean().sqrt())


def floor_bits(chain: np.ndarray, n_targets: int) -> float:
    """Best bits per token for tokens 1 .. n_targets of a document given the previous one."""
    with np.errstate(divide="ignore"):
        h_rows = np.where(chain > 0, -chain * np.log2(chain), 0.0).sum(1)
    weights = state_marginals(chain, n_targets + 1)[1:].mean(0)
    return float(weights @ h_rows)


def loss_bits(model: GPT, docs: torch.Tensor) -> float:
    """Mean next-token loss in bits per token on documents (B, T + 1)."""
    logits = model(docs[:, :-1]).logits
    nats = nn.functional.cross_entropy(
        logits.reshape(-1, logits.shape[-1]), docs[:, 1:].reshape(-1)
    )
    return float(nats) / math.log(2)


def train(
    chain: np.ndarray, seed: int, schedule: str, eval_docs: torch.Tensor
) -> tuple[float, float, list[float]]:
    """AdamW with nanoGPT's betas and decay groups; returns (untrained loss, final loss, curve)."""
    model = build(TRAIN_CFG, seed, scaled=True)
    decay = [p for p in model.parameters() if p.dim() >= 2]
    other = [p for p in model.parameters() if p.dim() < 2]
    opt = torch.optim.AdamW(
        [{"params": decay, "weight_decay": 0.1}, {"params": other, "weight_decay": 0.0}],
        lr=PEAK_LR,
        betas=(0.9, 0.95),
    )
    rng = np.random.default_rng(seed)
    with torch.no_grad():
        start = loss_bits(model, eval_docs)
    curve = []
    for it in range(STEPS):
        lr = (
            PEAK_LR if schedule == "constant" else nano_lr(it, PEAK_LR, PEAK_LR / 10, WARMUP, STEPS)
        )
        for group in opt.param_groups:
            group["lr"] = lr
        docs = torch.from_numpy(sample_documents(chain, BATCH, TRAIN_CFG.block_size + 1, rng))
        logits = model(docs[:, :-1]).logits
        loss = nn.functional.cross_entropy(logits.reshape(-1, V_SMALL), docs[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        if (it + 1) % EVAL_EVERY == 0:
            with torch.no_grad():
                curve.append(loss_bits(model, eval_docs))
    return start, curve[-1], curve


def mean_se(x: list[float]) -> tuple[float, float]:
    a = np.asarray(x)
    return float(a.mean()), float(a.std(ddof=1) / math.sqrt(len(a)))


def main() -> None:
    print("Chapter 7 -- pretraining from scratch: nanoGPT's recipe (ch07_pretraining.py)")
    tok_nano = NANO["batch_size"] * NANO["block_size"] * NANO["grad_accum"]
    tok_sub = SUBLORA["batch_size"] * SUBLORA["block_size"] * SUBLORA["grad_accum"]
    total = tok_nano * NANO["max_iters"]
    passes = total / OWT_TRAIN_TOKENS
    docs = OWT_TRAIN_DOCS + OWT_VAL_DOCS
    std_proj = 0.02 / math.sqrt(2 * N_LAYER)
    print("[1] the recipe as its files state it, and its arithmetic:")
    # the settings as the files write them: glued as text, so that each keeps its spelling
    print(
        f"    nanoGPT train.py:48-68: lr {glue('nano_lr', '6e-4')}, AdamW betas "
        f"({glue('nano_beta1', '0.9')}, {glue('nano_beta2', '0.95')}), eps "
        f"{glue('nano_eps', '1e-8')} (torch default), weight decay "
        f"{glue('nano_weight_decay', '0.1')}, grad clip {glue('nano_grad_clip', '1.0')}, dropout "
        f"{glue('nano_dropout', '0.0')}, bias False"
    )
    print(
        f"    SubLoRA sublora_train.yaml:19-24, 37-43: lr {glue('sub_lr', '5e-3')}, betas "
        f"({glue('sub_beta1', '0.9')}, {glue('sub_beta2', '0.999')}), eps "
        f"{glue('sub_eps', '1e-6')}, weight decay {glue('sub_weight_decay', '0.01')}; LoRA r "
        f"{glue('lora_rank', '4')}, lora_alpha {glue('lora_alpha', '32')}, LoRA dropout "
        f"{glue('lora_dropout', '0.1')}, intrinsic_dim {glue('intrinsic_dim', '50,000')}"
    )
    print(f"    both: warm-up {glue('both_warmup', NANO['warmup'], ',')} steps, min lr "
          f"{glue('both_min_lr', '6e-5')}, {glue('both_steps', NANO['max_iters'], ',')} steps, "
          f"clip {glue('both_clip', '1.0')} (pipeline defaults)")
    print(
        f"    nanoGPT README:151: released GPT-2 124M on OpenWebText, train loss "
        f"{glue('readme_train_loss', '3.11')}, val loss {glue('readme_val_loss', '3.12')} "
        "(nats per token)"
    )
    print(
        f"    tokens per optimizer step: nanoGPT {glue('nano_batch', NANO['batch_size'])} x "
        f"{glue('nano_block', NANO['block_size'], ',')} x {glue('nano_accum_per_gpu', 5)} x "
        f"{glue('nano_gpus', 8)} = {glue('nano_step_tokens', tok_nano, ',')}; "
        f"SubLoRA {glue('sub_batch', SUBLORA['batch_size'])} x "
        f"{glue('sub_block', SUBLORA['block_size'], ',')} x "
        f"{glue('sub_accum', SUBLORA['grad_accum'])} = {glue('sub_step_tokens', tok_sub, ',')}"
    )
    assert NANO["grad_accum"] == 5 * 8  # 5 micro-batches on each of 8 GPUs
    print(
        f"    {glue('run_steps', NANO['max_iters'], ',')} steps x "
        f"{glue('run_step_tokens', tok_nano, ',')} = {glue('run_billions', total / 1e9, '.1f')} "
        f"billion tokens = {glue('run_passes', passes, '.1f')} passes over "
        f"OpenWebText's {glue('owt_train_tokens', OWT_TRAIN_TOKENS, ',')} training tokens"
    )
    print(
        f"    OpenWebText as prepared: {glue('owt_train_docs', OWT_TRAIN_DOCS, ',')} + "
        f"{glue('owt_val_docs', OWT_VAL_DOCS, ',')} = {glue('owt_docs', docs, ',')} documents "
        f"(validation {glue('owt_val_percent', 100 * OWT_VAL_DOCS / docs, '.3f')}%, test_size "
        f"{glue('owt_test_size', '0.0005')}, seed {glue('owt_seed', 2357)}); "
        f"{glue('owt_tokens_per_doc', OWT_TRAIN_TOKENS / OWT_TRAIN_DOCS, ',.0f')} "
        f"tokens per training document on average"
    )
    print(
        f"    vocabulary {glue('vocab', VOCAB, ',')} padded to "
        f"{glue('vocab_padded', VOCAB_PADDED, ',')} = {glue('pad_multiple', 64)} x "
        f"{glue('pad_factor', VOCAB_PADDED // 64)} ({glue('pad_unused', VOCAB_PADDED - VOCAB)} "
        "unused rows)"
    )
    print(f"    init std {glue('init_std', '0.02')}; residual projections "
          f"{glue('proj_std_base', '0.02')} / sqrt(2 x {glue('proj_layers', N_LAYER)}) = "
          f"{glue('proj_std', std_proj, '.5f')}")
    assert tok_nano == 491_520 and tok_sub == 327_680 and docs == 8_013_769
    assert VOCAB_PADDED % 64 == 0 and VOCAB_PADDED - VOCAB == 47 and 32 < passes < 33

    print(f"[2] nanoGPT's learning rate (warm-up {glue('lr_warmup', NANO['warmup'], ',')} steps, "
          f"cosine from {glue('lr_max', '6e-4')} to {glue('lr_min', '6e-5')} at "
          f"{glue('lr_decay_iters', NANO['lr_decay_iters'], ',')}):")
    steps = (0, 999, 1_999, 2_000, 150_000, 301_000, 450_000, 600_000, 700_000)
    for it in steps:
        rate = nano_lr(it, NANO['lr'], NANO['min_lr'], NANO['warmup'], NANO['lr_decay_iters'])
        print(f"    step {glue(f'lr_step_{it}', it, '>7,')}: {glue(f'lr_at_{it}', rate, '.3e')}")
    assert nano_lr(0, 6e-4, 6e-5, 2_000, 600_000) == 6e-4 / 2_001
    assert abs(nano_lr(301_000, 6e-4, 6e-5, 2_000, 600_000) - 3.3e-4) < 1e-12
    print(f"    the authors' warm-up: lr x step / {glue('authors_warmup', NANO['warmup'], ',')}, "
          f"so step {glue('authors_first_step', 0)} has learning rate "
          f"{glue('authors_first_lr', 0)}")

    nd, nd_num, nn_t, nn_num = decay_split(N_LAYER, N_EMBD, VOCAB_PADDED, CTX)
    print(
        f"[3] GPT-2 small in nanoGPT (bias=False, vocabulary "
        f"{glue('decay_vocab', VOCAB_PADDED, ',')}): weight decay on "
        f"{glue('decay_tensors', nd)} tensors with {glue('decay_numbers', nd_num, ',')} numbers; "
        f"none on {glue('no_decay_tensors', nn_t)} LayerNorm weights with "
        f"{glue('no_decay_numbers', nn_num, ',')}"
    )
    assert (nd, nd_num, nn_t, nn_num) == (50, 124_354_560, 25, 19_200)

    print(
        f"[4] residual stream RMS after the last block / entering the first, at initialization "
        f"(n_embd {glue('init_embd', INIT_CFG.n_embd)}, M = {glue('init_seeds', len(INIT_SEEDS))}"
        " seeds):"
    )
    print(f"    n_layer   c_proj std {glue('res_scaled_std', '0.02')}/sqrt(2 n_layer)   c_proj std "
          f"{glue('res_unscaled_std', '0.02')}")
    growth = {}
    per_seed = {}
    for L in DEPTHS:
        cfg = replace(INIT_CFG, n_layer=L)
        row = {}
        for scaled in (True, False):
            values = [residual_growth(cfg, s, scaled) for s in INIT_SEEDS]
            per_seed[L, scaled] = values
            row[scaled] = mean_se(values)
        growth[L] = row
        (ms, ss), (mu, su) = row[True], row[False]
        print(f"    {glue(f'res_layers_{L}', L, '>7')}        "
              f"{glue(f'res_scaled_{L}', ms, '.3f')} +- {glue(f'res_scaled_{L}_se', ss, '.3f')}"
              f"                 {glue(f'res_unscaled_{L}', mu, '.3f')} +- "
              f"{glue(f'res_unscaled_{L}_se', su, '.3f')}")
    g_s = [growth[L][True][0] for L in DEPTHS]
    g_u = [growth[L][False][0] for L in DEPTHS]
    print(
        f"    from {glue('growth_from', DEPTHS[0])} to {glue('growth_to', DEPTHS[-1])} layers: "
        f"scaled x {glue('growth_scaled', g_s[-1] / g_s[0], '.2f')}, unscaled x "
        f"{glue('growth_unscaled', g_u[-1] / g_u[0], '.2f')}; from "
        f"{glue('growth_late_from', DEPTHS[-2])} to {glue('growth_late_to', DEPTHS[-1])} "
        f"unscaled: x {glue('growth_late', g_u[-1] / g_u[-2], '.2f')} (sqrt 2 = "
        f"{glue('sqrt2', math.sqrt(2), '.3f')})"
    )
    assert g_u[-1] / g_u[0] > 2 and g_s[-1] / g_s[0] < 1.5
    pairs = zip(per_seed[DEPTHS[-2], False], per_seed[DEPTHS[-1], False], strict=True)
    pr, ps = mean_se([b / a for a, b in pairs])
    print(
        f"    {glue('seed_late_from', DEPTHS[-2])} to {glue('seed_late_to', DEPTHS[-1])} "
        f"unscaled, ratio per seed: x {glue('seed_late_ratio', pr, '.3f')} +- "
        f"{glue('seed_late_se', ps, '.3f')} "
        f"({glue('seed_late_z', (pr - math.sqrt(2)) / ps, '.1f')} standard errors above sqrt 2)"
    )
    assert pr - math.sqrt(2) > 2 * ps
    # the cap of independent writes of one fixed size: sqrt(32 / 2) = 4
    pairs = zip(per_seed[DEPTHS[0], False], per_seed[DEPTHS[-1], False], strict=True)
    fr, fs = mean_se([b / a for a, b in pairs])
    cap = math.sqrt(DEPTHS[-1] / DEPTHS[0])
    print(
        f"    {glue('seed_full_from', DEPTHS[0])} to {glue('seed_full_to', DEPTHS[-1])} "
        f"unscaled, ratio per seed: x {glue('seed_full_ratio', fr, '.3f')} +- "
        f"{glue('seed_full_se', fs, '.3f')} "
        f"({glue('seed_full_z', (fr - cap) / fs, '.1f')} standard errors above "
        f"sqrt({glue('cap_to', DEPTHS[-1])} / {glue('cap_from', DEPTHS[0])}) = "
        f"{glue('cap', cap, '.0f')})"
    )
    assert fr - cap > 2 * fs
    assert all(
        growth[L][False][0] - growth[L][True][0]
        > 2 * math.hypot(growth[L][False][1], growth[L][True][1])
        for L in DEPTHS
    )

    chain = random_markov_chain(V_SMALL, CONCENTRATION, np.random.default_rng(CHAIN_SEED))
    eval_docs = torch.from_numpy(
        sample_documents(
            chain, EVAL_DOCS, TRAIN_CFG.block_size + 1, np.random.default_rng(CHAIN_SEED + 1)
        )
    )
    floor = floor_bits(chain, TRAIN_CFG.block_size)
    results = {
        s: [train(chain, seed, s, eval_docs) for seed in TRAIN_SEEDS]
        for s in ("constant", "cosine")
    }
    print(
        f"[5] GPT n_layer {glue('small_layers', TRAIN_CFG.n_layer)}, n_embd "
        f"{glue('small_embd', TRAIN_CFG.n_embd)} on a Markov source, V = "
        f"{glue('small_vocab', V_SMALL)}; {glue('small_steps', STEPS)} AdamW steps, batch "
        f"{glue('small_batch', BATCH)} x {glue('small_block', TRAIN_CFG.block_size)}, peak lr "
        f"{glue('small_peak_lr', PEAK_LR, 'g')}, M = {glue('small_seeds', len(TRAIN_SEEDS))} "
        f"seeds; held-out loss on {glue('small_eval_docs', EVAL_DOCS, ',')} documents, bits per "
        "token:"
    )
    # constant and cosine runs share their seeds, hence their untrained models: count each once
    m0, s0 = mean_se([r[0] for r in results["constant"]])
    assert [r[0] for r in results["constant"]] == [r[0] for r in results["cosine"]]
    print(
        f"    untrained: {glue('untrained', m0, '.3f')} +- {glue('untrained_se', s0, '.3f')} "
        f"(log2 {glue('untrained_log_vocab', V_SMALL)} = "
        f"{glue('uniform_bits', math.log2(V_SMALL), '.3f')}); best possible on this source: "
        f"{glue('floor', floor, '.3f')}"
    )
    final = {}
    for s in results:
        final[s] = mean_se([r[1] for r in results[s]])
        print(f"    {s:>8} schedule: final {glue(f'final_{s}', final[s][0], '.3f')} +- "
              f"{glue(f'final_{s}_se', final[s][1], '.3f')}")
    diffs = [c[1] - w[1] for c, w in zip(results["constant"], results["cosine"], strict=True)]
    md, sd = mean_se(diffs)
    print(
        f"    constant minus cosine, paired by seed: {glue('paired', md, '.3f')} +- "
        f"{glue('paired_se', sd, '.3f')} bits (cosine lower for "
        f"{glue('paired_lower', sum(d > 0 for d in diffs))} of {glue('paired_of', len(diffs))} "
        "seeds)"
    )
    assert abs(m0 - math.log2(V_SMALL)) < 0.05
    assert md > 2 * sd and floor < final["cosine"][0] < final["constant"][0]

    draw_figure(growth, results, floor)
    print("All assertions passed.")


def draw_figure(growth: dict, results: dict, floor: float) -> None:
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(5.5, 8.2))
    for scaled, color, label in (
        (True, "#0072B2", "c_proj std 0.02/sqrt(2 n_layer) (nanoGPT)"),
        (False, "#D55E00", "c_proj std 0.02 (no scaling)"),
    ):
        m = [growth[L][scaled][0] for L in DEPTHS]
        e = [2 * growth[L][scaled][1] for L in DEPTHS]
        ax1.errorbar(DEPTHS, m, yerr=e, marker="o", capsize=3, color=color, label=label)
    ax1.set_xscale("log", base=2)
    ax1.set_xticks(DEPTHS, [str(L) for L in DEPTHS])
    ax1.minorticks_off()
    ax1.set_xlabel("n_layer")
    ax1.set_ylabel("RMS after last block / RMS at input")
    ax1.set_title("Residual stream at initialization (5 seeds, +-2 SE)", fontsize=10)
    ax1.legend(loc="upper left")
    x = np.arange(EVAL_EVERY, STEPS + 1, EVAL_EVERY)
    for s, color in (("constant", "#D55E00"), ("cosine", "#0072B2")):
        for i, r in enumerate(results[s]):
            ax2.plot(
                x,
                r[2],
                color=color,
                alpha=0.7,
                lw=1,
                label=f"{s} learning rate" if i == 0 else None,
            )
    ax2.axhline(
        floor, color="#000000", ls="--", lw=1, label="best possible (entropy of the source)"
    )
    ax2.set_xlabel("optimizer step")
    ax2.set_ylabel("held-out loss (bits per token)")
    ax2.set_title("Same model, same data: the schedule alone", fontsize=10)
    ax2.legend(loc="upper right")
    fig.tight_layout()
    save_figure(fig, FIGURE_NAME, dpi=150)
    plt.close(fig)


if __name__ == "__main__":
    main()
