"""A real arithmetic coder: integer arithmetic, a static frequency model, bytes out and back.

The coder keeps an interval [low, high] of 32-bit integers. Each symbol s shrinks it to the part
that s owns under the model, a share counts[s] / sum(counts) of the width. Whenever the interval
lies entirely in the lower or upper half of the 32-bit range, the leading bit of every number in
it is settled: the coder emits that bit and doubles the interval. When the interval straddles the
middle but sits within the middle half (the "underflow" case), the bit is not yet known; the coder
doubles the interval around the middle and remembers one pending bit, which is emitted, inverted,
after the next settled bit. This is the scheme of Witten, Neal and Cleary, "Arithmetic coding
for data compression", Communications of the ACM 30(6), 1987.

Because the interval is at least a quarter of the range after every renormalisation, and the
counts sum to at most 2**30, every symbol with a nonzero count keeps a nonempty sub-interval.
Let I = sum_i -log2(counts[s_i] / total), which for the counts of the sequence itself is d H,
with H the empirical entropy, and I' >= I the information of the coder's rounded final interval
(I plus a rounding loss below 2 total / (2**30 counts[s_i]) bits per symbol). The code length
lies in (I - 1, I' + 2]: each of the k doublings yields one bit (settled or pending), the final
interval is wider than a quarter of the range and no wider than all of it, so
I' - 2 < k <= I', and the termination adds one bit ("1", its 0 left out) or two ("01").
The upper end is attained: 1,000 copies of one symbol with counts [1] carry 0 bits and get a
2-bit code. The lower end is not: the length is strictly above I - 1. On 1,500 random cases
(ch16_coder_limits.py) the length minus d H ran from -0.9868 to +2.0000 bits.

The decoder needs the counts and the number of symbols; the message must carry both (Chapter 16).
The decoder reads zeros past the end of the data, so the termination's final zero is not
written; the bits are packed into bytes, most significant bit first, the last byte padded with
zeros. For a sequence coded with its own counts the length in bits lies within two bits of the
authors' count ceil(d H) + 1.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

PRECISION: int = 32
"""Bits of the coder's state: low and high are integers in [0, 2**32)."""

_WHOLE = 1 << PRECISION
_HALF = 1 << (PRECISION - 1)
_QUARTER = 1 << (PRECISION - 2)

MAX_TOTAL: int = _QUARTER
"""Largest allowed sum of counts (2**30): the interval never shrinks below a quarter."""


def _cumulative(counts: npt.ArrayLike) -> list[int]:
    """Validate `counts` and return [0, c_0, c_0 + c_1, ..., total] as Python ints."""
    arr = np.asarray(counts)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError("counts must be a non-empty 1-D sequence")
    if not np.issubdtype(arr.dtype, np.integer) and not np.all(arr == np.floor(arr)):
        raise ValueError("counts must be integers")
    ints = [int(c) for c in arr.tolist()]
    if any(c < 0 for c in ints):
        raise ValueError("counts must be non-negative")
    cum = [0]
    for c in ints:
        cum.append(cum[-1] + c)
    if cum[-1] == 0:
        raise ValueError("counts must not all be zero")
    if cum[-1] > MAX_TOTAL:
        raise ValueError(f"counts sum to {cum[-1]}, more than the coder's limit 2**30")
    return cum


def _symbol_list(symbols: npt.ArrayLike, n_symbols: int) -> list[int]:
    """The symbols as a list of Python ints, each checked to lie in [0, n_symbols)."""
    arr = np.asarray(symbols).ravel()
    if arr.size and not np.issubdtype(arr.dtype, np.integer):
        raise ValueError("symbols must be integers")
    seq = [int(s) for s in arr.tolist()]
    if seq and (min(seq) < 0 or max(seq) >= n_symbols):
        raise ValueError(f"symbols must lie in [0, {n_symbols})")
    return seq


