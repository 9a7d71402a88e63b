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
      in both roots, as Chapter 22: "paid"), the true risk of the bounded predictor on 5,000
      fresh documents, the copied half on fresh documents, the message (mean, and its range over
      the runs), the smoothing weight each run's bound chose, how much the training loss still
      fell late in training (the mean logged loss of the middle third of the training steps
      minus that of the last third; the quantization-aware steps after them left out), and the
      margin below the best table; every run's bound is above its true risk; the range of
      empirical minus true risk over all runs; the runs whose paid bound is above a guess.
  [3] Differences of adjacent shapes' mean paid bounds, +- SE of the difference (seeds as
      independent, and paired by seed); the slope of the paid bound against ln D with the four
      shapes as the units (ordinary least squares on the shape means, SE from their residuals,
      2 degrees of freedom), written per 25 times the numbers, and without the largest shape;
      how far the shape means scatter about the line against the seed noise of a mean (the line
      does not fit); the bound falls from the smallest shape to the one-layer model of width 64,
      beyond 2 SE, and rises after it. The largest shape's late fall of the training loss
      exceeds the smallest's by more than 2 SE: one fixed training budget, not every shape at
      its plateau.
The figure ch25_sizes_copying.png: every run's paid bound and true risk against D, the shape
means joined, the best table and the random guess.
Standard errors: sample standard deviation over seeds / sqrt(seeds). Printed to 3 decimals.
Every value the chapter quotes is printed through `glue(name, ...)` (script_glue.py): names of a
shape's values end in layers x width (`bound_2x128`, its SE `bound_2x128_se`); the step between
adjacent shapes is `step_B_minus_A` (`step_1x64_minus_1x32`).
"""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import script_io
from miniature import ngram
from miniature.corpus import RepeatSource, repeat_docset
from miniature.sizes import mean_se
from miniature.thesis import MORE_BITS, paid_bound
from script_glue import glue

DATA = Path(__file__).resolve().parent / "data"
FILES = [DATA / f"ch22_thesis_sizes_seed{s}.json" for s in (0, 1, 2)]
VOCAB, SPAN, N_DOCS, N_SAMPLE, SEED_S, SEED_SAMPLE = 32, 16, 100_000, 5_000, 1, 3
PER = 25  # slopes are written per 25 times the numbers, as Chapter 25's first sweep
STEPS_LOGGED = 100  # train_losses_bits: one mean loss per 100 steps, the last 100 the
# quantization-aware steps (theta_adam.train logs every 100 of steps + qat_steps)


def fmt(name: str, xs: list[float]) -> str:
    """Mean +- SE, glued as `name` and `name_se`."""
    m, s = mean_se(xs)
    return f"{glue(name, round(m, 3) + 0.0, '.3f')} +- {glue(f'{name}_se', s, '.3f')}"


def key(shape: tuple[int, int]) -> str:
    """The shape's part of a glued name: (2, 128) -> 2x128."""
    return f"{shape[0]}x{shape[1]}"


def recipe_text(recipe: dict) -> str:
    """str(recipe), with its steps, d and levels glued."""
    glued = {"steps": "recipe_steps", "d": "recipe_d", "levels": "recipe_levels"}
    return "{" + ", ".join(f"{k!r}: {glue(glued[k], v) if k in glued else repr(v)}"
                           for k, v in recipe.items()) + "}"


