"""Chapter 22: how the miniature's bound moves with N (documents) and d (subspace dimension).

Reads the longer tier's results, `data/ch22_long_tier.json` (written by `make miniature-long`,
with the command, commit, machine and time that produced it), prints them and draws two figures;
then compares the complexity term at our scale with the paper's.

Claims, numbered as the output blocks:
  [1] Provenance of the data file: tier, commit, machine, processes, time, peak memory.
  [2] N: with d fixed, more training documents shrink the gap between the bound and the true
      risk of the bounded (quantized, smoothed) predictor; the bound falls as N grows from 1,000
      to 1,000,000 documents (figure ch22_bound_vs_n.png); the bound re-picks alpha as N grows,
      so the Hoeffding part moves though n is fixed. Beside each N, the best count table's bound
      on the same S and sample, and its exact true risk: the table bounds lower at every N.
  [3] d: with N fixed, a larger subspace lowers the empirical loss and lengthens the message;
      in this one-seed sweep the bound is lowest in the middle of the range tried (whether that
      holds beyond seed noise is [6]); the table's bound at this N is [2]'s.
  [4] Scale: the Occam root depends on K / N. Our default run and the GPT-2 setting
      (N = 8,009,762, and K = 115,860 bits, the length Chapter 21 computes for a synthetic
      Gaussian w of d = 50,000 numbers, not a measured message) give roots of the same order;
      the bound multiplies each by its loss range (not printed here).
  [5] The GPU tier (data/ch22_gpu_tier.json): a larger model (4 layers, width 128) and more
      steps, run once on an NVIDIA H200 in one process; its provenance as corrected in the file;
      one seed per run, so differences between its runs are not claimed. Its file keeps the true
      risk of the unsmoothed model only; the best count table's bound at the same N and n (the
      same S and sample: the long tier computes it) stands beside each run.
  [6] The d sweep over seeds (data/ch22_seeds_dsweep.json for d = 250 and 2,000, written by
      `make miniature-seeds-d`; the seeds tier's SubLoRA rows for d = 1,000): mean +- standard
      error of the bound, of the true risk of the bounded predictor and of the message length
      per d; an ordering of two d claimed only beyond 2 SE of the difference (figure
      ch22_bound_vs_d.png: each seed's bound, and mean +- 2 SE).
No training here: numbers come from the data file, printed to 3 decimals as stored.
Every value the chapter quotes is printed through `glue(name, ...)` (script_glue.py), so that the
page refers to it by name.
"""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import numpy as np
import pacbound
import script_io
from script_glue import glue

DATA = Path(__file__).resolve().parent / "data" / "ch22_long_tier.json"
GPU = Path(__file__).resolve().parent / "data" / "ch22_gpu_tier.json"
DSWEEP = Path(__file__).resolve().parent / "data" / "ch22_seeds_dsweep.json"
SEEDS_D1000 = Path(__file__).resolve().parent / "data" / "ch22_seeds_tier.json"
PAPER_N, PAPER_K, PAPER_n = 8_009_762, 115_860, 10_000  # N: PL:59; K: ch21_pipeline.py [3]
EPS = 0.05


def occam_term(K: float, N: int, n: int) -> float:
    """sqrt((K ln 2 - ln(rho eps)) / (2 N)), rho = n / (n + N): the first root of the bound."""
    rho = n / (n + N)
    return math.sqrt((K * math.log(2) - math.log(rho * EPS)) / (2 * N))


def hoeffding_part(alpha: float, N: int, n: int) -> float:
    """The subsample root at the chosen alpha: loss range(alpha) * sqrt(ln(1 / ((1 - r) eps / 8))
    / (2 n)), r = n / (n + N), eps / 8 for each alpha of the grid of 8. It depends on n and on the
    alpha the bound picks, not on the model's message."""
    r = n / (n + N)
    return pacbound.loss_range(alpha, 32) * math.sqrt(-math.log((1 - r) * EPS / 8) / (2 * n))


def prefix_shift(row: dict, n: int) -> float:
    """How much one more bit of K can raise a stored bound: the Occam root's growth times the
    loss range at the alpha the bound chose (V = 32). The minimum over the grid with the extra
    bit is at most the chosen alpha's bound with it, so this is an upper bound."""
    N, rho = row["n_docs"], n / (n + row["n_docs"])
    alpha_range = pacbound.loss_range(row["best_alpha"], 32)
    c = (row["prefix_bits"] + 7) * math.log(2) - math.log(rho * EPS / 8)
    return alpha_range * (math.sqrt((c + math.log(2)) / (2 * N)) - math.sqrt(c / (2 * N)))


def table_at(rec: dict, n_docs: int, n_sample: int) -> dict:
    """The long tier's best count table for training-set size N = n_docs and sample size n."""
    return next(t for t in rec["tables"] if (t["n_docs"], t["n_sample"]) == (n_docs, n_sample))


