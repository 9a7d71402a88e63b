"""Chapter 22: the same method on real text, WordNet 3.0's glosses, against its baselines.

Claims, numbered as the output blocks:
  [1] The corpus: 117,659 glosses, lower-cased, 48 tokens (47 characters and end of document);
      5,000 held out as a test set, N = 112,659 in the training set S. Every character of the
      alphabet occurs in S, so the alphabet is what the training split alone would give.
  [2] SubLoRA (the model and steps of ch22_markov.py, d = 500, n = 10,000 sampled documents),
      quantized and coded: the message, the smoothed losses over the alpha grid, the bound; the
      test-set risk lies below the bound.
  [3] Baselines, coded and bounded the same way: a random guess (log2 48); count tables of order
      0, 1 and 2 (precision chosen by the bound, paid for; miniature.ngram), with their test-set
      risk; the majority class (always a space) for top-1. Every bound lies above its test-set
      risk; SubLoRA's top-1 bound does not beat the majority-class error. The margins between
      SubLoRA's bound and the tables' are printed, not asserted: one seed (see ch22_seeds.py).
Seeds: split 0, sample 3, model 0, projector 137, batches 1337. One thread, pinned CPU kernels.
"""

from __future__ import annotations

import math
import sys

import miniature  # noqa: F401  (pins the CPU kernels before torch is imported)
import numpy as np
import pacbound
import torch
from miniature import ngram
from miniature.corpus import ALPHABET, WORDNET_VOCAB, DocSet, load_wordnet, split_documents
from miniature.experiment import EXTRA_BITS, run_method, unigram_baseline
from miniature.model import GPTConfig
from miniature.train import TrainConfig

N_TEST, N_SAMPLE = 5_000, 10_000
SEED_SPLIT, SEED_SAMPLE = 0, 3
CFG = GPTConfig(vocab_size=WORDNET_VOCAB, block_size=64, n_layer=2, n_head=4, n_embd=64)
D_SUB, STEPS, QAT_STEPS, LR = 500, 800, 100, 1e-2


def main() -> None:
    torch.set_num_threads(1)
    print("Chapter 22 -- the method in miniature, WordNet glosses (ch22_wordnet.py)")
    docs = load_wordnet()
    train_idx, test_idx = split_documents(len(docs), N_TEST, SEED_SPLIT)
    S = DocSet.from_docs([docs[i] for i in train_idx])
    test = DocSet.from_docs([docs[i] for i in test_idx])
    other = sum(int((d == ALPHABET.index("?") + 1).sum()) for d in docs)
    chars = sum(len(d) for d in docs)
    print(f"[1] WordNet 3.0 glosses: {len(docs):,} documents, {chars:,} characters, mean length "
          f"{chars / len(docs):.1f}; V = {WORDNET_VOCAB} tokens; '?' (other) "
          f"{100 * other / chars:.2f} %")
    print(f"    test set {test.n_docs:,} documents held out; training set S: N = {S.n_docs:,}")
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
    print(f"[2] SubLoRA, d = {D_SUB:,}, {STEPS} + {QAT_STEPS} steps: message L = "
          f"{r.message.total:,} bits, K = {r.prefix_bits:,.1f} (+ {EXTRA_BITS})")
    print(f"    sample: {r.sample_bits_raw:.3f} bits per token before quantization, "
          f"{r.sample_bits:.3f} after")
    for a in pacbound.ALPHA_GRID:
        print(f"    alpha {a:<6g}  range {pacbound.loss_range(a, WORDNET_VOCAB):6.3f}  smoothed "
              f"{r.smoothed[a]:.3f}")
    print(f"    bound {r.bound_bits:.3f} bits per token (alpha = {r.best_alpha:g}); test set "
          f"{r.heldout_bits:.3f} (+- {r.heldout_se:.3f}); top-1 error: sample {r.sample_top1:.3f}, "
          f"bound {r.bound_top1:.3f}, test {r.heldout_top1:.3f}")
    assert r.heldout_bits + 3 * r.heldout_se < r.bound_bits < guess

    u = unigram_baseline(S, WORDNET_VOCAB, sample, test)
    _, grid = ngram.best_table(S, WORDNET_VOCAB, sample)
    print(f"[3] baselines: random guess log2 {WORDNET_VOCAB} = {guess:.3f} bits per token; count "
          f"tables, best precision of each order ({ngram.SELECTION_BITS} bits for the choice):")
    for k in ngram.ORDERS:
        t = min((grid[(k, b)] for b in ngram.PRECISIONS), key=lambda t: t.bound_bits)
        test_bits, test_se = ngram.heldout_bits(t.table, test, t.best_alpha)
        print(f"    order {k}  {t.table.precision} bits  L = {t.table.message_bits:>7,}  bound "
              f"{t.bound_bits:6.3f}  sample {t.smoothed[t.best_alpha]:.3f}  test {test_bits:.3f} "
              f"(+- {test_se:.3f}, alpha = {t.best_alpha:g})  SubLoRA's bound "
              f"{r.bound_bits - t.bound_bits:+.3f} against it")
        assert test_bits + 3 * test_se < t.bound_bits
    raw_bits, _ = ngram.heldout_bits(ngram.fit_table(S, WORDNET_VOCAB, 1, 8), test, 0.0)
    print(f"    unsmoothed 8-bit bigram table on the test set: {raw_bits:.3f} bits per token; "
          f"SubLoRA unsmoothed {r.heldout_bits:.3f}")
    print(f"    majority class (always a space): top-1 error on the test set {u.heldout_top1:.3f}, "
          f"bound {u.bound_top1:.3f}; SubLoRA's top-1 bound {r.bound_top1:.3f}")
    assert r.bound_top1 > u.heldout_top1  # no top-1 bound beats the majority class here
    print("All assertions passed.")


if __name__ == "__main__":
    main()
