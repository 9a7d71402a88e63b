"""pacbound.markov: the exact population risk against brute-force enumeration and sampling.

The reference enumerates every document of a tiny chain (V = 3, 4 tokens: 81 documents) with its
probability, a computation that shares nothing with the state-marginal recursion.
"""

from __future__ import annotations

import doctest
import itertools

import numpy as np
import pytest
from pacbound import markov

V, T = 3, 4


@pytest.fixture
def chain() -> np.ndarray:
    return markov.random_markov_chain(V, 0.7, np.random.default_rng(3))


def brute_force_risk(chain: np.ndarray, loss: np.ndarray) -> float:
    total = 0.0
    for doc in itertools.product(range(V), repeat=T):
        prob, prev, doc_loss = 1.0, V, 0.0
        for x in doc:
            prob *= chain[prev, x]
            doc_loss += loss[prev, x]
            prev = x
        total += prob * doc_loss / T
    return total


def test_doctests() -> None:
    failures, tried = doctest.testmod(markov)
    assert tried >= 4 and failures == 0


def test_rows_are_distributions(chain: np.ndarray) -> None:
    assert chain.shape == (V + 1, V)
    np.testing.assert_allclose(chain.sum(axis=1), 1.0, rtol=0, atol=1e-12)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_expected_loss_matches_enumeration(chain: np.ndarray, seed: int) -> None:
    loss = np.random.default_rng(seed).random((V + 1, V))
    assert markov.expected_loss(chain, loss, T) == pytest.approx(
        brute_force_risk(chain, loss), 1e-12
    )


def test_document_entropy_matches_enumeration(chain: np.ndarray) -> None:
    exact = brute_force_risk(chain, -np.log2(chain))
    assert markov.document_entropy_bits(chain, T) == pytest.approx(exact, 1e-12)
    assert markov.entropy_rate_bits(chain, T) == markov.document_entropy_bits(chain, T)


def test_stationary_rate_is_the_long_document_limit(chain: np.ndarray) -> None:
    pi = markov.stationary_distribution(chain)
    assert pi @ chain[:V] == pytest.approx(pi, abs=1e-12) and pi.sum() == pytest.approx(1.0)
    rate = markov.stationary_entropy_rate_bits(chain)
    assert markov.document_entropy_bits(chain, 4000) == pytest.approx(rate, abs=1e-3)
    assert markov.document_entropy_bits(chain, T) != pytest.approx(rate, abs=1e-3)


def test_sampling_matches_exact_risk(chain: np.ndarray) -> None:
    docs = markov.sample_documents(chain, 100_000, T, np.random.default_rng(7))
    table = markov.top1_error_table(np.array([0, 1, 2, 0]), V)
    per_doc = markov.per_document_loss(docs, table)
    se = per_doc.std() / np.sqrt(len(per_doc))
    assert abs(per_doc.mean() - markov.expected_loss(chain, table, T)) < 4 * se


def test_counts_and_first_token(chain: np.ndarray) -> None:
    docs = markov.sample_documents(chain, 50_000, T, np.random.default_rng(8))
    counts = markov.transition_counts(docs, V)
    assert counts.sum() == docs.size
    assert counts[V].sum() == len(docs)  # every document has one first token
    np.testing.assert_allclose(counts[V] / len(docs), chain[V], atol=0.01)


def test_top1_error_table() -> None:
    table = markov.top1_error_table(np.array([2, 0]), 3)
    assert table.tolist() == [[1, 1, 0], [0, 1, 1]]
