"""Parameter counts of nanoGPT's GPT-2 layout, its LoRA factors, and the authors' counting rule.

Names follow nanoGPT (`n_layer`, `n_embd`, `c_attn`, `c_proj`, `c_fc`, `wte`, `wpe`, `ln_f`).
Layout of one block [SOURCE: nanoGPT model.py]: LayerNorm `ln_1`, fused query/key/value layer
`c_attn` (n_embd -> 3 n_embd), output projection `attn.c_proj`, LayerNorm `ln_2`, MLP `c_fc`
(n_embd -> 4 n_embd) and `mlp.c_proj` (4 n_embd -> n_embd). The head is tied to the token
embedding, so the `vocab x n_embd` matrix is counted once. The number of heads never appears:
the heads split `c_attn` into slices without changing its shape.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from pacbound.gpt2 import GPT2_CONTEXT, NANOGPT_VOCAB_SIZE


def linear_params(n_in: int, n_out: int, bias: bool = True) -> int:
    """A linear layer u -> W u + c with W of shape (n_out, n_in): n_out * n_in (+ n_out).

    >>> linear_params(768, 2304)
    1771776
    """
    return n_out * n_in + (n_out if bias else 0)


def layernorm_params(n_embd: int, bias: bool = True) -> int:
    """One LayerNorm: gain (n_embd) plus shift (n_embd) when `bias`, so 2 n_embd or n_embd.

    >>> layernorm_params(768)
    1536
    """
    return 2 * n_embd if bias else n_embd


@dataclass(frozen=True)
class GPT2Pieces:
    """Parameters of each piece of a nanoGPT GPT-2 model; the six block pieces are per block."""

    wte: int  # token embedding (vocab, n_embd), shared with the head
    wpe: int  # position embedding (block_size, n_embd)
    ln_1: int  # LayerNorm before attention
    c_attn: int  # W_Q, W_K, W_V side by side: (3 n_embd, n_embd) + bias
    attn_c_proj: int  # W_O: (n_embd, n_embd) + bias
    ln_2: int  # LayerNorm before the MLP
    c_fc: int  # MLP up: (4 n_embd, n_embd) + bias
    mlp_c_proj: int  # MLP down: (n_embd, 4 n_embd) + bias
    ln_f: int  # final LayerNorm

    @property
    def block(self) -> int:
        """One transformer block: the six block pieces together."""
        return self.ln_1 + self.c_attn + self.attn_c_proj + self.ln_2 + self.c_fc + self.mlp_c_proj


def gpt2_pieces(
    n_embd: int,
    vocab: int = NANOGPT_VOCAB_SIZE,
    bias: bool = True,
    block_size: int = GPT2_CONTEXT,
) -> GPT2Pieces:
    """Count every piece of the nanoGPT layout for width `n_embd` (one block's pieces).

    >>> gpt2_pieces(768).c_attn, gpt2_pieces(768).block
    (1771776, 7087872)
    """
    return GPT2Pieces(
        wte=vocab * n_embd,
        wpe=block_size * n_embd,
        ln_1=layernorm_params(n_embd, bias),
        c_attn=linear_params(n_embd, 3 * n_embd, bias),
        attn_c_proj=linear_params(n_embd, n_embd, bias),
        ln_2=layernorm_params(n_embd, bias),
        c_fc=linear_params(n_embd, 4 * n_embd, bias),
        mlp_c_proj=linear_params(4 * n_embd, n_embd, bias),
        ln_f=layernorm_params(n_embd, bias),
    )


def block_params(n_embd: int, bias: bool = True) -> int:
    """One block in closed form: 12 n_embd^2 + 13 n_embd, or 12 n_embd^2 + 2 n_embd bias-free.

    >>> block_params(768)
    7087872
    """
    return 12 * n_embd**2 + (13 if bias else 2) * n_embd


def gpt2_params(
    n_layer: int,
    n_embd: int,
    vocab: int = NANOGPT_VOCAB_SIZE,
    include_pos: bool = False,
    bias: bool = True,
    block_size: int = GPT2_CONTEXT,
) -> int:
    """Parameters of a nanoGPT GPT-2 model with a tied head (nanoGPT's `get_num_params()`).

    D = vocab n_embd + n_layer (12 n_embd^2 + 13 n_embd) + 2 n_embd   (bias=True)
    D = vocab n_embd + n_layer (12 n_embd^2 + 2 n_embd) + n_embd      (bias=False)
    plus block_size n_embd when `include_pos` (nanoGPT leaves the position embedding out).

    >>> gpt2_params(12, 768)
    123689472
    """
    return (
        vocab * n_embd
        + n_layer * block_params(n_embd, bias)
        + layernorm_params(n_embd, bias)
        + (block_size * n_embd if include_pos else 0)
    )


class ComponentCounts(NamedTuple):
    """A model's parameters split into the four kinds of piece (position embedding excluded)."""

    token_embedding: int
    attention: int
    mlp: int
    layernorm: int


def gpt2_components(
    n_layer: int, n_embd: int, vocab: int = NANOGPT_VOCAB_SIZE, bias: bool = True
) -> ComponentCounts:
    """Split `gpt2_params(n_layer, n_embd, vocab, bias=bias)` into embedding, attention, MLP, norms.

    attention = n_layer (4 n_embd^2 + 4 n_embd), MLP = n_layer (8 n_embd^2 + 5 n_embd) with biases.

    >>> gpt2_components(12, 768).attention
    28348416
    """
    p = gpt2_pieces(n_embd, vocab, bias)
    return ComponentCounts(
        token_embedding=p.wte,
        attention=n_layer * (p.c_attn + p.attn_c_proj),
        mlp=n_layer * (p.c_fc + p.mlp_c_proj),
        layernorm=n_layer * (p.ln_1 + p.ln_2) + p.ln_f,
    )


def lora_factor_count(n_out: int, n_in: int, r: int) -> int:
    """Numbers in a rank-r LoRA correction B A of an (n_out, n_in) matrix: r (n_out + n_in).

    B is (n_out, r) and A is (r, n_in). Example: W_Q of GPT-2 small at r = 4.

    >>> lora_factor_count(768, 768, 4)
    6144
    """
    return r * (n_out + n_in)


def gpt2_lora_params(n_layer: int, n_embd: int, r: int = 4, vocab: int = NANOGPT_VOCAB_SIZE) -> int:
    """LoRA factors on W_Q and W_V of every block and on the head [SECONDARY: paper App. E, p. 16].

    n_layer * 2 r (n_embd + n_embd) + r (vocab + n_embd) = 4 r n_layer n_embd + r (vocab + n_embd).

    >>> gpt2_lora_params(12, 768, r=4)
    351744
    """
    per_block = 2 * lora_factor_count(n_embd, n_embd, r)  # W_Q and W_V
    return n_layer * per_block + lora_factor_count(vocab, n_embd, r)


def authors_num_params(
    n_layer: int,
    n_embd: int,
    r: int = 4,
    vocab: int = NANOGPT_VOCAB_SIZE,
    block_size: int = GPT2_CONTEXT,
    use_mergedlinear: bool = True,
) -> int:
    """What the authors' `GPT.get_num_params()` returns: the sum of all parameter tensors.

    [SOURCE: sublora/nn/model.py] Layers are bias-free (`bias=False`, the pipeline default), the
    position embedding is a parameter tensor and counts, and LoRA rank r sits on W_Q, W_V and
    the head. With the fused `c_attn` (`use_mergedlinear=True`, a `loralib.MergedLinear`, which
    keeps nn.Linear's default bias) each block gains a 3 n_embd bias; with the pipeline's default
    `use_mergedlinear=False` the separate q, k, v layers are bias-free:

    D = gpt2_params(bias=False, include_pos=True) + [3 n_embd n_layer] + gpt2_lora_params(r)

    >>> authors_num_params(4, 32)
    1895712
    """
    fused_bias = 3 * n_embd * n_layer if use_mergedlinear else 0
    return (
        gpt2_params(n_layer, n_embd, vocab, include_pos=True, bias=False, block_size=block_size)
        + fused_bias
        + gpt2_lora_params(n_layer, n_embd, r, vocab)
    )
