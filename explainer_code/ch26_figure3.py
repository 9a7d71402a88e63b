"""Chapter 26: the paper's Figure 3 read closely, and a miniature Figure 3 drawn from our sweep.

Claims, numbered as the output blocks:
  [1] Figure 3's eight shapes (as erratum E24 records them): nanoGPT's count, the authors' count
      (every tensor, position embedding and rank-4 LoRA included, fused c_attn), the share of the
      LoRA factors and of the token table; the sweep spans a factor of about 66 in parameters.
  [2] How the shapes grow: width and depth change together, so the figure cannot separate them;
      at the smallest shape the head's LoRA factor is a tenth of the count.
  [3] A miniature Figure 3 from the long tier of the size sweep (data/ch25_long_tier.json, read,
      not re-run): per shape, the count by nanoGPT's rule and by the axis rule, and mean +- SE
      over three repetitions of the bits-per-token and top-1 bounds, empirical and true risks.
  [4] What the miniature shows: adjacent shapes whose bounds differ beyond 2 standard errors;
      the least-squares slope of the bound against log parameters over all runs, with its
      standard error and the smallest slope the design would detect; the top-1 bound against
      the majority class, and the gap between bound and true risk.
Pure arithmetic and a committed data file; runs in about a second.
"""

from __future__ import annotations

import itertools
import math

import matplotlib
import matplotlib.ticker
import miniature  # noqa: F401  (pins the CPU kernels before torch is imported)

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import script_io
from miniature import bayes
from miniature.corpus import make_markov_source
from miniature.model import GPTConfig
from miniature.sizes import (
    BLOCK,
    CONCENTRATION,
    LORA_RANK,
    P_END,
    SEED_SOURCE,
    VOCAB,
    mean_se,
    read_long_tier,
)
from miniature.subspace import count_params
from pacbound.params import authors_num_params, gpt2_lora_params, gpt2_params

GPT2_VOCAB = 50_304
# Figure 3's shapes (n_layer, n_head, n_embd), as erratum E24 and ch05_param_count.py record them
FIG3_SHAPES = ((4, 4, 32), (4, 4, 64), (4, 4, 128), (8, 8, 256), (8, 8, 384), (8, 8, 512),
               (10, 10, 640), (12, 12, 768))


def block1() -> list[int]:
    print("[1] Figure 3's eight shapes, counted two ways (V = 50,304, rank-4 LoRA on W_Q, W_V, "
          "head)")
    print("    (n_layer,n_head,n_embd)  nanoGPT count   authors' count   LoRA share   "
          "token-table share")
    axis = []
    for n_layer, n_head, n_embd in FIG3_SHAPES:
        nano = gpt2_params(n_layer, n_embd, GPT2_VOCAB)
        authors = authors_num_params(n_layer, n_embd, LORA_RANK, GPT2_VOCAB)
        lora = gpt2_lora_params(n_layer, n_embd, LORA_RANK, GPT2_VOCAB)
        axis.append(authors)
        print(f"    ({n_layer:2},{n_head:2},{n_embd:4})            {nano:>12,}   {authors:>12,}   "
              f"{100 * lora / authors:6.2f} %     {100 * GPT2_VOCAB * n_embd / authors:5.1f} %")
    ratio = axis[-1] / axis[0]
    print(f"    largest / smallest (authors' count): {ratio:.1f}")
    assert axis[0] == 1_895_712 and axis[-1] == 124_753_152 and 60 < ratio < 70
    return axis


