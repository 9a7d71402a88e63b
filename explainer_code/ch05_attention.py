"""Chapter 5: the arithmetic inside a transformer block, on numbers small enough to check by hand.

Claims, numbered as the output blocks:
  [1] GELU(t) = t Phi(t) at t = -2..2 (nanoGPT's nn.GELU and the authors' code), next to the tanh
      approximation that OpenAI's GPT-2 code uses (GELU(1) = 0.8413 exact, 0.8412 tanh); LayerNorm
      of (1, 2, 3, 6) by hand (mean 0, variance 1).
  [2] Causal self-attention of three tokens with head size hs = 2: scores q.k / sqrt(hs), causal
      mask, the exponentials and their sums, softmax weights (each row sums to 1), outputs as
      weighted averages of the values.
  [3] A randomly initialized model of nanoGPT's layout with 4 layers, 4 heads, n_embd 32 (the
      smallest shape of the paper's Figure 3 sweep, SECONDARY: paper App. E, p. 17): its parameter
      count,
      the shapes along the residual stream, causality (changing token 9 leaves the logits at
      positions 1-8 bit for bit unchanged), and an untrained model's surprisal near log2 V, with
      the standard error of its mean over the 11 predicted tokens.
  [4] Word order without a position embedding: with the position embedding zeroed, the causal
      model still tells [100, 200, 300] from [200, 100, 300], which share their last token (the
      mask leaks order); without the mask as well it cannot. [300, 200, 100] differs from
      [100, 200, 300] in its last token, so that pair differs either way and tests nothing; in
      it, token 300 gets the same logits wherever it stands when there is no mask.
  [5] The attention weights of the tiny model's first layer, drawn as a heatmap.
Figures: ch05_attention_heatmap.png (block [5]), ch05_three_tokens.png (block [2]).
Deterministic: torch.manual_seed(0); CPU only; float32 values printed to at most 4 significant
digits, rounding errors printed as bounds. Every printed number is asserted to its printed digits:
the hand example against scalar arithmetic, the tiny model's numbers against a second forward
pass in float64 NumPy (forward_np) that shares only the weights with the torch model.
"""

from __future__ import annotations

import math
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pacbound as pb
import torch
import torch.nn.functional as F
from script_glue import END, SEP, START, glue
from script_io import save_figure
from torch import nn

SEED = 0
V_PAD = pb.NANOGPT_VOCAB_SIZE  # 50,304 rows of the embedding and the head
N_LAYER, N_HEAD, N_EMBD = 4, 4, 32  # smallest Figure 3 shape     [SECONDARY: paper App. E, p. 17]
T = 12  # tokens fed to the tiny model
CHANGED = 8  # 0-based index of the token we change: token 9
ROW_SUM_BOUND = 1e-6  # printed as "below 1e-6": the exact rounding error is platform noise
ORDER_TEST = ([100, 200, 300], [300, 200, 100])  # the same three token ids, in two orders
HEATMAP = "ch05_attention_heatmap.png"
# The three-token example: (query rows, key rows, value rows), one row per token, d_head = 2.
THREE_TOKEN_QKV = (
    ((1, 0), (0, 1), (1, 1)),
    ((1, 0), (0, 2), (1, 1)),
    ((1, 0), (0, 1), (1, 1)),
)
THREE_TOKENS = "ch05_three_tokens.png"
# Palette: Okabe-Ito blue and vermillion, and a sequential map that reads in grey too.
INK, ACCENT, SEQ_MAP = "#0072B2", "#D55E00", "cividis"


def fmt(values: np.ndarray | list[float], name: str = "") -> str:
    """(1.0, 0.5) -> '(1.000, 0.500)'; -inf stays '-inf'. With `name`, entry j (from 1) is glued
    as f"{name}{j}" (-inf entries are not)."""
    return "(" + ", ".join(
        "-inf" if np.isneginf(v) else glue(f"{name}{j}", v, ".3f") if name else f"{v:.3f}"
        for j, v in enumerate(values, start=1)) + ")"


def shown(text: str) -> str:
    """`text` as a reader sees it: without the markers of its glued values (script_glue.py)."""
    return re.sub(f"{START}[^{SEP}]*{SEP}|{END}", "", text)


def gelu_key(t: int) -> str:
    """-2 -> 'm2', 1 -> '1': a name part for the argument t."""
    return f"m{-t}" if t < 0 else str(t)


def gelu(t: float) -> float:
    """GELU(t) = t Phi(t), Phi the standard normal CDF, written with erf."""
    return t * 0.5 * (1.0 + math.erf(t / math.sqrt(2.0)))


