"""Chapter 22: does the bound hold as often as it promises? 200 training sets, one bound each.

Claims, numbered as the output blocks:
  [1] The experiment: the Markov source of ch22_markov.py, 200 independent training sets of
      N = 10,000 documents, n = 1,000 of each scored; on each, the count table of order 0 or 1
      with the lowest bound (precision and order chosen by the bound, paid for), bounded at
      epsilon = 0.05. Its true risk is exact, so each draw is checked without sampling error.
  [2] Coverage: the bound fell below the true risk of the predictor it covers in none of the
      200 draws, where the promise allows a failure rate up to epsilon; the empirical risk alone
      fell below the true risk in most draws (figure ch22_coverage.png).
  [3] The margin: the smallest, mean and largest gap between bound and true risk, and the
      probability of seeing no failure at all in 200 draws if the failure rate were epsilon.
Seeds: source 0; training set i: hash_seed(2200, i) for documents and sample. Numpy only, exact.
"""

from __future__ import annotations

import math
import sys
import time

import numpy as np
import script_io
from miniature import coverage, ngram
from miniature.corpus import make_markov_source

VOCAB, CONCENTRATION, P_END, SEED_SOURCE = 32, 0.1, 1 / 64, 0
N_SETS, N_DOCS, N_SAMPLE, SEED = 200, 10_000, 1_000, 2200
EPS = ngram.EPS


def figure(d: coverage.Draws) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.5, 4.4))
    lo = min(float((d.empirical - d.true).min()), 0.0) - 0.05
    hi = float((d.bound - d.true).max()) + 0.05
    bins = np.linspace(lo, hi, 60)
    ax.hist(d.empirical - d.true, bins=bins, color="#0072B2", alpha=0.8,
            label="empirical risk - true risk")
    ax.hist(d.bound - d.true, bins=bins, color="#D55E00", alpha=0.8,
            label="bound - true risk")
    ax.axvline(0.0, color="black", lw=1)
    ax.text(0.0, ax.get_ylim()[1] * 0.95, " below 0:\n the claim fails", fontsize=10, va="top")
    ax.set_xlabel("bits per token")
    ax.set_ylabel(f"training sets (of {len(d.bound)})")
    ax.set_title(f"{len(d.bound)} training sets, {d.violations} bound failures\n"
                 f"(at most about {EPS * len(d.bound):.0f} allowed)", fontsize=10)
    ax.legend(loc="center")
    fig.tight_layout()
    script_io.save_figure(fig, "ch22_coverage.png")


def main() -> None:
    t0 = time.time()
    print("Chapter 22 -- how often the bound holds (ch22_coverage.py)")
    src = make_markov_source(VOCAB, CONCENTRATION, P_END, seed=SEED_SOURCE)
    d = coverage.coverage(src, N_SETS, N_DOCS, N_SAMPLE, SEED)
    print(f"[1] {N_SETS} independent training sets of N = {N_DOCS:,} documents from the Markov "
          f"source (V = {VOCAB}); n = {N_SAMPLE:,} scored; epsilon = {EPS}")
    orders = {k: int((d.order == k).sum()) for k in (0, 1)}
    precisions = sorted({int(b) for b in d.precision})
    print(f"    the table with the lowest bound: order 1 in {orders[1]} sets, order 0 in "
          f"{orders[0]}; bits per entry chosen: {', '.join(map(str, precisions))}")
    print("    true risk exact for each draw (no sampling error)")
    assert len(d.bound) == N_SETS

    allowed = EPS * N_SETS
    print(f"[2] bound below the true risk of its predictor: {d.violations} of {N_SETS} "
          f"(the promise allows a failure rate of {EPS}, about {allowed:.0f} of {N_SETS})")
    print(f"    empirical risk below the true risk: {d.optimistic} of {N_SETS}")
    assert d.violations == 0 and d.optimistic > N_SETS // 2

    gap = d.bound - d.true
    p_none = (1 - EPS) ** N_SETS
    print(f"[3] bound - true risk: smallest {gap.min():.3f}, mean {gap.mean():.3f}, largest "
          f"{gap.max():.3f} bits per token")
    print(f"    if the failure rate were exactly {EPS}, no failure in {N_SETS} draws would have "
          f"probability {p_none:.1e}")
    assert gap.min() > 0 and p_none < 1e-4 and math.isfinite(gap.mean())
    figure(d)
    print(f"ch22_coverage: {time.time() - t0:.0f} s", file=sys.stderr)
    print("All assertions passed.")


if __name__ == "__main__":
    main()
