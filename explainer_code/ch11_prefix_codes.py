"""Chapter 11: prefix codes, Kraft's inequality, a prior from a code, and the Occam bound.

Claims, numbered as the output blocks:
  [1] Three codes for four symbols: a fixed-length and a variable-length prefix code (Kraft sum 1)
      and a code that is not prefix-free (Kraft sum 1.5), under which one bit string has four
      readings.
  [2] Kraft's inequality both ways: lengths with a sum <= 1 always have a prefix code (built
      here, checked by brute force); lengths with a sum above 1 never do (the construction runs
      out of codewords).
  [3] Coding a length first. The set of all bit strings is not prefix-free (Kraft sum grows
      without bound); an Elias gamma header of 2 floor(log2 L) + 1 bits fixes that with a Kraft
      sum below 1 (1 - 2^-J up to length 2^J - 1); the authors' K = L + 2 log2 L
      [SOURCE: sublora/bounds/bound_utils.py:222 @c606ea6] is within one bit of gamma, but as
      a code over all bit strings its Kraft sum tends to pi^2/6, which one extra bit repairs.
      Header sizes for message lengths from 10 to 10^8 bits.
  [4] A prior from a code: a two-part code over predictors on the Markov source of Chapter 9
      (a flag bit, then a constant token in 4 bits or a 17-entry table in 68 bits) has Kraft
      sum 1, so 2^(-K) is a probability distribution.
  [5] The Occam bound on that class: trained on n documents, the best bound moves from the
      constant predictor to the table as n grows; the true error (exact) is below every bound.
  [6] "With probability 1 - eps" for a hypothesis chosen from the data: redraw the training
      set REPEATS times (seed SIM_SEED); the Occam bound of the chosen predictor holds in a
      fraction above 1 - eps by more than 3 standard errors.
Figure: ch11_occam.png (header bits against L; Occam bounds against n for the two codes).
Deterministic: exact integer and rational arithmetic, numpy Generators with fixed seeds; values
that pass through matrix products are printed with at most 4 significant digits.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
import pacbound as pb
from pacbound import markov
from script_glue import glue

# the Markov source of Chapter 9 (same constants, same seed)
VOCAB = 16
DOC_LENGTH = 32
CONCENTRATION = 0.1
SOURCE_SEED = 9

EPS = 0.05
CODE_KEYS = {"fixed-length": "fixed", "prefix": "prefix", "not prefix-free": "nonprefix"}  # names
CODES = {
    "fixed-length": {"a": "00", "b": "01", "c": "10", "d": "11"},
    "prefix": {"a": "0", "b": "10", "c": "110", "d": "111"},
    "not prefix-free": {"a": "0", "b": "1", "c": "01", "d": "10"},
}
AMBIGUOUS = "0110"
KRAFT_CASES = ((1, 2, 3, 3), (2, 2, 2, 3, 3), (1, 3, 3, 3, 4, 4), (1, 1, 2), (2, 2, 2, 2, 3))
MAX_LENGTHS = (7, 63, 1023)  # 2^J - 1: gamma's sum is then exactly 1 - 2^-J
HEADER_L = (10, 68, 1_000, 115_840, 10**6, 10**8)
EXAMPLE_MESSAGE = 115_840  # bits: an example length, for scale
FLAG_BITS = 1
TOKEN_BITS = 4  # log2 VOCAB
TRAIN_DOCS = (10, 30, 100, 300, 1_000, 3_000)
DATA_SEED = 1111
SIM_SEED = 11011
SIM_DOCS = 300
REPEATS = 1_000
FIGURE_NAME = "ch11_occam.png"


# ------------------------------------------------------------------------------ codes
def is_prefix_free(words: list[str]) -> bool:
    """No codeword is the beginning of another (brute force over all pairs)."""
    return not any(a != b and b.startswith(a) for a, b in itertools.permutations(words, 2))


def readings(bits: str, words: list[str]) -> int:
    """Number of ways to cut `bits` into codewords (dynamic programming over prefixes)."""
    ways = [1] + [0] * len(bits)
    for end in range(1, len(bits) + 1):
        ways[end] = sum(ways[end - len(w)] for w in words if bits[:end].endswith(w))
    return ways[-1]


def canonical_code(lengths: tuple[int, ...]) -> list[str] | None:
    """Kraft's construction: hand out codewords in order of length, each the next free one.

    Returns None when the lengths run out of codewords (their Kraft sum exceeds 1).
    """
    words, next_value, prev_len = [], 0, 0
    for length in sorted(lengths):
        next_value <<= length - prev_len
        if next_value >= 2**length:
            return None
        words.append(format(next_value, f"0{length}b"))
        next_value += 1
        prev_len = length
    return words


def elias_gamma(n: int) -> str:
    """Elias gamma code of n >= 1: floor(log2 n) zeros, then n in binary."""
    binary = format(n, "b")
    return "0" * (len(binary) - 1) + binary


def gamma_bits(n: int) -> int:
    """Length of elias_gamma(n): 2 floor(log2 n) + 1."""
    return 2 * (n.bit_length() - 1) + 1


def delta_bits(n: int) -> int:
    """Elias delta: gamma-code the bit length of n, then n without its leading 1."""
    return gamma_bits(n.bit_length()) + n.bit_length() - 1


def kraft_over_all_messages(header: str, max_length: int) -> Fraction | float:
    """Kraft sum over every bit string of length 1..max_length, each with the given header.

    'none': each string costs L bits; 'gamma': L + gamma_bits(L); 'authors': L + 2 log2 L.
    There are 2^L strings of length L, so each length contributes 2^L * 2^-(cost).
    """
    if header == "none":
        return Fraction(max_length)
    if header == "gamma":
        return sum((Fraction(1, 2 ** gamma_bits(n)) for n in range(1, max_length + 1)), Fraction(0))
    return math.fsum(1.0 / (n * n) for n in range(1, max_length + 1))  # 2^-(2 log2 L) = 1/L^2


# ---------------------------------------------------------------------- the Occam example
def code_lengths() -> dict[str, int]:
    """The two-part code: 1 flag bit, then the constant (4 bits) or the table (17 x 4 bits)."""
    return {
        "constant": FLAG_BITS + TOKEN_BITS,
        "table": FLAG_BITS + (VOCAB + 1) * TOKEN_BITS,
    }


def fit_predictors(docs: np.ndarray) -> dict[str, np.ndarray]:
    """The two hypotheses a learner picks from n documents: the most frequent token overall,
    and the most frequent next token after each state (ties go to the lower token)."""
    counts = markov.transition_counts(docs, VOCAB)
    constant = np.full(VOCAB + 1, counts.sum(axis=0).argmax())
    return {"constant": constant, "table": counts.argmax(axis=1)}


def occam_for(docs: np.ndarray, chain: np.ndarray) -> dict[str, tuple[float, float, float]]:
    """(training error, Occam bound, exact population error) of each fitted predictor."""
    out = {}
    n = docs.shape[0]
    for name, pred in fit_predictors(docs).items():
        table = markov.top1_error_table(pred, VOCAB)
        train = float(markov.per_document_loss(docs, table).mean())
        bound = pb.occam_bound(train, complexity_bits=code_lengths()[name], n=n, eps=EPS)
        out[name] = (train, bound, markov.expected_loss(chain, table, DOC_LENGTH))
    return out


# --------------------------------------------------------------------------------- blocks
def block1_codes() -> None:
    print("[1] Three codes for the symbols a, b, c, d")
    for name, code in CODES.items():
        words = list(code.values())
        lengths = [len(w) for w in words]
        key = f"code_{CODE_KEYS[name]}"  # code_fixed_b: the codeword of b in the fixed-length code
        plain = " ".join(f"{s}={w}" for s, w in code.items())
        named = " ".join(f"{s}={glue(f'{key}_{s}', w)}" for s, w in code.items())
        lengths_txt = glue(f"{key}_lengths", ", ".join(str(n) for n in lengths))
        print(
            f"    {name:16} {named}{' ' * (24 - len(plain))} lengths [{lengths_txt}] "
            f"Kraft sum {glue(f'{key}_kraft', pb.kraft_sum(lengths))}  prefix-free: "
            f"{is_prefix_free(words)}  readings of {glue(f'{key}_string', AMBIGUOUS)}: "
            f"{glue(f'{key}_readings', readings(AMBIGUOUS, words))}"
        )
    bad = list(CODES["not prefix-free"].values())
    assert pb.kraft_sum(len(w) for w in bad) == 1.5 and readings(AMBIGUOUS, bad) == 4
    for name in ("fixed-length", "prefix"):
        words = list(CODES[name].values())
        assert is_prefix_free(words) and pb.kraft_sum(len(w) for w in words) == 1.0
        assert readings(AMBIGUOUS, words) <= 1


def block2_kraft() -> None:
    print("[2] Kraft's inequality both ways: build a prefix code for given lengths, or fail")
    for case, lengths in enumerate(KRAFT_CASES, start=1):
        total = pb.kraft_sum(lengths)
        words = canonical_code(lengths)
        exact = sum((Fraction(1, 2**n) for n in lengths), Fraction(0))
        key = f"kraft_case{case}"  # kraft_case2_word3: the third codeword built for list 2
        built = (" ".join(glue(f"{key}_word{j}", w) for j, w in enumerate(words, start=1))
                 if words else "impossible: ran out of codewords")
        print(f"    lengths {glue(f'{key}_lengths', str(lengths), '20')} Kraft sum "
              f"{glue(f'{key}_sum', str(exact), '6')} = {glue(f'{key}_decimal', total, '<6')}  "
              f"{built}")
        assert total == float(exact)
        if total <= 1:
            assert words is not None and is_prefix_free(words)
            assert sorted(len(w) for w in words) == sorted(lengths)
        else:
            assert words is None


def block3_lengths() -> None:
    print("[3] Coding the length first. Kraft sum over all bit strings of length 1..L_max:")
    print("      L_max   no header   gamma header (exact)   L + 2 log2 L (the authors')")
    for max_len in MAX_LENGTHS:
        none = kraft_over_all_messages("none", max_len)
        gamma = kraft_over_all_messages("gamma", max_len)
        authors = kraft_over_all_messages("authors", max_len)
        big_j = (max_len + 1).bit_length() - 1
        key = f"lmax{max_len}"
        gamma_plain = f"1 - 2^-{big_j} = {float(gamma):.6f}"
        gamma_txt = f"1 - 2^-{big_j} = {glue(f'{key}_gamma', float(gamma), '.6f')}"
        print(f"    {glue(key, max_len, '7,')}   {glue(f'{key}_none', int(none), '9,')}   "
              f"{' ' * (20 - len(gamma_plain))}{gamma_txt}   "
              f"{glue(f'{key}_authors', float(authors), '.4f')}")
        assert none == max_len and authors > 1.0
        assert gamma == 1 - Fraction(1, 2**big_j)
    limit = math.pi**2 / 6
    print(
        f"    the authors' sum tends to pi^2/6 = {glue('authors_limit', limit, '.4f')}: as a prior "
        f"over all bit strings it overspends by log2(pi^2/6) = "
        f"{glue('authors_overspend', math.log2(limit), '.3f')} bits; one more bit per message "
        f"gives {glue('book_limit', limit / 2, '.4f')} <= 1"
    )
    assert 0.5 < math.log2(limit) < 1.0
    words = [elias_gamma(n) for n in range(1, 9)]
    print(f"    Elias gamma of 1..8: {' '.join(words)} (prefix-free: {is_prefix_free(words)})")
    assert is_prefix_free(words) and all(
        len(elias_gamma(n)) == gamma_bits(n) for n in range(1, 999)
    )
    print("             L   2 log2 L   gamma header   delta header   authors' K = L + 2 log2 L")
    for length in HEADER_L:
        two_log = 2 * math.log2(length)
        key = f"header_L{length}"
        print(
            f"    {glue(key, length, '11,')}   {glue(f'{key}_two_log2', two_log, '8.2f')}   "
            f"{glue(f'{key}_gamma', gamma_bits(length), '12')}   "
            f"{glue(f'{key}_delta', delta_bits(length), '12')}   "
            f"{glue(f'{key}_authors_K', pb.authors_prefix_code_bits(length), ',.2f')}"
        )
        assert two_log - 1 < gamma_bits(length) <= two_log + 1
        assert length < 100 or delta_bits(length) < gamma_bits(length)
    toy = pb.authors_prefix_code_bits(EXAMPLE_MESSAGE)
    header = toy - EXAMPLE_MESSAGE
    print(
        f"    a message of {glue('example_message', EXAMPLE_MESSAGE, ',')} bits: "
        f"K = {glue('example_K', toy, ',.1f')}; the header is "
        f"{glue('example_header_percent', 100 * header / EXAMPLE_MESSAGE, '.3f')}% of the message"
    )


def block4_prior() -> None:
    k = code_lengths()
    n_const, n_table = VOCAB, VOCAB ** (VOCAB + 1)
    kraft = Fraction(n_const, 2 ** k["constant"]) + Fraction(n_table, 2 ** k["table"])
    print(
        "[4] A prior from a code: predictors that guess the next token of the Chapter 9 source "
        f"(V = {glue('prior_vocab', VOCAB)}, {glue('prior_states', VOCAB + 1)} states counting "
        "the start)"
    )
    print(
        f"    constant predictor: flag + {glue('constant_token_bits', TOKEN_BITS)} bits = "
        f"{glue('constant_bits', k['constant'])} bits, {glue('constant_count', n_const)} of "
        f"them, prior 2^-{glue('constant_prior_exponent', k['constant'])} each"
    )
    print(
        f"    lookup table: flag + {glue('table_entries', VOCAB + 1)} x "
        f"{glue('table_token_bits', TOKEN_BITS)} bits = {glue('table_bits', k['table'])} bits, "
        f"{VOCAB}^{VOCAB + 1} = {glue('table_count', n_table, ',')} of them, "
        f"prior 2^-{glue('table_prior_exponent', k['table'])} each"
    )
    print(f"    Kraft sum {glue('kraft_constant_count', n_const)} x 2^-{k['constant']} + "
          f"{glue('kraft_table_base', VOCAB)}^{VOCAB + 1} x 2^-{k['table']} = "
          f"{glue('prior_kraft_sum', str(kraft))}")
    cost = pb.authors_prefix_code_bits(k["table"] - FLAG_BITS)
    print(
        f"    the authors' general-purpose cost of a "
        f"{glue('authors_message_bits', k['table'] - FLAG_BITS)}-bit message would be "
        f"{glue('authors_message_cost', cost, '.2f')} bits"
    )
    assert kraft == 1


def block5_occam(chain: np.ndarray) -> dict[str, list[tuple[float, float, float]]]:
    rng = np.random.default_rng(DATA_SEED)
    pool = markov.sample_documents(chain, max(TRAIN_DOCS), DOC_LENGTH, rng)
    k = code_lengths()
    print(
        f"[5] Occam bound at eps = {glue('occam_eps', EPS)} on the first N documents of one "
        f"sample (seed {glue('occam_seed', DATA_SEED)}); top-1 error; "
        f"K = {glue('occam_constant_bits', k['constant'])} bits (constant), "
        f"{glue('occam_table_bits', k['table'])} bits (table)"
    )
    print("        N   constant: train  bound   true  |  table: train  bound   true  |  best bound")
    series: dict[str, list[tuple[float, float, float]]] = {"constant": [], "table": []}
    best_names = []
    for n in TRAIN_DOCS:
        res = occam_for(pool[:n], chain)
        (ct, cb, cr), (tt, tb, tr) = res["constant"], res["table"]
        best = "constant" if cb < tb else "table"
        best_names.append(best)
        series["constant"].append((n, cb, cr))
        series["table"].append((n, tb, tr))
        best_bound = min(cb, tb)
        key = f"occam_N{n}"
        print(
            f"    {glue(key, n, '5,')}        {glue(f'{key}_constant_train', ct, '.4f')}  "
            f"{glue(f'{key}_constant_bound', cb, '.4f')}  "
            f"{glue(f'{key}_constant_true', sig4(cr))}  |    "
            f"{glue(f'{key}_table_train', tt, '.4f')}  {glue(f'{key}_table_bound', tb, '.4f')}  "
            f"{glue(f'{key}_table_true', sig4(tr))}  |  "
            f"{glue(f'{key}_best_bound', best_bound, '.4f')} ({best})"
        )
        assert cb >= cr and tb >= tr
    print(
        "    the best bound comes from the constant predictor for small N and from the table "
        "for large N"
    )
    assert best_names[0] == "constant" and best_names[-1] == "table"
    return series


def block6_repeated(chain: np.ndarray) -> None:
    rng = np.random.default_rng(SIM_SEED)
    docs = markov.sample_documents(chain, REPEATS * SIM_DOCS, DOC_LENGTH, rng)
    docs = docs.reshape(REPEATS, SIM_DOCS, DOC_LENGTH)
    held = held_fixed = 0
    gaps = []
    fixed_slack = pb.hoeffding_bound(0.0, n=SIM_DOCS, eps=EPS)
    for r in range(REPEATS):
        res = occam_for(docs[r], chain)
        name = min(res, key=lambda h: res[h][1])  # the hypothesis with the best bound
        train, bound, true = res[name]
        held += bound >= true
        held_fixed += train + fixed_slack >= true
        gaps.append(true - train)
    freq = held / REPEATS
    se = math.sqrt(EPS * (1 - EPS) / REPEATS)
    print(
        f"[6] The predictor with the best Occam bound, chosen from "
        f"N = {glue('sim_N', SIM_DOCS)} documents; {glue('sim_repeats', REPEATS, ',')} redraws "
        f"(seed {glue('sim_seed', SIM_SEED)})"
    )
    print(
        f"    bound held in {glue('sim_held', freq, '.4f')} of the draws; "
        f"1 - eps = {glue('sim_required', 1 - EPS)}; standard error of a frequency of 1 - eps: "
        f"{glue('sim_se', se, '.4f')}; margin "
        f"{glue('sim_margin', (freq - (1 - EPS)) / se, '.1f')} standard errors"
    )
    occam_slack = pb.occam_bound(0.0, complexity_bits=code_lengths()["table"], n=SIM_DOCS, eps=EPS)
    print(
        f"    true minus training error of the chosen predictor: mean "
        f"{glue('gap_mean', np.mean(gaps), '.4f')}, "
        f"largest {glue('gap_max', np.max(gaps), '.4f')}; "
        f"the Occam slack was {glue('sim_occam_slack', occam_slack, '.4f')}"
    )
    print(
        f"    Hoeffding's slack for one fixed predictor, "
        f"{glue('sim_hoeffding_slack', fixed_slack, '.4f')}, would also have held in "
        f"{glue('sim_hoeffding_held', held_fixed / REPEATS, '.4f')} of the draws: this class "
        f"barely overfits {glue('sim_overfit_N', SIM_DOCS)} documents, and Occam's extra slack is "
        "insurance against the worst case"
    )
    assert freq - 3 * se > 1 - EPS


def sig4(x: float) -> str:
    """At most 4 significant digits: what survives BLAS summation order."""
    return f"{x:.4g}"


def draw_figure(series: dict[str, list[tuple[float, float, float]]]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from script_io import save_figure

    blue, orange, green, grey = "#0072B2", "#E69F00", "#009E73", "#666666"  # Okabe-Ito
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(5.5, 8.8))
    ls = np.unique(np.logspace(0, 6, 400).astype(int))
    ax1.semilogx(ls, [gamma_bits(int(n)) for n in ls], color=blue, label="Elias gamma header")
    ax1.semilogx(ls, [delta_bits(int(n)) for n in ls], color=green, label="Elias delta header")
    ax1.semilogx(ls, 2 * np.log2(ls), color=orange, ls="--", label="2 log2 L (the authors')")
    ax1.set_xlabel("message length L (bits)")
    ax1.set_ylabel("bits spent on saying L")
    ax1.set_title("The price of coding the length first", fontsize=10)
    ax1.legend(loc="upper left")

    for name, colour in (("constant", orange), ("table", blue)):
        n = [s[0] for s in series[name]]
        ax2.semilogx(n, [s[1] for s in series[name]], "o-", color=colour,
                     label=f"Occam bound, {name} ({code_lengths()[name]} bits)")  # fmt: skip
        ax2.semilogx(n, [s[2] for s in series[name]], "s:", color=colour,
                     label=f"true error, {name}")  # fmt: skip
    ax2.axhline(1.0, color=grey, lw=0.8)
    ax2.text(n[-1], 1.02, "vacuous above 1", color=grey, ha="right")
    ax2.set_xlabel("training documents N")
    ax2.set_ylabel("top-1 error")
    ax2.set_title(f"Occam bound vs true error, eps = {EPS}", fontsize=10)
    ax2.legend(loc="upper right")
    fig.tight_layout()
    save_figure(fig, FIGURE_NAME)
    plt.close(fig)


def main() -> None:
    print(
        "Chapter 11 -- prefix codes, Kraft's inequality and the Occam bound (ch11_prefix_codes.py)"
    )
    block1_codes()
    block2_kraft()
    block3_lengths()
    block4_prior()
    chain = markov.random_markov_chain(VOCAB, CONCENTRATION, np.random.default_rng(SOURCE_SEED))
    series = block5_occam(chain)
    block6_repeated(chain)
    draw_figure(series)
    print("All assertions passed.")


if __name__ == "__main__":
    main()