def block2() -> None:
    n_layer, _, n_embd = FIG3_SHAPES[0]
    head = LORA_RANK * (GPT2_VOCAB + n_embd)
    authors = authors_num_params(n_layer, n_embd, LORA_RANK, GPT2_VOCAB)
    steps = [(a[0] != b[0], a[2] != b[2]) for a, b in itertools.pairwise(FIG3_SHAPES)]
    both = sum(1 for depth, width in steps if depth and width)
    width_only = sum(1 for depth, width in steps if width and not depth)
    print(f"[2] From one shape to the next: {width_only} of {len(steps)} steps change only the "
          f"width, {both} change depth and width together, none only the depth")
    print("    so no pair of points isolates depth; n_head = n_layer in every shape")
    print(f"    smallest shape: the head's LoRA factor {LORA_RANK} x ({GPT2_VOCAB:,} + {n_embd}) "
          f"= {head:,}, {100 * head / authors:.1f} % of the authors' count {authors:,}")
    assert both + width_only == len(steps) and all(s[0] == s[1] for s in FIG3_SHAPES)
    assert 10 < 100 * head / authors < 11


def miniature_counts(shape) -> tuple[int, int]:
    """(nanoGPT's rule: no position embedding, no LoRA; the axis rule: every tensor with LoRA)."""
    cfg = GPTConfig(vocab_size=VOCAB, block_size=BLOCK, n_layer=shape.n_layer,
                    n_head=shape.n_head, n_embd=shape.n_embd)
    c = count_params(cfg, LORA_RANK)
    return c["base"] - BLOCK * shape.n_embd, c["base"] + c["lora"]


def block3(runs) -> dict:
    print("[3] Miniature Figure 3: the long tier of the size sweep (data/ch25_long_tier.json), "
          "mean +- SE over repetitions")
    print("    (n_layer,n_head,n_embd)  nanoGPT rule  axis rule (gap)     bound (bits)     "
          "empirical        true risk        top-1 bound      true top-1")
    shapes: dict = {}
    for r in runs:
        shapes.setdefault(r.shape, []).append(r)
    out = {}
    for shape, rs in shapes.items():
        nano, axis = miniature_counts(shape)
        assert rs[0].base_params + rs[0].lora_numbers == axis

        def ms(key: str, rs: list = rs) -> str:
            m, se = mean_se([getattr(r, key) for r in rs])
            return f"{m:.3f} +- {se:.3f}"

        print(f"    {shape.label():<24} {nano:>10,}   {axis:>8,} ({100 * (axis / nano - 1):+.0f} %)"
              f"  {ms('bound_bits')}  {ms('sample_bits')}  {ms('true_bits')}  "
              f"{ms('bound_top1')}  {ms('true_top1')}")
        out[shape] = {"axis": axis, "nano": nano, "runs": rs}
    return out


def size_slope(summary: dict) -> tuple[float, float, float]:
    """Least-squares slope of every run's bound on log(axis count) / log(span), span = largest
    / smallest count: the change of the bound across the whole sweep, with its standard error
    sqrt(s^2 / sum (x - mean x)^2), s^2 the residual variance on n - 2 degrees of freedom. The
    runs are treated as independent (each repetition has its own seeds)."""
    axes = [s["axis"] for s in summary.values()]
    span = max(axes) / min(axes)
    x = np.array([math.log(s["axis"]) / math.log(span) for s in summary.values()
                  for _ in s["runs"]])
    y = np.array([r.bound_bits for s in summary.values() for r in s["runs"]])
    xc = x - x.mean()
    slope = float((xc * (y - y.mean())).sum() / (xc ** 2).sum())
    resid = y - y.mean() - slope * xc
    se = math.sqrt(float((resid ** 2).sum()) / (len(y) - 2) / float((xc ** 2).sum()))
    return slope, se, span


