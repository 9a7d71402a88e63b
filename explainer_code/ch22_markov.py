"""Chapter 22: the paper's method in miniature on a Markov source whose true risk we know.

Claims, numbered as the output blocks:
  [1] The source: 32 tokens (31 symbols and the end-of-document token), an order-1 chain with
      Dirichlet(0.1) rows, documents ending with probability 1/64 after each symbol. Its best
      possible per-document risk and top-1 error are computed exactly; a random guess scores
      log2 32 = 5 bits per token, the best constant guess (majority class) has top-1 error
      above 0.9. The training set S holds N = 100,000 documents.
  [2] The model and what each variant trains: a 2-layer GPT of width 64; SubLoRA trains
      d = 1,000 numbers that a fixed random projection spreads over the LoRA tensors.
  [3] SubLoRA, trained and coded: training loss, the 11-level quantization, the message
      (arithmetic-coded symbols, codebook, counts; the real coder decodes it exactly), and
      K = L + 2 log2 L + 1 (a valid prefix code, one bit over the authors' L + 2 log2 L).
  [4] Smoothing: the sampled documents' smoothed loss and the bound for each alpha of the
      authors' grid; the reported bound is the minimum, paid for by a union bound.
  [5] The result beside its baselines: the bits-per-token bound is below a random guess and
      above the true risk of the predictor it covers (the smoothed, quantized model, measured on
      fresh documents), and above the unsmoothed model's true risk; the top-1 bound is below the
      majority-class error and above the true top-1 error.
  [6] Count tables of order 0, 1 and 2, coded and bounded the same way (precision chosen by the
      bound, the choice paid for): the order-1 table, the right model for an order-1 source,
      has a lower bound than SubLoRA; order 0 cannot read context, order 2 costs too many bits.
  [7] The ablation, same data and steps: SubLoRA vs LoRA only vs a subspace over all weights vs
      the full network quantized (message length, empirical loss, bound, true risk of the
      bounded predictor; figure). SubLoRA is the run above; the other three are read from the
      ablation tier (data/ch22_ablation.json, `make miniature-ablation`: training them here too
      would take the script past its budget), every number checked against the seeds tier's
      seed 0 (recorded to four decimals).
  [8] Where each bound's gap goes: bound minus the unsmoothed true risk = Occam term + Hoeffding
      term + (smoothed sample risk - smoothed true risk) + smoothing cost, for every variant and
      the best table; the parts add up to the gap.
Seeds: source 0, S 1, fresh documents 2, sample 3, model 0, projector 137, batches 1337.
Deterministic: one thread, CPU kernels pinned (see miniature/__init__.py). Monte Carlo error of
the true risk: one standard error over 5,000 fresh documents, printed; the tables' true risk
(orders 0 and 1) is exact. One seed per variant here; ch22_seeds.py reads five.
Every value the chapter quotes is printed through `glue(name, ...)` (script_glue.py), so that the
page refers to it by name.
"""

from __future__ import annotations

import json
import math
import sys
import time
from dataclasses import dataclass

import miniature  # noqa: F401  (pins the CPU kernels before torch is imported)
import numpy as np
import pacbound
import script_io
import torch
from miniature import bayes, ngram
from miniature.corpus import DATA_DIR, EOD, make_markov_source, markov_docset
from miniature.experiment import (
    EPS,
    EXTRA_BITS,
    Gap,
    Result,
    gap_parts,
    result_gap,
    run_method,
)
from miniature.model import GPTConfig
from miniature.subspace import count_params
from miniature.train import LEVELS, TrainConfig
from script_glue import glue

VOCAB, CONCENTRATION, P_END = 32, 0.1, 1 / 64
N_DOCS, N_SAMPLE, N_FRESH = 100_000, 5_000, 5_000
SEED_SOURCE, SEED_S, SEED_FRESH, SEED_SAMPLE = 0, 1, 2, 3
CFG = GPTConfig(vocab_size=VOCAB, block_size=64, n_layer=2, n_head=4, n_embd=64)
D_SUB = 1_000
STEPS, QAT_STEPS = 800, 100
LR = {"sublora": 1e-2, "subspace": 1e-2, "lora": 3e-3, "full": 3e-3}
KINDS = ("sublora", "lora", "subspace", "full")