def gelu_tanh(t: float) -> float:
    """The tanh approximation 0.5 t (1 + tanh(sqrt(2/pi) (t + 0.044715 t^3))) of OpenAI's GPT-2."""
    return 0.5 * t * (1.0 + math.tanh(math.sqrt(2.0 / math.pi) * (t + 0.044715 * t**3)))


def causal_softmax(scores: np.ndarray) -> np.ndarray:
    """Row-wise softmax of a (T, T) score matrix whose entries above the diagonal become -inf."""
    masked = np.where(np.triu(np.ones(scores.shape, dtype=bool), k=1), -np.inf, scores)
    e = np.exp(masked - masked.max(axis=1, keepdims=True))  # exp(-inf) = 0 exactly
    return e / e.sum(axis=1, keepdims=True)


# --------------------------------------------------------------- a tiny model, nanoGPT layout
class Attention(nn.Module):
    """Multi-head self-attention with nanoGPT's fused c_attn; `causal=False` drops the mask."""

    def __init__(self, n_embd: int, n_head: int) -> None:
        super().__init__()
        self.n_head = n_head
        self.causal = True
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)  # W_Q, W_K, W_V side by side
        self.c_proj = nn.Linear(n_embd, n_embd)  # W_O
        self.weights: torch.Tensor | None = None  # last attention weights, (n_head, T, T)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        n_tok, n_embd = x.shape  # (T, C)
        d_head = n_embd // self.n_head
        q, k, v = self.c_attn(x).split(n_embd, dim=1)  # each (T, C)
        q, k, v = (
            z.view(n_tok, self.n_head, d_head).transpose(0, 1) for z in (q, k, v)
        )  # (H, T, hs)
        scores = q @ k.transpose(1, 2) / math.sqrt(d_head)  # (H, T, T)
        if self.causal:  # position i may read positions j <= i only
            future = torch.ones(n_tok, n_tok, dtype=torch.bool).triu(diagonal=1)
            scores = scores.masked_fill(future, float("-inf"))
        self.weights = F.softmax(scores, dim=-1)  # (H, T, T)
        y = (self.weights @ v).transpose(0, 1).reshape(n_tok, n_embd)  # heads side by side (T, C)
        return self.c_proj(y)


class MLP(nn.Module):
    def __init__(self, n_embd: int) -> None:
        super().__init__()
        self.c_fc = nn.Linear(n_embd, 4 * n_embd)
        self.c_proj = nn.Linear(4 * n_embd, n_embd)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.c_proj(F.gelu(self.c_fc(x)))  # exact (erf) GELU, as nn.GELU()


class Block(nn.Module):
    def __init__(self, n_embd: int, n_head: int) -> None:
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd)
        self.attn = Attention(n_embd, n_head)
        self.ln_2 = nn.LayerNorm(n_embd)
        self.mlp = MLP(n_embd)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln_1(x))  # the residual stream is added to, never replaced
        return x + self.mlp(self.ln_2(x))


class TinyGPT(nn.Module):
    """nanoGPT's GPT for one sequence (no batch axis): tied head, learned position embedding."""

    def __init__(self, n_layer: int, n_head: int, n_embd: int, block_size: int = pb.GPT2_CONTEXT):
        super().__init__()
        self.wte = nn.Embedding(V_PAD, n_embd)
        self.wpe = nn.Embedding(block_size, n_embd)
        self.h = nn.ModuleList(Block(n_embd, n_head) for _ in range(n_layer))
        self.ln_f = nn.LayerNorm(n_embd)
        self.lm_head = nn.Linear(n_embd, V_PAD, bias=False)
        self.lm_head.weight = self.wte.weight  # weight tying: one table, read at both ends
        # GPT-2 initialization, one pass in registration order: every matrix ~ N(0, 0.02^2),
        # the two residual projections (c_proj) scaled down by sqrt(2 n_layer), biases 0,
        # LayerNorm gains stay 1.
        for name, p in self.named_parameters():
            if p.dim() == 2:
                std = 0.02 / math.sqrt(2 * n_layer) if name.endswith("c_proj.weight") else 0.02
                nn.init.normal_(p, mean=0.0, std=std)
            elif name.endswith(".bias"):
                nn.init.zeros_(p)
        self.stream_shapes: list[tuple[int, ...]] = []

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        x = self.wte(idx) + self.wpe(torch.arange(idx.shape[0]))  # residual stream (T, C)
        shapes = [tuple(x.shape)]
        for block in self.h:
            x = block(x)
            shapes.append(tuple(x.shape))
        self.stream_shapes = shapes
        return self.lm_head(self.ln_f(x))  # logits (T, V_PAD)