def encode_to_bits(symbols: npt.ArrayLike, counts: npt.ArrayLike) -> list[int]:
    """The coder's output as a list of bits.

    >>> encode_to_bits([0, 1, 0, 0], [3, 1])
    [1, 0, 0, 1, 1]
    """
    cum = _cumulative(counts)
    total = cum[-1]
    seq = _symbol_list(symbols, len(cum) - 1)
    low, high = 0, _WHOLE - 1
    pending = 0  # underflow steps whose bit is not yet known
    out: list[int] = []
    for s in seq:
        c_lo, c_hi = cum[s], cum[s + 1]
        if c_lo == c_hi:
            raise ValueError(f"symbol {s} has count 0 and cannot be coded")
        span = high - low + 1
        high = low + span * c_hi // total - 1
        low = low + span * c_lo // total
        while True:
            if high < _HALF:  # both in the lower half: the next bit is 0
                out.append(0)
                out.extend([1] * pending)
                pending = 0
            elif low >= _HALF:  # both in the upper half: the next bit is 1
                out.append(1)
                out.extend([0] * pending)
                pending = 0
                low -= _HALF
                high -= _HALF
            elif low >= _QUARTER and high < _HALF + _QUARTER:  # underflow: straddles the middle
                pending += 1
                low -= _QUARTER
                high -= _QUARTER
            else:
                break
            low = 2 * low
            high = 2 * high + 1
    # Termination: now low < QUARTER <= HALF <= high, or low < HALF < HALF + QUARTER <= high.
    # Two more bits, "01" or "10" (each followed by the pending bits), name QUARTER or HALF: a
    # point inside [low, high], whatever the decoder reads after them. The decoder reads zeros
    # past the end, so the final 0 of "10" is left out. The pending zeros before it are written
    # although the padding would supply them too: that keeps the length within (-1, +2] bits of
    # the interval's information content instead of shorter by luck.
    if low < _QUARTER:
        out.append(0)
        out.extend([1] * (pending + 1))
    else:
        out.append(1)
        out.extend([0] * pending)
    return out


def arithmetic_code_length_bits(symbols: npt.ArrayLike, counts: npt.ArrayLike) -> int:
    """Number of bits the coder emits for `symbols` (before padding to whole bytes).

    >>> arithmetic_code_length_bits([0, 1, 0, 0], [3, 1])
    5
    """
    return len(encode_to_bits(symbols, counts))


def _pack(bits: Sequence[int]) -> bytes:
    """Bits to bytes, most significant bit first, the last byte padded with zeros."""
    if not bits:
        return b""
    return np.packbits(np.asarray(bits, dtype=np.uint8)).tobytes()


def arithmetic_encode(symbols: npt.ArrayLike, counts: npt.ArrayLike) -> bytes:
    """Arithmetic-code `symbols` (integers in [0, len(counts))) under the static model `counts`.

    Symbol s has probability counts[s] / sum(counts); a symbol with count 0 cannot be coded.
    Output length: about sum_i -log2 p(s_i) + 2 bits, rounded up to whole bytes.

    >>> arithmetic_encode([0, 1, 0, 0], [3, 1]).hex()
    '98'
    """
    return _pack(encode_to_bits(symbols, counts))


def arithmetic_decode(data: bytes, counts: npt.ArrayLike, length: int) -> npt.NDArray[np.int64]:
    """Decode `length` symbols from `data` with the same `counts` the encoder used.

    >>> arithmetic_decode(bytes.fromhex("98"), [3, 1], 4).tolist()
    [0, 1, 0, 0]
    """
    if length < 0:
        raise ValueError("length must be non-negative")
    cum = _cumulative(counts)
    total = cum[-1]
    bits = np.unpackbits(np.frombuffer(bytes(data), dtype=np.uint8)).tolist()
    n_bits = len(bits)
    value = 0
    for i in range(PRECISION):
        value = 2 * value + (bits[i] if i < n_bits else 0)
    pos = PRECISION
    low, high = 0, _WHOLE - 1
    out = [0] * length
    for k in range(length):
        span = high - low + 1
        # The largest scaled count c with low + span * c // total <= value.
        target = ((value - low + 1) * total - 1) // span
        s = bisect_right(cum, target) - 1  # cum[s] <= target < cum[s + 1], skips empty symbols
        out[k] = s
        high = low + span * cum[s + 1] // total - 1
        low = low + span * cum[s] // total
        while True:
            if high < _HALF:
                pass
            elif low >= _HALF:
                low -= _HALF
                high -= _HALF
                value -= _HALF
            elif low >= _QUARTER and high < _HALF + _QUARTER:
                low -= _QUARTER
                high -= _QUARTER
                value -= _QUARTER
            else:
                break
            low = 2 * low
            high = 2 * high + 1
            value = 2 * value + (bits[pos] if pos < n_bits else 0)
            pos += 1
    return np.asarray(out, dtype=np.int64)


def symbol_counts(symbols: npt.ArrayLike, n_symbols: int) -> npt.NDArray[np.int64]:
    """How often each of 0 .. n_symbols - 1 occurs: the empirical model the message must carry.

    >>> symbol_counts([0, 2, 2, 1, 2], 4).tolist()
    [1, 1, 3, 0]
    """
    arr = np.asarray(symbols, dtype=np.int64).ravel()
    if arr.size and (arr.min() < 0 or arr.max() >= n_symbols):
        raise ValueError(f"symbols must lie in [0, {n_symbols})")
    return np.bincount(arr, minlength=n_symbols).astype(np.int64)