def tcfg(kind: str) -> TrainConfig:
    return TrainConfig(steps=STEPS, qat_steps=QAT_STEPS, lr=LR[kind], log_every=100)


def block1(src, S) -> dict[str, float]:
    best = bayes.best_bits(src)
    best_top1 = bayes.best_top1_error(src)
    major, major_err = bayes.majority_top1_error(src)
    rate = bayes.entropy_rate_bits(src)
    guess = math.log2(VOCAB)
    print(f"[1] Markov source: V = {glue('vocab', VOCAB)} tokens "
          f"({glue('n_symbols', VOCAB - 1)} symbols + end of document), rows "
          f"~ Dirichlet({glue('concentration', CONCENTRATION)}), "
          f"P(end) = {glue('p_end', f'1/{round(1 / P_END)}')} after each symbol")
    print(f"    training set S: N = {glue('n_docs', S.n_docs, ',')} documents, "
          f"{glue('n_train_symbols', int(S.lengths.sum()), ',')} symbols, "
          f"mean length {glue('mean_doc_length', S.lengths.mean(), '.1f')}")
    print(f"    exact: entropy rate {glue('entropy_rate', rate, '.3f')} bits per token; the "
          f"source's own per-document risk {glue('source_risk', best, '.3f')} bits per token, "
          f"its top-1 error {glue('source_top1', best_top1, '.3f')}")
    print(f"    random guess log2 {VOCAB} = {glue('guess_bits', guess, '.3f')} bits per token; "
          f"majority class (always token {major}) top-1 error "
          f"{glue('majority_top1', major_err, '.3f')}")
    assert guess == 5.0 and rate < best < guess and best_top1 < major_err and major_err > 0.9
    assert major != EOD
    return {"best": best, "best_top1": best_top1, "major_err": major_err, "guess": guess}


def block2() -> None:
    counts = count_params(CFG)
    print(f"[2] model: {glue('n_layer', CFG.n_layer)} layers, {glue('n_head', CFG.n_head)} "
          f"heads, width {glue('n_embd', CFG.n_embd)}, context "
          f"{glue('context', CFG.block_size)}; {glue('n_weights', counts['base'], ',')} weights, "
          f"LoRA rank {glue('lora_rank', 4)} on query, value and head: "
          f"{glue('n_lora', counts['lora'], ',')} numbers")
    print(f"    SubLoRA trains d = {glue('d_sub', D_SUB, ',')} numbers w; LoRA tensors = their "
          f"initial values + P w (P: rdkronqr, {counts['lora']:,} x {D_SUB:,})")
    print(f"    training: {glue('steps', STEPS)} AdamW steps of 16 windows x {CFG.block_size} "
          f"tokens, then {glue('qat_steps', QAT_STEPS)} quantization-aware steps; bound sample "
          f"n = {glue('n_sample', N_SAMPLE, ',')} documents of S")
    assert counts["lora"] == 2 * CFG.n_layer * 2 * 4 * CFG.n_embd + 4 * (CFG.n_embd + VOCAB)


