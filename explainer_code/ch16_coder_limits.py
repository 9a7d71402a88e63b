"""Chapter 16: how closely the real coder meets ceil(d H) + 1, and what it cannot do.

Claims, numbered as the output blocks:
  [1] On 1,500 random cases (alphabet of 2-12 symbols, 1-400 symbols, each sequence coded with
      its own counts) the coder's length in bits, against d H = -log2 W (W the product of the
      model probabilities of the symbols sent) and against the authors' count ceil(d H) + 1
      [SOURCE: sublora/bounds/quantize_fns.py:172-199 @c606ea6]: the extremes of length - d H,
      and how often the length exceeds the authors' count.
  [2] The worst case for the upper end: 1,000 copies of one symbol with counts [1] carry 0 bits
      of information and cost 2 bits.
  [3] The code is not self-delimiting: the decoder, told the number of symbols, reads past the
      end of the code, so random bits that follow it can change what it decodes. The cause is a
      design choice of pacbound.arithmetic: termination leaves out the final 0 of "10", which the
      decoder's zero padding supplies; writing one 0 after the code makes every tail harmless.
Seed 0 for [1], seed 1 for [3]. Deterministic: integer coding, exact counts; d H printed to four
decimals.
"""

from __future__ import annotations

import math

import numpy as np
import pacbound as pb
from pacbound.arithmetic import encode_to_bits
from script_glue import glue

CASES, MAX_SYMBOLS, MAX_LENGTH = 1_500, 12, 400
TAIL_CASES, TAIL_BITS = 200, 16


def random_case(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A sequence drawn from random probabilities and its own counts."""
    k = int(rng.integers(2, MAX_SYMBOLS + 1))
    n = int(rng.integers(1, MAX_LENGTH + 1))
    seq = rng.choice(k, size=n, p=rng.dirichlet(np.ones(k)))
    return seq, pb.symbol_counts(seq, k)


def info_bits(seq: np.ndarray, counts: np.ndarray) -> float:
    """d H = sum of -log2(counts[s] / total) over the sequence."""
    total = counts.sum()
    return float(-np.log2(counts[seq] / total).sum())


def pack(bits: list[int]) -> bytes:
    bits = bits + [0] * (-len(bits) % 8)
    return bytes(int("".join(map(str, bits[i : i + 8])), 2) for i in range(0, len(bits), 8))


def main() -> None:
    print("Chapter 16 -- the real coder against ceil(d H) + 1 (ch16_coder_limits.py)")

    # [1]
    rng = np.random.default_rng(0)
    gaps, over = [], {1: 0, 2: 0}
    for _ in range(CASES):
        seq, counts = random_case(rng)
        n_bits = pb.arithmetic_code_length_bits(seq, counts)
        dh = info_bits(seq, counts)
        gaps.append(n_bits - dh)
        excess = n_bits - (math.ceil(dh - 1e-9) + 1)
        if excess > 0:
            over[excess] = over.get(excess, 0) + 1
    gaps_a = np.array(gaps)
    print(f"[1] {glue('cases', CASES, ',')} random cases (2-{MAX_SYMBOLS} symbols, "
          f"1-{MAX_LENGTH} long, own counts):")  # fmt: skip
    print(f"    length - d H from {glue('gap_min', gaps_a.min(), '+.4f')} to "
          f"{glue('gap_max', gaps_a.max(), '+.4f')} bits")  # fmt: skip
    print(f"    longer than the authors' ceil(d H) + 1 by 1 bit in {glue('longer_by1', over[1])} "
          f"cases, by 2 bits in {glue('longer_by2', over[2])}; never shorter than d H - 1: "
          f"{bool(gaps_a.min() > -1)}")  # fmt: skip
    assert gaps_a.max() <= 2 and gaps_a.min() > -1 and over[2] == 0 and over[1] > 0

    # [2]
    seq, counts = np.zeros(1_000, dtype=np.int64), np.array([1])
    n_bits = pb.arithmetic_code_length_bits(seq, counts)
    back = pb.arithmetic_decode(pb.arithmetic_encode(seq, counts), counts, len(seq))
    print(f"[2] {glue('copies', len(seq), ',')} copies of one symbol, counts [1]: d H = "
          f"{glue('copies_dh', abs(info_bits(seq, counts)), '.4f')} bits, "
          f"code {glue('copies_code_bits', n_bits)} bits; decoded back: "
          f"{bool((back == seq).all())}")  # fmt: skip
    assert n_bits == 2 and (back == seq).all()

    # [3]
    rng = np.random.default_rng(1)
    failures = failures_with_zero = 0
    for _ in range(TAIL_CASES):
        seq, counts = random_case(rng)
        code = encode_to_bits(seq, counts)
        tail = [int(b) for b in rng.integers(0, 2, TAIL_BITS)]
        back = pb.arithmetic_decode(pack(code + tail), counts, len(seq))
        failures += int(not np.array_equal(back, seq))
        back = pb.arithmetic_decode(pack([*code, 0, *tail]), counts, len(seq))
        failures_with_zero += int(not np.array_equal(back, seq))
    print(f"[3] {glue('tail_cases', TAIL_CASES)} random cases with "
          f"{glue('tail_bits', TAIL_BITS)} random bits after the code: "
          f"{glue('tail_failures', failures)} decoded wrongly")  # fmt: skip
    print("    the cause is the termination's dropped final 0 (the decoder pads with zeros): "
          f"with one 0 written after every code, "
          f"{glue('tail_failures_with_zero', failures_with_zero)} of "
          f"{glue('tail_cases_with_zero', TAIL_CASES)} decoded wrongly")  # fmt: skip
    assert failures > 0 and failures_with_zero == 0
    print("All assertions passed.")


if __name__ == "__main__":
    main()