def block4(summary: dict) -> tuple[float, float]:
    src = make_markov_source(VOCAB, CONCENTRATION, P_END, SEED_SOURCE)
    _, major = bayes.majority_top1_error(src)
    best_top1 = bayes.best_top1_error(src)
    shapes = list(summary)
    print("[4] What the miniature shows (adjacent shapes, bound difference +- SE of the "
          "difference)")
    beyond = 0
    for a, b in itertools.pairwise(shapes):
        ba = [r.bound_bits for r in summary[a]["runs"]]
        bb = [r.bound_bits for r in summary[b]["runs"]]
        diff = float(np.mean(bb) - np.mean(ba))
        se = math.sqrt(mean_se(ba)[1] ** 2 + mean_se(bb)[1] ** 2)
        flag = "beyond 2 SE" if abs(diff) > 2 * se else "within 2 SE"
        beyond += abs(diff) > 2 * se
        print(f"    {a.label()} -> {b.label()}: {diff:+.3f} +- {se:.3f}, {flag}")
    print(f"    {beyond} of {len(shapes) - 1} steps differ beyond 2 SE")
    slope, se, span = size_slope(summary)
    print(f"    fitted slope over all {sum(len(s['runs']) for s in summary.values())} runs (least "
          f"squares, bound against log parameters): {slope:+.3f} +- {se:.3f} bits per token per "
          f"factor {span:.1f} in parameters (the sweep's span)")
    print(f"    smallest slope this design detects (2.8 SE: a two-sided 5 % test with 80 % "
          f"power): {2.8 * se:.3f}; the slope is within 2 SE of zero")
    assert abs(slope) < 2 * se
    every = [r for s in summary.values() for r in s["runs"]]
    gaps = [r.bound_bits - r.true_bits for r in every]
    top1 = [r.bound_top1 for r in every]
    print(f"    bound minus true risk, all {len(every)} runs: {min(gaps):.3f} to {max(gaps):.3f} "
          f"bits per token")
    print(f"    top-1 bounds {min(top1):.3f} to {max(top1):.3f}, against the majority class "
          f"{major:.3f} and the best possible {best_top1:.3f}")
    assert all(g > 0 for g in gaps) and max(top1) < major
    return major, best_top1


def draw(summary: dict, major: float) -> None:
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(5.5, 8.4), layout="constrained")
    xs = [s["axis"] for s in summary.values()]
    for ax, keys, guess, unit in (
        (ax1, (("bound_bits", "bound"), ("sample_bits", "empirical risk"),
               ("true_bits", "true risk")), math.log2(VOCAB), "bits per token"),
        (ax2, (("bound_top1", "bound"), ("sample_top1", "empirical error"),
               ("true_top1", "true error")), major, "top-1 error"),
    ):
        for (key, name), colour, marker in zip(keys, ("#D55E00", "#0072B2", "#009E73"),
                                               ("o", "^", "s"), strict=True):
            ms = [mean_se([getattr(r, key) for r in s["runs"]]) for s in summary.values()]
            ax.errorbar(xs, [m for m, _ in ms], yerr=[2 * e for _, e in ms], color=colour,
                        marker=marker, capsize=3, label=name)
        ax.axhline(guess, color="#999999", ls="--", lw=1,
                   label="random guess" if ax is ax1 else "majority class")
        ax.set_xscale("log")
        # one tick per shape (a log axis over less than two decades gets one default tick)
        ax.xaxis.set_minor_locator(matplotlib.ticker.NullLocator())
        ax.set_xticks(xs, [f"{x / 1000:.0f}k" for x in xs])
        ax.set_xlabel("parameters, every tensor with LoRA (the axis rule)")
        ax.set_ylabel(unit)
        if ax is ax1:
            ax.legend(loc="center right")
        else:  # two rows between the bound and the majority-class line
            ax.legend(loc="upper center", bbox_to_anchor=(0.5, 0.93), ncols=2)
    ax1.set_title("Miniature Figure 3: bits per token", fontsize=10)
    ax2.set_title("Miniature Figure 3: top-1 error", fontsize=10)
    script_io.save_figure(fig, "ch26_miniature_figure3.png")
    plt.close(fig)


def main() -> None:
    print("Chapter 26 -- Figure 3 read closely (ch26_figure3.py)")
    block1()
    block2()
    record, runs = read_long_tier()
    summary = block3(runs)
    major, _ = block4(summary)
    draw(summary, major)
    assert record["tier"]["reps"] >= 3
    print("All assertions passed.")


if __name__ == "__main__":
    main()
