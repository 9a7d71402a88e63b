"""Chapter 21: the numbers that flow through the authors' pipeline, recomputed stage by stage.

Every setting below is read off the authors' repository (github.com/Sanaelotfi/
sublora-bounds-for-llms at commit c606ea6; file:line in the chapter); this script re-derives
what follows from them with the book's own functions (`pacbound`), so a reader can check each.

Claims, numbered as the output blocks:
  [1] Data: 8,013,769 OpenWebText documents, 4,007 held out, N = 8,009,762 training documents
      (the pipeline's num_docs); 9,035,582,198 training tokens make 8,823,811 sequences of 1024
      tokens (data_size), rounded up.
  [2] What is trained: GPT-2 small's LoRA tensors (rank 4 on query, value and head) hold
      351,744 numbers; SubLoRA trains d = 50,000 coordinates that move all of them through the
      "rdkronqr" projector, whose Kronecker factors are 593 x 223 with a 95 x 271 remainder block.
  [3] What is coded: 11 levels; the codebook costs 11 x 16 = 176 bits and the symbol counts
      11 x 16 = 176 bits; a Gaussian w of 50,000 numbers with standard deviation 0.01 codes in
      about 115,800 bits, about 2.3 bits per number; the authors' prefix code K = L + 2 log2 L,
      one bit below the book's L + 2 log2 L + 1, valid for bit strings of every length (over all
      lengths the Kraft sum of the first is pi^2/6 > 1, because of L = 1 alone).
  [4] Extra bits: top-k errors pay 7; the loop over the eight smoothing weights adds 8 bits per
      weight, cumulatively (15, 23, ..., 71), where the base 7 plus a union over eight choices
      needs 10; the surplus of 61 bits scales the Occam root by at most 1.0003.
  [5] The bound for a toy input (train error 5 bits per token, L = 100,000 bits, N = 8 x 10^6,
      n = 10,000): 7.2569 bits per token at alpha = 1e-4 down to 6.2197 at alpha = 0.5 with the
      code's rule; the top-1 analogue 0.97808.
  [6] The method's stages in order (the training run, then the bound run), with the numbers each
      hands on (figure ch21_pipeline.png).
Deterministic: numpy only, seed 0 for the Gaussian example.
Every value the chapter quotes is printed through `glue(name, ...)` (script_glue.py), so that the
page refers to it by name.
"""

from __future__ import annotations

import math

import numpy as np
import pacbound
import script_io
from script_glue import glue

# settings of the authors' code, with where they are set (commit c606ea6)
DOCS_TOTAL = 8_013_769  # data/openwebtext/prepare.py:20
TEST_SIZE = 0.0005  # data/openwebtext/prepare.py:24
NUM_DOCS = 8_009_762  # sublora/sublora_pipeline.py:59
TRAIN_TOKENS = 9_035_582_198  # data/openwebtext/prepare.py:76
DATA_SIZE = 8_823_811  # sublora/sublora_pipeline.py:58
BLOCK_SIZE = 1_024  # config/sublora_bounds.yaml:8
N_LAYER, N_EMBD = 12, 768  # sublora/utils.py:141-144 (model_size "small")
LORA_RANK = 4  # config/sublora_bounds.yaml:26-27
INTRINSIC_DIM = 50_000  # config/sublora_bounds.yaml:29
LEVELS = 11  # config/sublora_bounds.yaml:35
BOUND_SAMPLES = 10_000  # config/sublora_bounds.yaml:36
MISC_EXTRA_BITS = 7  # config/sublora_bounds.yaml:39
ALPHAS = (0.0001, 0.001, 0.005, 0.01, 0.05, 0.1, 0.25, 0.5)  # sublora/sublora_pipeline.py:556
VOCAB = 50_257  # sublora/sublora_pipeline.py:57
EPS = 0.05  # sublora/bounds/compute_bounds.py:5
SEED = 137  # sublora/sublora_pipeline.py:434; sublora/nn/create_model.py:58
LR, WD, BETAS = 5e-3, 1e-2, (0.9, 0.999)  # config/sublora_train.yaml:19-22
BATCH, ACCUM = 8, 40  # config/sublora_train.yaml:7, 12


