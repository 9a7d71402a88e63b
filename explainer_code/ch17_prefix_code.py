"""Erratum C9: the authors' message delimits itself, so the 2 log2 L header is not needed.

Claims, numbered as the output blocks:
  [1] Lengths K(L) = L + 2 log2 L for all 2^L strings of every length L >= 1 would have Kraft sum
      sum_L 1 / L^2 -> pi^2 / 6 > 1; one more bit, L + 2 log2 L + 1, gives pi^2 / 12 < 1 and is
      never shorter than Elias gamma for L followed by the L bits. This is what a header must
      cost when the message is an arbitrary bit string; it says nothing about a message whose
      length its own first bits fix.
  [2] The authors' message for d codes over Q levels [SOURCE: sublora/bounds/quantize_fns.py:
      172-199, 225-232, 252-297 @c606ea6]: Q counts of ceil(log2 d) bits each, Q float16 codebook
      entries, then the arithmetic code, ceil(d H) + 1 bits, a length the counts fix (for
      d <= 10^4 up to a float64 tie, [6]). Running the
      authors' own `encode` (transcribed below, with the Decimal precision
      `do_arithmetic_encoding` sets) on all 3^6 = 729 sequences for d = 6, Q = 3: each codeword
      has the formula's length, the 729 messages are distinct and prefix-free, a parser that
      knows only d and Q splits their concatenation back into the 729 messages, and their Kraft
      sum (the codebook's 48 bits cancel against its 2^48 values) is far below 1, with or without
      the authors' 2 log2 L header.
  [3] The general case: for d >= 2 the Kraft sum over all messages of the format is at most
      J(d, Q) 2^-(Q ceil(log2 d) + 1), with J = C(d + Q - 1, Q - 1) the number of count vectors,
      and J <= d^Q makes this at most 1/2. (When d is not a power of 2, each count, 0..d, fits
      its ceil(log2 d) bits; when it is, the field must be read as an index into the J count
      vectors, which fit as J <= d^Q.) Checked against exact sums for d = 2..9, Q = 2..4
      (enumerating count vectors); evaluated at the authors' d = 50,000, Q = 11.
  [4] What the header changes: the authors' prior is valid, so their bound holds with
      probability 1 - eps; the 2 log2 L bits make it looser, not valid. The subsampling bound
      with K = L, with the authors' L + 2 log2 L and with the book's L + 2 log2 L + 1, at
      Chapter 17's message (L = 115,826 bits; alpha = 0.1, 55 extra bits, train error 5.0 bits
      per token, N = 8,009,762) and at Chapter 14's inputs (L = 10^5, N = 8,000,000, 15 extra
      bits at alpha = 0.0001).
  [5] The authors' coder at the Decimal precision its caller sets, int(1.1 log10(Q) d) digits, is
      not exact for tiny d with few levels: on all 729 sequences of d = 6, Q = 3 it returns some
      codewords whose value lies outside their sequence's interval (exact fractions of the
      authors' float probabilities), so a decoder would return another sequence; so it does for
      some seeded random sequences of d = 20, Q = 3, and for none tried with Q = 11. At d = 2,
      Q = 2 the precision is 0 and Python's decimal raises ValueError. The lengths, all the
      bound uses, are unaffected. Against the exact intervals of the counts (fractions n_k / d
      instead of the authors' float64 cumulative sums) Q = 11 fails too: a decoder must rebuild
      the identical float64 model.
  [6] For d <= 10^4 the length is ceil(float64 sum of -log2 f in sequence order) + 1, so when
      d H is an integer the summation order can add a bit: d = 24, Q = 4, counts (1, 6, 8, 9)
      have d H = 42 exactly (formula: 43 bits), and 2,000 seeded random orders of the same
      counts give 43 or 44 bits. Lengths that are longer only lower the Kraft sum; a parser
      told only d and Q would mis-split these messages.
Deterministic: exact fractions, the authors' Decimal arithmetic, numpy generator seed 0.
"""

from __future__ import annotations

import decimal
import itertools
import math
from collections.abc import Sequence
from fractions import Fraction

