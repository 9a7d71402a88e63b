"""Chapter 25: does the bound improve as the model grows, at fixed data and fixed d?

Claims, numbered as the output blocks:
  [1] The experiment: Chapter 22's Markov source (exact best risk known), one training set of
      N = 100,000 documents, one sample of n = 2,000 of them, 2,000 fresh documents; SubLoRA
      with d = 500 on three shapes; three repetitions (model, projector and batch seeds) each,
      the same seeds for every shape. The baseline: the best count table of Chapter 22's grid on
      the same S and sample, its choice paid for, with its exact true risk.
  [2] Per shape, mean +- standard error over repetitions: message length L, empirical risk of
      the bounded predictor (smoothed, quantized, on the n sampled documents), the bound, and
      the true risk of the same predictor estimated on fresh documents; per run, empirical minus
      true risk, the true risk's own standard error, and bound minus true risk.
  [3] The bound split into empirical risk, the complexity term and the subsampling term: at fixed
      d, the complexity term hardly moves with size; the smoothing weight each run chose, and how
      far the empirical risk sits above the source's own risk.
  [4] The verdict of the default tier: every pair of shapes, bound differences +- standard error
      (runs as independent, and paired by repetition); the largest minus the smallest shape's
      empirical risk and message length; one run's spread; the smallest difference the 2-SE rule
      detects, and how often it fires by chance with three runs per shape.
The long tier (five shapes, 1,200 steps; `python -m miniature.sizes long`) is committed as
data/ch25_long_tier.json and read by ch26_figure3.py, which draws it as a miniature Figure 3.
Every value the chapter quotes is printed through `glue(name, ...)` (script_glue.py): names of a
shape's row end in its label's digits (`bound_2_4_64`); a difference of two shapes is named
`KEY_B_minus_A` (`bound_2_4_64_minus_1_2_32`, with `_se`, `_z`, `_paired_se`, `_paired_z`).
Deterministic: one thread, CPU kernels pinned (miniature/__init__.py). Default tier: about two
minutes on two cores.
"""

from __future__ import annotations

import math

import matplotlib
import miniature  # noqa: F401  (pins the CPU kernels before torch is imported)

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pacbound
import script_io
import torch
from miniature import bayes, ngram
from miniature.corpus import make_markov_source
from miniature.experiment import EPS
from miniature.sizes import (
    CONCENTRATION,
    P_END,
    SEED_SOURCE,
    TIERS,
    VOCAB,
    SweepRun,
    complexity_bits,
    data,
    mean_se,
    seeds,
    sweep,
)
from script_glue import glue

Z_POWER = 0.8416  # standard normal quantile 0.80: 80 % power
POWER_PERCENT = 80


def terms(run: SweepRun, n_population: int, n_sample: int) -> tuple[float, float]:
    """(complexity, subsampling) parts of the bound, each already times the loss range:
    Delta sqrt((C - ln(rho eps')) / (2N)) and Delta sqrt(-ln((1 - rho) eps') / (2n)),
    eps' = EPS / 8 (the union over the smoothing grid), C = (K + extra bits) ln 2."""
    eps = EPS / len(pacbound.ALPHA_GRID)
    rho = n_sample / (n_sample + n_population)
    delta = pacbound.loss_range(run.best_alpha, VOCAB)
    c = complexity_bits(run) * math.log(2)
    occam = delta * math.sqrt((c - math.log(rho * eps)) / (2 * n_population))
    hoeff = delta * math.sqrt(-math.log((1 - rho) * eps) / (2 * n_sample))
    assert abs(run.sample_bits + occam + hoeff - run.bound_bits) < 1e-9
    return occam, hoeff


def by_shape(runs: list[SweepRun]) -> dict:
    out: dict = {}
    for r in runs:
        out.setdefault(r.shape, []).append(r)
    return out


def key_of(shape) -> str:
    """The shape's part of a glued name: (2,4,64) -> 2_4_64."""
    return f"{shape.n_layer}_{shape.n_head}_{shape.n_embd}"


