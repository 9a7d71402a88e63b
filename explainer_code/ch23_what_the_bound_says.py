"""Chapter 23: what the bound says and what it does not, on a predictor whose risk is exact.

A bigram table fitted on S of Chapter 22's Markov source, coded in one format (-log2 p in whole
bits, 0..31: 5 bits an entry) not searched by the bound but chosen with Chapter 22's results on
the same S in view. Every population quantity is exact (miniature/bayes.py).

Claims, numbered as the output blocks:
  [1] What is bounded: the smoothed, coded table, not the unsmoothed or full-precision one; the
      three have different true risks.
  [2] Non-vacuous means below a baseline: bits per token against a random guess and the best
      constant distribution, top-1 error against the majority class; all pass; best values.
  [3] "With probability 1 - epsilon over the draw of S": M = 200 training sets of 2,000
      documents, a top-1 table (a 160-bit message, K = 175.6 bits): the bound never falls below
      the true error (failure rate below 1.5 % at 95 %), the training error does in most draws
      (0.66 +- 0.03); most of the bound's margin is the price of K.
  [4] Memorization: the message carries at most K bits about S, about 32 documents' worth; a table
      storing S verbatim is vacuous; a bound below log2 V at this loss range needs K under about
      108,000 bits whatever the training loss, under 1 % of S's documents.
  [5] The i.i.d. assumption: the bound is about the training distribution; on documents from
      another source the same table's risk is far above its bound.
  [6] Documents, not tokens: N counts documents; counting tokens as if they were independent
      would shrink the complexity term by about sqrt(mean length) (not a valid bound here).
Seeds: source 0, S 1, coverage training sets 1000 + m, the other source 7. Numpy only.
Every value the chapter quotes is printed through `glue(name, ...)` (script_glue.py), so that the
page refers to it by name.
"""

from __future__ import annotations

import math

import matplotlib
import miniature  # noqa: F401

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pacbound
import script_io
from miniature import bayes
from miniature.corpus import EOD, DocSet, MarkovSource, make_markov_source, markov_docset
from script_glue import glue

VOCAB, CONCENTRATION, P_END = 32, 0.1, 1 / 64
N_DOCS, EPS, ALPHA = 100_000, 0.05, 0.1  # alpha fixed in the script: no grid
ENTRY_BITS = 5  # -log2 p in whole bits, 0..31
M_SETS, N_SMALL = 200, 2_000
SEED_SOURCE, SEED_S, SEED_OTHER, SEED_COVERAGE = 0, 1, 7, 1000


def bigram_counts(S: DocSet) -> np.ndarray:
    """(V, V) counts of (context, next token) over the stream, EODs included, plus 0.5."""
    counts = np.zeros((VOCAB, VOCAB))
    np.add.at(counts, (S.stream[:-1].astype(np.int64), S.stream[1:].astype(np.int64)), 1.0)
    return counts + 0.5


def coded_table(counts: np.ndarray) -> np.ndarray:
    """The probabilities the 5-bit-an-entry message describes: 2^-round(-log2 p), renormalised."""
    p = counts / counts.sum(axis=1, keepdims=True)
    code = np.clip(np.round(-np.log2(p)), 0, 2**ENTRY_BITS - 1)
    q = 2.0 ** (-code)
    return q / q.sum(axis=1, keepdims=True)


def loss_table(q: np.ndarray, alpha: float) -> np.ndarray:
    return -np.log2((1 - alpha) * q + alpha / VOCAB)


def true_bits(src: MarkovSource, q: np.ndarray, alpha: float) -> float:
    cont = loss_table(q, alpha)
    return bayes.expected_doc_loss(src, cont, cont[:, EOD])


def doc_means(S: DocSet, per_target: np.ndarray) -> np.ndarray:
    """Per-document means of a per-target quantity (target t = stream[t], t >= 1)."""
    doc = np.cumsum(S.stream[:-1] == EOD) - 1  # document of each target
    sums = np.bincount(doc, weights=per_target, minlength=S.n_docs)
    return sums[: S.n_docs] / np.bincount(doc, minlength=S.n_docs)[: S.n_docs]


def empirical_bits(S: DocSet, q: np.ndarray, alpha: float) -> float:
    cont = loss_table(q, alpha)
    return float(doc_means(S, cont[S.stream[:-1], S.stream[1:]]).mean())


def empirical_top1(S: DocSet, guess: np.ndarray) -> float:
    miss = (guess[S.stream[:-1]] != S.stream[1:]).astype(float)
    return float(doc_means(S, miss).mean())


