"""pacbound's quantizer, arithmetic coder and message length, against independent references.

References share no code with pacbound: the quantizer is re-derived element by element from the
bin-edge formula; code lengths are compared with the ideal length sum_i log2(total / count_i)
computed with math.log2 over the counts; the entropy with collections.Counter.
"""

from __future__ import annotations

import doctest
import itertools
import math
from collections import Counter

import numpy as np
import pacbound as pb
import pytest
from pacbound import arithmetic as pb_arith
from pacbound import message as pb_message
from pacbound import quantize as pb_quantize


# ------------------------------------------------------------------ independent references
def ideal_bits(symbols: list[int], counts: list[int]) -> float:
    """Sum over the sequence of -log2 p(s), p(s) = counts[s] / total."""
    total = sum(counts)
    return sum(math.log2(total / counts[s]) for s in symbols)


def rounding_slack(symbols: list[int], counts: list[int]) -> float:
    """Most bits the 32-bit integer ranges can lose: sum_i 2 T / (2**30 c_i) (see the coder)."""
    total = sum(counts)
    return sum(2 * total / (2**30 * counts[s]) for s in symbols)


def counter_entropy(symbols: list[int]) -> float:
    """Empirical entropy in bits per symbol from collections.Counter."""
    d = len(symbols)
    return -sum(n / d * math.log2(n / d) for n in Counter(symbols).values())


def reference_quantize(w: list[float], levels: int) -> tuple[list[int], list[float]]:
    """Element by element: bin k holds edges_k <= w < edges_{k+1}; centroid = bin mean."""
    m = max(abs(x) for x in w)
    lo, width = -m - 1e-6, (2 * m + 2e-6) / levels
    edges = [lo + k * width for k in range(levels + 1)]
    codes = []
    for x in w:
        k = next(k for k in range(levels) if edges[k] <= x < edges[k + 1])
        codes.append(k)
    book = []
    for k in range(levels):
        members = [x for x, c in zip(w, codes, strict=True) if c == k]
        book.append(sum(members) / len(members) if members else edges[k])
    return codes, book


def round_trip(symbols: list[int], counts: list[int]) -> bytes:
    data = pb.arithmetic_encode(symbols, counts)
    decoded = pb.arithmetic_decode(data, counts, len(symbols))
    assert decoded.tolist() == list(symbols)
    return data


# ------------------------------------------------------------------ docstring examples
@pytest.mark.parametrize("module", [pb_quantize, pb_arith, pb_message])
def test_docstring_examples(module: object) -> None:
    failures, tried = doctest.testmod(module)  # type: ignore[arg-type]
    assert tried > 0
    assert failures == 0


def test_exported_at_top_level() -> None:
    """The top-level names are the implementing functions, not stand-ins of the same name."""
    for module, name in [
        (pb_quantize, "quantize_uniform"),
        (pb_arith, "arithmetic_encode"),
        (pb_arith, "arithmetic_decode"),
        (pb_message, "message_length_bits"),
    ]:
        assert name in pb.__all__
        assert getattr(pb, name) is getattr(module, name), name
    data = pb.arithmetic_encode([0, 1, 1, 0, 1], [2, 3])
    assert pb.arithmetic_decode(data, [2, 3], 5).tolist() == [0, 1, 1, 0, 1]


# ------------------------------------------------------------------ arithmetic coder: round trips
@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("n_symbols", [2, 11, 256])
def test_round_trip_random(seed: int, n_symbols: int) -> None:
    rng = np.random.default_rng(seed)
    symbols = rng.integers(0, n_symbols, size=3_000).tolist()
    counts = np.bincount(symbols, minlength=n_symbols).tolist()
    counts = [c if c > 0 else 0 for c in counts]
    round_trip(symbols, counts)


@pytest.mark.parametrize("length", [0, 1, 2, 1_000])
def test_round_trip_constant_sequence(length: int) -> None:
    # Every symbol the same, model from the sequence: p = 1, zero information.
    counts = [0, 0, max(length, 1), 0]
    data = round_trip([2] * length, counts)
    assert len(data) <= 1


def test_round_trip_one_symbol_alphabet() -> None:
    data = round_trip([0] * 5_000, [7])
    assert pb.arithmetic_code_length_bits([0] * 5_000, [7]) <= 2
    assert len(data) == 1


def test_round_trip_empty_sequence() -> None:
    assert pb.arithmetic_decode(pb.arithmetic_encode([], [1, 1]), [1, 1], 0).tolist() == []


def test_round_trip_long_underflow_runs() -> None:
    # The middle of three equal symbols keeps the interval straddling 1/2: long pending chains.
    symbols = [1] * 4_000 + [0] + [1] * 4_000 + [2] + [1] * 50
    round_trip(symbols, [1, 1, 1])


