"""Chapter 10: Hoeffding's inequality against exact binomial tails, and the union bound's price.

The loss in every experiment here is a 0-1 error, so a training error on N samples is a binomial
count divided by N, and the probability that a bound fails can be computed exactly (integer
arithmetic with math.comb and fractions.Fraction), then checked by simulation.

Claims, numbered as the output blocks:
  [1] Hoeffding's slack sqrt(ln(1/eps) / (2N)) at eps = 0.05 for N from 10 to 1,000,000, and how
      it scales with the loss range Delta.
  [2] Exact lower tails P(training error <= p - t) of Binomial(100, p)/100 for p = 0.5 and
      p = 0.1 against Hoeffding's exp(-2 N t^2): the exact tail is always below; the exact
      deviation with tail 0.05 is smaller than Hoeffding's slack.
  [3] A simulation (seed SIM_SEED, SIM_REPEATS draws) matches the exact tails within 4 Monte
      Carlo standard errors.
  [4] Choosing the best of |H| hypotheses after seeing the data: with |H| independent fair-coin
      guessers, the single-hypothesis bound for the chosen one fails with probability
      1 - (1 - phi)^|H| (exact, and simulated with seed SELECT_SEED); the union-bound slack
      sqrt(ln(|H|/eps) / (2N)) keeps the failure probability below eps. At |H| = 1,000 the
      union bound's over-counting (|H| phi_u against 1 - (1 - phi_u)^|H|) explains under 1 % of
      the gap between eps and the exact failure probability; Hoeffding's looseness the rest.
  [5] The price of the union bound: slack against N for |H| = 1 .. 10^9, and the N needed for a
      slack of 0.05; ln |H| enters, not |H|. 2^30 hypotheses need 4,759 samples (15 more than
      a billion). A class that grows with the data, |H| = 2^(N/10), keeps a slack above
      sqrt(ln 2 / 20) = 0.1862 however large N is.
Figure: ch10_union_width.png (exact tails vs Hoeffding; slack vs m for several k).
Deterministic: exact rational arithmetic, numpy Generators with fixed seeds.
Every value the chapter quotes is printed through `glue(name, ...)` (script_glue.py), so that the
page refers to it by name.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pacbound as pb
from script_glue import glue

EPS = 0.05
SLACK_N = (10, 100, 1_000, 10_000, 100_000, 1_000_000)
N_TAIL = 100
TAIL_P = (Fraction(1, 2), Fraction(1, 10))
TAIL_T = (0.05, 0.1, 0.15, 0.2, 0.25)
SIM_SEED = 1010
SIM_REPEATS = 200_000
SELECT_SEED = 10010
SELECT_N = 100
SELECT_K = (1, 10, 100, 1_000, 10_000)
SELECT_REPEATS = 2_000
UNION_K = (1, 10, 1_000, 10**6, 10**9)
UNION_M = (100, 1_000, 10_000, 100_000, 1_000_000)
TARGET_SLACK = 0.05
UNION_DETAIL_K = 1_000  # the class size whose union-bound failure block [4] takes apart
GROWTH_DOCS_PER_BIT = 10  # the growing class |H| = 2^(N / 10) of block [5]
FIGURE_NAME = "ch10_union_width.png"


def binomial_cdf(n: int, p: Fraction, k: int) -> Fraction:
    """P(X <= k) for X ~ Binomial(n, p), exactly (0 for k < 0)."""
    q = 1 - p
    return sum((math.comb(n, j) * p**j * q ** (n - j) for j in range(min(k, n) + 1)), Fraction(0))


def lower_tail(n: int, p: Fraction, t: float) -> Fraction:
    """P(X / n <= p - t): the training error falls t or more below the true error p."""
    return binomial_cdf(n, p, math.floor(n * (float(p) - t) + 1e-9))


def failure_probability(n: int, p: Fraction, slack: float) -> Fraction:
    """P(X / n + slack < p): the bound 'p <= training error + slack' fails."""
    return binomial_cdf(n, p, math.ceil(n * (float(p) - slack) - 1e-9) - 1)


def exact_slack(n: int, p: Fraction, eps: float) -> float:
    """The smallest slack s = j / n for which the bound fails with probability at most eps."""
    for j in range(n + 1):
        if failure_probability(n, p, j / n) <= eps:
            return j / n
    return 1.0


def union_slack(k: int, m: int, eps: float) -> float:
    """Hoeffding at eps / k, as the union bound over k hypotheses asks: sqrt(ln(k/eps) / 2m)."""
    return pb.hoeffding_bound(0.0, n=m, eps=eps / k)


def union_slack_log(ln_k: float, m: int, eps: float) -> float:
    """The union slack sqrt((ln |H| + ln(1/eps)) / 2m) with ln |H| given (|H| may be huge)."""
    return math.sqrt((ln_k + math.log(1 / eps)) / (2 * m))


def block1_slack() -> None:
    print(f"[1] Hoeffding's slack sqrt(ln(1/eps) / (2N)) at eps = {glue('eps', EPS)}, loss in "
          f"[{glue('loss_min', 0)}, {glue('loss_max', 1)}]")
    print("    " + "  ".join(f"N = {glue(f'slack_N{n}', n, ',')}: "
                             f"{glue(f'slack_{n}', pb.hoeffding_bound(0.0, n=n, eps=EPS), '.4f')}"
                             for n in SLACK_N))  # fmt: skip
    s100 = pb.hoeffding_bound(0.0, n=100, eps=EPS)
    s400 = pb.hoeffding_bound(0.0, n=400, eps=EPS)
    s_range = pb.hoeffding_bound(0.0, n=100, eps=EPS, loss_range=2.0)
    print(
        f"    four times the data halves it: n = {glue('halve_n', 100)} gives {s100:.4f}, "
        f"n = {glue('halve_4n', 400)} gives {glue('slack_400', s400, '.4f')}; a loss in "
        f"[{glue('range_min', -1)}, {glue('range_max', 1)}] (range {glue('range', 2)}) at n = 100 "
        f"doubles it: {glue('slack_range2', s_range, '.4f')}"
    )
    assert math.isclose(s100, 2 * s400) and math.isclose(s_range, 2 * s100)
    assert (
        pb.hoeffding_bound(0.0, n=10, eps=EPS)
        > 0.38
        > 0.0013
        > pb.hoeffding_bound(0.0, n=1_000_000, eps=EPS)
    )


def block2_exact_tails() -> dict[Fraction, list[tuple[float, float, float]]]:
    print(
        f"[2] P(training error <= p - t) for N = {glue('tail_N', N_TAIL)} samples of a 0-1 loss "
        "with mean p: "
        "exact binomial tail vs Hoeffding's exp(-2 N t^2)"
    )
    print("       p     t     exact tail    Hoeffding    Hoeffding / exact")
    rows: dict[Fraction, list[tuple[float, float, float]]] = {}
    for p in TAIL_P:
        rows[p] = []
        for t in TAIL_T:
            exact = float(lower_tail(N_TAIL, p, t))
            hoeff = math.exp(-2 * N_TAIL * t * t)
            rows[p].append((t, exact, hoeff))
            key = f"tail_p{round(100 * p)}_t{round(100 * t)}"
            ratio = (glue(f"{key}_ratio", hoeff / exact, ",.1f") if exact > 0
                     else "(exact tail is 0)")
            print(f"    {glue(f'{key}_p', float(p), '4')}  {glue(f'{key}_t', t, '4')}   "
                  f"{glue(f'{key}_exact', exact, '.4e')}   {glue(f'{key}_hoeffding', hoeff, '.4e')}"
                  f"    {ratio}")
            assert exact <= hoeff
    hoeff_slack = pb.hoeffding_bound(0.0, n=N_TAIL, eps=EPS)
    for p in TAIL_P:
        s = exact_slack(N_TAIL, p, EPS)
        key = f"needed_p{round(100 * p)}"
        print(
            f"    slack needed for a failure probability <= {glue(f'{key}_eps', EPS)} at p = "
            f"{glue(f'{key}_p', float(p))}: exact {glue(f'{key}_exact', s, '.2f')}, Hoeffding "
            f"{glue(f'{key}_hoeffding', hoeff_slack, '.4f')}"
        )
        assert s < hoeff_slack
    return rows


def block3_simulation() -> None:
    rng = np.random.default_rng(SIM_SEED)
    p = TAIL_P[0]
    errors = rng.binomial(N_TAIL, float(p), size=SIM_REPEATS) / N_TAIL
    print(
        f"[3] Simulation: {glue('sim_repeats', SIM_REPEATS, ',')} training sets of N = "
        f"{glue('sim_N', N_TAIL)} at p = {glue('sim_p', float(p))} "
        f"(seed {glue('sim_seed', SIM_SEED)})"
    )
    print("      t    simulated   std. error   exact       Hoeffding")
    for t in TAIL_T[:4]:
        freq = float((errors <= float(p) - t + 1e-9).mean())
        exact = float(lower_tail(N_TAIL, p, t))
        se = math.sqrt(exact * (1 - exact) / SIM_REPEATS)
        key = f"sim_t{round(100 * t)}"
        print(
            f"    {glue(f'{key}_t', t, '4')}   {glue(f'{key}_simulated', freq, '.5f')}     "
            f"{glue(f'{key}_se', se, '.5f')}     {glue(f'{key}_exact', exact, '.5f')}     "
            f"{glue(f'{key}_hoeffding', math.exp(-2 * N_TAIL * t * t), '.5f')}"
        )
        assert abs(freq - exact) < 4 * se


def block4_selection() -> dict[str, list[float]]:
    rng = np.random.default_rng(SELECT_SEED)
    p = Fraction(1, 2)
    single = pb.hoeffding_bound(0.0, n=SELECT_N, eps=EPS)
    q = failure_probability(SELECT_N, p, single)
    print(
        f"[4] |H| hypotheses, each a fair coin guessing a fair-coin label (true error "
        f"{glue('select_true_error', 0.5)}); pick the lowest training error on N = "
        f"{glue('select_N', SELECT_N)} (seed {glue('select_seed', SELECT_SEED)}, "
        f"{glue('select_repeats', SELECT_REPEATS, ',')} redraws); eps = {glue('select_eps', EPS)}"
    )
    print("    single slack = sqrt(ln(1/eps) / (2N)); union slack = sqrt(ln(|H|/eps) / (2N))")
    print(
        f"    the single-hypothesis slack {glue('select_single_slack', single, '.4f')} fails for "
        f"one fixed hypothesis with probability phi = {glue('phi', float(q), '.5f')}"
    )
    print(
        "        |H|   best training error   single slack: fails  exact 1-(1-phi)^|H|"
        "   union slack  fails  exact"
    )
    out: dict[str, list[float]] = {"k": [], "single": [], "union": []}
    detail = (0.0, 0.0, 0.0)
    for k in SELECT_K:
        best = rng.binomial(SELECT_N, 0.5, size=(SELECT_REPEATS, k)).min(axis=1) / SELECT_N
        sim_single = float((best + single < 0.5).mean())
        exact_single = float(1 - (1 - q) ** k)
        u = union_slack(k, SELECT_N, EPS)
        q_u = failure_probability(SELECT_N, p, u)
        exact_union = float(1 - (1 - q_u) ** k)
        sim_union = float((best + u < 0.5).mean())
        se = math.sqrt(max(exact_single * (1 - exact_single), 1e-12) / SELECT_REPEATS)
        key = f"select_k{k}"
        print(
            f"    {glue(f'{key}_k', k, '7,')}   mean {glue(f'{key}_best', best.mean(), '.4f')}"
            f"            {glue(f'{key}_single_simulated', sim_single, '.4f')}     "
            f"{glue(f'{key}_single_exact', exact_single, '.4f')}          "
            f"{glue(f'{key}_union_slack', u, '.4f')}   "
            f"{glue(f'{key}_union_simulated', sim_union, '.4f')}  "
            f"{glue(f'{key}_union_exact', exact_union, '.4f')}"
        )
        assert abs(sim_single - exact_single) < 4 * se + 1e-9
        assert exact_union <= EPS
        assert sim_union <= EPS + 4 * math.sqrt(EPS * (1 - EPS) / SELECT_REPEATS)
        out["k"].append(k)
        out["single"].append(exact_single)
        out["union"].append(exact_union)
        if k == UNION_DETAIL_K:
            detail = (float(q_u), exact_union, k * float(q_u))
    print(
        f"    the chosen hypothesis still has true error {glue('chosen_true_error', 0.5)}: its "
        "low training error is luck found by searching"
    )
    assert out["single"][0] <= EPS < out["single"][1] and out["single"][3] > 0.99
    phi_u, exact_u, summed = detail
    print(
        f"    |H| = {glue('detail_k', UNION_DETAIL_K, ',')}: one hypothesis fails the union slack "
        f"with probability phi_u = {glue('phi_u', phi_u, '.2g')}, against the budget eps/|H| = "
        f"{glue('phi_u_budget', EPS / UNION_DETAIL_K, '.0e')}; the sum |H| phi_u = "
        f"{glue('phi_u_sum', summed, '.6f')}, the exact 1-(1-phi_u)^|H| = "
        f"{glue('phi_u_exact', exact_u, '.6f')}"
    )
    print(
        f"    so over-counting explains "
        f"{glue('overcount_share', 100 * (summed - exact_u) / (EPS - exact_u), '.3f')}% of the gap "
        f"between eps = {glue('gap_eps', EPS)} and {glue('gap_exact', exact_u, '.4f')}; "
        "Hoeffding's looseness at eps/|H| the rest"
    )
    assert phi_u < EPS / UNION_DETAIL_K / 10 and (summed - exact_u) / (EPS - exact_u) < 0.01
    return out


def block5_union_price() -> None:
    print(f"[5] Union-bound slack sqrt(ln(|H|/eps) / (2N)) at eps = {glue('union_eps', EPS)}")
    print("    " + "|H| \\ N".rjust(14) + "".join(glue(f"union_N{m}", m, ">11,") for m in UNION_M)
          + "   N for slack " + glue("target_slack", TARGET_SLACK))  # fmt: skip
    needed = {}
    for k in UNION_K:
        cells = "".join(glue(f"union_k{k}_N{m}", union_slack(k, m, EPS), ">11.4f")
                        for m in UNION_M)
        m_needed = math.ceil(math.log(k / EPS) / (2 * TARGET_SLACK**2))
        needed[k] = m_needed
        print(f"    {glue(f'union_k{k}', k, '>14,')}{cells}   "
              f"{glue(f'union_k{k}_needed', m_needed, '>10,')}")
        assert union_slack(k, m_needed, EPS) <= TARGET_SLACK < union_slack(k, m_needed - 1, EPS)
    ratio = needed[10**9] / needed[1]
    print(
        f"    a billion hypotheses need {glue('billion_ratio', ratio, '.1f')} times the data of "
        f"one: the price grows with ln |H| = {glue('billion_nats', math.log(10**9), '.2f')} nats = "
        f"log2 |H| = {glue('billion_bits', math.log2(10**9), '.2f')} bits, not with |H|"
    )
    assert 7 < ratio < 8
    k30 = 2**30
    m30 = math.ceil(math.log(k30 / EPS) / (2 * TARGET_SLACK**2))
    print(
        f"    2^30 = {glue('k30', k30, ',')} hypotheses need {glue('k30_needed', m30, ',')} "
        f"samples for a slack of {glue('k30_slack', TARGET_SLACK)}, "
        f"{glue('k30_extra', m30 - needed[10**9])} more than a billion"
    )
    assert union_slack(k30, m30, EPS) <= TARGET_SLACK < union_slack(k30, m30 - 1, EPS)
    limit = math.sqrt(math.log(2) / (2 * GROWTH_DOCS_PER_BIT))
    grown = [(m, union_slack_log(m / GROWTH_DOCS_PER_BIT * math.log(2), m, EPS)) for m in UNION_M]
    print(
        "    a class that grows with the data, |H| = "
        f"2^(N/{glue('growth_per_bit', GROWTH_DOCS_PER_BIT)}): slack "
        + ", ".join(f"{glue(f'growth_{m}', s, '.4f')} at N = {glue(f'growth_N{m}', m, ',')}"
                    for m, s in grown)
        + f"; it tends to sqrt(ln 2 / {glue('growth_limit_denominator', 2 * GROWTH_DOCS_PER_BIT)})"
        f" = {glue('growth_limit', limit, '.4f')}, never to 0"
    )
    assert all(s > limit for _, s in grown) and grown[-1][1] - limit < 1e-3


def draw_figure(rows: dict[Fraction, list[tuple[float, float, float]]]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from script_io import save_figure

    palette = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#D55E00")  # Okabe-Ito
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(5.5, 8.8))
    ts = np.linspace(0.0, 0.3, 61)
    ax1.semilogy(ts, np.exp(-2 * N_TAIL * ts**2), color="black", label="Hoeffding exp(-2Nt²)")
    for p, colour in zip(TAIL_P, palette, strict=False):
        exact = [float(lower_tail(N_TAIL, p, float(t))) for t in ts]
        ax1.semilogy(ts, np.maximum(exact, 1e-30), drawstyle="steps-post", color=colour,
                     label=f"exact, p = {float(p)}")  # fmt: skip
    ax1.axhline(EPS, color="#666666", lw=0.8, ls=":")
    ax1.text(0.22, EPS * 1.4, f"eps = {EPS}", color="#666666")
    ax1.set_ylim(1e-14, 2)  # room below the curves for the legend
    ax1.set_xlabel("deviation t (training error below true error by t)")
    ax1.set_ylabel("probability")
    ax1.set_title(f"Tail of the training error, N = {N_TAIL}", fontsize=10)
    ax1.legend(loc="lower right")

    ms = np.logspace(1, 7, 100)
    for k, colour in zip(UNION_K, palette, strict=True):
        ax2.loglog(ms, np.sqrt(np.log(k / EPS) / (2 * ms)), color=colour, label=f"|H| = {k:,}")
    ax2.axhline(TARGET_SLACK, color="#666666", lw=0.8, ls=":")
    ax2.set_xlabel("training samples N")
    ax2.set_ylabel("slack sqrt(ln(|H|/eps) / 2N)")
    ax2.set_title(f"Union bound over |H| hypotheses, eps = {EPS}", fontsize=10)
    ax2.legend(loc="upper right")
    fig.tight_layout()
    save_figure(fig, FIGURE_NAME)
    plt.close(fig)


def main() -> None:
    print("Chapter 10 -- Hoeffding's inequality and the union bound (ch10_hoeffding.py)")
    block1_slack()
    rows = block2_exact_tails()
    block3_simulation()
    block4_selection()
    block5_union_price()
    draw_figure(rows)
    print("All assertions passed.")


if __name__ == "__main__":
    main()