def block1(src, S) -> dict:
    counts = bigram_counts(S)
    raw = counts / counts.sum(axis=1, keepdims=True)
    q = coded_table(counts)
    L = VOCAB * VOCAB * ENTRY_BITS
    K = pacbound.prefix_code_bits(L)
    delta = pacbound.loss_range(ALPHA, VOCAB)
    emp = empirical_bits(S, q, ALPHA)
    bound = pacbound.occam_bound(emp, complexity_bits=K, n=N_DOCS, eps=EPS, loss_range=delta)
    t_bounded, t_q = true_bits(src, q, ALPHA), true_bits(src, q, 0.0)
    t_raw = true_bits(src, raw, 0.0)
    print(f"[1] A bigram table fitted on S (N = {glue('n_docs', N_DOCS, ',')} documents), coded at "
          f"{glue('entry_bits', ENTRY_BITS)} bits an entry: L = {VOCAB} x {VOCAB} x {ENTRY_BITS} "
          f"= {glue('message_bits', L, ',')} bits, K = {glue('k_bits', K, ',.1f')} bits")
    print(f"    bounded predictor: the coded table smoothed at alpha = {glue('alpha', ALPHA)} "
          f"(loss range {glue('loss_range', delta, '.3f')} bits)")
    print(f"    its empirical risk on S {glue('empirical', emp, '.4f')}, its bound "
          f"{glue('bound', bound, '.4f')} bits per token (epsilon = {glue('eps', EPS)})")
    print(f"    true risks (exact): bounded predictor {glue('true_bounded', t_bounded, '.4f')}; "
          f"coded table unsmoothed {glue('true_unsmoothed', t_q, '.4f')}; full-precision table "
          f"{glue('true_full', t_raw, '.4f')}")
    print(f"    the bound covers the first: {t_bounded:.4f} < {bound:.4f}; its gap "
          f"{bound - t_bounded:.4f}")
    assert emp < t_bounded < bound and t_raw < t_q < t_bounded
    guess = q.argmax(axis=1)
    err = empirical_top1(S, guess)
    bound1 = pacbound.occam_bound(err, complexity_bits=K, n=N_DOCS, eps=EPS)
    return {"q": q, "K": K, "bound": bound, "true": t_bounded, "emp": emp, "guess": guess,
            "top1_emp": err, "top1_bound": bound1, "top1_true": bayes.top1_error(src, guess),
            "delta": delta}


def block2(src, r: dict) -> None:
    guess_bits = math.log2(VOCAB)
    token, major = bayes.majority_top1_error(src)
    best, best1 = bayes.best_bits(src), bayes.best_top1_error(src)
    # the best constant distribution is the per-document token frequencies; its risk their entropy
    freq = 1 - np.array([bayes.top1_error(src, np.full(VOCAB, k)) for k in range(VOCAB)])
    const = float(-(freq * np.log2(freq)).sum())
    print("[2] Non-vacuous against which baseline (exact values)")
    print(f"    bits per token: bound {glue('bits_bound', r['bound'], '.4f')} < best constant "
          f"distribution {glue('best_constant', const, '.3f')} < random guess log2 "
          f"{glue('vocab', VOCAB)} = {glue('random_guess', guess_bits, '.3f')}; the source's own "
          f"{glue('source_bits', best, '.4f')}")
    print(f"    top-1 error: empirical {glue('top1_empirical', r['top1_emp'], '.4f')}, bound "
          f"{glue('top1_bound', r['top1_bound'], '.4f')} < majority class "
          f"{glue('majority_error', major, '.4f')}; true "
          f"{glue('top1_true', r['top1_true'], '.4f')}; the source's own "
          f"{glue('source_top1', best1, '.4f')}")
    print(f"    the majority class is the best constant guess under the source (token "
          f"{glue('majority_token', token)}): its exact population error")
    print(f"    a top-1 bound above {glue('top1_line', major, '.4f')} would be 'below 1' and still "
          f"say less than always guessing one token")
    assert r["bound"] < const < guess_bits and r["top1_bound"] < major < 1.0
    assert r["top1_true"] < r["top1_bound"]


