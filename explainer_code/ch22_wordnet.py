"""Chapter 22: the same method on real text, WordNet 3.0's glosses, against its baselines.

Claims, numbered as the output blocks:
  [1] The corpus: 117,659 glosses, lower-cased, 48 tokens (47 characters and end of document);
      5,000 held out as a test set, N = 112,659 in the training set S. Every character of the
      alphabet occurs in S, so the alphabet is what the training split alone would give.
  [2] SubLoRA (the model and steps of ch22_markov.py, d = 500, n = 10,000 sampled documents),
      quantized and coded: the message, the smoothed losses over the alpha grid, the bound; the
      test-set risk lies below the bound, that of the bounded (smoothed) predictor and that of
      the unsmoothed model, each printed with its label.
  [3] Baselines, coded and bounded the same way: a random guess (log2 48); count tables of order
      0, 1 and 2 (precision chosen by the bound, paid for; miniature.ngram), with their test-set
      risk; the majority class (always a space) for top-1. Every bound lies above its test-set
      risk; SubLoRA's top-1 bound does not beat the majority-class error. The margins between
      SubLoRA's bound and the tables' are printed, not asserted: one seed (see ch22_seeds.py).
  [4] Seeds (data/ch22_seeds_wordnet.json, written by `make miniature-seeds-wordnet`: this
      run's configuration with model s, projector 137 + s, batches 1337 + s): mean +- standard
      error of SubLoRA's bound and of its test-set risk, against the best count table's bound
      (no seed); an ordering claimed only beyond 2 SE. On the test set the two bounded
      predictors (SubLoRA's and the table's, both smoothed) are compared the same way: SubLoRA's
      is lower, beyond 2 SE, though its bound is not.
Seeds: split 0, sample 3, model 0, projector 137, batches 1337. One thread, pinned CPU kernels.
Every value the chapter quotes is printed through `glue(name, ...)` (script_glue.py), so that the
page refers to it by name.
"""

from __future__ import annotations

import json
import math
import os
import sys
from pathlib import Path

import miniature  # noqa: F401  (pins the CPU kernels before torch is imported)
import numpy as np
import pacbound
import torch
from miniature import ngram
from miniature.corpus import ALPHABET, WORDNET_VOCAB, DocSet, load_wordnet, split_documents
from miniature.experiment import EXTRA_BITS, run_method, unigram_baseline
from miniature.model import GPTConfig
from miniature.train import TrainConfig
from script_glue import glue

N_TEST, N_SAMPLE = 5_000, 10_000
SEED_SPLIT, SEED_SAMPLE = 0, 3
CFG = GPTConfig(vocab_size=WORDNET_VOCAB, block_size=64, n_layer=2, n_head=4, n_embd=64)
D_SUB, STEPS, QAT_STEPS, LR = 500, 800, 100, 1e-2
SEEDS_FILE = Path(__file__).resolve().parent / "data" / "ch22_seeds_wordnet.json"


def mean_se(xs: list[float]) -> tuple[float, float]:
    """Mean and standard error (sample standard deviation / sqrt(count)) over seeds."""
    a = np.asarray(xs, dtype=float)
    return float(a.mean()), float(a.std(ddof=1) / math.sqrt(len(a)))


