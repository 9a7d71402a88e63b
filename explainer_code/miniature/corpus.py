"""Documents for the miniature: a synthetic Markov source and WordNet's glosses, as token arrays.

Every document is a 1-D array of token ids. Token 0 is the end-of-document token `EOD`; a scored
document is read as `EOD x_1 ... x_L EOD`: the model sees the leading EOD as context and predicts
x_1, ..., x_L and the closing EOD, so L + 1 tokens are scored (Chapter 13 explains why whole
documents are the samples).

- `MarkovSource`: V = 32 tokens (31 symbols and EOD), an order-1 chain with transition rows drawn
  from Dirichlet(0.1) once from a seed; after each symbol the document ends with probability
  `p_end`. Unlimited documents, and its exact entropy rate, best possible per-document risk and
  best possible top-1 error are computable (`miniature.source_facts`).
- WordNet 3.0 glosses (`data/wordnet_glosses.txt.xz`, see `data/wordnet_glosses.md`): 117,659
  definitions, lower-cased, characters mapped to V = 48 tokens.
"""

from __future__ import annotations

import hashlib
import lzma
from dataclasses import dataclass
from pathlib import Path

import numpy as np

EOD = 0
DATA_DIR = Path(__file__).resolve().parent.parent / "data"
WORDNET_FILE = DATA_DIR / "wordnet_glosses.txt.xz"
WORDNET_SHA256 = "c723fc9358aedeb35c42330d5d567c274e5d80a483ca78ca0305e6801843104c"
ALPHABET = " abcdefghijklmnopqrstuvwxyz0123456789;(),-'.:`?"  # '?' also stands for any other
WORDNET_VOCAB = len(ALPHABET) + 1  # + EOD


# ------------------------------------------------------------------------------ Markov source
@dataclass(frozen=True)
class MarkovSource:
    """Order-1 Markov documents. `start` (V,) and `trans` (V, V) put zero mass on EOD;
    after each symbol the document ends with probability `p_end`."""

    start: np.ndarray  # (V,) first-symbol distribution, start[EOD] = 0
    trans: np.ndarray  # (V, V) row x: next-symbol distribution given x, trans[:, EOD] = 0
    p_end: float

    @property
    def vocab(self) -> int:
        return self.start.shape[0]

    def next_token_probs(self) -> np.ndarray:
        """(V, V): row x = the true distribution of the token after x, EOD included.

        Row EOD is the distribution of the first symbol (a document starts after an EOD)."""
        p = (1.0 - self.p_end) * self.trans
        p[:, EOD] = self.p_end
        p[EOD] = self.start
        return p

    def sample(self, n_docs: int, seed: int) -> list[np.ndarray]:
        """`n_docs` documents x_1..x_L (uint8, without EODs), all chains advanced together."""
        rng = np.random.default_rng(seed)
        lengths = rng.geometric(self.p_end, size=n_docs)  # L >= 1, mean 1 / p_end
        out = np.zeros((n_docs, int(lengths.max())), dtype=np.uint8)
        cdf_start = np.cumsum(self.start)
        cdf = np.cumsum(self.trans, axis=1)
        first = np.searchsorted(cdf_start, rng.random(n_docs), side="right")
        cur = np.minimum(first, self.vocab - 1)
        out[:, 0] = cur
        for t in range(1, out.shape[1]):
            live = np.flatnonzero(lengths > t)
            if live.size == 0:
                break
            u = rng.random(live.size)
            nxt = (cdf[cur[live]] <= u[:, None]).sum(axis=1)
            cur[live] = np.minimum(nxt, self.vocab - 1)
            out[live, t] = cur[live]
        return [out[i, : lengths[i]].copy() for i in range(n_docs)]


def make_markov_source(vocab: int = 32, concentration: float = 0.1, p_end: float = 1 / 64,
                       seed: int = 0) -> MarkovSource:
    """Transition rows ~ Dirichlet(concentration) over the V - 1 symbols, start uniform."""
    rng = np.random.default_rng(seed)
    trans = np.zeros((vocab, vocab))
    trans[:, 1:] = rng.dirichlet(np.full(vocab - 1, concentration), size=vocab)
    trans[EOD] = 0.0  # never used: after EOD comes `start`
    start = np.zeros(vocab)
    start[1:] = 1.0 / (vocab - 1)
    return MarkovSource(start=start, trans=trans, p_end=p_end)


def hash_seed(*parts: int) -> int:
    """A 63-bit seed from integers, stable across platforms (no Python hash())."""
    digest = hashlib.sha256(",".join(str(p) for p in parts).encode()).digest()
    return int.from_bytes(digest[:8], "little") >> 1


