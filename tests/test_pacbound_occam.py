"""pacbound.occam checked against independent references.

- Hoeffding: the exact binomial tail, summed with integer arithmetic (math.comb, fractions), must
  stay below eps at the deviation the bound allows; the bound is also compared with the formula
  written out by hand.
- Occam: at K = log2 k bits it must equal a union bound over k hypotheses, each at eps / k.
- Kraft: exact sums with fractions.Fraction; Kraft's inequality on codes built and checked for the
  prefix property by brute force.
- authors_prefix_code_bits: the authors' expression from bound_utils.py:222, retyped with numpy;
  prefix_code_bits: one bit more, and its Kraft sum over all lengths below 1.
"""

from __future__ import annotations

import doctest
import itertools
import math
from fractions import Fraction

import numpy as np
import pacbound as pb
import pytest
from pacbound import occam


def test_doctests() -> None:
    failures, tried = doctest.testmod(occam)
    assert tried >= 4
    assert failures == 0


def test_exported_at_top_level() -> None:
    for name in (
        "hoeffding_bound", "occam_bound", "prefix_code_bits", "authors_prefix_code_bits",
        "kraft_sum",
    ):
        assert name in pb.__all__
        assert getattr(pb, name) is getattr(occam, name)


# --------------------------------------------------------------------------- Hoeffding
@pytest.mark.parametrize(("n", "eps", "rng"), [(10, 0.1, 1.0), (1000, 0.05, 1.0), (50, 0.01, 3.5)])
def test_hoeffding_formula(n: int, eps: float, rng: float) -> None:
    expected = 0.2 + rng * (math.log(1 / eps) / (2 * n)) ** 0.5
    assert pb.hoeffding_bound(0.2, n=n, eps=eps, loss_range=rng) == pytest.approx(expected, 1e-14)


def binomial_upper_tail(n: int, p: Fraction, k: int) -> Fraction:
    """P(X >= k) for X ~ Binomial(n, p), exactly."""
    return sum(
        (math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(max(k, 0), n + 1)),
        Fraction(0),
    )


@pytest.mark.parametrize("n", [20, 100, 400])
@pytest.mark.parametrize("p", [Fraction(1, 10), Fraction(1, 2), Fraction(4, 5)])
@pytest.mark.parametrize("eps", [0.2, 0.05, 0.01])
def test_hoeffding_is_valid_against_exact_binomial(n: int, p: Fraction, eps: float) -> None:
    """P(true risk > empirical + slack) = P(mean of n Bernoulli(p) < p - slack) <= eps."""
    slack = pb.hoeffding_bound(0.0, n=n, eps=eps)
    # the lower tail of X/n below p - slack is the upper tail of n - X ~ Binomial(n, 1 - p)
    k_fail = math.floor(n * (1 - float(p) + slack)) + 1  # (n - X)/n > 1 - p + slack
    fail = binomial_upper_tail(n, 1 - p, k_fail)
    assert float(fail) <= eps


def test_hoeffding_is_not_absurdly_loose() -> None:
    """At n = 400, p = 1/2, eps = 0.05 the exact failure rate is within a factor 20 of eps."""
    n, eps = 400, 0.05
    slack = pb.hoeffding_bound(0.0, n=n, eps=eps)
    k_fail = math.floor(n * (0.5 + slack)) + 1
    fail = float(binomial_upper_tail(n, Fraction(1, 2), k_fail))
    assert eps / 20 < fail < eps


def test_hoeffding_shrinks_as_one_over_sqrt_n() -> None:
    a = pb.hoeffding_bound(0.0, n=100, eps=0.05)
    b = pb.hoeffding_bound(0.0, n=400, eps=0.05)
    assert a / b == pytest.approx(2.0, 1e-12)


@pytest.mark.parametrize(
    "kwargs", [{"n": 0, "eps": 0.05}, {"n": 10, "eps": 0.0}, {"n": 10, "eps": 1.0},
               {"n": 10, "eps": 0.05, "loss_range": 0.0}]
)  # fmt: skip
def test_hoeffding_rejects_bad_arguments(kwargs: dict) -> None:
    with pytest.raises(ValueError):
        pb.hoeffding_bound(0.1, **kwargs)


def test_keyword_only() -> None:
    with pytest.raises(TypeError):
        pb.hoeffding_bound(0.1, 100, 0.05)  # type: ignore[misc]
    with pytest.raises(TypeError):
        pb.occam_bound(0.1, 10, 100, 0.05)  # type: ignore[misc]


# --------------------------------------------------------------------------- Occam
def test_occam_at_zero_bits_is_hoeffding() -> None:
    assert pb.occam_bound(0.3, complexity_bits=0, n=77, eps=0.02, loss_range=2.0) == pytest.approx(
        pb.hoeffding_bound(0.3, n=77, eps=0.02, loss_range=2.0), 1e-15
    )


