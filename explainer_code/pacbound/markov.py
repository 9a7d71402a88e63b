"""A fixed random Markov chain as a source of documents whose population risk is known exactly.

Chapters 9-11 train small models on a few documents of this source and then need the risk on the
whole population, not on a test set. For a first-order chain that risk is a finite sum.

Layout: `chain` has shape (V + 1, V). Row s < V is P(next token | previous token s); the extra
row V is the distribution of the first token (the previous "token" is a start state, index V).
A document is `length` tokens x_0 .. x_{length-1}; x_0 ~ chain[V], x_t ~ chain[x_{t-1}].

A loss table `loss` of the same shape gives the loss of emitting token x after state s; the
per-document loss is the mean of loss[s_t, x_t] over the document's tokens, and its expectation
over documents is

    R = (1 / length) sum_t sum_s pi_t(s) sum_x chain[s, x] loss[s, x],

with pi_t the distribution of the state before token t (pi_0 = the start state). Randomness comes
only from the numpy Generator the caller passes in.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]


def random_markov_chain(vocab: int, concentration: float, rng: np.random.Generator) -> FloatArray:
    """Rows drawn from Dirichlet(concentration): shape (vocab + 1, vocab), each row sums to 1.

    Small concentrations (0.1-0.5) give peaked rows, a predictable source.

    >>> random_markov_chain(4, 0.5, np.random.default_rng(0)).shape
    (5, 4)
    """
    if vocab < 2 or concentration <= 0:
        raise ValueError("need vocab >= 2 and a positive concentration")
    return rng.dirichlet(np.full(vocab, concentration), size=vocab + 1)


def sample_documents(
    chain: FloatArray, n_docs: int, length: int, rng: np.random.Generator
) -> IntArray:
    """Draw `n_docs` independent documents of `length` tokens: an int array (n_docs, length).

    >>> chain = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 0.0]])  # start at 0, then alternate
    >>> sample_documents(chain, 1, 5, np.random.default_rng(0)).tolist()
    [[0, 1, 0, 1, 0]]
    """
    vocab = chain.shape[1]
    cdf = np.cumsum(chain, axis=1)
    docs = np.empty((n_docs, length), dtype=np.int64)
    state = np.full(n_docs, vocab, dtype=np.int64)  # the start state
    for t in range(length):
        u = rng.random(n_docs)
        token = (u[:, None] >= cdf[state]).sum(axis=1)
        docs[:, t] = np.minimum(token, vocab - 1)  # guards u against a row sum of 1 - 1e-16
        state = docs[:, t]
    return docs


def previous_states(docs: IntArray, vocab: int) -> IntArray:
    """The state before each token: the start state V for x_0, else the previous token."""
    prev = np.empty_like(docs)
    prev[:, 0] = vocab
    prev[:, 1:] = docs[:, :-1]
    return prev


def transition_counts(docs: IntArray, vocab: int) -> IntArray:
    """Counts c[s, x] of token x after state s over all documents: shape (vocab + 1, vocab).

    >>> transition_counts(np.array([[0, 1, 1]]), 2).tolist()
    [[0, 1], [0, 1], [1, 0]]
    """
    prev = previous_states(docs, vocab)
    counts = np.zeros((vocab + 1, vocab), dtype=np.int64)
    np.add.at(counts, (prev.ravel(), docs.ravel()), 1)
    return counts


def per_document_loss(docs: IntArray, loss: FloatArray) -> FloatArray:
    """Mean over each document's tokens of loss[previous state, token]: shape (n_docs,)."""
    vocab = loss.shape[1]
    return loss[previous_states(docs, vocab), docs].mean(axis=1)


def state_marginals(chain: FloatArray, length: int) -> FloatArray:
    """pi_t(s) for t = 0 .. length - 1: the distribution of the state before token t.

    Shape (length, vocab + 1); row 0 is the start state, later rows never visit it.
    """
    vocab = chain.shape[1]
    pi = np.zeros((length, vocab + 1))
    pi[0, vocab] = 1.0
    for t in range(1, length):
        pi[t, :vocab] = pi[t - 1] @ chain
    return pi


def expected_loss(chain: FloatArray, loss: FloatArray, length: int) -> float:
    """Population risk of a loss table: E over documents of the per-document mean loss.

    >>> chain = np.array([[0.5, 0.5], [0.5, 0.5], [0.5, 0.5]])
    >>> expected_loss(chain, -np.log2(chain), 10)  # a fair coin: 1 bit per token
    1.0
    """
    weights = state_marginals(chain, length).mean(axis=0)  # time-averaged state distribution
    return float(weights @ (chain * loss).sum(axis=1))


def document_entropy_bits(chain: FloatArray, length: int) -> float:
    """Per-token entropy of a `length`-token document from the start state, in bits.

    H(x_0 .. x_{length-1}) / length = expected_loss with loss = -log2 P: the best possible bits
    per token of any model on documents of this length (the start row counts once in `length`).
    It tends to `stationary_entropy_rate_bits` as `length` grows.

    >>> chain = np.array([[0.5, 0.5], [0.5, 0.5], [1.0, 0.0]])  # first token fixed, then coins
    >>> document_entropy_bits(chain, 4)  # 0 bits for x_0, 1 bit for each of the other three
    0.75
    """
    with np.errstate(divide="ignore"):
        surprisal = np.where(chain > 0, -np.log2(chain), 0.0)
    return expected_loss(chain, surprisal, length)


def entropy_rate_bits(chain: FloatArray, length: int) -> float:
    """Old name of `document_entropy_bits` (kept for callers); not the stationary rate."""
    return document_entropy_bits(chain, length)


def stationary_distribution(chain: FloatArray) -> FloatArray:
    """pi with pi P = pi over the V real states (the start row dropped): shape (V,).

    The eigenvector of P transposed for eigenvalue 1, normalised to sum 1; the chain must be
    irreducible (true for Dirichlet rows, which are positive).

    >>> stationary_distribution(np.array([[0.9, 0.1], [0.5, 0.5], [1.0, 0.0]])).round(4).tolist()
    [0.8333, 0.1667]
    """
    vocab = chain.shape[1]
    transition = chain[:vocab]
    values, vectors = np.linalg.eig(transition.T)
    pi = np.real(vectors[:, np.argmin(np.abs(values - 1.0))])
    return pi / pi.sum()


def stationary_entropy_rate_bits(chain: FloatArray) -> float:
    """The chain's entropy rate sum_s pi(s) H(P(. | s)), in bits per token, pi stationary.

    >>> round(stationary_entropy_rate_bits(np.array([[0.5, 0.5], [0.5, 0.5], [1.0, 0.0]])), 6)
    1.0
    """
    vocab = chain.shape[1]
    transition = chain[:vocab]
    with np.errstate(divide="ignore", invalid="ignore"):
        row_entropy = -np.where(transition > 0, transition * np.log2(transition), 0.0).sum(axis=1)
    return float(stationary_distribution(chain) @ row_entropy)


def top1_error_table(predictions: IntArray, vocab: int) -> FloatArray:
    """0-1 loss table of a predictor that guesses token predictions[s] after state s."""
    table = np.ones((len(predictions), vocab))
    table[np.arange(len(predictions)), predictions] = 0.0
    return table
