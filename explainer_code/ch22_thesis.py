"""Chapter 22: the thesis in miniature, a compressed transformer's bound below every count table.

Reads the thesis tier (`data/ch22_thesis_seeds.json`, `data/ch22_thesis_ablations.json`,
`data/ch22_thesis_variants.json`), written by `make miniature-thesis` with the command, commit,
machine and times inside, and the seeds
tier's SubLoRA runs on the same source (`data/ch22_seeds_repeat.json`). Recomputes the count
tables itself (numpy, exact) on the same S and sample.

Claims, numbered as the output blocks:
  [1] Provenance, and the recipe against Step 11's configuration, one difference per line.
  [2] Five seeds: each seed's bound, the true risk of the bounded predictor, the copied half's
      bits on fresh documents, the message; mean +- SE of the bound, the true risk, the gap's
      four parts and the top-1 bound.
  [3] The baselines on the same S, sample and N: every count table of orders 0-2, the random
      guess, SubLoRA with Step 11's configuration. The margins, mean +- SE over seeds, against
      the goal of 0.5 bits per token, computed on the bound with the recipe's choice paid in
      both roots (an allowance of 20 bits, made after the fact): it lowers the margins by 0.114
      and leaves the one below the guess above the goal in the mean, not beyond 2 SE.
  [4] Ablations, seed 0: each part of the recipe put back as Step 11 had it.
  [5] The recipe's other variants (dense, LoRA, SubLoRA), five seeds each: provenance, what
      each changes against the recipe, the configurations run, the numbers each codes, and each
      seed's bound with the recipe's choice paid; SubLoRA's seed 0 is output [4]'s first run.
  [6] Every variant, the recipe's subspace included, with the choice paid (20 bits in both
      roots), mean +- SE over five seeds: the bound, the true risk of the bounded predictor, the
      gap's four parts (they add up to the bound minus the unsmoothed true risk, each seed
      checked), the message and the top-1 error bound.
  [7] Every variant's margins below the best table and below the random guess, paid, mean +- SE,
      against the goal of 0.5 bits per token beyond 2 SE.
The figure ch22_thesis.png: each seed's paid bound beside the baselines and the goal, and what
the model learned: bits per token on the first and the copied half of fresh documents.
Standard errors: sample standard deviation over seeds / sqrt(seeds). Printed to 3 decimals.
Every value the chapter quotes is printed through `glue(name, ...)` (script_glue.py), so that the
page refers to it by name.
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
from miniature.experiment import EPS, EXTRA_BITS, gap_parts
from miniature.model import GPTConfig
from miniature.sizes import mean_se
from miniature.subspace import count_params
from miniature.thesis import MORE_BITS, paid_bound
from script_glue import glue

DATA = Path(__file__).resolve().parent / "data"
SEEDS_FILE = DATA / "ch22_thesis_seeds.json"
ABLATIONS_FILE = DATA / "ch22_thesis_ablations.json"
VARIANTS_FILE = DATA / "ch22_thesis_variants.json"
STEP11_FILE = DATA / "ch22_seeds_repeat.json"
VOCAB, SPAN, N_DOCS, N_SAMPLE, SEED_S, SEED_SAMPLE = 32, 16, 100_000, 5_000, 1, 3
PARTS = ("occam", "hoeffding", "sample_minus_true", "smoothing")
PROBE_DOCS = 512  # copying_probe's --n-eval, its default; thesis.py does not change it
GOAL = 0.5  # bits per token below every table and the random guess
STEP11 = {"kind": "sublora", "d": 1_000, "lr": 0.01, "steps": 800, "batch": 16,
          "aligned": False, "levels": 11, "clip_sd": 0.0}  # ch22_seeds.py [1], tiers.SEED_*


def fmt(xs: list[float], name: str = "") -> str:
    """mean +- SE; with a name, the mean is glued as `name` and the SE as `name_se`."""
    m, s = mean_se(xs)
    m = round(m, 3) + 0.0  # + 0.0: a mean that rounds to 0 prints 0.000
    if name:
        return f"{glue(name, m, '.3f')} +- {glue(f'{name}_se', s, '.3f')}"
    return f"{m:.3f} +- {s:.3f}"


def block1(rec: dict, abl: dict) -> None:
    print(f"[1] {SEEDS_FILE.name}, {ABLATIONS_FILE.name}: {rec['command']}")
    for r in (rec, abl):
        print(f"    {r['tier']}: commit {r['commit'][:7]}, started {r['started']}, "
              f"{r['seconds'] / 60:.0f} min, {r['threads']} thread, {len(r['runs'])} runs")
    print(f"    machine: {rec['machine']}")
    print(f"    seeds {', '.join(str(r['seed']) for r in rec['runs'])} ({rec['seed_rule']}); "
          f"data as Step 11: N = {N_DOCS:,}, n = {N_SAMPLE:,}")
    print("    the recipe against Step 11's configuration:")
    for key, value in rec["recipe"].items():
        mark = "" if STEP11[key] == value else f"   (Step 11: {STEP11[key]})"
        print(f"      {key} {glue(f'recipe_{key}', value)}{mark}")


def block2(runs: list[dict]) -> None:
    print("[2] five seeds: bound; true risk of the bounded predictor (+- SE, 5,000 fresh "
          "documents); copied half on fresh documents, quantized; message")
    for r in runs:
        copied = r["halves"]["quantized"]["second"]
        seed = f"seed{r['seed']}"  # seed4_bound
        print(f"    seed {r['seed']}: bound {glue(f'{seed}_bound', r['bound_bits'], '.3f')}  "
              f"true {glue(f'{seed}_true', r['true_smoothed'], '.3f')}"
              f" +- {glue(f'{seed}_true_se', r['true_smoothed_se'], '.3f')}  "
              f"copied half {glue(f'{seed}_copied', copied, '.3f')}"
              f"  message {glue(f'{seed}_message', r['message_bits'], ',')} bits  "
              f"alpha {glue(f'{seed}_alpha', r['best_alpha'])}")
        assert r["true_smoothed"] < r["bound_bits"]
    print(f"    mean +- SE: bound {fmt([r['bound_bits'] for r in runs])}, true risk "
          f"{fmt([r['true_smoothed'] for r in runs])}, unsmoothed "
          f"{fmt([r['true_bits'] for r in runs])}")
    print("    gap parts: " + ", ".join(
        f"{p.replace('_', ' ')} {fmt([r['gap'][p] for r in runs])}" for p in PARTS))
    first = [r["halves"]["quantized"]["first"] for r in runs]
    second = [r["halves"]["quantized"]["second"] for r in runs]
    print(f"    halves, quantized, on the probe's {PROBE_DOCS} fresh documents "
          "(drawn with seed 2): "
          f"first {fmt(first, 'halves_first')}, copied {fmt(second, 'halves_copied')}")
    print(f"    top-1 error: bound {fmt([r['bound_top1'] for r in runs])}, true "
          f"{fmt([r['true_top1'] for r in runs])} (a guess: {1 - 1 / VOCAB:.3f})")


def block3(runs: list[dict], step11: list[dict]) -> dict:
    src = RepeatSource(VOCAB, SPAN)
    S = repeat_docset(src, N_DOCS, seed=SEED_S)
    sample = np.random.default_rng(SEED_SAMPLE).integers(0, N_DOCS, size=N_SAMPLE)
    _, grid = ngram.best_table(S, VOCAB, sample)
    tables = {k: min((grid[(k, b)] for b in ngram.PRECISIONS), key=lambda t: t.bound_bits)
              for k in ngram.ORDERS}
    guess, best = math.log2(VOCAB), src.best_bits()
    bounds = [r["bound_bits"] for r in runs]
    m, s = mean_se(bounds)
    print(f"[3] copying source (a span of {glue('source_span', SPAN)} uniform symbols, then the "
          f"same {SPAN} again): baselines on the same S, sample and N; best possible {best:.3f} "
          f"(the first half {math.log2(VOCAB - 1):.3f} per token, the copy and the end 0), "
          f"random guess {glue('baseline_guess', guess, '.3f')}")
    for k, t in tables.items():
        print(f"    order-{glue(f'copy_table{k}_order', k)} table ({t.table.precision} bits per "
              f"entry): bound {glue(f'baseline_table{k}_bound', t.bound_bits, '.3f')}, "
              f"empirical {t.smoothed[t.best_alpha]:.3f}")
    print(f"    SubLoRA, Step 11's configuration, {len(step11)} seeds: bound "
          f"{fmt([r['bound_bits'] for r in step11])}")
    low = min(t.bound_bits for t in tables.values())
    for r in runs:
        assert abs(paid_bound(r, 0) - r["bound_bits"]) < 2e-3
    paid = [paid_bound(r, MORE_BITS) for r in runs]
    pm, ps = mean_se(paid)
    print(f"    the recipe as run, {len(runs)} seeds: bound {m:.3f} +- {s:.3f} (holds for a recipe "
          f"fixed before its sample was scored; this one was not)")
    print(f"    the recipe's choice paid in both roots ({glue('paid_choice_bits', MORE_BITS)} "
          f"bits: eps / ({glue('paid_alpha_grid', len(pacbound.ALPHA_GRID))} * 2^{MORE_BITS}) "
          f"in each): "
          f"bound {pm:.3f} +- {ps:.3f}, {pm - m:+.3f} on average; highest seed {max(paid):.3f}")
    for name, ref in (("best table", low), ("random guess", guess)):
        margin = ref - pm
        verdict = "goal met beyond 2 SE" if margin - 2 * ps > GOAL else (
            "goal met by the mean, not beyond 2 SE" if margin > GOAL else "goal not met")
        each = sum(ref - b >= GOAL for b in paid)
        print(f"    margin below the {name}, paid: {margin:.3f} +- {ps:.3f} (goal {GOAL}; mean "
              f"minus 2 SE {margin - 2 * ps:.3f}; {each} of {len(paid)} seeds reach it): {verdict}")
    assert pm + 2 * ps < guess < low and max(paid) < guess
    return {"tables": tables, "guess": guess, "best": best, "paid": paid, "low": low}


def block4(abl: list[dict], runs: list[dict]) -> None:
    base = next(r for r in runs if r["seed"] == 0)
    print(f"[4] ablations, seed {glue('ablation_seed', base['seed'])} (the recipe: bound "
          f"{base['bound_bits']:.3f}, copied half "
          f"{base['halves']['quantized']['second']:.3f}): one part put back as Step 11 had it")
    for r in abl:
        diff, copied = r["bound_bits"] - base["bound_bits"], r["halves"]["quantized"]["second"]
        part = "_".join(r["change"])  # the settings put back: ablation_levels_clip_sd_rise
        print(f"    {r['run']}: bound {glue(f'ablation_{part}_bound', r['bound_bits'], '.3f')} "
              f"({glue(f'ablation_{part}_rise', diff, '+.3f')}), true "
              f"{r['true_smoothed']:.3f}, copied half {copied:.3f}")


def paid_parts(row: dict) -> dict:
    """A row's bound with the recipe's choice paid (`miniature.thesis.paid_bound`), its four parts
    (`gap_parts` at eps / 2^MORE_BITS: Occam and Hoeffding grow, the other two do not change) and
    its top-1 bound paid the same way (eps / 2^MORE_BITS, loss range 1, no grid)."""
    sample_smoothed = row["true_smoothed"] + row["gap"]["sample_minus_true"]
    gap = gap_parts(sample_smoothed=sample_smoothed, true_smoothed=row["true_smoothed"],
                    true_raw=row["true_bits"], alpha=row["best_alpha"], vocab=VOCAB,
                    charged_bits=row["prefix_bits"] + EXTRA_BITS, n_population=N_DOCS,
                    n_sample=N_SAMPLE, eps=EPS / 2.0**MORE_BITS)
    top1 = pacbound.subsampling_bound(
        train_error=row["sample_top1"], loss_range=1.0,
        complexity_nats=(row["prefix_bits"] + EXTRA_BITS) * math.log(2), n_population=N_DOCS,
        n_sample=N_SAMPLE, eps=EPS / 2.0**MORE_BITS)
    out = {"bound": paid_bound(row, MORE_BITS), "top1": top1, "occam": gap.occam,
           "hoeffding": gap.hoeffding, "sample_minus_true": gap.sample_minus_true,
           "smoothing": gap.smoothing}
    # the parts add up to the bound minus the unsmoothed true risk (the row's numbers are
    # rounded to 4 decimals), and the unsmoothed parts of the file agree with these
    assert abs(row["true_bits"] + gap.total - out["bound"]) < 2e-3
    assert abs(gap.sample_minus_true - row["gap"]["sample_minus_true"]) < 2e-4
    assert abs(gap.smoothing - row["gap"]["smoothing"]) < 2e-4
    if "paid" in row:  # miniature.thesis.paid, written with the run: the same arithmetic
        for k, v in (("bound_bits", out["bound"]), ("bound_top1", top1),
                     ("occam", gap.occam), ("hoeffding", gap.hoeffding)):
            assert abs(row["paid"][k] - v) < 2e-4, (k, row["paid"][k], v)
    return out


def coded_numbers(run: str) -> int:
    """How many numbers a variant trains and codes: d for the subspaces, all of the GPT's base
    weights for dense (the tied head once), LoRA's numbers for LoRA (`subspace.count_params`)."""
    counts = count_params(GPTConfig(vocab_size=VOCAB, block_size=64, n_layer=2, n_head=4,
                                    n_embd=64), lora_rank=4)
    return {"dense": counts["base"], "LoRA": counts["lora"]}.get(run, 1_000)


