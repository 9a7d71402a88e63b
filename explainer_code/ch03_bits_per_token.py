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
Runs in about 2 s. Every value the chapter quotes is printed through `glue(name, ...)`
(script_glue.py), so that the page refers to it by name.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
from pacbound import arithmetic, markov
from script_glue import glue
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


def markov_rows(chain: np.ndarray) -> list[tuple[str, str, int | None, float]]:
    """(key, predictor, documents counted or None, exact bits per token) for predictors of
    increasing quality on `chain`; the key names the row's glued values."""
    vocab = chain.shape[1]
    pi = markov.state_marginals(chain, DOC_LENGTH)
    unigram = (pi @ chain).mean(axis=0)  # the token distribution, averaged over positions
    tables = [("uniform", "uniform guess", None, np.full(chain.shape, 1.0 / vocab)),
              ("unigram", "best unigram (no context)", None, np.tile(unigram, (vocab + 1, 1)))]
    rng = np.random.default_rng(MARKOV_SEED + 1)
    for n_docs in TRAIN_DOCS:
        docs = markov.sample_documents(chain, n_docs, DOC_LENGTH, rng)
        tables.append((f"bigram_{n_docs}", f"bigram counted from {n_docs:,} documents", n_docs,
                       bigram_table(docs, vocab)))
    tables.append(("true", "the true chain", None, chain))
    return [(key, name, n_docs, markov.expected_loss(chain, -np.log2(q), DOC_LENGTH))
            for key, name, n_docs, q in tables]


def draw_figure(rows: list[tuple[str, str, int | None, float]], rate: float) -> None:
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
             for _, name, _, _ in rows]
    values = [value for _, _, _, value in rows]
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


def fraction_text(p: float) -> str:
    """0.125 -> '1/8': a probability of the four-symbol source as the text writes it."""
    return str(Fraction(p).limit_denominator())


def glue_tuple(key: str, probabilities: tuple[float, ...]) -> str:
    """'(1/2, 1/4, 1/8, 1/8)', each component glued as `{key}_a`, `{key}_b`, ..."""
    return "(" + ", ".join(glue(f"{key}_{letter}", fraction_text(p))
                           for letter, p in zip("abcd", probabilities, strict=True)) + ")"