def test_round_trip_extreme_skew() -> None:
    # The coder's largest total, with a symbol of probability 2**-30 coded again and again.
    counts = [pb_arith.MAX_TOTAL - 1, 1]
    symbols = [1] * 50 + [0] * 200 + [1, 0, 1]
    data = round_trip(symbols, counts)
    assert len(data) * 8 >= 50 * 30


def test_round_trip_zero_count_symbols_between() -> None:
    counts = [3, 0, 0, 5, 0, 1, 0]
    symbols = [0, 3, 5, 3, 3, 0, 5, 5, 0, 3] * 100
    round_trip(symbols, counts)


def test_round_trip_rare_symbols_at_the_end() -> None:
    counts = [100_000, 1, 1]
    symbols = [0] * 100_000 + [1, 2]
    data = round_trip(symbols, counts)
    assert len(data) * 8 <= ideal_bits(symbols, counts) + 2 + 8


def test_every_sequence_of_a_small_alphabet_decodes_and_codes_differ() -> None:
    # Exhaustive: all 3**7 sequences under a fixed skewed model. Distinct sequences must give
    # distinct bit strings, and each must decode to itself.
    counts = [5, 2, 1]
    seen: dict[tuple[int, ...], tuple[int, ...]] = {}
    for seq in itertools.product(range(3), repeat=7):
        bits = tuple(pb_arith.encode_to_bits(seq, counts))
        assert bits not in seen, (seq, seen.get(bits))
        seen[bits] = seq
        data = pb.arithmetic_encode(seq, counts)
        assert pb.arithmetic_decode(data, counts, 7).tolist() == list(seq)
        ideal, slack = ideal_bits(list(seq), counts), rounding_slack(list(seq), counts)
        assert ideal - 1 - slack <= len(bits) <= ideal + 2 + slack


def test_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="count 0"):
        pb.arithmetic_encode([0, 1], [1, 0])
    with pytest.raises(ValueError, match="lie in"):
        pb.arithmetic_encode([0, 2], [1, 1])
    with pytest.raises(ValueError, match="all be zero"):
        pb.arithmetic_encode([], [0, 0])
    with pytest.raises(ValueError, match="limit"):
        pb.arithmetic_encode([0], [2**30, 1])
    with pytest.raises(ValueError, match="non-negative"):
        pb.arithmetic_encode([0], [1, -1])


# ------------------------------------------------------------------ arithmetic coder: lengths
@pytest.mark.parametrize(
    ("d", "probs"),
    [
        (10_000, [0.5, 0.5]),
        (10_000, [0.9, 0.05, 0.05]),
        (20_000, [0.001, 0.999]),
        (50_000, [0.02, 0.08, 0.2, 0.4, 0.2, 0.08, 0.02]),
        (50_000, [1 / 11] * 11),
    ],
)
def test_length_within_two_bits_of_the_authors_count(d: int, probs: list[float]) -> None:
    rng = np.random.default_rng(d + len(probs))
    symbols = rng.choice(len(probs), size=d, p=probs).tolist()
    counts = [symbols.count(k) for k in range(len(probs))]
    authors = math.ceil(d * counter_entropy(symbols)) + 1
    bits = pb.arithmetic_code_length_bits(symbols, counts)
    assert abs(bits - authors) <= 2
    assert len(pb.arithmetic_encode(symbols, counts)) == math.ceil(bits / 8)
    round_trip(symbols, counts)


def test_property_many_random_inputs() -> None:
    # 300 seeded random cases: alphabet, counts (some zero), length and symbols all random.
    rng = np.random.default_rng(20240101)
    for case in range(300):
        n_symbols = int(rng.integers(1, 20))
        counts = rng.integers(0, 50, size=n_symbols)
        counts[rng.integers(0, n_symbols)] += 1  # at least one symbol can be coded
        if case % 3 == 0:
            counts = counts * int(rng.integers(1, 10_000))
        usable = np.flatnonzero(counts)
        length = int(rng.integers(0, 600))
        if case % 2 == 0:
            symbols = rng.choice(usable, size=length).tolist()  # uniform over usable symbols
        else:
            p = counts[usable] / counts[usable].sum()
            symbols = rng.choice(usable, size=length, p=p).tolist()  # drawn from the model
        counts_list = counts.tolist()
        data = round_trip(symbols, counts_list)
        bits = pb.arithmetic_code_length_bits(symbols, counts_list)
        ideal = ideal_bits(symbols, counts_list)
        slack = rounding_slack(symbols, counts_list) + 1e-9
        assert ideal - 1 - slack <= bits <= ideal + 2 + slack, case
        assert len(data) == math.ceil(bits / 8)