def fmt(name: str, values: list[float], digits: int = 3, width: int = 0) -> str:
    """Mean +- SE, glued as `name` and `name_se`, padded on the right to `width`."""
    m, se = mean_se(values)
    mean = format(m, f".{digits}f")
    pad = width - len(mean) - len(" +- ")
    se_spec = f"<{pad}.{digits}f" if pad > 0 else f".{digits}f"
    return f"{glue(name, m, f'.{digits}f')} +- {glue(f'{name}_se', se, se_spec)}"


def table(runs: list[SweepRun], tier_name: str, n_population: int, n_sample: int) -> dict:
    """Print one row per shape; return the per-shape summaries the verdict uses."""
    print("    (n_layer,n_head,n_embd)  weights   D (LoRA)   L (bits)        empirical        "
          "bound            true risk        best alpha")
    summary = {}
    for shape, rs in by_shape(runs).items():
        alphas = sorted({r.best_alpha for r in rs})
        k = key_of(shape)
        print(f"    {glue(f'label_{k}', shape.label(), '<24')} "
              f"{glue(f'weights_{k}', rs[0].base_params, '>8,')}  "
              f"{glue(f'lora_{k}', rs[0].lora_numbers, '>8,')}   "
              f"{fmt(f'L_{k}', [r.message_bits for r in rs], 0, 14)}  "
              f"{fmt(f'empirical_{k}', [r.sample_bits for r in rs])}  "
              f"{fmt(f'bound_{k}', [r.bound_bits for r in rs])}  "
              f"{fmt(f'true_{k}', [r.true_bits for r in rs])}  "
              f"{glue(f'alpha_{k}', ', '.join(f'{a:g}' for a in alphas))}")
        summary[shape] = {
            "bound": [r.bound_bits for r in rs], "sample": [r.sample_bits for r in rs],
            "true": [r.true_bits for r in rs], "K": [r.prefix_bits for r in rs],
            "L": [r.message_bits for r in rs], "alpha": [r.best_alpha for r in rs],
            "terms": [terms(r, n_population, n_sample) for r in rs], "params": rs[0].base_params,
        }
        for r in rs:  # the bound holds for every run: true risk below its bound
            assert r.true_bits < r.bound_bits, (tier_name, shape, r.rep)
    gaps = [r.sample_bits - r.true_bits for r in runs]
    true_se = [r.true_se for r in runs]
    slack = [r.bound_bits - r.true_bits for r in runs]
    print(f"    per run ({glue('runs', len(runs))} runs): empirical minus true risk "
          f"{glue('gap_min', min(gaps), '+.3f')} to {glue('gap_max', max(gaps), '+.3f')}; the "
          "true risk's own SE, from the fresh documents, "
          f"{glue('true_se_min', min(true_se), '.3f')} to "
          f"{glue('true_se_max', max(true_se), '.3f')}; bound minus true risk "
          f"{glue('slack_min', min(slack), '.3f')} to {glue('slack_max', max(slack), '.3f')}")
    assert max(abs(g) for g in gaps) < 2 * max(true_se)
    return summary


def two_sided_tail(t: float, df: int) -> float:
    """P(|T| > t) for Student's t with an even number of degrees of freedom, in closed form
    (Abramowitz and Stegun, Handbook of Mathematical Functions, 26.7.3): with theta =
    atan(t / sqrt(df)), P(|T| <= t) = sin(theta) (1 + cos^2/2 + 1*3 cos^4/(2*4) + ...), the
    series ending at cos^(df-2). Example: two_sided_tail(2, 2) = 1 - 2 / sqrt(6) = 0.1835."""
    assert df % 2 == 0 and df > 0
    theta = math.atan2(t, math.sqrt(df))
    c2 = math.cos(theta) ** 2
    term = total = 1.0
    for k in range(2, df - 1, 2):
        term *= c2 * (k - 1) / k
        total += term
    return 1.0 - math.sin(theta) * total