def block5(var: dict, rec: dict, abl: list[dict]) -> dict[str, list[dict]]:
    rows = var["runs"]
    groups = {"subspace": rec["runs"]}
    for name in var["recipe"]["variants"]:
        groups[name] = sorted((r for r in rows if r["run"] == name), key=lambda r: r["seed"])
        assert [r["seed"] for r in groups[name]] == [0, 1, 2, 3, 4], name
    print(f"[5] {VARIANTS_FILE.name}: {var['command']}")
    for c in var["calls"]:
        print(f"    call ({c['only']}): commit {c['commit'][:7]}, started {c['started']}, "
              f"{c['seconds'] / 60:.0f} min, {c['threads']} thread")
    print(f"    machine: {var['machine']}; {len(rows)} runs, "
          f"{sum(r['seconds'] for r in rows) / 60:.0f} min of runs in all")
    tried = var["configurations_tried"]
    print(f"    configurations run: {', '.join(f'{k} {v}' for k, v in tried.items())}, "
          f"inside the {glue('allowance_bits', MORE_BITS)}-bit allowance (a choice among "
          f"2^{MORE_BITS} configurations)")
    assert sum(tried.values()) < 2**MORE_BITS
    recipe = {k: v for k, v in var["recipe"].items() if k != "variants"}
    assert recipe == rec["recipe"]
    print("    each variant against the recipe (the rest as the recipe: "
          f"{recipe['steps']:,} steps, windows at documents' starts, {recipe['levels']} levels "
          f"over +- {glue('recipe_clip_rms', recipe['clip_sd'], 'g')} rms):")
    print(f"      subspace, the recipe (output [2]): lr "
          f"{glue('variant_subspace_lr', recipe['lr'])}; codes {coded_numbers('subspace'):,} "
          "numbers")
    for name, change in var["recipe"]["variants"].items():
        var_ = f"variant_{name.lower()}"  # variant_dense_lr, variant_dense_coded
        settings = ", ".join(f"{k} {glue(f'{var_}_{k}', v)}" for k, v in change.items())
        for r in groups[name]:
            assert r["change"] == change
        print(f"      {name}: {settings}; codes {glue(f'{var_}_coded', coded_numbers(name), ',')} "
              f"numbers")
    print(f"    bound per seed (seeds 0-4), the recipe's choice paid ({MORE_BITS} bits in both "
          "roots):")
    for name, runs in groups.items():
        print(f"      {name}: " + "  ".join(f"{paid_parts(r)['bound']:.3f}" for r in runs))
    sub0 = groups["SubLoRA"][0]
    ab0 = next(r for r in abl if r["change"] == {"kind": "sublora"})
    same = abs(sub0["bound_bits"] - ab0["bound_bits"]) < 1e-3
    print(f"    SubLoRA seed 0 as run: bound {sub0['bound_bits']:.3f}; output [4]'s run of the "
          f"same settings: {ab0['bound_bits']:.3f} ({'the same' if same else 'different'})")
    return groups


