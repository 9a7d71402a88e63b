"""Chapter 22: five seeds per variant, the configurations paid for, a source counting cannot win.

Reads the seeds tier (`data/ch22_seeds_*.json`: the Markov source in parts run side by side,
the copying source in `ch22_seeds_repeat.json`), written by `make miniature-seeds` with the
command, commits, machine and times inside, and the registry of configurations tried
(`data/ch22_registry.json`). Recomputes the count tables itself (numpy, exact).

Claims, numbered as the output blocks:
  [1] Provenance: calls, commits, machine, seeds; the configuration is ch22_markov.py's, fixed
      before any seed ran.
  [2] Markov source, five seeds per variant: mean +- standard error of the bound, of the true
      risk of the bounded predictor and of the gap's four parts; the best count table's bound;
      SubLoRA's sample loss with w real-valued minus quantized: within 2 SE of zero, so
      quantization does not reliably lower it.
  [3] Orderings claimed only beyond 2 standard errors of the difference; the rest are ties.
  [4] Seed spread against the differences the single-seed runs of ch22_markov.py and the d
      sweep of ch22_scaling.py show (figure ch22_seeds.png, with the best count table's
      bound and the random guess as lines).
  [5] The registry: configurations tried per source and the bits their choice costs, inside the
      7 hyperparameter bits each bound pays.
  [6] The copying source (a random span of 16 symbols, then the same span again): exact best
      risk, random guess, every count table's bound, and SubLoRA over five seeds.
Standard errors: sample standard deviation over seeds / sqrt(seeds). Printed to 3 decimals.
Every value the chapter quotes is printed through `glue(name, ...)` (script_glue.py), so that the
page refers to it by name.
"""

from __future__ import annotations

import json
import math
from itertools import combinations
from pathlib import Path

import numpy as np
import script_io
from miniature import ngram
from miniature.corpus import RepeatSource, make_markov_source, markov_docset, repeat_docset
from miniature.experiment import EXTRA_BITS
from script_glue import glue

DATA = Path(__file__).resolve().parent / "data"
MARKOV_FILES = (DATA / "ch22_seeds_tier.json", DATA / "ch22_seeds_more.json",
                DATA / "ch22_seeds_full.json", DATA / "ch22_seeds_full2.json",
                DATA / "ch22_seeds_lora2.json")
REPEAT_FILE = DATA / "ch22_seeds_repeat.json"
REGISTRY = DATA / "ch22_registry.json"
KINDS = ("sublora", "lora", "subspace", "full")
VOCAB, N_DOCS, N_SAMPLE, SEED_S, SEED_SAMPLE = 32, 100_000, 5_000, 1, 3
PARTS = ("occam", "hoeffding", "sample_minus_true", "smoothing")


def mean_se(xs: list[float]) -> tuple[float, float]:
    a = np.asarray(xs, dtype=float)
    return float(a.mean()), float(a.std(ddof=1) / math.sqrt(len(a)))


def fmt(xs: list[float], name: str = "") -> str:
    """mean +- SE; with a name, the mean is glued as `name` and the SE as `name_se`."""
    m, s = mean_se(xs)
    if name:
        return f"{glue(name, m, '.3f')} +- {glue(f'{name}_se', s, '.3f')}"
    return f"{m:.3f} +- {s:.3f}"


def rows_of(rec: dict, source: str, kind: str, d: int) -> list[dict]:
    return [r for r in rec["runs"] if (r["source"], r["kind"], r["d"]) == (source, kind, d)]


def tables_on(S, sample) -> dict[int, ngram.TableBound]:
    """The best precision of each order, as in ch22_markov.py [6]."""
    _, grid = ngram.best_table(S, VOCAB, sample)
    return {k: min((grid[(k, b)] for b in ngram.PRECISIONS), key=lambda t: t.bound_bits)
            for k in ngram.ORDERS}


def load(paths) -> dict:
    """The runs and calls of several parts of the tier, merged; other fields from the first."""
    recs = [json.loads(p.read_text(encoding="utf-8")) for p in paths if p.exists()]
    for rec in recs:
        if "calls" not in rec:  # the first format: one call, recorded at the top level
            rec["calls"] = [{"sources": "markov", "kinds": "sublora, lora",
                             "commit": rec.get("code_commit", rec["commit"]),
                             "machine": rec["machine"], "started": "2026-12-01 19:50 UTC",
                             "seconds": rec["seconds_this_call"]}]
    merged = dict(recs[0])
    merged["runs"] = [r for rec in recs for r in rec["runs"]]
    merged["calls"] = [c for rec in recs for c in rec["calls"]]
    return merged