def block3(r: Result) -> None:
    m = r.message
    print(f"[3] SubLoRA trained: loss {r.losses[0] / math.log(2):.3f} bits per token over the "
          f"first 100 steps, {r.losses[-1] / math.log(2):.3f} over the last 100")
    print(f"    on the {N_SAMPLE:,} sampled documents: "
          f"{glue('sample_bits_real', r.sample_bits_raw, '.3f')} bits per token with the "
          f"real-valued w, {glue('sample_bits_quantized', r.sample_bits, '.3f')} with w quantized "
          f"to {glue('levels', LEVELS)} levels")
    print(f"    message: symbols {m.coded:,} bits (ceil(d H) + 1; the real arithmetic coder: "
          f"{r.coder_bits:,} bits, decoded exactly) + codebook {m.codebook} + counts {m.counts} "
          f"= L = {m.total:,} bits")
    print(f"    prefix code K = L + 2 log2 L + 1 = {r.prefix_bits:,.1f} bits, "
          f"plus {EXTRA_BITS} bits for hyperparameters")
    assert abs(r.coder_bits - m.coded) <= 2 and r.losses[-1] < r.losses[0]
    assert abs(r.sample_bits - r.sample_bits_raw) < 0.5


def block4(r: Result) -> None:
    print(f"[4] smoothing, V = {glue('smoothing_vocab', VOCAB)}: alpha, loss range, smoothed "
          f"loss on the sample, bound "
          f"(each alpha at eps / {glue('grid_eps_split', len(pacbound.ALPHA_GRID))})")
    for a in pacbound.ALPHA_GRID:
        b = pacbound.subsampling_bound(
            train_error=r.smoothed[a], loss_range=pacbound.loss_range(a, VOCAB),
            complexity_nats=(r.prefix_bits + EXTRA_BITS) * math.log(2), n_population=N_DOCS,
            n_sample=N_SAMPLE, eps=EPS / 8)
        tag = f"{a:g}".replace(".", "p")  # alpha 0.0001 -> grid_0p0001_...
        print(f"    alpha {glue(f'grid_{tag}_alpha', a, '<6g')}  range "
              f"{glue(f'grid_{tag}_range', pacbound.loss_range(a, VOCAB), '6.3f')}  smoothed "
              f"{glue(f'grid_{tag}_smoothed', r.smoothed[a], '.3f')}  bound "
              f"{glue(f'grid_{tag}_bound', b, '.3f')}")
    print(f"    minimum over the grid: {glue('grid_min_bound', r.bound_bits, '.3f')} bits per "
          f"token at alpha = {glue('grid_min_alpha', r.best_alpha, 'g')}")
    assert r.best_alpha >= 0.05


def block5(r: Result, facts: dict[str, float]) -> None:
    print("[5] SubLoRA on the Markov source, bits per token and top-1 error:")
    print(f"    bounded predictor (quantized, smoothed at alpha = "
          f"{glue('bound_alpha', r.best_alpha, 'g')}): empirical "
          f"{glue('bounded_empirical', r.smoothed[r.best_alpha], '.3f')}  bound "
          f"{glue('bound', r.bound_bits, '.3f')}  true risk "
          f"{glue('bounded_true', r.heldout_smoothed, '.3f')} "
          f"(+- {glue('bounded_true_se', r.heldout_smoothed_se, '.3f')})")
    print(f"    unsmoothed (alpha = 0): empirical {r.sample_bits:.3f}  true risk "
          f"{glue('unsmoothed_true', r.heldout_bits, '.3f')} "
          f"(+- {glue('unsmoothed_true_se', r.heldout_se, '.3f')})  the source's own "
          f"{facts['best']:.3f}  random guess {facts['guess']:.3f}")
    print(f"    gap: bound - true risk of the bounded predictor "
          f"{glue('gap_bounded', r.bound_bits - r.heldout_smoothed, '.3f')}; bound - unsmoothed "
          f"true risk {glue('gap_unsmoothed', r.bound_bits - r.heldout_bits, '.3f')}")
    print(f"    top-1 error: empirical {glue('top1_empirical', r.sample_top1, '.3f')}  bound "
          f"{glue('top1_bound', r.bound_top1, '.3f')}  true "
          f"{glue('top1_true', r.heldout_top1, '.3f')}  the source's own "
          f"{facts['best_top1']:.3f}  majority class "
          f"{glue('top1_majority', facts['major_err'], '.3f')}")
    assert facts["best"] < r.heldout_bits < r.bound_bits < facts["guess"]
    assert r.heldout_smoothed + 3 * r.heldout_smoothed_se < r.bound_bits  # beyond Monte Carlo
    assert r.heldout_bits < r.heldout_smoothed  # smoothing costs on fresh data
    assert facts["best_top1"] < r.heldout_top1 < r.bound_top1 < facts["major_err"]