def block6(groups: dict[str, list[dict]]) -> dict[str, list[float]]:
    print(f"[6] every variant with the recipe's choice paid ({MORE_BITS} bits in both roots), "
          "mean +- SE over 5 seeds: bound; true risk of the bounded predictor (5,000 fresh "
          "documents); the gap's parts, which add up to bound minus unsmoothed true risk; "
          "message; top-1 error bound")
    paid = {}
    for name, runs in groups.items():
        parts = [paid_parts(r) for r in runs]
        paid[name] = [p["bound"] for p in parts]
        for r, p in zip(runs, parts, strict=True):
            assert r["true_smoothed"] < p["bound"]  # every seed: the bound above its true risk
        v = f"paid_{name.lower()}"  # paid_dense_bound, paid_dense_bound_se
        print(f"    {name}: bound {fmt(paid[name], f'{v}_bound')} "
              f"(as run {fmt([r['bound_bits'] for r in runs], f'{v}_bound_as_run')})"
              f", true risk {fmt([r['true_smoothed'] for r in runs], f'{v}_true')} (unsmoothed "
              f"{fmt([r['true_bits'] for r in runs], f'{v}_unsmoothed')})")
        print("      " + ", ".join(f"{k.replace('_', ' ')} {fmt([p[k] for p in parts], f'{v}_{k}')}"
                                   for k in PARTS))
        msg = [r["message_bits"] for r in runs]
        m, s = mean_se(msg)
        print(f"      message {glue(f'{v}_message', m, ',.0f')} +- "
              f"{glue(f'{v}_message_se', s, ',.0f')} bits, top-1 error bound "
              f"{fmt([p['top1'] for p in parts], f'{v}_top1_bound')} (true top-1 "
              f"{fmt([r['true_top1'] for r in runs], f'{v}_top1_true')}; a guess "
              f"{1 - 1 / VOCAB:.3f})")
    return paid