def block5(rec: dict) -> None:
    g = json.loads(GPU.read_text(encoding="utf-8"))
    cfg = g["config"]
    print(f"[5] {GPU.name}: run {g['run_by'].split(',')[-1].strip()} on {g['machine']}")
    print(f"    commit {g['commit']} (the run reported {g['commit_reported'][:7]}, the device "
          f"copy's metadata); {g['processes']} process: the single-process path, not DDP")
    print(f"    model {glue('gpu_n_layer', cfg['n_layer'])} layers, width "
          f"{glue('gpu_n_embd', cfg['n_embd'])}, context "
          f"{cfg['block_size']}, LoRA rank {cfg['lora_rank']}; {g['train']['steps']} + "
          f"{g['train']['qat_steps']} steps; n = {g['n_sample']:,}; {g['seconds']:.0f} s in all")
    print("    N, d, message L, bound (alpha), true risk of the unsmoothed model; the best count "
          "table's bound")
    for r in g["runs"]:
        t = table_at(rec, r["n_docs"], g["n_sample"])
        run = f"gpu_N{r['n_docs']}_d{r['d']}"  # gpu_N1000000_d4000_bound
        print(f"    N = {glue(f'{run}_N', r['n_docs'], '>9,')}  "
              f"d = {glue(f'{run}_d', r['d'], '>5,')}  "
              f"L = {glue(f'{run}_message', r['message_bits'], '>6,')}  bound "
              f"{glue(f'{run}_bound', r['bound_bits'], '.3f')} "
              f"({glue(f'{run}_alpha', r['best_alpha'], 'g')})  unsmoothed true "
              f"{glue(f'{run}_unsmoothed_true', r['true_bits'], '.3f')}  table (order "
              f"{t['order']}) {glue(f'{run}_table_bound', t['bound_bits'], '.3f')}")
        assert t["bound_bits"] < r["bound_bits"]
    shift = max(prefix_shift(r, g["n_sample"]) for r in g["runs"])
    print(f"    authors' prefix code here too: the valid one raises each bound by at most "
          f"{glue('gpu_prefix_shift', shift, '.1e')}")
    assert g["complete"] and cfg["lora_rank"] == 4 and shift < 1e-3
    assert all(r["true_bits"] < r["bound_bits"] < 5.0 for r in g["runs"])


def mean_se(xs: list[float]) -> tuple[float, float]:
    """Mean and standard error (sample standard deviation / sqrt(count)) over seeds."""
    a = np.asarray(xs, dtype=float)
    return float(a.mean()), float(a.std(ddof=1) / math.sqrt(len(a)))


def d_sweep_rows() -> dict[int, list[dict]]:
    """SubLoRA on the Markov source, N = 100,000, per d: every seed's row of the two files."""
    rows = list(json.loads(DSWEEP.read_text(encoding="utf-8"))["runs"])
    rows += [r for r in json.loads(SEEDS_D1000.read_text(encoding="utf-8"))["runs"]
             if (r["source"], r["kind"], r["d"]) == ("markov", "sublora", 1_000)]
    by_d: dict[int, list[dict]] = {}
    for r in sorted(rows, key=lambda r: (r["d"], r["seed"])):
        by_d.setdefault(r["d"], []).append(r)
    return by_d


def block6() -> None:
    rec = json.loads(DSWEEP.read_text(encoding="utf-8"))
    by_d = d_sweep_rows()
    call = rec["calls"][0]
    minutes = sum(c["seconds"] for c in rec["calls"]) / 60
    print(f"[6] d sweep over seeds: {DSWEEP.name} (d = 250, 2,000; {len(rec['calls'])} call(s), "
          f"commit {call['commit'][:7]}, {minutes:.0f} min, one process) and "
          f"{SEEDS_D1000.name} (d = 1,000); {rec['seed_rule']}")
    print("    d, seeds, bound, true risk of the bounded predictor, message L (mean +- SE)")
    stats = {}
    for d, rows in by_d.items():
        stats[d] = mean_se([r["bound_bits"] for r in rows])
        true = mean_se([r["true_smoothed"] for r in rows])
        msg = mean_se([r["message_bits"] for r in rows])
        print(f"    d = {glue(f'dsweep_d{d}_d', d, '>5,')}  "
              f"{glue(f'dsweep_d{d}_seeds', len(rows))} seeds  "
              f"bound {glue(f'dsweep_d{d}_bound', stats[d][0], '.3f')} "
              f"+- {glue(f'dsweep_d{d}_bound_se', stats[d][1], '.3f')}  "
              f"true {glue(f'dsweep_d{d}_true', true[0], '.3f')} "
              f"+- {glue(f'dsweep_d{d}_true_se', true[1], '.3f')}  "
              f"L = {glue(f'dsweep_d{d}_message', msg[0], ',.0f')} "
              f"+- {glue(f'dsweep_d{d}_message_se', msg[1], ',.0f')}")
        assert len(rows) >= 2 and all(r["true_smoothed"] < r["bound_bits"] for r in rows)
    print("    orderings (a difference counts beyond 2 SE of the difference):")
    for a, b in itertools.combinations(sorted(stats), 2):
        diff, se = stats[a][0] - stats[b][0], math.hypot(stats[a][1], stats[b][1])
        verdict = "tie" if abs(diff) <= 2 * se else (f"d = {a:,} lower" if diff < 0
                                                      else f"d = {b:,} lower")
        print(f"    d = {a:,} - d = {b:,}: {glue(f'dsweep_d{a}_minus_d{b}', diff, '+.3f')} "
              f"(2 SE {glue(f'dsweep_d{a}_minus_d{b}_2se', 2 * se, '.3f')}): {verdict}")
    assert set(stats) == {250, 1_000, 2_000}
    plot_d_seeds(by_d)