def block6(tables: dict[int, ngram.TableBound], exact: dict[int, float], order2_true: float,
           sub: Result, facts: dict[str, float]) -> None:
    print(f"[6] count tables ({glue('table_grid', ngram.TABLES)} in the grid, 0 extra bits: the "
          f"choice is paid as eps / {glue('table_eps_split', ngram.TABLES * 8)} for each table "
          f"and alpha): order, bits per entry (best for "
          "the bound), message L, bound, empirical and true risk at the bound's alpha, top-1 "
          "bound")
    for k, t in tables.items():
        true = exact.get(k, order2_true)
        how = "exact" if k in exact else "fresh"
        print(f"    order {glue(f'table{k}_order', k)}  "
              f"{glue(f'table{k}_bits_per_entry', t.table.precision)} bits  "
              f"L = {glue(f'table{k}_message', t.table.message_bits, '>7,')}  bound "
              f"{glue(f'table{k}_bound', t.bound_bits, '6.3f')}  empirical "
              f"{glue(f'table{k}_empirical', t.smoothed[t.best_alpha], '.3f')}  true "
              f"{glue(f'table{k}_true', true, '.3f')} ({how}, alpha = "
              f"{glue(f'table{k}_alpha', t.best_alpha, 'g')})  top-1 bound "
              f"{glue(f'table{k}_top1_bound', t.bound_top1, '.3f')}")
    best = min(tables.values(), key=lambda t: t.bound_bits)
    print(f"    best table: order {glue('best_table_order', best.table.order)}, bound "
          f"{glue('best_table_bound', best.bound_bits, '.3f')}; SubLoRA's "
          f"{glue('best_table_sublora_bound', sub.bound_bits, '.3f')} "
          f"({glue('sublora_minus_best_table', sub.bound_bits - best.bound_bits, '+.3f')})")
    assert best.table.order == 1 and best.bound_bits < sub.bound_bits
    assert tables[0].bound_bits > facts["guess"] > tables[1].bound_bits
    assert tables[2].bound_bits > facts["guess"]
    assert all(t.bound_bits > exact.get(k, order2_true) for k, t in tables.items())


@dataclass(frozen=True)
class Row:
    """One variant of the ablation, as blocks [7] and [8] and the figure read it."""

    kind: str
    coded: int
    message_bits: int
    sample_bits_raw: float
    sample_bits: float
    sample_smoothed: float  # at the bound's alpha
    bound_bits: float
    true_smoothed: float
    true_bits: float
    bound_top1: float
    gap: Gap


def live_row(r: Result) -> Row:
    """The row of a run made here."""
    return Row(r.kind, r.d, r.message.total, r.sample_bits_raw, r.sample_bits,
               r.smoothed[r.best_alpha], r.bound_bits, r.heldout_smoothed, r.heldout_bits,
               r.bound_top1, result_gap(r, VOCAB, N_DOCS, N_SAMPLE))


