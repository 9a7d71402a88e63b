"""Chapter 5: where the parameter counts of the paper's GPT-2 models come from.

Claims, numbered as the output blocks:
  [1] GPT-2 small (12 layers, n_embd 768, 12 heads; SECONDARY: paper App. E, p. 16) has 123,689,472
      parameters in nanoGPT's convention (padded vocabulary 50,304, tied head, no position
      embedding), piece by piece: the paper's "124M".
  [2] How those parameters split between token embedding, attention, MLPs and LayerNorms, and
      what rank-4 LoRA on W_Q, W_V and the head adds.
  [3] The paper's sizes 354M, 458M, 773M, 849M (SECONDARY: paper §6.4, Table 3) follow the same
      count. The
      shapes of 458M and 849M are INFERRED from the sizes; their head counts (20, 25) come from the
      authors' code [SOURCE: sublora/utils.py, get_model_config], since heads do not change the
      count. With a GPT-2 width exactly one shape rounds to each of the five labels. OpenAI's
      checkpoint convention for comparison.
  [4] Figure 3's x-positions, as recorded in data/fig3_x_positions.json (copied from a secondary
      source), match the authors' count: all parameter tensors of the bias-free LoRA model with a
      fused c_attn [SOURCE: sublora/nn/model.py].
  [5] Every formula checked against torch modules built on the "meta" device (shapes only).
  [6] The eight gaps between Figure 3's x-positions and the authors' count, in parameters: all
      positive (+10 to +141); independent reading errors, as likely on either side, would put all
      eight on the same side with probability 2^-7. The offsets (ppm) fitted by least squares as
      a + b ln(count), the form a log axis calibrated with a slightly wrong position and scale
      gives (to first order, x = A count^B with B - 1 = b / 10^6): largest residual, against a
      fixed ratio (a shifted log axis alone); the same for a layout counting
      n_embd more (nanoGPT's biases, LoRA on one attention matrix per block and the head; E44).
  [7] Other LoRA layouts (W_K or W_O as well, or no head) change the count by far more than
      the gaps: of these four, only LoRA on two attention matrices per block and the head fits
      Figure 3; layouts outside these four may fit too, so the code, not the count, says which
      matrices (query and value; the E44 question, shown).
  [8] The shape tables: the authors' get_model_config [SOURCE: sublora/utils.py:140-178] knows
      seven sizes and only one Figure 3 shape; nanoGPT's from_pretrained table [SOURCE: nanoGPT
      model.py:216-221] gives GPT-2 XL as 48 layers, 25 heads, n_embd 1,600.
  [9] GPT-2 small counted by each convention the book uses, in one table: nanoGPT's count (the
      paper's "124M"), the same without biases, every tensor of nanoGPT's model (position
      embedding added), OpenAI's released checkpoint (V = 50,257 rows, position embedding
      included), and the authors' code's count of its LoRA model in the fused layout (position
      embedding, c_attn bias and LoRA factors added), the count Figure 3's recovered x-positions
      fit (block [4]; which layout the figure's runs used is inferred, not known), and in the
      separate layout (the pipeline's default, no c_attn bias); each rounded to millions. Then
      the same rules for all five labelled shapes: of those tried, only nanoGPT's count rounds to
      all five labels.
Figure: ch05_param_shares.png (parameter shares of the 8 sweep shapes and the 4 larger variants;
the token table's share falls as n_layer x n_embd grows, not with the total: 849M keeps more of it
than 773M).
Deterministic; pure integer arithmetic apart from the figure; no randomness. Every printed number
is asserted to its printed digits, against the closed forms below (written out here, apart from
pacbound) or exact fractions; block [5] checks the closed forms against torch modules.
"""

from __future__ import annotations

import json
import math
import re
from fractions import Fraction
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import pacbound as pb
import torch
from script_glue import END, SEP, START, glue
from script_io import save_figure
from torch import nn

SCRIPT_DIR = Path(__file__).resolve().parent
FIG3_DATA = SCRIPT_DIR / "data" / "fig3_x_positions.json"
FIGURE_NAME = "ch05_param_shares.png"

V_PAD = pb.NANOGPT_VOCAB_SIZE  # 50,304 rows in nanoGPT's embedding      [SOURCE: nanoGPT]
V = pb.GPT2_VOCAB_SIZE  # 50,257 real tokens                              [SOURCE: GPT-2 tokenizer]
CTX = pb.GPT2_CONTEXT  # block_size 1,024                                  [SECONDARY: paper App. E]
LORA_R = 4  # LoRA rank on attention and head   [SOURCE: config/sublora_bounds.yaml]

# The paper's larger variants: (label, n_layer, n_embd, n_head, where the shape comes from).
# 354M and 773M are GPT-2 medium and large [SECONDARY: paper §6.4]; for 458M and 849M the secondary
# account gives no shape [INFERRED].
# Their head counts are in the authors' code, sublora/utils.py get_model_config:
# "medium-large" = (20 layers, 20 heads, 1280), "large-vlarge" = (25, 25, 1600).
VARIANTS = [
    ("124M", 12, 768, 12, "given, App. E [SECONDARY]"),
    ("354M", 24, 1024, 16, "GPT-2 medium [SOURCE]"),
    ("458M", 20, 1280, 20, "shape INFERRED; heads [SOURCE]"),
    ("773M", 36, 1280, 20, "GPT-2 large [SOURCE]"),
    ("849M", 25, 1600, 25, "shape INFERRED; heads [SOURCE]"),
]
# A name part for each labelled size, for the glued values: the authors' model_size names.
SIZE_KEY = {"124M": "small", "354M": "medium", "458M": "medium_large", "773M": "large",
            "849M": "large_vlarge"}
GPT2_WIDTHS = (768, 1024, 1280, 1600)
# Search range of the "any width" statement of block [3]: widths 64, 128, ..., 4,096 and 1 to 96
# layers. Outside it other shapes may round to the same labels; the statement claims no more.
SEARCH_WIDTHS = range(64, 4097, 64)
SEARCH_LAYERS = range(1, 97)

# (n_layer, n_head, n_embd) by model_size in the authors' get_model_config,
# [SOURCE: sublora/utils.py:140-178 @c606ea6]; any other name leaves the three unset.
GET_MODEL_CONFIG = {
    "small": (12, 12, 768),
    "small-medium": (16, 16, 1024),
    "medium": (24, 16, 1024),
    "medium-large": (20, 20, 1280),
    "large": (36, 20, 1280),
    "large-vlarge": (25, 25, 1600),
    "vlarge": (48, 25, 1600),
}
# The GPT-2 paper's sizes (millions) as commonly quoted, small to XL; not checked against sources.
GPT2_PAPER_QUOTED = (117, 345, 762, 1542)
# GPT-2 XL in nanoGPT's from_pretrained table [SOURCE: nanoGPT model.py:220 @3adf61e].
GPT2_XL = (48, 25, 1600)


