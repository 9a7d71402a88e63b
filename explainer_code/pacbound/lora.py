"""A LoRA linear layer small enough to read in one screen (Chapter 19).

y = W x + b + (`lora_alpha` / r) * B A dropout(x), with W frozen, A of shape (r, n_in) drawn like
nn.Linear's weight (Kaiming-uniform), B of shape (n_out, r) set to zero, so at step 0 the layer is
exactly the base layer. Only A and B are trainable. This follows loralib's `Linear`
[SOURCE: loralib/layers.py:90-152 @c4593f0 (microsoft/LoRA)]: scaling lora_alpha / r (:112),
A Kaiming-uniform and B zero (:124-125), dropout applied to the update's input only (:149).

Merging: `merge()` adds (`lora_alpha` / r) B A into W in place and skips the update from then on;
`unmerge()` takes it out again. loralib merges automatically when a layer is switched to eval
mode (:137-142); here that happens only with `merge_on_eval=True`. In-place merging changes the
weight tensor itself, so a weight shared with another module (GPT-2's head and token embedding
are one tensor) changes for that module too. The layer reuses the base layer's weight tensor
itself, so such sharing survives wrapping.
"""

from __future__ import annotations

import math

import torch
from torch import nn
from torch.nn import functional as F


class LoRALinear(nn.Module):
    """y = x W^T + b + scaling * dropout(x) A^T B^T, scaling = lora_alpha / r.

    >>> layer = LoRALinear(nn.Linear(8, 3), r=2, lora_alpha=4)
    >>> layer.scaling, tuple(layer.lora_A.shape), tuple(layer.lora_B.shape)
    (2.0, (2, 8), (3, 2))
    """

    def __init__(
        self,
        base: nn.Linear,
        r: int,
        lora_alpha: float = 1.0,
        lora_dropout: float = 0.0,
        merge_on_eval: bool = False,
    ) -> None:
        super().__init__()
        if r <= 0:
            raise ValueError("LoRA rank r must be positive")
        self.weight = base.weight  # the same Parameter: ties to other modules survive
        self.bias = base.bias
        self.weight.requires_grad_(False)
        if self.bias is not None:
            self.bias.requires_grad_(False)
        self.r, self.scaling = r, lora_alpha / r
        self.lora_A = nn.Parameter(torch.empty(r, base.in_features))
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, r))
        nn.init.kaiming_uniform_(self.lora_A, a=math.sqrt(5))  # as nn.Linear's weight
        self.dropout = nn.Dropout(lora_dropout) if lora_dropout > 0 else nn.Identity()
        self.merge_on_eval = merge_on_eval
        self.merged = False

    def delta_weight(self) -> torch.Tensor:
        """The update (`lora_alpha` / r) B A, shape (n_out, n_in)."""
        return self.scaling * (self.lora_B @ self.lora_A)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = F.linear(x, self.weight, self.bias)
        if self.merged:
            return y
        return y + self.scaling * (self.dropout(x) @ self.lora_A.T @ self.lora_B.T)

    @torch.no_grad()
    def merge(self) -> None:
        """W += (`lora_alpha` / r) B A in place (every module sharing W sees the change)."""
        if not self.merged:
            self.weight += self.delta_weight()
            self.merged = True

    @torch.no_grad()
    def unmerge(self) -> None:
        """W -= (`lora_alpha` / r) B A: undo `merge` (up to float rounding)."""
        if self.merged:
            self.weight -= self.delta_weight()
            self.merged = False

    def train(self, mode: bool = True) -> LoRALinear:
        super().train(mode)
        if self.merge_on_eval:
            self.unmerge() if mode else self.merge()
        return self


def lora_parameter_names(model: nn.Module) -> list[str]:
    """Names of every LoRA factor (`...lora_A`, `...lora_B`) in `model`, in parameter order.

    >>> lora_parameter_names(nn.Sequential(LoRALinear(nn.Linear(4, 4), r=1), nn.Linear(4, 2)))
    ['0.lora_A', '0.lora_B']
    """
    return [n for n, _ in model.named_parameters() if n.rsplit(".", 1)[-1] in ("lora_A", "lora_B")]
