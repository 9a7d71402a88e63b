"""Chapter 3: surprisal, bits, cross-entropy, bits per token.

Claims, numbered as the output blocks (the book's own computations unless a source is named):
  [1] Surprisal -log2 q of an outcome the predictor gave probability q: 1 bit at q = 1/2, 3 bits
      at 1/8, 0.1520 bits at 0.9, 6.6439 bits at 0.01, 15.617 bits at 1/50,257; nats = bits x
      ln 2.
  [2] Entropy: a fair coin 1 bit, a 0.9 coin 0.4690 bits, the distribution p = (1/2, 1/4, 1/8,
      1/8) 1.75 bits, the uniform distribution on 4 symbols 2 bits, the largest possible.
  [3] Cross-entropy H(p, q) = H(p) + KL(p || q): q uniform gives 2 = 1.75 + 0.25 bits, q
      reversed gives 2.625 = 1.75 + 0.875; over 10,000 random pairs (seed 3) KL is never
      negative (Gibbs' inequality).
  [4] A predictor is a compressor: T = 2,000 symbols drawn from p (seed 4), coded with the
      arithmetic coder of Chapter 16 under three models; each code length is within -1 to +2
      bits of the text's summed surprisal under that model (exactly +2 here, the probabilities
      being powers of 1/2). The text's symbol counts against their expectations, and its mean
      surprisal under p against the entropy H(p), with its standard error: within 2 SE.
  [5] Bits against nats, perplexity: GPT-2 (124M) scores 3.12 nats per token on OpenWebText's
      validation split (nanoGPT README.md:151 @3adf61e) = 4.501 bits per token; perplexity
      e^3.12 = 2^4.50121 = 22.65.
  [6] The random-guess line: the uniform predictor over V = 50,257 tokens scores log2 V =
      15.617 bits on every token of every text; a bound at or above it is vacuous.
  [7] A Markov source (V = 16, Dirichlet 0.3, seed 5, documents of 64 tokens): the exact
      entropy per token of a 64-token document started from the start row (the best possible
      bits per token on these documents), the stationary entropy rate (a little lower: the first
      token, drawn from the start row, costs more), and predictors of increasing quality
      (uniform, best unigram, add-one bigrams counted from 10, 100, 1,000 documents, the true
      chain): every one scores at least the document entropy, and its excess is its KL gap.
Figure: ch03_bits.png (surprisal against probability; the Markov predictors' bits per token).
Runs in about 2 s.
"""

from __future__ import annotations

import itertools
import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
from pacbound import arithmetic, markov
from script_io import save_figure

GPT2_VOCAB = 50_257  # V of GPT-2's tokenizer (Chapter 4 reads it from the vocabulary file)
P_FOUR = (0.5, 0.25, 0.125, 0.125)  # a four-symbol source
COUNTS_FOUR = (4, 2, 1, 1)  # the same distribution as integer counts, for the coder
COUNTS_UNIFORM = (1, 1, 1, 1)
COUNTS_REVERSED = (1, 1, 2, 4)
SEED_GIBBS, PAIRS = 3, 10_000
SEED_TEXT, TEXT_LENGTH = 4, 2000
GPT2_VAL_NATS = 3.12  # nanoGPT README.md:151 @3adf61e: gpt2, val loss on OpenWebText
MARKOV_VOCAB, MARKOV_CONC, MARKOV_SEED, DOC_LENGTH = 16, 0.3, 5, 64
TRAIN_DOCS = (10, 100, 1000)


def surprisal_bits(q: float) -> float:
    """-log2 q: the information, in bits, of an outcome the predictor gave probability q."""
    return -math.log2(q)


def entropy_bits(p: tuple[float, ...] | np.ndarray) -> float:
    """H(p) = sum_x p(x) (-log2 p(x)), with 0 log 0 = 0."""
    return float(sum(-px * math.log2(px) for px in p if px > 0))