def plot_d_seeds(by_d: dict[int, list[dict]]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.5, 5.2), layout="constrained")
    ds = sorted(by_d)
    for i, d in enumerate(ds):
        bounds = [r["bound_bits"] for r in by_d[d]]
        ax.plot(np.full(len(bounds), d) * np.linspace(0.94, 1.06, len(bounds)), bounds, "o",
                color="#D55E00", alpha=0.6, label="bound, one seed" if i == 0 else None)
    stats = [mean_se([r["bound_bits"] for r in by_d[d]]) for d in ds]
    ax.errorbar(ds, [m for m, _ in stats], yerr=[2 * s for _, s in stats], fmt="s-",
                color="black", capsize=4, label="bound, mean +- 2 SE")
    true = [mean_se([r["true_smoothed"] for r in by_d[d]])[0] for d in ds]
    ax.plot(ds, true, "^--", color="#009E73", label="true risk of the bounded predictor, mean")
    ax.axhline(5.0, color="black", ls=":", lw=1, label="random guess")
    ax.set_xscale("log")
    ax.minorticks_off()
    ax.set_xticks(ds, [f"{d:,}" for d in ds])
    ax.set_xlabel("d, dimension of the subspace (N = 100,000)")
    ax.set_ylabel("bits per token")
    fig.legend(frameon=False, loc="outside lower center")
    script_io.save_figure(fig, "ch22_bound_vs_d.png")


