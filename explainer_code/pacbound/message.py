"""The message length of a quantized vector, counted as the authors' code counts it.

[SOURCE: sublora-bounds-for-llms sublora/bounds/quantize_fns.py, @c606ea6]
`quantize_vector` -> `do_arithmetic_encoding` and `get_message_len`. For d codes over `levels`
symbols with empirical frequencies p_k = n_k / d and empirical entropy H = -sum_k p_k log2 p_k:

    coded bits     = ceil(d H) + 1            (the code's formula for d > 10**4; for smaller d it
                                               runs a coder whose length is the same formula)
    codebook bits  = levels x 16              (one float16 per level)
    count bits     = levels x ceil(log2 d)    (one count per level, each in [0, d])
    message bits   = coded + codebook + counts

The bound then pays a prefix code on top, L + 2 log2 L (Chapter 11; `prefix_code_bits`), and a
few extra bits for the choices of hyperparameters. Those are not part of this count.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from pacbound.arithmetic import symbol_counts

CODEBOOK_ENTRY_BITS: int = 16
"""Bits per codebook entry: the codebook is stored as float16."""


def empirical_entropy_bits(codes: npt.ArrayLike, levels: int) -> float:
    """Entropy of the empirical symbol frequencies, in bits per symbol: -sum_k p_k log2 p_k.

    >>> empirical_entropy_bits([0, 0, 1, 1], 3)
    1.0
    """
    counts = symbol_counts(codes, levels)
    d = int(counts.sum())
    if d == 0:
        raise ValueError("no codes")
    p = counts[counts > 0] / d
    return float(-(p * np.log2(p)).sum())


class MessageParts(NamedTuple):
    """The parts of the message, in bits, as the authors' code counts them."""

    coded: int  # ceil(d H) + 1: the arithmetic-coded symbols
    codebook: int  # levels x 16: the float16 codebook
    counts: int  # levels x ceil(log2 d): the symbol counts, which fix the coder's model

    @property
    def total(self) -> int:
        """coded + codebook + counts."""
        return self.coded + self.codebook + self.counts


def message_parts(codes: npt.ArrayLike, levels: int) -> MessageParts:
    """Each part of the message for the quantized vector `codes` (integers in [0, levels)).

    >>> message_parts([0, 1, 1, 2] * 5_000, 3)
    MessageParts(coded=30001, codebook=48, counts=45)
    """
    if levels < 1:
        raise ValueError("levels must be at least 1")
    d = int(np.asarray(codes).size)
    if d == 0:
        raise ValueError("no codes")
    entropy = empirical_entropy_bits(codes, levels)
    coded = math.ceil(d * entropy) + 1
    count_bits = math.ceil(math.log2(d)) * levels
    return MessageParts(coded=coded, codebook=levels * CODEBOOK_ENTRY_BITS, counts=count_bits)


def message_length_bits(codes: npt.ArrayLike, levels: int) -> int:
    """Total message length in bits: ceil(d H) + 1 + 16 levels + levels ceil(log2 d).

    For d = 50,000 and 11 levels the fixed parts are 176 + 176 bits.

    >>> message_length_bits([0, 1, 1, 2] * 5_000, 3)
    30094
    """
    return message_parts(codes, levels).total