def nanogpt_closed_form(
    n_layer: int, d: int, bias: bool = True, vocab: int = V_PAD, pos: bool = False
) -> int:
    """vocab d (+ T_max d) + n_layer (12 d^2 + 13 d) + 2 d; without biases 12 d^2 + 2 d per block
    and d for the final LayerNorm."""
    per_block = 12 * d * d + (13 * d if bias else 2 * d)
    return vocab * d + (CTX * d if pos else 0) + n_layer * per_block + (2 * d if bias else d)


def authors_closed_form(n_layer: int, d: int, r: int = LORA_R, fused: bool = True) -> int:
    """The bias-free model with position embedding, + 3 d c_attn bias per block when fused,
    + rank-r LoRA on W_Q, W_V (4 r d per block) and on the head (r (V_PAD + d))."""
    base = nanogpt_closed_form(n_layer, d, bias=False, pos=True)
    return base + (3 * d * n_layer if fused else 0) + 4 * r * d * n_layer + r * (V_PAD + d)


def decimal(x: Fraction, digits: int) -> str:
    """An exact fraction rounded half up to `digits` decimals: Fraction(1, 8), 2 -> '0.13'."""
    scaled = x * 10**digits
    n = (abs(scaled.numerator) * 2 + scaled.denominator) // (2 * scaled.denominator)
    sign = "-" if x < 0 and n else ""
    text = str(n).rjust(digits + 1, "0")
    return sign + (text[:-digits] + "." + text[-digits:] if digits else text)


def millions(n: int) -> str:
    """123,689,472 -> '124M', the way the paper labels sizes."""
    return f"{round(n / 1e6)}M"


def glued_millions(name: str, n: int, width: int = 0) -> str:
    """millions(n), right-aligned in `width`, with its number glued as `name`: '124M'."""
    return glue(name, round(n / 1e6), f">{width - 1}" if width else "") + "M"


def shown(text: str) -> str:
    """`text` as a reader sees it: without the markers of its glued values (script_glue.py)."""
    return re.sub(f"{START}[^{SEP}]*{SEP}|{END}", "", text)


def ljust(text: str, width: int) -> str:
    """`text` padded with spaces to `width` characters as a reader sees it."""
    return text + " " * (width - len(shown(text)))


def shapes_with_label(label: str, widths: range | tuple[int, ...]) -> list[tuple[int, int]]:
    """All (n_layer, n_embd) with n_embd in `widths`, n_layer in SEARCH_LAYERS, whose nanoGPT
    count rounds to `label`."""
    target = int(label.rstrip("M"))
    return [
        (n_layer, d)
        for d in widths
        for n_layer in SEARCH_LAYERS
        if round(pb.gpt2_params(n_layer, d) / 1e6) == target
    ]


def load_fig3_points() -> list[dict[str, int]]:
    """The eight (n_layer, n_head, n_embd, x_params) points of Figure 3 as the data file records
    them: copied from the seed, which credits an unavailable PDF reader; not checked here."""
    data = json.loads(FIG3_DATA.read_text(encoding="utf-8"))
    assert "provenance" in data, "the data file must state where its numbers come from"
    return data["points"]


# --------------------------------------------------------------------- torch reference (meta)
class LoRAFactors(nn.Module):
    """The two factors of a rank-r correction B A to an (n_out, n_in) matrix (values unused)."""

    def __init__(self, n_out: int, n_in: int, r: int) -> None:
        super().__init__()
        self.lora_A = nn.Parameter(torch.empty(r, n_in))  # (r, n_in)
        self.lora_B = nn.Parameter(torch.empty(n_out, r))  # (n_out, r)


class RefBlock(nn.Module):
    """One nanoGPT block. With `lora_r`, LoRA on W_Q and W_V as in the authors' code: either one
    fused c_attn (loralib.MergedLinear subclasses nn.Linear and keeps its default bias) or
    separate bias-free q_proj, k_proj, v_proj."""

    def __init__(self, d: int, bias: bool, lora_r: int, fused: bool) -> None:
        super().__init__()
        self.ln_1 = nn.LayerNorm(d, bias=bias)
        self.ln_2 = nn.LayerNorm(d, bias=bias)
        if fused:
            self.c_attn = nn.Linear(d, 3 * d, bias=bias or lora_r > 0)  # (3d, d)
            if lora_r:  # MergedLinear, enable_lora=[True, False, True]: A (2r, d), B (2d, r)
                self.c_attn_lora_A = nn.Parameter(torch.empty(2 * lora_r, d))
                self.c_attn_lora_B = nn.Parameter(torch.empty(2 * d, lora_r))
        else:
            self.q_proj = nn.Linear(d, d, bias=bias)
            self.k_proj = nn.Linear(d, d, bias=bias)
            self.v_proj = nn.Linear(d, d, bias=bias)
            if lora_r:
                self.q_lora = LoRAFactors(d, d, lora_r)
                self.v_lora = LoRAFactors(d, d, lora_r)
        self.attn_c_proj = nn.Linear(d, d, bias=bias)
        self.mlp_up = nn.Linear(d, 4 * d, bias=bias)  # (4d, d)
        self.mlp_c_proj = nn.Linear(4 * d, d, bias=bias)


class RefGPT(nn.Module):
    """nanoGPT's GPT layout: embeddings, blocks, final LayerNorm, head tied to the embedding."""

    def __init__(
        self, n_layer: int, d: int, bias: bool = True, lora_r: int = 0, fused: bool = True
    ) -> None:
        super().__init__()
        self.wte = nn.Embedding(V_PAD, d)
        self.wpe = nn.Embedding(CTX, d)  # (1024, d): counted by the authors, not by nanoGPT
        self.h = nn.ModuleList(RefBlock(d, bias, lora_r, fused) for _ in range(n_layer))
        self.ln_f = nn.LayerNorm(d, bias=bias)
        self.lm_head = nn.Linear(d, V_PAD, bias=False)  # (V_PAD, d), tied below
        self.wte.weight = self.lm_head.weight  # weight tying: one tensor, two uses
        if lora_r:
            self.lm_head_lora = LoRAFactors(V_PAD, d, lora_r)


def count(model: nn.Module) -> int:
    """Numbers in all parameter tensors; a tied tensor is yielded, and counted, once."""
    return sum(p.numel() for p in model.parameters())


