"""Chapter 17: the message length of a model, part by part, and the bound each length allows.

Claims, numbered as the output blocks:
  [1] Every part of the message for a SubLoRA-sized vector (d = 50,000, 11 levels; the seeded
      Gaussian stand-in of Chapter 16): coded symbols, float16 codebook, symbol counts
      [SOURCE: quantize_fns.py:225-232 @c606ea6], the prefix code L + 2 log2 L
      [SOURCE: bound_utils.py:222], the extra bits (7, then 8 more per smoothing weight,
      cumulatively) [SOURCE: sublora_pipeline.py:629, 637-638; config/sublora_bounds.yaml:39],
      and the complexity in nats that enters the bound.
  [2] What costs nothing because a fixed seed regenerates it: the initial weights of GPT-2 small
      (including the LoRA factors' initial values) and the random projection from 50,000 to
      351,744 numbers [SOURCE: create_model.py:57-58, 100-105, seed 137]; what they would cost
      if they had to be sent as float32.
  [3] GPT-2 small stored naively (float32, float16, 8 bits per weight with a 256-entry codebook),
      all 124,475,904 weights a receiver needs (nanoGPT's count plus the 786,432 position
      weights), and the unquantized SubLoRA vector (float32, float16) against the SubLoRA message;
      how many times more numbers a subspace over all those weights rebuilds than one over the
      351,744 LoRA numbers (Chapter 20), with and without the position weights.
  [4] The bound each message length allows with the worked numbers of Chapter 14
      (train error 5.0 bits per token held fixed, alpha = 0.1,
      N = 8,009,762 documents, n = 10,000, eps = 0.05, 55 extra bits), computed with
      pacbound.subsampling_bound, which gives Chapter 14's 6.4664 for L = 10^5 bits; the longest
      message that still beats random guessing (log2 50,257 bits per token).
Figure: ch17_bound_vs_length.png (bound against message length, vacuous region shaded).
Deterministic: one seeded numpy draw, integer counts and closed-form bounds.
"""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pacbound as pb
from script_io import save_figure

FIGURE_NAME = "ch17_bound_vs_length.png"

# The SubLoRA vector: its size and quantization [SOURCE: config/sublora_bounds.yaml:29, 35].
D_SUB = 50_000
LEVELS = 11
SIGMA, SEED = 0.01, 0  # the stand-in draw of Chapter 16 (ch16_arithmetic.py, output [2])

# Extra bits [SOURCE: config/sublora_bounds.yaml:39; sublora/sublora_pipeline.py:637].
BASE_EXTRA_BITS = 7
PER_ALPHA_EXTRA_BITS = 8  # np.ceil(len(alpha_array)), added once per smoothing weight

# GPT-2 small [SECONDARY: paper App. E, p. 16] and its LoRA setting
# [SOURCE: config/sublora_bounds.yaml:26-27].
N_LAYER, N_EMBD, LORA_R = 12, 768, 4
KRON_FACTOR_ROWS, KRON_FACTOR_COLS = 593, 223  # rdkronqr factors for D = 351,744, d = 50,000
REMAINDER_ROWS, REMAINDER_COLS = 95, 271  # pacbound.kron_shapes(351_744, 50_000), Chapter 18

# The worked numbers of Chapter 14 (ch14_complete_bound.py).
TRAIN_ERROR = 5.0  # bits per token, held fixed for every message length
ALPHA = 0.1
N_DOCS = 8_009_762  # OpenWebText training documents [SOURCE: sublora_pipeline.py:59]
N_SAMPLE = 10_000  # documents scored [SOURCE: config/sublora_bounds.yaml:36]
EPS = 0.05
CH14_BOUND_1E5 = 6.4664  # Chapter 14 (ch14_complete_bound.py [4]): L = 10^5, alpha = 0.1, 55 bits
VOCAB = pb.GPT2_VOCAB_SIZE


def extra_bits_for(alpha: float) -> int:
    """Extra bits the authors' loop has added by the time it reaches `alpha` (7 + 8 k)."""
    k = pb.ALPHA_GRID.index(alpha) + 1
    return BASE_EXTRA_BITS + PER_ALPHA_EXTRA_BITS * k


