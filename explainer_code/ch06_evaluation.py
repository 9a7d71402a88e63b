"""Chapter 6: scoring a language model -- bits per token, perplexity, top-k error, windows.

The source has exact answers: a "copy source" on V = 16 tokens. Each token is, with probability
0.9, a copy of the token 8 places back, and otherwise a fresh draw from a fixed distribution pi
(pi proportional to 1 / (v + 1)); the first 8 tokens of a document are fresh. Its best predictor,
given at least 8 tokens of context, gives the token 8 back probability 0.9 + 0.1 pi and every
other token 0.1 pi; with less context it can only predict pi. Documents have T = 64 tokens.

Claims, numbered as the output blocks:
  [1] The source and the exact per-token scores of four predictors: uniform guessing, the
      majority class (all probability on the most frequent token; its top-k guesses are the k
      most frequent), the unigram pi, and the best predictor with enough context: bits per
      token, perplexity 2^bits, top-1 and top-3 error. Tokens of equal probability are ranked
      in random order, so the uniform guess's top-k set is k tokens drawn at random and its
      top-k error, the expectation over that draw, is 1 - k / V.
  [2] The same for GPT-2's vocabulary of 50,257 tokens: uniform guessing costs log2 V bits, its
      top-1 error is 1 - 1 / V and its top-100 error 1 - 100 / V (ties in random order).
  [3] A bounded and an unbounded loss: the "copy-only" predictor (probability 1 on the token 8
      back) has the best top-1 error but infinite bits per token, because it gives probability 0
      to every fresh token that differs from the copy (its measured share within 2 standard
      errors, over the documents, of the exact one); the 0-1 loss is always in [0, 1].
  [4] Monte Carlo estimates: n = 100 documents per estimate, M = 200 repetitions (seed 6): the
      mean estimate agrees with the exact value within 2 standard errors of that mean (printed),
      the standard error computed from one sample matches the spread across repetitions (within
      2 standard errors of that spread, printed), and
      mean +- 2 SE covers the exact value about 95 % of the time.
  [5] Windows: a model that reads at most T_max = 16 tokens scores 64-token documents in
      independent blocks, or in sliding windows with stride s (the scheme of the authors'
      compute_bound_scores, sublora/bounds/bound_utils.py:40-87 @c606ea6, with T_max = 1,024 and
      s = 100 there); exact bits per token and top-1 error of each scheme, the tokens each
      scores, the positions it runs the model on, and a Monte Carlo check (n = 100, M = 200).
Deterministic: numpy default_rng(6), float64; values printed to 4 decimals at most.
The figure ch06_windows.png draws the context each scheme gives every position, and its loss.
Every value the chapter quotes is printed through `glue(name, ...)` (script_glue.py), so that
the page refers to it by name.
"""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from script_glue import glue
from script_io import save_figure

SEED = 6
V, LAG, COPY = 16, 8, 0.9  # vocabulary, copy distance, copy probability
T = 64  # tokens per document
TOP_K = 3
N_DOCS, M_REPS = 100, 200  # documents per estimate; Monte Carlo repetitions
BLOCK = 16  # the model's context window T_max in [5]
STRIDES = (12, 4)
GPT2_V = 50_257
FIGURE_NAME = "ch06_windows.png"


def fresh_distribution(vocab: int) -> np.ndarray:
    """pi(v) proportional to 1 / (v + 1): token 0 is the most frequent."""
    w = 1.0 / np.arange(1, vocab + 1)
    return w / w.sum()


def sample_copy_docs(rng: np.random.Generator, pi: np.ndarray, n: int, length: int) -> np.ndarray:
    """n documents (n, length): fresh draws from pi, each later token a copy of the one LAG back
    with probability COPY."""
    docs = rng.choice(len(pi), size=(n, length), p=pi)
    copy = rng.random((n, length)) < COPY
    for t in range(LAG, length):
        docs[:, t] = np.where(copy[:, t], docs[:, t - LAG], docs[:, t])
    return docs


def entropy_bits(p: np.ndarray) -> float:
    p = p[p > 0]
    return float(-(p * np.log2(p)).sum())


