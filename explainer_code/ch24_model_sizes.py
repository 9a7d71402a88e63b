"""Chapter 24: the paper's model sizes, what each number counts, and what size means for the bound.

Claims, numbered as the output blocks:
  [1] The five sizes 124M ... 849M match nanoGPT's count (tied head counted once, biases in,
      position embedding out; that this is the labels' rule is the book's inference) of the
      shapes in the authors' get_model_config; other rules give other numbers (position
      embedding in; bias-free; the authors' get_num_params). The table's two other shapes,
      small-medium and vlarge, are not among the paper's sizes.
  [2] What the 124M label holds, piece by piece: token table, blocks, final LayerNorm; what it
      leaves out (position embedding, LoRA factors, an untied head) and the padding of the
      vocabulary from 50,257 to 50,304.
  [3] At the config's d = 50,000, a stand-in w (Gaussian, seed 0) quantized to 11 levels has one
      L and one K whatever the model size; only bits per parameter change.
  [4] Coding every weight instead: the message grows with the parameter count, and the
      complexity term of the bound grows with its square root, far past any useful range.
Sources: shapes [SOURCE: sublora/utils.py:140-178 @c606ea6], config intrinsic_dim and levels
[SOURCE: config/sublora_bounds.yaml:29,35 @c606ea6], OpenWebText's training documents
[SOURCE: nanoGPT data/openwebtext/prepare.py:23-35 @3adf61e].
Every value the chapter quotes is printed through `glue(name, ...)` (script_glue.py), so that the
page refers to it by name; a row's names start with its get_model_config name (small_nano,
k_large_vlarge_per_param, all_small_term).
"""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pacbound
import script_io
from pacbound.params import (
    authors_num_params,
    gpt2_components,
    gpt2_lora_params,
    gpt2_params,
    gpt2_pieces,
)
from script_glue import glue

VOCAB, OPENAI_VOCAB, CONTEXT = 50_304, 50_257, 1_024
# label -> (get_model_config name, n_layer, n_head, n_embd)   [SOURCE: sublora/utils.py:140-178]
SIZES = {
    "124M": ("small", 12, 12, 768),
    "354M": ("medium", 24, 16, 1024),
    "458M": ("medium-large", 20, 20, 1280),
    "773M": ("large", 36, 20, 1280),
    "849M": ("large-vlarge", 25, 25, 1600),
}
D_SUB, LEVELS, LORA_RANK = 50_000, 11, 4  # [SOURCE: config/sublora_bounds.yaml:26-29, 35]
N_OWT, N_SAMPLE, EPS = 8_009_762, 10_000, 0.05  # nanoGPT prepare.py:34; config:36; the book's
SEED = 0
HEAD_DIM = 64  # n_embd / n_head of every shape of the paper's list


def key_of(label: str) -> str:
    """'458M' -> 'medium_large': the get_model_config name, as a glued name's first part."""
    return SIZES[label][0].replace("-", "_")


def label_of(count: int) -> str:
    """123,689,472 -> '124M' (millions, rounded half up as the labels are)."""
    return f"{math.floor(count / 1e6 + 0.5)}M"


def occam_term(k_bits: float, n_population: int, n_sample: int, eps: float) -> float:
    """U_Occ = sqrt((K ln 2 - ln(rho epsilon)) / (2 N)), rho = n / (n + N), b = 0: the bound's
    complexity term before it is multiplied by the loss range (Chapter 14)."""
    rho = n_sample / (n_sample + n_population)
    return math.sqrt((k_bits * math.log(2) - math.log(rho * eps)) / (2 * n_population))


