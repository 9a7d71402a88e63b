"""pacbound: the book's shared helpers. Typed pure functions; no printing, no file I/O.

GPT-2 facts and parameter counts (Chapter 5); prediction smoothing and the subsampling bound
(Chapters 12-14).

The torch-based pieces (projectors, LoRA layer, subspace wrapper; Chapters 18-20) are loaded
lazily on first access, so `import pacbound` stays free of torch's import cost (about 2.5 s).
"""

from __future__ import annotations

import importlib
from typing import Any

from pacbound.gpt2 import (
    GPT2_CONTEXT,
    GPT2_VOCAB_SIZE,
    NANOGPT_VOCAB_SIZE,
    VOCAB_PAD_MULTIPLE,
    padded_vocab_size,
    random_guess_bits_per_token,
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
    "SubspaceModel",
    "authors_num_params",
    "block_params",
    "gpt2_components",
    "gpt2_lora_params",
    "gpt2_params",
    "gpt2_pieces",
    "kron_shapes",
    "layernorm_params",
    "linear_params",
    "lora_factor_count",
    "lora_parameter_names",
    "loss_range",
    "make_projector",
    "padded_vocab_size",
    "random_guess_bits_per_token",
    "smoothed_nll_bits",
    "subsampling_bound",
    "union_over_grid",
]