import numpy as np
import pacbound as pb
from pacbound.message import CODEBOOK_ENTRY_BITS
from script_glue import glue

N_DOCS, N_SAMPLE, EPS = 8_009_762, 10_000, 0.05  # [SOURCE: sublora_pipeline.py:59; bounds yaml:36]
VOCAB = pb.GPT2_VOCAB_SIZE
TRAIN_ERROR = 5.0  # bits per token, the toy value of Chapters 14 and 17
CODEBOOK_BITS = CODEBOOK_ENTRY_BITS  # float16 per level
ENUM_D, ENUM_Q = 6, 3  # the exhaustive example of [2]
GRID_D, GRID_Q = range(2, 10), range(2, 5)  # the exact sums of [3]
AUTHORS_D, AUTHORS_Q = 50_000, 11  # [SOURCE: config/sublora_bounds.yaml:29, 35 @c606ea6]
# (d, Q, number of seeded random sequences) for the precision check of [5]
PRECISION_CASES = [(20, 3, 200), (6, 11, 200), (20, 11, 200), (100, 11, 100)]
TIE_COUNTS, TIE_ORDERS = (1, 6, 8, 9), 2_000  # [6]: d = 24, Q = 4, d H = 42 exactly
# (label, message bits L, N, smoothing weight alpha, extra bits charged at that alpha)
CASES = [
    ("Chapter 17's message", 115_826, N_DOCS, 0.1, 55),
    ("Chapter 14's inputs", 100_000, 8_000_000, 0.0001, 15),
]


# --- the authors' coder, transcribed from sublora/bounds/quantize_fns.py @c606ea6 (Apache-2.0) ---
def authors_decimal2bits(value: decimal.Decimal, bits_encoded: float) -> list[int]:
    """quantize_fns.py:264-273, unchanged."""
    output_bits: list[int] = []
    while len(output_bits) < bits_encoded:
        if value > decimal.Decimal(1) / decimal.Decimal(2):
            output_bits.append(1)
            value -= decimal.Decimal(1) / decimal.Decimal(2)
        else:
            output_bits.append(0)
        value *= decimal.Decimal(2)
    return output_bits


def authors_encode(sequence: Sequence[int], probs: np.ndarray) -> list[int]:
    """quantize_fns.py:283-297 (the logging line left out), in the context
    `do_arithmetic_encoding` (quantize_fns.py:259) sets: int(1.1 log10(levels) d) digits."""
    levels = len(probs)
    with decimal.localcontext() as ctx:
        ctx.prec = int(1.1 * np.log10(levels) * len(sequence))
        cumulative_probs = np.cumsum(probs)
        width = decimal.Decimal(1)
        message_value = decimal.Decimal(0)
        bits_encoded = 0
        for val in sequence:
            bin_start = cumulative_probs[val - 1] if val > 0 else 0.0
            bin_size = probs[val]
            message_value = message_value + decimal.Decimal(bin_start) * width
            width = width * decimal.Decimal(bin_size)
            bits_encoded -= np.log2(bin_size)
        return authors_decimal2bits(message_value + width / 2, np.ceil(bits_encoded) + 1)


def codeword_inside(sequence: Sequence[int], probs: np.ndarray, code: Sequence[int]) -> bool:
    """Whether the codeword's binary value lies in [low, low + width), the sequence's interval
    under the authors' float probabilities, computed with exact fractions."""
    cumulative = np.cumsum(probs)
    low, width = Fraction(0), Fraction(1)
    for s in sequence:
        low += (Fraction(float(cumulative[s - 1])) if s > 0 else Fraction(0)) * width
        width *= Fraction(float(probs[s]))
    value = sum(Fraction(int(b), 2 ** (j + 1)) for j, b in enumerate(code))
    return low <= value < low + width


