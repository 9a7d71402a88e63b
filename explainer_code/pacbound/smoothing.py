"""Prediction smoothing: a bounded log-loss for a language model, as the authors' code computes it.

The model's probability p of the true token is mixed with the uniform distribution over a
vocabulary of V tokens, (1 - alpha) p + alpha / V, before taking -log2 [SOURCE:
sublora-bounds-for-llms sublora/bounds/bound_utils.py:142 @c606ea6]. The mixed probability lies
in [alpha / V, 1 - alpha + alpha / V], so the loss lies in an interval of length
Delta(alpha) = log2(1 + (1 - alpha) V / alpha) [SOURCE: sublora/sublora_pipeline.py:641 @c606ea6].
The code scores the eight alphas of `ALPHA_GRID` [SOURCE: sublora/sublora_pipeline.py:556
@c606ea6] and reports the smallest bound.
"""

from __future__ import annotations

import math
from typing import overload

import numpy as np
import numpy.typing as npt

ALPHA_GRID: tuple[float, ...] = (0.0001, 0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5)
"""The eight smoothing weights the authors' pipeline scores (`alpha_array`), smallest first."""


def _check(alpha: float, vocab: int) -> None:
    if not 0.0 < alpha <= 1.0:
        raise ValueError(f"alpha must lie in (0, 1], got {alpha}")
    if vocab < 1:
        raise ValueError(f"vocab must be positive, got {vocab}")


@overload
def smoothed_nll_bits(p_true: float, alpha: float, vocab: int) -> float: ...
@overload
def smoothed_nll_bits(
    p_true: npt.NDArray[np.floating], alpha: float, vocab: int
) -> npt.NDArray[np.float64]: ...


def smoothed_nll_bits(
    p_true: float | npt.NDArray[np.floating], alpha: float, vocab: int
) -> float | npt.NDArray[np.float64]:
    """Smoothed surprisal of the true token in bits: -log2((1 - alpha) p + alpha / V).

    A float gives a float; a numpy array gives an array of the same shape (float64).
    At p = 1 the loss is -log2(1 - alpha + alpha / V), at p = 0 it is log2(V / alpha).

    >>> round(smoothed_nll_bits(1.0, 0.1, 50_257), 4)
    0.152
    >>> round(smoothed_nll_bits(0.0, 0.1, 50_257), 4)
    18.939
    """
    _check(alpha, vocab)
    if isinstance(p_true, np.ndarray):
        p = p_true.astype(np.float64)
        if np.any((p < 0.0) | (p > 1.0)):
            raise ValueError("probabilities must lie in [0, 1]")
        return -np.log2((1.0 - alpha) * p + alpha / vocab)
    p_f = float(p_true)
    if not 0.0 <= p_f <= 1.0:
        raise ValueError(f"probability must lie in [0, 1], got {p_f}")
    return -math.log2((1.0 - alpha) * p_f + alpha / vocab)


def loss_range(alpha: float, vocab: int) -> float:
    """Length of the interval the smoothed loss can take: log2(1 + (1 - alpha) V / alpha) bits.

    It equals smoothed_nll_bits(0) - smoothed_nll_bits(1), the loss range the bound multiplies.

    >>> round(loss_range(0.0001, 50_257), 4)
    28.9046
    >>> round(loss_range(0.5, 50_257), 4)
    15.6171
    """
    _check(alpha, vocab)
    return math.log2(1.0 + (1.0 - alpha) * vocab / alpha)