@pytest.mark.parametrize("k", [1, 2, 10, 1000, 2**20])
def test_occam_with_uniform_code_is_union_bound(k: int) -> None:
    """k hypotheses, each paying Hoeffding at eps / k: the same number as Occam at log2 k bits."""
    union = pb.hoeffding_bound(0.05, n=5000, eps=0.05 / k)
    assert pb.occam_bound(0.05, complexity_bits=math.log2(k), n=5000, eps=0.05) == pytest.approx(
        union, 1e-12
    )


def test_occam_units_are_bits() -> None:
    """One more bit costs ln 2 nats inside the square root."""
    n, eps = 1000, 0.05
    b = pb.occam_bound(0.0, complexity_bits=10, n=n, eps=eps)
    assert b**2 * 2 * n == pytest.approx(10 * math.log(2) + math.log(20), 1e-12)


def test_occam_rejects_negative_bits() -> None:
    with pytest.raises(ValueError):
        pb.occam_bound(0.1, complexity_bits=-1, n=10, eps=0.05)


# --------------------------------------------------------------------------- codes
def is_prefix_free(words: list[str]) -> bool:
    return not any(a != b and b.startswith(a) for a, b in itertools.permutations(words, 2))


def exact_kraft(lengths: list[int]) -> Fraction:
    return sum((Fraction(1, 2**length) for length in lengths), Fraction(0))


CODES = {
    "complete": ["0", "10", "110", "111"],
    "fixed-3": [format(i, "03b") for i in range(8)],
    "incomplete": ["00", "01", "100"],
    "unary": ["1" * i + "0" for i in range(12)],
}


@pytest.mark.parametrize("name", sorted(CODES))
def test_kraft_sum_of_prefix_codes(name: str) -> None:
    words = CODES[name]
    assert is_prefix_free(words)
    lengths = [len(w) for w in words]
    assert pb.kraft_sum(lengths) == float(exact_kraft(lengths))
    assert pb.kraft_sum(lengths) <= 1.0


def test_kraft_sum_exceeds_one_for_a_non_prefix_code() -> None:
    words = ["0", "1", "01"]
    assert not is_prefix_free(words)
    assert pb.kraft_sum(len(w) for w in words) == 1.25


def elias_gamma(x: int) -> str:
    b = format(x, "b")
    return "0" * (len(b) - 1) + b


def test_elias_gamma_is_prefix_free_and_satisfies_kraft() -> None:
    words = [elias_gamma(x) for x in range(1, 200)]
    assert is_prefix_free(words)
    total = pb.kraft_sum(len(w) for w in words)
    assert total == float(exact_kraft([len(w) for w in words]))
    assert 0.99 < total < 1.0


def test_kraft_sum_accepts_generators_and_numpy() -> None:
    assert pb.kraft_sum(np.array([1, 1])) == 1.0
    assert pb.kraft_sum(iter([2, 2, 2, 2])) == 1.0
    assert pb.kraft_sum([]) == 0.0
    with pytest.raises(ValueError):
        pb.kraft_sum([1, -1])


@pytest.mark.parametrize("length", [1, 2, 17, 115_840, 10**9, 12345.5])
def test_authors_prefix_code_bits_matches_authors_expression(length: float) -> None:
    authors = length + 2 * np.log2(length) if length > 0 else 0  # bound_utils.py:222 @c606ea6
    assert pb.authors_prefix_code_bits(length) == pytest.approx(float(authors), rel=1e-15)
    assert pb.prefix_code_bits(length) == pytest.approx(float(authors) + 1.0, rel=1e-15)


def test_prefix_code_bits_edges() -> None:
    assert pb.authors_prefix_code_bits(0) == 0.0
    assert pb.authors_prefix_code_bits(1) == 1.0
    assert pb.prefix_code_bits(1) == 2.0
    for bad in (0, 0.5, -3):
        with pytest.raises(ValueError):
            pb.prefix_code_bits(bad)
    for bad in (0.5, -3):
        with pytest.raises(ValueError):
            pb.authors_prefix_code_bits(bad)


def test_prefix_code_bits_satisfy_kraft_over_all_lengths_and_authors_do_not() -> None:
    """2^L messages of each length L: sum 2^L 2^-K(L) is pi^2/12 for ours, pi^2/6 for theirs."""
    lengths = range(1, 200_000)
    ours = math.fsum(2.0 ** (length - pb.prefix_code_bits(length)) for length in lengths)
    theirs = math.fsum(2.0 ** (length - pb.authors_prefix_code_bits(length)) for length in lengths)
    assert ours < math.pi**2 / 12 <= 1.0
    assert ours == pytest.approx(math.pi**2 / 12, rel=1e-4)
    assert theirs > 1.6


def test_prefix_code_bits_pays_for_elias_delta_length() -> None:
    """An Elias delta code spends L + log2 L + 2 log2 log2 L bits roughly: below L + 2 log2 L."""
    for length in (2**10, 2**17, 2**30):
        delta = (
            length
            + math.floor(math.log2(length))
            + 2 * math.floor(math.log2(math.floor(math.log2(length)) + 1))
            + 1
        )
        assert delta <= pb.prefix_code_bits(length) + 1