def block1() -> None:
    held_out = DOCS_TOTAL - NUM_DOCS
    sequences = TRAIN_TOKENS / BLOCK_SIZE
    print(f"[1] data: {glue('docs_total', DOCS_TOTAL, ',')} documents; test_size "
          f"{glue('test_size', TEST_SIZE)} holds out {glue('held_out', held_out, ',')}; "
          f"N = {glue('num_docs', NUM_DOCS, ',')} training documents (num_docs)")
    print(f"    {glue('train_tokens', TRAIN_TOKENS, ',')} training tokens / "
          f"{glue('block_size', BLOCK_SIZE)} = {glue('sequences', sequences, ',.2f')} sequences; "
          f"data_size = {glue('data_size', DATA_SIZE, ',')}")
    assert held_out == round(DOCS_TOTAL * TEST_SIZE) == 4_007
    assert math.ceil(sequences) == DATA_SIZE


def block2() -> None:
    D = pacbound.gpt2_lora_params(N_LAYER, N_EMBD, r=LORA_RANK)
    (D1, d1), (De, de) = pacbound.kron_shapes(D, INTRINSIC_DIM)
    print(f"[2] GPT-2 small: {glue('n_layer', N_LAYER)} layers, width {glue('n_embd', N_EMBD)}; "
          f"LoRA rank {glue('lora_rank', LORA_RANK)} on query, "
          f"value ({glue('lora_blocks', N_LAYER)} blocks) and head: D = "
          f"{glue('lora_numbers', D, ',')} numbers; SubLoRA trains d = "
          f"{glue('intrinsic_dim', INTRINSIC_DIM, ',')} coordinates that move all of them "
          f"({glue('d_share', 100 * INTRINSIC_DIM / D, '.1f')} % of D)")
    print(f"    rdkronqr: Kronecker factors {D1} x {d1} (each), remainder block {De} x {de}; "
          f"{D1}^2 + {De} = {D1 * D1 + De:,} rows, {d1}^2 + {de} = {d1 * d1 + de:,} columns")
    print(f"    seeds: torch.manual_seed({glue('torch_seed', SEED)}) and projector seed "
          f"{glue('projector_seed', SEED)}; training: AdamW, learning "
          f"rate {glue('learning_rate', LR, 'g')}, weight decay {glue('weight_decay', WD, 'g')}, "
          f"betas ({glue('beta1', BETAS[0])}, {glue('beta2', BETAS[1])}), batches of "
          f"{glue('batch', BATCH)} sequences x {glue('accum_steps', ACCUM)} accumulation steps")
    assert D == 351_744 and (D1, d1, De, de) == (593, 223, 95, 271)
    assert D1 * D1 + De == D and d1 * d1 + de == INTRINSIC_DIM


def block3() -> float:
    sd = 0.01  # the stand-in's scale; the bins scale with the largest entry
    w = np.random.default_rng(0).normal(0.0, sd, INTRINSIC_DIM)
    codes, _ = pacbound.quantize_uniform(w, LEVELS)
    parts = pacbound.message_parts(codes, LEVELS)
    h = pacbound.empirical_entropy_bits(codes, LEVELS)
    print(f"[3] {glue('levels', LEVELS)} levels, {glue('codebook_float_bits', 16)}-bit codebook: "
          f"codebook {LEVELS} x 16 = {glue('codebook', parts.codebook)} bits, "
          f"counts {LEVELS} "
          f"x ceil(log2 {INTRINSIC_DIM:,}) = {glue('counts', parts.counts)} bits")
    print(f"    w Gaussian with sd {glue('sigma', sd)}, d = {INTRINSIC_DIM:,} (seed 0): "
          f"H = {glue('entropy', h, '.2f')} bits per number, "
          f"symbols {glue('coded', parts.coded, ',')} bits, message L = "
          f"{glue('message', parts.total, ',')} bits "
          f"({parts.total / INTRINSIC_DIM:.2f} bits per number)")
    authors_k = pacbound.authors_prefix_code_bits(parts.total)
    book_k = pacbound.prefix_code_bits(parts.total)
    print(f"    prefix code K = L + 2 log2 L = {glue('authors_k', authors_k, ',.1f')} bits (the "
          f"authors'; the book's L + 2 log2 L + 1, valid for bit strings of every length, = "
          f"{glue('book_k', book_k, ',.1f')})")
    kraft = math.pi ** 2 / 6  # sum over L >= 1 of 2^L strings x 2^-(L + 2 log2 L) = sum 1/L^2
    print(f"    Kraft sum of L + 2 log2 L over every length L >= 1: pi^2/6 = {kraft:.3f}; "
          f"without L = 1: {kraft - 1:.3f}; with the extra bit: {kraft / 2:.3f}")
    print(f"    "
          f"codebook + counts = {parts.codebook + parts.counts} bits, "
          f"{glue('overhead_share', 100 * (parts.codebook + parts.counts) / parts.total, '.2f')}"
          " % of L")
    assert parts.codebook == parts.counts == 176 and 2.2 < h < 2.4
    assert book_k - authors_k == 1.0
    assert kraft > 1 > kraft - 1 and kraft / 2 < 1
    return authors_k


