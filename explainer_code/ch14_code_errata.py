"""Errata C1-C6 of the authors' released code, each measured on the lines that cause it.

The relevant lines of sublora-bounds-for-llms @c606ea6 are re-implemented here, each function
citing them; nothing of the authors' code is imported. Numbers use the worked example of
Chapter 14 (train error 5.0 bits per token, message 10^5 bits, N = 8,000,000, n = 10,000).

Claims, numbered as the output blocks:
  [1] C1: the code charges the 8 alphas 15, 23, ..., 71 extra bits cumulatively
      (sublora/sublora_pipeline.py:637); 7 + log2 8 = 10 bits pay for the choice. Cost: at most
      0.0004 bits per token in the example (0.000313 at alpha = 0.5).
  [2] C2: extra bits 7 in the YAML (config/sublora_bounds.yaml:39), 8 from the unused
      `get_extra_bits` (sublora/bounds/bound_utils.py:227-244), 5 as the pipeline's default
      (sublora_pipeline.py:126); the bound moves by under 0.00002 bits per token between them.
  [3] C3: the Hoeffding root is not charged for the minimum over 8 alphas; a union bound adds
      ln 8 inside it: +0.0576 to +0.1067 bits per token per alpha; the reported minimum rises
      from 6.2197 to 6.2770 (the union bound also drops C1's surplus bits).
  [4] C4: the sequence-level sampler (sublora/utils.py:121-130) draws chunk indices below
      (8,823,811 - 1) // 1024 = 8,617: tokens 0 to 8,823,808, about 0.098 % of the training data.
  [5] C5: `get_doc_indices` (sublora/utils.py:19-39) trims its arrays only on the call that
      creates the index files; the trimmed arrays pair each end-of-text position with the next
      document's length, so the window is wrong unless two neighbours have equal lengths (17 of
      9,999 on a toy corpus of 10,000 documents). Later calls (untrimmed) delimit all correctly.
  [6] C6: the top-k loop (sublora/bounds/bound_utils.py:115-139) raises IndexError exactly when
      every token of a document ranks below 100 (checked on 20,000 random rank vectors).
Deterministic: numpy RandomState / default_rng with fixed seeds; float64 closed formulas.
"""

from __future__ import annotations

import math

import numpy as np
import pacbound as pb
from script_glue import glue

SEED = 14
V = pb.GPT2_VOCAB_SIZE
TRAIN_ERROR = 5.0
MESSAGE_BITS = 100_000
N_POP = 8_000_000
N_SAMPLE = 10_000
EPS = 0.05
BASE_EXTRA_BITS = 7  # config/sublora_bounds.yaml:39
DEFAULT_EXTRA_BITS = 5  # sublora_pipeline.py:126, when the configuration omits it
DATA_SIZE = 8_823_811  # sublora_pipeline.py:58
TRAIN_TOKENS = 9_035_582_198  # data/openwebtext/prepare.py:76
BLOCK_SIZE = 1024
EOT = 50_256  # sublora_pipeline.py:60
TOP_KS = (*range(1, 11), 50, 100)  # bound_utils.py:115, 125, 133


def tag(x: float) -> str:
    """A value as part of a name: 0.0001 -> 0p0001, 1e-06 -> 1em06."""
    return format(x, "g").replace(".", "p").replace("-", "m")


def div_nats(extra_bits: float) -> float:
    """(L + 2 log2 L + extra bits) ln 2, the code's divergence (sublora_pipeline.py:629, :638)."""
    return (MESSAGE_BITS + 2 * math.log2(MESSAGE_BITS) + extra_bits) * math.log(2)


def bound(
    delta: float, extra_bits: float, *, train_error: float = TRAIN_ERROR, eps: float = EPS
) -> float:
    return pb.subsampling_bound(
        train_error=train_error,
        loss_range=delta,
        complexity_nats=div_nats(extra_bits),
        n_population=N_POP,
        n_sample=N_SAMPLE,
        eps=eps,
    )