def plot(rows: list[dict], key: str, name: str, xlabel: str, tables: list[dict]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xs = [r[key] for r in rows]
    fig, ax = plt.subplots(figsize=(5.5, 5.0), layout="constrained")
    ax.plot(xs, [r["bound_bits"] for r in rows], "o-", color="#D55E00", label="SubLoRA's bound")
    ax.plot(xs, [r["true_smoothed"] for r in rows], "s-", color="#009E73",
            label="true risk of the bounded predictor")
    if tables:
        ax.plot(xs, [t["bound_bits"] for t in tables], "D--", color="#CC79A7",
                label="best count table's bound")
    ax.axhline(5.0, color="black", ls="--", lw=1, label="random guess")
    ax.set_xscale("log")
    ax.set_xlabel(xlabel)
    ax.set_ylabel("bits per token")
    fig.legend(frameon=False, loc="outside lower center")
    script_io.save_figure(fig, name)


def main() -> None:
    print("Chapter 22 -- the bound against N and d (ch22_scaling.py)")
    rec = json.loads(DATA.read_text(encoding="utf-8"))
    print(f"[1] {DATA.name}: tier {rec['tier']}, commit {rec['commit'][:7]}, {rec['processes']} "
          f"process(es) on {rec['device']}")
    print(f"    machine: {rec['machine']}")
    print(f"    {rec['seconds'] / 60:.0f} minutes, peak memory {rec['peak_rss_mib']:.0f} MiB; "
          f"{rec['train']['steps']} + {rec['train']['qat_steps']} steps per run, n = "
          f"{rec['n_sample']:,}; {len(rec['runs'])} runs")
    if rec.get("runs_override"):
        print(f"    reduced sweep (CH22_LONG_RUNS={rec['runs_override']}); `make miniature-long` "
              "runs the full list")
    assert rec["tier"] == "long" and rec["runs"] and rec["complete"] and "corrections" not in rec

    d0 = 1_000
    by_n = sorted((r for r in rec["runs"] if r["d"] == d0), key=lambda r: r["n_docs"])
    print(f"[2] d = {d0:,}: N, message L, bound, true risk of the bounded predictor, bound - true, "
          "the alpha the bound chose, its Hoeffding part")
    tables = [table_at(rec, r["n_docs"], rec["n_sample"]) for r in by_n]
    for r in by_n:
        hoeff = hoeffding_part(r["best_alpha"], r["n_docs"], rec["n_sample"])
        run = f"long_N{r['n_docs']}"  # long_N1000000_bound
        print(f"    N = {glue(f'{run}_N', r['n_docs'], '>9,')}  "
              f"L = {glue(f'{run}_message', r['message_bits'], '>6,')}  "
              f"bound {glue(f'{run}_bound', r['bound_bits'], '.3f')}  "
              f"true {glue(f'{run}_true', r['true_smoothed'], '.3f')}  "
              f"gap {glue(f'{run}_gap', r['bound_bits'] - r['true_smoothed'], '.3f')}  "
              f"alpha {glue(f'{run}_alpha', r['best_alpha'], 'g')}  "
              f"Hoeffding {glue(f'{run}_hoeffding', hoeff, '.3f')}")
    print("    the best count table on the same S and sample (grid of 18, paid for): N, order, "
          "bits per entry, bound, exact true risk, alpha")
    for t in tables:
        run = f"long_table_N{t['n_docs']}"  # long_table_N1000_bound
        print(f"    N = {t['n_docs']:>9,}  order {glue(f'{run}_order', t['order'])}  "
              f"{glue(f'{run}_bits_per_entry', t['precision'])} bits  "
              f"bound {glue(f'{run}_bound', t['bound_bits'], '.3f')}  "
              f"true {glue(f'{run}_true', t['true_bits'], '.3f')}  "
              f"alpha {glue(f'{run}_alpha', t['best_alpha'], 'g')}")
        assert t["true_se"] == 0.0  # orders 0-1: exact
    alphas = {r["n_docs"]: r["best_alpha"] for r in by_n}
    print(f"    the bound re-picks alpha as N grows ({alphas[100_000]:g} at N = 100,000, "
          f"{alphas[1_000_000]:g} at N = 1,000,000): the Hoeffding part changes with it though n "
          "does not, and so does the smoothing cost")
    assert alphas[100_000] != alphas[1_000_000]
    gaps = [r["bound_bits"] - r["true_smoothed"] for r in by_n]
    assert all(a > b for a, b in itertools.pairwise(gaps))
    assert by_n[0]["bound_bits"] > 5.0 > by_n[-1]["bound_bits"]
    assert all(t["bound_bits"] < r["bound_bits"] for t, r in zip(tables, by_n, strict=True))
    plot(by_n, "n_docs", "ch22_bound_vs_n.png", "N, documents in the training set", tables)

    n0 = 100_000
    by_d = sorted((r for r in rec["runs"] if r["n_docs"] == n0), key=lambda r: r["d"])
    print(f"[3] N = {n0:,}: d, message L, empirical (quantized, unsmoothed), bound, true risk of "
          "the bounded predictor")
    for r in by_d:
        print(f"    d = {r['d']:>5,}  L = {r['message_bits']:>6,}  {r['sample_bits']:.3f}  bound "
              f"{r['bound_bits']:.3f}  true {r['true_smoothed']:.3f}")
    t0 = table_at(rec, n0, rec["n_sample"])
    print(f"    the best count table here (order {t0['order']}): bound {t0['bound_bits']:.3f}, "
          f"below every d")
    assert all(t0["bound_bits"] < r["bound_bits"] for r in by_d)
    lengths = [r["message_bits"] for r in by_d]
    assert all(a < b for a, b in itertools.pairwise(lengths))
    best = min(by_d, key=lambda r: r["bound_bits"])
    assert best is not by_d[0] and best is not by_d[-1]

    ours = next(r for r in by_n if r["n_docs"] == n0)
    K = pacbound.prefix_code_bits(ours["message_bits"])
    t_ours = occam_term(K, n0, rec["n_sample"])
    t_paper = occam_term(PAPER_K, PAPER_N, PAPER_n)
    print(f"[4] Occam root sqrt((K ln 2 - ln(rho eps)) / 2N): ours "
          f"(K = {glue('occam_K_ours', K, ',.0f')} bits, N = {n0:,}) "
          f"{glue('occam_root_ours', t_ours, '.4f')}; GPT-2 setting "
          f"(K = {glue('occam_K_gpt2', PAPER_K, ',')}, N = {PAPER_N:,}) "
          f"{glue('occam_root_gpt2', t_paper, '.4f')}")
    print(f"    K / N: ours {K / n0:.4f} bits per document, GPT-2 setting "
          f"{PAPER_K / PAPER_N:.4f}")
    assert 0.25 < t_paper / t_ours < 4
    block5(rec)
    block6()
    print("All assertions passed.")


if __name__ == "__main__":
    main()