def topk_hit_random_ties(q: np.ndarray, k: int) -> np.ndarray:
    """P(token v is among the k best guesses of q), tied tokens ranked in random order.

    With g tokens strictly more probable than v and m tokens tied with it (v included), v is among
    the k best with probability min(1, max(0, (k - g) / m)); for the uniform q that is k / V.
    """
    s = np.sort(q)
    right = np.searchsorted(s, q, side="right")
    above = len(q) - right
    tied = right - np.searchsorted(s, q, side="left")
    return np.clip((k - above) / tied, 0.0, 1.0)


def copy_predictive(pi: np.ndarray, c: int) -> np.ndarray:
    """The best predictor's distribution when the token LAG back is c."""
    p = (1 - COPY) * pi.copy()
    p[c] += COPY
    return p


def exact_scores(pi: np.ndarray, k: int) -> dict[str, dict[str, float]]:
    """Exact per-token bits, top-1 and top-k error of each predictor, with full context."""
    order = np.argsort(-pi, kind="stable")
    uniform = np.full(len(pi), 1 / len(pi))
    unif = {  # the true token is drawn from pi, every position's marginal
        "bits": math.log2(len(pi)),
        "top1": 1 - float(pi @ topk_hit_random_ties(uniform, 1)),
        "topk": 1 - float(pi @ topk_hit_random_ties(uniform, k)),
    }
    unigram = {"bits": entropy_bits(pi), "top1": 1 - pi[order[0]], "topk": 1 - pi[order[:k]].sum()}
    majority = {"bits": math.inf, "top1": 1 - pi[order[0]], "topk": 1 - pi[order[:k]].sum()}
    bits = top1 = topk = 0.0
    for c in range(len(pi)):
        p = copy_predictive(pi, c)
        bits += pi[c] * float(-(p * np.log2(p)).sum())  # the true distribution is p itself
        ranked = np.argsort(-p, kind="stable")
        top1 += pi[c] * (1 - p[ranked[0]])
        topk += pi[c] * (1 - p[ranked[:k]].sum())
    best = {"bits": bits, "top1": top1, "topk": topk}
    return {
        "uniform guess": unif,
        "majority class": majority,
        "unigram pi": unigram,
        "best, with context": best,
    }