def code_extra_bits(base: int = BASE_EXTRA_BITS) -> list[float]:
    """sublora_pipeline.py:625-638: `misc_extra_bits += np.ceil(len(alpha_array))` per alpha."""
    bits, charged = float(base), []
    for _ in pb.ALPHA_GRID:
        bits += math.ceil(len(pb.ALPHA_GRID))
        charged.append(bits)
    return charged


def choice_count(intrinsic_dim: int, attention_linear_lora_r: int) -> int:
    """bound_utils.py:227-244, re-implemented: the count of hyperparameter choices."""
    if intrinsic_dim == 0:
        return 2 * 3 if attention_linear_lora_r == 0 else 2 * 2 * 3
    return 2 * 6 * 3 if attention_linear_lora_r == 0 else 4 * 6 * 2 * 3


def get_extra_bits(intrinsic_dim: int, attention_linear_lora_r: int) -> float:
    """bound_utils.py:227-244, re-implemented: ceil(log2 of the count of choices)."""
    return float(math.ceil(math.log2(choice_count(intrinsic_dim, attention_linear_lora_r))))


def block1_alpha_charge() -> None:
    print("[1] C1: the charge for choosing alpha among 8 values")
    charged = code_extra_bits()
    union = BASE_EXTRA_BITS + math.log2(len(pb.ALPHA_GRID))
    print(
        "    code (cumulative): "
        + ", ".join(
            glue(f"c1_code_bits_a{tag(a)}", b, "g")
            for a, b in zip(pb.ALPHA_GRID, charged, strict=True)
        )
        + " extra bits"
    )
    print(
        f"    the Occam half of a union bound: {glue('c1_base_bits', BASE_EXTRA_BITS)} + log2 "
        f"{glue('c1_grid_size', len(pb.ALPHA_GRID))} = {BASE_EXTRA_BITS} + "
        f"{glue('c1_choice_bits', math.log2(len(pb.ALPHA_GRID)), 'g')} = "
        f"{glue('c1_union_bits', union, 'g')} bits for every alpha"
    )
    diffs = []
    for alpha, bits in zip(pb.ALPHA_GRID, charged, strict=True):
        delta = pb.loss_range(alpha, V)
        diffs.append(bound(delta, bits) - bound(delta, union))
    print(
        "    bound(code) - bound(10 bits), bits per token: "
        + ", ".join(
            glue(f"c1_excess_a{tag(a)}", d, ".6f")
            for a, d in zip(pb.ALPHA_GRID, diffs, strict=True)
        )
    )
    print(
        f"    largest {glue('c1_excess_max', max(diffs), '.6f')}: conservative, and under "
        f"{glue('c1_excess_limit', 4e-4, 'g')} bits per token"
    )
    assert all(d > 0 for d in diffs) and 3e-4 < max(diffs) < 4e-4


def block2_base_bits() -> None:
    print("[2] C2: three values of the base extra bits")
    helper = {(d, r): get_extra_bits(d, r) for d in (0, 50_000) for r in (0, 4)}
    print(
        "    get_extra_bits (never called): "
        + "; ".join(f"intrinsic_dim {d}, LoRA r {r}: {b:g}" for (d, r), b in helper.items())
    )
    assert helper[(50_000, 4)] == 8.0
    print(
        f"    SubLoRA (intrinsic_dim 50,000, r 4): ceil(log2 "
        f"{glue('c2_sublora_choices', choice_count(50_000, 4))}) = "
        f"{glue('c2_helper_sublora_bits', helper[(50_000, 4)], 'g')}; "
        f"YAML {glue('c2_yaml_bits', BASE_EXTRA_BITS)}; "
        f"pipeline default {glue('c2_pipeline_default_bits', DEFAULT_EXTRA_BITS)}"
    )
    delta = pb.loss_range(0.5, V)
    top1 = {b: bound(1.0, b, train_error=0.9) for b in (5, 7, 8)}
    bpd = {b: bound(delta, b + 64) for b in (5, 7, 8)}  # alpha = 0.5 pays base + 64
    print("    top-1 bound: " + ", ".join(f"{b} bits {v:.6f}" for b, v in top1.items()))
    print("    alpha = 0.5 bound: " + ", ".join(f"{b} bits {v:.6f}" for b, v in bpd.items()))
    spread = max(bpd[8] - bpd[5], top1[8] - top1[5])
    print(
        f"    largest spread between 5 and 8 bits: {glue('c2_spread_max', spread, '.6f')} bits "
        "per token (under 0.00002)"
    )
    assert 0 < spread < 2e-5