def block1(rec: dict, rep: dict) -> None:
    names = ", ".join(p.name for p in (*MARKOV_FILES, REPEAT_FILE))
    print(f"[1] {names}: tier seeds, seeds {', '.join(map(str, rec['seeds']))} "
          f"({rec['seed_rule']})")
    for c in rec["calls"] + rep["calls"]:
        print(f"    call: sources {c['sources']}, kinds {c.get('kinds', 'all')}, commit "
              f"{c['commit'][:7]}, started {c['started']}, {c['seconds'] / 60:.0f} min")
    print(f"    machine: {rec['calls'][0]['machine']}; {rec['threads']} thread each, "
          f"{rec['device']}")
    print(f"    configuration: ch22_markov.py's ({rec['train']['steps']} + "
          f"{rec['train']['qat_steps']} steps, N = {rec['n_docs']:,}, n = {rec['n_sample']:,}), "
          f"fixed before any seed ran")
    lrs = rec["train"]["lr"]
    print("    learning rates: " + ", ".join(f"{k} {glue(f'lr_{k}', v, 'g')}"
                                          for k, v in lrs.items()))


def block2(rec: dict, best_table: ngram.TableBound) -> dict[str, list[float]]:
    print("[2] Markov source, mean +- SE over the seeds run (5 planned): bound; true risk of the "
          "bounded predictor; gap parts Occam, Hoeffding, sample - true, smoothing")
    bounds = {}
    for kind in KINDS:
        rows = rows_of(rec, "markov", kind, 1_000)
        bounds[kind] = [r["bound_bits"] for r in rows]
        parts = "  ".join(fmt([r["gap"][p] for r in rows], f"seeds_{kind}_{p}") for p in PARTS)
        true = fmt([r["true_smoothed"] for r in rows], f"seeds_{kind}_true")
        print(f"    {kind:<9} {glue(f'seeds_{kind}_n', len(rows))} seeds  "
              f"bound {fmt(bounds[kind], f'seeds_{kind}_bound')}  true {true}  parts {parts}")
        assert len(rows) >= 2
        assert all(r["true_smoothed"] < r["bound_bits"] for r in rows)
    print(f"    best count table (order {best_table.table.order}, "
          f"{best_table.table.precision} bits per entry, no seed): bound "
          f"{glue('seeds_best_table_bound', best_table.bound_bits, '.3f')}")
    rows = rows_of(rec, "markov", "sublora", 1_000)
    quant = [r["sample_bits_raw"] - r["sample_bits"] for r in rows]
    m, s = mean_se(quant)
    worse = sum(q < 0 for q in quant)
    print(f"    SubLoRA's sample loss, w real-valued minus quantized: "
          f"{glue('quant_change', m, '+.3f')} +- {glue('quant_change_se', s, '.3f')} "
          f"(quantizing raised it in {glue('quant_raised', worse)} of "
          f"{glue('quant_seeds', len(rows))} seeds)")
    assert abs(m) < 2 * s
    return bounds


def block3(bounds: dict[str, list[float]], table_bound: float) -> None:
    print(f"[3] orderings of the bound (a difference counts beyond {glue('n_se', 2)} SE of the "
          "difference):")
    for a, b in combinations(KINDS, 2):
        (ma, sa), (mb, sb) = mean_se(bounds[a]), mean_se(bounds[b])
        diff, se = ma - mb, math.hypot(sa, sb)
        verdict = "tie" if abs(diff) <= 2 * se else (f"{a} lower" if diff < 0 else f"{b} lower")
        print(f"    {a} - {b}: {glue(f'order_{a}_{b}', diff, '+.3f')} "
              f"(2 SE {glue(f'order_{a}_{b}_2se', 2 * se, '.3f')}): {verdict}")
    for kind in KINDS:
        m, s = mean_se(bounds[kind])
        verdict = "table lower" if table_bound < m - 2 * s else "not claimed"
        print(f"    {kind} - best table: {glue(f'order_{kind}_table', m - table_bound, '+.3f')} "
              f"(2 SE {glue(f'order_{kind}_table_2se', 2 * s, '.3f')}): {verdict}")
    sub_m, sub_s = mean_se(bounds["sublora"])
    assert table_bound < sub_m - 2 * sub_s


def block4(bounds: dict[str, list[float]], table_bound: float) -> None:
    sds = {k: float(np.std(v, ddof=1)) for k, v in bounds.items()}
    lo, hi = min(bounds["sublora"]), max(bounds["sublora"])
    print("[4] seed spread of the bound (standard deviation over seeds): "
          + ", ".join(f"{k} {glue(f'spread_{k}', sds[k], '.3f')}" for k in KINDS))
    print(f"    SubLoRA's five bounds run from {glue('spread_sublora_lowest', lo, '.3f')} to "
          f"{glue('spread_sublora_highest', hi, '.3f')}: a difference between two "
          f"single-seed runs smaller than about "
          f"{glue('seed_noise', 2 * math.sqrt(2) * sds['sublora'], '.2f')} is within seed noise")
    figure(bounds, table_bound)