# --------------------------------------------------------------------------------- blocks
def block1_gpt2_small() -> None:
    n_layer, d, n_head = 12, 768, 12
    p = pb.gpt2_pieces(d)
    total = pb.gpt2_params(n_layer, d)
    print(
        f"[1] GPT-2 small, nanoGPT's count: n_layer = {glue('small_n_layer', n_layer)}, "
        f"n_embd = {glue('small_n_embd', d)}, n_head = {glue('small_n_head', n_head)} heads x "
        f"{glue('small_head_size', d // n_head)} dims, MLP width 4 n_embd = "
        f"{glue('small_mlp_width', 4 * d, ',')}"
    )
    rows = [  # (label, shape, glued name of the count, count)
        ("token embedding = head (tied)", f"{glue('table_rows', V_PAD, ',')} x {d}", "wte",
         p.wte),
        ("block: ln_1 (gain + shift)", f"{glue('ln_vectors', 2)} x {d}", "ln_1", p.ln_1),
        ("       c_attn = W_Q,W_K,W_V", f"{d} x {3 * d:,} + {glue('c_attn_width', 3 * d, ',')}",
         "c_attn", p.c_attn),
        ("       attn.c_proj = W_O", f"{d} x {d} + {d}", "attn_c_proj", p.attn_c_proj),
        ("       ln_2", f"2 x {d}", "ln_2", p.ln_2),
        ("       mlp.c_fc (up)", f"{d} x {4 * d:,} + {4 * d:,}", "c_fc", p.c_fc),
        ("       mlp.c_proj (down)", f"{4 * d:,} x {d} + {d}", "mlp_c_proj", p.mlp_c_proj),
    ]
    for name, shape, key, n in rows:
        print(f"    {name:<30} {ljust(shape, 21)} = {glue(f'small_{key}', n, '>11,')}")
    assert p.wte == V_PAD * d and p.c_attn == d * 3 * d + 3 * d and p.c_fc == d * 4 * d + 4 * d
    assert p.attn_c_proj == d * d + d and p.mlp_c_proj == 4 * d * d + d and p.ln_1 == 2 * d
    print(
        f"    one block = 12 n_embd^2 + 13 n_embd = {glue('block_quadratic', 12 * d * d, ',')} + "
        f"{glue('block_linear', 13 * d, ',')} = {glue('small_block', p.block, ',')};"
        f"  x {n_layer} blocks = {glue('small_blocks', n_layer * p.block, ',')}"
    )
    assert p.block == 12 * d * d + 13 * d == pb.block_params(d) == 7_087_872
    print(
        f"    final LayerNorm ln_f = {glue('small_ln_f', p.ln_f, ',')};  total = "
        f"{glue('small_total', total, ',')} -> rounds to "
        f"{glued_millions('small_total_millions', total)}"
    )
    assert p.wte + n_layer * p.block + p.ln_f == total == 123_689_472
    assert millions(total) == "124M"
    pad_rows = V_PAD - V
    print(
        f"    left out: position embedding {glue('context', CTX, ',')} x {d} = "
        f"{glue('small_wpe', p.wpe, ',')}; the {V_PAD:,} - {glue('vocab', V, ',')} = "
        f"{glue('pad_rows', pad_rows)} padding rows hold {glue('pad_numbers', pad_rows * d, ',')} "
        "numbers that no token uses"
    )
    assert p.wpe == 786_432 and pad_rows == 47 and pb.padded_vocab_size(V) == V_PAD


def block2_shares() -> None:
    n_layer, d = 12, 768
    total = pb.gpt2_params(n_layer, d)
    c = pb.gpt2_components(n_layer, d)
    assert sum(c) == total

    def pct(n: int, digits: int, name: str = "") -> str:
        """The share of n in per cent; with `name`, the number is glued as share_<name>."""
        share = 100 * n / total
        text = glue(f"share_{name}", share, f".{digits}f") if name else f"{share:.{digits}f}"
        return text + " %"

    print(f"[2] Where GPT-2 small's {total:,} parameters sit:")
    print(
        f"    token embedding {glue('count_token_embedding', c.token_embedding, '>11,')} = "
        f"{pct(c.token_embedding, 2, 'token_embedding')}"
        f"    attention  {glue('count_attention', c.attention, '>11,')} = "
        f"{pct(c.attention, 2, 'attention')}"
    )
    print(
        f"    MLPs            {glue('count_mlp', c.mlp, '>11,')} = {pct(c.mlp, 2, 'mlp')}"
        f"    LayerNorms {glue('count_layernorm', c.layernorm, '>11,')} = "
        f"{pct(c.layernorm, 3, 'layernorm')}"
    )
    assert c.attention == n_layer * (4 * d * d + 4 * d) and c.mlp == n_layer * (8 * d * d + 5 * d)
    assert c.layernorm == (2 * n_layer + 1) * 2 * d
    printed = [pct(c.token_embedding, 2), pct(c.attention, 2), pct(c.mlp, 2), pct(c.layernorm, 3)]
    exact = [Fraction(100 * n, total) for n in (V_PAD * d, n_layer * (4 * d * d + 4 * d),
                                                  n_layer * (8 * d * d + 5 * d),
                                                  (2 * n_layer + 1) * 2 * d)]
    assert printed == [decimal(x, k) + " %" for x, k in zip(exact, (2, 2, 2, 3), strict=True)]
    assert printed == ["31.23 %", "22.92 %", "45.82 %", "0.031 %"]
    lora = pb.gpt2_lora_params(n_layer, d, LORA_R)
    print(
        f"    rank-{glue('lora_rank', LORA_R)} LoRA on W_Q and W_V of every block and on the head "
        f"would add {glue('lora_params', lora, ',')} = "
        f"{glue('lora_share', 100 * lora / total, '.3f')} %"
    )
    print(f"    (for scale: W_Q and W_V of one block hold 2 x {d} x {d} = "
          f"{glue('wq_wv_params', 2 * d * d, ',')} numbers)")
    assert lora == n_layer * 2 * LORA_R * (d + d) + LORA_R * (V_PAD + d) == 351_744
    assert f"{100 * lora / total:.3f}" == decimal(Fraction(100 * lora, total), 3) == "0.284"
    assert 2 * d * d == 1_179_648
    lora_true_v = pb.gpt2_lora_params(n_layer, d, LORA_R, vocab=V)
    print(
        f"    that count uses the padded head, {V_PAD:,} rows; with the true V = {V:,} it is "
        f"{glue('lora_params_true_vocab', lora_true_v, ',')}, {lora - lora_true_v} = {LORA_R} x "
        f"{V_PAD - V} fewer"
    )
    assert lora - lora_true_v == LORA_R * (V_PAD - V) == 188 and lora_true_v == 351_556