def bound_for_length(message_bits: float, alpha: float = ALPHA, n_docs: int = N_DOCS) -> float:
    """Bits-per-token bound for a message of `message_bits`, the other inputs those of Ch. 14."""
    complexity_bits = pb.prefix_code_bits(message_bits) + extra_bits_for(alpha)
    return pb.subsampling_bound(
        train_error=TRAIN_ERROR,
        loss_range=pb.loss_range(alpha, VOCAB),
        complexity_nats=complexity_bits * math.log(2),
        n_population=n_docs,
        n_sample=N_SAMPLE,
        eps=EPS,
    )


def crossover_length(threshold: float, n_docs: int = N_DOCS) -> float:
    """The message length at which the bound reaches `threshold` (bisection in log L)."""
    lo, hi = 1.0, 1e12
    for _ in range(200):
        mid = math.sqrt(lo * hi)
        lo, hi = (mid, hi) if bound_for_length(mid, n_docs=n_docs) < threshold else (lo, mid)
    return math.sqrt(lo * hi)


def sublora_codes() -> np.ndarray:
    w = np.random.default_rng(SEED).normal(0.0, SIGMA, size=D_SUB)
    codes, _ = pb.quantize_uniform(w, LEVELS)
    return codes


# --------------------------------------------------------------------------------- blocks
def block1_parts() -> float:
    codes = sublora_codes()
    parts = pb.message_parts(codes, LEVELS)
    msg = parts.total
    prefix = pb.prefix_code_bits(msg)
    print(
        f"[1] The message for the SubLoRA vector (d = {D_SUB:,}, {LEVELS} levels; Chapter 16's "
        f"stand-in w ~ N(0, {SIGMA}^2), numpy seed {SEED}):"
    )
    print(f"    coded symbols  ceil(d H) + 1              {parts.coded:>12,} bits")
    print(f"    codebook       {LEVELS} x 16 (float16)          {parts.codebook:>12,} bits")
    print(f"    symbol counts  {LEVELS} x ceil(log2 d) = {LEVELS} x 16 {parts.counts:>10,} bits")
    print(f"    message L                                 {msg:>12,} bits")
    print(
        f"    prefix code    L + 2 log2 L + 1          {prefix:>14,.2f} bits "
        f"(+{prefix - msg:.2f})"
    )
    alphas = ", ".join(f"{a:g}: {extra_bits_for(a)}" for a in pb.ALPHA_GRID)
    print(
        f"    extra bits     {BASE_EXTRA_BITS} for top-k; +{PER_ALPHA_EXTRA_BITS} per smoothing "
        f"weight, cumulative: {alphas}"
    )
    k_bits = prefix + extra_bits_for(ALPHA)
    print(
        f"    at alpha = {ALPHA}: complexity = ({prefix:,.2f} + {extra_bits_for(ALPHA)} bits) "
        f"x ln 2 = {k_bits * math.log(2):,.2f} nats"
    )
    rest = k_bits - parts.coded
    print(
        f"    the coded symbols are {100 * parts.coded / k_bits:.2f} % of those bits; codebook, "
        f"counts, prefix and extra bits together {rest:.2f} bits"
    )
    assert parts.codebook == 176 and parts.counts == 176 and msg == parts.coded + 352
    assert abs(prefix - msg - 2 * math.log2(msg) - 1) < 1e-9
    assert [extra_bits_for(a) for a in pb.ALPHA_GRID] == [15, 23, 31, 39, 47, 55, 63, 71]
    return float(msg)


