"""The miniature's count tables, gap decomposition, copying source and coverage draws (Chapter 22):
exact risks against Monte Carlo, contexts that never cross a document boundary, a message length
that counts every entry, a decomposition that adds up, and bounds that hold."""

from __future__ import annotations

import math

import miniature  # noqa: F401  (pins CPU kernels before torch)
import numpy as np
import pacbound
import pytest
from miniature import coverage, ngram
from miniature.corpus import EOD, DocSet, RepeatSource, make_markov_source, markov_docset
from miniature.experiment import gap_parts


@pytest.fixture(scope="module")
def src():
    return make_markov_source(vocab=8, concentration=0.3, p_end=1 / 8, seed=4)


def test_contexts_are_padded_with_eod_at_each_document() -> None:
    S = DocSet.from_docs([np.array([3, 4], dtype=np.uint8), np.array([5], dtype=np.uint8)])
    ctx, tgt, doc = ngram._contexts(S, 2, 8)
    # targets: 3, 4, EOD | 5, EOD; contexts (previous, one before) as id prev + 8 * before
    assert tgt.tolist() == [3, 4, EOD, 5, EOD]
    assert doc.tolist() == [0, 0, 0, 1, 1]
    assert ctx.tolist() == [0, 3, 4 + 8 * 3, 0, 5]


def test_table_message_and_rows() -> None:
    S = DocSet.from_docs([np.array([1, 2, 1, 2], dtype=np.uint8)])
    for order, bits in [(0, 8), (1, 3), (2, 5)]:
        t = ngram.fit_table(S, 3, order, bits)
        assert t.message_bits == bits * 3 ** (order + 1)
        assert np.allclose(t.probs.sum(axis=1), 1.0)
    with pytest.raises(ValueError, match="not in"):
        ngram.fit_table(S, 3, 3, 8)


def test_quantized_probs_follow_the_grid() -> None:
    p = np.array([[0.5, 0.25, 0.125, 0.125]])
    q = ngram.quantize_probs(p, 8)  # steps of 1/8 bit: these powers of two are exact
    assert np.allclose(q, p)
    coarse = ngram.quantize_probs(np.array([[0.7, 0.2, 0.1]]), 3)  # steps of 4 bits
    assert np.allclose(coarse.sum(), 1.0) and coarse[0, 0] > coarse[0, 2]


def test_exact_table_risk_matches_monte_carlo(src) -> None:
    S = markov_docset(src, 3_000, seed=1)
    fresh = markov_docset(src, 20_000, seed=2)
    for order in (0, 1):
        t = ngram.fit_table(S, src.vocab, order, 6)
        mean, se = ngram.heldout_bits(t, fresh, 0.25)
        assert abs(mean - ngram.exact_bits(src, t, 0.25)) < 4 * se
    with pytest.raises(ValueError, match="orders 0 and 1"):
        ngram.exact_bits(src, ngram.fit_table(S, src.vocab, 2, 6), 0.25)


def test_table_bound_matches_the_formula(src) -> None:
    S = markov_docset(src, 2_000, seed=1)
    sample = np.random.default_rng(0).integers(0, S.n_docs, size=300)
    t = ngram.fit_table(S, src.vocab, 1, 5)
    b = ngram.bound_table(t, S, sample)
    K = pacbound.prefix_code_bits(t.message_bits)
    assert b.prefix_bits == K and b.grid == 18 * 8
    expect = pacbound.subsampling_bound(  # the choice among 18 tables paid in both roots
        train_error=b.smoothed[b.best_alpha], loss_range=pacbound.loss_range(b.best_alpha, 8),
        complexity_nats=K * math.log(2), n_population=S.n_docs, n_sample=300, eps=0.05 / 144)
    assert b.bound_bits == pytest.approx(expect, abs=1e-12)
    assert b.bound_top1 == pytest.approx(pacbound.subsampling_bound(
        train_error=b.sample_top1, loss_range=1.0, complexity_nats=K * math.log(2),
        n_population=S.n_docs, n_sample=300, eps=0.05 / 18), abs=1e-12)
    best, grid = ngram.best_table(S, src.vocab, sample, orders=(0, 1))
    assert len(grid) == 12 and best.bound_bits == min(r.bound_bits for r in grid.values())
    # the fast path (tokens cut to the sample) agrees with scoring all of S
    assert grid[(1, 5)].bound_bits == pytest.approx(b.bound_bits, abs=1e-12)


def test_gap_parts_add_up() -> None:
    g = gap_parts(sample_smoothed=3.9, true_smoothed=3.95, true_raw=3.7, alpha=0.5, vocab=32,
                  charged_bits=2_840.0, n_population=100_000, n_sample=5_000)
    bound = pacbound.subsampling_bound(train_error=3.9, loss_range=pacbound.loss_range(0.5, 32),
                                       complexity_nats=2_840 * math.log(2),
                                       n_population=100_000, n_sample=5_000, eps=0.05 / 8)
    assert g.total == pytest.approx(bound - 3.7, abs=1e-12)
    assert g.smoothing == pytest.approx(0.25) and g.sample_minus_true == pytest.approx(-0.05)


def test_repeat_source_second_half_copies_the_first() -> None:
    rep = RepeatSource(vocab=32, span=16)
    docs = rep.sample(50, seed=3)
    assert all(len(d) == 32 and np.array_equal(d[:16], d[16:]) and d.min() >= 1 for d in docs)
    assert rep.best_bits() == pytest.approx(16 * math.log2(31) / 33)


def test_coverage_draws_hold(src) -> None:
    d = coverage.coverage(src, n_sets=4, n_docs=1_000, n_sample=200, seed=9)
    assert len(d.bound) == 4 and d.violations == 0
    assert np.all(d.bound > d.true) and set(d.order.tolist()) <= {0, 1}
