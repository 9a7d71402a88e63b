"""Chapter 25: does the bound improve as the model grows, at fixed data and fixed d?

Claims, numbered as the output blocks:
  [1] The experiment: Chapter 22's Markov source (exact best risk known), one training set of
      N = 100,000 documents, one sample of n = 2,000 of them, 2,000 fresh documents; SubLoRA
      with d = 500 on three shapes; three repetitions (model, projector and batch seeds) each.
  [2] Per shape, mean +- standard error over repetitions: message length L, prefix-code length
      K, empirical risk of the bounded predictor (smoothed, quantized, on the n sampled
      documents), the bound, and the true risk of the same predictor on fresh documents.
  [3] The bound split into empirical risk, the complexity term and the subsampling term: at fixed
      d, the complexity term hardly moves with size; the bound moves with the empirical risk.
  [4] The verdict of the default tier: whether the largest shape's bound is below the smallest
      one's by more than 2 standard errors of the difference.
The long tier (five shapes, 1,200 steps; `python -m miniature.sizes long`) is committed as
data/ch25_long_tier.json and read by ch26_figure3.py, which draws it as a miniature Figure 3.
Deterministic: one thread, CPU kernels pinned (miniature/__init__.py). Default tier: about 60 s
on two cores.
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
from miniature import bayes
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
    mean_se,
    seeds,
    sweep,
)


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


def fmt(values: list[float], digits: int = 3) -> str:
    m, se = mean_se(values)
    return f"{m:.{digits}f} +- {se:.{digits}f}"


def table(runs: list[SweepRun], tier_name: str, n_population: int, n_sample: int) -> dict:
    """Print one row per shape; return the per-shape summaries the verdict uses."""
    print("    (n_layer,n_head,n_embd)  weights   D (LoRA)   L (bits)        empirical        "
          "bound            true risk        best alpha")
    summary = {}
    for shape, rs in by_shape(runs).items():
        alphas = sorted({r.best_alpha for r in rs})
        print(f"    {shape.label():<24} {rs[0].base_params:>8,}  {rs[0].lora_numbers:>8,}   "
              f"{fmt([r.message_bits for r in rs], 0):<14}  {fmt([r.sample_bits for r in rs])}  "
              f"{fmt([r.bound_bits for r in rs])}  {fmt([r.true_bits for r in rs])}  "
              f"{', '.join(f'{a:g}' for a in alphas)}")
        summary[shape] = {
            "bound": [r.bound_bits for r in rs], "sample": [r.sample_bits for r in rs],
            "true": [r.true_bits for r in rs], "K": [r.prefix_bits for r in rs],
            "terms": [terms(r, n_population, n_sample) for r in rs], "params": rs[0].base_params,
        }
        for r in rs:  # the bound holds for every run: true risk below its bound
            assert r.true_bits < r.bound_bits, (tier_name, shape, r.rep)
    return summary


def verdict(summary: dict, label: str) -> tuple[float, float]:
    """Largest shape minus smallest: difference of mean bounds and its standard error."""
    shapes = list(summary)
    small, large = summary[shapes[0]]["bound"], summary[shapes[-1]]["bound"]
    diff = float(np.mean(large) - np.mean(small))
    se = math.sqrt(mean_se(large)[1] ** 2 + mean_se(small)[1] ** 2)
    if diff < -2 * se:
        word = "the larger model's bound is lower, beyond 2 SE"
    elif diff > 2 * se:
        word = "the larger model's bound is higher, beyond 2 SE"
    else:
        word = "no difference beyond 2 SE"
    print(f"    {label}: bound of {shapes[-1].label()} minus {shapes[0].label()} = {diff:+.3f} "
          f"+- {se:.3f} (SE): {word}")
    return diff, se


def block1(tier) -> None:
    src = make_markov_source(VOCAB, CONCENTRATION, P_END, SEED_SOURCE)
    print(f"[1] Markov source of Chapter 22: V = {VOCAB}, random guess {math.log2(VOCAB):.3f} "
          f"bits per token, best possible {bayes.best_bits(src):.3f}")
    print(f"    fixed for every run: S of N = {tier.n_docs:,} documents, the same n = "
          f"{tier.n_sample:,} sampled documents, {tier.n_fresh:,} fresh documents, "
          f"d = {tier.d}, eps = {EPS}")
    print(f"    SubLoRA, {tier.steps} AdamW steps + {tier.qat_steps} quantization-aware steps, "
          f"learning rate {tier.lr:g}; shapes {', '.join(s.label() for s in tier.shapes)}")
    m, p, b = seeds(0)
    print(f"    {tier.reps} repetitions; repetition r seeds model r, projector {p} + r, "
          f"batches {b} + r (r = {m}..{tier.reps - 1})")


def block3(summary: dict) -> None:
    print("[3] The bound = empirical + complexity term + subsampling term (means over "
          "repetitions, bits per token)")
    print("    (n_layer,n_head,n_embd)  K (bits)   empirical  complexity  subsampling  bound")
    ks, occ, emp = [], [], []
    for shape, s in summary.items():
        o = float(np.mean([t[0] for t in s["terms"]]))
        h = float(np.mean([t[1] for t in s["terms"]]))
        k, e, b = float(np.mean(s["K"])), float(np.mean(s["sample"])), float(np.mean(s["bound"]))
        ks.append(k)
        occ.append(o)
        emp.append(e)
        print(f"    {shape.label():<24} {k:>8,.0f}   {e:.3f}      {o:.3f}       {h:.3f}        "
              f"{b:.3f}")
    print(f"    across shapes the complexity term spans {max(occ) - min(occ):.3f} bits per token, "
          f"the empirical risk {max(emp) - min(emp):.3f}")
    assert max(occ) - min(occ) < 0.05


def draw(summary: dict) -> None:
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
    block1(tier)
    runs = sweep(tier)
    print(f"[2] Default tier, mean +- SE over {tier.reps} repetitions (bits per token; L in bits)")
    default = table(runs, "default", tier.n_docs, tier.n_sample)
    block3(default)
    print("[4] Verdict, default tier")
    verdict(default, "default tier")
    draw(default)
    print("All assertions passed.")


if __name__ == "__main__":
    main()
