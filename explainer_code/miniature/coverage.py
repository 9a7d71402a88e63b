"""Does the bound hold as often as it promises? Many independent training sets, one bound each.

The promise: with probability at least 1 - epsilon over the draw of the training set S (and of
the n documents scored), the population risk of the predictor the bound covers lies below the
bound. On the Markov source the population risk of a count table of order 0 or 1 is exact
(`miniature.ngram.exact_bits`), so each draw can be checked without Monte Carlo error.

One draw: N documents from the source (seed hash_seed(seed, i)), n of them sampled with
replacement, the table of `miniature.ngram.best_table` over orders 0 and 1 (the choice paid for
as in that module), its bound, its smoothed empirical risk on the sample, and its exact smoothed
population risk at the alpha the bound chose.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from miniature import ngram
from miniature.corpus import MarkovSource, hash_seed, markov_docset


@dataclass(frozen=True)
class Draws:
    """One entry per training set: bound, empirical and exact population risk (bits per token)."""

    bound: np.ndarray
    empirical: np.ndarray
    true: np.ndarray
    order: np.ndarray  # the order of the chosen table
    precision: np.ndarray  # its bits per entry

    @property
    def violations(self) -> int:
        """Draws where the bound fell below the true risk of the predictor it covers."""
        return int((self.bound < self.true).sum())

    @property
    def optimistic(self) -> int:
        """Draws where the empirical risk alone fell below the true risk."""
        return int((self.empirical < self.true).sum())


def draw(src: MarkovSource, n_docs: int, n_sample: int, seed: int) -> tuple[float, float, float,
                                                                            int, int]:
    """(bound, empirical, true, order, precision) for one training set drawn with `seed`."""
    S = markov_docset(src, n_docs, seed=seed, block=n_docs)
    sample = np.random.default_rng(seed).integers(0, n_docs, size=n_sample)
    best, _ = ngram.best_table(S, src.vocab, sample, orders=(0, 1))
    true = ngram.exact_bits(src, best.table, best.best_alpha)
    return (best.bound_bits, best.smoothed[best.best_alpha], true, best.table.order,
            best.table.precision)


def coverage(src: MarkovSource, n_sets: int, n_docs: int, n_sample: int, seed: int) -> Draws:
    """`n_sets` independent draws, training set i seeded by hash_seed(seed, i)."""
    rows = [draw(src, n_docs, n_sample, hash_seed(seed, i)) for i in range(n_sets)]
    cols = list(zip(*rows, strict=True))
    return Draws(*(np.array(c) for c in cols))