def block3(src) -> dict:
    K = pacbound.prefix_code_bits(VOCAB * math.log2(VOCAB))  # one guess per context, 5 bits each
    bounds, trues, trains = [], [], []
    for m in range(M_SETS):
        S = markov_docset(src, N_SMALL, SEED_COVERAGE + m)
        guess = bigram_counts(S).argmax(axis=1)
        err = empirical_top1(S, guess)
        trains.append(err)
        bounds.append(pacbound.occam_bound(err, complexity_bits=K, n=N_SMALL, eps=EPS))
        trues.append(bayes.top1_error(src, guess))
    b, t, e = np.array(bounds), np.array(trues), np.array(trains)
    fails, optimistic = int((b < t).sum()), int((e < t).sum())
    print(f"[3] Coverage: M = {glue('coverage_sets', M_SETS)} training sets of "
          f"{glue('coverage_docs', N_SMALL, ',')} documents (seeds "
          f"{SEED_COVERAGE}..{SEED_COVERAGE + M_SETS - 1}); top-1 table, K = "
          f"{glue('coverage_k', K, '.1f')} bits")
    # the guarantee is a failure probability per draw: at a rate of exactly epsilon the count of
    # failures is Binomial(M, epsilon), with mean epsilon M and a fair chance of exceeding it
    over = 1 - sum(math.comb(M_SETS, k) * EPS ** k * (1 - EPS) ** (M_SETS - k)
                   for k in range(round(EPS * M_SETS) + 1))
    tail = 0.05  # a one-sided 95 % upper limit: exact for a count of 0
    upper = 1 - tail ** (1 / M_SETS) if fails == 0 else float("nan")
    share = optimistic / M_SETS
    se = math.sqrt(share * (1 - share) / M_SETS)
    print(f"    bound below the true error: {glue('fails', fails)} of {glue('fails_of', M_SETS)}; "
          f"at a failure rate of exactly epsilon the expected count is epsilon M = "
          f"{glue('expected_fails', EPS * M_SETS, '.0f')}, and P(count > "
          f"{glue('fails_threshold', EPS * M_SETS, '.0f')}) = {glue('p_exceed', over, '.2f')}")
    print(f"    {glue('limit_fails', fails)} of {glue('limit_sets', M_SETS)} puts the failure rate "
          f"below {glue('fail_rate_limit', upper, '.4f')} (one-sided "
          f"{glue('limit_level', round(100 * (1 - tail)))} % upper limit, 1 - {tail}^(1/M))")
    print(f"    training error below the true error: {glue('optimistic', optimistic)} of "
          f"{glue('optimistic_of', M_SETS)}, a share of {glue('optimistic_share', share, '.3f')} "
          f"+- {glue('optimistic_se', se, '.3f')} (binomial SE)")
    print(f"    true error {t.mean():.4f} (range {t.min():.4f} to {t.max():.4f}); bound "
          f"{b.mean():.4f} on average; smallest margin bound - true "
          f"{glue('smallest_margin', np.min(b - t), '.4f')}")
    added = float(np.mean(b - e))
    bare = pacbound.occam_bound(0.0, complexity_bits=0.0, n=N_SMALL, eps=EPS)
    print(f"    the bound adds sqrt((K ln 2 + ln(1/epsilon)) / (2N)) = "
          f"{glue('added', added, '.4f')} to the training error; with K = {glue('bare_k', 0)} it "
          f"would add {glue('bare_added', bare, '.4f')}")
    assert abs(added - np.max(b - e)) < 1e-12 and bare < added / 5
    assert fails == 0 and upper < EPS and share - 0.5 > 2 * se
    return {"bound": b, "true": t, "train": e}


def block4(S, r: dict) -> None:
    tokens = int(S.lengths.sum()) + S.n_docs  # symbols and one EOD per document
    mean_len = tokens / S.n_docs
    rate = bayes.entropy_rate_bits(make_markov_source(VOCAB, CONCENTRATION, P_END, SEED_SOURCE))
    doc_bits = mean_len * rate
    store = tokens * rate  # about the entropy of S: what storing it verbatim costs
    term_store = math.sqrt((store * math.log(2) + math.log(1 / EPS)) / (2 * N_DOCS))
    print(f"[4] Memorization: S holds {glue('tokens', tokens, ',')} tokens, "
          f"{glue('mean_len', mean_len, '.1f')} a document; the chain's "
          f"stationary entropy rate is {rate:.3f} bits a token, used below as the cost of a token "
          f"(a document's uniform first symbol costs a little more, so the bit totals are "
          f"slightly low and the documents' worth slightly high)")
    print(f"    the table's K = {glue('memo_k', r['K'], ',.1f')} bits carry at most K bits about "
          f"S: {glue('docs_worth', r['K'] / doc_bits, '.1f')} documents' worth at about "
          f"{glue('doc_bits', doc_bits, '.0f')} bits each, of {glue('memo_n_docs', S.n_docs, ',')}")
    print(f"    storing S verbatim takes about {glue('store_bits', store, ',.0f')} bits (tokens x "
          f"entropy rate); complexity term sqrt((K ln 2 + ln(1/epsilon)) / (2N)) = "
          f"{glue('store_root', term_store, '.2f')}, times the loss range: vacuous")
    # the largest K whose bound, at loss range delta, stays below a random guess (log2 V)
    k_max = {emp: ((((math.log2(VOCAB) - emp) / r["delta"]) ** 2 * 2 * N_DOCS
                    - math.log(1 / EPS)) / math.log(2)) for emp in (r["emp"], 0.0)}
    for key, (emp, k) in zip(("trained", "zero"), k_max.items(), strict=True):
        # allow_trained_bits, allow_zero_bits, ...: at the table's training loss, at zero loss
        print(f"    a bound below log2 V at training loss {emp:.4f} needs K < "
              f"{glue(f'allow_{key}_bits', k, ',.0f')} bits: "
              f"{glue(f'allow_{key}_docs', k / doc_bits, '.0f')} documents' worth, "
              f"{glue(f'allow_{key}_share', 100 * k / doc_bits / S.n_docs, '.2f')} % of S")
    assert r["K"] / doc_bits < 100 and term_store > 1 and max(k_max.values()) < store / 100