def block4(authors_k: float) -> None:
    extra, charged = MISC_EXTRA_BITS, []
    for _ in ALPHAS:
        extra += math.ceil(len(ALPHAS))  # the code's cumulative charge, once per alpha
        charged.append(extra)
    charges = ", ".join(glue(f"charge_alpha{a:g}".replace(".", "p"), c)
                        for a, c in zip(ALPHAS, charged, strict=True))
    print(f"[4] extra bits: top-k keys pay {glue('topk_extra_bits', MISC_EXTRA_BITS)}; the alphas "
          f"pay {charges}; the base {glue('union_base_bits', MISC_EXTRA_BITS)} plus a union over "
          f"{len(ALPHAS)} alphas needs {MISC_EXTRA_BITS} + log2 "
          f"{glue('union_choices', len(ALPHAS))} = "
          f"{glue('union_bits', MISC_EXTRA_BITS + math.log2(len(ALPHAS)), 'g')}")
    surplus = charged[-1] - (MISC_EXTRA_BITS + math.log2(len(ALPHAS)))
    factor = math.sqrt(1 + surplus / authors_k)
    print(f"    surplus at the last alpha: {glue('surplus_bits', surplus, 'g')} bits; next to "
          f"the K of block [3] it scales the Occam root by at most sqrt(1 + {surplus:g}/K) = "
          f"{glue('occam_factor', factor, '.4f')}")
    assert charged[0] == 15 and charged[-1] == 71 and factor < 1.001


def block5() -> None:
    train_error, message, N, n = 5.0, 100_000, 8_000_000, BOUND_SAMPLES
    K = pacbound.authors_prefix_code_bits(message)
    print(f"[5] toy input: train error {glue('toy_train_error', train_error)} bits per token, "
          f"L = {glue('toy_message', message, ',')} bits (K = {glue('toy_k', K, ',.2f')}), "
          f"N = {glue('toy_N', N, ',')}, n = {glue('bound_samples', n, ',')}, epsilon = "
          f"{glue('eps', EPS)}")
    extra, rows = MISC_EXTRA_BITS, []
    for a in ALPHAS:
        extra += 8
        b = pacbound.subsampling_bound(train_error=train_error, loss_range=pacbound.loss_range(
            a, VOCAB), complexity_nats=(K + extra) * math.log(2), n_population=N, n_sample=n)
        rows.append(b)
        key = f"alpha{a:g}".replace(".", "p")  # alpha0p0001 ... alpha0p5
        print(f"    alpha {glue(f'toy_{key}', a, '<6g')}  "
              f"extra {glue(f'toy_extra_{key}', extra, '2d')} bits  "
              f"range {glue(f'toy_range_{key}', pacbound.loss_range(a, VOCAB), '.4f')}  "
              f"bound {glue(f'toy_bound_{key}', b, '.4f')}")
    top1_error, top1_range = 0.9, 1.0
    top1 = pacbound.subsampling_bound(
        train_error=top1_error, loss_range=top1_range,
        complexity_nats=(K + MISC_EXTRA_BITS) * math.log(2), n_population=N, n_sample=n)
    print(f"    top-1 analogue (train error {glue('top1_train_error', top1_error)}, range "
          f"{glue('top1_range', top1_range, 'g')}, "
          f"{glue('top1_extra_bits', MISC_EXTRA_BITS)} extra bits): "
          f"{glue('top1_bound', top1, '.5f')}")
    assert f"{rows[0]:.4f}" == "7.2569" and f"{rows[-1]:.4f}" == "6.2197"
    assert f"{top1:.5f}" == "0.97808"


