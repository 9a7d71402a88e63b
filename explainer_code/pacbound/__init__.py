"""pacbound: the book's shared helpers. Typed pure functions; no printing, no file I/O.

GPT-2 facts and parameter counts (Chapter 5); Hoeffding, Occam, prefix codes (Chapters 9-11);
prediction smoothing and the subsampling bound (Chapters 12-14); quantization, arithmetic coding
and message length (Chapters 15-17). The Markov source of Chapters 9-11 is the submodule
`pacbound.markov` (import it by name).

The torch-based pieces (projectors, LoRA layer, subspace wrapper; Chapters 18-20) are loaded
lazily on first access, so `import pacbound` stays free of torch's import cost (about 2.5 s).
"""

from __future__ import annotations

import importlib
from typing import Any

from pacbound.arithmetic import (
    arithmetic_code_length_bits,
    arithmetic_decode,
    arithmetic_encode,
    symbol_counts,
)
from pacbound.gpt2 import (
    GPT2_CONTEXT,
    GPT2_VOCAB_SIZE,
    NANOGPT_VOCAB_SIZE,
    VOCAB_PAD_MULTIPLE,
    padded_vocab_size,
    random_guess_bits_per_token,
)
from pacbound.message import (
    MessageParts,
    empirical_entropy_bits,
    message_length_bits,
    message_parts,
)
from pacbound.occam import (
    authors_prefix_code_bits,
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
from pacbound.quantize import dequantize, quantize_uniform
from pacbound.smoothing import ALPHA_GRID, loss_range, smoothed_nll_bits
from pacbound.subsampling import subsampling_bound, union_over_grid

# name -> submodule, imported on first attribute access (these import torch)
_LAZY = {
    "PROJECTOR_KINDS": "pacbound.projectors",
    "LoRALinear": "pacbound.lora",
    "SubspaceModel": "pacbound.subspace",
    "kron_shapes": "pacbound.projectors",
    "lora_parameter_names": "pacbound.lora",
    "make_projector": "pacbound.projectors",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'pacbound' has no attribute {name!r}")


__all__ = [
    "ALPHA_GRID",
    "GPT2_CONTEXT",
    "GPT2_VOCAB_SIZE",
    "NANOGPT_VOCAB_SIZE",
    "PROJECTOR_KINDS",
    "VOCAB_PAD_MULTIPLE",
    "ComponentCounts",
    "GPT2Pieces",
    "LoRALinear",
    "MessageParts",
    "SubspaceModel",
    "arithmetic_code_length_bits",
    "arithmetic_decode",
    "arithmetic_encode",
    "authors_num_params",
    "authors_prefix_code_bits",
    "block_params",
    "dequantize",
    "empirical_entropy_bits",
    "gpt2_components",
    "gpt2_lora_params",
    "gpt2_params",
    "gpt2_pieces",
    "hoeffding_bound",
    "kraft_sum",
    "kron_shapes",
    "layernorm_params",
    "linear_params",
    "lora_factor_count",
    "lora_parameter_names",
    "loss_range",
    "make_projector",
    "message_length_bits",
    "message_parts",
    "occam_bound",
    "padded_vocab_size",
    "prefix_code_bits",
    "quantize_uniform",
    "random_guess_bits_per_token",
    "smoothed_nll_bits",
    "subsampling_bound",
    "symbol_counts",
    "union_over_grid",
]