# ------------------------------------------------------------------------------ WordNet glosses
def encode_text(text: str) -> np.ndarray:
    """'a cat' -> tokens (1-based positions in ALPHABET; unknown characters as '?')."""
    index = {c: i + 1 for i, c in enumerate(ALPHABET)}
    other = index["?"]
    return np.array([index.get(c, other) for c in text], dtype=np.uint8)


def decode_tokens(tokens: np.ndarray) -> str:
    return "".join("|" if t == EOD else ALPHABET[t - 1] for t in tokens)


def load_wordnet() -> list[np.ndarray]:
    """All 117,659 glosses as token arrays, in file order; checks the file's SHA-256."""
    data = lzma.decompress(WORDNET_FILE.read_bytes())
    digest = hashlib.sha256(data).hexdigest()
    if digest != WORDNET_SHA256:
        raise ValueError(f"{WORDNET_FILE.name}: sha256 {digest} is not the recorded one")
    lookup = np.zeros(256, dtype=np.uint8)
    for i, c in enumerate(ALPHABET):
        lookup[ord(c)] = i + 1
    lines = data.decode("ascii").split("\n")[:-1]
    return [lookup[np.frombuffer(line.encode("ascii"), dtype=np.uint8)] for line in lines]


def split_documents(n_docs: int, n_test: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Indices of a random train/test split: (train, test), each sorted."""
    perm = np.random.default_rng(seed).permutation(n_docs)
    return np.sort(perm[n_test:]), np.sort(perm[:n_test])


# ------------------------------------------------------------------------------ a set of documents
@dataclass(frozen=True)
class DocSet:
    """Documents laid end to end as one stream `EOD d_0 EOD d_1 EOD ... d_{N-1} EOD`.

    Document i is stream[starts[i] : starts[i] + lengths[i]]; the EOD before it is its context,
    the EOD after it its last target. Training windows are cut from the stream (nanoGPT style)."""

    stream: np.ndarray  # uint8
    starts: np.ndarray  # int64 (N,)
    lengths: np.ndarray  # int64 (N,)

    @property
    def n_docs(self) -> int:
        return int(self.starts.shape[0])

    @classmethod
    def from_docs(cls, docs: list[np.ndarray]) -> DocSet:
        lengths = np.array([len(d) for d in docs], dtype=np.int64)
        starts = np.cumsum(np.concatenate([[1], lengths[:-1] + 1]))
        stream = np.zeros(int(lengths.sum() + len(docs) + 1), dtype=np.uint8)
        for s, d in zip(starts, docs, strict=True):
            stream[s : s + len(d)] = d
        return cls(stream, starts, lengths)

    def subset(self, indices: np.ndarray) -> DocSet:
        return DocSet.from_docs([self.doc(int(i)) for i in indices])

    def doc(self, i: int) -> np.ndarray:
        return self.stream[self.starts[i] : self.starts[i] + self.lengths[i]]


def markov_docset(source: MarkovSource, n_docs: int, seed: int, block: int = 4096) -> DocSet:
    """Documents 0..n_docs-1 of a seeded stream, sampled in blocks of `block` documents with seeds
    hash_seed(seed, b): the first N documents are the same whatever n_docs >= N is asked for."""
    docs: list[np.ndarray] = []
    for b in range(-(-n_docs // block)):
        docs += source.sample(block, seed=hash_seed(seed, b))  # whole blocks: prefix-stable
    return DocSet.from_docs(docs[:n_docs])


# ------------------------------------------------------------------------------ a copying source
@dataclass(frozen=True)
class RepeatSource:
    """Documents u_1 .. u_B u_1 .. u_B: B symbols drawn uniformly from the V - 1 symbols, then
    the same B again. The second half is determined by the first, B places back: a reader that
    looks B tokens back predicts it exactly; a count table over the last k <= 2 tokens cannot.

    Best possible per-document risk, exactly: the B first-half targets cost log2(V - 1) bits
    each, the B copies and the closing EOD (its position is fixed) cost nothing, so the mean over
    the 2B + 1 targets is B log2(V - 1) / (2B + 1)."""

    vocab: int = 32
    span: int = 16

    def best_bits(self) -> float:
        import math

        return self.span * math.log2(self.vocab - 1) / (2 * self.span + 1)

    def sample(self, n_docs: int, seed: int) -> list[np.ndarray]:
        rng = np.random.default_rng(seed)
        half = rng.integers(1, self.vocab, size=(n_docs, self.span), dtype=np.uint8)
        docs = np.concatenate([half, half], axis=1)
        return [docs[i].copy() for i in range(n_docs)]


def repeat_docset(source: RepeatSource, n_docs: int, seed: int, block: int = 4096) -> DocSet:
    """Like `markov_docset`: blocks of documents with seeds hash_seed(seed, b), prefix-stable."""
    docs: list[np.ndarray] = []
    for b in range(-(-n_docs // block)):
        docs += source.sample(block, seed=hash_seed(seed, b))
    return DocSet.from_docs(docs[:n_docs])