def block7(paid: dict[str, list[float]], low: float, guess: float) -> None:
    print(f"[7] margins of the paid bounds, mean +- SE over 5 seeds: below the best table "
          f"({glue('margins_best_table', low, '.3f')}) and below the random guess "
          f"({glue('margins_guess', guess, '.3f')}); goal {glue('goal', GOAL)} beyond "
          f"{glue('goal_n_se', 2)} SE")
    beyond = []
    for name, bounds in paid.items():
        m, s = mean_se(bounds)
        verdicts = []
        for what, ref in (("best table", low), ("random guess", guess)):
            margin = ref - m
            if margin - 2 * s > GOAL:
                verdict = "met beyond 2 SE"
            elif margin > GOAL:
                verdict = "met by the mean, not beyond 2 SE"
            else:
                verdict = "not met"
                assert margin <= GOAL
            each = sum(ref - b >= GOAL for b in bounds)
            verdicts.append(verdict)
            mg = f"margin_{name.lower()}_{what.split()[-1]}"  # margin_dense_table, _guess
            print(f"    {name}, below the {what}: {glue(mg, margin, '.3f')} +- "
                  f"{glue(f'{mg}_se', s, '.3f')} (mean minus 2 SE "
                  f"{glue(f'{mg}_minus_2se', margin - 2 * s, '.3f')}; "
                  f"{glue(f'{mg}_seeds_reaching', each)} of {glue(f'{mg}_seeds', len(bounds))} "
                  f"seeds reach {GOAL}): goal {verdict}")
        if verdicts == ["met beyond 2 SE"] * 2:
            beyond.append(name)
    print(f"    variants meeting the goal beyond 2 SE against both: "
          f"{', '.join(beyond) if beyond else 'none'}")
    for name, bounds in paid.items():
        m, s = mean_se(bounds)
        assert (name in beyond) == (min(low, guess) - m - 2 * s > GOAL)