def figure(bounds: dict[str, list[float]], table_bound: float) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.5, 4.2))
    names = {"sublora": "SubLoRA", "lora": "LoRA only", "subspace": "subspace,\nall weights",
             "full": "full,\nquantized"}
    for i, kind in enumerate(KINDS):
        xs = np.full(len(bounds[kind]), i) + np.linspace(-0.12, 0.12, len(bounds[kind]))
        ax.plot(xs, bounds[kind], "o", color="#D55E00", alpha=0.7)
        m, s = mean_se(bounds[kind])
        ax.errorbar([i + 0.3], [m], yerr=[2 * s], fmt="s", color="black", capsize=4)
    ax.axhline(5.0, color="black", ls="--", lw=1, label="random guess")
    ax.axhline(table_bound, color="#0072B2", ls=":", lw=1.5,
               label="best count table (order 1)")
    ax.set_xticks(range(len(KINDS)), [names[k] for k in KINDS])
    ax.set_ylabel("bound, bits per token")
    ax.set_title("Each seed's bound (dots); mean and 2 SE (squares)", fontsize=10)
    ax.set_ylim(table_bound - 0.15, None)
    ax.legend(loc="center", bbox_to_anchor=(0.5, 0.3))  # the empty band above the table
    fig.tight_layout()
    script_io.save_figure(fig, "ch22_seeds.png")


def block5(registry: dict) -> None:
    print("[5] registry of configurations tried (data/ch22_registry.json):")
    for source, entries in registry["sources"].items():
        bits = math.ceil(math.log2(len(entries)))
        key = source.replace("-", "_")
        print(f"    {source:<8} {glue(f'registry_{key}_configs', len(entries))} configuration(s): "
              f"ceil(log2 {len(entries)}) = {glue(f'registry_{key}_bits', bits)} bit(s), inside "
              f"the {glue(f'registry_{key}_extra_bits', EXTRA_BITS)} hyperparameter bits")
        assert bits <= EXTRA_BITS


def block6(rep: dict) -> None:
    src = RepeatSource(VOCAB, 16)
    S = repeat_docset(src, N_DOCS, seed=SEED_S)
    sample = np.random.default_rng(SEED_SAMPLE).integers(0, N_DOCS, size=N_SAMPLE)
    tables = tables_on(S, sample)
    best, guess = src.best_bits(), math.log2(VOCAB)
    print(f"[6] copying source: a span of {glue('copy_span', src.span)} uniform symbols, then "
          f"the same {src.span} again; best possible {glue('copy_best', best, '.3f')} bits per "
          f"token, random guess {glue('copy_guess', guess, '.3f')}")
    for k, t in tables.items():
        print(f"    order-{k} table ({glue(f'copy_table{k}_bits_per_entry', t.table.precision)} "
              f"bits per entry): bound {glue(f'copy_table{k}_bound', t.bound_bits, '.3f')}, "
              f"empirical {glue(f'copy_table{k}_empirical', t.smoothed[t.best_alpha], '.3f')}")
    rows = rows_of(rep, "repeat", "sublora", 1_000)
    print(f"    SubLoRA, {glue('copy_sublora_seeds', len(rows))} seeds: bound "
          f"{fmt([r['bound_bits'] for r in rows], 'copy_sublora_bound')}, true "
          f"risk of the bounded predictor "
          f"{fmt([r['true_smoothed'] for r in rows], 'copy_sublora_true')}, unsmoothed "
          f"{fmt([r['true_bits'] for r in rows], 'copy_sublora_unsmoothed')}")
    m, s = mean_se([r["bound_bits"] for r in rows])
    low = min(t.bound_bits for t in tables.values())
    reached = "reached" if m + 2 * s < min(low, guess) else "not reached"
    print(f"    SubLoRA's bound minus the best table's: "
          f"{glue('copy_sublora_minus_table', m - low, '+.3f')}; the goal (below every "
          f"table and the random guess) is {reached}")
    assert all(t.bound_bits > guess for t in tables.values())


def main() -> None:
    print("Chapter 22 -- seeds, registry and the copying source (ch22_seeds.py)")
    rec = load(MARKOV_FILES)
    rep = load([REPEAT_FILE])
    block1(rec, rep)
    src = make_markov_source(VOCAB, 0.1, 1 / 64, seed=0)
    S = markov_docset(src, N_DOCS, seed=SEED_S)
    sample = np.random.default_rng(SEED_SAMPLE).integers(0, N_DOCS, size=N_SAMPLE)
    best_table = min(tables_on(S, sample).values(), key=lambda t: t.bound_bits)
    bounds = block2(rec, best_table)
    block3(bounds, best_table.bound_bits)
    block4(bounds, best_table.bound_bits)
    block5(json.loads(REGISTRY.read_text(encoding="utf-8")))
    block6(rep)
    print("All assertions passed.")


if __name__ == "__main__":
    main()
