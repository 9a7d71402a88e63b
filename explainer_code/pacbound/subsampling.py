"""The subsampling bound of the authors' code, and a variant that pays for a minimum over a grid.

`subsampling_bound` is the authors' `llm_subsampling_bound` [SOURCE: sublora-bounds-for-llms
sublora/bounds/compute_bounds.py:5-9 @c606ea6], written with explicit names. With
rho = n / (n + N) and failure probability eps split into rho eps and (1 - rho) eps:

    bound = train_error + Delta * ( sqrt((C - ln(rho eps)) / (2 N))
                                   + sqrt(-ln((1 - rho) eps) / (2 n)) )

C is the complexity in nats (the code passes (prefix bits + extra bits) * ln 2), N the number of
documents (or sequences) in the training set, n the number of them sampled and scored, Delta the
range of the loss (the code's argument named `delta`). The first root is an Occam bound over the
N training documents; the second is Hoeffding's inequality for the n sampled ones. Units: C in
nats inside the root; train_error and Delta in bits per token (or Delta = 1 for top-k error rates).

`union_over_grid` takes the minimum over G candidate bounds (one per smoothing weight, say) and
pays for it by a union bound: each candidate is computed at confidence eps / G, which adds ln G
nats to the Occam term and ln G inside the Hoeffding root.
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def subsampling_bound(
    *,
    train_error: float,
    loss_range: float,
    complexity_nats: float,
    n_population: int,
    n_sample: int,
    eps: float = 0.05,
) -> float:
    """The authors' `llm_subsampling_bound(train_error, div, data_size, sample_size, delta, eps)`.

    Arguments map as: train_error -> train_error, complexity_nats -> div, n_population ->
    data_size, n_sample -> sample_size, loss_range -> delta. Returns train_error + loss_range *
    (sqrt((complexity_nats - ln(rho eps)) / (2 n_population))
    + sqrt(-ln((1 - rho) eps) / (2 n_sample))) with rho = n_sample / (n_sample + n_population).

    Example (Chapter 14's worked example, alpha = 1e-4, 100,033.22 + 15 bits):

    >>> c = (100_000 + 2 * math.log2(100_000) + 15) * math.log(2)
    >>> round(subsampling_bound(train_error=5.0, loss_range=28.9046, complexity_nats=c,
    ...                         n_population=8_000_000, n_sample=10_000), 4)
    7.2569
    """
    if n_population < 1 or n_sample < 1:
        raise ValueError("n_population and n_sample must be positive")
    if not 0.0 < eps < 1.0:
        raise ValueError(f"eps must lie in (0, 1), got {eps}")
    if complexity_nats < 0.0 or loss_range < 0.0:
        raise ValueError("complexity_nats and loss_range must be non-negative")
    rho = n_sample / (n_sample + n_population)
    occam = math.sqrt((complexity_nats - math.log(rho * eps)) / (2 * n_population))
    hoeffding = math.sqrt(-math.log((1.0 - rho) * eps) / (2 * n_sample))
    return train_error + loss_range * (occam + hoeffding)


def union_over_grid(
    *,
    train_errors: Sequence[float],
    loss_ranges: Sequence[float],
    complexity_nats: float,
    n_population: int,
    n_sample: int,
    eps: float = 0.05,
) -> float:
    """Minimum over G candidates of `subsampling_bound` at confidence eps / G each (union bound).

    `train_errors[k]` and `loss_ranges[k]` belong to candidate k (e.g. smoothing weight k);
    `complexity_nats` is the model's complexity WITHOUT any charge for the choice of k. Splitting
    eps evenly over the G candidates makes all G bounds hold together with probability at least
    1 - eps, so their minimum holds too. Compared with one candidate at eps, this adds ln G nats
    (log2 G bits) to the Occam term and ln G inside the Hoeffding root.

    >>> c = (100_000 + 2 * math.log2(100_000) + 7) * math.log(2)
    >>> round(union_over_grid(train_errors=[5.0], loss_ranges=[28.9046], complexity_nats=c,
    ...                       n_population=8_000_000, n_sample=10_000, eps=0.05), 4) == round(
    ...     subsampling_bound(train_error=5.0, loss_range=28.9046, complexity_nats=c,
    ...                       n_population=8_000_000, n_sample=10_000, eps=0.05), 4)
    True
    """
    if len(train_errors) != len(loss_ranges) or not train_errors:
        raise ValueError("train_errors and loss_ranges must be non-empty and of equal length")
    grid_size = len(train_errors)
    return min(
        subsampling_bound(
            train_error=te,
            loss_range=lr,
            complexity_nats=complexity_nats,
            n_population=n_population,
            n_sample=n_sample,
            eps=eps / grid_size,
        )
        for te, lr in zip(train_errors, loss_ranges, strict=True)
    )
