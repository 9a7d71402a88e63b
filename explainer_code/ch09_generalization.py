"""Chapter 9: training risk, population risk, and what "with probability 1 - eps" means.

The source is a fixed random first-order Markov chain over V = 16 tokens (documents of 32 tokens,
rows drawn from Dirichlet(0.1), seed SOURCE_SEED), so the population risk of any model is a finite
sum computed exactly (pacbound.markov), not estimated on a test set.

Claims, numbered as the output blocks:
  [1] The source: the per-token entropy of a 32-token document (the best possible bits per
      token on these documents), the chain's stationary entropy rate (the limit for long
      documents), the random-guess rate log2 V and the best possible top-1 error, all exact.
  [2] Overfitting: an add-kappa bigram model trained on N documents. With kappa = 0.01 and few
      documents the training loss is far below the population loss; the gap closes as N grows.
      kappa = 1 has a smaller gap, yet no lower population loss: a small gap is not a good model.
  [3] The exact population risk agrees with a Monte Carlo estimate on fresh documents (within
      4 standard errors).
  [4] "With probability at least 1 - eps over the draw of the training set": a predictor fixed
      before the data, N = 100 documents redrawn M = 4,000 times; Hoeffding's bound holds in a
      fraction of draws above 1 - eps, by more than 3 Monte Carlo standard errors, for four eps.
      The mean training error over the M draws equals the population error within 3 standard
      errors (unbiased). For contrast, "population <= training error" holds in about half the
      draws, and training error + one standard error in about 84 % of them.
  [5] Vacuous and non-vacuous: the yardsticks (log2 50,257 = 15.617 bits per token for GPT-2,
      top-1 error 1) and a Hoeffding bound that says nothing at N = 3 and something at N = 100.
Figure: ch09_overfitting.png (train vs population loss against m; 100 redraws of a bound).
Deterministic: numpy Generators with fixed seeds; values that pass through matrix products are
printed with at most 4 significant digits.
"""

from __future__ import annotations

import math

import numpy as np
import pacbound as pb
from pacbound import markov
from script_glue import glue

VOCAB = 16  # tokens of the toy source
DOC_LENGTH = 32  # tokens per document
CONCENTRATION = 0.1  # Dirichlet parameter of each row: small = peaked, predictable rows
SOURCE_SEED = 9  # fixes the chain itself
DATA_SEED = 909  # training sets of block [2]
MC_SEED = 9009  # fresh documents of block [3]
SIM_SEED = 90009  # redraws of block [4]
PILOT_SEED = 900009  # the pilot documents that fix block [4]'s predictor

TRAIN_SIZES = (1, 2, 4, 8, 16, 32, 64, 128, 256, 1024, 4096)  # documents
SMALL_M = 256  # up to here one sample shows the gap clearly
KAPPA = "$\\kappa$"  # the add-kappa constant, in figure labels
SMOOTHING = (0.01, 1.0)  # add-kappa constants
MC_DOCS = 20_000
MC_KAPPA = 0.01  # the add-kappa constant of the model block [3] checks
N_DOCS = 100  # training set of block [4]
PILOT_DOCS = 50
REPEATS = 4_000
EPS_GRID = (0.5, 0.2, 0.05, 0.01)
EPS = 0.05
GPT2_VOCAB = 50_257  # GPT-2's vocabulary, the yardstick of block [5]
FIGURE_NAME = "ch09_overfitting.png"


def add_k_model(counts: np.ndarray, k: float) -> np.ndarray:
    """q(x | s) = (c[s, x] + kappa) / (c[s] + kappa V): the add-kappa bigram model."""
    return (counts + k) / (counts.sum(axis=1, keepdims=True) + k * counts.shape[1])


def train_and_population_bits(chain: np.ndarray, docs: np.ndarray, k: float) -> tuple[float, float]:
    """Bits per token of the add-kappa model fitted to `docs`: on `docs` and on the population."""
    q = add_k_model(markov.transition_counts(docs, VOCAB), k)
    surprisal = -np.log2(q)
    train = float(markov.per_document_loss(docs, surprisal).mean())
    population = markov.expected_loss(chain, surprisal, DOC_LENGTH)
    return train, population


def sig4(x: float) -> str:
    """At most 4 significant digits: what survives BLAS summation order."""
    return f"{x:.4g}"


