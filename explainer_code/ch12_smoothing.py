"""Chapter 12: bits per token as a bounded loss, by mixing the model with the uniform distribution.

Claims, numbered as the output blocks:
  [1] The raw surprisal -log2 q has no upper limit: it grows without end as q shrinks.
  [2] The smoothed surprisal -log2((1 - alpha) q + alpha / V) lies between
      -log2(1 - alpha + alpha / V) (at q = 1) and log2(V / alpha) (at q = 0); the width is
      Delta(alpha) = log2(1 + (1 - alpha) V / alpha), printed for the eight alpha of the authors'
      grid [SOURCE: sublora/sublora_pipeline.py:556, :641 @c606ea6]: 28.90 bits at 1e-4 down to
      15.62 at 0.5. A scan of q in [0, 1] finds the same width.
  [3] What smoothing costs: at q = 1 about alpha / ln 2 bits; smoothing lowers the loss exactly when
      q < 1 / V; raw and smoothed losses side by side for a few q.
  [4] A toy model (100,000 true-token probabilities drawn from a fixed mixture, seed 12): mean
      raw and smoothed losses, and three bounds per alpha with the message length of Chapter 14's
      worked example and the real N: "half" (3 extra bits, full eps), "code" (the cumulative
      15..71 bits, full eps) and "union" (the base bits and eps / 8 in both roots, valid; eps / 8
      in the Occam root is the log2 8 = 3 bits of "half", paid once). The mean loss is lowest at
      a middle alpha of the grid, every bound lowest at a larger alpha, because Delta shrinks as
      alpha grows;
      half < code < union at every alpha.
  [5] The minimum over the grid must be paid for: log2 8 = 3 bits in the Occam term and ln 8
      inside the Hoeffding root (a union bound over 8 candidates), against the code's cumulative
      15, 23, ..., 71 bits (7 base bits plus 8 to 64 for alpha) and nothing in the Hoeffding
      root; N / n = 801; pacbound.union_over_grid agrees;
      the book's prefix code L + 2 log2 L + 1 adds one bit, under 1e-4 bits per token; extra
      bits at the full eps would lift each bound to its union bound only by the thousand (the same
      number for every weight: the loss and Delta cancel).
  [6] One weight fixed before the data and every document scored: Chapter 11's Occam bound at
      alpha = 0.1 on the toy model of [4], with the book's prefix code for the 100,000-bit message
      and the 7 base extra bits, no bits for a choice of weight; non-vacuous (below log2 V).
Deterministic: numpy only, seed 12, float64; printed values rounded to 4 decimals at most.
The figure ch12_smoothed_loss.png plots raw and smoothed loss against q.
"""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pacbound as pb
from script_glue import glue
from script_io import save_figure

SEED = 12
V = pb.GPT2_VOCAB_SIZE  # 50,257: the vocabulary the code smooths over   [SOURCE: PL:57]
N_TOY = 100_000  # true-token probabilities of the toy model
# Chapter 14's worked example: a message of 10^5 bits and 7 extra bits; here with the real N.
MESSAGE_BITS = 100_000
BASE_EXTRA_BITS = 7  # config/sublora_bounds.yaml:39
N_DOCS = 8_009_762  # OpenWebText training documents (Chapter 13)
N_SAMPLE = 10_000  # documents scored
EPS = 0.05
FIXED_ALPHA = 0.1  # the weight of [6], fixed before the data
FIGURE_NAME = "ch12_smoothed_loss.png"


def tag(x: float) -> str:
    """A value as part of a name: 0.0001 -> 0p0001, 1e-06 -> 1em06."""
    return format(x, "g").replace(".", "p").replace("-", "m")


def raw_bits(p: float) -> float:
    """Surprisal of the true token in bits, -log2 p."""
    return -math.log2(p)


def toy_probabilities(rng: np.random.Generator, n: int) -> np.ndarray:
    """A toy model's probabilities of the true token: often confident, sometimes badly wrong.

    60 %: p ~ Beta(8, 1) (confident and right), 30 %: p log-uniform in [1e-4, 1],
    10 %: p log-uniform in [1e-9, 1e-4] (the true token all but ruled out).
    """
    kind = rng.choice(3, size=n, p=[0.6, 0.3, 0.1])
    confident = rng.beta(8.0, 1.0, size=n)
    middle = 10.0 ** rng.uniform(-4.0, 0.0, size=n)
    wrong = 10.0 ** rng.uniform(-9.0, -4.0, size=n)
    return np.where(kind == 0, confident, np.where(kind == 1, middle, wrong))


