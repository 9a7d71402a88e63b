"""Chapter 16: arithmetic coding of a quantized vector, with a real coder.

Claims, numbered as the output blocks:
  [1] A toy: three symbols with counts (5, 2, 1), the sequence a a b a c. Each symbol shrinks an
      interval by its probability; the final width is the product of the probabilities, and the
      integer coder of pacbound needs about -log2(width) bits, which decode back exactly.
  [2] The message for a SubLoRA-sized vector [SOURCE: quantize_fns.py:172-199,
      225-232, 252-261 @c606ea6], computed for one seeded draw w ~ N(0, 0.01^2), d = 50,000,
      11 levels: symbol counts, empirical entropy H, the authors' count ceil(d H) + 1 and the
      message with codebook (11 x 16 bits) and counts (11 x ceil(log2 d) bits).
  [3] H is not a constant of the setting: over 20 seeded draws it ranges over more than 0.1
      bits, because the largest |w| sets the bin width. Given m = max|w| / sigma, H follows from
      the normal law to within 0.010 bits (the assert allows 0.02). Chapter 11's example length,
      115,840 bits, read as a message of 115,488 coded bits plus 352, needs H in
      (115,486/d, 115,487/d], about 2.3097 (Chapter 11 itself states no H); that H means m near
      4.72, and seed 0's draw has about that m.
  [4] The real coder on the seed's 50,000 codes: bytes out, decoded back exactly, its length in
      bits within 2 bits of the authors' count ceil(d H) + 1.
  [5] Why the counts must be sent: coding with a model fixed in advance (uniform over 11 levels,
      or counts from another draw) costs more than the counts themselves (176 bits).
  [6] Arithmetic coding against a Huffman code (the authors' other option, `huff`): Huffman pays
      a fraction of a bit per symbol, arithmetic coding about two bits in all, whatever d is.
Figure: ch16_arithmetic.png (the nested intervals of [1]; bits above d H against d for [6]).
Deterministic: seeded numpy draws, integer coding, exact fractions; no timing is printed.
Every value the chapter quotes is printed through `glue(name, ...)` (script_glue.py), so that the
page refers to it by name.
"""

from __future__ import annotations

import heapq
import math
import re
from fractions import Fraction

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pacbound as pb
from pacbound import arithmetic as pb_arith
from pacbound.arithmetic import encode_to_bits
from script_glue import END, SEP, START, glue
from script_io import save_figure

FIGURE_NAME = "ch16_arithmetic.png"

TOY_COUNTS = (5, 2, 1)  # a, b, c
TOY_SEQUENCE = (0, 0, 1, 0, 2)  # a a b a c
TOY_NAMES = "abc"

SIGMA = 0.01  # w ~ N(0, SIGMA^2), a stand-in for a trained w (the authors' is not published)
D = 50_000  # intrinsic_dim                             [SOURCE: config/sublora_bounds.yaml:29]
LEVELS = 11  # quantization levels                      [SOURCE: config/sublora_bounds.yaml:35]
SEED = 0  # the draw this chapter works with
SPREAD_SEEDS = range(20)  # draws for the draw-to-draw spread of [3]
OTHER_SEED = 1  # the draw whose counts serve as a model fixed in advance in [5]

EXAMPLE_MESSAGE = 115_840  # Chapter 11's example length (ch11_prefix_codes.py), for scale only
EXAMPLE_CODED = EXAMPLE_MESSAGE - 2 * 176  # 115,488: the message less codebook and counts
# ceil(d H) + 1 = 115,488 needs d H in (115,486, 115,487]; the middle of that range (H = 2.30973):
EXAMPLE_H = (EXAMPLE_CODED - 1.5) / D

PREFIX_LENGTHS = (100, 300, 1_000, 3_000, 10_000, 50_000)  # d for the overhead curve of [6]


