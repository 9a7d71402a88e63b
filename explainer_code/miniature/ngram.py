"""Count tables of order 0, 1 and 2, coded as a message and bounded like the miniature's models.

A table of order o predicts the next token from the o tokens before it (order 0: the unigram
table; order 1: a bigram table). Every document is read as `EOD x_1 ... x_T EOD`; a context that
reaches back past the leading EOD is filled with EOD, so documents stay independent.

The table. Counts n(ctx, j) of target j after context ctx on the training set S, with half a
count added everywhere, give q(j | ctx) = (n(ctx, j) + 1/2) / (n(ctx) + V/2). Each entry is
stored as -log2 q(j | ctx) rounded to a grid of step 32 / 2^b bits and clipped to b bits (the
precision b; b = 8: steps of 1/8 bit, the unigram table of `miniature.experiment`); the predictor
renormalises each row of the stored values. The message is the V^o x V entries of b bits each,
in a fixed order: L = b V^(o+1) bits (no entry is left out, so no index is needed).

What is paid for. The order o and the precision b are chosen after scoring the sample, from the
fixed grid ORDERS x PRECISIONS (18 tables), and the smoothing weight from the eight of the alpha
grid. Both choices are paid by the union bound: each of the 18 x 8 (table, alpha) pairs gets
failure probability eps / 144, in the Occam root and in the sample's Hoeffding root alike (a
choice made after scoring the sample must be paid in the sample's term too). The complexity is
the table's message, K = L + 2 log2 L + 1 (`pacbound.prefix_code_bits`). No other bits are added.

    >>> table = fit_table(DocSet.from_docs([np.array([1, 2, 1, 2], dtype=np.uint8)]), 3, 1, 8)
    >>> table.message_bits
    72
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pacbound

from miniature.corpus import EOD, DocSet

ORDERS = (0, 1, 2)
PRECISIONS = (3, 4, 5, 6, 7, 8)  # bits per entry
RANGE_BITS = 32  # an entry covers -log2 p from 0 to 32 bits
# The table is chosen among the grid's 18 after its sample is scored, so the choice is paid as the
# alpha grid's is: eps is split over every (table, alpha) pair, in both roots of the bound.
TABLES = len(ORDERS) * len(PRECISIONS)  # = 18
EPS = 0.05


@dataclass(frozen=True)
class Table:
    """A coded count table: probs[ctx, j] = q(j | ctx), where ctx = sum_i x_i V^(i-1) over the
    o = `order` tokens x_1 (the last) ... x_o before the target; b = `precision` bits per entry."""

    order: int
    precision: int
    vocab: int
    probs: np.ndarray  # (V^k, V), rows sum to 1

    @property
    def message_bits(self) -> int:
        return self.precision * self.vocab ** (self.order + 1)


@dataclass(frozen=True)
class TableBound:
    """A table's bound on the n sampled documents of S (bits per token and top-1 error)."""

    table: Table
    prefix_bits: float  # K = L + 2 log2 L + 1: what enters the bound's complexity
    grid: int  # the (table, alpha) pairs eps is split over: TABLES x 8 (TABLES for top-1)
    smoothed: dict[float, float]  # alpha -> mean smoothed bits on the sample
    bound_bits: float
    best_alpha: float
    sample_top1: float
    bound_top1: float