def block3_hoeffding_union() -> None:
    print("[3] C3: the minimum over 8 alphas is not paid for in the Hoeffding root")
    rho = N_SAMPLE / (N_SAMPLE + N_POP)
    plain = math.sqrt(-math.log((1 - rho) * EPS) / (2 * N_SAMPLE))
    paid = math.sqrt((math.log(len(pb.ALPHA_GRID)) - math.log((1 - rho) * EPS)) / (2 * N_SAMPLE))
    print(
        f"    Hoeffding root {glue('c3_hoeffding_root', plain, '.6f')} -> "
        f"{glue('c3_hoeffding_root_union', paid, '.6f')} with ln "
        f"{glue('c3_grid_size', len(pb.ALPHA_GRID))} added (eps / 8 per alpha)"
    )
    extra = [pb.loss_range(a, V) * (paid - plain) for a in pb.ALPHA_GRID]
    print(
        "    Delta x difference per alpha: "
        + ", ".join(
            glue(f"c3_union_cost_a{tag(a)}", e, "+.4f")
            for a, e in zip(pb.ALPHA_GRID, extra, strict=True)
        )
    )
    assert round(min(extra), 4) == 0.0576 and round(max(extra), 4) == 0.1067
    deltas = [pb.loss_range(a, V) for a in pb.ALPHA_GRID]
    code_min = min(bound(d, b) for d, b in zip(deltas, code_extra_bits(), strict=True))
    union = pb.union_over_grid(
        train_errors=[TRAIN_ERROR] * 8,
        loss_ranges=deltas,
        complexity_nats=div_nats(BASE_EXTRA_BITS),
        n_population=N_POP,
        n_sample=N_SAMPLE,
        eps=EPS,
    )
    print(
        f"    reported minimum: code {glue('c3_code_min', code_min, '.4f')}; union bound over "
        f"the grid {glue('c3_union_min', union, '.4f')} "
        f"({glue('c3_union_excess', union - code_min, '+.4f')} bits per token)"
    )
    assert round(code_min, 4) == 6.2197 and round(union, 4) == 6.2770


def sample_nonoverlapping_sequences(
    rng: np.random.RandomState, batch_size: int, data_size: int, block_size: int
) -> np.ndarray:
    """sublora/utils.py:123-128: token positions of `batch_size` sampled sequences."""
    upper_bound = (data_size - 1) // block_size
    chunk_idx = rng.randint(0, upper_bound, size=batch_size)
    return chunk_idx[:, None] * block_size + np.arange(block_size)  # x; y reads ix + 1


