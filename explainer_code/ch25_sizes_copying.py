"""Chapter 25: does a larger model get a better bound, where the models learn the source?

Reads the size sweep (`data/ch22_thesis_sizes_seed0.json` to `..._seed2.json`), written by
`make miniature-sizes` with the command, commit, machine and times inside: Chapter 22's thesis
recipe (a random 1,000-dimensional subspace of all the model's numbers, 3,000 steps, 21
quantization levels) run unchanged on four GPT shapes, seeds 0-2, on the copying source's S,
sample and fresh documents, the same for every shape. Recomputes the count tables itself
(numpy, exact) on the same S and sample, as ch22_thesis.py does.

Claims, numbered as the output blocks:
  [1] Provenance; the design (shapes, their numbers D, seeds, what is fixed); the baselines on
      the same S, sample and N: the best count table of orders 0-2 and the random guess.
  [2] Per shape, mean +- SE over the 3 seeds: the bound with the recipe's choice paid (20 bits
      in both roots, as Chapter 22), the true risk of the bounded predictor on 5,000 fresh
      documents, the copied half on fresh documents, the message, and how much the training
      loss still fell over the last third of training; every run's bound is above its true
      risk, and the margin below the best table of each shape.
  [3] The fitted slope of the paid bound, and of the true risk, against ln D (ordinary least
      squares over the 12 runs, SE from the residuals, 10 degrees of freedom), written per 25
      times the numbers; whether it is beyond 2 SE; the smallest slope the design finds 80 % of
      the time with the 2-SE rule, (2 + 0.84) SE (normal approximation). Whether every shape
      reached a plateau: the largest shape's training loss still falls over the last third by
      more than 2 SE beyond the smallest's, so the slope is that of one fixed training budget,
      not of every shape at its plateau.
The figure ch25_sizes_copying.png: every run's paid bound and true risk against D, the fitted
line, the best table and the random guess.
Standard errors: sample standard deviation over seeds / sqrt(seeds). Printed to 3 decimals.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pacbound
import script_io
from miniature import ngram
from miniature.corpus import RepeatSource, repeat_docset
from miniature.experiment import EPS, EXTRA_BITS

DATA = Path(__file__).resolve().parent / "data"
FILES = [DATA / f"ch22_thesis_sizes_seed{s}.json" for s in (0, 1, 2)]
VOCAB, SPAN, N_DOCS, N_SAMPLE, SEED_S, SEED_SAMPLE = 32, 16, 100_000, 5_000, 1, 3
MORE_BITS = 20  # Chapter 22's allowance for the recipe's choice, paid in both roots
PER = 25  # slopes are written per 25 times the numbers, as Chapter 25's first sweep
STEPS_LOGGED = 100  # train_losses_bits: one mean loss per 100 steps (copying_probe)


def mean_se(xs: list[float]) -> tuple[float, float]:
    a = np.asarray(xs, dtype=float)
    return float(a.mean()), float(a.std(ddof=1) / math.sqrt(len(a)))


def fmt(xs: list[float]) -> str:
    m, s = mean_se(xs)
    return f"{round(m, 3) + 0.0:.3f} +- {s:.3f}"


def paid_bound(row: dict) -> float:
    """The row's bound at its alpha with the recipe's choice among 2^MORE_BITS configurations
    paid in both roots (eps / (8 * 2^MORE_BITS) in each), as ch22_thesis.py's `bound_with`."""
    sample_smoothed = row["true_smoothed"] + row["gap"]["sample_minus_true"]
    nats = (row["prefix_bits"] + EXTRA_BITS) * math.log(2)
    return pacbound.subsampling_bound(
        train_error=sample_smoothed, loss_range=pacbound.loss_range(row["best_alpha"], VOCAB),
        complexity_nats=nats, n_population=N_DOCS, n_sample=N_SAMPLE,
        eps=EPS / len(pacbound.ALPHA_GRID) / 2.0**MORE_BITS)


def late_fall(row: dict) -> float:
    """How much the logged training loss (bits) fell over the last third of the steps: the mean
    of the logged losses of the middle third minus that of the last third."""
    losses = row["train_losses_bits"]
    steps = (len(losses) - 1) * STEPS_LOGGED
    third = steps // 3 // STEPS_LOGGED
    return float(np.mean(losses[-2 * third:-third]) - np.mean(losses[-third:]))


def ols(x: np.ndarray, y: np.ndarray) -> tuple[float, float, int]:
    """Slope, its standard error from the residuals, and the residual degrees of freedom."""
    X = np.column_stack([np.ones_like(x), x])
    coef, *_ = np.linalg.lstsq(X, y, rcond=None)
    resid = y - X @ coef
    df = len(x) - 2
    cov = resid @ resid / df * np.linalg.inv(X.T @ X)
    return float(coef[1]), float(math.sqrt(cov[1, 1])), df