def test_length_interval_is_open_below_and_closed_above() -> None:
    # The docstring's (I - 1, I' + 2]: the upper end is attained (0 bits of information, a
    # 2-bit code), and no length reaches I - 1 (rounding only lengthens the code).
    assert pb.arithmetic_code_length_bits([0] * 1_000, [1]) == 2
    assert pb.arithmetic_code_length_bits([3] * 1_000, [0, 0, 0, 5]) == 2
    rng = np.random.default_rng(16)
    for case in range(400):
        n_symbols = int(rng.integers(2, 12))
        symbols = rng.integers(0, n_symbols, size=int(rng.integers(1, 400))).tolist()
        counts = np.bincount(symbols, minlength=n_symbols)
        counts[counts == 0] = 1
        bits = pb.arithmetic_code_length_bits(symbols, counts.tolist())
        assert bits > ideal_bits(symbols, counts.tolist()) - 1, case


# ------------------------------------------------------------------ quantizer
@pytest.mark.parametrize("levels", [1, 2, 3, 5, 11, 16])
def test_quantizer_matches_reference(levels: int) -> None:
    rng = np.random.default_rng(levels)
    w = rng.standard_t(df=3, size=400) * 0.01
    codes, book = pb.quantize_uniform(w, levels)
    ref_codes, ref_book = reference_quantize(w.tolist(), levels)
    assert codes.tolist() == ref_codes
    assert book.dtype == np.float16
    np.testing.assert_array_equal(book, np.array(ref_book, dtype=np.float16))


def test_quantizer_bins_are_symmetric_and_errors_bounded() -> None:
    rng = np.random.default_rng(7)
    w = rng.normal(0.0, 0.01, size=50_000)
    codes, book = pb.quantize_uniform(w, 11)
    assert codes.min() >= 0
    assert codes.max() <= 10
    width = 2 * np.abs(w).max() / 11
    err = np.abs(pb.dequantize(codes, book) - w)
    assert err.max() <= width * (1 + 1e-3)
    assert codes[np.abs(w) < width / 2 * 0.99].tolist() == [5] * int(
        np.sum(np.abs(w) < width / 2 * 0.99)
    )  # the middle bin of an odd count holds the numbers near zero
    assert np.all(np.diff(book.astype(np.float64)) > 0)


def test_quantizer_float32_means_in_float32() -> None:
    # The authors' code averages a float32 vector in float32 before casting to float16.
    rng = np.random.default_rng(11)
    w = (rng.standard_t(df=3, size=20_000) * 0.01).astype(np.float32)
    codes, book = pb.quantize_uniform(w, 11)
    for k in range(11):
        members = w[codes == k]
        if members.size:
            assert book[k] == np.float16(np.mean(members, dtype=np.float32))


def test_quantizer_empty_bin_keeps_left_edge() -> None:
    codes, book = pb.quantize_uniform([-1.0, 1.0], 3)
    assert codes.tolist() == [0, 2]
    assert float(book[1]) == pytest.approx(-1 / 3, abs=1e-3)


def test_quantizer_rejects_bad_input() -> None:
    with pytest.raises(ValueError):
        pb.quantize_uniform([], 3)
    with pytest.raises(ValueError):
        pb.quantize_uniform([1.0, float("nan")], 3)
    with pytest.raises(ValueError):
        pb.quantize_uniform([1.0], 0)


# ------------------------------------------------------------------ message length
def test_message_parts_for_the_sublora_shape() -> None:
    rng = np.random.default_rng(3)
    codes = rng.integers(0, 11, size=50_000)
    parts = pb.message_parts(codes, 11)
    assert parts.codebook == 11 * 16
    assert parts.counts == 11 * math.ceil(math.log2(50_000))
    assert parts.counts == 176
    entropy = counter_entropy(codes.tolist())
    assert parts.coded == math.ceil(50_000 * entropy) + 1
    assert pb.message_length_bits(codes, 11) == parts.coded + 176 + 176


def test_message_coded_part_agrees_with_the_real_coder() -> None:
    rng = np.random.default_rng(5)
    w = rng.normal(0.0, 0.01, size=20_000)
    codes, _ = pb.quantize_uniform(w, 11)
    counts = pb.symbol_counts(codes, 11)
    real = pb.arithmetic_code_length_bits(codes, counts)
    assert abs(real - pb.message_parts(codes, 11).coded) <= 2


def test_empirical_entropy_matches_counter() -> None:
    rng = np.random.default_rng(9)
    codes = rng.integers(0, 6, size=5_000)
    assert pb.empirical_entropy_bits(codes, 8) == pytest.approx(
        counter_entropy(codes.tolist()), rel=1e-12
    )