def main() -> None:
    print("Chapter 3 -- surprisal, bits, cross-entropy, bits per token (ch03_bits_per_token.py)")

    print("[1] surprisal -log2 q of an outcome given probability q, in bits and in nats "
          "(nats = bits x ln 2)")
    for key, label, q in (("half", "1/2", 0.5), ("quarter", "1/4", 0.25), ("eighth", "1/8", 0.125),
                          ("p09", "0.9", 0.9), ("p001", "0.01", 0.01),
                          ("vocab", "1/50,257", 1 / GPT2_VOCAB)):
        bits = surprisal_bits(q)
        print(f"    q = {glue(f'surprisal_q_{key}', label, '>8')}: "
              f"{glue(f'surprisal_bits_{key}', bits, '.4f')} bits = "
              f"{glue(f'surprisal_nats_{key}', bits * math.log(2), '.4f')} nats")
    print(f"    1 nat = 1 / ln 2 = {glue('nat_bits', 1 / math.log(2), '.4f')} bits")
    assert surprisal_bits(0.125) == 3.0 and abs(surprisal_bits(0.9) - 0.1520) < 1e-4

    print("[2] entropy H(p) = sum p (-log2 p)")
    fair, biased = entropy_bits((0.5, 0.5)), entropy_bits((0.9, 0.1))
    four, flat = entropy_bits(P_FOUR), entropy_bits((0.25,) * 4)
    print(f"    fair coin {glue('entropy_fair', fair, '.4f')} bits; coin with p = "
          f"{glue('entropy_biased_p', 0.9)}: {glue('entropy_biased', biased, '.4f')} bits")
    print(f"    p = {glue_tuple('entropy_p', P_FOUR)}: {glue('entropy_four', four, '.4f')} bits; "
          f"uniform on {glue('entropy_flat_symbols', 4)} symbols: "
          f"{glue('entropy_flat', flat, '.4f')} bits = log2 4, the largest for 4 symbols")
    assert fair == 1.0 and four == 1.75 and flat == 2.0 and abs(biased - 0.4690) < 1e-4

    print(f"[3] cross-entropy H(p, q) = H(p) + KL(p || q), p = {glue_tuple('ce_p', P_FOUR)}")
    reversed_q = normalise(COUNTS_REVERSED)
    for key, label, counts in (("uniform", "q uniform", COUNTS_UNIFORM),
                               ("reversed", f"q reversed {glue_tuple('ce_reversed_q', reversed_q)}",
                                COUNTS_REVERSED),
                               ("p", "q = p", COUNTS_FOUR)):
        q = normalise(counts)
        h_pq, kl = cross_entropy_bits(P_FOUR, q), kl_bits(P_FOUR, q)
        print(f"    {label}: H(p, q) = {glue(f'ce_{key}', h_pq, '.4f')} = "
              f"{glue(f'ce_{key}_entropy', four, '.4f')} + KL {glue(f'ce_{key}_kl', kl, '.4f')} "
              "bits")
        assert abs(h_pq - (four + kl)) < 1e-12 and kl >= 0.0
    rng = np.random.default_rng(SEED_GIBBS)
    ps, qs = rng.dirichlet(np.ones(4), PAIRS), rng.dirichlet(np.ones(4), PAIRS)
    kls = (ps * np.log2(ps / qs)).sum(axis=1)
    print(f"    {glue('gibbs_pairs', PAIRS, ',')} random pairs "
          f"(seed {glue('gibbs_seed', SEED_GIBBS)}): negative KL in "
          f"{glue('gibbs_negative', int((kls < 0).sum()))} (Gibbs' inequality); "
          f"smallest KL {glue('gibbs_smallest', kls.min(), '.1e')}")
    assert (kls >= 0).all()

    rng = np.random.default_rng(SEED_TEXT)
    text = rng.choice(4, size=TEXT_LENGTH, p=P_FOUR)
    print(f"[4] a predictor is a compressor: T = {glue('text_length', TEXT_LENGTH, ',')} symbols "
          f"drawn from p (seed {glue('text_seed', SEED_TEXT)}), arithmetic-coded")
    for key, label, counts in (("p", "q = p", COUNTS_FOUR), ("uniform", "uniform", COUNTS_UNIFORM),
                               ("reversed", "reversed", COUNTS_REVERSED)):
        q = normalise(counts)
        total = sum(surprisal_bits(q[s]) for s in text)
        coded = arithmetic.arithmetic_code_length_bits(text, counts)
        print(f"    model {label:>8}: summed surprisal "
              f"{glue(f'coder_{key}_surprisal', total, ',.1f')} bits "
              f"({glue(f'coder_{key}_per_symbol', total / TEXT_LENGTH, '.4f')} per symbol), code "
              f"{glue(f'coder_{key}_code', coded, ',')} bits, difference "
              f"{glue(f'coder_{key}_difference', coded - total, '+.1f')}")
        assert -1.0 <= coded - total <= 2.0 + 1e-3  # + the coder's rounding loss (Chapter 16)
    counts = np.bincount(text, minlength=len(P_FOUR))
    surprisals = -np.log2(np.array(P_FOUR))[text]
    mean_bits = float(surprisals.mean())
    se_bits = float(surprisals.std(ddof=1)) / math.sqrt(TEXT_LENGTH)
    letters = "abcd"  # symbol_count_a counts the first symbol, expected_count_a its expectation
    observed = ", ".join(glue(f"symbol_count_{s}", int(c), ",")
                         for s, c in zip(letters, counts, strict=True))
    expected = ", ".join(glue(f"expected_count_{s}", px * TEXT_LENGTH, ",.0f")
                         for s, px in zip(letters, P_FOUR, strict=True))
    print(f"    symbol counts {observed}; expected under p {expected}")
    z = (mean_bits - four) / se_bits
    print(f"    mean surprisal under p {glue('mean_surprisal', mean_bits, '.4f')} +- "
          f"{glue('mean_surprisal_se', se_bits, '.4f')} (SE) bits per symbol against H(p) = "
          f"{glue('mean_entropy', four, '.4f')}: {'+' if z >= 0 else '-'}"
          f"{glue('mean_distance_se', abs(z), '.2f')} SE, within sampling noise")
    assert abs(mean_bits - four) < 2 * se_bits

    bits = GPT2_VAL_NATS / math.log(2)
    print(f"[5] GPT-2 (124M), OpenWebText validation: {glue('gpt2_nats', GPT2_VAL_NATS)} nats per "
          f"token = {glue('gpt2_bits', bits, '.3f')} bits per token")
    print(f"    perplexity e^{glue('perplexity_exponent', GPT2_VAL_NATS)} = "
          f"{glue('perplexity', math.exp(GPT2_VAL_NATS), '.2f')} = "
          f"2^{glue('perplexity_bits', bits, '.5f')}: as unsure as a uniform choice among about "
          f"{glue('perplexity_tokens', math.exp(GPT2_VAL_NATS), '.0f')} tokens")
    assert abs(math.exp(GPT2_VAL_NATS) - 2**bits) < 1e-9

    guess = math.log2(GPT2_VOCAB)
    print(f"[6] random guess over V = {glue('guess_vocab', GPT2_VOCAB, ',')} tokens: log2 V = "
          f"{glue('guess_bits', guess, '.3f')} bits per token, on every token of every text; "
          f"GPT-2's {glue('guess_gpt2_bits', bits, '.3f')} is "
          f"{glue('guess_gap', guess - bits, '.3f')} bits below")
    assert abs(guess - 15.617) < 5e-4

    chain = markov.random_markov_chain(MARKOV_VOCAB, MARKOV_CONC,
                                       np.random.default_rng(MARKOV_SEED))
    rate = markov.document_entropy_bits(chain, DOC_LENGTH)
    stationary = markov.stationary_entropy_rate_bits(chain)
    first = markov.document_entropy_bits(chain, 1)  # the first token, from the start row
    rows = markov_rows(chain)
    print(f"[7] Markov source: V = {glue('markov_vocab', MARKOV_VOCAB)}, "
          f"Dirichlet({glue('markov_concentration', MARKOV_CONC)}) rows (seed "
          f"{glue('markov_seed', MARKOV_SEED)}), documents of "
          f"{glue('markov_doc_length', DOC_LENGTH)} tokens; exact bits per token")
    print(f"    entropy per token of a {glue('entropy_doc_length', DOC_LENGTH)}-token document "
          f"(best possible): {glue('markov_entropy', rate, '.4f')}")
    print(f"    stationary entropy rate: {glue('markov_stationary', stationary, '.4f')}; the first "
          f"token, from the start row, costs {glue('markov_first_token', first, '.4f')}")
    assert stationary < rate < first
    for key, name, n_docs, value in rows:
        # the label, its number glued, padded to 36 characters as printed
        label = (name if n_docs is None else
                 name.replace(f"{n_docs:,}", glue(f"markov_docs_{n_docs}", n_docs, ",")))
        print(f"    {label}{' ' * (36 - len(name))} {glue(f'markov_{key}_bits', value, '.4f')}"
              f"   KL gap {glue(f'markov_{key}_gap', value - rate, '.4f')}")
    values = [value for _, _, _, value in rows]
    assert abs(values[0] - math.log2(MARKOV_VOCAB)) < 1e-9
    assert all(a > b for a, b in itertools.pairwise(values))  # each predictor beats the last
    assert abs(values[-1] - rate) < 1e-9 and all(v >= rate for v in values)

    draw_figure(rows, rate)
    print("All assertions passed.")


if __name__ == "__main__":
    main()