# ------------------------------------------------- independent recomputations, for the asserts
def three_tokens_by_hand() -> list[str]:
    """The printed lines of block [2] recomputed with scalar arithmetic (math, no NumPy)."""
    qs, ks, vs = THREE_TOKEN_QKV
    root = math.sqrt(len(qs[0]))
    lines = []

    def f3(xs: list[float]) -> str:
        return "(" + ", ".join("-inf" if x == -math.inf else f"{x:.3f}" for x in xs) + ")"

    dots = [[sum(a * b for a, b in zip(qi, kj, strict=True)) for kj in ks] for qi in qs]
    scores = [[x / root for x in row] for row in dots]
    masked = [[s if j <= i else -math.inf for j, s in enumerate(row)]
              for i, row in enumerate(scores)]
    for i in range(3):
        lines.append(f"row {i + 1}: q.k = {f3(dots[i])}  / sqrt(2) = {f3(scores[i])}  "
                     f"masked = {f3(masked[i])}")
    expo = [[math.exp(s) if s > -math.inf else 0.0 for s in row] for row in masked]
    for i in range(3):
        lines.append(f"row {i + 1}: e^score = {f3(expo[i])}  sum = {sum(expo[i]):.3f}")
    for i in range(3):
        w = [e / sum(expo[i]) for e in expo[i]]
        out = [sum(w[j] * vs[j][c] for j in range(3)) for c in range(2)]
        lines.append(f"row {i + 1}: weights = {f3(w)} (sum {sum(w):.3f})  output = {f3(out)}")
    free = [math.exp(s) for s in scores[0]]
    lines.append(f"unmasked row 1: {f3([e / sum(free) for e in free])}")
    return lines


def _erf(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf, otypes=[float])(x)