def codeword_inside_exact(sequence: Sequence[int], q: int, code: Sequence[int]) -> bool:
    """Whether the codeword's value lies in the sequence's interval under the exact fractions
    n_k / d of its counts (no float64 rounding)."""
    d = len(sequence)
    counts = [sequence.count(k) for k in range(q)]
    below = [Fraction(sum(counts[:k]), d) for k in range(q)]
    low, width = Fraction(0), Fraction(1)
    for s in sequence:
        low += below[s] * width
        width *= Fraction(counts[s], d)
    value = sum(Fraction(int(b), 2 ** (j + 1)) for j, b in enumerate(code))
    return low <= value < low + width


def sequence_probs(sequence: Sequence[int], q: int) -> np.ndarray:
    symbols = np.array(sequence)
    return np.array([np.mean(symbols == i) for i in range(q)])  # quantize_fns.py:182


# --- the message format ---
def count_field(counts: Sequence[int], d: int) -> str:
    """The Q counts, each in ceil(log2 d) bits (enough for 0..d when d is not a power of 2)."""
    width = math.ceil(math.log2(d))
    assert all(c < 2**width for c in counts)
    return "".join(format(int(c), f"0{width}b") for c in counts)


def coded_length(counts: Sequence[int]) -> int:
    """ceil(d H) + 1 from the counts alone, exactly: d H = d log2 d - sum c log2 c."""
    d = sum(counts)
    d_h = d * math.log2(d) - sum(c * math.log2(c) for c in counts if c)
    return math.ceil(d_h - 1e-9) + 1


def parse(stream: str, d: int, q: int) -> list[str]:
    """Split a concatenation of messages (count field + code), knowing only d and Q."""
    width = math.ceil(math.log2(d))
    out, pos = [], 0
    while pos < len(stream):
        counts = [int(stream[pos + i * width : pos + (i + 1) * width], 2) for i in range(q)]
        end = pos + q * width + coded_length(counts)
        out.append(stream[pos:end])
        pos = end
    return out


def is_prefix_free(words: Sequence[str]) -> bool:
    """Distinct, and no word a prefix of another (after sorting, of its successor)."""
    ordered = sorted(words)
    return len(set(ordered)) == len(ordered) and not any(
        b.startswith(a) for a, b in itertools.pairwise(ordered)
    )


def type_count(d: int, q: int) -> int:
    """Number of count vectors (n_1..n_Q) with sum d: C(d + Q - 1, Q - 1)."""
    return math.comb(d + q - 1, q - 1)


def exact_kraft(d: int, q: int) -> Fraction:
    """Sum over all Q^d sequences of 2^-(count bits + ceil(d H) + 1), grouped by count vector
    (the codebook's bits cancel against its values)."""
    width = math.ceil(math.log2(d))
    total = Fraction(0)
    for cut in itertools.combinations(range(d + q - 1), q - 1):  # stars and bars
        bounds = (-1, *cut, d + q - 1)
        counts = [b - a - 1 for a, b in itertools.pairwise(bounds)]
        multinomial = math.factorial(d)
        for c in counts:
            multinomial //= math.factorial(c)
        total += Fraction(multinomial, 2 ** (q * width + coded_length(counts)))
    return total


def exact_bound(d: int, q: int) -> Fraction:
    """J(d, Q) 2^-(Q ceil(log2 d) + 1), exactly."""
    return Fraction(type_count(d, q), 2 ** (q * math.ceil(math.log2(d)) + 1))


def log2_bound(d: int, q: int) -> float:
    """log2 of J(d, Q) 2^-(Q ceil(log2 d) + 1)."""
    return math.log2(type_count(d, q)) - q * math.ceil(math.log2(d)) - 1


def gamma_code_bits(message_bits: int) -> int:
    """Elias gamma header for the length, then the message: 2 floor(log2 L) + 1 + L bits."""
    return 2 * (message_bits.bit_length() - 1) + 1 + message_bits


def bound(complexity_bits: float, n_docs: int, alpha: float, extra_bits: int) -> float:
    return pb.subsampling_bound(
        train_error=TRAIN_ERROR,
        loss_range=pb.loss_range(alpha, VOCAB),
        complexity_nats=(complexity_bits + extra_bits) * math.log(2),
        n_population=n_docs,
        n_sample=N_SAMPLE,
        eps=EPS,
    )