def tier_rows() -> dict[str, Row]:
    """The ablation tier's rows (data/ch22_ablation.json), checked against the seeds tier's seed
    0, which ran the same configuration and recorded four decimals."""
    record = json.loads((DATA_DIR / "ch22_ablation.json").read_text(encoding="utf-8"))
    seeds = {}
    for part in ("tier", "more", "full"):
        data = json.loads((DATA_DIR / f"ch22_seeds_{part}.json").read_text(encoding="utf-8"))
        seeds.update({r["kind"]: r for r in data["runs"]
                      if r["source"] == "markov" and r["seed"] == 0 and r["d"] == D_SUB})
    assert (record["n_docs"], record["n_sample"], record["n_fresh"]) == (N_DOCS, N_SAMPLE,
                                                                         N_FRESH)
    rows = {}
    for run in record["runs"]:
        seed0 = seeds[run["kind"]]
        gap = {k: v for k, v in run["gap"].items() if k != "total"}
        for key in ("bound_bits", "true_smoothed", "sample_bits", "sample_bits_raw", "true_bits",
                    "bound_top1", "best_alpha"):
            assert abs(run[key] - seed0[key]) < 6e-5, (run["kind"], key)
        assert all(abs(v - seed0["gap"][k]) < 6e-5 for k, v in gap.items()), run["kind"]
        assert run["message_bits"] == seed0["message_bits"] and run["coded"] == seed0["coded"]
        rows[run["kind"]] = Row(run["kind"], run["coded"], run["message_bits"],
                                run["sample_bits_raw"], run["sample_bits"],
                                run["sample_smoothed"], run["bound_bits"], run["true_smoothed"],
                                run["true_bits"], run["bound_top1"], Gap(**gap))
    return rows


def block7(rows: dict[str, Row], facts: dict[str, float]) -> None:
    print("[7] ablation (same data, steps, sample): numbers coded, message L, empirical bits "
          "real-valued / quantized, bound, true risk of the bounded predictor, top-1 bound")
    for kind in KINDS:
        r = rows[kind]
        print(f"    {kind:<9} coded {glue(f'ablation_{kind}_coded', r.coded, '>7,')}  "
              f"L = {glue(f'ablation_{kind}_message', r.message_bits, '>8,')}  "
              f"{glue(f'ablation_{kind}_real', r.sample_bits_raw, '.3f')} / "
              f"{glue(f'ablation_{kind}_quantized', r.sample_bits, '.3f')}  bound "
              f"{glue(f'ablation_{kind}_bound', r.bound_bits, '7.3f')}  "
              f"true {glue(f'ablation_{kind}_true', r.true_smoothed, '.3f')}  top-1 bound "
              f"{glue(f'ablation_{kind}_top1_bound', r.bound_top1, '.3f')}")
    sub, full = rows["sublora"], rows["full"]
    assert full.bound_bits > facts["guess"] > sub.bound_bits
    assert full.message_bits > 5 * sub.message_bits and full.sample_bits < sub.sample_bits
    assert all(r.true_smoothed < r.bound_bits for r in rows.values())
    figure(rows, facts)


def block8(rows: dict[str, Row], table: ngram.TableBound, table_true: float,
           table_raw: float) -> None:
    print("[8] the gap (bound - unsmoothed true risk) in parts that add up to it: Occam, "
          "Hoeffding, sample - true (smoothed), smoothing cost")
    gaps = {kind: rows[kind].gap for kind in KINDS}
    gaps["table"] = gap_parts(sample_smoothed=table.smoothed[table.best_alpha],
                              true_smoothed=table_true, true_raw=table_raw,
                              alpha=table.best_alpha, vocab=VOCAB,
                              charged_bits=table.prefix_bits, n_population=N_DOCS,
                              n_sample=N_SAMPLE, grid=table.grid)
    for name, g in gaps.items():
        label = f"order-{table.table.order} table" if name == "table" else name
        print(f"    {label:<15} Occam {glue(f'parts_{name}_occam', g.occam, '.3f')}  Hoeffding "
              f"{glue(f'parts_{name}_hoeffding', g.hoeffding, '.3f')}  sample - true "
              f"{glue(f'parts_{name}_sample_minus_true', g.sample_minus_true, '+.3f')}  "
              f"smoothing {glue(f'parts_{name}_smoothing', g.smoothing, '+.3f')}  "
              f"gap {glue(f'parts_{name}_gap', g.total, '.3f')}")
    for kind in KINDS:
        r = rows[kind]
        assert abs(gaps[kind].total - (r.bound_bits - r.true_bits)) < 1e-9
    assert abs(gaps["table"].total - (table.bound_bits - table_raw)) < 1e-9


