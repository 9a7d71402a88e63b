"""pacbound: the book's shared helpers. Typed pure functions; no printing, no file I/O.

GPT-2 facts and parameter counts (Chapter 5); Hoeffding, Occam, prefix codes (Chapters 9-11);
prediction smoothing and the subsampling bound (Chapters 12-14).
"""

from pacbound.gpt2 import (
    GPT2_CONTEXT,
    GPT2_VOCAB_SIZE,
    NANOGPT_VOCAB_SIZE,
    VOCAB_PAD_MULTIPLE,
    padded_vocab_size,
    random_guess_bits_per_token,
)
from pacbound.occam import (
    hoeffding_bound,
    kraft_sum,
    occam_bound,
    prefix_code_bits,
)
from pacbound.params import (
    ComponentCounts,
    GPT2Pieces,
    authors_num_params,
    block_params,
    gpt2_components,
    gpt2_lora_params,
    gpt2_params,
    gpt2_pieces,
    layernorm_params,
    linear_params,
    lora_factor_count,
)
from pacbound.smoothing import ALPHA_GRID, loss_range, smoothed_nll_bits
from pacbound.subsampling import subsampling_bound, union_over_grid

__all__ = [
    "ALPHA_GRID",
    "GPT2_CONTEXT",
    "GPT2_VOCAB_SIZE",
    "NANOGPT_VOCAB_SIZE",
    "VOCAB_PAD_MULTIPLE",
    "ComponentCounts",
    "GPT2Pieces",
    "authors_num_params",
    "block_params",
    "gpt2_components",
    "gpt2_lora_params",
    "gpt2_params",
    "gpt2_pieces",
    "hoeffding_bound",
    "kraft_sum",
    "layernorm_params",
    "linear_params",
    "lora_factor_count",
    "loss_range",
    "occam_bound",
    "padded_vocab_size",
    "prefix_code_bits",
    "random_guess_bits_per_token",
    "smoothed_nll_bits",
    "subsampling_bound",
    "union_over_grid",
]
