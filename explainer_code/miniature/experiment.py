"""One run of the method, end to end: train w, quantize, code, score sampled documents, bound.

`run_method` is what Chapter 22's scripts call for each variant; `unigram_baseline` codes and
bounds a table of token frequencies the same way. All bounds are document-level subsampling
bounds (Chapter 14): N documents in the training set S, n of them drawn uniformly with
replacement and scored, failure probability EPS = 0.05.

Bits per token: the minimum over the authors' eight smoothing weights, paid for by a union
bound (`pacbound.union_over_grid`: each alpha at EPS / 8). Top-1 error: loss range 1, no grid.
Both also pay `EXTRA_BITS` for the hyperparameters, as the authors' config does
[SOURCE: sublora-bounds-for-llms config/sublora_bounds.yaml:39 @c606ea6].
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np
import pacbound
import torch

from miniature.corpus import DocSet
from miniature.evaluate import DocScores, score
from miniature.model import GPTConfig
from miniature.subspace import Parametrization
from miniature.train import LEVELS, TrainConfig, train

EPS = 0.05
EXTRA_BITS = 7


@dataclass
class Result:
    kind: str
    D: int  # numbers the projector maps into (or trained directly)
    d: int  # numbers trained and coded
    message: pacbound.MessageParts
    coder_bits: int  # length of the real arithmetic code of the symbols
    prefix_bits: float  # K = L + 2 log2 L + 1, L = message total
    sample_bits_raw: float  # before quantization, bits per token on the n sampled documents
    sample_bits: float  # after quantization, alpha = 0
    smoothed: dict[float, float]  # alpha -> mean smoothed bits on the sample
    bound_bits: float  # min over alpha, union over the grid
    best_alpha: float
    sample_top1: float
    bound_top1: float
    heldout_bits: float = math.nan  # fresh documents (Markov) or the test split (text)
    heldout_top1: float = math.nan
    heldout_se: float = math.nan  # standard error of heldout_bits over documents
    heldout_smoothed: float = math.nan  # the bounded predictor (alpha = best_alpha) held out
    heldout_smoothed_se: float = math.nan
    losses: list[float] = field(default_factory=list)
    seconds: float = 0.0


def bounds(scores: DocScores, prefix_bits: float,
           n_population: int) -> tuple[dict, float, float, float]:
    """(smoothed means, bits-per-token bound, its alpha, top-1 bound) for scored sample docs."""
    smoothed = {a: float(scores.bits(a).mean()) for a in pacbound.ALPHA_GRID}
    nats = (prefix_bits + EXTRA_BITS) * math.log(2)
    n = scores.n_docs
    per_alpha = {
        a: pacbound.subsampling_bound(train_error=smoothed[a], loss_range=pacbound.loss_range(
            a, scores.vocab), complexity_nats=nats, n_population=n_population, n_sample=n,
            eps=EPS / len(pacbound.ALPHA_GRID))
        for a in pacbound.ALPHA_GRID
    }
    best = min(per_alpha, key=per_alpha.get)
    union = pacbound.union_over_grid(
        train_errors=[smoothed[a] for a in pacbound.ALPHA_GRID],
        loss_ranges=[pacbound.loss_range(a, scores.vocab) for a in pacbound.ALPHA_GRID],
        complexity_nats=nats, n_population=n_population, n_sample=n, eps=EPS)
    assert abs(union - per_alpha[best]) < 1e-12
    top1 = pacbound.subsampling_bound(train_error=float(scores.top1_error().mean()), loss_range=1.0,
                                      complexity_nats=nats, n_population=n_population,
                                      n_sample=n, eps=EPS)
    return smoothed, union, best, top1


def code_vector(w: np.ndarray) -> tuple[np.ndarray, np.ndarray, pacbound.MessageParts, int]:
    """Quantize (11 levels), count the message, and run the real arithmetic coder both ways."""
    codes, codebook = pacbound.quantize_uniform(w, LEVELS)
    counts = pacbound.symbol_counts(codes, LEVELS)
    data = pacbound.arithmetic_encode(codes, counts)
    assert np.array_equal(pacbound.arithmetic_decode(data, counts, len(codes)), codes)
    bits = pacbound.arithmetic_code_length_bits(codes, counts)
    return codes, codebook, pacbound.message_parts(codes, LEVELS), bits


def run_method(kind: str, S: DocSet, cfg: GPTConfig, tcfg: TrainConfig, *, d: int,
               sample: np.ndarray, heldout: DocSet | None = None, model_seed: int = 0,
               proj_seed: int = 137, device: str = "cpu", label: str = "") -> Result:
    """Train `kind` on S, code it, and bound it on the documents `sample` of S."""
    t0 = time.time()
    param = Parametrization(cfg, kind, d, model_seed, proj_seed, device=device)
    losses = train(param, S.stream, tcfg, label=label or kind)
    return finish(param, S, cfg, sample, heldout, device, losses, t0)


def finish(param: Parametrization, S: DocSet, cfg: GPTConfig, sample: np.ndarray,
           heldout: DocSet | None, device: str, losses: list[float], t0: float) -> Result:
    """Quantize and code the trained w, score the sample (and held-out documents), bound."""
    block, vocab = cfg.block_size, cfg.vocab_size
    raw = score(param, S, sample, block, vocab, device=device)
    codes, codebook, message, coder_bits = code_vector(param.w.detach().cpu().numpy())
    wq = pacbound.dequantize(codes, codebook)
    param.override = torch.tensor(wq, dtype=torch.float32, device=param.w.device)
    scores = score(param, S, sample, block, vocab, device=device)
    prefix = pacbound.prefix_code_bits(message.total)
    smoothed, bound, alpha, top1 = bounds(scores, prefix, S.n_docs)
    res = Result(param.kind, param.D, param.d, message, coder_bits, prefix,
                 float(raw.bits().mean()), float(scores.bits().mean()), smoothed, bound, alpha,
                 float(scores.top1_error().mean()), top1, losses=losses)
    if heldout is not None:
        h = score(param, heldout, np.arange(heldout.n_docs), block, vocab, device=device)
        per_doc = h.bits()
        res.heldout_bits, res.heldout_top1 = float(per_doc.mean()), float(h.top1_error().mean())
        res.heldout_se = float(per_doc.std(ddof=1) / math.sqrt(len(per_doc)))
        sm = h.bits(alpha)
        res.heldout_smoothed = float(sm.mean())
        res.heldout_smoothed_se = float(sm.std(ddof=1) / math.sqrt(len(sm)))
    param.override = None
    res.seconds = time.time() - t0
    return res


# ------------------------------------------------------------------------------ unigram table
UNIGRAM_STEP_BITS = 8  # each entry: -log2 p in steps of 1/8 bit, one byte


def unigram_table(S: DocSet, vocab: int) -> np.ndarray:
    """Token frequencies of S (EOD counted once per document), rounded to the coded grid and
    renormalised: the probabilities a 8 x V bit message describes."""
    counts = np.bincount(S.stream[1:], minlength=vocab).astype(float) + 0.5
    code = np.clip(np.round(-np.log2(counts / counts.sum()) * 8), 0, 255)
    p = 2.0 ** (-code / 8)
    return p / p.sum()


def unigram_baseline(S: DocSet, vocab: int, sample: np.ndarray, heldout: DocSet | None) -> Result:
    """A unigram table coded in 8 bits per entry and bounded exactly like the model."""
    p = unigram_table(S, vocab)
    guess = int(np.argmax(p))

    def forward(x: torch.Tensor) -> torch.Tensor:  # the same logits at every position
        return torch.log(torch.tensor(p, dtype=torch.float32)).expand(*x.shape, vocab)

    scores = score(forward, S, sample, 8, vocab)
    message_bits = UNIGRAM_STEP_BITS * vocab
    prefix = pacbound.prefix_code_bits(message_bits)
    smoothed, bound, alpha, top1 = bounds(scores, prefix, S.n_docs)
    parts = pacbound.MessageParts(coded=message_bits, codebook=0, counts=0)
    res = Result("unigram", vocab, vocab, parts, message_bits, prefix,
                 float(scores.bits().mean()), float(scores.bits().mean()), smoothed, bound, alpha,
                 float(scores.top1_error().mean()), top1)
    assert guess >= 0
    if heldout is not None:
        h = score(forward, heldout, np.arange(heldout.n_docs), 8, vocab)
        res.heldout_bits, res.heldout_top1 = float(h.bits().mean()), float(h.top1_error().mean())
        res.heldout_smoothed = float(h.bits(alpha).mean())
    return res


@dataclass(frozen=True)
class Gap:
    """bound - true risk of the unsmoothed predictor, split into four parts that add up to it.

    occam + hoeffding: the two roots of the bound times the loss range at the chosen alpha;
    sample_minus_true: smoothed empirical risk on the sample minus the smoothed predictor's true
    risk (noise of the sample, and overfitting); smoothing: true risk of the smoothed predictor
    minus that of the unsmoothed one (what mixing in alpha / V costs on fresh data)."""

    occam: float
    hoeffding: float
    sample_minus_true: float
    smoothing: float

    @property
    def total(self) -> float:
        return self.occam + self.hoeffding + self.sample_minus_true + self.smoothing


def gap_parts(*, sample_smoothed: float, true_smoothed: float, true_raw: float, alpha: float,
              vocab: int, charged_bits: float, n_population: int, n_sample: int,
              eps: float = EPS, grid: int = 8) -> Gap:
    """The decomposition of `Gap` for a bound computed at `alpha` with confidence eps / grid."""
    delta = pacbound.loss_range(alpha, vocab)
    r = n_sample / (n_sample + n_population)
    e = eps / grid
    occam = delta * math.sqrt((charged_bits * math.log(2) - math.log(r * e)) / (2 * n_population))
    hoeffding = delta * math.sqrt(-math.log((1 - r) * e) / (2 * n_sample))
    return Gap(occam, hoeffding, sample_smoothed - true_smoothed, true_smoothed - true_raw)


def result_gap(r: Result, vocab: int, n_population: int, n_sample: int,
               extra_bits: float = EXTRA_BITS) -> Gap:
    """`gap_parts` of a finished run (held-out documents stand in for the population)."""
    return gap_parts(sample_smoothed=r.smoothed[r.best_alpha], true_smoothed=r.heldout_smoothed,
                     true_raw=r.heldout_bits, alpha=r.best_alpha, vocab=vocab,
                     charged_bits=r.prefix_bits + extra_bits, n_population=n_population,
                     n_sample=n_sample)