def complexity_nats(extra_bits: float) -> float:
    """(L + 2 log2 L + extra bits) ln 2: the code's `div` for a message of L bits.

    L + 2 log2 L is the code length the authors charge.
    """
    return (pb.authors_prefix_code_bits(MESSAGE_BITS) + extra_bits) * math.log(2)


def bound(train_error: float, alpha: float, extra_bits: float, eps: float = EPS) -> float:
    return pb.subsampling_bound(
        train_error=train_error,
        loss_range=pb.loss_range(alpha, V),
        complexity_nats=complexity_nats(extra_bits),
        n_population=N_DOCS,
        n_sample=N_SAMPLE,
        eps=eps,
    )


def bits_to_reach(train_error: float, alpha: float, target: float) -> float:
    """Extra bits (base bits included) at the full eps for which the bound reaches `target`."""
    lo, hi = 0.0, 1e7
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if bound(train_error, alpha, mid) < target else (lo, mid)
    return hi


def block1_unbounded() -> None:
    print("[1] Raw surprisal -log2 q grows without limit as q shrinks")
    for p in (0.5, 1e-2, 1e-6, 1e-12, 1e-30, 1e-300):
        key = f"raw_q{tag(p)}"
        print(f"    q = {glue(key, p, '.0e')}:  {glue(f'{key}_bits', raw_bits(p), '9.4f')} bits")
    assert raw_bits(1e-300) > 996 and raw_bits(1e-12) > 39.86
    print("    any bound of the form 'loss in [0, Delta]' fails: there is no finite Delta")


def block2_ranges() -> None:
    print(
        f"[2] Smoothed surprisal -log2((1 - alpha) q + alpha / V), V = {glue('vocab', V, ',')}: "
        "its range for the code's grid"
    )
    print(
        f"    alpha    min (q = {glue('range_q_min', 1)})  max (q = {glue('range_q_max', 0)})   "
        "Delta = max - min   log2(1 + (1 - alpha) V / alpha)"
    )
    p_scan = np.linspace(0.0, 1.0, 200_001)
    for alpha in pb.ALPHA_GRID:
        lo = pb.smoothed_nll_bits(1.0, alpha, V)
        hi = pb.smoothed_nll_bits(0.0, alpha, V)
        delta = pb.loss_range(alpha, V)
        assert abs((hi - lo) - delta) < 1e-9 and abs(hi - math.log2(V / alpha)) < 1e-9
        scan = pb.smoothed_nll_bits(p_scan, alpha, V)
        assert abs((scan.max() - scan.min()) - delta) < 1e-9
        key = f"range_a{tag(alpha)}"
        print(f"    {glue(key, alpha, '<8g')} {glue(f'{key}_min', lo, '10.4f')}   "
              f"{glue(f'{key}_max', hi, '10.4f')}   {glue(f'{key}_width', hi - lo, '12.4f')}   "
              f"{glue(f'{key}_delta', delta, '18.4f')}")
    assert round(pb.loss_range(1e-4, V), 2) == 28.90 and round(pb.loss_range(0.5, V), 2) == 15.62
    print(f"    a scan of {glue('scan_points', p_scan.size, ',')} values of q in [0, 1] gives the "
          f"same widths (to {glue('scan_tolerance', '1e-9')})")
    print(f"    for comparison, log2 V = {glue('uniform_bits', math.log2(V), '.4f')} bits: "
          "a uniform guess")