def token_scores(
    docs: np.ndarray, pi: np.ndarray, knows_copy: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per-token surprisal (bits) and top-1 error of the best predictor.

    knows_copy (T,) says at which positions it sees the token LAG back.
    """
    n, length = docs.shape
    bits = np.empty((n, length))
    err = np.empty((n, length))
    top = int(np.argmax(pi))
    for t in range(length):
        x = docs[:, t]
        if knows_copy[t]:
            c = docs[:, t - LAG]
            p_true = (1 - COPY) * pi[x] + COPY * (x == c)
            err[:, t] = x != c
        else:
            p_true = pi[x]
            err[:, t] = x != top
        bits[:, t] = -np.log2(p_true)
    return bits, err


def context_lengths(length: int, scheme: str, block: int, stride: int = 0) -> np.ndarray:
    """Tokens of context each position gets: 'full' (all earlier ones), 'blocks' of `block`, or
    'sliding' windows of `block` moved by `stride`, each scoring only its last `stride` tokens."""
    t = np.arange(length)
    if scheme == "full":
        return t
    if scheme == "blocks":
        return t % block
    if scheme == "sliding":
        return np.where(t < block, t, block - stride + (t - block) % stride)
    raise ValueError(f"unknown scheme {scheme!r}")


def positions_run(length: int, scheme: str, block: int, stride: int = 0) -> int:
    """Token positions the model is run on for one document (forward-pass cost)."""
    if scheme == "full":
        return length
    if scheme == "blocks":
        return length
    return block * (1 + math.ceil((length - block) / stride))


def mean_se(x: np.ndarray) -> tuple[float, float]:
    return float(x.mean()), float(x.std(ddof=1) / math.sqrt(len(x)))


def glued_label(label: str, number: int, name: str) -> str:
    """The row label with its number glued ('independent blocks of 16': the 16)."""
    head, _, tail = label.rpartition(str(number))
    return f"{head}{glue(name, number)}{tail}"


def main() -> None:
    print("Chapter 6 -- evaluating a language model (ch06_evaluation.py)")
    rng = np.random.default_rng(SEED)
    pi = fresh_distribution(V)
    scores = exact_scores(pi, TOP_K)
    print(
        f"[1] copy source: V = {glue('copy_vocab', V)}, copy of the token "
        f"{glue('copy_lag', LAG)} back with probability {glue('copy_probability', COPY)}, "
        f"else fresh from pi (pi({glue('pi_first_index', 0)}) = {glue('pi_first', pi[0], '.4f')}, "
        f"pi({glue('pi_last_index', V - 1)}) = {glue('pi_last', pi[-1], '.4f')}); exact "
        "per-token scores (tied tokens ranked in random order):"
    )
    print(f"    predictor             bits     perplexity   top-1 error   top-{TOP_K} error")
    keys = {"uniform guess": "uniform", "majority class": "majority", "unigram pi": "unigram",
            "best, with context": "best"}  # score_best_top1 is the best predictor's top-1 error
    for name, s in scores.items():
        key = f"score_{keys[name]}"
        ppl = "inf" if math.isinf(s["bits"]) else f"{2 ** s['bits']:.4f}"
        bits = "inf" if math.isinf(s["bits"]) else f"{s['bits']:.4f}"
        print(f"    {name:<20}  {glue(f'{key}_bits', bits, '>6')}   "
              f"{glue(f'{key}_perplexity', ppl, '>10')}   {glue(f'{key}_top1', s['top1'], '.4f')}"
              f"        {glue(f'{key}_top{TOP_K}', s['topk'], '.4f')}")
    assert scores["uniform guess"]["bits"] == 4
    assert abs(scores["uniform guess"]["top1"] - (1 - 1 / V)) < 1e-12
    assert abs(scores["uniform guess"]["topk"] - (1 - TOP_K / V)) < 1e-12
    assert scores["unigram pi"]["bits"] < scores["uniform guess"]["bits"]
    assert (
        scores["majority class"]["top1"]
        == scores["unigram pi"]["top1"]
        < scores["uniform guess"]["top1"]
    )
    assert scores["best, with context"]["bits"] < scores["unigram pi"]["bits"]

    g_bits = math.log2(GPT2_V)
    # every token has the same chance k / V of being guessed, so the error is 1 - k / V on any text
    g_hit = {k: float(topk_hit_random_ties(np.full(GPT2_V, 1 / GPT2_V), k)[0]) for k in (1, 100)}
    print(
        f"[2] GPT-2's vocabulary, V = {glue('gpt2_vocab', GPT2_V, ',')}: uniform guessing costs "
        f"log2 V = {glue('gpt2_uniform_bits', g_bits, '.4f')} bits "
        f"(perplexity {glue('gpt2_uniform_perplexity', GPT2_V, ',')}); ties in random order: "
        f"top-1 error 1 - 1/V = {glue('gpt2_top1_error', 1 - g_hit[1], '.6f')}; top-100 error "
        f"1 - {glue('gpt2_top_k', 100)}/V = {glue('gpt2_top100_error', 1 - g_hit[100], '.5f')}"
    )
    assert abs(g_bits - 15.6171) < 1e-4
    assert all(abs(g_hit[k] - k / GPT2_V) < 1e-12 for k in g_hit)

    docs = sample_copy_docs(rng, pi, 10_000, T)
    full = context_lengths(T, "full", T) >= LAG
    zero_prob, zero_se = mean_se((docs[:, LAG:] != docs[:, :-LAG]).mean(1))  # SE over documents
    exact_zero = (1 - COPY) * (1 - float((pi**2).sum()))
    print(f"[3] the copy-only predictor (probability {glue('copy_only_probability', 1)} on the "
          f"token {glue('copy_only_lag', LAG)} back), {glue('copy_only_documents', 10_000, ',')} "
          "documents:")
    print(
        f"    tokens it gives probability {glue('zero_probability', 0)}: "
        f"{glue('zero_share', zero_prob, '.4f')} of those after position "
        f"{glue('zero_after', LAG)} (SE {glue('zero_se', zero_se, '.4f')} over the documents; "
        f"exact {glue('zero_exact', exact_zero, '.4f')}, "
        f"{glue('zero_distance_se', abs(zero_prob - exact_zero) / zero_se, '.1f')} SE away), so "
        "its bits per token are infinite"
    )
    print(
        f"    its top-1 error there: {glue('zero_top1', zero_prob, '.4f')} measured, exact "
        f"{glue('zero_top1_exact', exact_zero, '.4f')}, equal to the best predictor's "
        f"{glue('zero_best_top1', scores['best, with context']['top1'], '.4f')}; a 0-1 loss lies "
        "in [0, 1] for every model"
    )
    assert abs(zero_prob - exact_zero) < 2 * zero_se
    assert abs(exact_zero - scores["best, with context"]["top1"]) < 1e-12

    exact_bits = (LAG * entropy_bits(pi) + (T - LAG) * scores["best, with context"]["bits"]) / T
    exact_err = (LAG * (1 - pi[0]) + (T - LAG) * scores["best, with context"]["top1"]) / T
    est = {"bits": [], "top1": []}
    se = {"bits": [], "top1": []}
    for _ in range(M_REPS):
        d = sample_copy_docs(rng, pi, N_DOCS, T)
        b, e = token_scores(d, pi, full)
        for key, per_doc in (("bits", b.mean(1)), ("top1", e.mean(1))):
            m, s = mean_se(per_doc)
            est[key].append(m)
            se[key].append(s)
    print(
        f"[4] best predictor with full context on {glue('mc_doc_length', T)}-token documents, "
        f"n = {glue('mc_n', N_DOCS)} documents per estimate, M = {glue('mc_reps', M_REPS)} "
        "repetitions:"
    )
    for key, exact in (("bits", exact_bits), ("top1", exact_err)):
        e_arr, s_arr = np.array(est[key]), np.array(se[key])
        se_mean = e_arr.std(ddof=1) / math.sqrt(M_REPS)
        # standard error of a standard deviation estimated from M normal draws
        se_spread = e_arr.std(ddof=1) / math.sqrt(2 * (M_REPS - 1))
        cover = float((np.abs(e_arr - exact) <= 2 * s_arr).mean())
        label = "bits per token" if key == "bits" else "top-1 error   "
        name = f"mc_{key}"  # mc_bits_exact, mc_top1_exact, ...
        print(
            f"    {label}: exact {glue(f'{name}_exact', exact, '.4f')}; mean of estimates "
            f"{glue(f'{name}_mean', e_arr.mean(), '.4f')} (SE of the mean "
            f"{glue(f'{name}_se_of_mean', se_mean, '.4f')}, "
            f"{glue(f'{name}_distance_se', abs(e_arr.mean() - exact) / se_mean, '.1f')} SE from "
            f"exact); typical SE {glue(f'{name}_typical_se', s_arr.mean(), '.4f')}, spread of "
            f"estimates {glue(f'{name}_spread', e_arr.std(ddof=1), '.4f')} +- "
            f"{glue(f'{name}_spread_se', se_spread, '.4f')} (SE); +-2 SE covers the exact value "
            f"in {glue(f'{name}_coverage', 100 * cover, '.1f')}% of repetitions"
        )
        assert abs(e_arr.mean() - exact) < 2 * se_mean
        assert abs(s_arr.mean() - e_arr.std(ddof=1)) < 2 * se_spread  # typical SE = spread
        assert abs(s_arr.mean() / e_arr.std(ddof=1) - 1) < 0.2 and 0.9 < cover <= 1.0

    schemes = [
        ("full context (reference)", "full", 0),
        (f"independent blocks of {BLOCK}", "blocks", 0),
    ]
    schemes += [(f"sliding, stride {s}", "sliding", s) for s in STRIDES]
    print(
        f"[5] a model that reads at most T_max = {glue('window_block', BLOCK)} tokens, "
        f"{glue('window_doc_length', T)}-token documents (exact values; Monte Carlo n = "
        f"{glue('window_n', N_DOCS)}, M = {glue('window_reps', M_REPS)}):"
    )
    print(
        "    scheme                      tokens scored   positions run   with copy in view   "
        "bits (exact)   bits (MC mean +- SE)   top-1 error (exact)"
    )
    ctx = {}
    exact_by = {}
    for label, scheme, stride in schemes:
        c = context_lengths(T, scheme, BLOCK if scheme != "full" else T, stride)
        ctx[label] = c
        knows = (np.arange(T) >= LAG) & (c >= LAG)
        n_known = int(knows.sum())
        ex_bits = (
            n_known * scores["best, with context"]["bits"] + (T - n_known) * entropy_bits(pi)
        ) / T
        ex_err = (n_known * scores["best, with context"]["top1"] + (T - n_known) * (1 - pi[0])) / T
        exact_by[label] = (ex_bits, ex_err, knows)
        mc = []
        for _ in range(M_REPS):
            b, _ = token_scores(sample_copy_docs(rng, pi, N_DOCS, T), pi, knows)
            mc.append(b.mean())
        m, s = mean_se(np.array(mc))
        if scheme == "full":
            key, shown = "full", label
        elif scheme == "blocks":
            key, shown = "blocks", glued_label(label, BLOCK, "window_blocks_size")
        else:  # window_stride4_stride is the 4 of 'sliding, stride 4'
            key = f"stride{stride}"
            shown = glued_label(label, stride, f"window_{key}_stride")
        print(
            f"    {shown}{' ' * (28 - len(label))} {glue(f'window_{key}_tokens', T, '>6')}        "
            f"{glue(f'window_{key}_positions', positions_run(T, scheme, BLOCK, stride), '>6')}   "
            f"       {glue(f'window_{key}_in_view', n_known, '>3')} of "
            f"{glue(f'window_{key}_of', T)}         {glue(f'window_{key}_bits', ex_bits, '.4f')}"
            f"        {glue(f'window_{key}_mc', m, '.4f')} +- "
            f"{glue(f'window_{key}_mc_se', s, '.4f')}          "
            f"{glue(f'window_{key}_top1', ex_err, '.4f')}"
        )
        assert abs(m - ex_bits) < 3 * s
    full_bits = exact_by["full context (reference)"][0]
    assert exact_by[f"sliding, stride {STRIDES[-1]}"][0] == full_bits
    assert (
        exact_by[f"independent blocks of {BLOCK}"][0]
        > exact_by[f"sliding, stride {STRIDES[0]}"][0]
        > full_bits
    )
    print(
        f"    stride {glue('final_stride', STRIDES[-1])} leaves every window at least "
        f"{glue('final_context', BLOCK - STRIDES[-1])} tokens of context "
        f"(>= {glue('final_lag', LAG)}): the full-context value exactly, at "
        f"{glue('final_positions', positions_run(T, 'sliding', BLOCK, STRIDES[-1]))} "
        f"positions run instead of {glue('final_instead', T)}"
    )

    draw_figure(ctx, exact_by, pi, scores)
    print("All assertions passed.")


def draw_figure(ctx: dict, exact_by: dict, pi: np.ndarray, scores: dict) -> None:
    fig, ax = plt.subplots(figsize=(5.5, 5.8))
    colors = ("#000000", "#D55E00", "#E69F00", "#0072B2")
    t = np.arange(T)
    for (label, c), color, off in zip(ctx.items(), colors, (0.0, 0.15, 0.3, 0.45), strict=True):
        ax.step(
            t,
            np.minimum(c, BLOCK + 2) + off,
            where="mid",
            color=color,
            lw=1.4,
            label=f"{label}: {exact_by[label][0]:.3f} bits per token",
        )
    ax.axhline(
        LAG,
        color="#999999",
        ls="--",
        lw=1,
        label=f"{LAG} tokens of context: the copy comes into view",
    )
    ax.set_xlabel("position in the document")
    ax.set_ylabel(f"tokens of context (capped at {BLOCK + 2})")
    ax.set_yticks(range(0, BLOCK + 1, 4))  # whole numbers of tokens
    ax.set_title(f"How much context each position gets, model window T_max = {BLOCK}", fontsize=10)
    ax.legend(loc="upper left", bbox_to_anchor=(-0.16, -0.15), frameon=False)
    fig.tight_layout()
    save_figure(fig, FIGURE_NAME, dpi=150)
    plt.close(fig)


if __name__ == "__main__":
    main()
