"""Facts about GPT-2 that every chapter uses: vocabulary, context window, padding, random guessing.

Sources: the GPT-2 tokenizer (50,257 entries) [SOURCE: GPT-2 encoder.json], nanoGPT's padding of
the vocabulary to a multiple of 64 [SOURCE: nanoGPT model.py, GPTConfig], the context of 1024
tokens [SECONDARY: paper App. E, p. 16; SOURCE: nanoGPT GPTConfig.block_size].
"""

from __future__ import annotations

import math

GPT2_VOCAB_SIZE: int = 50_257
"""Entries of the GPT-2 tokenizer (50,000 merges + 256 bytes + `<|endoftext|>`)."""

GPT2_CONTEXT: int = 1_024
"""Context window, nanoGPT's `block_size`: the most tokens the model reads at once."""

VOCAB_PAD_MULTIPLE: int = 64
"""nanoGPT rounds the vocabulary up to a multiple of this, for faster matrix kernels."""


def padded_vocab_size(vocab_size: int = GPT2_VOCAB_SIZE, multiple: int = VOCAB_PAD_MULTIPLE) -> int:
    """Smallest multiple of `multiple` that is at least `vocab_size`: ceil(V / m) * m.

    >>> padded_vocab_size(50_257)
    50304
    """
    if vocab_size < 1 or multiple < 1:
        raise ValueError("vocab_size and multiple must be positive")
    return -(-vocab_size // multiple) * multiple


NANOGPT_VOCAB_SIZE: int = padded_vocab_size(GPT2_VOCAB_SIZE)
"""nanoGPT's padded vocabulary, 50,304 rows of the embedding (47 of them never a real token)."""


def random_guess_bits_per_token(vocab_size: int = GPT2_VOCAB_SIZE) -> float:
    """Surprisal of a uniform guess over the vocabulary, in bits per token: log2(V).

    >>> round(random_guess_bits_per_token(), 3)
    15.617
    """
    if vocab_size < 1:
        raise ValueError("vocab_size must be positive")
    return math.log2(vocab_size)
