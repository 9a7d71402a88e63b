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
Every value the chapter quotes is printed through `glue(name, ...)` (script_glue.py), so that the
page refers to it by name.
"""

from __future__ import annotations

import math
import re

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pacbound as pb
from script_glue import END, SEP, START, glue
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
ROW_KEYS = ("gpt2_float32", "gpt2_float16", "gpt2_8bit", "sublora_float32", "sublora_float16",
            "sublora_message")  # the names of the rows of [3] and [4]


def shown(text: str) -> str:
    """`text` as a reader sees it: without the markers of its glued values (script_glue.py)."""
    return re.sub(f"{START}[^{SEP}]*{SEP}|{END}", "", text)


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
        f"[1] The message for the SubLoRA vector (d = {glue('d', D_SUB, ',')}, "
        f"{glue('levels', LEVELS)} levels; Chapter 16's stand-in w ~ N({glue('mean', 0)}, "
        f"{glue('sigma', SIGMA)}^2), numpy seed {glue('seed', SEED)}):"
    )
    entry_bits, count_bits = parts.codebook // LEVELS, math.ceil(math.log2(D_SUB))
    print(f"    coded symbols  ceil(d H) + 1              "
          f"{glue('coded', parts.coded, '>12,')} bits")
    print(f"    codebook       {glue('codebook_levels', LEVELS)} x "
          f"{glue('codebook_entry_bits', entry_bits)} (float16)          "
          f"{glue('codebook', parts.codebook, '>12,')} bits")  # fmt: skip
    print(f"    symbol counts  {glue('counts_levels', LEVELS)} x ceil(log2 d) = {LEVELS} x "
          f"{glue('count_bits', count_bits)} {glue('counts', parts.counts, '>10,')} bits")
    print(f"    message L                                 {glue('message', msg, '>12,')} bits")
    print(
        f"    prefix code    L + 2 log2 L + 1          {glue('prefix', prefix, '>14,.2f')} bits "
        f"(+{glue('header', prefix - msg, '.2f')})"
    )
    alphas = ", ".join(  # extra_bits_alpha0p1: the extra bits at alpha = 0.1
        f"{a:g}: {glue(f'extra_bits_alpha{a:g}'.replace('.', 'p'), extra_bits_for(a))}"
        for a in pb.ALPHA_GRID
    )
    print(
        f"    extra bits     {glue('base_extra_bits', BASE_EXTRA_BITS)} for top-k; "
        f"+{glue('per_alpha_extra_bits', PER_ALPHA_EXTRA_BITS)} per smoothing weight, cumulative: "
        f"{alphas}"
    )
    k_bits = prefix + extra_bits_for(ALPHA)
    print(
        f"    at alpha = {glue('alpha', ALPHA)}: complexity = ({prefix:,.2f} + "
        f"{extra_bits_for(ALPHA)} bits) x ln 2 = "
        f"{glue('complexity_nats', k_bits * math.log(2), ',.2f')} nats"
    )
    rest = k_bits - parts.coded
    print(
        f"    the coded symbols are {glue('coded_share', 100 * parts.coded / k_bits, '.2f')} % of "
        f"those bits; codebook, counts, prefix and extra bits together "
        f"{glue('rest_bits', rest, '.2f')} bits"
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
    print(f"[2] Regenerated from the fixed seed {glue('projection_seed', 137)}, so never sent "
          "(0 bits):")
    print(
        "    initial weights of the model, LoRA factors included: "
        f"{glue('initial_weights', d_model, ',')} numbers (as float32: "
        f"{glue('initial_weights_bits', 32 * d_model, ',')} bits)"
    )
    mantissa, exponent = f"{32 * dense_p:.3e}".split("e+")  # a page writes 5.628 x 10^11
    print(
        f"    projection P from d = {glue('projection_d', D_SUB, ',')} to D = "
        f"{glue('lora_numbers', d_lora, ',')} LoRA numbers: as a dense matrix "
        f"{glue('dense_numbers', dense_p, ',')} numbers (as float32: "
        f"{glue('dense_bits_mantissa', mantissa)}e+{glue('dense_bits_exponent', int(exponent))} "
        "bits)"
    )
    print(
        f"    the rdkronqr projector actually draws 2 x {glue('kron_rows', KRON_FACTOR_ROWS)} x "
        f"{glue('kron_cols', KRON_FACTOR_COLS)} + {glue('remainder_rows', REMAINDER_ROWS)} x "
        f"{glue('remainder_cols', REMAINDER_COLS)} = {glue('kron_draws', kron, ',')} Gaussian "
        "numbers"
    )
    print(
        f"    sending the initial weights as float32 would cost "
        f"{glue('initial_weights_ratio', 32 * d_model / sublora_bits, ',.0f')} times the SubLoRA "
        "message of [1]"
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
    labels = [  # the rows' labels with the values the page quotes glued
        rows[0][0],
        rows[1][0],
        f"{glue('low_bits_per_weight', 8)} bits per weight + {glue('low_codebook_levels', 256)} x "
        "16 codebook",
        f"SubLoRA vector, {glue('sublora_float32_numbers', D_SUB, ',')} x float32",
        f"SubLoRA vector, {glue('sublora_float16_numbers', D_SUB, ',')} x float16",
        rows[5][0],
    ]
    assert [shown(label) for label in labels] == [name for name, _ in rows]
    print(
        f"[3] GPT-2 small ({glue('gpt2_weights', d, ',')} weights: nanoGPT's count "
        f"{glue('nanogpt_count', d_count, ',')} plus {glue('position_weights', d - d_count, ',')} "
        "position weights) and the SubLoRA vector as messages:"
    )
    for key, label, (_, bits) in zip(ROW_KEYS, labels, rows, strict=True):
        print(f"    {label}{' ' * (38 - len(shown(label)))} {glue(f'{key}_bits', bits, '>16,.0f')} "
              f"bits = {glue(f'{key}_ratio', bits / sublora_bits, '>9,.0f')} x SubLoRA")
    print(
        f"    training {glue('trained_numbers', D_SUB, ',')} numbers instead of "
        f"{glue('all_numbers', d, ',')}: a factor {glue('training_factor', d / D_SUB, ',.0f')}; "
        "quantizing and coding them instead of float32: a further factor "
        f"{glue('coding_factor', 32 * D_SUB / sublora_bits, '.2f')}"
    )
    d_lora = pb.gpt2_lora_params(N_LAYER, N_EMBD, LORA_R)
    print(
        f"    a subspace over all {d:,} weights rebuilds "
        f"{glue('rebuild_ratio_all', d / d_lora, '.1f')} times as many numbers "
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
        f"[4] The bound for each message length (train error {glue('train_error', TRAIN_ERROR)} "
        f"bits per token held fixed; alpha = {glue('bound_alpha', ALPHA)}, Delta = "
        f"{glue('delta', delta, '.4f')}, {glue('bound_extra_bits', extra_bits_for(ALPHA))} extra "
        f"bits; N = {glue('n_docs', N_DOCS, ',')}, n = {glue('n_sample', N_SAMPLE, ',')}, "
        f"eps = {glue('eps', EPS)}):"
    )
    print(f"    check against Chapter 14: L = {glue('check_length', 10**5, ',')} bits gives "
          f"{glue('check_bound', check, '.4f')} bits per token")
    bounds = []
    for key, (name, bits) in zip(ROW_KEYS, rows, strict=True):
        b = bound_for_length(bits)
        bounds.append(b)
        verdict = "vacuous" if b >= guess else "non-vacuous"
        print(f"    {name:<38} bound {glue(f'{key}_bound', b, '>9.3f')} bits per token  "
              f"({verdict})")
    sub = rows[-1][1]
    r = N_SAMPLE / (N_SAMPLE + N_DOCS)
    c_nats = (pb.prefix_code_bits(sub) + extra_bits_for(ALPHA)) * math.log(2)
    occam = delta * math.sqrt((c_nats - math.log(r * EPS)) / (2 * N_DOCS))
    hoeff = delta * math.sqrt(-math.log((1 - r) * EPS) / (2 * N_SAMPLE))
    print(
        f"    at the SubLoRA length: train error {TRAIN_ERROR} + Occam term "
        f"{glue('occam_term', occam, '.3f')} + Hoeffding term "
        f"{glue('hoeffding_term', hoeff, '.3f')} = {TRAIN_ERROR + occam + hoeff:.3f}"
    )
    coded_only = bound_for_length(sub - 352)
    print(
        f"    without the {glue('side_bits', 352)} bits of codebook and counts the bound would be "
        f"{glue('coded_only_bound', coded_only, '.4f')} instead of "
        f"{glue('sublora_message_bound_4dp', bounds[-1], '.4f')}; a "
        f"{glue('one_bit', 1)}-bit message would still leave "
        f"{glue('one_bit_bound', bound_for_length(1), '.3f')}"
    )
    assert abs(TRAIN_ERROR + occam + hoeff - bounds[-1]) < 1e-9
    assert bounds[-1] - coded_only < 0.01
    l_star = crossover_length(guess)
    print(
        f"    random guessing costs log2 {glue('vocab', VOCAB, ',')} = "
        f"{glue('guess_bits', guess, '.3f')} bits per token; the bound reaches it at L = "
        f"{glue('limit_length', l_star, ',.0f')} bits ({glue('limit_mb', l_star / 8 / 1e6, '.2f')} "
        "MB)"
    )
    print(
        f"    slack at the SubLoRA length: {bounds[-1] - TRAIN_ERROR:.3f} bits per token above "
        "the train error"
    )
    print(
        f"    the SubLoRA message is {glue('limit_ratio', l_star / sub, '.1f')} times shorter than "
        f"that limit; the float16 vector's bound exceeds it by "
        f"{glue('float16_excess', bounds[-2] - bounds[-1], '.3f')} bits per token"
    )
    l_star4 = crossover_length(guess, n_docs=4 * N_DOCS)
    print(
        f"    with 4 N = {glue('four_n_docs', 4 * N_DOCS, ',')} documents the limit would be "
        f"{glue('limit_length_4n', l_star4, ',.0f')} bits "
        f"({glue('limit_ratio_4n', l_star4 / l_star, '.2f')} times as long)"
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