def block3_cost() -> None:
    print("[3] What smoothing costs and what it saves")
    for alpha in (0.01, 0.1, 0.5):
        at_one = pb.smoothed_nll_bits(1.0, alpha, V)
        approx = alpha / math.log(2)
        key = f"cost_a{tag(alpha)}"
        print(
            f"    alpha = {glue(key, alpha, '<4g')}: loss at q = 1 is "
            f"{glue(f'{key}_at_one', at_one, '.4f')} bits "
            f"(alpha / ln 2 = {glue(f'{key}_approx', approx, '.4f')})"
        )
    assert abs(pb.smoothed_nll_bits(1.0, 0.01, V) - 0.01 / math.log(2)) < 1e-4
    print(f"    smoothing lowers the loss exactly when q < 1 / V = "
          f"{glue('uniform_share', 1 / V, '.3e')}:")
    columns = (0.01, 0.1, 0.5)
    print("    q          raw   "
          + " ".join(f"alpha={glue(f'table_col{j}_alpha', a, 'g')}"
                     for j, a in enumerate(columns, start=1)))  # fmt: skip
    for p in (0.99, 0.9, 0.5, 0.1, 1e-3, 1 / V, 1e-6, 1e-9):
        row = [pb.smoothed_nll_bits(p, a, V) for a in columns]
        name = "1/V" if p == 1 / V else f"{p:.0e}" if p < 0.01 else f"{p:g}"
        key = "table_quniform" if p == 1 / V else f"table_q{tag(float(name))}"
        print(f"    {glue(key, name, '<9')} {glue(f'{key}_raw', raw_bits(p), '8.4f')} "
              + " ".join(glue(f"{key}_a{tag(a)}", x, "9.4f")
                         for a, x in zip(columns, row, strict=True)))  # fmt: skip
        for a, x in zip(columns, row, strict=True):
            if p > 1 / V:
                assert x > raw_bits(p)
            elif p < 1 / V:
                assert x < raw_bits(p)
            else:
                assert abs(x - raw_bits(p)) < 1e-9, a


def block4_toy_model(p: np.ndarray) -> tuple[list[float], int]:
    print(
        f"[4] A toy model: {glue('toy_n', N_TOY, ',')} true-token probabilities "
        f"(seed {glue('toy_seed', SEED)}), three bounds per alpha"
    )
    raw = -np.log2(p)
    print(f"    raw mean surprisal {glue('toy_raw_mean', raw.mean(), '.4f')} bits, largest "
          f"{glue('toy_raw_max', raw.max(), '.4f')} bits")
    print(
        f"    complexity: a message of {glue('message_bits', MESSAGE_BITS, ',')} bits, the "
        f"authors' code length L + 2 log2 L, {glue('base_extra_bits', BASE_EXTRA_BITS)} base "
        "extra bits;"
    )
    print(f"    N = {glue('n_docs', N_DOCS, ',')} documents, n = {glue('n_sample', N_SAMPLE, ',')} "
          f"scored, eps = {glue('eps', EPS)}")
    grid = len(pb.ALPHA_GRID)
    code_first, code_last = BASE_EXTRA_BITS + 8, BASE_EXTRA_BITS + 8 * grid
    print(f"    half: + {glue('half_bits', math.log2(grid), 'g')} bits "
          f"(log2 {glue('half_grid', grid)}), full eps; code: cumulative "
          f"{glue('code_first', code_first)}..{glue('code_last', code_last)} bits, full eps;")
    print(f"    union: no bits for alpha, eps / {glue('union_grid', grid)} in both roots (the "
          "valid price of the minimum;")
    print(f"    eps / {grid} in the Occam root is the {math.log2(grid):g} bits of half, paid once)")
    print("    alpha    mean loss   Delta      half      code     union")
    means, half, code, union = [], [], [], []
    for j, alpha in enumerate(pb.ALPHA_GRID):
        m = float(pb.smoothed_nll_bits(p, alpha, V).mean())
        means.append(m)
        half.append(bound(m, alpha, BASE_EXTRA_BITS + math.log2(grid)))
        code.append(bound(m, alpha, BASE_EXTRA_BITS + 8 * (j + 1)))
        union.append(bound(m, alpha, BASE_EXTRA_BITS, eps=EPS / grid))
        key = f"toy_a{tag(alpha)}"
        print(
            f"    {glue(key, alpha, '<8g')} {glue(f'{key}_mean', m, '9.4f')}  "
            f"{glue(f'{key}_delta', pb.loss_range(alpha, V), '8.4f')}  "
            f"{glue(f'{key}_half', half[-1], '8.4f')}  {glue(f'{key}_code', code[-1], '8.4f')}  "
            f"{glue(f'{key}_union', union[-1], '8.4f')}"
        )
    best, lowest_loss = int(np.argmin(union)), int(np.argmin(means))
    assert 0 < lowest_loss < best < len(union) - 1  # both minima inside the grid, in this order
    assert all(h < c for h, c in zip(half, code, strict=True))
    assert all(c < u for c, u in zip(code, union, strict=True))
    most = max(c - h for h, c in zip(half, code, strict=True))
    print(f"    code - half: at most {glue('code_minus_half', most, '.4f')} bits per token (the "
          "code's extra bits cost little)")
    assert most < 1e-3
    print(
        f"    lowest mean loss of the {glue('lowest_loss_grid', grid)} weights at "
        f"alpha = {glue('lowest_loss_alpha', pb.ALPHA_GRID[lowest_loss], 'g')} "
        "(capping the badly wrong"
    )
    print("    tokens helps until the cost on the confident ones takes over);")
    print(f"    lowest bound at alpha = {glue('lowest_bound_alpha', pb.ALPHA_GRID[best], 'g')} in "
          "every column, since Delta keeps")
    print("    falling as alpha grows and multiplies the complexity term")
    print(
        f"    minima: half {glue('min_half', min(half), '.4f')}, code "
        f"{glue('min_code', min(code), '.4f')}, union {glue('min_union', min(union), '.4f')}"
        f" (union - code +{glue('min_union_minus_code', min(union) - min(code), '.4f')} bits "
        "per token)"
    )
    assert int(np.argmin(half)) == int(np.argmin(code)) == best
    assert min(half) < min(code) < min(union)  # so the difference printed after '+' is positive
    return means, best


