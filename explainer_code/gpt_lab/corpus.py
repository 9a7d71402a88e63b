"""Training text, vocabulary and training loop for the notebook's default model.

The text is the site's own Markdown (`docs/**/*.md`), tokenized with GPT-2's BPE. The model only
needs rows for the GPT-2 tokens that actually occur, so `CompactVocab` renumbers them 0..n-1
(`<|endoftext|>` first): a few thousand rows instead of 50,257 keeps the model small and its
training quick, while every token is still exactly a GPT-2 token.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path

import tiktoken
import torch
import torch.nn.functional as F

from explainer_tools.tags import TAG_PATTERN_UNNAMED
from gpt_lab.model import GPT
from gpt_lab.tokenizer import ENDOFTEXT_ID

EXCLUDED_DIRS = ("fixtures",)  # pipeline test fixtures, not pages of the site
# Annotations, not prose: HTML comments (the embed markers) and provenance tags such as
# [MY EXPLANATION] or [PAPER App. E, p. 16]. A model trained with them would imitate them.
# The tag grammar is the site's own (explainer_tools/tags.py), so what is stripped here is exactly
# what the site renders as a badge.
ANNOTATION = re.compile(r"<!--.*?-->|" + TAG_PATTERN_UNNAMED + " ?", re.S)


def markdown_files(docs_dir: Path) -> list[Path]:
    """Every Markdown page under `docs_dir`, sorted by relative path (fixtures excluded)."""
    files = [
        p
        for p in docs_dir.rglob("*.md")
        if not any(part in EXCLUDED_DIRS for part in p.relative_to(docs_dir).parts)
    ]
    return sorted(files, key=lambda p: p.relative_to(docs_dir).as_posix())


def strip_annotations(markdown: str) -> str:
    """The page without HTML comments and provenance tags.

    >>> strip_annotations("[MY EXPLANATION] A head <!-- embed: x -->reads.")
    'A head reads.'
    """
    return ANNOTATION.sub("", markdown)


def corpus_tokens(files: list[Path], enc: tiktoken.Encoding) -> list[int]:
    """GPT-2 token ids of all files (annotations stripped), each document followed by
    `<|endoftext|>`, the separator GPT-2 was trained with."""
    ids: list[int] = []
    for path in files:
        ids += enc.encode_ordinary(strip_annotations(path.read_text(encoding="utf-8")))
        ids.append(ENDOFTEXT_ID)
    return ids


@dataclass(frozen=True)
class CompactVocab:
    """A renumbering of the GPT-2 tokens that occur in a corpus.

    >>> v = CompactVocab.from_ids([995, 15496, 995])
    >>> v.gpt2_ids, v.to_compact([15496, 995])
    ((50256, 995, 15496), [2, 1])
    """

    gpt2_ids: tuple[int, ...]  # compact id -> GPT-2 id

    @classmethod
    def from_ids(cls, ids: list[int]) -> CompactVocab:
        rest = sorted(set(ids) - {ENDOFTEXT_ID})
        return cls((ENDOFTEXT_ID, *rest))

    def __len__(self) -> int:
        return len(self.gpt2_ids)

    def to_compact(self, gpt2_ids: list[int]) -> list[int]:
        index = {g: i for i, g in enumerate(self.gpt2_ids)}
        missing = [g for g in gpt2_ids if g not in index]
        if missing:
            raise KeyError(f"GPT-2 tokens not in this vocabulary: {missing}")
        return [index[g] for g in gpt2_ids]

    def to_gpt2(self, compact_ids: list[int]) -> list[int]:
        return [self.gpt2_ids[i] for i in compact_ids]


def split_train_val(ids: torch.Tensor, chunk: int, every: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Cut the token stream into chunks of `chunk` tokens; every `every`-th chunk (the last of
    each group) goes to validation. Interleaving keeps every page represented in both parts."""
    n_chunks = len(ids) // chunk
    chunks = ids[: n_chunks * chunk].view(n_chunks, chunk)
    is_val = (torch.arange(n_chunks) % every) == every - 1
    return chunks[~is_val].flatten(), chunks[is_val].flatten()


def random_windows(
    data: torch.Tensor, batch_size: int, length: int, generator: torch.Generator
) -> tuple[torch.Tensor, torch.Tensor]:
    """`batch_size` random windows of `length` tokens and their targets (shifted by one)."""
    starts = torch.randint(len(data) - length - 1, (batch_size,), generator=generator).tolist()
    windows = torch.stack([data[s : s + length + 1] for s in starts])
    return windows[:, :-1], windows[:, 1:]


@torch.no_grad()
def mean_loss(model: GPT, data: torch.Tensor, length: int) -> float:
    """Cross-entropy in nats per token over consecutive, non-overlapping windows of `data`."""
    n = (len(data) - 1) // length
    x = data[: n * length].view(n, length)
    y = data[1 : n * length + 1].view(n, length)
    logits = model(x).logits
    return float(F.cross_entropy(logits.flatten(0, 1), y.flatten()))


@dataclass(frozen=True)
class TrainSettings:
    steps: int = 600
    batch_size: int = 16
    length: int = 64  # tokens per training window
    lr: float = 3e-3
    warmup: int = 50
    eval_every: int = 50
    seed: int = 0


def train(
    model: GPT, train_ids: torch.Tensor, val_ids: torch.Tensor, s: TrainSettings
) -> list[tuple[int, float, float]]:
    """AdamW with linear warm-up and cosine decay; returns (step, train loss, validation loss)
    every `eval_every` steps and after the last, in nats per token: the validation loss over the
    whole validation split, the training loss over an equally long stretch of training tokens."""
    generator = torch.Generator().manual_seed(s.seed)
    opt = torch.optim.AdamW(model.parameters(), lr=s.lr, weight_decay=0.1, betas=(0.9, 0.95))

    def lr_at(step: int) -> float:
        if step < s.warmup:
            return s.lr * (step + 1) / s.warmup
        progress = (step - s.warmup) / max(1, s.steps - s.warmup)
        return s.lr * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))

    train_probe = train_ids[: len(val_ids)]  # as many training tokens as validation ones
    history = []
    for step in range(s.steps + 1):
        if step % s.eval_every == 0 or step == s.steps:
            model.eval()
            history.append(
                (step, mean_loss(model, train_probe, s.length), mean_loss(model, val_ids, s.length))
            )
            model.train()
        if step == s.steps:
            break
        for group in opt.param_groups:
            group["lr"] = lr_at(step)
        x, y = random_windows(train_ids, s.batch_size, s.length, generator)
        loss = F.cross_entropy(model(x).logits.flatten(0, 1), y.flatten())
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
    model.eval()
    return history