def block1_source(chain: np.ndarray) -> dict[str, float]:
    h = markov.document_entropy_bits(chain, DOC_LENGTH)
    rate = markov.stationary_entropy_rate_bits(chain)
    guess = math.log2(VOCAB)
    bayes = markov.top1_error_table(chain.argmax(axis=1), VOCAB)
    bayes_err = markov.expected_loss(chain, bayes, DOC_LENGTH)
    print(
        f"[1] Source: Markov chain, V = {glue('vocab', VOCAB)} tokens, documents of "
        f"{glue('doc_length', DOC_LENGTH)} tokens, rows "
        f"Dirichlet({glue('concentration', CONCENTRATION)}), "
        f"seed {glue('source_seed', SOURCE_SEED)}"
    )
    print(f"    {glue('n_distributions', VOCAB + 1)} distributions: one per previous token, "
          "one for the first token")
    print(f"    entropy of a {glue('entropy_doc_length', DOC_LENGTH)}-token document, per token  "
          f"{glue('doc_entropy', h, '.3f')} bits (best possible loss)")
    print(f"    stationary entropy rate (long documents) {glue('entropy_rate', rate, '.4g')} bits "
          "per token")
    print(f"    random guess, log2 V                     {glue('guess_bits', guess, '.3f')} bits "
          "per token")
    print(f"    best possible top-1 error (exact)        {glue('bayes_error', bayes_err, '.3f')}")
    print(f"    random-guess top-1 error, 1 - 1/V        "
          f"{glue('guess_error', 1 - 1 / VOCAB, '.4f')}")
    assert 0.5 < h < guess - 1.0, "the source must be far from uniform, yet not deterministic"
    assert abs(h - rate) > 0.01, "the first token makes a short document differ from the limit"
    assert 0.1 < bayes_err < 0.6
    return {"entropy": h, "bayes_err": bayes_err}


def block2_overfitting(chain: np.ndarray, entropy: float) -> dict[float, list[tuple]]:
    rng = np.random.default_rng(DATA_SEED)
    pool = markov.sample_documents(chain, max(TRAIN_SIZES), DOC_LENGTH, rng)
    rows: dict[float, list[tuple]] = {k: [] for k in SMOOTHING}
    print(
        "[2] Overfitting: add-kappa bigram models trained on the first N documents of one sample "
        f"(seed {glue('data_seed', DATA_SEED)}); bits per token"
    )
    print(
        f"         N   tokens  |  kappa = {glue('kappa_small', SMOOTHING[0], 'g')}: train  "
        f"population       gap  |  kappa = {glue('kappa_large', SMOOTHING[1], 'g')}: train  "
        "population"
    )
    for m in TRAIN_SIZES:
        docs = pool[:m]
        cells = []
        for k in SMOOTHING:
            train, pop = train_and_population_bits(chain, docs, k)
            rows[k].append((m, train, pop))
            cells.append((train, pop))
        (t1, p1), (t2, p2) = cells
        key = f"overfit_N{m}"  # kappa = 0.01; the add-1 (kappa = 1) columns end in _add1
        print(
            f"    {glue(key, m, '6,')} {glue(f'{key}_tokens', m * DOC_LENGTH, '8,')}  |  "
            f"{glue(f'{key}_train', sig4(t1), '>14')} {glue(f'{key}_population', sig4(p1), '>11')} "
            f"{glue(f'{key}_gap', sig4(p1 - t1), '>9')}  |  "
            f"{glue(f'{key}_train_add1', sig4(t2), '>11')} "
            f"{glue(f'{key}_population_add1', sig4(p2), '>11')}"
        )
    small, big = rows[0.01][0], rows[0.01][-1]
    print(
        f"    kappa = 0.01, N = {glue('small_N', small[0])}: training loss "
        f"{glue('small_train', sig4(small[1]))} bits, population loss "
        f"{glue('small_population', sig4(small[2]))} bits, "
        f"{glue('small_ratio', small[2] / small[1], '.1f')} times as much"
    )
    print(
        f"    kappa = 0.01, N = {glue('big_N', big[0], ',')}: population loss "
        f"{glue('big_population', sig4(big[2]))} vs document entropy "
        f"{glue('big_entropy', entropy, '.3f')}; train and population agree to "
        f"{glue('big_agreement', abs(big[2] - big[1]), '.1g')} bits"
    )
    gaps = {k: [pop - train for m, train, pop in rows[k] if m <= SMALL_M] for k in SMOOTHING}
    print(
        f"    for N <= {glue('small_m_max', SMALL_M)}: training loss below population loss for "
        "both kappa; "
        "kappa = 1 has the smaller gap at every N, yet never the lower population loss"
    )
    for k in SMOOTHING:
        assert all(g > 0 for g in gaps[k]), "training loss is optimistic on small samples"
        assert all(pop > entropy for _, _, pop in rows[k]), "nothing beats the entropy"
    assert all(a > b for a, b in zip(gaps[0.01], gaps[1.0], strict=True))
    assert all(a[2] <= b[2] for a, b in zip(rows[0.01], rows[1.0], strict=True))
    assert small[2] - small[1] > 2.0 and small[2] > 4 * small[1]
    assert abs(big[2] - big[1]) < 0.01 and big[2] - entropy < 0.005
    return rows