def cross_entropy_bits(p: tuple[float, ...], q: tuple[float, ...]) -> float:
    """H(p, q) = sum_x p(x) (-log2 q(x)): mean surprisal under q of outcomes drawn from p."""
    return float(sum(-px * math.log2(qx) for px, qx in zip(p, q, strict=True) if px > 0))


def kl_bits(p: tuple[float, ...], q: tuple[float, ...]) -> float:
    """KL(p || q) = sum_x p(x) log2(p(x) / q(x)) >= 0."""
    return float(sum(px * math.log2(px / qx) for px, qx in zip(p, q, strict=True) if px > 0))


def normalise(counts: tuple[int, ...]) -> tuple[float, ...]:
    """Counts -> probabilities."""
    total = sum(counts)
    return tuple(c / total for c in counts)


def bigram_table(docs: np.ndarray, vocab: int) -> np.ndarray:
    """Add-one estimate of P(next | state) from documents: shape (vocab + 1, vocab)."""
    counts = markov.transition_counts(docs, vocab) + 1
    return counts / counts.sum(axis=1, keepdims=True)


def markov_rows(chain: np.ndarray) -> list[tuple[str, float]]:
    """(predictor, exact bits per token) for predictors of increasing quality on `chain`."""
    vocab = chain.shape[1]
    pi = markov.state_marginals(chain, DOC_LENGTH)
    unigram = (pi @ chain).mean(axis=0)  # the token distribution, averaged over positions
    tables = [("uniform guess", np.full(chain.shape, 1.0 / vocab)),
              ("best unigram (no context)", np.tile(unigram, (vocab + 1, 1)))]
    rng = np.random.default_rng(MARKOV_SEED + 1)
    for n_docs in TRAIN_DOCS:
        docs = markov.sample_documents(chain, n_docs, DOC_LENGTH, rng)
        tables.append((f"bigram counted from {n_docs:,} documents", bigram_table(docs, vocab)))
    tables.append(("the true chain", chain))
    return [(name, markov.expected_loss(chain, -np.log2(q), DOC_LENGTH)) for name, q in tables]


def draw_figure(rows: list[tuple[str, float]], rate: float) -> None:
    """Top: surprisal against probability. Bottom: the Markov predictors' bits per token."""
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(5.5, 8.6),
                                      gridspec_kw={"height_ratios": [1.0, 1.1]})
    qs = np.logspace(-5, 0, 400)
    top.plot(qs, -np.log2(qs), color="#0072B2", lw=1.8)
    for q, label in ((0.5, "1/2: 1 bit"), (0.125, "1/8: 3 bits"), (0.01, "0.01: 6.64 bits"),
                     (1 / GPT2_VOCAB, "1/V: 15.6 bits")):
        top.plot(q, surprisal_bits(q), "o", color="black")
        right_of = q < 0.3  # the last label goes left of its point, inside the axes
        top.annotate(label, (q, surprisal_bits(q)), textcoords="offset points",
                     xytext=(6, 4) if right_of else (-8, -4), ha="left" if right_of else "right",
                     va="bottom" if right_of else "top")
    top.set_xscale("log")
    top.set_xlabel("probability the model gave the token that came")
    top.set_ylabel("surprisal -log2 q (bits)")
    top.set_title("Surprisal: rare means many bits")

    # names written on the bars, shorter than the output's, so that the bars keep the width
    names = [name.replace("bigram counted from ", "bigram, ").replace(" (no context)", "")
             for name, _ in rows]
    values = [value for _, value in rows]
    ys = np.arange(len(rows))[::-1]
    bottom.barh(ys, values, color="#E69F00", height=0.6)
    bottom.axvline(rate, color="#009E73", lw=1.5, ls="--",
                   label=f"best possible {rate:.3f} (entropy per token)")
    bottom.axvline(math.log2(MARKOV_VOCAB), color="#D55E00", lw=1.5, ls=":",
                   label=f"random guess log2 V = {math.log2(MARKOV_VOCAB):.0f}")
    for y, name, value in zip(ys, names, values, strict=True):
        bottom.text(0.06, y, name, va="center")
        bottom.text(value + 0.05, y, f"{value:.3f}", va="center")
    bottom.set_yticks([])
    bottom.set_xlim(0.0, math.log2(MARKOV_VOCAB) + 0.9)
    bottom.set_xlabel("bits per token (exact, on the whole population)")
    bottom.set_title("Six predictors of one Markov source")
    bottom.legend(frameon=False, loc="upper center", bbox_to_anchor=(0.3, -0.16), ncol=1)
    fig.tight_layout()
    save_figure(fig, "ch03_bits.png")
    plt.close(fig)