def compare(summary: dict, key: str, a, b, digits: int = 3) -> tuple[float, float, float]:
    """Shape b minus shape a in `key`: difference of means, SE with the runs as independent,
    and SE of the mean of the per-repetition differences (paired by repetition)."""
    xa, xb = summary[a][key], summary[b][key]
    diff = float(np.mean(xb) - np.mean(xa))
    se = math.sqrt(mean_se(xa)[1] ** 2 + mean_se(xb)[1] ** 2)
    paired_diff, paired_se = mean_se([y - x for x, y in zip(xa, xb, strict=True)])
    assert abs(paired_diff - diff) < 1e-9
    name = f"{glue_key(key)}_{key_of(b)}_minus_{key_of(a)}"
    print(f"    {key_name(key)}, {b.label()} minus {a.label()}: "
          f"{glue(name, diff, f'+.{digits}f')} +- {glue(f'{name}_se', se, f'.{digits}f')} "
          f"({glue(f'{name}_z', abs(diff) / se, '.2f')} SE); paired +- "
          f"{glue(f'{name}_paired_se', paired_se, f'.{digits}f')} "
          f"({glue(f'{name}_paired_z', abs(diff) / paired_se, '.2f')} SE)")
    return diff, se, paired_se


def key_name(key: str) -> str:
    return {"bound": "bound", "sample": "empirical risk", "L": "message length L (bits)"}[key]


def glue_key(key: str) -> str:
    """The first part of a glued difference's name."""
    return {"bound": "bound", "sample": "empirical", "L": "L"}[key]


def verdict(summary: dict) -> None:
    """Every pair of shapes; the largest minus the smallest in empirical risk and L; the power
    and the false-alarm rate of the 2-SE rule."""
    shapes = list(summary)
    reps = len(summary[shapes[0]]["bound"])
    print("[4] Verdict, default tier: difference of shape means +- SE of the difference (runs as "
          f"independent; paired: from the {reps} per-repetition differences)")
    far = 0
    for a, b in ((shapes[0], shapes[1]), (shapes[1], shapes[2]), (shapes[0], shapes[2])):
        diff, se, paired_se = compare(summary, "bound", a, b)
        far += abs(diff) > 2 * se or abs(diff) > 2 * paired_se
    print(f"    {glue('pairs_beyond_2se', far)} of {glue('pairs', 3)} bound differences beyond "
          "2 SE, either way")
    assert far == 0
    small, large = shapes[0], shapes[-1]
    e_diff, e_se, _ = compare(summary, "sample", small, large)
    compare(summary, "L", small, large, 0)
    assert abs(e_diff) < 2 * e_se
    sds = {shape: float(np.std(s["bound"], ddof=1)) for shape, s in summary.items()}
    print("    one run's spread (SD over repetitions) of the bound: "
          + ", ".join(glue(f"spread_{key_of(shape)}", v, ".3f") for shape, v in sds.items()))
    se = math.sqrt(mean_se(summary[large]["bound"])[1] ** 2
                   + mean_se(summary[small]["bound"])[1] ** 2)
    detect = (2 + Z_POWER) * se
    print(f"    smallest bound difference, largest minus smallest, that the 2-SE rule finds "
          f"{glue('power_percent', POWER_PERCENT)} % of the time: (2 + "
          f"{glue('z_power', Z_POWER, '.2f')}) x {glue('detect_se', se, '.3f')} = "
          f"{glue('detect_diff', detect, '.3f')} bits per token (normal approximation)")
    df_unpaired, df_paired = 2 * (reps - 1), reps - 1
    print(f"    with {glue('runs_per_shape', reps)} runs per shape the 2-SE rule fires by chance "
          f"{glue('false_alarm_percent', 100 * two_sided_tail(2, df_unpaired), '.0f')} % of the "
          f"time, not {glue('nominal_percent', 5)} % (Student's t, "
          f"{glue('df_unpaired', df_unpaired)} degrees of freedom, equal spreads); paired, "
          f"{glue('false_alarm_paired_percent', 100 * two_sided_tail(2, df_paired), '.0f')} % "
          f"({glue('df_paired', df_paired)} degrees of freedom)")
    assert abs(two_sided_tail(2, 2) - (1 - 2 / math.sqrt(6))) < 1e-12