def block3_paper_sizes() -> None:
    print(
        "[3] The paper's sizes (§6.4, Table 3, App. E) against nanoGPT's count "
        f"(biases, no position embedding, vocab {V_PAD:,})"
    )
    print(
        "    label n_layer x n_embd n_head count          rounds  "
        "bias-free count  rounds  shape and heads from"
    )
    for label, n_layer, d, n_head, where in VARIANTS:
        n = pb.gpt2_params(n_layer, d)
        n_free = pb.gpt2_params(n_layer, d, bias=False)
        key = SIZE_KEY[label]  # large_count: GPT-2 large's count; large_label: its label, 773
        print(
            f"    {glue(f'{key}_label', int(label[:-1]), '>4')}M  "
            f"{glue(f'{key}_layers', n_layer, '>3')} x {glue(f'{key}_width', d, '<6,')}  "
            f"{glue(f'{key}_heads', n_head, '>4')}   {glue(f'{key}_count', n, '>13,')}  "
            f"{glued_millions(f'{key}_count_millions', n, 5)}  "
            f"{glue(f'{key}_bias_free', n_free, '>15,')}  "
            f"{glued_millions(f'{key}_bias_free_millions', n_free, 5)}   {where}"
        )
        assert millions(n) == label and d % n_head == 0 and d // n_head == 64
        assert n == nanogpt_closed_form(n_layer, d) and n_free == nanogpt_closed_form(
            n_layer, d, bias=False)
    assert [pb.gpt2_params(nl, d) for _, nl, d, *_ in VARIANTS] == [
        123_689_472, 353_822_720, 457_940_480, 772_779_520, 849_009_600]
    assert [pb.gpt2_params(nl, d, bias=False) for _, nl, d, *_ in VARIANTS] == [
        123_587_328, 353_551_360, 457_657_600, 772_271_360, 848_568_000]
    assert pb.gpt2_params(36, 1280, bias=False) == 772_271_360
    assert millions(pb.gpt2_params(36, 1280, bias=False)) == "772M"
    print(f"    every row has heads of {glue('sizes_head_size', 64)} numbers "
          "(n_embd / n_head = 64)")
    unique = {label: shapes_with_label(label, GPT2_WIDTHS) for label, *_ in VARIANTS}
    print(
        "    with a GPT-2 width (768/1,024/1,280/1,600), exactly one shape rounds to each label: "
        + "; ".join(f"{label} {nl} x {d:,}" for label, ((nl, d),) in unique.items())
    )
    assert all(
        shapes == [(n_layer, d)]
        for (label, n_layer, d, *_), shapes in zip(VARIANTS, unique.values(), strict=True)
    )

    # Heads do not enter the count: an attention layer of width 768 has the same parameters
    # whether it is split into 12 heads or 6 (torch's own module, shapes only).
    with torch.device("meta"):
        by_heads = {h: count(nn.MultiheadAttention(768, h)) for h in (12, 6)}
    assert by_heads[12] == by_heads[6] == 4 * 768 * 768 + 4 * 768 == 2_362_368  # Q, K, V, O
    print(
        "    [INFERRED] the sizes alone cannot tell the head count: splitting W_Q, W_K, W_V into "
        f"more or fewer heads keeps their shapes (torch: {glue('mha_heads', 12)} or "
        f"{glue('mha_heads_alt', 6)} heads at n_embd = {glue('mha_width', 768)}, "
        f"{glue('mha_params', by_heads[12], ',')} parameters either way)"
    )
    print(
        "    [SOURCE: sublora/utils.py, get_model_config] the authors' code settles it: "
        "'medium-large' = 20 layers, 20 heads, n_embd 1,280 (458M); 'large-vlarge' = 25 layers, "
        "25 heads, n_embd 1,600 (849M)"
    )
    for label, family_layers in (("458M", 20), ("849M", 25)):
        gpt2_width = shapes_with_label(label, GPT2_WIDTHS)
        any64 = shapes_with_label(label, SEARCH_WIDTHS)
        family = [nl for nl in SEARCH_LAYERS if millions(pb.gpt2_params(nl, 64 * nl)) == label]
        key = SIZE_KEY[label]  # medium_large_search_width_max: the widest width searched for 458M
        print(
            f"    {label} [INFERRED from the size]: with a GPT-2 width "
            "(768/1,024/1,280/1,600) only "
            + ", ".join(f"{nl} x {d:,}" for nl, d in gpt2_width)
            + "; with any width that is a multiple of "
            + f"{glue(f'{key}_search_width_step', SEARCH_WIDTHS.step)} "
            + f"({glue(f'{key}_search_width_min', SEARCH_WIDTHS.start)} to "
            + f"{glue(f'{key}_search_width_max', SEARCH_WIDTHS[-1], ',')}, "
            + f"{glue(f'{key}_search_layers_min', SEARCH_LAYERS.start)} to "
            + f"{glue(f'{key}_search_layers_max', SEARCH_LAYERS[-1])} layers): "
            + f"{glue(f'{key}_any_width_shapes', len(any64))} shapes ("
            + ", ".join(f"{nl} x {d:,}" for nl, d in any64)
            + "); "
            + "in the family n_embd = 64 x n_layer: n_layer = "
            + ", ".join(map(str, family))
        )
        assert family == [family_layers] and gpt2_width == [(family_layers, 64 * family_layers)]
        assert any64 == {
            "458M": [(71, 704), (50, 832), (37, 960), (20, 1280), (18, 1344)],
            "849M": [(36, 1344), (25, 1600), (17, 1920)],
        }[label]

    openai_shapes = [(12, 768), (24, 1024), (36, 1280), (48, 1600)]
    openai_keys = ["small", "medium", "large", "xl"]
    openai = [pb.gpt2_params(nl, d, vocab=V, include_pos=True) for nl, d in openai_shapes]
    print(
        f"    OpenAI checkpoint convention (V = {glue('openai_vocab', V, ',')}, position embedding "
        "counted): " + ", ".join(f"{glue(f'openai_{k}_millions', n / 1e6, '.1f')}M"
                                 for k, n in zip(openai_keys, openai, strict=True))
    )
    assert [millions(n) for n in openai] == ["124M", "355M", "774M", "1558M"]
    assert openai == [nanogpt_closed_form(nl, d, vocab=V, pos=True) for nl, d in openai_shapes]
    assert [f"{n / 1e6:.1f}" for n in openai] == [
        decimal(Fraction(n, 10**6), 1) for n in openai] == ["124.4", "354.8", "774.0", "1557.6"]
    print(
        "      rounds to the commonly quoted checkpoint names "
        + ", ".join(glued_millions(f"openai_{k}_name", n)
                    for k, n in zip(openai_keys, openai, strict=True))
        + "; the GPT-2 paper is commonly quoted as "
        + ", ".join(f"{glue(f'gpt2_paper_{k}', q)}M"
                    for k, q in zip(openai_keys, GPT2_PAPER_QUOTED, strict=True))
        + " (neither checked against saved sources)"
    )