def block4_sequence_sampler() -> None:
    print("[4] C4: the sequence-level sampler reaches only the start of the data")
    upper = (DATA_SIZE - 1) // BLOCK_SIZE
    last_token = (upper - 1) * BLOCK_SIZE + BLOCK_SIZE - 1 + 1  # largest index of y
    print(
        f"    chunk indices 0 to {glue('c4_last_chunk', upper - 1, ',')} ((data_size - 1) // "
        f"{glue('c4_block_size', BLOCK_SIZE)} = {glue('c4_chunk_bound', upper, ',')} of "
        f"{glue('c4_data_size', DATA_SIZE, ',')} sequences)"
    )
    print(
        f"    tokens read: 0 to {glue('c4_last_token_read', last_token, ',')} of "
        f"{glue('c4_train_tokens', TRAIN_TOKENS, ',')}, "
        f"{glue('c4_share_read_pct', 100 * (last_token + 1) / TRAIN_TOKENS, '.4f')} % of the "
        "training tokens"
    )
    rng = np.random.RandomState(SEED)
    calls = 3_000  # eval_batch_size = 6 sequences per call (config/sublora_bounds.yaml:33)
    largest = max(
        int(sample_nonoverlapping_sequences(rng, 6, DATA_SIZE, BLOCK_SIZE).max()) + 1
        for _ in range(calls)
    )
    print(f"    {6 * calls:,} sampled sequences (seed {SEED}): largest y position {largest:,}")
    assert largest <= last_token and upper == 8_617
    assert round(100 * (last_token + 1) / TRAIN_TOKENS, 3) == 0.098
    occam = math.sqrt((div_nats(71) - math.log(EPS * N_SAMPLE / (N_SAMPLE + upper))) / (2 * upper))
    print(
        f"    read as a bound on the {upper:,} reachable sequences, the Occam root alone is "
        f"{glue('c4_reachable_occam_root', occam, '.4f')}: vacuous"
    )
    assert occam > 1
    # The two candidate fixes: randint(0, upper) draws chunks 0 .. upper - 1; y reads ix + 1.
    naive_last = (DATA_SIZE - 1) * BLOCK_SIZE + BLOCK_SIZE  # upper_bound = data_size
    safe_upper = (TRAIN_TOKENS - 1) // BLOCK_SIZE  # upper_bound = (len(data) - 1) // block_size
    safe_last = (safe_upper - 1) * BLOCK_SIZE + BLOCK_SIZE
    print(
        "    fix 'upper_bound = data_size': chunk "
        f"{glue('c4_naive_last_chunk', DATA_SIZE - 1, ',')} reads y up to index "
        f"{glue('c4_naive_last_target', naive_last, ',')}, past the last "
        f"token {glue('c4_last_token_index', TRAIN_TOKENS - 1, ',')}"
    )
    print(
        f"    fix 'upper_bound = (len(data) - 1) // 1024' = "
        f"{glue('c4_full_blocks', safe_upper, ',')}: largest y index "
        f"{glue('c4_safe_last_target', safe_last, ',')}, inside the data"
    )
    assert naive_last > TRAIN_TOKENS - 1 >= safe_last


def doc_indices(tokens: np.ndarray, first_call: bool) -> tuple[np.ndarray, np.ndarray]:
    """sublora/utils.py:19-39: end-of-text positions and document lengths; trimmed on the call
    that creates the files (lines 36-37), untrimmed when they are loaded (lines 19-21)."""
    eot_idx = np.where(tokens == EOT)[0]  # UT:24-25
    shifted = np.insert(eot_idx[:-1], 0, 0)  # UT:26
    lengths = eot_idx - shifted  # UT:28
    if first_call:
        return eot_idx[:-1], lengths[1:]  # UT:36-37
    return eot_idx, lengths  # what np.load returns on later calls (UT:20-21)


def sampled_targets(
    tokens: np.ndarray, eot_idx: np.ndarray, lengths: np.ndarray, i: int
) -> tuple[int, int]:
    """sublora/utils.py:104-112 for document i: y = data[start + 1 : start + length]."""
    start = int(eot_idx[i] - lengths[i])
    return start + 1, start + int(lengths[i])


def toy_corpus(rng: np.random.Generator, n_docs: int) -> tuple[np.ndarray, list[tuple[int, int]]]:
    """Documents of random length, each closed by an end-of-text token, as prepare.py writes."""
    pieces, spans, pos = [], [], 0
    for n in rng.geometric(1 / 300, size=n_docs) + 1:
        pieces.append(np.append(rng.integers(0, EOT, size=n), EOT))
        spans.append((pos, pos + n))  # text tokens of the document, EOT excluded
        pos += n + 1
    return np.concatenate(pieces), spans