def block1() -> dict[str, int]:
    print("[1] The paper's sizes: the shapes of the authors' get_model_config, counted four ways")
    print("    label  name          (n_layer,n_head,n_embd)  nanoGPT count   rounds  "
          "+ position emb.  bias-free      get_num_params, default layout")
    counts = {}
    for label, (name, n_layer, n_head, n_embd) in SIZES.items():
        nano = gpt2_params(n_layer, n_embd, VOCAB)
        with_pos = gpt2_params(n_layer, n_embd, VOCAB, include_pos=True)
        bias_free = gpt2_params(n_layer, n_embd, VOCAB, bias=False)
        authors = authors_num_params(n_layer, n_embd, LORA_RANK, VOCAB, use_mergedlinear=False)
        counts[label] = nano
        key = key_of(label)
        print(f"    {glue(f'{key}_label', label, '>5')}  {name:<12}  "
              f"({n_layer:2},{n_head:2},{n_embd:5})         {glue(f'{key}_nano', nano, '>13,')}   "
              f"{glue(f'{key}_rounds', label_of(nano), '>5')}  "
              f"{glue(f'{key}_with_pos', with_pos, '>13,')}  "
              f"{glue(f'{key}_bias_free', bias_free, '>13,')}  "
              f"{glue(f'{key}_authors', authors, '>13,')}")
        assert label_of(nano) == label and n_embd // n_head == HEAD_DIM
        assert with_pos - nano == CONTEXT * n_embd and bias_free < nano < with_pos
    medium_small = gpt2_params(16, 1024, VOCAB)
    vlarge = gpt2_params(48, 1600, VOCAB)  # get_model_config's last entry, sublora/utils.py:171-174
    print(f"    the table also holds 'small-medium' (16,16,1024): "
          f"{glue('small_medium_nano', medium_small, ',')} "
          f"({label_of(medium_small)}) and 'vlarge' (48,25,1600): "
          f"{glue('vlarge_nano', vlarge, ',')} ({label_of(vlarge)}), "
          f"sizes the paper's list does not contain")
    print(f"    every shape of the paper's list has heads of {glue('head_dim', HEAD_DIM)} numbers "
          f"(n_embd / n_head = {HEAD_DIM}); n_head enters no count")
    assert label_of(medium_small) not in SIZES and label_of(vlarge) not in SIZES
    return counts


def block2() -> None:
    n_layer, n_embd = 12, 768
    p = gpt2_pieces(n_embd, VOCAB)
    c = gpt2_components(n_layer, n_embd, VOCAB)
    total = gpt2_params(n_layer, n_embd, VOCAB)
    blocks = n_layer * p.block
    biases = total - gpt2_params(n_layer, n_embd, VOCAB, bias=False)
    lora = gpt2_lora_params(n_layer, n_embd, LORA_RANK, VOCAB)
    pad = (VOCAB - OPENAI_VOCAB) * n_embd
    print(f"[2] What '{glue('held_label', label_of(total))}' holds, (12, 12, 768)")
    print(f"    token table {VOCAB:,} x {n_embd} = {glue('token_table', p.wte, ',')} "
          f"({glue('token_share', 100 * p.wte / total, '.1f')} %), also the output head (tied), "
          f"counted once")
    print(f"    {n_layer} blocks x {p.block:,} = {glue('blocks_total', blocks, ',')} (attention "
          f"{c.attention:,}, MLP {c.mlp:,}, LayerNorms {c.layernorm - p.ln_f:,}); final LayerNorm "
          f"{glue('final_ln', p.ln_f, ',')}")
    print(f"    total {p.wte:,} + {blocks:,} + {p.ln_f:,} = {total:,}, of which biases "
          f"{glue('biases', biases, ',')}")
    untied = total + p.wte
    print(f"    left out: position embedding {CONTEXT:,} x {n_embd} = "
          f"{glue('pos_emb', p.wpe, ',')}; the rank-{LORA_RANK} LoRA factors "
          f"{glue('lora_factors', lora, ',')}")
    print(f"    an untied head would add {p.wte:,}: {untied:,} "
          f"({glue('untied_label', label_of(untied))})")
    print(f"    vocabulary padded from {glue('openai_vocab', OPENAI_VOCAB, ',')} to "
          f"{glue('vocab_padded', VOCAB, ',')}: {VOCAB - OPENAI_VOCAB} rows x {n_embd} = "
          f"{glue('pad_numbers', pad, ',')} numbers in rows that stand for no token")
    assert p.wte + blocks + p.ln_f == total == 123_689_472
    assert c.token_embedding + c.attention + c.mlp + c.layernorm == total


def stand_in_message() -> tuple[pacbound.MessageParts, float]:
    w = np.random.default_rng(SEED).normal(size=D_SUB)
    codes, _ = pacbound.quantize_uniform(w, LEVELS)
    return pacbound.message_parts(codes, LEVELS), pacbound.empirical_entropy_bits(codes, LEVELS)


