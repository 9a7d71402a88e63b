"""pacbound: the book's shared helpers. Typed pure functions; no printing, no file I/O.

GPT-2 facts and parameter counts (Chapter 5); Hoeffding, Occam, prefix codes (Chapters 9-11).
The Markov source of Chapters 9-11 is the submodule `pacbound.markov` (import it by name).
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

__all__ = [
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
    "occam_bound",
    "padded_vocab_size",
    "prefix_code_bits",
    "random_guess_bits_per_token",
]