def block5_doc_indices() -> None:
    print("[5] C5: document windows on the call that creates the index files vs later calls")
    tokens, spans = toy_corpus(np.random.default_rng(SEED), 10_000)
    for first in (True, False):
        eot_idx, lengths = doc_indices(tokens, first)
        good = short = long = 0
        for i in range(len(eot_idx)):
            lo, hi = sampled_targets(tokens, eot_idx, lengths, i)
            s_lo, s_hi = spans[i]  # the document closed by the end-of-text token eot_idx[i]
            s_lo = max(s_lo, 1)  # document 0: its first token is never a target (see below)
            good += (lo, hi) == (s_lo, s_hi)
            short += lo > s_lo  # starts inside the document: its beginning is never scored
            long += lo < s_lo  # reaches back into earlier documents
        name = "first call (trimmed)" if first else "later calls"
        key = "c5_first" if first else "c5_later"  # c5_first_docs ... c5_later_long
        print(
            f"    {name}: {glue(f'{key}_docs', len(eot_idx), ',')} documents; "
            f"{glue(f'{key}_correct', good, ',')} delimited correctly, "
            f"{glue(f'{key}_short', short, ',')} cut short, "
            f"{glue(f'{key}_long', long, ',')} running into earlier documents"
        )
        if first:
            assert good < 0.01 * len(eot_idx) and short > 4_000 and long > 4_000
        else:
            assert good == len(eot_idx) == 10_000
    print("    first call: the window of the document closed at e_i gets the length of the next")
    print("    document, so it is right only when two neighbours happen to have equal lengths")
    print("    later calls: targets run from the document's first token to its last text token;")
    print("    document 0 has no end-of-text token before it, so its first token is never a target")
    worst = [pb.loss_range(a, V) / N_SAMPLE for a in (1e-4, 0.5)]
    print(
        f"    one wrong document of n = {glue('c5_n_sample', N_SAMPLE, ',')} moves the mean loss "
        f"by at most Delta / n: {glue('c5_shift_a0p0001', worst[0], '.5f')} (alpha 1e-4) to "
        f"{glue('c5_shift_a0p5', worst[1], '.5f')} (alpha 0.5) bits per token"
    )


def top_k_counts(top_k_indices: np.ndarray) -> dict[int, int]:
    """bound_utils.py:93 and 115-139: counts of ranks below k, by the code's while loops."""
    unique_indices, indices_counts = np.unique(top_k_indices, return_counts=True)
    out = {}
    for k in TOP_KS:
        acc, i = 0, 0
        while unique_indices[i] < k:  # BU:118, 127, 135: no check that i stays in range
            acc += int(indices_counts[i])
            i += 1
        out[k] = acc
    return out


def crashes(ranks: np.ndarray) -> bool:
    try:
        top_k_counts(ranks)
    except IndexError:
        return True
    return False


def block6_top_k() -> None:
    print("[6] C6: IndexError in the top-k loop")
    for ranks in ([0, 0, 0], [0, 2, 5, 40], [0, 2, 5, 140]):
        arr = np.array(ranks)
        print(
            f"    ranks {ranks}: "
            + ("IndexError" if crashes(arr) else f"top-1 count {top_k_counts(arr)[1]}, fine")
        )
    assert crashes(np.array([0, 0, 0])) and not crashes(np.array([0, 2, 5, 140]))
    rng = np.random.default_rng(SEED)
    agree, trials = 0, 20_000
    for _ in range(trials):
        m = int(rng.integers(1, 30))
        ranks = rng.geometric(rng.uniform(0.02, 0.9), size=m) - 1
        agree += crashes(ranks) == (ranks.max() < 100)
    print(
        f"    {glue('c6_random_vectors', trials, ',')} random rank vectors (seed {SEED}): "
        f"crash <=> every rank below 100 in {glue('c6_agree', agree, ',')} of {trials:,}"
    )
    assert agree == trials
    print("    if each token of an m-token document ranked in the top 100 independently with")
    print("    probability q, the run would stop with probability q^m:")
    for q in (0.9, 0.95, 0.99):
        key = f"c6_q{tag(q)}"  # c6_q0p9 ... c6_q0p99_m1000_stop
        print(
            f"    q = {glue(key, q)}: "
            + ", ".join(
                f"m = {glue(f'{key}_m{m}_tokens', m)}: {glue(f'{key}_m{m}_stop', q**m, '.3g')}"
                for m in (10, 100, 1000)
            )
        )


def main() -> None:
    print("Code errata C1-C6 -- measured on re-implemented lines (ch14_code_errata.py)")
    block1_alpha_charge()
    block2_base_bits()
    block3_hoeffding_union()
    block4_sequence_sampler()
    block5_doc_indices()
    block6_top_k()
    print("All assertions passed.")


if __name__ == "__main__":
    main()