def block3_monte_carlo(chain: np.ndarray) -> None:
    rng = np.random.default_rng(DATA_SEED)
    n_train = 8  # the training documents of the model checked here
    docs = markov.sample_documents(chain, n_train, DOC_LENGTH, rng)
    q = add_k_model(markov.transition_counts(docs, VOCAB), MC_KAPPA)
    surprisal = -np.log2(q)
    exact = markov.expected_loss(chain, surprisal, DOC_LENGTH)
    fresh = markov.sample_documents(chain, MC_DOCS, DOC_LENGTH, np.random.default_rng(MC_SEED))
    per_doc = markov.per_document_loss(fresh, surprisal)
    mean = float(per_doc.mean())
    se = float(per_doc.std(ddof=1) / math.sqrt(MC_DOCS))
    z = (mean - exact) / se
    print(
        f"[3] The N = {glue('mc_train_N', n_train)}, kappa = {glue('mc_kappa', MC_KAPPA)} model on "
        f"{glue('mc_docs', MC_DOCS, ',')} fresh documents (seed {glue('mc_seed', MC_SEED)}): "
        f"{glue('mc_mean', sig4(mean))} bits per token, standard error {glue('mc_se', se, '.2g')}"
    )
    print(f"    exact population loss {glue('mc_exact', sig4(exact))}; difference "
          f"{glue('mc_z', abs(z), '.2g')} standard errors")
    assert abs(z) < 4.0


