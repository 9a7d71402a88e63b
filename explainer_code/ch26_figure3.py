"""Chapter 26: the paper's Figure 3 read closely, and a miniature Figure 3 drawn from our sweep.

Claims, numbered as the output blocks:
  [1] Figure 3's eight shapes (as erratum E24 records them): nanoGPT's count, the authors' count
      (every tensor, position embedding and rank-4 LoRA included, fused c_attn), the share of the
      LoRA factors and of the token table in the authors' count; the sweep spans a factor of
      about 66 in parameters.
  [2] How the shapes grow: width and depth change together, so no pair of points isolates depth.
  [3] A miniature Figure 3 from the long tier of the size sweep (data/ch25_long_tier.json, read,
      not re-run): settings, seeds, provenance; per shape both counts and mean +- SE over three
      repetitions of the bounds and risks (bits, top-1); the smallest shape's gap, by part.
  [4] What the miniature shows: adjacent steps against 2 SE (independent; paired by repetition),
      the share of Student's t a 2 SE band holds; the least-squares slope on ln parameters, its SE
      three ways (plain, repetition offsets removed, from the repetitions' slopes, with how likely
      so small an SE is); the smallest step and slope detected, and the exact power of that rule;
      the slopes of every one-run-per-shape plot; bound minus empirical and true risk, message
      length, top-1 bound against the majority class.
Pure arithmetic and a committed data file; runs in about a second.
Every value the chapter quotes is printed through `glue(name, ...)` (script_glue.py): names of a
shape's values end in its digits (`fig3_axis_4_4_32` for a shape of Figure 3, `bound_2_4_64` for
one of the miniature); a step between adjacent shapes is `step_A_to_B`.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from pathlib import Path

import matplotlib
import matplotlib.ticker
import miniature  # first: pins the CPU kernels before torch is imported

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import script_io
from miniature import bayes, ngram
from miniature.corpus import make_markov_source
from miniature.model import GPTConfig
from miniature.sizes import (
    BLOCK,
    CONCENTRATION,
    LORA_RANK,
    P_END,
    SEED_SOURCE,
    TIERS,
    VOCAB,
    data,
    mean_se,
    read_long_tier,
    seeds,
)
from miniature.subspace import count_params
from pacbound.params import authors_num_params, gpt2_lora_params, gpt2_params
from script_glue import glue

GPT2_VOCAB = 50_304
# Figure 3's shapes (n_layer, n_head, n_embd), as erratum E24 and ch05_param_count.py record them
FIG3_SHAPES = ((4, 4, 32), (4, 4, 64), (4, 4, 128), (8, 8, 256), (8, 8, 384), (8, 8, 512),
               (10, 10, 640), (12, 12, 768))
# the detectable slope: a two-sided test at 5 % (quantile 0.975) with 80 % power
TEST_QUANTILE, POWER = 0.975, 0.80
ONE_SIDED = 0.95  # a one-sided test at 5 %


def student_t_cdf(t: float, df: int) -> float:
    """P(T <= t) for Student's t with an integer number of degrees of freedom df >= 1, in closed
    form (Abramowitz and Stegun, Handbook of Mathematical Functions, 26.7.3 and 26.7.4): with
    theta = atan(t / sqrt(df)), P(|T| <= t) = sin(theta) (1 + cos^2/2 + 1*3 cos^4/(2*4) + ...)
    for even df and (2 / pi) (theta + sin(theta) (cos + 2 cos^3/3 + ...)) for odd df, the series
    ending at cos^(df-2). Example: student_t_cdf(0, 13) = 0.5."""
    theta = math.atan2(t, math.sqrt(df))
    c2 = math.cos(theta) ** 2
    if df % 2 == 0:
        term = total = 1.0
        for k in range(2, df - 1, 2):
            term *= c2 * (k - 1) / k
            total += term
        within = math.sin(theta) * total
    else:
        term = total = math.cos(theta) if df > 1 else 0.0
        for k in range(3, df - 1, 2):
            term *= c2 * (k - 1) / k
            total += term
        within = 2 / math.pi * (theta + math.sin(theta) * total)
    return 0.5 + 0.5 * within


def student_t_quantile(p: float, df: int) -> float:
    """The t with student_t_cdf(t, df) = p, for 0.5 <= p < 1, by bisection on [0, 1000].
    Example: student_t_quantile(0.975, 13) = 2.1604 (the printed tables' 2.160)."""
    lo, hi = 0.0, 1000.0
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if student_t_cdf(mid, df) < p else (lo, mid)
    return (lo + hi) / 2


def nct_power(shift: float, crit: float, df: int) -> float:
    """P(|Z + shift| > crit sqrt(V / df)), Z normal, V chi-square on df: a two-sided t-test's power
    against an effect of `shift` SE (noncentral t), midpoint rule over V; (0, 2.1604, 13): 0.05."""
    v = np.arange(0.005, 400, 0.01)
    density = v ** (df / 2 - 1) * np.exp(-v / 2) / (2 ** (df / 2) * math.gamma(df / 2))
    tails = [math.erfc((c - shift) / 2**0.5) + math.erfc((c + shift) / 2**0.5)
             for c in crit * np.sqrt(v / df)]
    return float(np.sum(density * tails)) * 0.01 / 2


def block1() -> list[int]:
    print("[1] Figure 3's eight shapes, counted two ways (V = 50,304, rank-4 LoRA on W_Q, W_V, "
          "head)")
    print("    (n_layer,n_head,n_embd)  nanoGPT count   authors' count   LoRA share   "
          "token-table share (shares of the authors' count)")
    axis = []
    for n_layer, n_head, n_embd in FIG3_SHAPES:
        nano = gpt2_params(n_layer, n_embd, GPT2_VOCAB)
        authors = authors_num_params(n_layer, n_embd, LORA_RANK, GPT2_VOCAB)
        lora = gpt2_lora_params(n_layer, n_embd, LORA_RANK, GPT2_VOCAB)
        axis.append(authors)
        k = f"{n_layer}_{n_head}_{n_embd}"
        print(f"    ({glue(f'fig3_layers_{k}', n_layer, '2')},"
              f"{glue(f'fig3_heads_{k}', n_head, '2')},"
              f"{glue(f'fig3_width_{k}', n_embd, '4')})            "
              f"{glue(f'fig3_nano_{k}', nano, '>12,')}   "
              f"{glue(f'fig3_axis_{k}', authors, '>12,')}   "
              f"{glue(f'fig3_lora_share_{k}', 100 * lora / authors, '6.2f')} %     "
              f"{glue(f'fig3_table_share_{k}', 100 * GPT2_VOCAB * n_embd / authors, '5.1f')} %")
    ratio = axis[-1] / axis[0]
    print(f"    largest / smallest (authors' count): {glue('fig3_ratio', ratio, '.1f')}")
    assert axis[0] == 1_895_712 and axis[-1] == 124_753_152 and 60 < ratio < 70
    return axis


def block2() -> None:
    steps = [(a[0] != b[0], a[2] != b[2]) for a, b in itertools.pairwise(FIG3_SHAPES)]
    both = sum(1 for depth, width in steps if depth and width)
    width_only = sum(1 for depth, width in steps if width and not depth)
    print(f"[2] From one shape to the next: {glue('fig3_width_only', width_only)} of "
          f"{glue('fig3_steps', len(steps))} steps change only the width, "
          f"{glue('fig3_depth_and_width', both)} change depth and width together, none only the "
          "depth")
    print("    so no pair of points isolates depth; n_head = n_layer in every shape")
    assert both + width_only == len(steps) and all(s[0] == s[1] for s in FIG3_SHAPES)


def miniature_counts(shape) -> tuple[int, int]:
    """(nanoGPT's rule: no position embedding, no LoRA; the axis rule: every tensor with LoRA)."""
    cfg = GPTConfig(vocab_size=VOCAB, block_size=BLOCK, n_layer=shape.n_layer,
                    n_head=shape.n_head, n_embd=shape.n_embd)
    c = count_params(cfg, LORA_RANK)
    return c["base"] - BLOCK * shape.n_embd, c["base"] + c["lora"]


def block3(record: dict, runs) -> dict:
    tier = record["tier"]
    model, proj, batch = seeds(0)
    sizes_py = Path(miniature.sizes.__file__).read_bytes()
    same = hashlib.sha256(sizes_py).hexdigest() == record["sizes_py_sha256"]
    print("[3] Miniature Figure 3: the long tier of the size sweep (data/ch25_long_tier.json), "
          "mean +- SE over repetitions")
    print(f"    the long tier: SubLoRA at d = {glue('d', tier['d'])}, "
          f"{glue('steps', tier['steps'], ',')} AdamW steps + "
          f"{glue('qat_steps', tier['qat_steps'])} quantization-aware steps, learning rate "
          f"{tier['lr']}; "
          f"N = {glue('n_docs', tier['n_docs'], ',')} documents in S, n = "
          f"{glue('n_sample', tier['n_sample'], ',')} of them sampled, "
          f"{glue('n_fresh', tier['n_fresh'], ',')} fresh documents: the same S, sample and fresh "
          "documents for every run")
    reps = range(tier["reps"])
    print(f"    {glue('reps', tier['reps'])} repetitions of each of "
          f"{glue('shapes', len(tier['shapes']))} shapes; repetitions "
          f"{', '.join(str(k) for k in reps)} seed the model with "
          f"{', '.join(str(seeds(k)[0]) for k in reps)}, the projector with "
          f"{', '.join(str(seeds(k)[1]) for k in reps)} and the batches with "
          f"{', '.join(str(seeds(k)[2]) for k in reps)}, whatever the shape")
    print(f"    written by `python -m miniature.sizes long` at commit {record['commit'][:7]}, "
          f"explainer_code/ {'with' if record['tree_dirty'] else 'without'} uncommitted changes; "
          f"miniature/sizes.py then had sha256 {record['sizes_py_sha256'][:12]}..., "
          f"{'the same as' if same else 'not that of'} the file here now")
    print("    (n_layer,n_head,n_embd)  nanoGPT rule  axis rule (gap)     bound (bits)     "
          "empirical        true risk        top-1 bound      empirical top-1  true top-1")
    assert model == 0 and all(seeds(k) == (k, proj + k, batch + k) for k in range(tier["reps"]))
    shapes: dict = {}
    for r in runs:
        shapes.setdefault(r.shape, []).append(r)
    out = {}
    for shape, rs in shapes.items():
        nano, axis = miniature_counts(shape)
        assert rs[0].base_params + rs[0].lora_numbers == axis
        assert sorted(r.rep for r in rs) == list(range(tier["reps"]))
        assert all(r.d == tier["d"] for r in rs)

        k = f"{shape.n_layer}_{shape.n_head}_{shape.n_embd}"

        def ms(key: str, name: str, rs: list = rs, k: str = k) -> str:
            m, se = mean_se([getattr(r, key) for r in rs])
            return f"{glue(f'{name}_{k}', m, '.3f')} +- {glue(f'{name}_{k}_se', se, '.3f')}"

        print(f"    {glue(f'label_{k}', shape.label(), '<24')} "
              f"{glue(f'nano_{k}', nano, '>10,')}   "
              f"{glue(f'axis_{k}', axis, '>8,')} "
              f"({glue(f'gap_{k}', 100 * (axis / nano - 1), '+.0f')} %)"
              f"  {ms('bound_bits', 'bound')}  {ms('sample_bits', 'empirical')}  "
              f"{ms('true_bits', 'true')}  {ms('bound_top1', 'top1_bound')}  "
              f"{ms('sample_top1', 'top1_empirical')}  {ms('true_top1', 'top1_true')}")
        out[shape] = {"axis": axis, "nano": nano, "runs": sorted(rs, key=lambda r: r.rep)}
    assert len(out) == len(tier["shapes"])
    sh = min(out, key=lambda sh: out[sh]["axis"])
    pos, head = BLOCK * sh.n_embd, LORA_RANK * (VOCAB + sh.n_embd)
    gap = out[sh]["axis"] - out[sh]["nano"]
    print(f"    {sh.label()}: the rules' gap {glue('gap_smallest', gap, ',')} = position "
          f"embedding {glue('gap_position', pos, ',')} + LoRA in the blocks "
          f"{glue('gap_lora_blocks', gap - pos - head, ',')} + on the head "
          f"{glue('gap_lora_head', head, ',')}")
    assert gap - pos - head == sh.n_layer * 4 * LORA_RANK * sh.n_embd and pos > gap - pos
    return out


def slope_of(x: np.ndarray, y: np.ndarray) -> float:
    """Least-squares slope of y on x."""
    xc = x - x.mean()
    return float((xc * (y - y.mean())).sum() / (xc ** 2).sum())


def size_slope(summary: dict) -> dict:
    """Least-squares slope of every run's bound on ln(axis count) / ln(span), span = largest
    / smallest count: the change of the bound across the whole sweep. Its standard error
    sqrt(s^2 / sum (x - mean x)^2), with s^2 the residual variance on runs - 2 degrees of freedom
    (the runs taken as independent), and again with each repetition's mean residual removed
    first (runs - 4 degrees of freedom for three repetitions: a repetition's seeds are the same
    for every shape). With every shape run in every repetition the slope is the same both ways.
    Also the slope of each plot that takes one run per shape."""
    axes = [s["axis"] for s in summary.values()]
    span = max(axes) / min(axes)
    xs = np.array([math.log(a) / math.log(span) for a in axes])
    grid = np.array([[r.bound_bits for r in s["runs"]] for s in summary.values()])  # shape x rep
    n_shapes, reps = grid.shape
    x, y = np.repeat(xs, reps), grid.ravel()
    rep = np.tile(np.arange(reps), n_shapes)
    slope = slope_of(x, y)
    xc = x - x.mean()
    resid = y - y.mean() - slope * xc
    df = len(y) - 2
    se = math.sqrt(float((resid ** 2).sum()) / df / float((xc ** 2).sum()))
    offsets = np.array([resid[rep == k].mean() for k in range(reps)])
    blocked = resid - offsets[rep]
    se_blocked = math.sqrt(float((blocked ** 2).sum()) / (df - (reps - 1))
                           / float((xc ** 2).sum()))
    assert abs(slope_of(x, y - offsets[rep]) - slope) < 1e-12
    one_run = [slope_of(xs, grid[np.arange(n_shapes), list(pick)])
               for pick in itertools.product(range(reps), repeat=n_shapes)]
    same_rep = [slope_of(xs, grid[:, k]) for k in range(reps)]
    return {"slope": slope, "se": se, "df": df, "se_blocked": se_blocked,
            "df_blocked": df - (reps - 1), "span": span, "one_run": one_run,
            "same_rep": same_rep, "reps": reps, "shapes": n_shapes}


def within(value: float, se: float) -> str:
    return "beyond 2 SE of zero" if abs(value) > 2 * se else "within 2 SE of zero"


def side(t: float, threshold: float) -> str:
    return "beyond" if t > threshold else "short of"


def block4(summary: dict) -> tuple[float, float, ngram.TableBound]:
    src = make_markov_source(VOCAB, CONCENTRATION, P_END, SEED_SOURCE)
    _, major = bayes.majority_top1_error(src)
    best_top1 = bayes.best_top1_error(src)
    shapes = list(summary)
    print("[4] What the miniature shows (adjacent shapes: bound difference +- SE, runs as "
          "independent; paired by repetition)")
    reps = len(summary[shapes[0]]["runs"])
    dfs = (2 * reps - 2, reps - 1)  # pooled two-sample; paired differences
    q, pw = ([student_t_quantile(level, k) for k in dfs] for level in (TEST_QUANTILE, POWER))
    beyond, passes, ses = 0, [0, 0], ([], [])
    for a, b in itertools.pairwise(shapes):
        ba = [r.bound_bits for r in summary[a]["runs"]]
        bb = [r.bound_bits for r in summary[b]["runs"]]
        diff = float(np.mean(bb) - np.mean(ba))
        se = math.sqrt(mean_se(ba)[1] ** 2 + mean_se(bb)[1] ** 2)
        paired_diff, paired_se = mean_se([y - x for x, y in zip(ba, bb, strict=True)])
        assert abs(paired_diff - diff) < 1e-12
        far = abs(diff) > 2 * se or abs(diff) > 2 * paired_se
        beyond += far
        ts = (abs(diff) / se, abs(diff) / paired_se)
        for i in (0, 1):
            passes[i] += ts[i] > q[i]
        ses[0].append(se), ses[1].append(paired_se)
        step = f"step_{a.n_layer}_{a.n_head}_{a.n_embd}_to_{b.n_layer}_{b.n_head}_{b.n_embd}"
        verdicts = "; ".join(
            f"{name} t = {glue(f'{step}_{tag}', ts[i], '.2f')}, "
            f"{'beyond' if ts[i] > q[i] else 'short of'} {q[i]:.3f}"
            for i, (name, tag) in enumerate((("independent", "t"), ("paired", "paired_t"))))
        print(f"    {a.label()} -> {b.label()}: {glue(step, diff, '+.3f')} +- "
              f"{glue(f'{step}_se', se, '.3f')}; paired +- "
              f"{glue(f'{step}_paired_se', paired_se, '.3f')}; "
              f"{'beyond 2 SE' if far else 'within 2 SE either way'} ({verdicts})")
    print(f"    {glue('steps_beyond', beyond)} of {glue('steps_tested', len(shapes) - 1)} steps "
          f"differ beyond 2 SE (either SE); a two-sided {glue('test_percent', 5)} % t-test passes "
          f"for {glue('passes_independent', passes[0])} run as independent "
          f"({glue('df_independent', dfs[0])} degrees of freedom, "
          f"{glue('crit_independent', q[0], '.3f')}) and for {glue('passes_paired', passes[1])} "
          f"paired ({glue('df_paired', dfs[1])}, {glue('crit_paired', q[1], '.3f')})")
    held = [2 * student_t_cdf(2.0, k) - 1 for k in dfs]
    print(f"    +-2 SE holds Student's t on {glue('held_df_independent', dfs[0])} degrees of "
          f"freedom (independent, pooled) {glue('held_independent', 100 * held[0], '.0f')} % of "
          f"the time, on {glue('held_df_paired', dfs[1])} (paired) "
          f"{glue('held_paired', 100 * held[1], '.0f')} %, not {glue('held_nominal', 95)} %: the "
          "2-SE rule fires by chance more often than a 5 % test")
    print(f"    smallest step found {glue('power_percent', 100 * POWER, '.0f')} % of the time, "
          f"(t({glue('test_quantile', TEST_QUANTILE)}) + t({glue('power_quantile', POWER, '.2f')}))"
          " x SE: "
          + "; ".join(f"{name}, ({q[i]:.3f} + {glue(f'power_t_{name}', pw[i], '.3f')}) x SE = "
                      f"{glue(f'detect_step_min_{name}', (q[i] + pw[i]) * min(ses[i]), '.3f')} to "
                      f"{glue(f'detect_step_max_{name}', (q[i] + pw[i]) * max(ses[i]), '.3f')}"
                      for i, name in enumerate(("independent", "paired")))
          + " bits per token")
    assert passes[1] <= passes[0] <= beyond and held[1] < held[0] < 0.95
    fit = size_slope(summary)
    slope, se, df = fit["slope"], fit["se"], fit["df"]
    print(f"    fitted slope over all {glue('slope_runs', df + 2)} runs (least squares, bound "
          f"against ln parameters): {glue('slope', slope, '+.3f')} +- {glue('slope_se', se, '.3f')}"
          f" bits per token per factor {glue('span', fit['span'], '.1f')} in parameters "
          f"(the sweep's span); {within(slope, se)}")
    per_rep, per_rep_se = mean_se(fit["same_rep"])
    t_rep, t_one = (student_t_quantile(level, reps - 1) for level in (TEST_QUANTILE, ONE_SIDED))
    print("    its SE two other ways, as a repetition's runs share their seeds:")
    print(f"      each repetition's offset removed ({glue('df_blocked', fit['df_blocked'])} "
          f"degrees of freedom): SE {glue('se_blocked', fit['se_blocked'], '.3f')}, "
          f"{within(slope, fit['se_blocked'])}")
    print("      from the repetitions' slopes, "
          + ", ".join(glue(f"rep_slope_{k}", v, "+.3f") for k, v in enumerate(fit["same_rep"]))
          + f" ({reps - 1} degrees of freedom): SE {glue('rep_slope_se', per_rep_se, '.3f')}, "
          f"{glue('rep_slope_z', abs(per_rep) / per_rep_se, '.2f')} SE from zero: "
          f"{side(abs(per_rep) / per_rep_se, t_rep)}"
          f" {t_rep:.3f} (two-sided 5 % t-test), {side(abs(per_rep) / per_rep_se, t_one)} "
          f"{t_one:.3f} (one-sided)")
    chance = 1 - math.exp(-((per_rep_se / fit["se_blocked"]) ** 2))  # chi-square on 2 df
    print(f"      so small an SE ({reps - 1} degrees of freedom) has probability {chance:.3f} if "
          f"the true SE is {fit['se_blocked']:.3f}")
    assert abs(per_rep - slope) < 1e-12 and reps == fit["reps"] == 3
    t_test, t_power = (student_t_quantile(level, df) for level in (TEST_QUANTILE, POWER))
    detect = (t_test + t_power) * se
    print(f"    smallest slope a two-sided 5 % t-test finds "
          f"{glue('slope_power_percent', 100 * POWER, '.0f')} % of the time, runs "
          f"as independent, {glue('slope_df', df)} degrees of freedom: "
          f"({glue('t_test', t_test, '.3f')} + {glue('t_power', t_power, '.3f')}) x SE = "
          f"{glue('detect_slope_ses', t_test + t_power, '.2f')} SE = "
          f"{glue('detect_slope', detect, '.3f')} bits per token across the sweep")
    # Student's t tables: t(0.975) = 2.160 and t(0.80) = 0.870 at 13 degrees of freedom
    assert df == 13 and abs(t_test - 2.1604) < 1e-4 and abs(t_power - 0.8702) < 1e-4
    assert abs(student_t_quantile(0.975, 2) - 4.3027) < 1e-4  # an even df: the tables' 4.303
    exact = [nct_power(a + b, a, k)
             for a, b, k in zip((*q, t_test), (*pw, t_power), (*dfs, df), strict=True)]
    print(f"    exact power (noncentral t): steps "
          f"{glue('exact_power_independent', 100 * exact[0], '.0f')} % ({dfs[0]} degrees of "
          f"freedom) and {glue('exact_power_paired', 100 * exact[1], '.0f')} % "
          f"({glue('exact_power_df_paired', dfs[1])}), slope "
          f"{glue('exact_power_slope', 100 * exact[2], '.0f')} % ({df})")
    assert [f"{100 * e:.0f}" for e in exact] == ["79", "77", "80"]
    assert abs(nct_power(0.0, t_test, df) - 0.05) < 1e-6
    ups = sum(s > 0 for s in fit["one_run"])
    downs = sum(s < 0 for s in fit["one_run"])
    print(f"    one run per shape, each of the {fit['reps']}^{fit['shapes']} = "
          f"{glue('one_run_ways', len(fit['one_run']))} ways to choose it: slope "
          f"{glue('one_run_slope_min', min(fit['one_run']), '+.3f')} to "
          f"{glue('one_run_slope_max', max(fit['one_run']), '+.3f')}, upward in "
          f"{glue('one_run_up', ups)}, downward in {glue('one_run_down', downs)}")
    assert ups + downs == len(fit["one_run"])
    every = [r for s in summary.values() for r in s["runs"]]
    paid = [float(np.mean([r.bound_bits - r.sample_bits for r in s["runs"]]))
            for s in summary.values()]
    message = [float(np.mean([r.message_bits for r in s["runs"]])) for s in summary.values()]
    alphas = sorted({r.best_alpha for r in every})
    print(f"    bound minus empirical risk (the complexity and subsampling terms), shape means: "
          f"{glue('terms_min', min(paid), '.3f')} to {glue('terms_max', max(paid), '.3f')} bits "
          f"per token; message length L, shape means: {glue('L_min', min(message), ',.0f')} to "
          f"{glue('L_max', max(message), ',.0f')} bits; the smoothing weight alpha the bound "
          f"chose: {glue('alpha_chosen', ', '.join(f'{a}' for a in alphas))} in all "
          f"{glue('alpha_runs', len(every))} runs")
    assert max(paid) - min(paid) < 0.05 and alphas == [0.5]
    gaps = [r.bound_bits - r.true_bits for r in every]
    top1 = [r.bound_top1 for r in every]
    print(f"    bound minus (estimated) true risk, all {glue('slack_runs', len(every))} runs: "
          f"{glue('slack_min', min(gaps), '.3f')} to {glue('slack_max', max(gaps), '.3f')} bits "
          "per token")
    print(f"    top-1 bounds {min(top1):.3f} to {max(top1):.3f}, against the majority class "
          f"{major:.3f} and the source's own {best_top1:.3f}")
    S, _, sample = data(TIERS["long"])
    table, _ = ngram.best_table(S, VOCAB, sample)
    bounds = [r.bound_bits for r in every]
    above = sum(t > table.bound_top1 for t in top1)
    print(f"    baseline on the same S and sample: the best count table (order "
          f"{table.table.order}, {table.table.precision} bits per entry) bounds "
          f"{glue('table_bound', table.bound_bits, '.3f')} bits per token, below every run's "
          f"bound; its top-1 bound {glue('table_top1', table.bound_top1, '.3f')}, below "
          f"{glue('table_top1_below', above)} of the {glue('table_top1_runs', len(top1))} runs'")
    assert all(g > 0 for g in gaps) and max(top1) < major
    assert table.bound_bits < min(bounds)
    return major, best_top1, table


def draw(summary: dict, major: float, table: ngram.TableBound) -> None:
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(5.5, 8.4), layout="constrained")
    xs = [s["axis"] for s in summary.values()]
    for ax, keys, guess, unit in (
        (ax1, (("bound_bits", "bound"), ("sample_bits", "empirical risk"),
               ("true_bits", "estimated true risk")), math.log2(VOCAB), "bits per token"),
        (ax2, (("bound_top1", "bound"), ("sample_top1", "empirical error"),
               ("true_top1", "estimated true error")), major, "top-1 error"),
    ):
        for (key, name), colour, marker in zip(keys, ("#D55E00", "#0072B2", "#009E73"),
                                               ("o", "^", "s"), strict=True):
            ms = [mean_se([getattr(r, key) for r in s["runs"]]) for s in summary.values()]
            ax.errorbar(xs, [m for m, _ in ms], yerr=[2 * e for _, e in ms], color=colour,
                        marker=marker, capsize=3, label=name)
            if key.startswith("bound"):  # each run's bound, beside its shape's mean
                for x, s in zip(xs, summary.values(), strict=True):
                    ax.plot([x * 1.04] * len(s["runs"]), [getattr(r, key) for r in s["runs"]],
                            ".", color=colour, alpha=0.5, label=None)
        ax.axhline(table.bound_bits if ax is ax1 else table.bound_top1, color="#CC79A7",
                   ls="-.", lw=1.2, label="best count table's bound")
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
    summary = block3(record, runs)
    major, _, table = block4(summary)
    draw(summary, major, table)
    assert record["tier"]["reps"] >= 3
    print("All assertions passed.")


if __name__ == "__main__":
    main()