def main() -> None:
    print("Chapter 3 -- surprisal, bits, cross-entropy, bits per token (ch03_bits_per_token.py)")

    print("[1] surprisal -log2 q of an outcome given probability q, in bits and in nats "
          "(nats = bits x ln 2)")
    for label, q in (("1/2", 0.5), ("1/4", 0.25), ("1/8", 0.125), ("0.9", 0.9), ("0.01", 0.01),
                     ("1/50,257", 1 / GPT2_VOCAB)):
        bits = surprisal_bits(q)
        print(f"    q = {label:>8}: {bits:.4f} bits = {bits * math.log(2):.4f} nats")
    print(f"    1 nat = 1 / ln 2 = {1 / math.log(2):.4f} bits")
    assert surprisal_bits(0.125) == 3.0 and abs(surprisal_bits(0.9) - 0.1520) < 1e-4

    print("[2] entropy H(p) = sum p (-log2 p)")
    fair, biased = entropy_bits((0.5, 0.5)), entropy_bits((0.9, 0.1))
    four, flat = entropy_bits(P_FOUR), entropy_bits((0.25,) * 4)
    print(f"    fair coin {fair:.4f} bits; coin with p = 0.9: {biased:.4f} bits")
    print(f"    p = (1/2, 1/4, 1/8, 1/8): {four:.4f} bits; uniform on 4 symbols: {flat:.4f} bits "
          f"= log2 4, the largest for 4 symbols")
    assert fair == 1.0 and four == 1.75 and flat == 2.0 and abs(biased - 0.4690) < 1e-4

    print("[3] cross-entropy H(p, q) = H(p) + KL(p || q), p = (1/2, 1/4, 1/8, 1/8)")
    for label, counts in (("q uniform", COUNTS_UNIFORM), ("q reversed (1/8, 1/8, 1/4, 1/2)",
                                                        COUNTS_REVERSED), ("q = p", COUNTS_FOUR)):
        q = normalise(counts)
        h_pq, kl = cross_entropy_bits(P_FOUR, q), kl_bits(P_FOUR, q)
        print(f"    {label}: H(p, q) = {h_pq:.4f} = {four:.4f} + KL {kl:.4f} bits")
        assert abs(h_pq - (four + kl)) < 1e-12 and kl >= 0.0
    rng = np.random.default_rng(SEED_GIBBS)
    ps, qs = rng.dirichlet(np.ones(4), PAIRS), rng.dirichlet(np.ones(4), PAIRS)
    kls = (ps * np.log2(ps / qs)).sum(axis=1)
    print(f"    {PAIRS:,} random pairs (seed {SEED_GIBBS}): negative KL in {(kls < 0).sum()} "
          f"(Gibbs' inequality); smallest KL {kls.min():.1e}")
    assert (kls >= 0).all()

    rng = np.random.default_rng(SEED_TEXT)
    text = rng.choice(4, size=TEXT_LENGTH, p=P_FOUR)
    print(f"[4] a predictor is a compressor: T = {TEXT_LENGTH:,} symbols drawn from p "
          f"(seed {SEED_TEXT}), arithmetic-coded")
    for label, counts in (("q = p", COUNTS_FOUR), ("uniform", COUNTS_UNIFORM),
                          ("reversed", COUNTS_REVERSED)):
        q = normalise(counts)
        total = sum(surprisal_bits(q[s]) for s in text)
        coded = arithmetic.arithmetic_code_length_bits(text, counts)
        print(f"    model {label:>8}: summed surprisal {total:,.1f} bits "
              f"({total / TEXT_LENGTH:.4f} per symbol), code {coded:,} bits, "
              f"difference {coded - total:+.1f}")
        assert -1.0 <= coded - total <= 2.0 + 1e-3  # + the coder's rounding loss (Chapter 16)
    counts = np.bincount(text, minlength=len(P_FOUR))
    surprisals = -np.log2(np.array(P_FOUR))[text]
    mean_bits = float(surprisals.mean())
    se_bits = float(surprisals.std(ddof=1)) / math.sqrt(TEXT_LENGTH)
    print(f"    symbol counts {', '.join(f'{c:,}' for c in counts)}; expected under p "
          f"{', '.join(f'{px * TEXT_LENGTH:,.0f}' for px in P_FOUR)}")
    print(f"    mean surprisal under p {mean_bits:.4f} +- {se_bits:.4f} (SE) bits per symbol "
          f"against H(p) = {four:.4f}: {(mean_bits - four) / se_bits:+.2f} SE, within sampling "
          f"noise")
    assert abs(mean_bits - four) < 2 * se_bits

    bits = GPT2_VAL_NATS / math.log(2)
    print(f"[5] GPT-2 (124M), OpenWebText validation: {GPT2_VAL_NATS} nats per token = "
          f"{bits:.3f} bits per token")
    print(f"    perplexity e^{GPT2_VAL_NATS} = {math.exp(GPT2_VAL_NATS):.2f} = 2^{bits:.5f}: "
          f"as unsure as a uniform choice among about {math.exp(GPT2_VAL_NATS):.0f} tokens")
    assert abs(math.exp(GPT2_VAL_NATS) - 2**bits) < 1e-9

    guess = math.log2(GPT2_VOCAB)
    print(f"[6] random guess over V = {GPT2_VOCAB:,} tokens: log2 V = {guess:.3f} bits per token, "
          f"on every token of every text; GPT-2's {bits:.3f} is {guess - bits:.3f} bits below")
    assert abs(guess - 15.617) < 5e-4

    chain = markov.random_markov_chain(MARKOV_VOCAB, MARKOV_CONC,
                                       np.random.default_rng(MARKOV_SEED))
    rate = markov.document_entropy_bits(chain, DOC_LENGTH)
    stationary = markov.stationary_entropy_rate_bits(chain)
    first = markov.document_entropy_bits(chain, 1)  # the first token, from the start row
    rows = markov_rows(chain)
    print(f"[7] Markov source: V = {MARKOV_VOCAB}, Dirichlet({MARKOV_CONC}) rows (seed "
          f"{MARKOV_SEED}), documents of {DOC_LENGTH} tokens; exact bits per token")
    print(f"    entropy per token of a {DOC_LENGTH}-token document (best possible): {rate:.4f}")
    print(f"    stationary entropy rate: {stationary:.4f}; the first token, from the start row, "
          f"costs {first:.4f}")
    assert stationary < rate < first
    for name, value in rows:
        print(f"    {name:<36} {value:.4f}   KL gap {value - rate:.4f}")
    values = [value for _, value in rows]
    assert abs(values[0] - math.log2(MARKOV_VOCAB)) < 1e-9
    assert all(a > b for a, b in itertools.pairwise(values))  # each predictor beats the last
    assert abs(values[-1] - rate) < 1e-9 and all(v >= rate for v in values)

    draw_figure(rows, rate)
    print("All assertions passed.")


if __name__ == "__main__":
    main()