def block4_figure3() -> None:
    points = load_fig3_points()
    assert len(points) == 8
    print(
        "[4] Figure 3's x-positions (data/fig3_x_positions.json) against counts that add the "
        f"position embedding and rank-{LORA_R} LoRA (W_Q, W_V, head)"
    )
    print(
        "    (n_layer,n_head,n_embd)  nanoGPT count  +pos+LoRA,biases  x/it - 1    "
        "authors' count       Fig. 3 x   x/it - 1"
    )
    worst_biased = worst_authors = worst_plain = 0.0
    unfused_ppm = []
    rows_printed, rows_exact = [], []
    for pt in points:
        nl, nh, d, x = pt["n_layer"], pt["n_head"], pt["n_embd"], pt["x_params"]
        plain = pb.gpt2_params(nl, d)
        biased = pb.gpt2_params(nl, d, include_pos=True) + pb.gpt2_lora_params(nl, d, LORA_R)
        authors = pb.authors_num_params(nl, d, LORA_R)
        unfused = pb.authors_num_params(nl, d, LORA_R, use_mergedlinear=False)
        rel_biased, rel_authors = x / biased - 1, x / authors - 1
        worst_biased = max(worst_biased, abs(rel_biased))
        worst_authors = max(worst_authors, abs(rel_authors))
        worst_plain = max(worst_plain, abs(x / plain - 1))
        unfused_ppm.append(1e6 * (x / unfused - 1))
        key = f"sweep{d}"  # the Figure 3 shape of width d (the eight widths differ)
        print(
            f"    ({glue(f'{key}_n_layer', nl, '>2')},{glue(f'{key}_n_head', nh, '>2')},"
            f"{glue(f'{key}_n_embd', d, '>4')})           {glue(f'{key}_nanogpt', plain, '>13,')}  "
            f"{glue(f'{key}_biased', biased, '>15,')}  "
            f"{glue(f'{key}_biased_rel', 100 * rel_biased, '+7.3f')} %  "
            f"{glue(f'{key}_authors', authors, '>14,')}  {glue(f'{key}_x', x, '>13,')}  "
            f"{glue(f'{key}_authors_ppm', 1e6 * rel_authors, '+5.1f')} ppm"
        )
        rows_printed.append((plain, biased, f"{100 * rel_biased:.3f}", authors,
                             f"{1e6 * rel_authors:.1f}"))
        plain_cf = nanogpt_closed_form(nl, d)
        biased_cf = (nanogpt_closed_form(nl, d, pos=True) + 4 * LORA_R * d * nl
                     + LORA_R * (V_PAD + d))
        authors_cf = authors_closed_form(nl, d)
        rows_exact.append((plain_cf, biased_cf, decimal(100 * (Fraction(x, biased_cf) - 1), 3),
                           authors_cf, decimal(10**6 * (Fraction(x, authors_cf) - 1), 1)))
    assert rows_printed == rows_exact
    print(
        f"    largest mismatch: {glue('worst_biased', 100 * worst_biased, '.3f')} % with biases "
        f"everywhere; {glue('worst_authors', 1e6 * worst_authors, '.1f')} ppm with the authors' "
        "layout"
    )
    assert worst_biased < 1e-3 and worst_authors < 1e-5
    assert f"{1e6 * worst_authors:.1f}" == "5.3" and f"{100 * worst_biased:.3f}" == "0.084"

    nl, d = 4, 32
    base = pb.gpt2_params(nl, d, bias=False)
    parts = [base, CTX * d, 3 * d * nl, pb.gpt2_lora_params(nl, d, LORA_R) - LORA_R * (V_PAD + d)]
    parts.append(LORA_R * (V_PAD + d))
    print(
        f"    (4,4,32) authors' count = bias-free base {glue('parts_base', parts[0], ',')} + "
        f"position embedding {glue('parts_pos', parts[1], ',')} + c_attn bias "
        f"{glue('parts_c_attn_bias', parts[2], ',')} + LoRA on W_Q, W_V "
        f"{glue('parts_lora_attn', parts[3], ',')} + LoRA on the head "
        f"{glue('parts_lora_head', parts[4], ',')} = {glue('parts_total', sum(parts), ',')}"
    )
    assert sum(parts) == pb.authors_num_params(nl, d, LORA_R) == 1_895_712
    assert parts[3] == nl * 2 * LORA_R * (d + d)
    assert parts[0] == nanogpt_closed_form(nl, d, bias=False)
    assert parts == [1_659_168, 32_768, 384, 2_048, 201_344]
    print(
        f"    [INFERRED] the {1e6 * worst_authors:.1f} ppm match is consistent with the fused "
        "c_attn (loralib MergedLinear, use_mergedlinear=True), whose bias of 3 n_embd counts, and "
        "does not exclude every other layout (erratum E24 names one); the pipeline's"
    )
    print(
        "      default use_mergedlinear=False (separate bias-free q, k, v layers) leaves every "
        f"point {glue('separate_ppm_min', min(unfused_ppm), '.0f')} to "
        f"{glue('separate_ppm_max', max(unfused_ppm), '.0f')} ppm above its count"
    )
    print(
        "      [SOURCE: sublora/nn/model.py, CausalSelfAttention; sublora/sublora_pipeline.py, "
        "use_mergedlinear default]"
    )
    assert min(unfused_ppm) > 100
    assert (f"{min(unfused_ppm):.0f}", f"{max(unfused_ppm):.0f}") == ("207", "314")
    print(
        "    without position embedding and LoRA the mismatch reaches "
        f"{glue('worst_plain', 100 * worst_plain, '.1f')} % (smallest model)"
    )
    assert f"{100 * worst_plain:.1f}" == "14.2"
    in_millions = [round(pb.gpt2_params(p["n_layer"], p["n_embd"]) / 1e6, 2) for p in points]
    print("    nanoGPT counts in millions: " + ", ".join(
        glue(f"sweep{p['n_embd']}_millions", m, "g")
        for p, m in zip(points, in_millions, strict=True)))
    assert [f"{m:g}" for m in in_millions] == [
        "1.66", "3.42", "7.23", "19.2", "33.51", "50.98", "81.43", "123.69"]
    shapes = [(p["n_layer"], p["n_embd"]) for p in points] + [(v[1], v[2]) for v in VARIANTS[1:]]
    emb = [100 * V_PAD * d / pb.gpt2_params(nl, d) for nl, d in shapes]
    keys = [f"sweep{p['n_embd']}" for p in points] + [SIZE_KEY[v[0]] for v in VARIANTS[1:]]
    print(
        "    token-embedding share (%), 8 sweep shapes then "
        + "/".join(glue(f"{SIZE_KEY[v[0]]}_share_label", int(v[0][:-1])) + "M"
                   for v in VARIANTS[1:]) + ": "
        + ", ".join(glue(f"{k}_table_share", e, ".1f") for k, e in zip(keys, emb, strict=True))
    )
    assert emb[0] > 96 and emb[7] < 32 and min(emb) == emb[10]  # 773M has the smallest share
    # share = V_PAD / (V_PAD + 2 + n_layer (12 d + 13)), exactly; printed to one decimal
    exact_share = [Fraction(100 * V_PAD, V_PAD + 2 + nl * (12 * d + 13)) for nl, d in shapes]
    assert [f"{e:.1f}" for e in emb] == [decimal(x, 1) for x in exact_share] == [
        "96.9", "94.1", "89.0", "67.1", "57.6", "50.5", "39.5", "31.2", "14.6", "14.1", "8.3",
        "9.5"]


