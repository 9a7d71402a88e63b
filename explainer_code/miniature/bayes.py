"""Exact population quantities of the Markov source (numpy only): what the best predictor scores.

For an order-1 predictor with a loss `cont[x, j]` for emitting symbol j after x (x = EOD: the first
symbol) and `end[x]` for emitting EOD after x, the expected per-document mean loss is

    R = sum_l P(L = l) / (l + 1) * ( a_0 + sum_{t=1}^{l-1} m_t . g + m_l . end )

with P(L = l) = p (1 - p)^(l - 1), a_0 = start . cont[EOD], g[x] = sum_j trans[x, j] cont[x, j]
and m_t = start trans^(t-1) the distribution of the t-th symbol (ending is independent of the
symbols, so the symbols of a document of length l are a plain Markov chain). The sum is cut where
P(L > l) < 1e-15.
"""

from __future__ import annotations

import numpy as np

from miniature.corpus import EOD, MarkovSource


def expected_doc_loss(src: MarkovSource, cont: np.ndarray, end: np.ndarray) -> float:
    """R above for loss tables cont (V, V) and end (V,)."""
    p = src.p_end
    g = (src.trans * cont).sum(axis=1)  # (V,)
    a0 = float(src.start @ cont[EOD])
    l_max = int(np.ceil(np.log(1e-15) / np.log1p(-p)))
    m, inner, total = src.start.copy(), 0.0, 0.0
    for length in range(1, l_max + 1):
        total += p * (1 - p) ** (length - 1) / (length + 1) * (a0 + inner + float(m @ end))
        inner += float(m @ g)
        m = m @ src.trans
    return total


def best_bits(src: MarkovSource) -> float:
    """Best possible per-document risk in bits per token: the true conditionals as predictor."""
    q = src.next_token_probs()
    with np.errstate(divide="ignore"):
        cont = np.where(q > 0, -np.log2(np.where(q > 0, q, 1.0)), 0.0)
    return expected_doc_loss(src, cont, cont[:, EOD])


def top1_error(src: MarkovSource, guess: np.ndarray) -> float:
    """Per-document top-1 error of a predictor that says guess[x] after x."""
    V = src.vocab
    cont = (np.arange(V)[None, :] != guess[:, None]).astype(float)
    return expected_doc_loss(src, cont, (guess != EOD).astype(float))


def best_top1_error(src: MarkovSource) -> float:
    return top1_error(src, src.next_token_probs().argmax(axis=1))


def majority_top1_error(src: MarkovSource) -> tuple[int, float]:
    """The single token whose constant guess has the smallest per-document error, and that error."""
    errors = [top1_error(src, np.full(src.vocab, k)) for k in range(src.vocab)]
    k = int(np.argmin(errors))
    return k, errors[k]


def entropy_rate_bits(src: MarkovSource) -> float:
    """Bits per token of an endless document: stationary mean of H(next | x), EOD included."""
    q = src.next_token_probs()
    with np.errstate(divide="ignore", invalid="ignore"):
        h = -np.nansum(np.where(q > 0, q * np.log2(q), 0.0), axis=1)
    evals, evecs = np.linalg.eig(src.trans[1:, 1:].T)
    pi = np.real(evecs[:, np.argmin(np.abs(evals - 1))])
    pi = pi / pi.sum()
    return float(pi @ h[1:])