def _contexts(docs: DocSet, order: int, vocab: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(context id, target, document) of every scored token of `docs`, EOD-padded contexts."""
    stream = docs.stream.astype(np.int64)
    pos = np.arange(1, len(stream))  # every position after the first EOD is a target
    doc = np.repeat(np.arange(docs.n_docs), docs.lengths + 1)
    first = np.repeat(docs.starts, docs.lengths + 1)  # position of the document's first token
    ctx = np.zeros(len(pos), dtype=np.int64)
    for i in range(1, order + 1):  # token i places back, EOD where it lies before the document
        back = pos - i
        tok = np.where(back >= first - 1, stream[np.maximum(back, 0)], EOD)
        ctx += tok * vocab ** (i - 1)
    return ctx, stream[pos], doc


def quantize_probs(p: np.ndarray, precision: int) -> np.ndarray:
    """Round -log2 p to steps of RANGE_BITS / 2^precision bits, clip to precision bits, renormalise
    each row: the probabilities a precision-bit entry describes."""
    step = RANGE_BITS / 2**precision
    code = np.clip(np.round(-np.log2(p) / step), 0, 2**precision - 1)
    q = 2.0 ** (-code * step)
    return q / q.sum(axis=-1, keepdims=True)


def count_probs(S: DocSet, vocab: int, order: int,
                tokens: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> np.ndarray:
    """(V^o, V): q(j | ctx) = (n(ctx, j) + 1/2) / (n(ctx) + V/2) from S's counts, before storing."""
    ctx, tgt, _ = tokens or _contexts(S, order, vocab)
    counts = np.bincount(ctx * vocab + tgt, minlength=vocab ** (order + 1)).astype(float)
    counts = counts.reshape(vocab**order, vocab) + 0.5
    return counts / counts.sum(axis=1, keepdims=True)


def fit_table(S: DocSet, vocab: int, order: int, precision: int,
              tokens: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> Table:
    """The order-`order` table of S's counts (plus 1/2), stored at `precision` bits per entry.
    `tokens`: `_contexts(S, order, vocab)` when the caller has it already."""
    if order not in ORDERS or precision not in PRECISIONS:
        raise ValueError(f"order {order} / precision {precision} not in {ORDERS} x {PRECISIONS}")
    return Table(order, precision, vocab,
                 quantize_probs(count_probs(S, vocab, order, tokens), precision))


def doc_losses(table: Table, docs: DocSet, only: np.ndarray | None = None,
               tokens: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None,
               alphas: tuple[float, ...] | None = None) -> tuple[dict[float, np.ndarray],
                                                                 np.ndarray]:
    """Per-document smoothed bits for alpha 0 and each alpha of `alphas` (default: the grid), and
    the top-1 error; with `only` (document ids), just those documents are scored (others NaN).
    `tokens` (context, target, document), in document order, may be a subset of the documents."""
    ctx, tgt, doc = tokens or _contexts(docs, table.order, table.vocab)
    if only is not None:
        keep = np.zeros(docs.n_docs, dtype=bool)
        keep[only] = True
        sel = keep[doc]
        ctx, tgt, doc = ctx[sel], tgt[sel], doc[sel]
    alphas = tuple(pacbound.ALPHA_GRID) if alphas is None else alphas
    p_true = table.probs[ctx, tgt]
    hit = table.probs.argmax(axis=1)[ctx] == tgt
    rows = [-np.log2(p_true)] + [pacbound.smoothed_nll_bits(p_true, a, table.vocab)
                                 for a in alphas] + [1.0 - hit]
    starts = np.flatnonzero(np.r_[True, doc[1:] != doc[:-1]])  # documents are contiguous
    counts = np.diff(np.r_[starts, len(doc)])
    means = np.add.reduceat(np.vstack(rows), starts, axis=1) / counts
    out = np.full((len(rows), docs.n_docs), np.nan)
    out[:, doc[starts]] = means
    bits = {0.0: out[0]} | {a: out[1 + i] for i, a in enumerate(alphas)}
    return bits, out[-1]


def bound_table(table: Table, S: DocSet, sample: np.ndarray, *, tables: int = TABLES,
                eps: float = EPS,
                tokens: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None) -> TableBound:
    """Bound `table` from the documents `sample` of S, as `miniature.experiment.bounds` bounds a
    model, with confidence eps / (tables x 8) for each (table, alpha) pair (eps / tables for
    top-1): a table picked among `tables` after scoring them on the sample pays for the choice in
    both roots. `tokens`: `_contexts(S, order, vocab)` cut to the tokens of the sampled documents.
    """
    only = None if tokens is not None else np.unique(sample)
    bits, top1 = doc_losses(table, S, only=only, tokens=tokens)
    smoothed = {a: float(bits[a][sample].mean()) for a in pacbound.ALPHA_GRID}
    prefix = pacbound.prefix_code_bits(table.message_bits)
    nats, n, N = prefix * math.log(2), len(sample), S.n_docs
    grid = tables * len(pacbound.ALPHA_GRID)
    per_alpha = {a: pacbound.subsampling_bound(
        train_error=smoothed[a], loss_range=pacbound.loss_range(a, table.vocab),
        complexity_nats=nats, n_population=N, n_sample=n, eps=eps / grid)
        for a in pacbound.ALPHA_GRID}
    best = min(per_alpha, key=per_alpha.get)
    sample_top1 = float(top1[sample].mean())
    b_top1 = pacbound.subsampling_bound(train_error=sample_top1, loss_range=1.0,
                                        complexity_nats=nats, n_population=N, n_sample=n,
                                        eps=eps / tables)
    return TableBound(table, prefix, grid, smoothed, per_alpha[best], best, sample_top1, b_top1)


def best_table(S: DocSet, vocab: int, sample: np.ndarray, orders: tuple[int, ...] = ORDERS,
               ) -> tuple[TableBound, dict[tuple[int, int], TableBound]]:
    """The table of the grid with the lowest bits-per-token bound, and every (order, precision)
    result. Every bound of the grid pays for the choice among TABLES = 18 tables (even when
    `orders` tries fewer of them)."""
    results = {}
    keep = np.zeros(S.n_docs, dtype=bool)
    keep[sample] = True
    for k in orders:
        tokens = _contexts(S, k, vocab)
        sel = keep[tokens[2]]
        scored = tuple(t[sel] for t in tokens)  # the sampled documents' tokens, once per order
        p = count_probs(S, vocab, k, tokens)
        for b in PRECISIONS:
            table = Table(k, b, vocab, quantize_probs(p, b))
            results[(k, b)] = bound_table(table, S, sample, tokens=scored)
    best = min(results.values(), key=lambda r: r.bound_bits)
    return best, results


def heldout_bits(table: Table, docs: DocSet, alpha: float) -> tuple[float, float]:
    """Mean per-document smoothed bits of `table` on `docs` and its standard error."""
    bits, _ = doc_losses(table, docs, alphas=(alpha,) if alpha else ())
    x = bits[alpha]
    return float(x.mean()), float(x.std(ddof=1) / math.sqrt(len(x)))


def exact_bits(src, table: Table, alpha: float) -> float:
    """Population risk (per-document mean smoothed bits) of an order-0 or order-1 table on the
    Markov source `src`, computed exactly by `miniature.bayes.expected_doc_loss`."""
    from miniature.bayes import expected_doc_loss

    if table.order > 1:
        raise ValueError("exact risk only for orders 0 and 1 (the source is order 1)")
    rows = np.broadcast_to(table.probs, (table.vocab, table.vocab))
    loss = -np.log2((1 - alpha) * rows + alpha / table.vocab)
    return expected_doc_loss(src, loss, loss[:, EOD])
