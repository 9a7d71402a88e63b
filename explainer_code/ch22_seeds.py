"""Chapter 22: five seeds per variant, the configurations paid for, a source counting cannot win.

Reads the seeds tier (`data/ch22_seeds_tier.json`, Markov source; `data/ch22_seeds_repeat.json`,
the copying source), written by `make miniature-seeds` with the command, commits, machine and
times inside, and the registry of configurations tried (`data/ch22_registry.json`). Recomputes
the count tables itself (numpy, exact).

Claims, numbered as the output blocks:
  [1] Provenance: calls, commits, machine, seeds; the configuration is ch22_markov.py's, fixed
      before any seed ran.
  [2] Markov source, five seeds per variant: mean +- standard error of the bound, of the true
      risk of the bounded predictor and of the gap's four parts; the best count table's bound.
  [3] Orderings claimed only beyond 2 standard errors of the difference; the rest are ties.
  [4] The subspace dimension d of SubLoRA, five seeds each (figure ch22_seeds_d.png).
  [5] The registry: configurations tried per source and the bits their choice costs, inside the
      7 hyperparameter bits each bound pays.
  [6] The copying source (a random span of B symbols, then the same span again): exact best
      risk, random guess, every count table's bound, and SubLoRA over five seeds.
Standard errors: sample standard deviation over seeds / sqrt(seeds). Printed to 3 decimals.
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

DATA = Path(__file__).resolve().parent / "data"
SEEDS_FILE, REPEAT_FILE = DATA / "ch22_seeds_tier.json", DATA / "ch22_seeds_repeat.json"
REGISTRY = DATA / "ch22_registry.json"
KINDS = ("sublora", "lora", "subspace", "full")
VOCAB, N_DOCS, N_SAMPLE, SEED_S, SEED_SAMPLE = 32, 100_000, 5_000, 1, 3
PARTS = ("occam", "hoeffding", "sample_minus_true", "smoothing")


def mean_se(xs: list[float]) -> tuple[float, float]:
    a = np.asarray(xs, dtype=float)
    return float(a.mean()), float(a.std(ddof=1) / math.sqrt(len(a)))


def fmt(xs: list[float]) -> str:
    m, s = mean_se(xs)
    return f"{m:.3f} +- {s:.3f}"


def rows_of(rec: dict, source: str, kind: str, d: int) -> list[dict]:
    return [r for r in rec["runs"] if (r["source"], r["kind"], r["d"]) == (source, kind, d)]


def tables_on(S, sample) -> dict[int, ngram.TableBound]:
    """The best precision of each order, as in ch22_markov.py [6]."""
    _, grid = ngram.best_table(S, VOCAB, sample)
    return {k: min((grid[(k, b)] for b in ngram.PRECISIONS), key=lambda t: t.bound_bits)
            for k in ngram.ORDERS}


def block1(rec: dict, rep: dict) -> None:
    print(f"[1] {SEEDS_FILE.name} and {REPEAT_FILE.name}: tier seeds, seeds "
          f"{', '.join(map(str, rec['seeds']))} ({rec['seed_rule']})")
    for r in (rec, rep):
        for c in r["calls"]:
            print(f"    call: sources {c['sources']}, commit {c['commit'][:7]}, started "
                  f"{c['started']}, {c['seconds'] / 60:.0f} min")
    print(f"    machine: {rec['calls'][0]['machine']}; {rec['threads']} thread, {rec['device']}")
    print(f"    configuration: ch22_markov.py's ({rec['train']['steps']} + "
          f"{rec['train']['qat_steps']} steps, N = {rec['n_docs']:,}, n = {rec['n_sample']:,}), "
          f"fixed before any seed ran")
    assert rec["complete"] and rep["complete"]


def block2(rec: dict, best_table: ngram.TableBound) -> dict[str, list[float]]:
    print("[2] Markov source, 5 seeds each, mean +- SE: bound; true risk of the bounded "
          "predictor; gap parts Occam, Hoeffding, sample - true, smoothing")
    bounds = {}
    for kind in KINDS:
        rows = rows_of(rec, "markov", kind, 1_000)
        bounds[kind] = [r["bound_bits"] for r in rows]
        parts = "  ".join(fmt([r["gap"][p] for r in rows]) for p in PARTS)
        true = fmt([r["true_smoothed"] for r in rows])
        print(f"    {kind:<9} bound {fmt(bounds[kind])}  true {true}  parts {parts}")
        assert len(rows) == len(rec["seeds"])
        assert all(r["true_smoothed"] < r["bound_bits"] for r in rows)
    print(f"    best count table (order {best_table.table.order}, "
          f"{best_table.table.precision} bits per entry, no seed): bound "
          f"{best_table.bound_bits:.3f}")
    return bounds


def block3(bounds: dict[str, list[float]], table_bound: float) -> None:
    print("[3] orderings of the bound (a difference counts beyond 2 SE of the difference):")
    for a, b in combinations(KINDS, 2):
        (ma, sa), (mb, sb) = mean_se(bounds[a]), mean_se(bounds[b])
        diff, se = ma - mb, math.hypot(sa, sb)
        verdict = "tie" if abs(diff) <= 2 * se else (f"{a} lower" if diff < 0 else f"{b} lower")
        print(f"    {a} - {b}: {diff:+.3f} (2 SE {2 * se:.3f}): {verdict}")
    for kind in KINDS:
        m, s = mean_se(bounds[kind])
        verdict = "table lower" if table_bound < m - 2 * s else "not claimed"
        print(f"    {kind} - best table: {m - table_bound:+.3f} (2 SE {2 * s:.3f}): {verdict}")
    sub_m, sub_s = mean_se(bounds["sublora"])
    assert table_bound < sub_m - 2 * sub_s


def block4(rec: dict) -> None:
    print("[4] SubLoRA against d, 5 seeds each: d, message L, bound, true risk (mean +- SE)")
    ds = sorted({r["d"] for r in rec["runs"] if r["source"] == "markov" and r["kind"] == "sublora"})
    stats = {}
    for d in ds:
        rows = rows_of(rec, "markov", "sublora", d)
        stats[d] = [mean_se([r[k] for r in rows]) for k in ("bound_bits", "true_smoothed")]
        print(f"    d = {d:>5,}  L = {fmt([r['message_bits'] for r in rows]):>16}  bound "
              f"{fmt([r['bound_bits'] for r in rows])}  true "
              f"{fmt([r['true_smoothed'] for r in rows])}")
    assert len(ds) >= 3
    figure_d(ds, stats)


def figure_d(ds: list[int], stats: dict) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.6, 3.4))
    for i, (label, color) in enumerate([("bound", "#D55E00"),
                                        ("true risk of the bounded predictor", "#009E73")]):
        m = [stats[d][i][0] for d in ds]
        e = [2 * stats[d][i][1] for d in ds]
        ax.errorbar(ds, m, yerr=e, fmt="o-", color=color, capsize=3, label=label)
    ax.axhline(5.0, color="black", ls="--", lw=1, label="random guess")
    ax.set_xscale("log")
    ax.set_xlabel("d, dimension of the subspace")
    ax.set_ylabel("bits per token (mean, bars 2 SE)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    script_io.save_figure(fig, "ch22_seeds_d.png")


def block5(registry: dict) -> None:
    print("[5] registry of configurations tried (data/ch22_registry.json):")
    for source, entries in registry["sources"].items():
        bits = math.ceil(math.log2(len(entries)))
        print(f"    {source:<8} {len(entries)} configuration(s): ceil(log2 {len(entries)}) = "
              f"{bits} bit(s), inside the {EXTRA_BITS} hyperparameter bits")
        assert bits <= EXTRA_BITS


def block6(rep: dict) -> None:
    src = RepeatSource(VOCAB, 16)
    S = repeat_docset(src, N_DOCS, seed=SEED_S)
    sample = np.random.default_rng(SEED_SAMPLE).integers(0, N_DOCS, size=N_SAMPLE)
    tables = tables_on(S, sample)
    best, guess = src.best_bits(), math.log2(VOCAB)
    print(f"[6] copying source: B = {src.span} uniform symbols, then the same {src.span} again; "
          f"best possible {best:.3f} bits per token, random guess {guess:.3f}")
    for k, t in tables.items():
        print(f"    order-{k} table ({t.table.precision} bits per entry): bound "
              f"{t.bound_bits:.3f}, empirical {t.smoothed[t.best_alpha]:.3f}")
    rows = rows_of(rep, "repeat", "sublora", 1_000)
    print(f"    SubLoRA, 5 seeds: bound {fmt([r['bound_bits'] for r in rows])}, true risk of the "
          f"bounded predictor {fmt([r['true_smoothed'] for r in rows])}, unsmoothed "
          f"{fmt([r['true_bits'] for r in rows])}")
    m, s = mean_se([r["bound_bits"] for r in rows])
    low = min(t.bound_bits for t in tables.values())
    reached = "reached" if m + 2 * s < min(low, guess) else "not reached"
    print(f"    SubLoRA's bound minus the best table's: {m - low:+.3f}; the goal (below every "
          f"table and the random guess) is {reached}")
    assert all(t.bound_bits > guess for t in tables.values())


def main() -> None:
    print("Chapter 22 -- seeds, registry and the copying source (ch22_seeds.py)")
    rec = json.loads(SEEDS_FILE.read_text(encoding="utf-8"))
    rep = json.loads(REPEAT_FILE.read_text(encoding="utf-8"))
    block1(rec, rep)
    src = make_markov_source(VOCAB, 0.1, 1 / 64, seed=0)
    S = markov_docset(src, N_DOCS, seed=SEED_S)
    sample = np.random.default_rng(SEED_SAMPLE).integers(0, N_DOCS, size=N_SAMPLE)
    best_table = min(tables_on(S, sample).values(), key=lambda t: t.bound_bits)
    bounds = block2(rec, best_table)
    block3(bounds, best_table.bound_bits)
    block4(rec)
    block5(json.loads(REGISTRY.read_text(encoding="utf-8")))
    block6(rep)
    print("All assertions passed.")


if __name__ == "__main__":
    main()