def block5_union(means: list[float], best: int) -> None:
    grid = len(pb.ALPHA_GRID)
    print(f"[5] Paying for the minimum over the grid of {glue('grid_size', grid)} values of alpha")
    rho = N_SAMPLE / (N_SAMPLE + N_DOCS)
    plain = -math.log((1 - rho) * EPS)
    print(f"    union bound: each alpha at confidence eps / {glue('union_confidence_grid', grid)};")
    print(f"    Occam term: eps / {glue('occam_grid', grid)} there costs "
          f"log2 {glue('occam_log_grid', grid)} = {glue('occam_grid_bits', math.log2(grid), 'g')} "
          "bits of complexity")
    print(
        f"    Hoeffding root: -ln((1 - rho) eps) = {glue('hoeffding_arg', plain, '.4f')} becomes "
        f"{glue('hoeffding_arg_union', plain + math.log(grid), '.4f')}"
    )
    code_bits = [BASE_EXTRA_BITS + 8 * (j + 1) for j in range(grid)]
    print(
        "    the code's extra bits (cumulative, sublora_pipeline.py:637): "
        + ", ".join(glue(f"code_bits_a{tag(a)}", b)
                    for a, b in zip(pb.ALPHA_GRID, code_bits, strict=True))
        + f" bits: the {glue('code_base_bits', BASE_EXTRA_BITS)} base bits for the other "
        f"hyperparameters (config/sublora_bounds.yaml:39) plus "
        f"{glue('code_alpha_bits_first', code_bits[0] - BASE_EXTRA_BITS)} to "
        f"{glue('code_alpha_bits_last', code_bits[-1] - BASE_EXTRA_BITS)} for alpha, where "
        f"log2 {glue('code_log_grid', grid)} = {glue('code_log_grid_bits', math.log2(grid), 'g')} "
        "would pay the Occam half"
    )
    print(
        f"    the Occam root divides by N = {glue('root_N', N_DOCS, ',')}, the Hoeffding root by "
        f"n = {glue('root_n', N_SAMPLE, ',')}: "
        f"N / n = {glue('root_ratio', N_DOCS / N_SAMPLE, '.0f')}"
    )
    paid = pb.union_over_grid(
        train_errors=means,
        loss_ranges=[pb.loss_range(a, V) for a in pb.ALPHA_GRID],
        complexity_nats=complexity_nats(BASE_EXTRA_BITS),
        n_population=N_DOCS,
        n_sample=N_SAMPLE,
        eps=EPS,
    )
    alpha = pb.ALPHA_GRID[best]
    valid = bound(means[best], alpha, BASE_EXTRA_BITS + 1, eps=EPS / grid)
    print(f"    pacbound.union_over_grid gives the same minimum: "
          f"{glue('union_over_grid_min', paid, '.4f')}")
    print(
        f"    with the book's prefix code L + 2 log2 L + 1 (one bit more): "
        f"{glue('book_prefix_min', valid, '.4f')} "
        f"(+{glue('book_prefix_extra', valid - paid, '.6f')})"
    )
    assert abs(valid - paid) < 1e-4 and valid > paid
    needed = [bits_to_reach(m, a, bound(m, a, BASE_EXTRA_BITS, eps=EPS / grid))
              for m, a in zip(means, pb.ALPHA_GRID, strict=True)]  # fmt: skip
    print(
        f"    extra bits at the full eps that would lift a weight's bound to its union bound: "
        f"{glue('lift_bits', max(needed), ',.0f')}, the same for every weight; the code charges "
        f"{glue('lift_code_first', code_bits[0])} to {glue('lift_code_last', code_bits[-1])} in all"
    )
    assert max(needed) - min(needed) < 1 and min(needed) > 100 * code_bits[-1]