def late_fall(row: dict, steps: int) -> float:
    """How much the logged training loss (bits) fell over the last third of the `steps` training
    steps: the mean of the middle third's logged losses minus the last third's (the logged
    losses after `steps`, of the quantization-aware steps, left out)."""
    losses = row["train_losses_bits"][: steps // STEPS_LOGGED]
    third = len(losses) // 3
    return float(np.mean(losses[third:2 * third]) - np.mean(losses[2 * third:]))


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
    print(f"    the recipe, unchanged for every shape: {recipe_text(recs[0]['recipe'])}")
    print(f"    the same S (N = {N_DOCS:,}), sample (n = {N_SAMPLE:,}) and fresh documents for "
          "every run; seed s: model s, projector 137 + s, batches 1337 + s")
    print("    shapes (layers x width, 4 heads) and their numbers D: " + ", ".join(
        f"{a} x {b}: {glue(f'numbers_{key((a, b))}', by_shape[(a, b)][0]['n_params'], ',')}"
        for a, b in shapes))
    print(f"    baselines on the same S, sample and N: best count table (order "
          f"{table.table.order}, {table.table.precision} bits per entry) bound "
          f"{glue('table_bound', table.bound_bits, '.3f')}; random guess "
          f"{glue('guess_bits', guess, '.3f')}; best possible {glue('best_bits', best, '.3f')}")

    print(f"[2] per shape, mean +- SE over {len(FILES)} seeds (bits per token; the recipe's "
          f"choice paid, {glue('paid_bits', MORE_BITS)} bits in both roots)")
    steps = recs[0]["recipe"]["steps"]
    for s in shapes:
        rs = by_shape[s]
        paid = [paid_bound(r) for r in rs]
        assert all(p > r["true_smoothed"] for p, r in zip(paid, rs, strict=True))
        bits = [r["message_bits"] for r in rs]
        k = key(s)
        alphas = ", ".join(glue(f"alpha_{k}_seed{r['seed']}", str(r["best_alpha"])) for r in rs)
        print(f"    {glue(f'layers_{k}', s[0])} x {glue(f'width_{k}', s[1], '<3')} "
              f"(D = {rs[0]['n_params']:>7,}): bound "
              f"{fmt(f'bound_{k}', paid)}, true risk "
              f"{fmt(f'true_{k}', [r['true_smoothed'] for r in rs])}, copied half "
              f"{fmt(f'copied_{k}', [r['halves']['quantized']['second'] for r in rs])}, message "
              f"{glue(f'message_{k}', np.mean(bits), ',.0f')} bits "
              f"({glue(f'message_min_{k}', min(bits), ',')} to "
              f"{glue(f'message_max_{k}', max(bits), ',')}), alpha {alphas}, late fall "
              f"{fmt(f'late_fall_{k}', [late_fall(r, steps) for r in rs])}, below the table "
              f"{fmt(f'below_table_{k}', [table.bound_bits - p for p in paid])}")
    gaps = [r["true_smoothed"] + r["gap"]["sample_minus_true"] - r["true_smoothed"] for r in runs]
    print(f"    empirical minus true risk of the bounded predictor, every run: "
          f"{glue('gap_min', min(gaps), '+.3f')} to {glue('gap_max', max(gaps), '+.3f')}: no "
          "shape overfits; the bounds rank the shapes by how well they fit")
    above = sum(paid_bound(r) > guess for r in runs)
    print(f"    runs whose paid bound is above a random guess: {glue('runs_above_guess', above)} "
          f"of {glue('runs', len(runs))}")

    means = {sh: mean_se([paid_bound(r) for r in by_shape[sh]]) for sh in shapes}
    print(f"[3] the paid bound against size (bits per token): adjacent shapes, difference of "
          f"means +- SE (seeds as independent); slopes against ln D per {glue('per', PER)} times "
          "the numbers, "
          "the four shapes as the units")
    steps_beyond = []
    for a, b in itertools.pairwise(shapes):
        diff = means[b][0] - means[a][0]
        se = math.hypot(means[a][1], means[b][1])
        per_seed = {r["seed"]: paid_bound(r) for r in by_shape[b]}
        paired = [per_seed[r["seed"]] - paid_bound(r) for r in by_shape[a]]
        pse = mean_se(paired)[1]
        steps_beyond.append(abs(diff) > 2 * se)
        name = f"step_{key(b)}_minus_{key(a)}"
        print(f"    {b[0]} x {b[1]} minus {a[0]} x {a[1]}: {glue(name, diff, '+.3f')} +- "
              f"{glue(f'{name}_se', se, '.3f')} ({glue(f'{name}_z', abs(diff) / se, '.1f')} SE); "
              f"paired by seed +- {glue(f'{name}_paired_se', pse, '.3f')} "
              f"({glue(f'{name}_paired_z', abs(diff) / pse, '.1f')} SE)")
    k = math.log(PER)
    x = np.log(np.array([by_shape[sh][0]["n_params"] for sh in shapes], dtype=float))
    y = np.array([means[sh][0] for sh in shapes])
    slope, se, df = ols(x, y)
    print(f"    slope, four shapes: {glue('slope', slope * k, '+.3f')} +- "
          f"{glue('slope_se', se * k, '.3f')} ({glue('slope_z', abs(slope) / se, '.1f')} SE, "
          f"{glue('slope_df', df)} degrees of freedom): "
          f"{'beyond' if abs(slope) > 2 * se else 'within'} 2 SE")
    resid = y - (y.mean() + slope * (x - x.mean()))
    noise = math.sqrt(np.mean([means[sh][1] ** 2 for sh in shapes]))
    print(f"    the shape means scatter about that line by "
          f"{glue('scatter_rms', math.sqrt(np.mean(resid ** 2)), '.3f')} (root mean square), "
          f"against a seed SE of a shape mean of about {glue('seed_noise', noise, '.3f')}: the "
          "line does not fit, and its misfit is what makes the slope's SE large")
    assert math.sqrt(np.mean(resid ** 2)) > 2 * noise
    slope3, se3, df3 = ols(x[:-1], y[:-1])
    print(f"    slope without the largest shape: {glue('slope3', slope3 * k, '+.3f')} +- "
          f"{glue('slope3_se', se3 * k, '.3f')} ({glue('slope3_z', abs(slope3) / se3, '.1f')} SE, "
          f"{glue('slope3_df', df3)} degree of freedom)")
    assert steps_beyond[0] and means[shapes[1]][0] < means[shapes[0]][0]  # falls first
    assert means[shapes[-1]][0] > means[shapes[1]][0]  # then rises: not monotone
    assert abs(slope) < 2 * se
    falls = {sh: mean_se([late_fall(r, steps) for r in by_shape[sh]]) for sh in shapes}
    small, large = falls[shapes[0]], falls[shapes[-1]]
    print(f"    not monotone: lowest at {glue('lowest_layers', shapes[1][0])} x "
          f"{glue('lowest_width', shapes[1][1])}, highest at "
          f"{glue('highest_layers', shapes[-1][0])} x {glue('highest_width', shapes[-1][1])}")
    print(f"    plateau: the middle third's mean training loss minus the last third's, bits per "
          f"token: {glue('plateau_largest', large[0], '.3f')} +- "
          f"{glue('plateau_largest_se', large[1], '.3f')} for {shapes[-1][0]} x {shapes[-1][1]}, "
          f"{glue('plateau_smallest', small[0], '.3f')} +- "
          f"{glue('plateau_smallest_se', small[1], '.3f')} for {shapes[0][0]} x {shapes[0][1]}: "
          f"one budget of {glue('plateau_steps', steps, ',')} steps, not every shape at its "
          "plateau")
    assert large[0] - small[0] > 2 * math.hypot(large[1], small[1])
    figure(runs, table.bound_bits, guess)
    print("All assertions passed.")


def figure(runs: list[dict], table: float, guess: float) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.5, 4.2))
    d = np.array([r["n_params"] for r in runs], dtype=float)
    sizes = sorted(set(d))
    for name, ys, colour, marker in (
            ("bound (choice paid)", [paid_bound(r) for r in runs], "#D55E00", "o"),
            ("true risk", [r["true_smoothed"] for r in runs], "#0072B2", "s")):
        ys = np.array(ys)
        ax.plot(d, ys, marker, color=colour, alpha=0.6, label=name)
        ax.plot(sizes, [ys[d == size].mean() for size in sizes], color=colour, lw=1)
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
