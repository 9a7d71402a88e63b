"""Scoring whole documents: the probability of every true next token, and whether it ranked first.

A document of L tokens has L + 1 targets (its tokens and the closing EOD), read after its leading
EOD. One that does not fit the context window is read in windows of `block_size` tokens; the
first scores all its targets, each later window moves on by `stride` and scores only its last
`stride` targets, so every target is scored once, with at least block_size - stride tokens of
context (the authors' scheme with 1024 and 100 [SOURCE: sublora-bounds-for-llms
sublora/bounds/bound_utils.py:40-87 @c606ea6]).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pacbound
import torch

from miniature.corpus import DocSet


def windows(n_targets: int, block: int, stride: int) -> list[tuple[int, int, int]]:
    """(begin, end, first_scored) of each window over a sequence of n_targets inputs.

    >>> windows(10, 4, 2)
    [(0, 4, 0), (2, 6, 4), (4, 8, 6), (6, 10, 8)]
    """
    out = [(0, min(n_targets, block), 0)]
    while out[-1][1] < n_targets:
        end = min(out[-1][1] + stride, n_targets)
        out.append((end - block, end, out[-1][1]))
    return out


@dataclass(frozen=True)
class DocScores:
    """Per-token results for a list of documents: p of the true token, top-1 hit, document id."""

    p_true: np.ndarray  # float64 (tokens,)
    correct: np.ndarray  # bool (tokens,)
    doc: np.ndarray  # int64 (tokens,)
    n_docs: int
    vocab: int

    def per_doc(self, values: np.ndarray) -> np.ndarray:
        """Mean of a per-token quantity within each document, (n_docs,)."""
        counts = np.bincount(self.doc, minlength=self.n_docs)
        return np.bincount(self.doc, weights=values, minlength=self.n_docs) / counts

    def bits(self, alpha: float = 0.0) -> np.ndarray:
        """Per-document mean of -log2((1 - alpha) p + alpha / V): smoothed bits per token."""
        if alpha == 0.0:
            return self.per_doc(-np.log2(self.p_true))
        return self.per_doc(pacbound.smoothed_nll_bits(self.p_true, alpha, self.vocab))

    def top1_error(self) -> np.ndarray:
        return self.per_doc(1.0 - self.correct)


@torch.no_grad()
def score(forward, docset: DocSet, indices: np.ndarray, block: int, vocab: int,
          stride: int | None = None, batch: int = 256,
          device: str | torch.device = "cpu") -> DocScores:
    """Score documents `indices` of `docset` with `forward`: ids (B, T) -> logits (B, T, V)."""
    stride = stride or (3 * block) // 4
    rows, masks, owners = [], [], []
    for k, i in enumerate(np.asarray(indices, dtype=np.int64)):
        s, n = int(docset.starts[i]), int(docset.lengths[i]) + 1
        seq = docset.stream[s - 1 : s + n].astype(np.int64)  # EOD, tokens, EOD
        for begin, end, first in windows(n, block, stride):
            row = np.zeros((2, block), dtype=np.int64)
            row[0, : end - begin] = seq[begin:end]
            row[1, : end - begin] = seq[begin + 1 : end + 1]
            mask = np.zeros(block, dtype=bool)
            mask[first - begin : end - begin] = True
            rows.append(row)
            masks.append(mask)
            owners.append(k)
    data = np.stack(rows)  # (W, 2, T)
    mask = np.stack(masks)  # (W, T)
    owner = np.array(owners)
    # Short windows first, each batch cut to its longest window: padding sits after the real
    # tokens, and a causal model never looks ahead, so trimming it changes nothing.
    width = mask.shape[1] - np.argmax(mask[:, ::-1], axis=1)  # last scored position + 1
    order = np.argsort(width, kind="stable")
    p_parts, c_parts, o_parts = [], [], []
    for a in range(0, len(order), batch):
        sel = order[a : a + batch]
        t = int(width[sel].max())
        x = torch.from_numpy(data[sel, 0, :t]).to(device)
        y = torch.from_numpy(data[sel, 1, :t]).to(device)
        m = torch.from_numpy(mask[sel, :t]).to(device)
        logp = torch.log_softmax(forward(x).float(), dim=-1)  # (B, t, V)
        lp = logp.gather(-1, y[..., None]).squeeze(-1)
        hit = logp.argmax(dim=-1) == y
        p_parts.append(lp[m].double().exp().cpu().numpy())
        c_parts.append(hit[m].cpu().numpy())
        o_parts.append(np.repeat(owner[sel], mask[sel, :t].sum(axis=1)))
    return DocScores(np.concatenate(p_parts), np.concatenate(c_parts), np.concatenate(o_parts),
                     len(indices), vocab)