def block5_torch_check() -> list[tuple[int, int]]:
    points = load_fig3_points()
    shapes = sorted(
        {(p["n_layer"], p["n_embd"]) for p in points} | {(v[1], v[2]) for v in VARIANTS}
    )
    assert len(shapes) == 12
    n_checks = 0
    with torch.device("meta"):
        for nl, d in shapes:
            for bias in (True, False):
                m = RefGPT(nl, d, bias=bias)
                with_pos = count(m)
                assert with_pos == pb.gpt2_params(nl, d, include_pos=True, bias=bias)
                assert with_pos - m.wpe.weight.numel() == pb.gpt2_params(nl, d, bias=bias)
                n_checks += 2
            for fused in (True, False):
                m = RefGPT(nl, d, bias=False, lora_r=LORA_R, fused=fused)
                assert count(m) == pb.authors_num_params(nl, d, LORA_R, use_mergedlinear=fused)
                n_checks += 1
        tied = RefGPT(12, 768)
        untied = RefGPT(12, 768)
        untied.wte.weight = nn.Parameter(torch.empty(V_PAD, 768))  # a second table
        extra = count(untied) - count(tied)
    assert extra == V_PAD * 768 == 38_633_472 and n_checks == 6 * len(shapes) == 72
    print(
        "[5] torch modules on the meta device agree with every formula for all "
        f"{glue('torch_shapes', len(shapes))} shapes ({glue('torch_counts', n_checks)} counts: "
        "biases on/off, position embedding in/out, authors' LoRA layout fused/separate)"
    )
    print(f"    untying the head from the token embedding would add "
          f"{glue('untied_extra', extra, ',')} parameters")
    return shapes


def block6_gaps() -> None:
    points = load_fig3_points()
    gaps = [
        p["x_params"] - pb.authors_num_params(p["n_layer"], p["n_embd"], LORA_R) for p in points
    ]
    positive = sum(g > 0 for g in gaps)
    chance = 2 * 0.5 ** len(gaps)
    print(
        "[6] Figure 3 x-position minus the authors' count, in parameters, smallest shape first: "
        + ", ".join(glue(f"sweep{p['n_embd']}_gap", g, "+,")  # sweep32_gap: x - authors' count
                    for p, g in zip(points, gaps, strict=True))
    )
    print(
        f"    {positive} of {len(gaps)} gaps are positive; if reading errors fell on either side "
        f"with equal odds, independently, all {len(gaps)} on the same side (either one) would "
        f"have probability 2 x 2^-{len(gaps)} = 2^-{glue('same_side_exponent', len(gaps) - 1)} "
        f"= {glue('same_side_chance', chance, '.4f')}"
    )
    print(
        "    so the recovered positions sit slightly but systematically to the right of the "
        "authors' count; how they were read is not recorded (data/fig3_x_positions.json)"
    )
    assert positive == len(gaps) == 8 and gaps == [10, 15, 28, 41, 71, 78, 41, 141]
    assert gaps == [p["x_params"] - authors_closed_form(p["n_layer"], p["n_embd"]) for p in points]
    assert f"{chance:.4f}" == "0.0078"
    authors = [pb.authors_num_params(p["n_layer"], p["n_embd"], LORA_R) for p in points]
    fit = log_axis_fit(authors, [p["x_params"] for p in points])
    print(
        f"    offset (ppm) fitted as a + b ln(count), 2 parameters: a = {fit['a']:+.2f}, b = "
        f"{fit['b']:+.3f} ({fit['b'] * math.log(10):+.2f} per factor 10); largest residual "
        f"{glue('fit_worst_ppm', fit['worst'], '.2f')} ppm, rms "
        f"{glue('fit_rms_ppm', fit['rms'], '.2f')} ppm "
        f"({glue('fit_dof', len(points) - 2)} degrees of freedom)"
    )
    print(
        f"      to first order x = A count^B, B - 1 = {fit['b']:.2f}e-06: a log axis calibrated "
        f"with a slightly wrong position and scale; one such error moves all {len(points)} "
        "points. A fixed ratio (shifted axis) leaves up to "
        f"{glue('fixed_ratio_worst_ppm', fit['worst_ratio'], '.2f')} ppm"
    )
    alt = [
        pb.gpt2_params(p["n_layer"], p["n_embd"], include_pos=True)
        + p["n_layer"] * pb.lora_factor_count(p["n_embd"], p["n_embd"], LORA_R)
        + pb.lora_factor_count(V_PAD, p["n_embd"], LORA_R)
        for p in points
    ]
    assert [a - b for a, b in zip(alt, authors, strict=True)] == [p["n_embd"] for p in points]
    fit_alt = log_axis_fit(alt, [p["x_params"] for p in points])
    below = [-v for v in fit_alt["ppm"]]
    print(
        "    nanoGPT's biases, LoRA on one attention matrix per block and the head (n_embd more): "
        f"points {glue('one_matrix_below_min_ppm', min(below), '.1f')} to "
        f"{glue('one_matrix_below_max_ppm', max(below), '.1f')} ppm below it; same fit: up to "
        f"{glue('one_matrix_fit_worst_ppm', fit_alt['worst'], '.2f')} ppm, rms "
        f"{glue('one_matrix_fit_rms_ppm', fit_alt['rms'], '.2f')} ppm"
    )
    assert min(below) > 0 and fit["worst"] < 0.6 and fit["rms"] < 0.45 < 1.4 < fit_alt["rms"]
    assert fit["worst_ratio"] > 2.7 and fit["b"] < 0
    assert [f"{fit[k]:.2f}" for k in ("a", "worst", "rms", "worst_ratio")] == [
        "20.33", "0.57", "0.40", "2.73"]
    assert (f"{fit['b']:.3f}", f"{min(below):.1f}", f"{max(below):.1f}", f"{fit_alt['rms']:.2f}",
            f"{fit_alt['worst']:.2f}") == ("-1.060", "5.0", "13.3", "1.44", "2.26")


def log_axis_fit(counts: list[int], xs: list[int]) -> dict:
    """Least-squares fit of ppm = 10^6 (x / count - 1) as a + b ln(count), in plain floats: a, b,
    the largest absolute residual and the rms residual on points - 2 degrees of freedom, and
    the largest residual of the one-parameter fit (the mean ppm: a fixed ratio). Example: ppm of
    exactly 3 - ln(count) gives a = 3, b = -1 and residuals 0."""
    ppm = [1e6 * (x / c - 1) for x, c in zip(xs, counts, strict=True)]
    logs = [math.log(c) for c in counts]
    mx, my = sum(logs) / len(logs), sum(ppm) / len(ppm)
    b = sum((u - mx) * (v - my) for u, v in zip(logs, ppm, strict=True)) / sum(
        (u - mx) ** 2 for u in logs)
    a = my - b * mx
    resid = [v - a - b * u for u, v in zip(logs, ppm, strict=True)]
    return {"a": a, "b": b, "ppm": ppm, "worst": max(abs(r) for r in resid),
            "rms": math.sqrt(sum(r * r for r in resid) / (len(resid) - 2)),
            "worst_ratio": max(abs(v - my) for v in ppm)}