def main() -> None:
    print("Chapter 25 -- bounds as models grow, on the copying source (ch25_sizes_copying.py)")
    recs = [json.loads(f.read_text(encoding="utf-8")) for f in FILES]
    runs = [r for rec in recs for r in rec["runs"]]
    shapes = [tuple(s) for s in recs[0]["sizes"]]
    assert all([tuple(s) for s in rec["sizes"]] == shapes for rec in recs)
    assert sorted(r["seed"] for r in runs) == sorted([0, 1, 2] * len(shapes))
    assert all(rec["recipe"] == recs[0]["recipe"] for rec in recs)
    by_shape = {s: [r for r in runs if (r["change"]["n_layer"], r["change"]["n_embd"]) == s]
                for s in shapes}

    src = RepeatSource(VOCAB, SPAN)
    S = repeat_docset(src, N_DOCS, seed=SEED_S)
    sample = np.random.default_rng(SEED_SAMPLE).integers(0, N_DOCS, size=N_SAMPLE)
    _, grid = ngram.best_table(S, VOCAB, sample)
    table = min(grid.values(), key=lambda t: t.bound_bits)
    guess, best = math.log2(VOCAB), src.best_bits()

    print(f"[1] {', '.join(f.name for f in FILES)}: {recs[0]['command'].split(' (')[0]}")
    for f, rec in zip(FILES, recs, strict=True):
        print(f"    {f.name}: commit {rec['commit'][:7]}, started {rec['started']}, "
              f"{rec['seconds'] / 60:.0f} min, {rec['threads']} thread, seeds {rec['seeds']}")
    print(f"    machine: {recs[0]['machine']}")
    print(f"    the recipe, unchanged for every shape: {recs[0]['recipe']}")
    print(f"    the same S (N = {N_DOCS:,}), sample (n = {N_SAMPLE:,}) and fresh documents for "
          "every run; seed s: model s, projector 137 + s, batches 1337 + s")
    print("    shapes (layers x width, 4 heads) and their numbers D: " + ", ".join(
        f"{a} x {b}: {by_shape[(a, b)][0]['n_params']:,}" for a, b in shapes))
    print(f"    baselines on the same S, sample and N: best count table (order "
          f"{table.table.order}, {table.table.precision} bits per entry) bound "
          f"{table.bound_bits:.3f}; random guess {guess:.3f}; best possible {best:.3f}")

    print(f"[2] per shape, mean +- SE over {len(FILES)} seeds (bits per token; the recipe's "
          f"choice paid, {MORE_BITS} bits in both roots)")
    for s in shapes:
        rs = by_shape[s]
        paid = [paid_bound(r) for r in rs]
        assert all(p > r["true_smoothed"] for p, r in zip(paid, rs, strict=True))
        print(f"    {s[0]} x {s[1]:<3} (D = {rs[0]['n_params']:>7,}): bound {fmt(paid)}, true "
              f"risk {fmt([r['true_smoothed'] for r in rs])}, copied half "
              f"{fmt([r['halves']['quantized']['second'] for r in rs])}, message "
              f"{mean_se([r['message_bits'] for r in rs])[0]:,.0f} bits, "
              f"fall over the last third {fmt([late_fall(r) for r in rs])}, below the table "
              f"{fmt([table.bound_bits - p for p in paid])}")

    x = np.log(np.array([r["n_params"] for r in runs], dtype=float))
    print(f"[3] slopes against ln D over the {len(runs)} runs (ordinary least squares), "
          f"per {PER} times the numbers (bits per token)")
    fits = {}
    for name, y in (("paid bound", [paid_bound(r) for r in runs]),
                    ("true risk", [r["true_smoothed"] for r in runs])):
        slope, se, df = ols(x, np.array(y))
        k = math.log(PER)
        fits[name] = (slope, se)
        verdict = "beyond 2 SE" if abs(slope) > 2 * se else "within 2 SE"
        print(f"    {name}: {slope * k:+.3f} +- {se * k:.3f} ({abs(slope) / se:.1f} SE, "
              f"{df} degrees of freedom): {verdict}; smallest slope found 80 % of the time: "
              f"(2 + 0.84) x {se * k:.3f} = {2.84 * se * k:.3f}")
    falls = {s: mean_se([late_fall(r) for r in by_shape[s]]) for s in shapes}
    small, large = falls[shapes[0]], falls[shapes[-1]]
    print(f"    plateau: the training loss still fell over the last third by {large[0]:.3f} +- "
          f"{large[1]:.3f} for {shapes[-1][0]} x {shapes[-1][1]}, {small[0]:.3f} +- {small[1]:.3f} "
          f"for {shapes[0][0]} x {shapes[0][1]}: these slopes are of one budget of "
          f"{recs[0]['recipe']['steps']:,} steps, not of every shape at its plateau")
    assert large[0] - small[0] > 2 * math.hypot(large[1], small[1])
    figure(runs, fits, table.bound_bits, guess)
    print("All assertions passed.")


def figure(runs: list[dict], fits: dict, table: float, guess: float) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.5, 4.2))
    d = np.array([r["n_params"] for r in runs], dtype=float)
    for name, ys, colour, marker in (
            ("bound (choice paid)", [paid_bound(r) for r in runs], "#D55E00", "o"),
            ("true risk", [r["true_smoothed"] for r in runs], "#0072B2", "s")):
        ax.plot(d, ys, marker, color=colour, alpha=0.8, label=name)
        slope, _ = fits["paid bound" if colour == "#D55E00" else "true risk"]
        xs = np.geomspace(d.min(), d.max(), 20)
        mid = np.mean(np.log(d))
        ax.plot(xs, np.mean(ys) + slope * (np.log(xs) - mid), color=colour, lw=1)
    ax.axhline(table, color="#009E73", ls="-.", lw=1, label="best count table's bound")
    ax.axhline(guess, color="black", ls="--", lw=1, label="random guess")
    ax.set_xscale("log")
    ax.set_xlabel("numbers in the model, D")
    ax.set_ylabel("bits per token")
    ax.set_title("Copying source: four sizes, three seeds each", fontsize=10)
    ax.legend(loc="lower right")
    fig.tight_layout()
    script_io.save_figure(fig, "ch25_sizes_copying.png")


if __name__ == "__main__":
    main()