def figure(runs: list[dict], abl: list[dict], step11: list[dict], base: dict,
           paid: list[float]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(5.5, 8.2))
    rows = [("order-0\ntable", [base["tables"][0].bound_bits], "#0072B2"),
            ("order-1\ntable", [base["tables"][1].bound_bits], "#0072B2"),
            ("order-2\ntable", [base["tables"][2].bound_bits], "#0072B2"),
            ("SubLoRA,\nStep 11", [r["bound_bits"] for r in step11], "#999999"),
            ("the recipe,\npaid", paid, "#D55E00")]
    for i, (_, ys, colour) in enumerate(rows):
        xs = np.full(len(ys), i) + (np.linspace(-0.15, 0.15, len(ys)) if len(ys) > 1 else 0)
        top.plot(xs, ys, "o", color=colour, alpha=0.8)
    top.axhline(base["guess"], color="black", ls="--", lw=1, label="random guess")
    top.axhline(base["guess"] - GOAL, color="#D55E00", ls="-.", lw=1,
                label=f"goal: {GOAL} below the guess")
    top.axhline(base["best"], color="black", ls=":", lw=1.2, label="best possible")
    top.set_xticks(range(len(rows)), [name for name, _, _ in rows])
    top.set_ylabel("bound, bits per token")
    top.set_title("Bounds on the copying source\n(dots: seeds; the recipe's choice paid)",
                  fontsize=10)
    top.legend(loc="lower left")
    halves = [("random guess", base["guess"], base["guess"]),
              ("LoRA's subspace,\nthe recipe (seed 0)", *_halves(abl)),
              ("the recipe (5 seeds)", np.mean([r["halves"]["quantized"]["first"] for r in runs]),
               np.mean([r["halves"]["quantized"]["second"] for r in runs])),
              ("best possible", math.log2(VOCAB - 1), 0.0)]
    y = np.arange(len(halves))
    bottom.barh(y - 0.2, [h[1] for h in halves], height=0.38, color="#56B4E9",
                label="first half (new symbols)")
    bottom.barh(y + 0.2, [h[2] for h in halves], height=0.38, color="#D55E00",
                label="second half (the copy)")
    bottom.set_yticks(y, [h[0] for h in halves])
    bottom.invert_yaxis()
    bottom.set_xlabel("bits per token on fresh documents")
    bottom.set_title("What was learned: the copy", fontsize=10)
    bottom.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=1)
    fig.tight_layout()
    script_io.save_figure(fig, "ch22_thesis.png")