def figure(rows: dict[str, Row], facts: dict[str, float]) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    colors = {"empirical": "#0072B2", "bound": "#D55E00", "true": "#009E73"}
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(5.5, 8.4), height_ratios=[3, 2],
                                   layout="constrained")  # fmt: skip
    x = np.arange(len(KINDS))
    values = {"empirical": lambda r: r.sample_smoothed, "true": lambda r: r.true_smoothed,
              "bound": lambda r: r.bound_bits}
    for k, key in enumerate(values):
        vals = [values[key](rows[kind]) for kind in KINDS]
        ax1.bar(x + (k - 1) * 0.26, vals, 0.26, color=colors[key], label=key)
    ax1.axhline(facts["guess"], color="black", lw=1, ls="--", label="random guess")
    ax1.axhline(facts["best"], color="grey", lw=1, ls=":", label="the source's own risk")
    ax1.set_xticks(x, ["SubLoRA", "LoRA only", "subspace,\nall weights", "full,\nquantized"])
    ax1.set_ylabel("bits per token")
    ax1.set_ylim(0, max(8.0, facts["guess"] + 1))
    for i, kind in enumerate(KINDS):
        b = rows[kind].bound_bits
        if b > ax1.get_ylim()[1]:
            ax1.text(i + 0.26, ax1.get_ylim()[1] * 0.97, f"{b:.1f}", ha="center", va="top",
                     fontsize=10, color=colors["bound"])
    ax1.legend(loc="upper left", ncols=2)
    ax1.set_title("Bound, empirical and true risk", fontsize=10)
    ax2.bar(x, [rows[k].message_bits / 1000 for k in KINDS], color="#CC79A7")
    ax2.set_yscale("log")
    ax2.set_xticks(x, ["SubLoRA", "LoRA only", "subspace,\nall weights", "full,\nquantized"])
    ax2.set_ylabel("message length L (kbit)")
    ax2.set_title("What the model costs to describe", fontsize=10)
    script_io.save_figure(fig, "ch22_ablation.png")


def main() -> None:
    torch.set_num_threads(1)
    t0 = time.time()
    print("Chapter 22 -- the method in miniature, Markov source (ch22_markov.py)")
    src = make_markov_source(VOCAB, CONCENTRATION, P_END, seed=SEED_SOURCE)
    S = markov_docset(src, N_DOCS, seed=SEED_S)
    fresh = markov_docset(src, N_FRESH, seed=SEED_FRESH)
    sample = np.random.default_rng(SEED_SAMPLE).integers(0, N_DOCS, size=N_SAMPLE)
    facts = block1(src, S)
    block2()
    print("ch22_markov: training sublora", file=sys.stderr, flush=True)
    sub = run_method("sublora", S, CFG, tcfg("sublora"), d=D_SUB, sample=sample, heldout=fresh)
    print(f"ch22_markov: sublora done in {sub.seconds:.0f} s, bound {sub.bound_bits:.3f}",
          file=sys.stderr, flush=True)
    block3(sub)
    block4(sub)
    block5(sub, facts)
    _, grid = ngram.best_table(S, VOCAB, sample)
    tables = {k: min((grid[(k, b)] for b in ngram.PRECISIONS), key=lambda t: t.bound_bits)
              for k in ngram.ORDERS}
    exact = {k: ngram.exact_bits(src, tables[k].table, tables[k].best_alpha) for k in (0, 1)}
    order2_true, _ = ngram.heldout_bits(tables[2].table, fresh, tables[2].best_alpha)
    block6(tables, exact, order2_true, sub, facts)
    rows = {"sublora": live_row(sub), **tier_rows()}
    block7(rows, facts)
    best = tables[1]
    block8(rows, best, exact[1], ngram.exact_bits(src, best.table, 0.0))
    print(f"ch22_markov: {time.time() - t0:.0f} s in all", file=sys.stderr)
    print("All assertions passed.")


if __name__ == "__main__":
    main()