STAGES = [  # (stage, what it hands on), in the order the method runs them
    ("data", "N = 8,009,762\ndocuments"),
    ("train", "w: d = 50,000\nnumbers"),
    ("rebuild", "θ₀, P\nfrom seed 137"),
    ("quantize", "11 levels,\ncodebook"),
    ("code", "message L,\nK = L + 2 log2 L"),
    ("sample", "n = 10,000\ndocuments"),
    ("score", "q(true token),\nrank"),
    ("smooth", "8 alphas,\nmean per doc"),
    ("bound", "min over alpha\nof the bound"),
]


def block6() -> None:
    print(f"[6] stages of the method (training run, then bound run), in order: "
          f"{', '.join(s for s, _ in STAGES)}")
    print("    the message (quantize, code) and the risk (sample, score, smooth) meet in the bound")
    assert len(STAGES) == 9 and STAGES[-1][0] == "bound"
    figure()


def figure() -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyBboxPatch

    fig, ax = plt.subplots(figsize=(5.5, 6.6))
    ax.set_xlim(0, 5.5)
    ax.set_ylim(0, 6.6)
    ax.axis("off")
    # left column, top to bottom: data -> train -> rebuild -> quantize -> code; right column:
    # sample -> score -> smooth; both columns end in the bound (coordinates in inches)
    left, right, top, step = 0.15, 3.35, 5.5, 1.3
    pos = {name: (left, top - k * step)
           for k, name in enumerate(["data", "train", "rebuild", "quantize", "code"])}
    pos.update({name: (right, top - (k + 1) * step)
                for k, name in enumerate(["sample", "score", "smooth", "bound"])})
    colors = {"data": "#F0E442", "train": "#56B4E9", "rebuild": "#56B4E9",
              "quantize": "#CC79A7", "code": "#CC79A7", "sample": "#009E73",
              "score": "#009E73", "smooth": "#009E73", "bound": "#D55E00"}
    w, h = 2.0, 0.95
    for name, note in STAGES:
        x, y = pos[name]
        ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0.04", fc=colors[name],
                                    ec="black", lw=0.8, alpha=0.85))
        ax.text(x + w / 2, y + 0.72, name, ha="center", va="center", fontsize=10,
                fontweight="bold")
        ax.text(x + w / 2, y + 0.32, note, ha="center", va="center", fontsize=10)
    arrows = [("data", "train"), ("train", "rebuild"), ("rebuild", "quantize"),
              ("quantize", "code"), ("sample", "score"), ("score", "smooth"), ("smooth", "bound")]
    for a, b in arrows:  # down a column
        (xa, ya), (xb, yb) = pos[a], pos[b]
        ax.annotate("", xy=(xb + w / 2, yb + h + 0.06), xytext=(xa + w / 2, ya - 0.06),
                    arrowprops={"arrowstyle": "->", "lw": 1.2})
    for src, target, label in (("code", "bound", "K"),
                               ("quantize", "score", "the model,\nquantized")):
        (xs, ys), yt = pos[src], pos[target][1]
        ax.annotate("", xy=(pos[target][0] - 0.06, yt + h / 2), xytext=(xs + w + 0.06, ys + h / 2),
                    arrowprops={"arrowstyle": "->", "lw": 1.2})
        ax.text(xs + w + 0.6, yt + h / 2 + 0.08, label, ha="center", va="bottom", fontsize=10)
    xd, yd = pos["data"]
    ax.annotate("", xy=(pos["sample"][0] + w / 2, pos["sample"][1] + h + 0.06),
                xytext=(xd + w + 0.06, yd + h / 2),
                arrowprops={"arrowstyle": "->", "lw": 1.2,
                            "connectionstyle": "angle,angleA=0,angleB=90"})
    ax.text(xd + w + 0.2, yd + h / 2 + 0.08, "training documents", fontsize=10)
    fig.tight_layout()
    script_io.save_figure(fig, "ch21_pipeline.png")


def main() -> None:
    print("Chapter 21 -- the authors' pipeline, number by number (ch21_pipeline.py)")
    block1()
    block2()
    block4(block3())
    block5()
    block6()
    print("All assertions passed.")


if __name__ == "__main__":
    main()