def block1(tier) -> tuple[float, float]:
    src = make_markov_source(VOCAB, CONCENTRATION, P_END, SEED_SOURCE)
    best = bayes.best_bits(src)
    print(f"[1] Markov source of Chapter 22: V = {glue('vocab', VOCAB)}, random guess "
          f"{glue('guess_bits', math.log2(VOCAB), '.3f')} bits per token, the source's own risk "
          f"{glue('source_risk', best, '.3f')}")
    print(f"    fixed for every run: S of N = {glue('n_docs', tier.n_docs, ',')} documents, the "
          f"same n = {glue('n_sample', tier.n_sample, ',')} sampled documents, "
          f"{glue('n_fresh', tier.n_fresh, ',')} fresh documents, d = {glue('d', tier.d)}, "
          f"eps = {glue('eps', EPS)}")
    S, _, sample = data(tier)
    tb, _ = ngram.best_table(S, VOCAB, sample)
    true = ngram.exact_bits(src, tb.table, tb.best_alpha)
    print(f"    baseline, the best count table on the same S and sample (Chapter 22's grid of "
          f"{glue('table_grid', ngram.TABLES)}, paid for): order "
          f"{glue('table_order', tb.table.order)}, {glue('table_precision', tb.table.precision)} "
          f"bits per entry, bound {glue('table_bound', tb.bound_bits, '.3f')}, exact true risk "
          f"{glue('table_true_risk', true, '.3f')}")
    print(f"    SubLoRA, {glue('steps', tier.steps)} AdamW steps + "
          f"{glue('qat_steps', tier.qat_steps)} quantization-aware steps, learning rate "
          f"{glue('lr', tier.lr, 'g')}; shapes "
          + ", ".join(glue(f"shape_{key_of(s)}", s.label()) for s in tier.shapes))
    triples = [seeds(rep) for rep in range(tier.reps)]
    names = ", ".join(str(rep) for rep in range(tier.reps))
    print(f"    {glue('reps', tier.reps)} repetitions: repetitions {names} seed the model with "
          + ", ".join(str(t[0]) for t in triples) + ", the projector with "
          + ", ".join(str(t[1]) for t in triples) + " and the batches with "
          + ", ".join(str(t[2]) for t in triples) + ", whatever the shape")
    return best, tb.bound_bits


def block3(summary: dict, best: float) -> None:
    print("[3] The bound = empirical + complexity term + subsampling term (means over "
          "repetitions, bits per token)")
    print("    (n_layer,n_head,n_embd)  K (bits)   empirical  complexity  subsampling  bound")
    ks, occ, emp = [], [], []
    for shape, s in summary.items():
        sk = key_of(shape)
        o = float(np.mean([t[0] for t in s["terms"]]))
        h = float(np.mean([t[1] for t in s["terms"]]))
        k, e, b = float(np.mean(s["K"])), float(np.mean(s["sample"])), float(np.mean(s["bound"]))
        ks.append(k)
        occ.append(o)
        emp.append(e)
        print(f"    {shape.label():<24} {glue(f'K_{sk}', k, '>8,.0f')}   "
              f"{glue(f'split_empirical_{sk}', e, '.3f')}      "
              f"{glue(f'complexity_{sk}', o, '.3f')}       {glue(f'subsampling_{sk}', h, '.3f')}"
              f"        {glue(f'split_bound_{sk}', b, '.3f')}")
    print(f"    across shapes the complexity term spans "
          f"{glue('complexity_span', max(occ) - min(occ), '.3f')} bits per token, the empirical "
          f"risk {glue('empirical_span', max(emp) - min(emp), '.3f')}")
    assert max(occ) - min(occ) < 0.05
    alphas = sorted({a for s in summary.values() for a in s["alpha"]})
    runs = sum(len(s["alpha"]) for s in summary.values())
    grid = ", ".join(f"{a:g}" for a in pacbound.ALPHA_GRID)
    chosen = glue("alpha_chosen", ", ".join(f"{a:g}" for a in alphas))
    print(f"    smoothing weight alpha the bound chose: {chosen} in "
          f"all {glue('alpha_runs', runs)} runs, the largest of its grid ({grid})")
    above = [e - best for e in emp]
    print(f"    the empirical risk sits {glue('above_source_min', min(above), '.3f')} to "
          f"{glue('above_source_max', max(above), '.3f')} bits per token above "
          f"the source's own risk {glue('source_risk_baseline', best, '.3f')} (shape means)")
    assert alphas == [max(pacbound.ALPHA_GRID)]


