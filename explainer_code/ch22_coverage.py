"""Chapter 22: does the bound hold as often as it promises? 200 training sets, one bound each.

Claims, numbered as the output blocks:
  [1] The experiment: the Markov source of ch22_markov.py, 200 independent training sets of
      N = 10,000 documents, n = 1,000 of each scored; on each, the count table of order 0 or 1
      with the lowest bound (precision and order chosen by the bound, paid for), bounded at
      epsilon = 0.05. Its true risk is exact, so each draw is checked without sampling error.
  [2] Coverage: the bound fell below the true risk of the predictor it covers in none of the
      200 draws, where the promise allows a failure rate up to epsilon; the empirical risk alone
      fell below the true risk in about half of them (figure ch22_coverage.png).
  [3] The margin: the smallest, mean and largest gap between bound and true risk, and the
      probability of seeing no failure at all in 200 draws if the failure rate were epsilon.
Seeds: source 0; training set i: hash_seed(2200, i) for documents and sample. Numpy only, exact.
Every value the chapter quotes is printed through `glue(name, ...)` (script_glue.py), so that the
page refers to it by name.
"""

from __future__ import annotations

import math
import sys
import time

import numpy as np
import script_io
from miniature import coverage, ngram
from miniature.corpus import make_markov_source
from script_glue import glue

VOCAB, CONCENTRATION, P_END, SEED_SOURCE = 32, 0.1, 1 / 64, 0
N_SETS, N_DOCS, N_SAMPLE, SEED = 200, 10_000, 1_000, 2200
EPS = ngram.EPS


def figure(d: coverage.Draws) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (left, right) = plt.subplots(2, 1, figsize=(5.5, 6.4))
    n = len(d.bound)
    # Left: the empirical risk against the truth, in narrow bins with an edge at 0, so that the
    # draws where the sample flatters the predictor are the bars left of the line.
    optimism = d.empirical - d.true
    step = 0.005
    edges = np.arange(np.floor(optimism.min() / step) * step,
                      np.ceil(optimism.max() / step) * step + step / 2, step)
    left.hist(optimism, bins=edges, color="#0072B2")
    left.axvline(0.0, color="black", lw=1)
    left.set_title(f"empirical risk - true risk\nbelow 0 in {d.optimistic} of {n} sets",
                   fontsize=10)
    left.set_xlabel("bits per token")
    left.set_ylabel(f"training sets (of {n})")
    # Right: the bound against the truth; a bar left of 0 would be a failure of the bound.
    margin = d.bound - d.true
    right.hist(margin, bins=np.linspace(0.0, float(margin.max()) + 0.05, 30), color="#D55E00")
    right.axvline(0.0, color="black", lw=1)
    right.set_xlim(-0.5, float(margin.max()) + 0.1)
    right.text(-0.05, right.get_ylim()[1] * 0.95, "a bound\nbelow 0\nfails", fontsize=10,
               va="top", ha="right")
    right.set_title(f"bound - true risk\n{d.violations} failures of {n} (a rate of {EPS} "
                    f"gives about {EPS * n:.0f})", fontsize=10)
    right.set_xlabel("bits per token")
    right.set_ylabel(f"training sets (of {n})")
    fig.tight_layout()
    script_io.save_figure(fig, "ch22_coverage.png")


def main() -> None:
    t0 = time.time()
    print("Chapter 22 -- how often the bound holds (ch22_coverage.py)")
    src = make_markov_source(VOCAB, CONCENTRATION, P_END, seed=SEED_SOURCE)
    d = coverage.coverage(src, N_SETS, N_DOCS, N_SAMPLE, SEED)
    print(f"[1] {glue('cov_sets', N_SETS)} independent training sets of "
          f"N = {glue('cov_n_docs', N_DOCS, ',')} documents from the Markov source "
          f"(V = {VOCAB}); n = {glue('cov_n_sample', N_SAMPLE, ',')} scored; "
          f"epsilon = {glue('cov_eps', EPS)}")
    orders = {k: int((d.order == k).sum()) for k in (0, 1)}
    precisions = sorted({int(b) for b in d.precision})
    print(f"    the table with the lowest bound: order {glue('cov_order1', 1)} in "
          f"{glue('cov_order1_sets', orders[1])} sets, order {glue('cov_order0', 0)} in "
          f"{glue('cov_order0_sets', orders[0])}; bits per entry chosen: "
          f"{glue('cov_bits_per_entry', ', '.join(map(str, precisions)))}")
    print("    true risk exact for each draw (no sampling error)")
    assert len(d.bound) == N_SETS

    allowed = EPS * N_SETS
    print(f"[2] bound below the true risk of its predictor: {glue('cov_failures', d.violations)} "
          f"of {glue('cov_draws', N_SETS)} (the promise allows a failure rate of {EPS}, about "
          f"{glue('cov_failures_allowed', allowed, '.0f')} of {N_SETS})")
    print(f"    empirical risk below the true risk: {glue('cov_optimistic', d.optimistic)} of "
          f"{N_SETS}")
    assert d.violations == 0

    gap = d.bound - d.true
    p_none = (1 - EPS) ** N_SETS
    print(f"[3] bound - true risk: smallest {glue('cov_margin_min', gap.min(), '.3f')}, mean "
          f"{glue('cov_margin_mean', gap.mean(), '.3f')}, largest "
          f"{glue('cov_margin_max', gap.max(), '.3f')} bits per token")
    print(f"    if the failure rate were exactly {glue('cov_supposed_rate', EPS)}, no failure in "
          f"{N_SETS} draws would have "
          f"probability {glue('cov_p_no_failure', p_none, '.1e')}")
    assert gap.min() > 0 and p_none < 1e-4 and math.isfinite(gap.mean())
    figure(d)
    print(f"ch22_coverage: {time.time() - t0:.0f} s", file=sys.stderr)
    print("All assertions passed.")


if __name__ == "__main__":
    main()