def lora_layout_count(n_layer: int, d: int, matrices: int, head: bool) -> int:
    """Rank-LORA_R factors on `matrices` of the four d x d attention matrices per block, plus
    the head (V_PAD x d) if `head`."""
    per_block = matrices * pb.lora_factor_count(d, d, LORA_R)
    return n_layer * per_block + (pb.lora_factor_count(V_PAD, d, LORA_R) if head else 0)


LORA_LAYOUTS = [  # (name, attention matrices with LoRA, LoRA on the head, key of its values)
    ("W_Q, W_V + head (App. E; the code)", 2, True, "qv_head"),
    ("W_Q, W_K, W_V + head", 3, True, "qkv_head"),
    ("W_Q, W_K, W_V, W_O + head", 4, True, "qkvo_head"),
    ("W_Q, W_V, no head", 2, False, "qv_no_head"),
]


def block7_lora_layouts() -> None:
    points = load_fig3_points()
    print(
        f"[7] Rank-{LORA_R} LoRA layouts: factors in GPT-2 small, and the largest gap to "
        "Figure 3's eight x-positions when the authors' count uses that layout"
    )
    worst_by_layout, printed = [], []
    for name, matrices, head, key in LORA_LAYOUTS:
        small = lora_layout_count(12, 768, matrices, head)
        worst = 0.0
        for p in points:
            nl, d = p["n_layer"], p["n_embd"]
            base = pb.authors_num_params(nl, d, LORA_R) - pb.gpt2_lora_params(nl, d, LORA_R)
            worst = max(
                worst, abs(p["x_params"] / (base + lora_layout_count(nl, d, matrices, head)) - 1)
            )
        worst_by_layout.append(worst)
        print(f"    {name:<36} {glue(f'layout_{key}_factors', small, '>9,')} factors   largest "
              f"gap {glue(f'layout_{key}_gap_ppm', 1e6 * worst, '>8,.1f')} ppm")
        printed.append((small, f"{1e6 * worst:,.1f}"))
        # by hand: 2 r d factors per d x d matrix, r (V_PAD + d) for the head
        assert small == 12 * matrices * 2 * LORA_R * 768 + (LORA_R * (V_PAD + 768) if head else 0)
    assert lora_layout_count(12, 768, 2, True) == pb.gpt2_lora_params(12, 768, LORA_R) == 351_744
    miss_ppm = 100  # every other layout misses Figure 3 by more than this
    assert worst_by_layout[0] < 1e-5 and min(worst_by_layout[1:]) > miss_ppm / 1e6
    assert printed == [(351_744, "5.3"), (425_472, "829.9"), (499_200, "1,660.5"),
                       (147_456, "118,837.2")]
    print(
        "    of these four layouts only LoRA on two n_embd x n_embd attention matrices per block "
        "and the head fits; a third matrix or dropping the head misses by more than "
        f"{glue('layout_miss_ppm', miss_ppm)} ppm"
    )
    print(
        "    the count cannot tell which two (W_Q, W_K, W_V, W_O are all n_embd x n_embd); the "
        "code names them: enable_lora=[True, False, True], query and value "
        "[SOURCE: sublora/nn/model.py:71-84]"
    )


def block8_shape_tables() -> None:
    print(
        "[8] Shape tables in the code: the authors' get_model_config (n_layer, n_head, n_embd) "
        "[SOURCE: sublora/utils.py:140-178]"
    )
    print("    " + "; ".join(  # config_medium_n_layer: n_layer of model_size 'medium'
        f"{k} (" + ", ".join(glue(f"config_{k.replace('-', '_')}_{part}", x)
                              for part, x in zip(("n_layer", "n_head", "n_embd"), v, strict=True))
        + ")" for k, v in GET_MODEL_CONFIG.items()))
    sweep = [(p["n_layer"], p["n_head"], p["n_embd"]) for p in load_fig3_points()]
    known = [s for s in sweep if s in GET_MODEL_CONFIG.values()]
    print(
        f"    of Figure 3's {len(sweep)} shapes, {len(known)} is in the table: {known[0]} "
        f"('small'); the other {len(sweep) - len(known)} cannot be built through model_size "
        "[SOURCE: sublora/sublora_pipeline.py:195]"
    )
    assert known == [(12, 12, 768)] and len(sweep) == 8
    nl, nh, d = GPT2_XL
    xl_nanogpt = pb.gpt2_params(nl, d)
    xl_openai = pb.gpt2_params(nl, d, vocab=V, include_pos=True)
    print(
        f"    GPT-2 XL in nanoGPT's from_pretrained table [SOURCE: nanoGPT model.py:220]: "
        f"n_layer = {glue('xl_n_layer', nl)}, n_head = {glue('xl_n_head', nh)}, n_embd = "
        f"{glue('xl_n_embd', d, ',')}, the authors' 'vlarge'; nanoGPT's count "
        f"{glue('xl_nanogpt', xl_nanogpt, ',')}, OpenAI's convention "
        f"{glue('xl_openai_millions', xl_openai / 1e6, '.1f')}M"
    )
    assert GET_MODEL_CONFIG["vlarge"] == GPT2_XL and millions(xl_openai) == "1558M"
    assert xl_nanogpt == nanogpt_closed_form(nl, d) == 1_556_048_000
    assert f"{xl_openai / 1e6:.1f}" == "1557.6"