def draw(summary: dict, best: float, table_bound: float) -> None:
    fig, axes = plt.subplots(2, 1, figsize=(5.5, 8.6), layout="constrained")
    for ax in axes[:1]:
        xs = [s["params"] for s in summary.values()]
        for key, colour, marker, name in (("bound", "#D55E00", "o", "bound"),
                                          ("true", "#009E73", "s", "true risk (same predictor)"),
                                          ("sample", "#0072B2", "^", "empirical risk")):
            ms = [mean_se(s[key]) for s in summary.values()]
            ax.errorbar(xs, [m for m, _ in ms], yerr=[2 * e for _, e in ms], color=colour,
                        marker=marker, capsize=3, label=name)
        ax.axhline(math.log2(VOCAB), color="#999999", ls="--", lw=1, label="random guess")
        ax.axhline(table_bound, color="#CC79A7", ls="-.", lw=1.5, label="best count table's bound")
        ax.set_xscale("log")
        ax.set_xlabel("weights of the network (tied head counted once)")
        ax.set_title("bound and risks against size (bars: 2 SE)", fontsize=10)
        ax.set_ylabel("bits per token")
        ax.legend(loc="center")
    ax = axes[1]
    labels = [shape.label() for shape in summary]
    emp = np.array([np.mean(s["sample"]) for s in summary.values()])
    occ = np.array([np.mean([t[0] for t in s["terms"]]) for s in summary.values()])
    sub = np.array([np.mean([t[1] for t in s["terms"]]) for s in summary.values()])
    ax.bar(labels, emp, color="#0072B2", label="empirical risk")
    ax.bar(labels, occ, bottom=emp, color="#E69F00", label="complexity term")
    ax.bar(labels, sub, bottom=emp + occ, color="#CC79A7", label="subsampling term")
    ax.axhline(math.log2(VOCAB), color="#999999", ls="--", lw=1, label="random guess")
    ax.axhline(best, color="#000000", ls=":", lw=1.5, label="the source's own risk")
    ax.set_ylim(0, 5.6)
    ax.set_ylabel("bits per token")
    ax.set_title("the bound, piece by piece (means)", fontsize=10)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.1), ncol=2, frameon=False)
    script_io.save_figure(fig, "ch25_bound_vs_size.png")
    plt.close(fig)


def main() -> None:
    torch.set_num_threads(1)
    print("Chapter 25 -- bounds as models grow, fixed N and d (ch25_bounds_as_models_grow.py)")
    tier = TIERS["default"]
    best, table_bound = block1(tier)
    runs = sweep(tier)
    print(f"[2] Default tier, mean +- SE over {tier.reps} repetitions (bits per token; L in bits)")
    default = table(runs, "default", tier.n_docs, tier.n_sample)
    block3(default, best)
    verdict(default)
    assert all(table_bound < min(s["bound"]) for s in default.values())
    draw(default, best, table_bound)
    print("All assertions passed.")


if __name__ == "__main__":
    main()
