"""A nanoGPT-style character GPT with optional LoRA on the authors' matrices.

Layout as nanoGPT's `model.py` (`wte`, `wpe`, `h.i.ln_1`, `attn`, `ln_2`, `mlp.c_fc`,
`mlp.c_proj`, `ln_f`, `lm_head` tied to `wte`) [SOURCE: nanoGPT model.py @3adf61e], with the
attention's query, key and value as three separate matrices, as in the authors' default
(`use_mergedlinear: False`) [SOURCE: sublora-bounds-for-llms sublora/nn/model.py:80-84
@c606ea6]. LoRA (`pacbound.LoRALinear`, Chapter 19), when `lora_rank > 0`, sits where the authors
put it: the query and value matrices of every block and the output head [SOURCE:
sublora-bounds-for-llms sublora/nn/model.py:80-84, 275-276 @c606ea6]; `lora_everywhere` adds it
to the attention output and both MLP matrices. No dropout anywhere: the predictor we bound is
deterministic (the authors' LoRA dropout stays on while they evaluate the bound).

The model is used functionally (`torch.func.functional_call`): `miniature.subspace` builds the
parameter dictionary from a trained vector, so one module serves every variant of Chapter 22.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch
import torch.nn.functional as F
from pacbound.lora import LoRALinear
from torch import nn


@dataclass(frozen=True)
class GPTConfig:
    vocab_size: int = 32
    block_size: int = 64  # context window, tokens
    n_layer: int = 2
    n_head: int = 4
    n_embd: int = 64
    lora_rank: int = 0  # 0: no LoRA tensors
    lora_alpha: float = 32.0  # scaling lora_alpha / rank   [SOURCE: config/sublora_bounds.yaml:23]
    lora_everywhere: bool = False  # False: query, value, head (the authors); True: every matrix


def linear(cfg: GPTConfig, n_in: int, n_out: int, lora: bool, bias: bool = True) -> nn.Module:
    base = nn.Linear(n_in, n_out, bias=bias)
    return LoRALinear(base, r=cfg.lora_rank, lora_alpha=cfg.lora_alpha) if lora else base


class CausalSelfAttention(nn.Module):
    def __init__(self, cfg: GPTConfig) -> None:
        super().__init__()
        on, every, C = cfg.lora_rank > 0, cfg.lora_rank > 0 and cfg.lora_everywhere, cfg.n_embd
        self.n_head = cfg.n_head
        self.q_proj = linear(cfg, C, C, on)
        self.k_proj = linear(cfg, C, C, False)
        self.v_proj = linear(cfg, C, C, on)
        self.c_proj = linear(cfg, C, C, every)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        B, T, C = x.shape
        q, k, v = (
            p(x).view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
            for p in (self.q_proj, self.k_proj, self.v_proj)
        )  # each (B, H, T, hs)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)  # (B, H, T, hs)
        return self.c_proj(y.transpose(1, 2).reshape(B, T, C))


class MLP(nn.Module):
    def __init__(self, cfg: GPTConfig) -> None:
        super().__init__()
        every = cfg.lora_rank > 0 and cfg.lora_everywhere
        self.c_fc = linear(cfg, cfg.n_embd, 4 * cfg.n_embd, every)
        self.c_proj = linear(cfg, 4 * cfg.n_embd, cfg.n_embd, every)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.c_proj(F.gelu(self.c_fc(x)))


class Block(nn.Module):
    def __init__(self, cfg: GPTConfig) -> None:
        super().__init__()
        self.ln_1 = nn.LayerNorm(cfg.n_embd)
        self.attn = CausalSelfAttention(cfg)
        self.ln_2 = nn.LayerNorm(cfg.n_embd)
        self.mlp = MLP(cfg)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, cfg: GPTConfig) -> None:
        super().__init__()
        self.cfg = cfg
        self.wte = nn.Embedding(cfg.vocab_size, cfg.n_embd)
        self.wpe = nn.Embedding(cfg.block_size, cfg.n_embd)
        self.h = nn.ModuleList(Block(cfg) for _ in range(cfg.n_layer))
        self.ln_f = nn.LayerNorm(cfg.n_embd)
        self.lm_head = linear(cfg, cfg.n_embd, cfg.vocab_size, cfg.lora_rank > 0, bias=False)
        self.lm_head.weight = self.wte.weight  # weight tying, as nanoGPT
        # nanoGPT's initialization: N(0, 0.02^2), residual projections / sqrt(2 n_layer), biases 0
        for name, p in self.named_parameters():
            if "lora_" in name:
                continue
            if p.dim() == 2:
                std = 0.02 / math.sqrt(2 * cfg.n_layer) if name.endswith("c_proj.weight") else 0.02
                nn.init.normal_(p, mean=0.0, std=std)
            elif name.endswith(".bias"):
                nn.init.zeros_(p)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        T = idx.shape[1]
        x = self.wte(idx) + self.wpe(torch.arange(T, device=idx.device))  # (B, T, C)
        for block in self.h:
            x = block(x)
        return self.lm_head(self.ln_f(x))  # logits (B, T, V)


def build_model(cfg: GPTConfig, seed: int) -> GPT:
    """The model at its random initialization theta_0, a function of `seed` alone."""
    torch.manual_seed(seed)
    return GPT(cfg)