def main() -> None:
    print("Erratum C9 -- the authors' message delimits itself (ch17_prefix_code.py)")

    # [1] a header for arbitrary bit strings
    print("[1] Lengths charged for all 2^L bit strings of every length L = 1..L_max, Kraft sums:")
    print("      L_max   L + 2 log2 L   L + 2 log2 L + 1")
    for max_length in (1, 2, 10, 1_000):
        s = sum((Fraction(1, n * n) for n in range(1, max_length + 1)), Fraction(0))
        print(f"    {max_length:7,}   {float(s):>12.4f}   {float(s) / 2:>16.4f}")
        if max_length >= 2:
            assert s > 1 >= s / 2
    limit = math.pi**2 / 6
    print(f"    limits: pi^2/6 = {limit:.4f} and pi^2/12 = {limit / 2:.4f}")
    lengths = (1, 2, 3, 100, 115_826, 10**8)
    gaps = [pb.prefix_code_bits(x) - gamma_code_bits(x) for x in lengths]
    print(f"    L + 2 log2 L + 1 minus the Elias-gamma prefix code's length, L in {lengths}: "
          f"from {min(gaps):.3f} to {max(gaps):.3f} bits (never negative)")  # fmt: skip
    print("    this is the price of a header when the message is an arbitrary bit string; "
          "the authors' message is not one ([2], [3])")  # fmt: skip
    assert min(gaps) >= 0

    # [2] the authors' format, enumerated with the authors' encoder
    d, q = ENUM_D, ENUM_Q
    width = math.ceil(math.log2(d))
    fixed = q * width + q * CODEBOOK_BITS
    messages, lengths_ok = [], True
    for seq in itertools.product(range(q), repeat=d):
        symbols = np.array(seq)
        probs = np.array([np.mean(symbols == i) for i in range(q)])  # quantize_fns.py:182
        counts = [int(c) for c in pb.symbol_counts(symbols, q)]
        code = "".join(map(str, authors_encode(seq, probs)))
        lengths_ok &= len(code) == coded_length(counts) == pb.message_parts(symbols, q).coded
        messages.append(count_field(counts, d) + code)
    n_msg = len(messages)
    shortest = min(len(m) for m in messages)
    longest = max(len(m) for m in messages)
    kraft_l = sum(Fraction(1, 2 ** len(m)) for m in messages)
    kraft_k = sum(2.0 ** -(len(m) + q * CODEBOOK_BITS) * (len(m) + q * CODEBOOK_BITS) ** -2.0
                  for m in messages) * 2.0 ** (q * CODEBOOK_BITS)  # fmt: skip
    prefix_free = is_prefix_free(messages)
    stream = "".join(reversed(messages))
    split_ok = parse(stream, d, q) == list(reversed(messages))
    print(f"[2] The authors' message, d = {glue('enum_d', d)} codes over Q = "
          f"{glue('enum_q', q)} levels, every one of the "
          f"{q}^{d} = {glue('enum_sequences', n_msg)} sequences coded by the authors' "
          "encode:")  # fmt: skip
    print(f"    message = {q} counts x {width} bits + {q} x {CODEBOOK_BITS} codebook bits "
          f"+ code; fixed part {fixed} bits, code from {shortest - q * width} to "
          f"{longest - q * width} bits")  # fmt: skip
    print(f"    every code is ceil(d H) + 1 bits long, as get_message_len counts: {lengths_ok}")
    print(f"    the {n_msg} messages are distinct and prefix-free: {prefix_free}")
    print(f"    a parser told only d and Q splits their concatenation back into the {n_msg}: "
          f"{split_ok}")  # fmt: skip
    print(f"    Kraft sum with K = L: {glue('kraft_sum', float(kraft_l), '.4f')}; with the "
          f"authors' K = L + 2 log2 L: {glue('kraft_sum_authors', kraft_k, '.2e')} (both at "
          "most 1: a valid prior)")  # fmt: skip
    assert lengths_ok and prefix_free and split_ok
    assert kraft_l == exact_kraft(d, q) and kraft_l < 1 and kraft_k < kraft_l

    # [3] the general case
    worst = max(
        (exact_kraft(dd, qq) / exact_bound(dd, qq), dd, qq)
        for dd in GRID_D for qq in GRID_Q
    )  # fmt: skip
    largest = max((float(exact_kraft(dd, qq)), dd, qq) for dd in GRID_D for qq in GRID_Q)
    print("[3] The general case, d >= 2: Kraft sum <= J(d, Q) 2^-(Q ceil(log2 d) + 1), "
          "J = C(d + Q - 1, Q - 1) count vectors, and J <= d^Q makes it <= 1/2")  # fmt: skip
    print(f"    exact sums for d = {glue('grid_d_first', GRID_D.start)}.."
          f"{glue('grid_d_last', GRID_D.stop - 1)}, Q = {glue('grid_q_first', GRID_Q.start)}.."
          f"{glue('grid_q_last', GRID_Q.stop - 1)}: largest {largest[0]:.4f} "
          f"(d = {largest[1]}, Q = {largest[2]}); "
          f"largest ratio sum / bound {glue('largest_bound_ratio', float(worst[0]), '.4f')} "
          f"(d = {worst[1]}, Q = {worst[2]})")  # fmt: skip
    assert worst[0] <= 1 and largest[0] <= 0.5
    assert all(type_count(dd, qq) <= dd**qq for dd in range(2, 200) for qq in range(1, 40))
    lb = log2_bound(AUTHORS_D, AUTHORS_Q)
    min_len = AUTHORS_Q * (math.ceil(math.log2(AUTHORS_D)) + CODEBOOK_BITS) + 1
    lb_k = lb - 2 * math.log2(min_len)
    print(f"    the authors' d = {glue('authors_d', AUTHORS_D, ',')}, Q = "
          f"{glue('authors_q', AUTHORS_Q)}: log2 J = "
          f"{math.log2(type_count(AUTHORS_D, AUTHORS_Q)):.1f}, count bits "
          f"{AUTHORS_Q * math.ceil(math.log2(AUTHORS_D))}; Kraft sum <= "
          f"2^{glue('authors_log2_kraft_bound', lb, '.1f')} with K = L, "
          f"<= 2^{lb_k:.1f} with the authors' K (L >= {min_len})")  # fmt: skip
    assert lb < -40

    # [4] what the header changes
    print(f"[4] The authors' prior is valid, so their prefix code takes nothing from the "
          f"confidence 1 - eps = {glue('confidence', 1 - EPS)}; the 2 log2 L bits loosen the "
          "bound. The bound "
          "(bits per token) with three charges:")  # fmt: skip
    for key, (label, msg, n_docs, alpha, extra) in zip(("ch17", "ch14"), CASES, strict=True):
        plain = bound(msg, n_docs, alpha, extra)
        theirs = bound(pb.authors_prefix_code_bits(msg), n_docs, alpha, extra)
        ours = bound(pb.prefix_code_bits(msg), n_docs, alpha, extra)
        print(f"    {label}: L = {msg:,}, N = {n_docs:,}, alpha = {alpha}, {extra} extra bits: "
              f"K = L gives {plain:.6f}; L + 2 log2 L gives {theirs:.6f}; "
              f"L + 2 log2 L + 1 gives {ours:.6f}; header cost "
              f"{glue(f'{key}_header_cost_authors', theirs - plain, '.1e')} and "
              f"{glue(f'{key}_header_cost_book', ours - plain, '.1e')}")  # fmt: skip
        assert plain < theirs < ours < plain + 1e-3
    print("    the header is redundant, not insufficient: dropping it lowers the bound by less "
          "than 1e-3 bits per token")  # fmt: skip

    # [5] the authors' Decimal precision
    print("[5] The authors' encode at the precision do_arithmetic_encoding sets, "
          "int(1.1 log10(Q) d) digits: codewords whose value lies outside their sequence's "
          "interval (a decoder returns another sequence)")  # fmt: skip
    outside = sum(
        not codeword_inside(seq, p, authors_encode(seq, p))
        for seq in itertools.product(range(ENUM_Q), repeat=ENUM_D)
        for p in [sequence_probs(seq, ENUM_Q)]
    )
    print(f"    d = {ENUM_D}, Q = {ENUM_Q}, all {ENUM_Q**ENUM_D} sequences "
          f"(precision {int(1.1 * np.log10(ENUM_Q) * ENUM_D)} digits): "
          f"{glue('enum_outside', outside)} outside")
    assert outside > 0
    rng = np.random.default_rng(0)
    for d, q, n_seq in PRECISION_CASES:
        bad = bad_exact = 0
        for _ in range(n_seq):
            seq = tuple(int(x) for x in rng.integers(0, q, d))
            p = sequence_probs(seq, q)
            code = authors_encode(seq, p)
            bad += not codeword_inside(seq, p, code)
            bad_exact += not codeword_inside_exact(seq, q, code)
        print(f"    d = {d}, Q = {q}, {n_seq} random sequences (numpy seed 0; precision "
              f"{int(1.1 * np.log10(q) * d)} digits): {bad} outside; against the exact "
              f"fractions n_k / d: {bad_exact} outside")  # fmt: skip
        assert (bad > 0) == (q == ENUM_Q)
        assert bad_exact > 0 or d < 20
    try:
        authors_encode((0, 1), np.array([0.5, 0.5]))
        raised = "nothing"
    except ValueError:
        raised = "ValueError"
    print(f"    d = 2, Q = 2: precision {int(1.1 * np.log10(2) * 2)} digits, Python's decimal "
          f"raises {raised}")  # fmt: skip
    assert raised == "ValueError"
    print("    the codewords' lengths, all that get_message_len and the bound use, do not depend "
          "on the precision (they are summed in float64)")  # fmt: skip
    print("    so a decoder must rebuild the identical float64 model (the authors' cumulative "
          "sums), not the exact fractions")  # fmt: skip

    # [6] the float sum of the small-d path
    base = [k for k, c in enumerate(TIE_COUNTS) for _ in range(c)]
    d_tie, q_tie = len(base), len(TIE_COUNTS)
    d_h = d_tie * math.log2(d_tie) - sum(c * math.log2(c) for c in TIE_COUNTS)
    lengths: dict[int, int] = {}
    rng = np.random.default_rng(0)
    for _ in range(TIE_ORDERS):
        seq = tuple(int(x) for x in rng.permutation(base))
        n_bits = len(authors_encode(seq, sequence_probs(seq, q_tie)))
        lengths[n_bits] = lengths.get(n_bits, 0) + 1
    formula = coded_length(TIE_COUNTS)
    print(f"[6] The small-d path's length, ceil(float64 sum of -log2 f in sequence order) + 1, "
          f"when d H is an integer: d = {glue('tie_d', d_tie)}, Q = {glue('tie_q', q_tie)}, "
          f"counts {glue('tie_counts', str(TIE_COUNTS))}, "
          f"d H = {glue('tie_dh', d_h, '.0f')} exactly, formula ceil(d H) + 1 = "
          f"{glue('tie_formula_bits', formula)} bits")  # fmt: skip
    given = [  # the orders that give the formula's length, then those that give one bit more
        f"{glue(f'tie_orders_{key}', n, ',')} orders give "
        f"{b if b == formula else glue('tie_longer_bits', b)} bits"
        for b, n in sorted(lengths.items())
        for key in ["formula" if b == formula else "longer"]
    ]
    print(f"    {glue('tie_orders', TIE_ORDERS, ',')} random orders of these counts "
          "(numpy seed 0): " + ", ".join(given))
    print("    the extra bit only lowers the Kraft sum (the prior stays valid), but a parser told "
          "only d and Q would mis-split these messages")  # fmt: skip
    assert abs(d_h - 42) < 1e-12 and formula == 43
    assert sorted(lengths) == [43, 44] and min(lengths.values()) > TIE_ORDERS // 10
    print("All assertions passed.")


if __name__ == "__main__":
    main()