def block2_free(sublora_bits: float) -> dict[str, int]:
    d_model = pb.authors_num_params(N_LAYER, N_EMBD, LORA_R)
    d_lora = pb.gpt2_lora_params(N_LAYER, N_EMBD, LORA_R)
    dense_p = d_lora * D_SUB
    kron = 2 * KRON_FACTOR_ROWS * KRON_FACTOR_COLS + REMAINDER_ROWS * REMAINDER_COLS
    print("[2] Regenerated from the fixed seed 137, so never sent (0 bits):")
    print(
        f"    initial weights of the model, LoRA factors included: {d_model:,} numbers "
        f"(as float32: {32 * d_model:,} bits)"
    )
    print(
        f"    projection P from d = {D_SUB:,} to D = {d_lora:,} LoRA numbers: as a dense "
        f"matrix {dense_p:,} numbers (as float32: {32 * dense_p:.3e} bits)"
    )
    print(
        f"    the rdkronqr projector actually draws 2 x {KRON_FACTOR_ROWS} x {KRON_FACTOR_COLS} + "
        f"{REMAINDER_ROWS} x {REMAINDER_COLS} = {kron:,} Gaussian numbers"
    )
    print(
        f"    sending the initial weights as float32 would cost "
        f"{32 * d_model / sublora_bits:,.0f} times the SubLoRA message of [1]"
    )
    assert d_model == 124_753_152 and d_lora == 351_744
    assert math.isqrt(d_lora) == KRON_FACTOR_ROWS and math.isqrt(D_SUB) == KRON_FACTOR_COLS
    assert kron == 290_223
    return {"model": d_model, "dense_p": dense_p}


def block3_naive(sublora_bits: float) -> list[tuple[str, float]]:
    # A receiver needs every weight, the position embedding included (nanoGPT's count omits it).
    d_count = pb.gpt2_params(N_LAYER, N_EMBD)
    d = pb.gpt2_params(N_LAYER, N_EMBD, include_pos=True)
    rows = [
        ("float32, 32 bits per weight", 32 * d),
        ("float16, 16 bits per weight", 16 * d),
        ("8 bits per weight + 256 x 16 codebook", 8 * d + 256 * 16),
        (f"SubLoRA vector, {D_SUB:,} x float32", 32 * D_SUB),
        (f"SubLoRA vector, {D_SUB:,} x float16", 16 * D_SUB),
        ("SubLoRA message of [1]", sublora_bits),
    ]
    print(
        f"[3] GPT-2 small ({d:,} weights: nanoGPT's count {d_count:,} plus "
        f"{d - d_count:,} position weights) and the SubLoRA vector as messages:"
    )
    for name, bits in rows:
        print(f"    {name:<38} {bits:>16,.0f} bits = {bits / sublora_bits:>9,.0f} x SubLoRA")
    print(
        f"    training {D_SUB:,} numbers instead of {d:,}: a factor {d / D_SUB:,.0f}; quantizing "
        f"and coding them instead of float32: a further factor {32 * D_SUB / sublora_bits:.2f}"
    )
    d_lora = pb.gpt2_lora_params(N_LAYER, N_EMBD, LORA_R)
    print(
        f"    a subspace over all {d:,} weights rebuilds {d / d_lora:.1f} times as many numbers "
        f"per step as one over the {d_lora:,} LoRA numbers ({d_count / d_lora:.1f} times "
        f"without the position weights)"
    )
    assert d_count == 123_689_472 and d - d_count == 786_432 and d_lora == 351_744
    assert rows[2][1] / sublora_bits > 8_000
    return rows