# --------------------------------------------------------------------------------- figure
def block9_conventions() -> None:
    """GPT-2 small, (12, 12, 768), under each counting convention the book meets."""
    nl, d = 12, 768
    nanogpt = pb.gpt2_params(nl, d)
    bias_free = pb.gpt2_params(nl, d, bias=False)
    with_pos = pb.gpt2_params(nl, d, include_pos=True)
    released = pb.gpt2_params(nl, d, vocab=V, include_pos=True)
    authors = pb.authors_num_params(nl, d, LORA_R)
    authors_sep = pb.authors_num_params(nl, d, LORA_R, use_mergedlinear=False)
    # by hand, OpenAI's checkpoint: token table (V rows, tied head), positions, blocks, ln_f
    by_hand = V * d + CTX * d + nl * (12 * d * d + 13 * d) + 2 * d
    print("[9] GPT-2 small (12 layers, 12 heads, n_embd 768) counted by each convention the book "
          "uses")
    rows = [  # (label, glued name: conv_nanogpt is nanoGPT's count, count, note)
        (f"nanoGPT's get_num_params: {glue('conv_table_rows', V_PAD, ',')} rows, biases, no "
         "position embedding", "nanogpt", nanogpt,
         f"the paper's '{glue('conv_paper_label', 124)}M'"),
        ("the same rule without biases (the pipeline's default layers)", "bias_free", bias_free,
         ""),
        ("every tensor of nanoGPT's model: position embedding added", "every_tensor", with_pos,
         "padded table"),
        (f"OpenAI's released checkpoint: {glue('conv_vocab', V, ',')} rows, position embedding",
         "openai", released, f"the name '{glue('conv_openai_name', 124)}M'"),
        (f"the authors' code, fused layout: + positions, c_attn bias, rank-{LORA_R} LoRA",
         "authors", authors, "fits Figure 3 (inferred)"),
        ("the authors' code, separate layout (default): the same, no c_attn bias",
         "authors_separate", authors_sep, ""),
    ]
    for label, key, value, note in rows:
        print(f"    {ljust(label, 72)} {glue(f'conv_{key}', value, '>13,')}"
              + (f"   {note}" if note else ""))
    print(f"    {with_pos:,} - {released:,} = "
          f"{glue('conv_pad_numbers', with_pos - released, ',')}: the "
          f"{glue('conv_pad_rows', V_PAD - V)} padding rows x {glue('conv_n_embd', d)}")
    print("    rounded to millions, in the order above: "
          + ", ".join(glued_millions(f"conv_{key}_millions", value) for _, key, value, _ in rows))
    assert [millions(value) for _, _, value, _ in rows] == ["124M"] * 4 + ["125M", "125M"]
    assert authors - authors_sep == nl * 3 * d and authors_sep == 124_725_504
    assert nanogpt == 123_689_472 and bias_free == 123_587_328 and authors == 124_753_152
    assert with_pos == nanogpt + CTX * d == 124_475_904
    assert released == by_hand == 124_439_808 == with_pos - (V_PAD - V) * d
    assert round(nanogpt / 1e6) == round(released / 1e6) == 124

    rules = [  # (column head, name part, count of (n_layer, d)); the conventions above
        ("nanoGPT", "nanogpt", lambda nl, d: pb.gpt2_params(nl, d)),
        ("no biases", "bias_free", lambda nl, d: pb.gpt2_params(nl, d, bias=False)),
        ("every tensor", "every_tensor", lambda nl, d: pb.gpt2_params(nl, d, include_pos=True)),
        ("OpenAI", "openai", lambda nl, d: pb.gpt2_params(nl, d, vocab=V, include_pos=True)),
        ("authors", "authors", lambda nl, d: pb.authors_num_params(nl, d, LORA_R)),
    ]
    closed = [
        lambda nl, d: nanogpt_closed_form(nl, d),
        lambda nl, d: nanogpt_closed_form(nl, d, bias=False),
        lambda nl, d: nanogpt_closed_form(nl, d, pos=True),
        lambda nl, d: nanogpt_closed_form(nl, d, vocab=V, pos=True),
        lambda nl, d: authors_closed_form(nl, d),
    ]
    print("    the first five conventions for the paper's five labelled shapes, in millions:")
    print("    label " + "".join(f"{head:>15}" for head, _, _ in rules))
    table = {}
    for label, nl_v, d_v, *_ in VARIANTS:
        counts = [rule(nl_v, d_v) for _, _, rule in rules]
        assert counts == [cf(nl_v, d_v) for cf in closed]
        table[label] = [millions(n) for n in counts]
        # large_rule_bias_free: GPT-2 large's count without biases, in millions
        print(f"    {label:>5} " + "".join(
            glued_millions(f"{SIZE_KEY[label]}_rule_{key}", n, 15)
            for (_, key, _), n in zip(rules, counts, strict=True)))
    hits = [all(table[label][k] == label for label in table) for k in range(len(rules))]
    print(f"    rounding to all five labels: {rules[hits.index(True)][0]} only")
    assert hits == [True, False, False, False, False]
    assert table == {
        "124M": ["124M", "124M", "124M", "124M", "125M"],
        "354M": ["354M", "354M", "355M", "355M", "355M"],
        "458M": ["458M", "458M", "459M", "459M", "460M"],
        "773M": ["773M", "772M", "774M", "774M", "775M"],
        "849M": ["849M", "849M", "851M", "851M", "851M"],
    }


def draw_figure() -> None:
    points = load_fig3_points()
    sweep = [(p["n_layer"], p["n_embd"]) for p in points]
    larger = [(v[1], v[2]) for v in VARIANTS[1:]]
    ln_max = max(
        100 * pb.gpt2_components(nl, d).layernorm / pb.gpt2_params(nl, d)
        for nl, d in sweep + larger
    )
    assert ln_max < 0.1
    # The title's claim: the table's share, V_PAD / (V_PAD + 2 + n_layer (12 d + 13)), orders
    # the twelve shapes exactly as n_layer x d does, and 849M (25 x 1,600) keeps more than 773M.
    shapes = sweep + larger
    share = {s: Fraction(V_PAD, V_PAD + 2 + s[0] * (12 * s[1] + 13)) for s in shapes}
    assert sorted(shapes, key=share.get) == sorted(shapes, key=lambda s: -s[0] * s[1])
    assert share[(25, 1600)] > share[(36, 1280)]
    # Paul Tol's "bright" scheme, safe for colour-blind readers; one marker shape per component.
    styles = [
        ("token embedding (= head)", "#4477AA", "o"),
        ("attention", "#EE6677", "s"),
        ("MLP", "#228833", "^"),
    ]
    fig, ax = plt.subplots(figsize=(5.5, 4.9))
    for k, (name, colour, marker) in enumerate(styles):
        for group, filled in ((sweep, True), (larger, False)):
            xs = [pb.gpt2_params(nl, d) for nl, d in group]
            ys = [100 * pb.gpt2_components(nl, d)[k] / pb.gpt2_params(nl, d) for nl, d in group]
            ax.plot(
                xs,
                ys,
                color=colour,
                marker=marker,
                lw=1.6 if filled else 0.0,
                ms=6,
                markerfacecolor=colour if filled else "white",
                label=name if filled else None,
            )
    ax.set_xscale("log")
    ax.set_ylim(0, 100)
    ax.set_xlabel("parameters, nanoGPT's count (log scale)")
    ax.set_ylabel("share of the parameters (%)")
    ax.grid(True, which="major", color="#dddddd", lw=0.6)
    ax.text(
        1.1e9, 97, "hollow markers:\n354M, 458M, 773M, 849M", color="#444444", va="top", ha="right"
    )
    ax.text(1.7e6, 30, "filled, joined: the eight\nFigure 3 shapes", color="#444444", va="bottom")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.15), ncol=2, frameon=False)
    ax.set_title(
        "Token-table share falls as n_layer x n_embd grows,\nnot with size: 849M keeps more"
        " than 773M\n(LayerNorms: under 0.1 %)"
    )
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    fig.tight_layout()
    save_figure(fig, FIGURE_NAME, dpi=130)
    plt.close(fig)


def main() -> None:
    print("Chapter 5 -- parameter counts of the paper's GPT-2 models (ch05_param_count.py)")
    block1_gpt2_small()
    block2_shares()
    block3_paper_sizes()
    block4_figure3()
    block5_torch_check()
    block6_gaps()
    block7_lora_layouts()
    block8_shape_tables()
    block9_conventions()
    draw_figure()
    print(f"Figure: {FIGURE_NAME}")
    print("All assertions passed.")


if __name__ == "__main__":
    main()