def block6_fixed_alpha(means: list[float]) -> None:
    alpha = FIXED_ALPHA
    j = pb.ALPHA_GRID.index(alpha)
    delta = pb.loss_range(alpha, V)
    k_bits = pb.prefix_code_bits(MESSAGE_BITS) + BASE_EXTRA_BITS
    root = math.sqrt((k_bits * math.log(2) + math.log(1 / EPS)) / (2 * N_DOCS))
    occam = pb.occam_bound(means[j], complexity_bits=k_bits, n=N_DOCS, eps=EPS, loss_range=delta)
    print("[6] One weight fixed before the data, every document scored: the Occam bound of "
          "Chapter 11")  # fmt: skip
    print(f"    alpha = {glue('fixed_alpha', alpha, 'g')}, chosen in advance, so no bits for a "
          f"choice; K = L + 2 log2 L + 1 + {glue('fixed_extra_bits', BASE_EXTRA_BITS)} = "
          f"{glue('fixed_K', k_bits, ',.2f')} bits; N = {glue('fixed_N', N_DOCS, ',')}; "
          f"eps = {glue('fixed_eps', EPS)}")  # fmt: skip
    print(f"    empirical risk (the toy's mean smoothed loss) "
          f"{glue('fixed_risk', means[j], '.4f')} bits; Delta {glue('fixed_delta', delta, '.4f')} "
          "bits")  # fmt: skip
    print(f"    root sqrt((K ln 2 + ln(1/eps)) / (2 N)) = {glue('fixed_root', root, '.6f')}; "
          f"bound = {glue('fixed_eq_risk', means[j], '.4f')} + "
          f"{glue('fixed_eq_delta', delta, '.4f')} x {glue('fixed_eq_root', root, '.6f')} = "
          f"{glue('fixed_bound', occam, '.4f')} bits per token")  # fmt: skip
    print(f"    a uniform guess costs log2 V = {glue('fixed_uniform_bits', math.log2(V), '.4f')} "
          "bits: the bound is non-vacuous")
    assert abs(occam - (means[j] + delta * root)) < 1e-12 and occam < math.log2(V)


def draw_figure() -> None:
    p = np.logspace(-12, 0, 600)
    colours = ["#0072B2", "#E69F00", "#009E73", "#CC79A7"]  # Okabe-Ito
    fig, ax = plt.subplots(figsize=(5.5, 6.4))
    ax.plot(p, -np.log2(p), color="#000000", lw=2.0, label="raw: -log2 q (no upper limit)")
    for colour, alpha in zip(colours, (1e-4, 0.01, 0.1, 0.5), strict=True):
        ax.plot(
            p,
            pb.smoothed_nll_bits(p, alpha, V),
            color=colour,
            lw=1.8,
            ls="--",
            label=f"smoothed, $\\alpha$ = {alpha:g} (cap {math.log2(V / alpha):.1f} bits)",
        )
    ax.axvline(1 / V, color="#777777", lw=0.8, ls=":")
    ax.text(1.3 / V, 36, "q = 1/V", color="#555555")
    ax.set_xscale("log")
    ax.set_ylim(0, 40)
    ax.set_xlabel("probability q the model gives the true token")
    ax.set_ylabel("loss (bits)")
    ax.set_title("Smoothing caps the loss at log2(V / $\\alpha$);\nabove q = 1/V it adds a little")
    ax.legend(frameon=False, loc="upper left", bbox_to_anchor=(-0.1, -0.14))
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    fig.tight_layout()
    save_figure(fig, FIGURE_NAME, dpi=150)
    plt.close(fig)


def main() -> None:
    print("Chapter 12 -- prediction smoothing (ch12_smoothing.py)")
    block1_unbounded()
    block2_ranges()
    block3_cost()
    p = toy_probabilities(np.random.default_rng(SEED), N_TOY)
    means, best = block4_toy_model(p)
    block5_union(means, best)
    block6_fixed_alpha(means)
    draw_figure()
    print(f"Figure: {FIGURE_NAME}")
    print("All assertions passed.")


if __name__ == "__main__":
    main()