def block3(counts: dict[str, int]) -> tuple[float, float]:
    m, h = stand_in_message()
    L = m.total
    K = pacbound.prefix_code_bits(L)
    term = occam_term(K, N_OWT, N_SAMPLE, EPS)
    print(f"[3] Fixed subspace dimension d = {glue('d_sub', D_SUB, ',')}, "
          f"{glue('levels', LEVELS)} levels: a stand-in w (Gaussian, seed {glue('seed', SEED)}), "
          f"entropy {glue('entropy', h, '.4f')} bits per symbol")
    print(f"    L = {glue('coded', m.coded, ',')} + {glue('codebook', m.codebook)} + "
          f"{glue('counts', m.counts)} = {glue('message', L, ',')} bits; "
          f"K = L + 2 log2 L + 1 = {glue('k_bits', K, ',.1f')} bits ({K - L:.1f} bits of prefix)")
    print("    label  parameters      K (bits)    K per parameter")
    for label, count in counts.items():
        key = key_of(label)
        print(f"    {glue(f'k_{key}_label', label, '>5')}  {count:>13,}   {K:>10,.1f}    "
              f"{glue(f'k_{key}_per_param', K / count, '.2e')}")
    print(f"    complexity term sqrt((K ln 2 - ln(rho epsilon)) / (2N)), N = "
          f"{glue('n_owt', N_OWT, ',')} documents, n = {glue('n_sample', N_SAMPLE, ',')}, "
          f"epsilon = {glue('eps', EPS)}: {glue('term_sub', term, '.4f')} for every size")
    assert abs(2 * math.log2(L) + 1 - (K - L)) < 1e-9 and term < 0.1
    return h, term


def block4(counts: dict[str, int], h: float, term_sub: float) -> list[tuple[int, float]]:
    print("[4] Coding every parameter instead, at the same entropy per symbol "
          f"({glue('all_entropy', h, '.4f')} bits; codebook and counts left out)")
    print("    label  L = D x H (bits)   complexity term")
    rows = []
    for label, count in counts.items():
        L = count * h
        K = pacbound.prefix_code_bits(L)
        term = occam_term(K, N_OWT, N_SAMPLE, EPS)
        rows.append((count, K))
        key = key_of(label)
        print(f"    {glue(f'all_{key}_label', label, '>5')}  "
              f"{glue(f'all_{key}_bits', L, '>16,.0f')}   {glue(f'all_{key}_term', term, '.3f')}")
        assert term > 1.0
    print(f"    at d = {D_SUB:,}: {term_sub:.4f}; the term multiplies the loss range, so above "
          f"{glue('vacuous_term', 1)} it alone exceeds the range and the bound is vacuous")
    return rows


def draw(counts: dict[str, int], k_sub: float, rows: list[tuple[int, float]]) -> None:
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(5.5, 8.6), layout="constrained")
    labels = list(counts)
    parts = {"token table (= head)": [], "attention": [], "MLP": []}  # LayerNorms: < 0.1 %
    for label in labels:
        _, n_layer, _, n_embd = SIZES[label]
        c = gpt2_components(n_layer, n_embd, VOCAB)
        for key, value in zip(parts, c[:3], strict=True):
            parts[key].append(100 * value / counts[label])
    left = np.zeros(len(labels))
    colours = ["#0072B2", "#E69F00", "#009E73"]
    for (key, values), colour in zip(parts.items(), colours, strict=True):
        ax1.barh(labels, values, left=left, color=colour, label=key)
        left += np.array(values)
    ax1.invert_yaxis()
    ax1.set_xlabel("share of nanoGPT's count (%)")
    ax1.set_title("What each size label counts")
    ax1.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, frameon=False)
    xs = [c for c, _ in rows]
    ax2.loglog(xs, [k for _, k in rows], "o-", color="#D55E00", label="every weight coded")
    ax2.loglog(xs, [k_sub] * len(xs), "s-", color="#0072B2", label=f"subspace, d = {D_SUB:,}")
    for i, (label, x) in enumerate(zip(labels, xs, strict=True)):
        ax2.annotate(label, (x, k_sub), textcoords="offset points",
                     xytext=(0, 6 if i % 2 == 0 else -16), fontsize=10, ha="center")
    ax2.set_xticks([2e8, 4e8, 8e8], ["200M", "400M", "800M"])
    ax2.xaxis.set_minor_formatter(plt.NullFormatter())
    ax2.set_xlabel("parameters (nanoGPT's count)")
    ax2.set_ylabel("prefix-code length K (bits)")
    ax2.set_title("The bound pays for the message, not the size")
    ax2.set_ylim(bottom=k_sub / 3)  # room for the labels below the subspace line
    ax2.legend()
    script_io.save_figure(fig, "ch24_sizes.png")
    plt.close(fig)


def main() -> None:
    print("Chapter 24 -- model sizes (ch24_model_sizes.py)")
    counts = block1()
    block2()
    h, term_sub = block3(counts)
    rows = block4(counts, h, term_sub)
    m, _ = stand_in_message()
    draw(counts, pacbound.prefix_code_bits(m.total), rows)
    print("All assertions passed.")


if __name__ == "__main__":
    main()