def _halves(abl: list[dict]) -> tuple[float, float]:
    """The first and the copied half's bits of the ablation that trains LoRA's subspace."""
    r = next(r for r in abl if r["change"] == {"kind": "sublora"})
    return r["halves"]["quantized"]["first"], r["halves"]["quantized"]["second"]


def main() -> None:
    print("Chapter 22 -- the thesis in miniature, on the copying source (ch22_thesis.py)")
    rec = json.loads(SEEDS_FILE.read_text(encoding="utf-8"))
    abl = json.loads(ABLATIONS_FILE.read_text(encoding="utf-8"))
    step11 = [r for r in json.loads(STEP11_FILE.read_text(encoding="utf-8"))["runs"]
              if (r["source"], r["kind"]) == ("repeat", "sublora")]
    runs = rec["runs"]
    assert [r["seed"] for r in runs] == [0, 1, 2, 3, 4]
    block1(rec, abl)
    block2(runs)
    base = block3(runs, step11)
    block4(abl["runs"], runs)
    var = json.loads(VARIANTS_FILE.read_text(encoding="utf-8"))
    groups = block5(var, rec, abl["runs"])
    paid = block6(groups)
    assert all(abs(a - b) < 1e-12 for a, b in zip(paid["subspace"], base["paid"], strict=True))
    block7(paid, base["low"], base["guess"])
    figure(runs, abl["runs"], step11, base, base["paid"])
    print("All assertions passed.")


if __name__ == "__main__":
    main()
