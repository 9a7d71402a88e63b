"""Train a torch model in a random subspace: theta = theta_0 + P w, only w trainable (Ch. 18, 20).

`SubspaceModel(model, names, d, kind, seed)` freezes every parameter of `model`, picks the tensors
`names` (all parameters by default; `lora_parameter_names(model)` for SubLoRA), concatenates
them into one vector theta_0 of length D (in the order of `names`), and owns one new parameter
w in R^d, initialised to zero. Its forward pass runs `model` with the chosen tensors replaced by
the pieces of theta_0 + P w (via `torch.func.functional_call`; the stored tensors are never
modified), so w = 0 reproduces the model exactly and gradients reach w only.

Unlike the authors' `IDModule`, which keeps the model in a plain Python list
[SOURCE: sublora/nn/projectors.py:130 @c606ea6], the model here is a registered submodule, so
`.eval()` and `.train()` reach its dropout layers.

>>> net = torch.nn.Linear(3, 2)
>>> sub = SubspaceModel(net, d=4, kind="dense", seed=0)
>>> sub.D, sub.d, [n for n, p in sub.named_parameters() if p.requires_grad]
(8, 4, ['w'])
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn
from torch.func import functional_call

from pacbound.lora import LoRALinear
from pacbound.projectors import Projector, make_projector


class SubspaceModel(nn.Module):
    """`model` with tensors `names` set to theta_0 + P w; `w` (zeros(d)) is the only trainable."""

    def __init__(
        self,
        model: nn.Module,
        names: Sequence[str] | None = None,
        *,
        d: int,
        kind: str = "rdkronqr",
        seed: int = 0,
        projector: Projector | None = None,
    ) -> None:
        super().__init__()
        params = dict(model.named_parameters())
        self.names = list(params) if names is None else list(names)
        missing = [n for n in self.names if n not in params]
        if missing:
            raise KeyError(f"not parameters of the model: {missing}")
        for m in model.modules():
            if isinstance(m, LoRALinear) and m.merge_on_eval:
                raise ValueError("merge_on_eval would merge theta_0's factors, not theta_0 + P w")
        for p in model.parameters():
            p.requires_grad_(False)
        self.model = model
        self.shapes = [params[n].shape for n in self.names]
        self.sizes = [params[n].numel() for n in self.names]
        self.D = sum(self.sizes)
        self.d = d
        if projector is None:
            projector = make_projector(kind, self.D, d, seed)
        self.projector = projector
        if (self.projector.D, self.projector.d) != (self.D, d):
            raise ValueError("projector shape does not match (D, d)")
        self.w = nn.Parameter(torch.zeros(d))

    def theta_0(self) -> torch.Tensor:
        """The chosen tensors of the wrapped model, flattened and concatenated: shape (D,)."""
        params = dict(self.model.named_parameters())
        return torch.cat([params[n].reshape(-1) for n in self.names])

    def current_tensors(self) -> dict[str, torch.Tensor]:
        """{name: theta_0 piece + (P w) piece}, each in its tensor's shape."""
        params = dict(self.model.named_parameters())
        pieces = torch.split(self.projector.apply(self.w), self.sizes)
        return {
            n: params[n] + piece.reshape(shape)
            for n, piece, shape in zip(self.names, pieces, self.shapes, strict=True)
        }

    def forward(self, *args: object, **kwargs: object) -> torch.Tensor:
        return functional_call(self.model, self.current_tensors(), args, kwargs)