def block4_repeated_draws(chain: np.ndarray) -> dict[str, object]:
    pilot = markov.sample_documents(
        chain, PILOT_DOCS, DOC_LENGTH, np.random.default_rng(PILOT_SEED)
    )
    predictions = markov.transition_counts(pilot, VOCAB).argmax(axis=1)
    table = markov.top1_error_table(predictions, VOCAB)
    true_risk = markov.expected_loss(chain, table, DOC_LENGTH)
    rng = np.random.default_rng(SIM_SEED)
    docs = markov.sample_documents(chain, REPEATS * N_DOCS, DOC_LENGTH, rng)
    per_doc = markov.per_document_loss(docs, table).reshape(REPEATS, N_DOCS)
    train_err = per_doc.mean(axis=1)  # one training error per redraw
    doc_sd = float(per_doc.std())
    print(
        f"[4] A top-1 predictor fixed in advance (from {glue('pilot_docs', PILOT_DOCS)} pilot "
        f"documents, seed {glue('pilot_seed', PILOT_SEED)}); exact population error "
        f"{glue('true_risk', true_risk, '.4f')}"
    )
    print(
        f"    training sets of N = {glue('sim_N', N_DOCS)} documents drawn "
        f"M = {glue('sim_repeats', REPEATS, ',')} times (seed {glue('sim_seed', SIM_SEED)}); "
        f"Hoeffding: population error <= training error + sqrt(ln(1/eps) / (2N))"
    )
    print(
        f"    training error over the draws: {glue('train_error_min', train_err.min(), '.4f')} to "
        f"{glue('train_error_max', train_err.max(), '.4f')}; a document's error has standard "
        f"deviation {glue('doc_sd', doc_sd, '.3f')}"
    )
    print("    eps   slack   held: Hoeffding   1 - eps   std. error at 1 - eps   margin")
    held_at = {}
    for eps in EPS_GRID:
        slack = pb.hoeffding_bound(0.0, n=N_DOCS, eps=eps)
        held = float((train_err + slack >= true_risk).mean())
        se = math.sqrt(eps * (1 - eps) / REPEATS)  # of a frequency whose true value is 1 - eps
        margin = (held - (1 - eps)) / se
        held_at[eps] = (held, se, slack)
        key = f"held_eps{round(100 * eps)}"
        print(
            f"    {glue(f'{key}_eps', eps, '<5')} {glue(f'{key}_slack', slack, '.4f')}        "
            f"{glue(f'{key}_held', held, '.4f')}       {glue(f'{key}_required', 1 - eps, '.2f')}"
            f"          {glue(f'{key}_se', se, '.4f')}          "
            f"{glue(f'{key}_margin', margin, '.1f')}"
        )
        assert held - 3 * se > 1 - eps, f"the bound must hold with probability >= 1 - {eps}"
    mean_err = float(train_err.mean())
    mean_se = float(train_err.std(ddof=1) / math.sqrt(REPEATS))
    print(
        f"    mean training error over the {glue('mean_repeats', REPEATS, ',')} draws "
        f"{glue('mean_train_error', mean_err, '.4f')} (standard error "
        f"{glue('mean_train_error_se', mean_se, '.2g')}) against the population error "
        f"{glue('mean_true_risk', true_risk, '.4f')}: unbiased"
    )
    assert abs(mean_err - true_risk) < 3 * mean_se
    naive = float((train_err >= true_risk).mean())
    one_se = float((train_err + doc_sd / math.sqrt(N_DOCS) >= true_risk).mean())
    se_half = math.sqrt(naive * (1 - naive) / REPEATS)
    print(
        f"    for contrast, 'population error <= training error' held in "
        f"{glue('naive_held', naive, '.4f')} of draws (std. error "
        f"{glue('naive_held_se', se_half, '.4f')}); training error + one standard error "
        f"({glue('one_se_width', doc_sd / math.sqrt(N_DOCS), '.4f')}) in "
        f"{glue('one_se_held', one_se, '.4f')}"
    )
    phi1 = 0.5 * (1 + math.erf(1 / math.sqrt(2)))
    se_one = math.sqrt(one_se * (1 - one_se) / REPEATS)
    print(
        f"    a normal approximation predicts Phi(1) = {glue('phi1', phi1, '.4f')} for one "
        f"standard error; the frequency {glue('phi_frequency', one_se, '.4f')} has standard error "
        f"{glue('phi_frequency_se', se_one, '.4f')}: a difference of "
        f"{glue('phi_difference', abs(one_se - phi1) / se_one, '.1f')} standard errors"
    )
    assert abs(one_se - phi1) < 2 * se_one, "one standard error holds about as often as Phi(1)"
    print(
        f"    why Hoeffding never failed here: it must cover any loss in [0, 1], whose standard "
        f"deviation can reach {glue('worst_sd', 0.5)}; this one's is "
        f"{glue('why_doc_sd', doc_sd, '.3f')}"
    )
    assert abs(naive - 0.5) < 0.1 and 0.75 < one_se < 0.92
    assert doc_sd < 0.25
    first = [(float(e), pb.hoeffding_bound(float(e), n=N_DOCS, eps=EPS)) for e in train_err[:5]]
    print(f"    the first five draws at eps = {EPS}: (training error, bound)")
    print("      " + "  ".join(f"({e:.4f}, {b:.4f})" for e, b in first))
    return {"true_risk": true_risk, "train_err": train_err, "held": held_at}