def block5(r: dict) -> None:
    other = make_markov_source(VOCAB, CONCENTRATION, P_END, SEED_OTHER)
    shifted = true_bits(other, r["q"], ALPHA)
    print(f"[5] The same bounded predictor on documents of another source (Dirichlet rows, seed "
          f"{glue('other_seed', SEED_OTHER)}): true risk {glue('other_true', shifted, '.4f')} bits "
          f"per token")
    print(f"    its bound, {r['bound']:.4f}, was about the training distribution; here it is "
          f"exceeded by {glue('other_excess', shifted - r['bound'], '.4f')}")
    assert shifted > r["bound"]


def block6(S, r: dict) -> None:
    tokens = int(S.lengths.sum()) + S.n_docs
    c = r["K"] * math.log(2) + math.log(1 / EPS)
    per_doc = r["delta"] * math.sqrt(c / (2 * S.n_docs))
    per_token = r["delta"] * math.sqrt(c / (2 * tokens))
    print(f"[6] Documents or tokens: the complexity term (times the loss range) with N = "
          f"{glue('term_n_docs', S.n_docs, ',')} documents {glue('term_docs', per_doc, '.4f')}; "
          f"with {glue('term_tokens_n', tokens, ',')} tokens counted as independent "
          f"{glue('term_tokens', per_token, '.4f')}")
    print(f"    ratio {glue('term_ratio', per_doc / per_token, '.2f')} = sqrt(tokens per "
          f"document); tokens of a document are not independent, so the second is not a valid "
          f"bound here")
    assert abs(per_doc / per_token - math.sqrt(tokens / S.n_docs)) < 1e-9


def draw(cov: dict, major: float) -> None:
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(5.5, 7.4), sharex=True,
                                   height_ratios=(3, 2), layout="constrained")
    order = np.argsort(cov["train"] - cov["true"])
    xs = np.arange(M_SETS)
    ax1.axhline(major, color="#999999", ls="--", lw=1, label="majority class")
    ax1.plot(xs, cov["bound"][order], ".", color="#D55E00", ms=4, label="bound")
    ax1.plot(xs, cov["true"][order], ".", color="#009E73", ms=4, label="true error (exact)")
    ax1.set_ylabel("top-1 error")
    ax1.set_title("Each draw of S gives its own bound;\nnone falls below the truth", fontsize=10)
    ax1.legend(loc="center", bbox_to_anchor=(0.5, 0.42))
    ax2.axhline(0.0, color="#009E73", lw=1)
    ax2.plot(xs, (cov["train"] - cov["true"])[order], ".", color="#0072B2", ms=4)
    ax2.set_ylabel("training - true error")
    ax2.set_xlabel(f"{M_SETS} training sets of {N_SMALL:,} documents,\nsorted by training - true")
    script_io.save_figure(fig, "ch23_coverage.png")
    plt.close(fig)


def main() -> None:
    print("Chapter 23 -- what the bound says, and what it does not (ch23_what_the_bound_says.py)")
    src = make_markov_source(VOCAB, CONCENTRATION, P_END, SEED_SOURCE)
    S = markov_docset(src, N_DOCS, SEED_S)
    r = block1(src, S)
    block2(src, r)
    cov = block3(src)
    block4(S, r)
    block5(r)
    block6(S, r)
    draw(cov, bayes.majority_top1_error(src)[1])
    print("All assertions passed.")


if __name__ == "__main__":
    main()
