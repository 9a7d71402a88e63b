"""Erratum C9: the authors' complexity L + 2 log2 L is not the length of a prefix code.

Claims, numbered as the output blocks:
  [1] Lengths K(L) = L + 2 log2 L for all 2^L messages of every length L >= 1
      [SOURCE: sublora/bounds/bound_utils.py:222 @c606ea6] have Kraft sum sum_L 1 / L^2, which
      already exceeds 1 once messages of 1 and 2 bits are both allowed and tends to pi^2 / 6;
      by the Kraft-McMillan inequality no uniquely decodable code has those lengths. One more
      bit, K = L + 2 log2 L + 1, halves the sum to pi^2 / 12 <= 1, and it is never shorter than
      a real prefix code: Elias gamma for L (2 floor(log2 L) + 1 bits), then the L bits.
  [2] What the overspent prior does to the authors' guarantee: the Occam part of the failure
      probability, rho eps, is multiplied by the Kraft sum, so the bound holds with probability
      at least 1 - eps - (pi^2/6 - 1) rho eps instead of 1 - eps (rho = n / (n + N), the
      authors' split; N = 8,009,762, n = 10,000, eps = 0.05).
  [3] What one bit changes in the bound's value: the subsampling bound with the authors' K and
      with the valid K at the SubLoRA-sized message of Chapter 17 (L = 115,826 bits; alpha =
      0.1, 55 extra bits, train error 5.0 bits per token) and at Chapter 14's inputs (L = 10^5,
      N = 8,000,000, 15 extra bits at alpha = 0.0001).
Deterministic: exact fractions and closed-form bounds, no randomness.
"""

from __future__ import annotations

import math
from fractions import Fraction

import pacbound as pb

N_DOCS, N_SAMPLE, EPS = 8_009_762, 10_000, 0.05  # [SOURCE: sublora_pipeline.py:59; bounds yaml:36]
VOCAB = pb.GPT2_VOCAB_SIZE
TRAIN_ERROR = 5.0  # bits per token, the toy value of Chapters 14 and 17
# (label, message bits L, N, smoothing weight alpha, extra bits charged at that alpha)
CASES = [
    ("Chapter 17's message", 115_826, N_DOCS, 0.1, 55),
    ("Chapter 14's inputs", 100_000, 8_000_000, 0.0001, 15),
]


def authors_kraft_sum(max_length: int) -> Fraction:
    """sum over L = 1..max_length of 2^L messages x 2^-(L + 2 log2 L) = sum 1 / L^2, exactly."""
    return sum((Fraction(1, length * length) for length in range(1, max_length + 1)), Fraction(0))


def gamma_code_bits(message_bits: int) -> int:
    """Elias gamma header for the length, then the message: 2 floor(log2 L) + 1 + L bits."""
    return 2 * (message_bits.bit_length() - 1) + 1 + message_bits


def bound(message_bits: float, prefix, n_docs: int, alpha: float, extra_bits: int) -> float:
    complexity = (prefix(message_bits) + extra_bits) * math.log(2)
    return pb.subsampling_bound(
        train_error=TRAIN_ERROR,
        loss_range=pb.loss_range(alpha, VOCAB),
        complexity_nats=complexity,
        n_population=n_docs,
        n_sample=N_SAMPLE,
        eps=EPS,
    )


def main() -> None:
    print("Erratum C9 -- the authors' prefix code is not a prefix code (ch17_prefix_code.py)")

    # [1] Kraft sums
    print("[1] Kraft sum of the lengths K(L) over all 2^L messages of each length L = 1..L_max:")
    print("      L_max   authors' L + 2 log2 L    book's L + 2 log2 L + 1")
    for max_length in (1, 2, 3, 10, 1_000):
        s = authors_kraft_sum(max_length)
        print(f"    {max_length:7,}   {float(s):>20.4f}    {float(s) / 2:>22.4f}")
        if max_length >= 2:
            assert s > 1 >= s / 2
    limit = math.pi**2 / 6
    print(f"    limits: pi^2/6 = {limit:.4f} and pi^2/12 = {limit / 2:.4f}")
    one_bit = authors_kraft_sum(1)
    print(f"    the 2 one-bit messages alone already spend the whole budget: 2 x 2^-1 = "
          f"{float(one_bit):g}; the 4 two-bit messages find no room left")  # fmt: skip
    print(f"    log2(pi^2/6) = {math.log2(limit):.3f} bits per message would have been the "
          "smallest uniform repair; the book charges 1 bit")  # fmt: skip
    lengths = (1, 2, 3, 100, 115_826, 10**8)
    gaps = [pb.prefix_code_bits(x) - gamma_code_bits(x) for x in lengths]
    print(f"    L + 2 log2 L + 1 minus the Elias-gamma prefix code's length, L in {lengths}: "
          f"from {min(gaps):.3f} to {max(gaps):.3f} bits (never negative)")  # fmt: skip
    assert one_bit == 1 and min(gaps) >= 0
    assert abs(float(authors_kraft_sum(1_000)) - limit) < 1e-3

    # [2] the confidence
    rho = N_SAMPLE / (N_SAMPLE + N_DOCS)
    extra_failure = (limit - 1) * rho * EPS
    print(f"[2] The guarantee: rho = n / (n + N) = {rho:.4e}; the Occam part of eps, rho eps = "
          f"{rho * EPS:.4e}, is multiplied by the Kraft sum pi^2/6")  # fmt: skip
    print(f"    the authors' bound holds with probability at least 1 - eps - "
          f"(pi^2/6 - 1) rho eps = {1 - EPS - extra_failure:.6f}, not {1 - EPS}")  # fmt: skip
    print(f"    extra failure probability {extra_failure:.2e}")
    assert 0 < extra_failure < 1e-4

    # [3] the bound's value
    print("[3] The bound (bits per token) with the authors' K and with the book's valid K:")
    for label, msg, n_docs, alpha, extra in CASES:
        theirs = bound(msg, pb.authors_prefix_code_bits, n_docs, alpha, extra)
        ours = bound(msg, pb.prefix_code_bits, n_docs, alpha, extra)
        print(f"    {label}: L = {msg:,}, N = {n_docs:,}, alpha = {alpha}, {extra} extra bits: "
              f"K = {pb.authors_prefix_code_bits(msg):,.2f} gives {theirs:.6f}; "
              f"K = {pb.prefix_code_bits(msg):,.2f} gives {ours:.6f}; "
              f"difference {ours - theirs:.1e}")  # fmt: skip
        assert 0 < ours - theirs < 1e-5
    print("    one bit moves the bound in the sixth decimal: the erratum is about validity, "
          "not about the size of the number")  # fmt: skip
    print("All assertions passed.")


if __name__ == "__main__":
    main()