def block4(table_bound: float, table_order: int, default_bound: float,
           table_test: tuple[float, float]) -> None:
    rec = json.loads(SEEDS_FILE.read_text(encoding="utf-8"))
    rows = sorted(rec["runs"], key=lambda r: r["seed"])
    minutes = sum(c["seconds"] for c in rec["calls"]) / 60
    print(f"[4] {SEEDS_FILE.name}: seeds {', '.join(str(r['seed']) for r in rows)} of "
          f"{len(rec['seeds'])} planned ({rec['seed_rule']}); {len(rec['calls'])} call(s), "
          f"commit {rec['calls'][0]['commit'][:7]}, {minutes:.0f} min, one process")
    for r in rows:
        print(f"    seed {r['seed']}  bound {r['bound_bits']:.3f}  test set: bounded predictor "
              f"{r['true_smoothed']:.3f}, unsmoothed {r['true_bits']:.3f}  (alpha = "
              f"{r['best_alpha']:g}, L = {r['message_bits']:,})")
    m, se = mean_se([r["bound_bits"] for r in rows])
    tm, tse = mean_se([r["true_smoothed"] for r in rows])
    diff = m - table_bound
    verdict = "tie" if abs(diff) <= 2 * se else ("SubLoRA lower" if diff < 0 else "table lower")
    print(f"    SubLoRA over {glue('wn_seeds', len(rows))} seeds: bound "
          f"{glue('wn_seeds_bound', m, '.3f')} +- {glue('wn_seeds_bound_se', se, '.3f')}, test "
          f"set of the bounded predictor {glue('wn_seeds_test', tm, '.3f')} +- "
          f"{glue('wn_seeds_test_se', tse, '.3f')}")
    print(f"    minus the order-{table_order} table's bound "
          f"{glue('wn_seeds_table_bound', table_bound, '.3f')}: "
          f"{glue('wn_seeds_minus_table', diff, '+.3f')} "
          f"(2 SE {glue('wn_seeds_minus_table_2se', 2 * se, '.3f')}): {verdict}")
    # the same comparison on the test set, between the two bounded predictors (both smoothed)
    t_diff = tm - table_test[0]
    t_se = math.sqrt(tse ** 2 + table_test[1] ** 2)
    t_verdict = "tie" if abs(t_diff) <= 2 * t_se else (
        "SubLoRA lower" if t_diff < 0 else "table lower")
    print(f"    test set, bounded predictors: SubLoRA {tm:.3f} +- {tse:.3f} minus the "
          f"order-{table_order} table's {glue('wn_table_test', table_test[0], '.3f')} +- "
          f"{glue('wn_table_test_se', table_test[1], '.3f')}: "
          f"{glue('wn_test_minus_table', t_diff, '+.3f')} "
          f"(2 SE {glue('wn_test_minus_table_2se', 2 * t_se, '.3f')}): {t_verdict}")
    assert t_verdict == "SubLoRA lower"
    seed0 = next((r for r in rows if r["seed"] == 0), None)
    assert len(rows) >= 2 and all(r["true_smoothed"] < r["bound_bits"] for r in rows)
    # Seed 0 is the run of [2]: to the last digit the file keeps where this machine's kernels
    # are those that wrote it (each call records their id; the pipeline passes this machine's);
    # elsewhere (another CPU vendor's vector math) within 1 %, the tolerance `make check` allows
    # products made on other kernels (explainer_tools/scripts/numerics.py).
    here = os.environ.get("EXPLAINER_KERNELS")
    same = here is not None and all(c.get("kernels") == here for c in rec["calls"])
    tolerance = 5e-4 if same else 0.01 * default_bound
    assert seed0 is None or abs(seed0["bound_bits"] - default_bound) < tolerance, (
        f"seed 0 of {SEEDS_FILE.name} (bound {seed0['bound_bits']}) is the run of [2], which "
        f"gives {default_bound:.4f} here, beyond {tolerance:.4f}: the file was written with "
        "other code, or on kernels that compute other bits (make numerics names them); rerun "
        "make miniature-seeds-wordnet")