def block4_bounds(rows: list[tuple[str, float]]) -> float:
    delta = pb.loss_range(ALPHA, VOCAB)
    guess = pb.random_guess_bits_per_token(VOCAB)
    check = bound_for_length(1e5)
    print(
        f"[4] The bound for each message length (train error {TRAIN_ERROR} bits per token held "
        f"fixed; alpha = {ALPHA}, Delta = {delta:.4f}, {extra_bits_for(ALPHA)} extra bits; "
        f"N = {N_DOCS:,}, n = {N_SAMPLE:,}, eps = {EPS}):"
    )
    print(f"    check against Chapter 14: L = 100,000 bits gives {check:.4f} bits per token")
    bounds = []
    for name, bits in rows:
        b = bound_for_length(bits)
        bounds.append(b)
        verdict = "vacuous" if b >= guess else "non-vacuous"
        print(f"    {name:<38} bound {b:>9.3f} bits per token  ({verdict})")
    sub = rows[-1][1]
    r = N_SAMPLE / (N_SAMPLE + N_DOCS)
    c_nats = (pb.prefix_code_bits(sub) + extra_bits_for(ALPHA)) * math.log(2)
    occam = delta * math.sqrt((c_nats - math.log(r * EPS)) / (2 * N_DOCS))
    hoeff = delta * math.sqrt(-math.log((1 - r) * EPS) / (2 * N_SAMPLE))
    print(
        f"    at the SubLoRA length: train error {TRAIN_ERROR} + Occam term {occam:.3f} + "
        f"Hoeffding term {hoeff:.3f} = {TRAIN_ERROR + occam + hoeff:.3f}"
    )
    coded_only = bound_for_length(sub - 352)
    print(
        f"    without the 352 bits of codebook and counts the bound would be {coded_only:.4f} "
        f"instead of {bounds[-1]:.4f}; a 1-bit message would still leave {bound_for_length(1):.3f}"
    )
    assert abs(TRAIN_ERROR + occam + hoeff - bounds[-1]) < 1e-9
    assert bounds[-1] - coded_only < 0.01
    l_star = crossover_length(guess)
    print(
        f"    random guessing costs log2 {VOCAB:,} = {guess:.3f} bits per token; the bound reaches "
        f"it at L = {l_star:,.0f} bits ({l_star / 8 / 1e6:.2f} MB)"
    )
    print(
        f"    slack at the SubLoRA length: {bounds[-1] - TRAIN_ERROR:.3f} bits per token above "
        "the train error"
    )
    print(
        f"    the SubLoRA message is {l_star / sub:.1f} times shorter than that limit; the "
        f"float16 vector's bound exceeds it by {bounds[-2] - bounds[-1]:.3f} bits per token"
    )
    l_star4 = crossover_length(guess, n_docs=4 * N_DOCS)
    print(
        f"    with 4 N = {4 * N_DOCS:,} documents the limit would be {l_star4:,.0f} bits "
        f"({l_star4 / l_star:.2f} times as long)"
    )
    assert 3.5 < l_star4 / l_star < 4.5
    assert round(check, 4) == CH14_BOUND_1E5
    assert all(b > guess for b in bounds[:3]) and all(b < guess for b in bounds[3:])
    assert rows[-1][1] < rows[3][1] < l_star < rows[2][1]
    return l_star


# --------------------------------------------------------------------------------- figure
def draw_figure(rows: list[tuple[str, float]], l_star: float) -> None:
    guess = pb.random_guess_bits_per_token(VOCAB)
    lengths = np.logspace(3, 10.5, 300)
    bounds = [bound_for_length(float(x)) for x in lengths]
    fig, ax = plt.subplots(figsize=(5.5, 6.8), layout="constrained")
    ax.plot(lengths, bounds, color="#0072B2", lw=2, label="bound (train error 5.0 held fixed)")
    ax.axhspan(guess, 1e3, color="#D55E00", alpha=0.12, label="vacuous: worse than random guessing")
    ax.axhline(guess, color="#D55E00", lw=1)
    ax.axhline(TRAIN_ERROR, color="#009E73", ls="--", lw=1, label="train error")
    markers = ["o", "s", "D", "P", "X", "*"]
    colours = ["#555555", "#777777", "#999999", "#56B4E9", "#009E73", "#CC79A7"]
    labels = [
        "GPT-2 small, float32",
        "GPT-2 small, float16",
        "GPT-2 small, 8 bits",
        "SubLoRA vector, float32",
        "SubLoRA vector, float16",
        "SubLoRA, quantized and coded",
    ]
    for (_, bits), mk, col, lab in zip(rows, markers, colours, labels, strict=True):
        ax.plot([bits], [bound_for_length(bits)], mk, color=col, markersize=9 if mk == "*" else 7,
                label=lab, linestyle="none")  # fmt: skip
    ax.axvline(l_star, color="#777777", lw=0.8, ls=":")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(4, 600)
    ax.set_xlabel("message length L (bits)")
    ax.set_ylabel("bound (bits per token)")
    ax.set_title("Shorter messages, tighter bounds", fontsize=10)
    fig.legend(frameon=False, loc="outside lower center", ncols=1)
    ax.grid(alpha=0.3, which="both")
    save_figure(fig, FIGURE_NAME)
    plt.close(fig)


def main() -> None:
    print("Chapter 17 -- the message length of a model (ch17_message.py)")
    sublora_bits = block1_parts()
    block2_free(sublora_bits)
    rows = block3_naive(sublora_bits)
    l_star = block4_bounds(rows)
    draw_figure(rows, l_star)
    print("All assertions passed.")


if __name__ == "__main__":
    main()