def block5_vacuous(bayes_err: float, sim: dict[str, object]) -> None:
    gpt2_guess = pb.random_guess_bits_per_token()
    train_err = sim["train_err"]
    typical = float(np.median(train_err))  # type: ignore[arg-type]
    n_small = 3
    b_small = pb.hoeffding_bound(typical, n=n_small, eps=EPS)
    b_big = pb.hoeffding_bound(typical, n=N_DOCS, eps=EPS)
    print("[5] Yardsticks: a bound at or above these says nothing")
    print(f"    GPT-2: random guess log2 {glue('gpt2_vocab', GPT2_VOCAB, ',')} = "
          f"{glue('gpt2_guess_bits', gpt2_guess, '.3f')} bits per token; top-1 error 1")
    print(
        f"    toy source: log2 V = {glue('toy_guess_bits', math.log2(VOCAB), '.0f')} bits per "
        f"token; top-1 error 1 - 1/V = {glue('toy_guess_error', 1 - 1 / VOCAB, '.4f')} "
        "(a uniform guess), and 1 (any predictor)"
    )
    print(
        f"    the median training error of block [4], "
        f"{glue('median_train_error', typical, '.4f')}, at eps = {glue('vacuous_eps', EPS)}: "
        f"bound {glue('bound_few', b_small, '.4f')} with N = {glue('few_docs', n_small)} "
        f"documents (vacuous, above 1), {glue('bound_many', b_big, '.4f')} with "
        f"N = {glue('many_docs', N_DOCS)} (non-vacuous)"
    )
    print(
        f"    non-vacuous is not the same as useful: {glue('useful_bound', b_big, '.4f')} is "
        f"still above the best possible error {glue('useful_best_error', bayes_err, '.3f')}"
    )
    assert round(gpt2_guess, 3) == 15.617 and gpt2_guess == math.log2(GPT2_VOCAB)
    assert b_small > 1.0 > b_big > bayes_err


def draw_figure(rows: dict[float, list[tuple]], entropy: float, sim: dict[str, object]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from script_io import save_figure

    blue, orange, grey, red = "#0072B2", "#E69F00", "#666666", "#D55E00"  # Okabe-Ito
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(5.5, 8.8))
    for k, colour in zip(SMOOTHING, (blue, orange), strict=True):
        m = [r[0] for r in rows[k]]
        lab = f"{KAPPA} = {k:g}"
        ax1.plot(m, [r[1] for r in rows[k]], "o--", color=colour, label=f"training, {lab}")
        ax1.plot(m, [r[2] for r in rows[k]], "s-", color=colour, label=f"population, {lab}")
    ax1.axhline(entropy, color=grey, lw=1)
    ax1.text(4000, entropy - 0.08, f"document entropy {entropy:.2f}", color=grey, ha="right",
             va="top")
    ax1.axhline(math.log2(VOCAB), color=grey, lw=1, ls=":")
    ax1.text(1, math.log2(VOCAB) - 0.08, "random guess, log2 V = 4", color=grey, va="top")
    ax1.set_ylim(0.5, 4.3)
    ax1.set_xscale("log")
    ax1.set_xlabel("training documents N")
    ax1.set_ylabel("bits per token")
    ax1.set_title("Add-$\\kappa$ bigram model: training vs population loss", fontsize=10)
    ax1.legend(loc="upper right", bbox_to_anchor=(1.0, 0.93))

    true_risk = float(sim["true_risk"])  # type: ignore[arg-type]
    train_err = np.asarray(sim["train_err"])[:100]
    bounds = np.array([pb.hoeffding_bound(float(e), n=N_DOCS, eps=EPS) for e in train_err])
    ok = bounds >= true_risk
    idx = np.arange(len(train_err))
    ax2.vlines(idx, train_err, bounds, color=np.where(ok, blue, red), lw=1.2)
    ax2.plot(idx, train_err, ".", color=grey, ms=3, label="training error")
    ax2.axhline(true_risk, color="black", lw=1.2, label="population error (exact)")
    ax2.set_xlabel("redraw of the training set")
    ax2.set_ylabel("top-1 error")
    ax2.set_title(f"100 draws: training error up to its bound (eps = {EPS})", fontsize=10)
    ax2.legend(loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=2, frameon=False)
    fig.tight_layout()
    save_figure(fig, FIGURE_NAME)
    plt.close(fig)


def main() -> None:
    print("Chapter 9 -- training risk, population risk, and the probability of a bound "
          "(ch09_generalization.py)")  # fmt: skip
    chain = markov.random_markov_chain(VOCAB, CONCENTRATION, np.random.default_rng(SOURCE_SEED))
    source = block1_source(chain)
    rows = block2_overfitting(chain, source["entropy"])
    block3_monte_carlo(chain)
    sim = block4_repeated_draws(chain)
    block5_vacuous(source["bayes_err"], sim)
    draw_figure(rows, source["entropy"], sim)
    print("All assertions passed.")


if __name__ == "__main__":
    main()