def forward_np(
    model: TinyGPT, ids: list[int], causal: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """Logits (T, V_PAD) and layer 1's attention weights (H, T, T) of `model` on `ids`,
    recomputed in float64 NumPy from its weights alone: LayerNorm with eps 1e-5, exact GELU."""
    w = {k: t.detach().double().numpy() for k, t in model.state_dict().items()}

    def lin(x: np.ndarray, name: str) -> np.ndarray:
        y = x @ w[name + ".weight"].T
        return y + w[name + ".bias"] if name + ".bias" in w else y

    def ln(x: np.ndarray, name: str) -> np.ndarray:
        mu = x.mean(axis=1, keepdims=True)
        var = ((x - mu) ** 2).mean(axis=1, keepdims=True)
        return (x - mu) / np.sqrt(var + 1e-5) * w[name + ".weight"] + w[name + ".bias"]

    n = len(ids)
    x = w["wte.weight"][ids] + w["wpe.weight"][:n]
    first = None
    for layer in range(N_LAYER):
        pre = f"h.{layer}."
        qkv = lin(ln(x, pre + "ln_1"), pre + "attn.c_attn")
        hs = N_EMBD // N_HEAD
        heads = []
        for m in range(N_HEAD):
            q, k, v = (qkv[:, part * N_EMBD + m * hs : part * N_EMBD + (m + 1) * hs]
                       for part in range(3))
            s = q @ k.T / math.sqrt(hs)
            if causal:
                s = np.where(np.triu(np.ones((n, n), dtype=bool), k=1), -np.inf, s)
            a = np.exp(s - s.max(axis=1, keepdims=True))
            a /= a.sum(axis=1, keepdims=True)
            heads.append((a, a @ v))
        if first is None:
            first = np.stack([a for a, _ in heads])
        x = x + lin(np.concatenate([o for _, o in heads], axis=1), pre + "attn.c_proj")
        mid = lin(ln(x, pre + "ln_2"), pre + "mlp.c_fc")
        x = x + lin(mid * 0.5 * (1.0 + _erf(mid / math.sqrt(2.0))), pre + "mlp.c_proj")
    return ln(x, "ln_f") @ w["wte.weight"].T, first


# --------------------------------------------------------------------------------- blocks
def block1_gelu_layernorm() -> None:
    ts = (-2, -1, 0, 1, 2)
    values = [gelu(t) for t in ts]
    print(
        "[1] GELU(t) = t Phi(t):  "
        + ",  ".join(f"GELU({glue(f'gelu_t_{gelu_key(t)}', t)}) = "
                     f"{glue(f'gelu_exact_{gelu_key(t)}', g, '.4f')}"
                     for t, g in zip(ts, values, strict=True))
    )
    # GELU(t) - GELU(-t) = t, since Phi(t) + Phi(-t) = 1; torch's exact GELU agrees.
    assert all(abs(gelu(t) - gelu(-t) - t) < 1e-12 for t in ts)
    assert torch.allclose(
        F.gelu(torch.tensor(ts, dtype=torch.float64)), torch.tensor(values, dtype=torch.float64)
    )
    assert [f"{g:.4f}" for g in values] == ["-0.0455", "-0.1587", "0.0000", "0.8413", "1.9545"]
    approx = [gelu_tanh(t) for t in ts]
    grid = np.linspace(-6.0, 6.0, 12_001)
    worst = max(abs(gelu(t) - gelu_tanh(t)) for t in grid)
    print(
        "    tanh approximation (OpenAI's GPT-2 code):  "
        + ",  ".join(f"GELU({t}) = {glue(f'gelu_tanh_{gelu_key(t)}', g, '.4f')}"
                     for t, g in zip(ts, approx, strict=True))
    )
    print(f"    the two forms differ by at most {glue('gelu_max_diff', worst, '.2e')} on "
          f"[{glue('gelu_grid_lo', -6)}, {glue('gelu_grid_hi', 6)}]")
    assert [f"{g:.4f}" for g in approx] == ["-0.0454", "-0.1588", "0.0000", "0.8412", "1.9546"]
    assert worst < 5e-4 and f"{worst:.2e}" == "4.73e-04"
    assert torch.allclose(
        F.gelu(torch.tensor(ts, dtype=torch.float64), approximate="tanh"),
        torch.tensor(approx, dtype=torch.float64),
    )

    u = np.array([1.0, 2.0, 3.0, 6.0])
    mu = u.mean()
    var = ((u - mu) ** 2).mean()  # over the entries of this one vector
    normed = (u - mu) / math.sqrt(var)
    print(
        "    LayerNorm of u = ("
        + ", ".join(glue(f"ln_u{j}", int(x)) for j, x in enumerate(u, start=1))
        + f"), gain {glue('ln_gain', 1)}, shift {glue('ln_shift', 0)}, eps {glue('ln_eps', 0)}: "
        f"mean {glue('ln_mean', mu, 'g')}, variance {glue('ln_var', var, 'g')}, "
        f"std {glue('ln_std', math.sqrt(var), '.4f')} -> {fmt(normed, 'ln_out')}"
    )
    print(f"    the result has mean {glue('ln_out_mean', abs(normed.mean()), '.0f')} and variance "
          f"{glue('ln_out_var', normed.var(), '.4f')}")
    assert mu == 3 and var == 3.5 and abs(normed.mean()) < 1e-12 and abs(normed.var() - 1) < 1e-12
    torch_ln = F.layer_norm(torch.tensor(u), (4,), eps=0.0).numpy()
    assert np.allclose(torch_ln, normed)
    # By hand: (u - 3) / sqrt(3.5), with sqrt(3.5) = 1.8708.
    by_hand = [(x - 3) / math.sqrt(3.5) for x in (1, 2, 3, 6)]
    assert shown(fmt(normed, "ln_out")) == fmt(by_hand) == "(-1.069, -0.535, 0.000, 1.604)"
    assert f"{math.sqrt(var):.4f}" == f"{math.sqrt(3.5):.4f}" == "1.8708"


def block2_three_tokens() -> None:
    q, k, v = (np.array(rows, dtype=float) for rows in THREE_TOKEN_QKV)  # each (3, 2)
    d_head = q.shape[1]
    dots = q @ k.T  # row i: q_i . k_j
    scores = dots / math.sqrt(d_head)
    masked = np.where(np.triu(np.ones((3, 3), dtype=bool), k=1), -np.inf, scores)
    weights = causal_softmax(scores)
    out = weights @ v
    printed = []  # the lines below whose numbers three_tokens_by_hand() recomputes
    print(f"[2] Three tokens, one head, head size hs = {glue('hs', d_head)}, "
          f"sqrt(hs) = {glue('sqrt_hs', math.sqrt(d_head), '.4f')}")
    assert f"{math.sqrt(d_head):.4f}" == "1.4142"
    # Names: q2_1 is entry 1 of token 2's query; dot_23 = q_2 . k_3, score_23 = dot_23 / sqrt(2),
    # expo_23 = e^score_23, weight_23 its softmax weight, out2_1 entry 1 of token 2's output.
    for i in range(1, 4):
        print(f"    token {i}: q = {fmt(q[i - 1], f'q{i}_')}  k = {fmt(k[i - 1], f'k{i}_')}  "
              f"v = {fmt(v[i - 1], f'v{i}_')}")
    for i in range(1, 4):
        printed.append(
            f"row {i}: q.k = {fmt(dots[i - 1], f'dot_{i}')}  / sqrt(2) = "
            f"{fmt(scores[i - 1], f'score_{i}')}  masked = {fmt(masked[i - 1])}"
        )
        print("    " + printed[-1])
    expo = np.exp(masked)  # e^{-inf} = 0: masked entries drop out of the sum
    for i in range(1, 4):
        printed.append(f"row {i}: e^score = {fmt(expo[i - 1], f'expo_{i}')}  "
                       f"sum = {glue(f'expo_sum_{i}', expo[i - 1].sum(), '.3f')}")
        print("    " + printed[-1] + "  weights = e^score / sum")
    assert np.allclose(expo / expo.sum(axis=1, keepdims=True), weights)
    for i in range(1, 4):
        printed.append(
            f"row {i}: weights = {fmt(weights[i - 1], f'weight_{i}')} "
            f"(sum {glue(f'weight_sum_{i}', weights[i - 1].sum(), '.3f')})  "
            f"output = {fmt(out[i - 1], f'out{i}_')}"
        )
        print("    " + printed[-1])
    assert np.allclose(weights.sum(axis=1), 1.0) and np.all(weights[np.triu_indices(3, k=1)] == 0)
    assert np.all(weights[np.tril_indices(3)] > 0) and weights[0, 0] == 1.0
    # Row 3 by hand: weights e^{0.707}, e^{1.414}, e^{1.414} over their sum.
    a, b = math.exp(1 / math.sqrt(2)), math.exp(2 / math.sqrt(2))
    assert np.allclose(out[2], [(a + b) / (a + 2 * b), 2 * b / (a + 2 * b)])
    # Each output lies between the smallest and largest allowed value, coordinate by coordinate.
    for i in range(3):
        assert np.all(out[i] >= v[: i + 1].min(axis=0) - 1e-12)
        assert np.all(out[i] <= v[: i + 1].max(axis=0) + 1e-12)
    e = np.exp(scores[0] - scores[0].max())
    unmasked = e / e.sum()
    print(
        f"    without the mask, token 1 would use weights {fmt(unmasked, 'unmasked_1')}: it would "
        "read the future"
    )
    assert unmasked[1] > 0 and unmasked[2] > 0
    printed.append(f"unmasked row 1: {fmt(unmasked)}")
    # every number of the block, recomputed
    assert [shown(line) for line in printed] == three_tokens_by_hand()
    draw_three_tokens(q, k, v, masked, expo, weights, out)


def block3_tiny_gpt() -> tuple[TinyGPT, torch.Tensor]:
    torch.manual_seed(SEED)
    model = TinyGPT(N_LAYER, N_HEAD, N_EMBD).eval()
    n_all = sum(p.numel() for p in model.parameters())  # the tied matrix counts once
    n_nanogpt = n_all - model.wpe.weight.numel()
    assert n_nanogpt == pb.gpt2_params(N_LAYER, N_EMBD)
    assert n_all == pb.gpt2_params(N_LAYER, N_EMBD, include_pos=True)

    idx = torch.randint(0, pb.GPT2_VOCAB_SIZE, (T,))
    idx_changed = idx.clone()
    idx_changed[CHANGED] = (idx_changed[CHANGED] + 1) % pb.GPT2_VOCAB_SIZE
    with torch.no_grad():
        logits = model(idx)  # (T, V_PAD)
        weights = model.h[0].attn.weights  # (H, T, T)
        assert weights is not None
        shapes = list(model.stream_shapes)
        logits_changed = model(idx_changed)
        logp = F.log_softmax(logits, dim=-1)
    change = (logits_changed - logits).abs().amax(dim=1)  # per position, (T,)
    surprisal = -logp[:-1].gather(1, idx[1:, None]).squeeze(1) / math.log(2)  # bits, (T - 1,)
    # The same quantities from the float64 NumPy forward pass, for the asserts below.
    ids, ids_changed = idx.tolist(), idx_changed.tolist()
    logits64, weights64 = forward_np(model, ids)
    change64 = np.abs(forward_np(model, ids_changed)[0] - logits64).max(axis=1)
    z = logits64 - logits64.max(axis=1, keepdims=True)
    logp64 = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    surprisal64 = -logp64[np.arange(T - 1), ids[1:]] / math.log(2)
    assert np.abs(logits64 - logits.double().numpy()).max() < 1e-4

    print(
        f"[3] Tiny GPT ({glue('tiny_n_layer', N_LAYER)} layers, {glue('tiny_n_head', N_HEAD)} "
        f"heads, n_embd = {glue('tiny_n_embd', N_EMBD)}, seed {glue('tiny_seed', SEED)}): "
        f"{glue('tiny_params', n_nanogpt, ',')} parameters in nanoGPT's count, "
        f"{glue('tiny_params_pos', n_all, ',')} with the position embedding"
    )
    print(
        f"    {glue('tiny_tokens', T)} tokens in -> residual stream "
        f"{glue('stream_in_rows', shapes[0][0])} x {glue('stream_in_cols', shapes[0][1])} after "
        f"the embedding, {glue('stream_out_rows', shapes[-1][0])} x "
        f"{glue('stream_out_cols', shapes[-1][1])} after {glue('stream_blocks', N_LAYER)} blocks "
        f"-> logits {glue('logits_rows', logits.shape[0])} x "
        f"{glue('logits_cols', logits.shape[1], ',')}"
    )
    assert all(s == (T, N_EMBD) for s in shapes) and len(shapes) == N_LAYER + 1
    assert tuple(logits.shape) == (T, V_PAD)

    row_err = (weights.sum(dim=-1) - 1).abs().max().item()
    above = weights.triu(diagonal=1).abs().max().item()
    print(
        f"    attention weights of layer 1: shape {tuple(weights.shape)} (heads x T x T); "
        "every row sums to 1 up to an error below 1e-6; "
        f"largest weight above the diagonal = {glue('weight_above_diagonal', above, 'g')}"
    )
    assert tuple(weights.shape) == (N_HEAD, T, T) and row_err < ROW_SUM_BOUND and above == 0.0

    before, after = change[:CHANGED], change[CHANGED:]
    print(
        f"    change token {glue('changed_token', CHANGED + 1)} only: largest |change| of the "
        f"logits at positions {glue('unchanged_from', 1)}-{glue('unchanged_to', CHANGED)} = "
        f"{glue('unchanged_change', before.max().item(), 'g')}, at positions "
        f"{glue('changed_from', CHANGED + 1)}-{glue('changed_to', T)} = "
        f"{glue('change_min', after.min().item(), '.3g')} ... "
        f"{glue('change_max', after.max().item(), '.3g')}"
    )
    assert before.max().item() == 0.0 and after.min().item() > 0.0  # causal, bit for bit
    after64 = change64[CHANGED:]
    assert change64[:CHANGED].max() == 0.0
    assert (f"{after.min().item():.3g}", f"{after.max().item():.3g}") == (
        f"{after64.min():.3g}", f"{after64.max():.3g}") == ("0.0133", "0.501")

    mean_bits = surprisal.mean().item()
    log2_pad = math.log2(V_PAD)
    print(
        f"    untrained model: mean surprisal of the next token = "
        f"{glue('surprisal_mean', mean_bits, '.3f')} bits/token "
        f"(log2 {glue('vocab_pad', V_PAD, ',')} = {glue('log2_vocab_pad', log2_pad, '.3f')}; "
        f"log2 V = log2 {glue('vocab', pb.GPT2_VOCAB_SIZE, ',')} = "
        f"{glue('log2_vocab', pb.random_guess_bits_per_token(), '.3f')})"
    )
    se_bits = surprisal.std().item() / math.sqrt(T - 1)  # sample SD (n - 1), over sqrt(11)
    print(
        f"    over the {glue('predicted_tokens', T - 1)} predicted tokens: standard deviation "
        f"{glue('surprisal_sd', surprisal.std().item(), '.3f')} bits, standard error of the mean "
        f"{glue('surprisal_se', se_bits, '.3f')} bits/token; the mean exceeds log2 50,304 by "
        f"{glue('surprisal_excess', mean_bits - log2_pad, '.3f')} bits/token = "
        f"{glue('surprisal_excess_se', (mean_bits - log2_pad) / se_bits, '.1f')} standard errors"
    )
    se64 = surprisal64.std(ddof=1) / math.sqrt(T - 1)
    gap64 = surprisal64.mean() - log2_pad
    assert (f"{mean_bits:.3f}", f"{surprisal.std().item():.3f}", f"{se_bits:.3f}") == (
        f"{surprisal64.mean():.3f}", f"{surprisal64.std(ddof=1):.3f}", f"{se64:.3f}"
    ) == ("15.666", "0.142", "0.043")
    assert f"{mean_bits - log2_pad:.3f}" == f"{gap64:.3f}" == "0.048"
    assert f"{(mean_bits - log2_pad) / se_bits:.1f}" == f"{gap64 / se64:.1f}" == "1.1"
    assert f"{log2_pad:.3f}" == "15.618" and f"{pb.random_guess_bits_per_token():.3f}" == "15.617"
    assert f"{math.log2(pb.GPT2_VOCAB_SIZE):.3f}" == "15.617"  # log2 V by hand
    prob_sum = logp.exp().sum(dim=-1)
    lo, hi = logits[0].min().item(), logits[0].max().item()
    print(
        f"    softmax over all 50,304 logits sums to "
        f"{glue('softmax_sum', prob_sum.mean().item(), '.6f')}; logits at position "
        f"{glue('logit_position', 1)} range from {glue('logit_min', lo, '.3f')} to "
        f"{glue('logit_max', hi, '.3f')}, so softmax is close to uniform"
    )
    assert (prob_sum - 1).abs().max().item() < 1e-5 and hi - lo < 2
    assert f"{prob_sum.mean().item():.6f}" == "1.000000"
    assert (f"{lo:.3f}", f"{hi:.3f}") == (
        f"{logits64[0].min():.3f}", f"{logits64[0].max():.3f}") == ("-0.514", "0.477")
    assert np.abs(weights64 - weights.double().numpy()).max() < 1e-6
    return model, weights


def last_logits(model: TinyGPT, ids: list[int]) -> torch.Tensor:
    """Logits at the last position for the token ids `ids`, shape (V_PAD,)."""
    with torch.no_grad():
        return model(torch.tensor(ids))[-1]


def set_causal(model: TinyGPT, causal: bool) -> None:
    for block in model.h:
        block.attn.causal = causal


def block4_order(model: TinyGPT) -> None:
    """Zero the position embedding and ask whether the model still sees word order."""
    a, b = ORDER_TEST
    c = [a[1], a[0], a[2]]  # the same three tokens, the last one kept in place
    with torch.no_grad():
        model.wpe.weight.zero_()
    gaps = {}
    for causal in (True, False):
        set_causal(model, causal)
        with torch.no_grad():
            out_a, out_b, out_c = (model(torch.tensor(ids)) for ids in (a, b, c))  # (3, V_PAD)
        gaps[causal] = (
            (out_a[-1] - out_b[-1]).abs().max().item(),  # reversed: the last token differs too
            (out_a[-1] - out_c[-1]).abs().max().item(),  # same last token, earlier ones swapped
            (out_a[2] - out_b[0]).abs().max().item(),  # token 300 at position 3 and at position 1
        )
    set_causal(model, True)
    (rev_causal, fair_causal, _), (rev_free, fair_free, bag_free) = gaps[True], gaps[False]
    print("[4] Position embedding zeroed; largest |difference| of the last position's logits:")
    print(
        f"    [{', '.join(glue(f'order_id_{j}', t) for j, t in enumerate(a, start=1))}] against "
        f"{b}: {glue('reversed_masked', rev_causal, '.2f')} with the causal mask, "
        f"{glue('reversed_unmasked', rev_free, '.2f')} without it "
        "(the last token differs, so this pair tests nothing about order)"
    )
    print(
        f"    {a} against {c} (same last token): {glue('swapped_masked', fair_causal, '.3g')} "
        f"with the causal mask, below {glue('swapped_unmasked_below', '1e-6')} without it"
    )
    print(
        "    without mask and position embedding the model reads a bag of tokens: token 300 gets "
        "the same logits at position 3 of the first order and at position 1 of the reversed one "
        "(|difference| below 1e-6); the causal mask alone lets order through"
    )
    assert f"{rev_causal:.2f}" == "0.69" and f"{rev_free:.2f}" == "0.70"
    assert f"{fair_causal:.3g}" == "0.0312" and fair_free < 1e-6 and bag_free < 1e-6
    # The float64 NumPy forward pass, on the same zeroed position embedding, agrees.
    for causal, (rev, fair, _bag) in gaps.items():
        la, lb, lc = (forward_np(model, ids, causal)[0] for ids in (a, b, c))
        rev64, fair64 = np.abs(la[-1] - lb[-1]).max(), np.abs(la[-1] - lc[-1]).max()
        assert f"{rev64:.2f}" == f"{rev:.2f}"
        if causal:
            assert f"{fair64:.3g}" == f"{fair:.3g}"
        else:
            assert fair64 < 1e-6 and np.abs(la[2] - lb[0]).max() < 1e-6


def block5_heatmap(weights: torch.Tensor) -> None:
    """Draw the first layer's attention weights of the untrained tiny model, one panel per head."""
    w = weights.numpy()  # (H, T, T)
    last_row = w[:, -1, :]  # what position 12 reads, per head
    print(
        f"[5] Heatmap of layer {glue('heatmap_layer', 1)}'s attention weights "
        f"({glue('heatmap_heads', N_HEAD)} heads, {T} x {T}): row {glue('heatmap_row', T)} "
        f"spreads its weight between {glue('heatmap_min', last_row.min(), '.3f')} and "
        f"{glue('heatmap_max', last_row.max(), '.3f')} per earlier position (uniform would be "
        f"1/{T} = {glue('heatmap_uniform', 1 / T, '.3f')})"
    )
    assert last_row.min() > 0.5 / T and last_row.max() < 2 / T  # untrained: close to uniform
    assert (f"{last_row.min():.3f}", f"{last_row.max():.3f}", f"{1 / T:.3f}") == (
        "0.082", "0.086", "0.083")
    fig, axes = plt.subplots(2, N_HEAD // 2, figsize=(5.5, 6.2), constrained_layout=True)
    for head, ax in enumerate(axes.flat):
        shown = np.where(np.triu(np.ones((T, T), dtype=bool), k=1), np.nan, w[head])
        image = ax.imshow(shown, cmap=SEQ_MAP, vmin=0.0, vmax=1.0)
        ax.set_title(f"head {head + 1}")
        ax.set_xticks([0, T - 1], ["1", str(T)])
        ax.set_yticks([0, T - 1], ["1", str(T)])
        if head >= N_HEAD // 2:
            ax.set_xlabel("read from position j")
        if head % (N_HEAD // 2) == 0:
            ax.set_ylabel("position i")
        ax.set_facecolor("#f2f2f2")  # the masked future, left blank
    fig.colorbar(image, ax=axes, shrink=0.85, label="weight a_ij")
    fig.suptitle("Untrained 4-layer model, layer 1:\neach row averages the positions it may read")
    save_figure(fig, HEATMAP, dpi=130)
    plt.close(fig)


def draw_three_tokens(
    q: np.ndarray, k: np.ndarray, v: np.ndarray, masked: np.ndarray, expo: np.ndarray,
    weights: np.ndarray, out: np.ndarray,
) -> None:  # fmt: skip
    """The three-token example as a picture: scores, weights, and outputs as averages."""
    fig, (ax_w, ax_v) = plt.subplots(2, 1, figsize=(5.5, 9.4), constrained_layout=True)
    ax_w.imshow(np.where(np.isneginf(masked), np.nan, weights), cmap=SEQ_MAP, vmin=0, vmax=1)
    ax_w.set_facecolor("#f2f2f2")
    for (i, j), s in np.ndenumerate(masked):
        label, colour = "masked", "#555555"
        if not np.isneginf(s):
            label = f"e^{s:.3f}\n= {expo[i, j]:.3f}\nweight {weights[i, j]:.3f}"
            colour = "white" if weights[i, j] < 0.6 else "black"
        ax_w.text(j, i, label, ha="center", va="center", color=colour)
    ax_w.set_xticks(range(3), [f"key of\ntoken {j + 1}" for j in range(3)])
    sums = [f"token {i + 1}\nsum {expo[i].sum():.3f}" for i in range(3)]
    ax_w.set_yticks(range(3), sums)
    ax_w.set_title("scores -> exponentials -> weights\n(each row divided by its sum)")

    ax_v.axhline(0, color="#bbbbbb", lw=0.6)
    ax_v.axvline(0, color="#bbbbbb", lw=0.6)
    ax_v.fill(v[:, 0], v[:, 1], color=INK, alpha=0.08)
    for points, name, style, shift in (
        (v, "v", {"color": INK}, (6, 6)),
        (out, "o", {"color": ACCENT, "marker": "D"}, (-16, -14)),
    ):
        label = f"{'values' if name == 'v' else 'outputs'} {name}_1, {name}_2, {name}_3"
        ax_v.scatter(points[:, 0], points[:, 1], s=70, zorder=3, label=label, **style)
        for n, point in enumerate(points, start=1):
            ax_v.annotate(
                f"{name}_{n}",
                point,
                textcoords="offset points",
                xytext=shift,
                color=style["color"],
            )
    ax_v.set(xlim=(-0.2, 1.3), ylim=(-0.2, 1.3), aspect="equal")
    ax_v.set_title("outputs: weighted averages of the values")
    ax_v.legend(loc="lower left", frameon=False)
    save_figure(fig, THREE_TOKENS, dpi=130)
    plt.close(fig)


def main() -> None:
    print("Chapter 5 -- inside a transformer block (ch05_attention.py)")
    block1_gelu_layernorm()
    block2_three_tokens()
    model, weights = block3_tiny_gpt()
    block4_order(model)
    block5_heatmap(weights)
    print(f"Figures: {THREE_TOKENS}, {HEATMAP}")
    print("All assertions passed.")


if __name__ == "__main__":
    main()
