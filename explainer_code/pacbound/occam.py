"""Hoeffding's inequality, the Occam bound, prefix codes and Kraft sums (Chapters 9-11).

Conventions: a loss takes values in an interval of width `loss_range` (1 for a 0-1 error), `n`
is the number of independent training samples, `eps` the probability with which the bound may
fail, and complexities are in bits (multiplied by ln 2 to become nats inside the square root).

- Hoeffding (one fixed hypothesis): with probability at least 1 - eps over the sample,
  R(h) <= R_hat(h) + loss_range * sqrt(ln(1/eps) / (2 n)).
- Occam (a countable class with a prefix code that spends K(h) bits on h): with probability at
  least 1 - eps, simultaneously for every h,
  R(h) <= R_hat(h) + loss_range * sqrt((K(h) ln 2 + ln(1/eps)) / (2 n)).
  With K(h) = log2 k for each of k hypotheses this is the union bound over a finite class.
- The prefix cost of a message of L bits. The authors charge L + 2 log2 L
  [SOURCE: sublora-bounds-for-llms sublora/bounds/bound_utils.py:222 @c606ea6]
  (`authors_prefix_code_bits`). Over every length L >= 1 (2^L messages each) those lengths have
  a Kraft sum of sum 1/L^2 = pi^2/6 > 1, so they are not the lengths of any prefix code; one more
  bit halves the sum to pi^2/12 < 1. The book's bounds charge L + 2 log2 L + 1
  (`prefix_code_bits`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable

LN2: float = math.log(2.0)


def _check_common(n: int, eps: float, loss_range: float) -> None:
    if n < 1:
        raise ValueError(f"n must be a positive integer, got {n}")
    if not 0.0 < eps < 1.0:
        raise ValueError(f"eps must lie strictly between 0 and 1, got {eps}")
    if loss_range <= 0.0:
        raise ValueError(f"loss_range must be positive, got {loss_range}")


def hoeffding_bound(train_error: float, *, n: int, eps: float, loss_range: float = 1.0) -> float:
    """One fixed hypothesis: train_error + loss_range * sqrt(ln(1/eps) / (2 n)).

    Holds with probability at least 1 - eps over n i.i.d. samples of a loss bounded in an
    interval of width `loss_range` (Hoeffding 1963). Example: 10 % training error on 1,000
    samples at eps = 0.05 gives 0.1 + sqrt(ln 20 / 2000) = 0.1387.

    >>> round(hoeffding_bound(0.1, n=1000, eps=0.05), 4)
    0.1387
    """
    _check_common(n, eps, loss_range)
    return train_error + loss_range * math.sqrt(math.log(1.0 / eps) / (2.0 * n))


def occam_bound(
    train_error: float,
    *,
    complexity_bits: float,
    n: int,
    eps: float,
    loss_range: float = 1.0,
) -> float:
    """Countable class with a prefix code: R_hat + range * sqrt((K ln 2 + ln(1/eps)) / (2 n)).

    K = `complexity_bits` is the length of h's codeword in a prefix-free code fixed before the
    data; the bound holds for all h at once with probability at least 1 - eps. K = 0 gives
    `hoeffding_bound`. Example: a 1,000-bit hypothesis with 10 % training error on 100,000
    samples at eps = 0.05 gives 0.1 + sqrt((1000 ln 2 + ln 20) / 200000) = 0.1590.

    >>> round(occam_bound(0.1, complexity_bits=1000, n=100_000, eps=0.05), 4)
    0.159
    """
    _check_common(n, eps, loss_range)
    if complexity_bits < 0.0:
        raise ValueError(f"complexity_bits must be non-negative, got {complexity_bits}")
    nats = complexity_bits * LN2 + math.log(1.0 / eps)
    return train_error + loss_range * math.sqrt(nats / (2.0 * n))


def authors_prefix_code_bits(message_bits: float) -> float:
    """What the authors' code charges for an L-bit message: L + 2 log2 L (0 for L = 0).

    The 2 log2 L bits stand for writing down the length L first, so that a decoder knows where
    the message ends. These lengths violate Kraft's inequality over all L (see
    `prefix_code_bits`); use this function only to reproduce the authors' numbers. Lengths
    between 0 and 1 are rejected: there 2 log2 L is negative. Example: a message of 115,840 bits
    costs 115,840 + 2 log2 115,840 = 115,873.6 bits.

    >>> round(authors_prefix_code_bits(115_840), 1)
    115873.6
    """
    if message_bits == 0:
        return 0.0
    if message_bits < 1:
        raise ValueError(f"message_bits must be 0 or at least 1, got {message_bits}")
    return message_bits + 2.0 * math.log2(message_bits)


def prefix_code_bits(message_bits: float) -> float:
    """A valid prefix-code length for an L-bit message: K = L + 2 log2 L + 1 bits (L >= 1).

    Kraft's inequality over every message of every length L >= 1 (2^L messages of length L):
    sum_L 2^L 2^-(L + 2 log2 L + 1) = (1/2) sum_L 1/L^2 = pi^2/12 < 1, so a prior 2^-K(h) is a
    sub-probability and the Occam bound applies. The authors' L + 2 log2 L has the sum pi^2/6 > 1
    (`authors_prefix_code_bits`); the one extra bit is the repair. Example: a message of 115,840
    bits costs 115,840 + 2 log2 115,840 + 1 = 115,874.6 bits.

    >>> round(prefix_code_bits(115_840), 1)
    115874.6
    """
    if message_bits < 1:
        raise ValueError(f"message_bits must be at least 1, got {message_bits}")
    return message_bits + 2.0 * math.log2(message_bits) + 1.0


def kraft_sum(lengths: Iterable[float]) -> float:
    """Kraft sum of codeword lengths: sum over codewords of 2^(-l).

    A prefix-free binary code with these lengths exists if and only if the sum is at most 1
    (Kraft's inequality). Example: lengths 1, 2, 3, 3 (codewords 0, 10, 110, 111) sum to
    1/2 + 1/4 + 1/8 + 1/8 = 1.

    >>> kraft_sum([1, 2, 3, 3])
    1.0
    """
    terms = []
    for length in lengths:
        if length < 0:
            raise ValueError(f"codeword lengths must be non-negative, got {length}")
        terms.append(2.0 ** (-length))
    return math.fsum(terms)
