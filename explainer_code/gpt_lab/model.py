"""A GPT in the shape of GPT-2, written to be opened up.

Names follow nanoGPT's `model.py` and GPT-2's checkpoints (`transformer.wte`, `transformer.h[i]
.attn.c_attn`, `mlp.c_fc`, `ln_f`, `lm_head`), so `hf_weights` can load real GPT-2 weights into
it. Differences from nanoGPT, all for inspection: attention is computed explicitly (no fused
kernel) so its probabilities can be returned; `forward` can return the residual stream after
every block and every attention map; and it takes an explicit key/value cache. Left out: dropout
and the optimizer set-up.

Shapes in comments: B batch, T new positions, S all positions (cache + new), C = n_embd,
H = n_head, D = C / H.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import torch
import torch.nn as nn

KVCache = list[tuple[torch.Tensor, torch.Tensor]]  # per layer: keys and values (B, H, S, D)


@dataclass(frozen=True)
class GPTConfig:
    block_size: int = 1024  # longest context (learned position embeddings)
    vocab_size: int = 50257
    n_layer: int = 12
    n_head: int = 12
    n_embd: int = 768
    layer_norm_eps: float = 1e-5


@dataclass
class Trace:
    """What one forward pass returns."""

    logits: torch.Tensor  # (B, T, vocab_size)
    cache: KVCache | None = None  # keys/values of every position seen so far
    residual: list[torch.Tensor] = field(default_factory=list)  # n_layer + 1 x (B, T, C)
    attention: list[torch.Tensor] = field(default_factory=list)  # n_layer x (B, H, T, S)


class CausalSelfAttention(nn.Module):
    def __init__(self, config: GPTConfig) -> None:
        super().__init__()
        self.n_head = config.n_head
        self.c_attn = nn.Linear(config.n_embd, 3 * config.n_embd)  # W_Q, W_K, W_V side by side
        self.c_proj = nn.Linear(config.n_embd, config.n_embd)  # W_O

    def forward(
        self, x: torch.Tensor, past: tuple[torch.Tensor, torch.Tensor] | None = None
    ) -> tuple[torch.Tensor, torch.Tensor, tuple[torch.Tensor, torch.Tensor]]:
        B, T, C = x.shape
        q, k, v = self.c_attn(x).split(C, dim=2)
        q, k, v = (t.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) for t in (q, k, v))
        if past is not None:  # earlier positions: their keys and values never change
            k = torch.cat([past[0], k], dim=2)  # (B, H, S, D)
            v = torch.cat([past[1], v], dim=2)
        S = k.shape[2]
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (B, H, T, S)
        # query t (absolute position S - T + t) may look at keys 0 .. S - T + t, never later ones
        allowed = torch.ones(T, S, dtype=torch.bool, device=x.device).tril(diagonal=S - T)
        att = scores.masked_fill(~allowed, float("-inf")).softmax(dim=-1)
        y = (att @ v).transpose(1, 2).reshape(B, T, C)  # heads side by side again
        return self.c_proj(y), att, (k, v)


class MLP(nn.Module):
    def __init__(self, config: GPTConfig) -> None:
        super().__init__()
        self.c_fc = nn.Linear(config.n_embd, 4 * config.n_embd)
        self.gelu = nn.GELU(approximate="tanh")  # GPT-2's "gelu_new"
        self.c_proj = nn.Linear(4 * config.n_embd, config.n_embd)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.c_proj(self.gelu(self.c_fc(x)))


class Block(nn.Module):
    def __init__(self, config: GPTConfig) -> None:
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.n_embd, eps=config.layer_norm_eps)
        self.attn = CausalSelfAttention(config)
        self.ln_2 = nn.LayerNorm(config.n_embd, eps=config.layer_norm_eps)
        self.mlp = MLP(config)

    def forward(self, x: torch.Tensor, past: tuple[torch.Tensor, torch.Tensor] | None = None):
        a, att, kv = self.attn(self.ln_1(x), past)
        x = x + a  # positions exchange information
        x = x + self.mlp(self.ln_2(x))  # each position is processed on its own
        return x, att, kv


class GPT(nn.Module):
    def __init__(self, config: GPTConfig) -> None:
        super().__init__()
        self.config = config
        self.transformer = nn.ModuleDict(
            {
                "wte": nn.Embedding(config.vocab_size, config.n_embd),
                "wpe": nn.Embedding(config.block_size, config.n_embd),
                "h": nn.ModuleList(Block(config) for _ in range(config.n_layer)),
                "ln_f": nn.LayerNorm(config.n_embd, eps=config.layer_norm_eps),
            }
        )
        self.lm_head = nn.Linear(config.n_embd, config.vocab_size, bias=False)
        self.lm_head.weight = self.transformer.wte.weight  # tied, as in GPT-2
        self.apply(self._init_weights)
        for name, p in self.named_parameters():  # GPT-2's scaled init of residual projections
            if name.endswith("c_proj.weight"):
                nn.init.normal_(p, mean=0.0, std=0.02 / math.sqrt(2 * config.n_layer))

    @staticmethod
    def _init_weights(module: nn.Module) -> None:
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def num_params(self) -> int:
        """Every parameter once (the tied embedding/unembedding counted once)."""
        return sum(p.numel() for p in self.parameters())

    def unembed(self, residual: torch.Tensor) -> torch.Tensor:
        """Final layer norm, then the (tied) unembedding: residual (.., C) -> logits (.., V)."""
        return self.lm_head(self.transformer.ln_f(residual))

    def forward(
        self,
        idx: torch.Tensor,
        cache: KVCache | None = None,
        trace: bool = False,
        last_only: bool = False,
    ) -> Trace:
        """Logits for every position of `idx` (B, T); `cache` holds the keys/values of earlier
        positions (then `idx` holds only the new ones). With `trace`, also return the residual
        stream before the first block and after each block, and every attention map. With
        `last_only`, compute the logits of the last position only (B, 1, V): all that generation
        needs, and the unembedding is a large part of the work per position."""
        T = idx.shape[1]
        start = 0 if cache is None else cache[0][0].shape[2]
        if start + T > self.config.block_size:
            raise ValueError(f"{start + T} positions exceed block_size {self.config.block_size}")
        pos = torch.arange(start, start + T, device=idx.device)
        x = self.transformer.wte(idx) + self.transformer.wpe(pos)  # (B, T, C)
        out = Trace(logits=x, cache=[])
        for i, block in enumerate(self.transformer.h):
            if trace:
                out.residual.append(x)
            x, att, kv = block(x, None if cache is None else cache[i])
            out.cache.append(kv)
            if trace:
                out.attention.append(att)
        if trace:
            out.residual.append(x)
        out.logits = self.unembed(x[:, -1:] if last_only else x)
        return out


def next_token(logits: torch.Tensor, temperature: float, generator: torch.Generator) -> int:
    """Pick the next token from one row of logits (V,): argmax at temperature 0, else a sample
    from softmax(logits / temperature)."""
    if temperature == 0:
        return int(logits.argmax())
    probs = (logits / temperature).softmax(dim=-1)
    return int(torch.multinomial(probs, 1, generator=generator))


@torch.no_grad()
def generate(
    model: GPT,
    prompt: list[int],
    n_new: int,
    temperature: float = 0.0,
    seed: int = 0,
    use_cache: bool = True,
) -> list[int]:
    """Append `n_new` tokens to `prompt`, one at a time, and return the new ones.

    With `use_cache`, the prompt is processed once and each later step feeds only the newest
    token plus the stored keys/values; without it, every step re-runs the whole sequence.
    Both give the same tokens (up to float rounding in near-ties); only the work differs.
    """
    generator = torch.Generator().manual_seed(seed)
    ids = list(prompt)
    cache: KVCache | None = None
    for _ in range(n_new):
        if use_cache:
            fresh = ids if cache is None else ids[-1:]
            out = model(torch.tensor([fresh]), cache=cache)
            cache = out.cache
        else:
            out = model(torch.tensor([ids[-model.config.block_size :]]))
        ids.append(next_token(out.logits[0, -1], temperature, generator))
    return ids[len(prompt) :]