def draw_codes(seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A seeded draw w ~ N(0, SIGMA^2) of D numbers and its 11-level uniform quantization."""
    w = np.random.default_rng(seed).normal(0.0, SIGMA, size=D)
    codes, codebook = pb.quantize_uniform(w, LEVELS)
    return w, codes, codebook


def exact_intervals(
    sequence: tuple[int, ...], counts: tuple[int, ...]
) -> list[tuple[Fraction, Fraction]]:
    """(low, width) after each symbol, in exact fractions: the infinite-precision coder."""
    total = sum(counts)
    starts = [Fraction(sum(counts[:k]), total) for k in range(len(counts))]
    low, width = Fraction(0), Fraction(1)
    out = [(low, width)]
    for s in sequence:
        low += width * starts[s]
        width *= Fraction(counts[s], total)
        out.append((low, width))
    return out


def huffman_lengths(counts: list[int]) -> list[int]:
    """Codeword length of each symbol in a Huffman code for `counts` (0 for unused symbols)."""
    used = [k for k, c in enumerate(counts) if c > 0]
    if len(used) == 1:
        return [1 if k in used else 0 for k in range(len(counts))]
    # Heap of (weight, tie-breaker, symbols under this node); merging adds 1 to their depths.
    heap = [(counts[k], k, [k]) for k in used]
    heapq.heapify(heap)
    depth = [0] * len(counts)
    tie = len(counts)
    while len(heap) > 1:
        w1, _, s1 = heapq.heappop(heap)
        w2, _, s2 = heapq.heappop(heap)
        for k in s1 + s2:
            depth[k] += 1
        heapq.heappush(heap, (w1 + w2, tie, s1 + s2))
        tie += 1
    return depth


def entropy_bits(counts: np.ndarray) -> float:
    """Empirical entropy of `counts`, bits per symbol."""
    p = counts[counts > 0] / counts.sum()
    return float(-(p * np.log2(p)).sum())


# --------------------------------------------------------------------------------- blocks
def shown(text: str) -> str:
    """`text` as a reader sees it: without the markers of its glued values (script_glue.py)."""
    return re.sub(f"{START}[^{SEP}]*{SEP}|{END}", "", text)


def block1_toy() -> list[tuple[Fraction, Fraction]]:
    total = sum(TOY_COUNTS)
    seq_text = " ".join(TOY_NAMES[s] for s in TOY_SEQUENCE)
    print(
        f"[1] Toy: counts a = {glue('toy_count_a', TOY_COUNTS[0])}, "
        f"b = {glue('toy_count_b', TOY_COUNTS[1])}, c = {glue('toy_count_c', TOY_COUNTS[2])} "
        f"(total {glue('toy_total', total)}); sequence {seq_text}"
    )
    intervals = exact_intervals(TOY_SEQUENCE, TOY_COUNTS)
    for i, (low, width) in enumerate(intervals):  # toy_width{i}: the width after i symbols
        label = "start" if i == 0 else f"after {TOY_NAMES[TOY_SEQUENCE[i - 1]]}"
        print(
            f"    {label:<8} [{float(low):.6f}, {float(low + width):.6f})  width "
            f"{glue(f'toy_width{i}', str(width))} = "
            f"{glue(f'toy_width{i}_decimal', float(width), '.6f')}"
        )
    width = intervals[-1][1]
    ideal = -math.log2(width)
    assert width == Fraction(5**3 * 2 * 1, 8**5)
    code = encode_to_bits(TOY_SEQUENCE, TOY_COUNTS)
    code_str = "".join(map(str, code))
    value = Fraction(int(code_str, 2), 2 ** len(code))
    low = intervals[-1][0]
    print(
        f"    -log2(width) = {glue('toy_surprisal', ideal, '.3f')} bits; the integer coder writes "
        f"{glue('toy_code_bits', len(code))} bits: {glue('toy_code', code_str)} = "
        f"{glue('toy_code_fraction', str(value))} = {glue('toy_code_value', float(value), '.6f')}, "
        "inside the final interval"
    )
    assert low <= value < low + width
    assert ideal - 1 <= len(code) < ideal + 2
    data = pb.arithmetic_encode(TOY_SEQUENCE, TOY_COUNTS)
    back = pb.arithmetic_decode(data, TOY_COUNTS, len(TOY_SEQUENCE)).tolist()
    print(f"    as bytes: {data.hex()} (hex); decoded: {' '.join(TOY_NAMES[s] for s in back)}")
    assert back == list(TOY_SEQUENCE)
    longer = (*TOY_SEQUENCE, 0, 0, 0)
    ideal_longer = -math.log2(exact_intervals(longer, TOY_COUNTS)[-1][1])
    n_longer = len(encode_to_bits(longer, TOY_COUNTS))
    print(
        f"    three more a's: each adds log2(8/5) = {glue('toy_a_bits', math.log2(8 / 5), '.3f')} "
        f"bits; surprisal {glue('toy_longer_surprisal', ideal_longer, '.3f')} bits, the coder "
        f"writes {glue('toy_longer_code_bits', n_longer)} bits"
    )
    assert ideal_longer - 1 <= n_longer < ideal_longer + 2
    return intervals


def block2_worked_numbers() -> tuple[np.ndarray, np.ndarray]:
    w, codes, codebook = draw_codes(SEED)
    counts = pb.symbol_counts(codes, LEVELS)
    h = pb.empirical_entropy_bits(codes, LEVELS)
    parts = pb.message_parts(codes, LEVELS)
    print(
        f"[2] w ~ N({glue('mean', 0)}, {glue('sigma', SIGMA)}^2), d = {glue('d', D, ',')}, "
        f"{glue('levels', LEVELS)} levels, numpy seed {glue('seed', SEED)}: "
        f"max|w| = {glue('max_w', np.abs(w).max(), '.5f')} = "
        f"{glue('max_w_sigmas', np.abs(w).max() / SIGMA, '.3f')} sigma"
    )
    print("    symbol counts n_k: "
          + ", ".join(glue(f"count{k}", int(c), ",") for k, c in enumerate(counts)))
    print(f"    codebook (float16): {', '.join(f'{float(c):+.5f}' for c in codebook)}")
    print(
        f"    empirical entropy H = {glue('entropy', h, '.4f')} bits per symbol; d H = "
        f"{glue('dh', D * h, ',.2f')}; coded = ceil(d H) + 1 = {glue('coded', parts.coded, ',')} "
        "bits"
    )
    ceil_log2_d = math.ceil(math.log2(D))
    print(
        f"    codebook {glue('codebook_entries', LEVELS)} x "
        f"{glue('codebook_entry_bits', parts.codebook // LEVELS)} = "
        f"{glue('codebook_bits', parts.codebook)} bits; counts {glue('counts_entries', LEVELS)} x "
        f"ceil(log2 {glue('counts_d', D, ',')}) = {LEVELS} x {glue('count_bits', ceil_log2_d)} = "
        f"{glue('counts_bits', parts.counts)} bits; message = {glue('message', parts.total, ',')} "
        "bits"
    )
    assert abs(h - EXAMPLE_H) < 0.005
    assert parts.coded == math.ceil(D * h) + 1
    assert parts.codebook == 176 and parts.counts == 176 and ceil_log2_d == 16
    assert parts.total == parts.coded + 352 == pb.message_length_bits(codes, LEVELS)
    assert counts.sum() == D and int(np.argmax(counts)) == LEVELS // 2
    return codes, counts


def gaussian_bin_entropy(m: float, levels: int = LEVELS) -> float:
    """Entropy of the bin of a N(0, 1) number conditioned on |Z| <= m, bins uniform over [-m, m]."""
    edges = [-m + 2 * m * k / levels for k in range(levels + 1)]
    cdf = [0.5 * (1 + math.erf(e / math.sqrt(2))) for e in edges]
    p = np.diff(cdf)
    p = p / p.sum()
    return float(-(p * np.log2(p)).sum())


def solve_m_for_entropy(h_target: float) -> float:
    """The ratio m = max|w| / sigma at which `gaussian_bin_entropy` equals h_target (bisection)."""
    lo, hi = 3.0, 6.0  # entropy falls as m grows: bins get wider relative to sigma
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if gaussian_bin_entropy(mid) > h_target else (lo, mid)
    return (lo + hi) / 2


def block3_spread() -> None:
    hs, coded, ms = [], [], []
    for seed in SPREAD_SEEDS:
        w, codes, _ = draw_codes(seed)
        hs.append(pb.empirical_entropy_bits(codes, LEVELS))
        coded.append(pb.message_parts(codes, LEVELS).coded)
        ms.append(float(np.abs(w).max()) / SIGMA)
    hs_a, coded_a, ms_a = np.array(hs), np.array(coded), np.array(ms)
    theory = np.array([gaussian_bin_entropy(m) for m in ms])
    gap = float(np.abs(hs_a - theory).max())
    print(f"[3] The same computation for {glue('spread_draws', len(SPREAD_SEEDS))} draws "
          f"(numpy seeds {glue('spread_seed_first', SPREAD_SEEDS[0])}-"
          f"{glue('spread_seed_last', SPREAD_SEEDS[-1])}):")
    print(
        f"    max|w| from {glue('spread_m_min', ms_a.min(), '.2f')} to "
        f"{glue('spread_m_max', ms_a.max(), '.2f')} sigma; H from "
        f"{glue('spread_h_min', hs_a.min(), '.4f')} to {glue('spread_h_max', hs_a.max(), '.4f')} "
        f"bits per symbol; coded bits from {glue('spread_coded_min', coded_a.min(), ',')} to "
        f"{glue('spread_coded_max', coded_a.max(), ',')}"
    )
    spread = int(coded_a.max() - coded_a.min())
    print(
        f"    coded bits per weight from {glue('spread_per_weight_min', coded_a.min() / D, '.2f')} "
        f"to {glue('spread_per_weight_max', coded_a.max() / D, '.2f')}; spread "
        f"{glue('spread_bits', spread, ',')} bits, "
        f"{glue('spread_bits_per_weight', spread / D, '.2f')} bits per weight"
    )
    assert 0.2 < spread / D < 0.3
    print(
        f"    H is set by m = max|w| / sigma: the entropy of {glue('relation_levels', LEVELS)} "
        "uniform bins over [-m, m] under a normal law matches every draw to within "
        f"{glue('relation_gap', math.ceil(gap * 1000) / 1000, '.3f')} bits"
    )
    m_star = solve_m_for_entropy(EXAMPLE_H)
    print(
        f"    a message of {glue('example_message', EXAMPLE_MESSAGE, ',')} = "
        f"{glue('example_coded', EXAMPLE_CODED, ',')} coded + "
        f"{glue('example_side_bits', EXAMPLE_MESSAGE - EXAMPLE_CODED)} bits needs "
        f"H = {glue('example_h', EXAMPLE_H, '.4f')} (ceil(d H) + 1 = {EXAMPLE_CODED:,}), which "
        f"means max|w| near {glue('example_m', m_star, '.2f')} sigma; seed "
        f"{glue('spread_seed0', SEED)} has {glue('spread_seed0_m', ms_a[0], '.2f')} sigma and "
        f"H = {glue('spread_seed0_h', hs_a[0], '.4f')}"
    )
    assert math.ceil(D * EXAMPLE_H) + 1 == EXAMPLE_CODED
    assert gap < 0.02
    assert hs_a.max() - hs_a.min() > 0.1  # H is NOT a constant of the setting
    assert coded_a.min() < EXAMPLE_CODED < coded_a.max()
    assert abs(m_star - ms_a[0]) < 0.1
    assert EXAMPLE_MESSAGE == EXAMPLE_CODED + 2 * 176
    assert np.all(np.diff(hs_a[np.argsort(ms_a)]) < 0.02)  # larger max|w|, lower H (up to noise)


def block4_real_coder(codes: np.ndarray, counts: np.ndarray) -> None:
    data = pb.arithmetic_encode(codes, counts)
    n_bits = pb.arithmetic_code_length_bits(codes, counts)
    back = pb.arithmetic_decode(data, counts, D)
    h = pb.empirical_entropy_bits(codes, LEVELS)
    authors = pb.message_parts(codes, LEVELS).coded
    print(
        f"[4] The integer coder on these {glue('coder_d', D, ',')} codes: "
        f"{glue('coder_bytes', len(data), ',')} bytes, {glue('coder_bits', n_bits, ',')} bits "
        f"before padding; d H = {glue('coder_dh', D * h, ',.2f')}; authors' count "
        f"{glue('coder_authors', authors, ',')}; difference "
        f"{glue('coder_difference', n_bits - authors, '+d')} bits"
    )
    print(f"    decoded back: {glue('coder_decoded', str(np.array_equal(back, codes)))} "
          f"(all {glue('coder_decoded_d', D, ',')} symbols equal)")
    print(
        f"    the coder: {glue('coder_precision', pb_arith.PRECISION)}-bit integer state, counts "
        f"totalling at most 2^{glue('coder_max_total_exp', pb_arith.MAX_TOTAL.bit_length() - 1)}; "
        f"output between -log2 W - {glue('coder_below', 1)} and -log2 W + "
        f"{glue('coder_above', 2)} bits, W the product of the model probabilities of the symbols "
        "sent"
    )
    assert pb_arith.PRECISION == 32 and pb_arith.MAX_TOTAL == 2**30
    assert np.array_equal(back, codes)
    assert abs(n_bits - authors) <= 2
    assert D * h - 1 <= n_bits < D * h + 2
    assert len(data) == math.ceil(n_bits / 8)


def block5_model_must_be_sent(codes: np.ndarray, counts: np.ndarray) -> None:
    own = pb.arithmetic_code_length_bits(codes, counts)
    uniform = pb.arithmetic_code_length_bits(codes, np.ones(LEVELS, dtype=np.int64))
    _, other_codes, _ = draw_codes(OTHER_SEED)
    other_counts = pb.symbol_counts(other_codes, LEVELS) + 1  # +1: no level may have count 0
    other = pb.arithmetic_code_length_bits(codes, other_counts)
    side = pb.message_parts(codes, LEVELS).counts
    print("[5] The decoder must know the model. Code lengths of the same codes under three models:")
    rows = [
        (
            f"own counts (sent: {glue('model_counts_bits', side)} bits)",
            f"{glue('model_own_bits', own, '>9,')} + {side} = "
            f"{glue('model_own_total', own + side, ',')} bits",
        ),
        (
            f"uniform, 1/{glue('model_uniform_levels', LEVELS)} each (nothing sent)",
            f"{glue('model_uniform_bits', uniform, '>9,')} bits = "
            f"{glue('model_uniform_per_symbol', uniform / D, '.4f')} per symbol = "
            f"log2 {glue('model_log2_levels', LEVELS)}",
        ),
        (
            f"counts of draw {glue('model_other_seed', OTHER_SEED)}, +1 each (nothing sent)",
            f"{glue('model_other_bits', other, '>9,')} bits",
        ),
    ]
    for label, value in rows:
        print(f"    {label}{' ' * (40 - len(shown(label)))} {value}")
    print(
        f"    sending the counts saves {glue('model_saves_uniform', uniform - own - side, ',')} "
        f"bits against the uniform model and {glue('model_saves_other', other - own - side, ',')} "
        "against the other draw's counts"
    )
    assert own + side < other < uniform
    assert abs(uniform - D * math.log2(LEVELS)) < 2
    assert f"{uniform / D:.4f}" == f"{math.log2(LEVELS):.4f}"


def block6_huffman(codes: np.ndarray) -> dict[str, list[float]]:
    print("[6] Bits above d H for the first d codes, each coded with its own counts:")
    print("        d     d H        arithmetic   Huffman   Huffman bits per symbol")
    curves: dict[str, list[float]] = {"d": [], "arith": [], "huff": []}
    for d in PREFIX_LENGTHS:
        part = codes[:d]
        cnt = pb.symbol_counts(part, LEVELS)
        dh = d * entropy_bits(cnt)
        arith = pb.arithmetic_code_length_bits(part, cnt)
        lengths = huffman_lengths(cnt.tolist())
        huff = int(sum(int(c) * ln for c, ln in zip(cnt.tolist(), lengths, strict=True)))
        key = f"prefix{d}"
        print(
            f"    {glue(key, d, '>6,')} {glue(f'{key}_dh', dh, '>11,.2f')}  "
            f"{glue(f'{key}_arithmetic', arith - dh, '>+9.2f')}  "
            f"{glue(f'{key}_huffman', huff - dh, '>+9.2f')}   "
            f"{glue(f'{key}_huffman_per_symbol', huff / d, '.4f')} "
            f"(H = {glue(f'{key}_h', dh / d, '.4f')})"
        )
        assert -1 <= arith - dh < 2
        assert 0 <= huff - dh < d  # Huffman: between H and H + 1 bits per symbol
        curves["d"].append(d)
        curves["arith"].append(arith - dh)
        curves["huff"].append(huff - dh)
    assert curves["huff"][-1] > 1_000 > 2 > curves["arith"][-1]
    return curves


# --------------------------------------------------------------------------------- figure
def draw_figure(intervals: list[tuple[Fraction, Fraction]], curves: dict[str, list[float]]) -> None:
    colours = ["#0072B2", "#E69F00", "#009E73"]  # Okabe-Ito: a, b, c
    total = sum(TOY_COUNTS)
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(5.5, 7.6))
    for i, (low, width) in enumerate(intervals[:-1]):
        y = len(intervals) - 1 - i
        start = low
        for k, c in enumerate(TOY_COUNTS):
            seg = width * Fraction(c, total)
            chosen = k == TOY_SEQUENCE[i]
            ax1.barh(
                y, float(seg), left=float(start), height=0.6, color=colours[k],
                alpha=1.0 if chosen else 0.25, edgecolor="white", linewidth=0.5,
            )  # fmt: skip
            start += seg
        ax1.text(-0.02, y, f"symbol {i + 1}: {TOY_NAMES[TOY_SEQUENCE[i]]}", ha="right", va="center",
                 fontsize=10)  # fmt: skip
    low, width = intervals[-1]
    ax1.barh(0, float(width), left=float(low), height=0.6, color="#333333")
    ax1.text(-0.02, 0, "final", ha="right", va="center", fontsize=10)
    code = encode_to_bits(TOY_SEQUENCE, TOY_COUNTS)
    point = int("".join(map(str, code)), 2) / 2 ** len(code)
    ax1.plot([point], [0], marker="v", color="#CC79A7", markersize=8, linestyle="none",
             label=f"code {''.join(map(str, code))}")  # fmt: skip
    ax1.set_xlim(0, 1)
    ax1.set_yticks([])
    ax1.set_xlabel("position in [0, 1)")
    ax1.set_title("Each symbol keeps its share of the interval", fontsize=10)
    for k, name in enumerate(TOY_NAMES):
        ax1.barh(-5, 0, color=colours[k], label=f"{name}: {TOY_COUNTS[k]}/{total}")
    ax1.set_ylim(-0.6, len(intervals) - 0.4)
    ax1.legend(loc="lower right", frameon=False)

    ax2.plot(curves["d"], curves["huff"], "o-", color="#D55E00", label="Huffman code")
    ax2.plot(curves["d"], curves["arith"], "s-", color="#0072B2", label="arithmetic coder")
    ax2.set_xscale("log")
    ax2.set_yscale("symlog", linthresh=2)
    ax2.set_xlabel("number of symbols d (11 levels, Gaussian weights)")
    ax2.set_ylabel("bits above d H")
    ax2.set_ylim(-0.5, 1e4)
    ax2.set_title("Huffman pays per symbol, arithmetic per message", fontsize=10)
    ax2.legend(frameon=False)
    ax2.grid(alpha=0.3)
    fig.tight_layout()
    save_figure(fig, FIGURE_NAME)
    plt.close(fig)


def main() -> None:
    print("Chapter 16 -- arithmetic coding of a quantized vector (ch16_arithmetic.py)")
    intervals = block1_toy()
    codes, counts = block2_worked_numbers()
    block3_spread()
    block4_real_coder(codes, counts)
    block5_model_must_be_sent(codes, counts)
    curves = block6_huffman(codes)
    draw_figure(intervals, curves)
    print("All assertions passed.")


if __name__ == "__main__":
    main()
