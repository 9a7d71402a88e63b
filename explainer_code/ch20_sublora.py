"""Chapter 20: SubLoRA against its two halves, on a tiny GPT trained from a frozen random start.

Claims, numbered as the output blocks:
  [1] The setup: a fixed random Markov chain (entropy rate known), a tiny GPT of nanoGPT's layout
      (2 blocks, width 32, separate bias-free q, k, v, head tied to the embedding) with rank-4
      LoRA on W_Q, W_V and the head (lora_alpha 32, dropout 0.1, the authors' settings), and
      the numbers each variant trains. The frozen base is the random initialisation, as in the
      paper's pretraining from scratch.
  [2] The ablation, measured (two seeds each): LoRA alone (every LoRA number trained), a random
      subspace over all weights (no LoRA) and SubLoRA (a random subspace of the LoRA numbers), at
      equal d, all with the authors' rdkronqr projector and the same optimizer and steps:
      training loss, held-out loss with its Monte Carlo standard error, message length of the
      trained numbers quantized to 11 levels and the held-out loss after quantization.
  [3] What each step of training costs beyond the network: numbers rebuilt from w per step and
      multiply-adds of the projection. Wall times go to stderr only (they vary run to run).
  [4] What the numbers say about the argument for SubLoRA, stated only where the measured gaps
      exceed the seed-to-seed spread and the Monte Carlo error.
  [5] The same choice at GPT-2 small's size (d = 50,000): a projector over all 123,689,472
      weights against one over the 351,744 LoRA numbers, from the structure.
Figure: ch20_loss_vs_message.png (held-out loss against message length for the nine runs of [2]).
Seeds: chain 0, data 1 and 2, base model 3, LoRA 4, projectors 10 and 11, dropout 5.
Deterministic: one thread, float64, values rounded to 3-4 significant digits.
Every value the chapter quotes is printed through `glue(name, ...)` (script_glue.py), so that the
page refers to it by name.
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pacbound as pb
import torch
from pacbound import markov
from script_glue import glue
from script_io import save_figure
from torch import nn
from torch.nn import functional as F

torch.set_num_threads(1)
torch.set_default_dtype(torch.float64)  # last-bit CPU differences stay far below printed digits

V, CTX, WIDTH, N_LAYER, N_HEAD = 16, 16, 32, 2, 2
R, LORA_ALPHA, LORA_DROPOUT = 4, 32, 0.1  # [SOURCE: config/sublora_train.yaml:37-41 @c606ea6]
DIRICHLET = 0.3
N_TRAIN_SEQ, N_TEST_SEQ = 128, 800
SEED_CHAIN, SEED_TRAIN, SEED_TEST, SEED_BASE, SEED_LORA, SEED_DROP = 0, 1, 2, 3, 4, 5
PROJ_SEEDS = (10, 11)
DIMS = (64, 256)
STEPS, LR_DIRECT, LR_SUB = 300, 0.01, 0.05
LEVELS = 11  # quantization levels [SOURCE: config/sublora_bounds.yaml:35 @c606ea6]
KIND = "rdkronqr"
GPT2_d = 50_000  # SubLoRA's d [SOURCE: config/sublora_bounds.yaml:29 @c606ea6]
GPT2_ALL = 123_689_472  # GPT-2 small, nanoGPT's count (Chapter 5)
GPT2_LORA = 351_744  # its LoRA numbers (Chapter 19)
FIGURE_NAME = "ch20_loss_vs_message.png"


# ----------------------------------------------------------------------------------- data
def markov_chain(seed: int) -> tuple[np.ndarray, np.ndarray, float]:
    """Transition matrix T (rows ~ Dirichlet), stationary law pi, entropy rate in bits
    (pacbound.markov's)."""
    rng = np.random.default_rng(seed)
    T = rng.dirichlet(np.full(V, DIRICHLET), size=V)
    return T, markov.stationary_distribution(T), markov.stationary_entropy_rate_bits(T)


def sequences(T: np.ndarray, pi: np.ndarray, n: int, seed: int) -> torch.Tensor:
    """n sequences of CTX + 1 symbols, each started from the stationary law."""
    rng = np.random.default_rng(seed)
    cum = np.cumsum(T, axis=1)
    out = np.empty((n, CTX + 1), dtype=np.int64)
    out[:, 0] = rng.choice(V, size=n, p=pi)
    for t in range(1, CTX + 1):
        u = rng.random(n)
        out[:, t] = np.minimum((u[:, None] > cum[out[:, t - 1]]).sum(1), V - 1)
    return torch.from_numpy(out)


# ----------------------------------------------------------------------------------- model
class Block(nn.Module):
    """Pre-LayerNorm block: causal self-attention with separate q, k, v, then an MLP."""

    def __init__(self, lora: bool) -> None:
        super().__init__()
        self.ln_1, self.ln_2 = nn.LayerNorm(WIDTH, bias=False), nn.LayerNorm(WIDTH, bias=False)
        self.q = nn.Linear(WIDTH, WIDTH, bias=False)
        self.k = nn.Linear(WIDTH, WIDTH, bias=False)
        self.v = nn.Linear(WIDTH, WIDTH, bias=False)
        self.o = nn.Linear(WIDTH, WIDTH, bias=False)
        self.fc = nn.Linear(WIDTH, 4 * WIDTH, bias=False)
        self.proj = nn.Linear(4 * WIDTH, WIDTH, bias=False)
        if lora:
            kw = {"r": R, "lora_alpha": LORA_ALPHA, "lora_dropout": LORA_DROPOUT}
            self.q, self.v = pb.LoRALinear(self.q, **kw), pb.LoRALinear(self.v, **kw)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, C = x.shape
        h = self.ln_1(x)
        q, k, v = (
            m(h).view(B, T, N_HEAD, C // N_HEAD).transpose(1, 2) for m in (self.q, self.k, self.v)
        )
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.o(a.transpose(1, 2).reshape(B, T, C))
        return x + self.proj(F.gelu(self.fc(self.ln_2(x))))


class TinyGPT(nn.Module):
    """Token and position embeddings, blocks, final LayerNorm, head tied to the token table."""

    def __init__(self, lora: bool) -> None:
        super().__init__()
        torch.manual_seed(SEED_BASE)
        self.wte, self.wpe = nn.Embedding(V, WIDTH), nn.Embedding(CTX, WIDTH)
        self.blocks = nn.ModuleList(Block(lora=False) for _ in range(N_LAYER))
        self.ln_f = nn.LayerNorm(WIDTH, bias=False)
        self.head = nn.Linear(WIDTH, V, bias=False)
        self.head.weight = self.wte.weight
        for (
            name,
            p,
        ) in self.named_parameters():  # nanoGPT's initialisation [SOURCE: nanoGPT model.py]
            if p.dim() == 2:
                std = (
                    0.02 / math.sqrt(2 * N_LAYER)
                    if name.endswith(("o.weight", "proj.weight"))
                    else 0.02
                )
                nn.init.normal_(p, std=std)
        if lora:  # the same random base, then LoRA factors drawn from their own seed
            torch.manual_seed(SEED_LORA)
            kw = {"r": R, "lora_alpha": LORA_ALPHA, "lora_dropout": LORA_DROPOUT}
            for b in self.blocks:
                b.q, b.v = pb.LoRALinear(b.q, **kw), pb.LoRALinear(b.v, **kw)
            self.head = pb.LoRALinear(self.head, **kw)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        x = self.wte(idx) + self.wpe(torch.arange(idx.shape[1]))
        for b in self.blocks:
            x = b(x)
        return self.head(self.ln_f(x))


def loss_bits(model: nn.Module, seqs: torch.Tensor) -> torch.Tensor:
    """Mean next-symbol code length, bits per symbol."""
    logits = model(seqs[:, :-1])
    return F.cross_entropy(logits.reshape(-1, V), seqs[:, 1:].reshape(-1)) / math.log(2)


def per_symbol_bits(model: nn.Module, seqs: torch.Tensor) -> np.ndarray:
    with torch.no_grad():
        logits = model(seqs[:, :-1])
        nll = F.cross_entropy(logits.reshape(-1, V), seqs[:, 1:].reshape(-1), reduction="none")
    return (nll / math.log(2)).numpy().astype(np.float64)


def train(model: nn.Module, params: list[torch.Tensor], data: torch.Tensor, lr: float) -> float:
    """Full-batch Adam for STEPS steps; returns the wall time per step (seconds)."""
    torch.manual_seed(SEED_DROP)
    opt = torch.optim.Adam(params, lr=lr)
    model.train()
    start = time.perf_counter()
    for _ in range(STEPS):
        opt.zero_grad()
        loss_bits(model, data).backward()
        opt.step()
    return (time.perf_counter() - start) / STEPS


@dataclass
class Result:
    name: str
    d: int  # numbers trained (and coded)
    rebuilt: int  # numbers recomputed from w at every step
    proj_madds: int
    train: float
    test: float
    test_se: float
    bits: int
    test_quant: float
    seconds_per_step: float


def quantized_copy(values: torch.Tensor) -> tuple[torch.Tensor, int]:
    """The values quantized to LEVELS levels, and the message length of their codes (bits)."""
    codes, book = pb.quantize_uniform(values.detach().numpy().astype(np.float64), levels=LEVELS)
    deq = torch.tensor(pb.dequantize(codes, book))
    return deq, pb.message_length_bits(codes, LEVELS)


def evaluate(name, model, d, rebuilt, madds, train_seqs, test_seqs, secs, set_quant) -> Result:
    model.eval()
    train_loss = float(per_symbol_bits(model, train_seqs).mean())
    test = per_symbol_bits(model, test_seqs)
    bits = set_quant()
    test_q = float(per_symbol_bits(model, test_seqs).mean())
    se = float(test.std(ddof=1) / math.sqrt(test.size))
    return Result(name, d, rebuilt, madds, train_loss, float(test.mean()), se, bits, test_q, secs)


def kron_madds(D: int, d: int) -> int:
    (D1, d1), (De, de) = pb.kron_shapes(D, d)
    return D1 * d1 * d1 + D1 * d1 * D1 + De * de


def run_lora(train_seqs, test_seqs) -> Result:
    model = TinyGPT(lora=True)
    names = pb.lora_parameter_names(model)
    params = dict(model.named_parameters())
    theta0 = {n: params[n].detach().clone() for n in names}
    secs = train(model, [params[n] for n in names], train_seqs, LR_DIRECT)

    def set_quant() -> int:
        delta = torch.cat([(params[n] - theta0[n]).reshape(-1) for n in names])
        deq, bits = quantized_copy(delta)
        with torch.no_grad():
            for n, piece in zip(
                names, torch.split(deq, [theta0[n].numel() for n in names]), strict=True
            ):
                params[n].copy_(theta0[n] + piece.view_as(theta0[n]))
        return bits

    n = sum(t.numel() for t in theta0.values())
    return evaluate("LoRA alone", model, n, 0, 0, train_seqs, test_seqs, secs, set_quant)


def run_subspace(lora: bool, d: int, seed: int, train_seqs, test_seqs) -> Result:
    base = TinyGPT(lora=lora)
    names = pb.lora_parameter_names(base) if lora else None
    sub = pb.SubspaceModel(base, names, d=d, kind=KIND, seed=seed)
    secs = train(sub, [sub.w], train_seqs, LR_SUB)

    def set_quant() -> int:
        deq, bits = quantized_copy(sub.w)
        with torch.no_grad():
            sub.w.copy_(deq)
        return bits

    name = "SubLoRA" if lora else "subspace, all weights"
    madds = kron_madds(sub.D, d)
    return evaluate(name, sub, d, sub.D, madds, train_seqs, test_seqs, secs, set_quant)


# --------------------------------------------------------------------------------- figure
def draw_figure(results: list[Result], entropy_rate: float) -> None:
    """Held-out loss (+- 2 SE) against message bits for every run of [2]."""
    styles = {"LoRA alone": ("s", "#D55E00"), "subspace, all weights": ("o", "#0072B2"),
              "SubLoRA": ("^", "#009E73")}  # fmt: skip
    fig, ax = plt.subplots(figsize=(5.5, 6.6), layout="constrained")
    handles = []
    for name, (marker, colour) in styles.items():
        runs = [r for r in results if r.name == name]
        handles.append(ax.errorbar([r.bits for r in runs], [r.test for r in runs],
                                   yerr=[2 * r.test_se for r in runs], fmt=marker, color=colour,
                                   capsize=3, label=f"{name}, held-out +- 2 SE"))  # fmt: skip
        handles += ax.plot([r.bits for r in runs], [r.test_quant for r in runs], marker,
                           mfc="none", color=colour, label=f"{name}, quantized")  # fmt: skip
    handles.append(ax.axhline(entropy_rate, color="#777777", ls=":", lw=1,
                              label="entropy rate of the chain"))  # fmt: skip
    ax.set_xscale("log")
    ax.set_xlabel("message length of the trained numbers (bits)")
    ax.set_ylabel("held-out loss (bits per symbol)")
    fig.legend(handles=handles, frameon=False, loc="outside lower center")
    save_figure(fig, FIGURE_NAME)


def main() -> None:
    print(
        "Chapter 20 -- SubLoRA against LoRA alone and a subspace of all weights (ch20_sublora.py)"
    )

    # [1] setup
    T, pi, H = markov_chain(SEED_CHAIN)
    train_seqs = sequences(T, pi, N_TRAIN_SEQ, SEED_TRAIN)
    test_seqs = sequences(T, pi, N_TEST_SEQ, SEED_TEST)
    plain, with_lora = TinyGPT(lora=False), TinyGPT(lora=True)
    n_all = sum(p.numel() for p in plain.parameters())
    n_lora = sum(p.numel() for n, p in with_lora.named_parameters() if "lora_" in n)
    plain.eval()
    start_loss = float(per_symbol_bits(plain, test_seqs).mean())
    print(f"[1] Markov chain on {glue('n_symbols', V)} symbols: entropy rate "
          f"{glue('entropy_rate', H, '.3f')} bits per symbol; training data "
          f"{glue('train_sequences', N_TRAIN_SEQ)} sequences x {glue('sequence_length', CTX)} = "
          f"{glue('train_predictions', N_TRAIN_SEQ * CTX, ',')} predictions; held-out "
          f"{glue('heldout_predictions', N_TEST_SEQ * CTX, ',')}")  # fmt: skip
    print(f"    tiny GPT: {glue('n_layer', N_LAYER)} blocks, width {glue('width', WIDTH)}, "
          f"{glue('n_head', N_HEAD)} heads, context {glue('context', CTX)}, head tied to the "
          f"embedding: {glue('n_weights', n_all, ',')} weights; LoRA r = {glue('lora_rank', R)} "
          f"on W_Q, W_V, head: {glue('lora_numbers', n_lora, ',')} numbers; untrained held-out "
          f"loss {glue('untrained_loss', start_loss, '.3f')} bits")  # fmt: skip
    assert n_lora == N_LAYER * 2 * R * 2 * WIDTH + R * (V + WIDTH)

    # [2] the ablation
    results = [run_lora(train_seqs, test_seqs)]
    keys = ["lora_alone"]  # the names of the rows of [2]: lora_alone, sublora_d256_seed10, ...
    for d in DIMS:
        for lora in (False, True):
            for seed in PROJ_SEEDS:
                results.append(run_subspace(lora, d, seed, train_seqs, test_seqs))
                keys.append(f"{'sublora' if lora else 'all_weights'}_d{d}_seed{seed}")
    print(f"[2] {glue('steps', STEPS)} full-batch Adam steps each (lr "
          f"{glue('lr_direct', LR_DIRECT)} on LoRA numbers, {glue('lr_subspace', LR_SUB)} on w); "
          f"projector {KIND}, seeds "
          f"{PROJ_SEEDS}; losses in bits per symbol (entropy rate {H:.3f}); message = "
          f"{glue('levels', LEVELS)}-level quantization + arithmetic code:")  # fmt: skip
    print(f"    {'variant':<22} {'d':>5} {'train':>6} {'held-out':>14} {'message':>12} "
          f"{'quantized':>9}")  # fmt: skip
    for key, r in zip(keys, results, strict=True):
        print(f"    {r.name:<22} {glue(f'{key}_d', r.d, '>5')} "
              f"{glue(f'{key}_train', r.train, '6.3f')} {glue(f'{key}_test', r.test, '6.3f')} +- "
              f"{glue(f'{key}_test_se', r.test_se, '.3f')} {glue(f'{key}_bits', r.bits, '>7,')} "
              f"bits {glue(f'{key}_quantized', r.test_quant, '9.3f')}")  # fmt: skip
    assert all(r.test < start_loss - 0.1 for r in results)
    draw_figure(results, H)

    # [3] cost per step
    print("[3] work per training step beyond the network itself:")
    seen = set()
    for r in results:
        if (r.name, r.d) in seen:
            continue
        seen.add((r.name, r.d))
        kind = {"LoRA alone": "lora_alone", "SubLoRA": "sublora"}.get(r.name, "all_weights")
        key = f"work_{kind}_d{r.d}"  # e.g. work_sublora_d256_madds
        print(f"    {r.name:<22} d = {glue(f'{key}_d', r.d, '>5')}: rebuilds "
              f"{glue(f'{key}_rebuilt', r.rebuilt, '>6,')} numbers from w, projection "
              f"{glue(f'{key}_madds', r.proj_madds, '>9,')} multiply-adds")  # fmt: skip
    for r in results:
        print(f"timing (not golden): {r.name} d={r.d}: {1e3 * r.seconds_per_step:.1f} ms/step",
              file=sys.stderr)  # fmt: skip

    # [4] what the numbers say
    def pick(name: str, d: int) -> list[Result]:
        return [r for r in results if r.name == name and r.d == d]

    lora_alone = results[0]
    print("[4] comparisons (a gap counts only if larger than seed spread + 2 standard errors):")
    for d in DIMS:
        sl, sa = pick("SubLoRA", d), pick("subspace, all weights", d)
        gap = round(float(np.mean([r.test for r in sa]) - np.mean([r.test for r in sl])), 3) + 0.0
        spread = max(max(r.test for r in g) - min(r.test for r in g) for g in (sl, sa))
        noise = spread + 2 * max(r.test_se for r in sl + sa)
        verdict = ("SubLoRA better" if gap > noise else "all-weights subspace better"
                   if gap < -noise else "no clear difference")  # fmt: skip
        print(f"    d = {glue(f'gap_d{d}_d', d)}: held-out loss all-weights minus SubLoRA "
              f"{glue(f'gap_d{d}', gap, '+.3f')} bits (noise level "
              f"{glue(f'noise_d{d}', noise, '.3f')}): {verdict}")  # fmt: skip
    best_sub = min((r for r in results[1:]), key=lambda r: r.test)
    ratio = lora_alone.bits / np.mean([r.bits for r in pick("SubLoRA", max(DIMS))])
    print(f"    LoRA alone codes {lora_alone.d:,} numbers in {lora_alone.bits:,} bits, "
          f"{glue('message_ratio', ratio, '.1f')} times SubLoRA's message at "
          f"d = {glue('message_ratio_d', max(DIMS))}; held-out loss {lora_alone.test:.3f} "
          "against the best subspace run's "
          f"{glue('best_subspace_test', best_sub.test, '.3f')}")  # fmt: skip
    assert ratio > 2

    # [5] the same choice at GPT-2 small's size
    print(f"[5] at GPT-2 small's size with d = {glue('gpt2_d', GPT2_d, ',')}: an rdkronqr "
          "projector over all weights "
          "against one over the LoRA numbers (float32 factors, int64 permutation):")  # fmt: skip
    for key, label, D in (("gpt2_all", "all weights", GPT2_ALL),
                          ("gpt2_lora", "LoRA numbers", GPT2_LORA)):  # fmt: skip
        (D1, d1), (De, de) = pb.kron_shapes(D, GPT2_d)
        nbytes = (2 * D1 * d1 + De * de) * 4 + D * 8
        print(f"    {label:<13} D = {glue(f'{key}_D', D, '>11,')}: factors "
              f"{glue(f'{key}_factor_rows', D1, ',')} x {glue(f'{key}_factor_cols', d1)}, "
              f"remainder {glue(f'{key}_remainder_rows', De, ',')} x "
              f"{glue(f'{key}_remainder_cols', de)}; {glue(f'{key}_mb', nbytes / 1e6, ',.1f')} MB; "
              f"{glue(f'{key}_madds', kron_madds(D, GPT2_d), '.3g')} multiply-adds and {D:,} "
              "numbers rebuilt per step")  # fmt: skip
    grow = GPT2_ALL / GPT2_LORA
    print(f"    all weights / LoRA numbers: {glue('rebuild_ratio', grow, '.0f')} times more "
          "numbers to rebuild at every step")
    assert pb.gpt2_lora_params(12, 768) == GPT2_LORA == 351_744 and round(grow) == 352
    assert pb.gpt2_params(12, 768) == GPT2_ALL
    print("All assertions passed.")


if __name__ == "__main__":
    main()
