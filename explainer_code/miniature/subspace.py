"""The four ways Chapter 22 trains and codes the same GPT: which numbers are trained and coded.

    kind        trained vector w            network weights                    coded
    sublora     d numbers                   theta_LoRA = theta_LoRA,0 + P w    w (d numbers)
    lora        all LoRA numbers            theta_LoRA = w                     w (D_LoRA numbers)
    subspace    d numbers                   theta = theta_0 + P w (no LoRA)    w (d numbers)
    full        all weights                 theta = w (no LoRA)                w (D numbers)

Everything not trained stays at the random initialization theta_0, a function of the model seed,
and P is a function of the projector seed: both cost no bits. P is the authors' "rdkronqr"
projector [SOURCE: sublora-bounds-for-llms sublora/nn/create_model.py:57,102 @c606ea6], built by
`pacbound.make_projector` (Chapter 18).
"""

from __future__ import annotations

import dataclasses

import torch
from torch import nn
from torch.func import functional_call

from miniature.model import GPT, GPTConfig, build_model

KINDS = ("sublora", "lora", "subspace", "full")


def _to_device(projector, device: torch.device):
    moved = {
        f.name: getattr(projector, f.name).to(device)
        for f in dataclasses.fields(projector)
        if isinstance(getattr(projector, f.name), torch.Tensor)
    }
    return dataclasses.replace(projector, **moved)


class Parametrization(nn.Module):
    """Holds theta_0, P and the trained vector `w`; `forward(idx)` runs the GPT at theta(w)."""

    def __init__(self, cfg: GPTConfig, kind: str, d: int, model_seed: int, proj_seed: int,
                 lora_rank: int = 4, device: str | torch.device = "cpu") -> None:
        super().__init__()
        if kind not in KINDS:
            raise ValueError(f"kind {kind!r} not in {KINDS}")
        self.kind = kind
        uses_lora = kind in ("sublora", "lora")
        cfg = dataclasses.replace(cfg, lora_rank=lora_rank if uses_lora else 0)
        self.cfg = cfg
        gpt = build_model(cfg, model_seed).to(device)
        for p in gpt.parameters():
            p.requires_grad_(False)
        self.gpt = [gpt]  # a list keeps the GPT's tensors out of this module's parameters
        named = dict(gpt.named_parameters())
        self.names = [n for n in named if ("lora_" in n) == uses_lora]
        self.shapes = [named[n].shape for n in self.names]
        self.fixed = {n: t for n, t in named.items() if n not in self.names}
        self.register_buffer("theta0", torch.cat([named[n].reshape(-1) for n in self.names]))
        self.D = self.theta0.numel()
        self.projector = None
        if kind in ("sublora", "subspace"):
            import pacbound  # imported here: pacbound's projectors import torch

            self.projector = _to_device(pacbound.make_projector("rdkronqr", self.D, d, proj_seed),
                                        torch.device(device))
            self.w = nn.Parameter(torch.zeros(d, device=device))
        else:
            self.w = nn.Parameter(self.theta0.clone())
        self.override: torch.Tensor | None = None  # a quantized w, used in place of w
        self.ste = None  # during quantization-aware steps: w -> quantized w (see train.py)

    @property
    def d(self) -> int:
        return self.w.numel()

    def theta(self, w: torch.Tensor) -> torch.Tensor:
        return self.theta0 + self.projector.apply(w) if self.projector is not None else w

    def params(self, w: torch.Tensor) -> dict[str, torch.Tensor]:
        flat, out, start = self.theta(w), dict(self.fixed), 0
        for name, shape in zip(self.names, self.shapes, strict=True):
            n = shape.numel()
            out[name] = flat[start : start + n].view(shape)
            start += n
        return out

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        w = self.w if self.override is None else self.override
        if self.ste is not None:  # straight-through: forward at the quantized w, gradient to w
            w = w + (self.ste(w.detach()) - w).detach()
        return functional_call(self.gpt[0], self.params(w), (idx,))


def count_params(cfg: GPTConfig, lora_rank: int = 4) -> dict[str, int]:
    """Numbers in each group: base weights (tied head counted once) and LoRA tensors."""
    gpt = GPT(dataclasses.replace(cfg, lora_rank=lora_rank))
    named = dict(gpt.named_parameters())
    lora = sum(t.numel() for n, t in named.items() if "lora_" in n)
    return {"base": sum(t.numel() for t in named.values()) - lora, "lora": lora}
