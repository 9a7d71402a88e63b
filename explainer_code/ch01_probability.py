"""Chapter 1: Probability: random variables, expectation, concentration.

Claims, numbered as the output blocks (all of them the book's own computations):
  [1] A 0/1 loss with P(loss = 1) = p = 0.3: expectation 0.3, variance p(1 - p) = 0.21; a
      three-valued loss in bits: its expectation and variance from the definitions.
  [2] Variances of independent terms add: the mean of N independent copies has standard
      deviation sqrt(p(1 - p) / N), which shrinks by sqrt(10) per tenfold N; N copies of one
      draw (no independence) keep the full standard deviation.
  [3] The exact distribution of the mean of N losses (binomial sums with math.comb, exact
      rationals): P(|mean - p| >= 0.1) for N = 10, 100, 1,000, 4,000: it falls faster than any
      power of N (at N = 1,000 it is about one in 87 billion); -ln(P) / N first rises
      (N = 10 to 100), then decreases towards the constant KL(0.4 || 0.3) = 0.02258 nats, above
      the 2 t^2 = 0.02 of Chapter 10.
  [4] Monte Carlo check of [3]: M = 20,000 repetitions per N (seed 1), the observed frequency
      with its standard error sqrt(f(1 - f) / M); every estimate within 3 standard errors of
      the exact value.
  [5] The normal CDF Phi(u) = (1 + erf(u / sqrt 2)) / 2 (Phi(1.96) = 0.9750) and the normal
      approximation of the tail in [3]: below the exact tail at each N printed, by a factor
      0.777 at N = 100 and 0.012 at N = 4,000: an approximation, not a bound.
  [6] Monte Carlo error, used: the 95 % interval mean +- 1.96 SE from M = 100 draws covers the
      true expectation in 3,773 of 4,000 repeated experiments (seed 2); the exact coverage,
      summed over the binomial counts, is 0.9502, and the simulation is within 2 SE of it.
Figure: ch01_concentration.png (exact distribution of the mean for three N; tail against N).
Runs in a few seconds. Every value the chapter quotes is printed through `glue(name, ...)`
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
from script_glue import glue
from script_io import save_figure

P_ERROR = Fraction(3, 10)  # P(loss = 1) for the 0/1 loss
MARGIN = Fraction(1, 10)  # the distance t in P(|mean - p| >= t)
SIZES = (10, 100, 1000, 4000)  # sample sizes N
THREE_LOSSES = (0.0, 1.0, 4.0)  # a loss in bits taking three values ...
THREE_PROBS = (Fraction(1, 2), Fraction(3, 10), Fraction(1, 5))  # ... with these probabilities
M_CHECK = 20_000  # Monte Carlo repetitions per N in [4]
SEED_CHECK = 1
M_SMALL = 100  # draws per experiment in [6]
EXPERIMENTS = 4000  # repeated experiments in [6]
SEED_COVERAGE = 2
Z95 = 1.96  # Phi(1.96) is about 0.975: a two-sided 95 % interval
NOMINAL = 0.95  # the interval's nominal coverage


def expectation(values: tuple[float, ...], probs: tuple[Fraction, ...]) -> Fraction:
    """E[X] = sum_x x P(X = x), exactly."""
    return sum((Fraction(v) * q for v, q in zip(values, probs, strict=True)), Fraction(0))


def variance(values: tuple[float, ...], probs: tuple[Fraction, ...]) -> Fraction:
    """Var[X] = E[(X - E X)^2], exactly."""
    mu = expectation(values, probs)
    return sum(((Fraction(v) - mu) ** 2 * q for v, q in zip(values, probs, strict=True)),
               Fraction(0))


def binomial_pmf(j: int, n: int, p: Fraction) -> Fraction:
    """P(J = j) for a count J ~ Binomial(n, p), exactly: C(n, j) p^j (1 - p)^(n - j)."""
    return math.comb(n, j) * p**j * (1 - p) ** (n - j)


def exact_tail(n: int, p: Fraction, t: Fraction) -> Fraction:
    """P(|J/n - p| >= t) for a count J ~ Binomial(n, p), as an exact rational."""
    return sum((binomial_pmf(k, n, p) for k in range(n + 1) if abs(Fraction(k, n) - p) >= t),
               Fraction(0))


def kl_bernoulli(a: Fraction, b: Fraction) -> float:
    """a ln(a/b) + (1 - a) ln((1 - a)/(1 - b)) in nats: the exponential rate of a binomial tail."""
    a_f, b_f = float(a), float(b)
    return a_f * math.log(a_f / b_f) + (1 - a_f) * math.log((1 - a_f) / (1 - b_f))


def normal_cdf(u: float) -> float:
    """Phi(u) = (1 + erf(u / sqrt 2)) / 2, the standard normal distribution function."""
    return 0.5 * (1.0 + math.erf(u / math.sqrt(2.0)))


def normal_tail(n: int, p: float, t: float) -> float:
    """Normal approximation of P(|mean - p| >= t): 2 (1 - Phi(t / sd)), sd = sqrt(p(1-p)/n)."""
    u = t / math.sqrt(p * (1.0 - p) / n)
    return math.erfc(u / math.sqrt(2.0))  # = 2 (1 - Phi(u)), without cancellation for large u


def monte_carlo_tail(n: int, p: Fraction, t: Fraction, m: int, rng: np.random.Generator
                     ) -> tuple[float, float]:
    """Frequency of |mean - p| >= t over m simulated samples of n 0/1 losses, and its SE."""
    q = math.lcm(p.denominator, t.denominator)
    hits = 0
    chunk = max(1, 2_000_000 // n)  # keep each array near 2 million entries
    for start in range(0, m, chunk):
        rows = min(chunk, m - start)
        losses = rng.random((rows, n)) < float(p)  # (rows, n) booleans: loss 1 with probability p
        counts = losses.sum(axis=1)  # integer counts: exact, platform independent
        # |counts/n - p| >= t in integers: |q counts - q p n| >= q t n with q a common denominator
        hits += int((np.abs(q * counts - int(q * p) * n) >= int(q * t) * n).sum())
    freq = hits / m
    return freq, math.sqrt(freq * (1.0 - freq) / m)


def coverage(m: int, experiments: int, p: float, rng: np.random.Generator) -> int:
    """How many of `experiments` intervals mean +- 1.96 SE (m draws each) contain p."""
    draws = (rng.random((experiments, m)) < p).astype(np.int64)
    means = draws.sum(axis=1) / m
    se = np.sqrt(means * (1.0 - means) / m)
    return int(((means - Z95 * se <= p) & (p <= means + Z95 * se)).sum())


def exact_coverage(m: int, p: Fraction) -> Fraction:
    """P(the interval f +- 1.96 SE covers p), f = J/m, SE = sqrt(f(1-f)/m), J ~ Bin(m, p)."""
    total = Fraction(0)
    for k in range(m + 1):
        f = k / m
        half = Z95 * math.sqrt(f * (1.0 - f) / m)
        if f - half <= float(p) <= f + half:
            total += binomial_pmf(k, m, p)
    return total


def tail_float(n: int, p: float, t: float) -> float:
    """P(|J/n - p| >= t) for J ~ Binomial(n, p) in floating point (log-factorials): figure only."""
    ks = np.arange(n + 1)
    log_fact = np.concatenate(([0.0], np.cumsum(np.log(np.arange(1, n + 1)))))
    log_pmf = log_fact[n] - log_fact[ks] - log_fact[n - ks] + ks * math.log(p) \
        + (n - ks) * math.log(1.0 - p)
    far = np.abs(ks - p * n) >= t * n - 1e-9
    top = log_pmf[far].max()
    return float(math.exp(top) * np.exp(log_pmf[far] - top).sum())


def draw_figure(tails: dict[int, Fraction]) -> None:
    """Top: exact distribution of the mean for N = 10, 100, 1,000. Bottom: the tail against N."""
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(5.5, 7.4))
    colours = {10: "#0072B2", 100: "#E69F00", 1000: "#009E73"}
    p = float(P_ERROR)
    for n, colour in colours.items():
        ks = np.arange(n + 1)
        pmf = np.array([float(binomial_pmf(int(k), n, P_ERROR)) for k in ks])
        # probability per unit of the mean, so that the three curves share one scale
        top.plot(ks / n, pmf * n, color=colour, lw=1.6, label=f"N = {n}")
    top.axvspan(0.0, p - float(MARGIN), color="0.85", zorder=0)
    top.axvspan(p + float(MARGIN), 1.0, color="0.85", zorder=0)
    top.axvline(p, color="black", lw=0.8, ls="--")
    top.set_xlim(0.0, 0.7)
    top.set_xlabel("mean of the N losses")
    top.set_ylabel("probability density (exact)")
    top.set_title("The mean concentrates around p = 0.3")
    top.text(0.02, 0.5 * top.get_ylim()[1], "shaded:\n|mean - p| >= 0.1")
    top.legend(frameon=False)

    grid = np.arange(10, SIZES[-1] + 1, 10)
    bottom.semilogy(grid, [tail_float(int(n), p, float(MARGIN)) for n in grid], color="black",
                    lw=1.6, label="exact")
    bottom.semilogy(grid, [normal_tail(int(n), p, float(MARGIN)) for n in grid], "--",
                    color="#D55E00", lw=1.4, label="normal approximation")
    bottom.semilogy(SIZES, [float(tails[n]) for n in SIZES], "o", color="black")
    bottom.set_xlabel("N (losses averaged)")
    bottom.set_ylabel("P(|mean - p| >= 0.1)")
    bottom.set_title("The tail falls exponentially in N")
    bottom.legend(frameon=False)
    fig.tight_layout()
    save_figure(fig, "ch01_concentration.png")
    plt.close(fig)


def main() -> None:
    print("Chapter 1 -- probability, expectation, concentration (ch01_probability.py)")
    p = float(P_ERROR)

    mean01 = expectation((0.0, 1.0), (1 - P_ERROR, P_ERROR))
    var01 = variance((0.0, 1.0), (1 - P_ERROR, P_ERROR))
    mean3 = expectation(THREE_LOSSES, THREE_PROBS)
    var3 = variance(THREE_LOSSES, THREE_PROBS)
    print(f"[1] {glue('loss01_low', 0)}/{glue('loss01_high', 1)} loss with p = {glue('p', p)}: "
          f"E = {glue('mean01', float(mean01), '.2f')}, Var = p(1 - p) = "
          f"{glue('var01', float(var01), '.2f')}, sd = {glue('sd01', math.sqrt(var01), '.4f')}")
    letters = "abc"  # three_loss_a is the first of the three values, three_prob_a its probability
    values = ", ".join(glue(f"three_loss_{c}", v, "g") for c, v in zip(letters, THREE_LOSSES,
                                                                       strict=True))
    probs = ", ".join(glue(f"three_prob_{c}", float(q), "g") for c, q in zip(letters, THREE_PROBS,
                                                                            strict=True))
    print(f"    three-valued loss ({values} bits with probabilities {probs}): "
          f"E = {glue('mean3', float(mean3), '.2f')} bits, Var = {glue('var3', float(var3), '.2f')}"
          f", sd = {glue('sd3', math.sqrt(var3), '.4f')}")
    assert mean01 == Fraction(3, 10) and var01 == Fraction(21, 100)
    assert mean3 == Fraction(11, 10) and var3 == Fraction(229, 100)

    print("[2] standard deviation of the mean of N losses (0/1 loss, p = 0.3)")
    sds = {n: math.sqrt(var01 / n) for n in SIZES}
    for n in SIZES:
        print(f"    N = {glue(f'sd_N{n}', n, '>5,')}: independent sqrt(p(1-p)/N) = "
              f"{glue(f'sd_mean_{n}', sds[n], '.5f')}; "
              f"N copies of one draw = {glue(f'sd_copies_{n}', math.sqrt(var01), '.5f')}")
    assert abs(sds[10] / sds[1000] - 10.0) < 1e-12

    tails = {n: exact_tail(n, P_ERROR, MARGIN) for n in SIZES}
    print(f"[3] exact P(|mean - p| >= {glue('tail_t', float(MARGIN))}) for p = "
          f"{glue('tail_p', p)}, binomial sums in exact rationals")
    for n in SIZES:
        rate = -math.log(float(tails[n])) / n
        print(f"    N = {glue(f'tail_N{n}', n, '>5,')}: {glue(f'tail_{n}', float(tails[n]), '.4e')}"
              f"   -ln(P)/N = {glue(f'tail_rate_{n}', rate, '.5f')}")
    one_in = 1 / float(tails[1000])
    print(f"    at N = {glue('one_in_N', 1000, ',')} a miss is about one in "
          f"{glue('one_in_billions', one_in / 1e9, '.0f')} billion "
          f"(1 / P = {glue('one_in', one_in, '.3e')})")
    assert 86.5e9 < one_in < 87.5e9
    assert all(tails[a] > tails[b] for a, b in itertools.pairwise(SIZES))
    assert float(tails[4000]) < 1e-40
    rates = [-math.log(float(tails[n])) / n for n in SIZES]
    limit = kl_bernoulli(P_ERROR + MARGIN, P_ERROR)
    hoeffding_rate = 2 * float(MARGIN) ** 2
    print(f"    -ln(P)/N tends to {glue('kl_limit', limit, '.5f')} as N grows (Going deeper); "
          f"Chapter 10's rate for any loss in [{glue('hoeffding_loss_min', 0)}, "
          f"{glue('hoeffding_loss_max', 1)}] is 2 t^2 = "
          f"{glue('hoeffding_rate', hoeffding_rate, '.5f')}")
    assert rates[1] > rates[0]  # rises from N = 10 to 100
    assert all(a > b for a, b in itertools.pairwise(rates[1:]))  # falls from N = 100 on
    assert all(r > limit > hoeffding_rate for r in rates)
    assert kl_bernoulli(P_ERROR - MARGIN, P_ERROR) > limit  # the upper side sets the rate

    rng = np.random.default_rng(SEED_CHECK)
    mc = {n: monte_carlo_tail(n, P_ERROR, MARGIN, M_CHECK, rng) for n in SIZES}
    print(f"[4] Monte Carlo, M = {glue('mc_repeats', M_CHECK, ',')} samples of N losses per N "
          f"(seed {glue('mc_seed', SEED_CHECK)})")
    for n in SIZES:
        freq, se = mc[n]
        exact = float(tails[n])
        row = f"    N = {glue(f'mc_N{n}', n, '>5,')}: frequency "
        if se > 0:
            z = (freq - exact) / se
            print(f"{row}{glue(f'mc_freq_{n}', freq, '.4f')} +- {glue(f'mc_se_{n}', se, '.4f')} "
                  f"(SE), exact {glue(f'mc_exact_{n}', exact, '.4f')}, difference "
                  f"{glue(f'mc_z_{n}', z, '+.2f')} SE")
            assert abs(z) < 3.0
        else:
            print(f"{row}{glue(f'mc_hits_{n}', 0)} of {glue(f'mc_repeats_{n}', M_CHECK, ',')}; "
                  f"exact {glue(f'mc_exact_{n}', exact, '.1e')}, so "
                  f"{glue(f'mc_hits_expected_{n}', 0)} hits is expected (expected count "
                  f"{glue(f'mc_expected_count_{n}', exact * M_CHECK, '.1e')})")
            assert exact * M_CHECK < 1e-3

    print(f"[5] normal CDF: Phi({glue('phi_one_u', 1)}) = {glue('phi_one', normal_cdf(1.0), '.4f')}"
          f", Phi({glue('phi_z95_u', Z95)}) = {glue('phi_z95', normal_cdf(Z95), '.4f')}, "
          f"Phi({glue('phi_minus_z95_u', -Z95)}) = "
          f"{glue('phi_minus_z95', normal_cdf(-Z95), '.4f')}")
    central = normal_cdf(Z95) - normal_cdf(-Z95)
    print(f"    Phi({glue('central_z', Z95)}) - Phi({glue('central_minus_z', -Z95)}) = "
          f"{glue('central', central, '.4f')}: a "
          f"{glue('central_percent', 100 * central, '.0f')} % central interval, "
          f"{glue('central_tail_percent', 100 * normal_cdf(-Z95), '.1f')} % in each tail")
    assert abs(central - 0.95) < 1e-3
    normal = {n: normal_tail(n, p, float(MARGIN)) for n in SIZES}
    for n in SIZES:
        ratio = normal[n] / float(tails[n])
        print(f"    N = {glue(f'normal_N{n}', n, '>5,')}: u = 0.1 / sd = "
              f"{glue(f'normal_u_{n}', float(MARGIN) / sds[n], '.3f')}, normal tail "
              f"{glue(f'normal_tail_{n}', normal[n], '.4e')}, exact "
              f"{glue(f'normal_exact_{n}', float(tails[n]), '.4e')}, ratio "
              f"{glue(f'normal_ratio_{n}', ratio, '.3f')}")
    assert abs(normal_cdf(Z95) - 0.975) < 1e-3
    assert 0.7 < normal[100] / float(tails[100]) < 1.3
    assert normal[4000] / float(tails[4000]) < 0.05
    assert all(normal[n] < float(tails[n]) for n in SIZES)

    rng = np.random.default_rng(SEED_COVERAGE)
    covered = coverage(M_SMALL, EXPERIMENTS, p, rng)
    share = covered / EXPERIMENTS
    share_se = math.sqrt(share * (1 - share) / EXPERIMENTS)
    one_se = math.sqrt(var01 / M_SMALL)
    print(f"[6] Monte Carlo error: M = {glue('cov_M', M_SMALL)} draws estimate E = "
          f"{glue('cov_p', p)}; their mean has "
          f"standard deviation sqrt(p(1-p)/M) = {glue('cov_sd', one_se, '.4f')}")
    print(f"    interval mean +- {glue('cov_z', Z95)} SE (nominal {glue('cov_nominal', NOMINAL)}) "
          f"covered the truth in {glue('cov_covered', covered, ',')} of "
          f"{glue('cov_experiments', EXPERIMENTS, ',')} experiments "
          f"(seed {glue('cov_seed', SEED_COVERAGE)}) = {glue('cov_share', share, '.4f')} +- "
          f"{glue('cov_share_se', share_se, '.4f')}")
    exact_cov = float(exact_coverage(M_SMALL, P_ERROR))
    print(f"    exact coverage of that interval (sum over the binomial counts): "
          f"{glue('cov_exact', exact_cov, '.4f')}; simulation minus exact = "
          f"{glue('cov_difference_se', (share - exact_cov) / share_se, '+.2f')} SE")
    assert abs(share - exact_cov) < 3 * share_se
    assert abs(exact_cov - NOMINAL) < 0.005

    draw_figure(tails)
    print("All assertions passed.")


if __name__ == "__main__":
    main()