def main() -> None:
    torch.set_num_threads(1)
    print("Chapter 22 -- the method in miniature, WordNet glosses (ch22_wordnet.py)")
    docs = load_wordnet()
    train_idx, test_idx = split_documents(len(docs), N_TEST, SEED_SPLIT)
    S = DocSet.from_docs([docs[i] for i in train_idx])
    test = DocSet.from_docs([docs[i] for i in test_idx])
    other = sum(int((d == ALPHABET.index("?") + 1).sum()) for d in docs)
    chars = sum(len(d) for d in docs)
    print(f"[1] WordNet {glue('wn_version', '3.0')} glosses: {len(docs):,} documents, "
          f"{chars:,} characters, mean length {chars / len(docs):.1f}; "
          f"V = {glue('wn_vocab', WORDNET_VOCAB)} tokens; '?' (other) "
          f"{100 * other / chars:.2f} %")
    print(f"    test set {glue('wn_n_test', test.n_docs, ',')} documents held out; training set S: "
          f"N = {glue('wn_n_docs', S.n_docs, ',')}")
    assert S.n_docs + test.n_docs == len(docs) == 117_659 and other / chars < 0.001
    seen = set(np.unique(S.stream).tolist()) - {0}
    print(f"    alphabet: {len(ALPHABET)} characters, {len(seen)} of them occur in S (the "
          f"training split alone gives the same alphabet)")
    assert seen == set(range(1, len(ALPHABET) + 1))

    sample = np.random.default_rng(SEED_SAMPLE).integers(0, S.n_docs, size=N_SAMPLE)
    print("ch22_wordnet: training sublora", file=sys.stderr, flush=True)
    r = run_method("sublora", S, CFG, TrainConfig(steps=STEPS, qat_steps=QAT_STEPS, lr=LR),
                   d=D_SUB, sample=sample, heldout=test)
    guess = math.log2(WORDNET_VOCAB)
    print(f"[2] SubLoRA, d = {glue('wn_d', D_SUB, ',')}, {STEPS} + {QAT_STEPS} steps: message "
          f"L = {r.message.total:,} bits, K = {r.prefix_bits:,.1f} (+ {EXTRA_BITS})")
    print(f"    sample of n = {glue('wn_n_sample', N_SAMPLE, ',')} documents of S: "
          f"{r.sample_bits_raw:.3f} bits per token before quantization, {r.sample_bits:.3f} after")
    for a in pacbound.ALPHA_GRID:
        print(f"    alpha {a:<6g}  range {pacbound.loss_range(a, WORDNET_VOCAB):6.3f}  smoothed "
              f"{r.smoothed[a]:.3f}")
    print(f"    bound {glue('wn_bound', r.bound_bits, '.3f')} bits per token "
          f"(alpha = {r.best_alpha:g}); test set "
          f"{r.heldout_bits:.3f} (+- {r.heldout_se:.3f}); top-1 error: sample {r.sample_top1:.3f}, "
          f"bound {r.bound_top1:.3f}, test {r.heldout_top1:.3f}")
    print(f"    the bounded predictor (smoothed at alpha = {r.best_alpha:g}) on the test set: "
          f"{r.heldout_smoothed:.3f} (+- {r.heldout_smoothed_se:.3f}); the test set above is the "
          "unsmoothed model's")
    assert r.heldout_bits + 3 * r.heldout_se < r.bound_bits < guess
    assert r.heldout_smoothed + 3 * r.heldout_smoothed_se < r.bound_bits

    u = unigram_baseline(S, WORDNET_VOCAB, sample, test)
    _, grid = ngram.best_table(S, WORDNET_VOCAB, sample)
    print(f"[3] baselines: random guess log2 {WORDNET_VOCAB} = {glue('wn_guess', guess, '.3f')} "
          "bits per token; count "
          f"tables, best precision of each order (the choice paid as eps / {ngram.TABLES * 8} "
          "for each table and alpha):")
    tests = {}
    for k in ngram.ORDERS:
        t = min((grid[(k, b)] for b in ngram.PRECISIONS), key=lambda t: t.bound_bits)
        test_bits, test_se = ngram.heldout_bits(t.table, test, t.best_alpha)
        tests[k] = (test_bits, test_se)
        print(f"    order {k}  {t.table.precision} bits  "
              f"L = {glue(f'wn_table{k}_message', t.table.message_bits, '>7,')}  bound "
              f"{glue(f'wn_table{k}_bound', t.bound_bits, '6.3f')}  sample "
              f"{t.smoothed[t.best_alpha]:.3f}  test {glue(f'wn_table{k}_test', test_bits, '.3f')} "
              f"(+- {test_se:.3f}, alpha = {t.best_alpha:g})  SubLoRA's bound "
              f"{r.bound_bits - t.bound_bits:+.3f} against it")
        assert test_bits + 3 * test_se < t.bound_bits
    raw_bits, _ = ngram.heldout_bits(ngram.fit_table(S, WORDNET_VOCAB, 1, 8), test, 0.0)
    print(f"    unsmoothed 8-bit bigram table on the test set: {raw_bits:.3f} bits per token; "
          f"SubLoRA unsmoothed {r.heldout_bits:.3f}")
    print(f"    majority class (always a space): top-1 error on the test set "
          f"{glue('wn_majority_top1', u.heldout_top1, '.3f')}, bound {u.bound_top1:.3f}; "
          f"SubLoRA's top-1 bound {glue('wn_top1_bound', r.bound_top1, '.3f')}")
    assert r.bound_top1 > u.heldout_top1  # no top-1 bound beats the majority class here
    best = min((grid[key] for key in grid), key=lambda t: t.bound_bits)
    block4(best.bound_bits, best.table.order, r.bound_bits, tests[best.table.order])
    print("All assertions passed.")


if __name__ == "__main__":
    main()
