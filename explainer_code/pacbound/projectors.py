"""Random projectors P: R^d -> R^D for subspace training, theta = theta_0 + P w (Chapters 18-20).

A projector is a fixed random D x d matrix that is never stored whole when a cheaper structure
does the job. Every projector here exposes the same small interface:

- `apply(w)`: P w, a (D,) tensor from a (d,) tensor; differentiable in w (plain torch ops).
- `apply_transpose(v)`: P^T v, a (d,) tensor from a (D,) tensor (the gradient map).
- `to_dense()`: the full D x d matrix, for tests and small examples only.
- `nbytes`: bytes of the tensors the projector keeps in memory.

Four families, built by `make_projector(kind, D, d, seed)`:

- "dense": Gaussian entries N(0, 1/D), so every column has squared norm about 1.
  Memory D d numbers. [SOURCE: sublora/nn/projectors.py:233-285 @c606ea6] (`LazyRandom`, which
  regenerates the matrix from its seed instead of storing it; here it is stored).
- "sparse": about d sqrt(D) non-zero entries at uniform positions, each +-1 / D^(1/4).
  [SOURCE: sublora/nn/projectors.py:509-525 @c606ea6] (`SparseOperator`).
- "kron": the authors' `RoundedDoubleKron` [SOURCE: sublora/nn/projectors.py:346-369 @c606ea6]:
  D1 = floor(sqrt D), d1 = floor(sqrt d); a Kronecker product R1 (x) R2 of two Gaussian
  D1 x d1 factors (entries N(0, 1/D1)) acts on the first d1^2 coordinates of w, a small Gaussian
  remainder block E of shape (D - D1^2, d - d1^2) on the rest, and a random permutation of the
  D output coordinates mixes the two pieces: P w = perm(R1 (x) R2 w_1 (+) E w_2).
- "rdkronqr": the same with each Kronecker factor replaced by the Q factor of its QR
  decomposition (orthonormal columns), the mode SubLoRA uses
  [SOURCE: sublora/nn/projectors.py:372-395 @c606ea6; sublora/nn/create_model.py:57,102 @c606ea6].
  Its Kronecker part has exactly orthonormal columns; the remainder block does not (it has more
  columns than rows whenever d - d1^2 > D - D1^2).

For D = 351,744 and d = 50,000 (GPT-2 small's LoRA numbers, SubLoRA's d) the factors are 593 x 223
and the remainder block is 95 x 271:

>>> kron_shapes(351_744, 50_000)
((593, 223), (95, 271))

All random numbers come from numpy's `default_rng(seed)` (platform-independent streams) and are
stored as float32 torch tensors; the authors draw theirs from torch's generator, so the matrices
have the authors' distribution and structure but not their exact values.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import torch

PROJECTOR_KINDS = ("dense", "sparse", "kron", "rdkronqr")


def kron_shapes(D: int, d: int) -> tuple[tuple[int, int], tuple[int, int]]:
    """Shapes of one Kronecker factor and of the remainder block of the "kron"/"rdkronqr" projector.

    Factor (floor(sqrt D), floor(sqrt d)); remainder (D - D1^2, d - d1^2).

    >>> kron_shapes(10_000, 900)
    ((100, 30), (0, 0))
    """
    D1, d1 = math.isqrt(D), math.isqrt(d)
    return (D1, d1), (D - D1 * D1, d - d1 * d1)


def _gaussian(rng: np.random.Generator, rows: int, cols: int, scale: float) -> torch.Tensor:
    """A rows x cols float32 tensor with independent N(0, scale^2) entries."""
    return torch.from_numpy((rng.standard_normal((rows, cols)) * scale).astype(np.float32))


def _orthonormal(rng: np.random.Generator, rows: int, cols: int) -> torch.Tensor:
    """The Q factor (rows x cols, orthonormal columns) of a Gaussian rows x cols matrix."""
    q, _ = np.linalg.qr(rng.standard_normal((rows, cols)), mode="reduced")
    return torch.from_numpy(q.astype(np.float32))


def _nbytes(*tensors: torch.Tensor) -> int:
    return sum(t.numel() * t.element_size() for t in tensors)


@dataclass
class DenseProjector:
    """P stored whole: a D x d matrix of N(0, 1/D) entries (column norms near 1)."""

    kind: str
    D: int
    d: int
    matrix: torch.Tensor  # (D, d)

    def apply(self, w: torch.Tensor) -> torch.Tensor:
        """P w, shape (D,)."""
        return self.matrix @ w

    def apply_transpose(self, v: torch.Tensor) -> torch.Tensor:
        """P^T v, shape (d,)."""
        return self.matrix.T @ v

    def to_dense(self) -> torch.Tensor:
        """The D x d matrix."""
        return self.matrix

    @property
    def nbytes(self) -> int:
        """Bytes held: D d float32 numbers."""
        return _nbytes(self.matrix)


@dataclass
class SparseProjector:
    """P with about d sqrt(D) non-zeros, each +-D^(-1/4), at uniform (row, col) positions.

    Repeated positions add up. Stored as a coalesced torch sparse COO matrix and its transpose.
    """

    kind: str
    D: int
    d: int
    matrix: torch.Tensor  # sparse (D, d)
    matrix_t: torch.Tensor  # sparse (d, D)

    def apply(self, w: torch.Tensor) -> torch.Tensor:
        """P w, shape (D,); differentiable in w."""
        return (self.matrix @ w.unsqueeze(1)).squeeze(1)

    def apply_transpose(self, v: torch.Tensor) -> torch.Tensor:
        """P^T v, shape (d,)."""
        return (self.matrix_t @ v.unsqueeze(1)).squeeze(1)

    def to_dense(self) -> torch.Tensor:
        """The D x d matrix."""
        return self.matrix.to_dense()

    @property
    def nbytes(self) -> int:
        """Bytes held by one copy: float32 values and two int64 indices per non-zero."""
        return _nbytes(self.matrix.values(), self.matrix.indices())


@dataclass
class KronProjector:
    """P w = perm( (R1 (x) R2) w_1  (+)  E w_2 ), with w = (w_1, w_2), len(w_1) = d1^2.

    `perm` is a permutation of the D output coordinates: (P w)[i] = y[perm[i]] where y is the
    direct sum's output. R1, R2 are D1 x d1; E is (D - D1^2) x (d - d1^2).
    """

    kind: str
    D: int
    d: int
    R1: torch.Tensor
    R2: torch.Tensor
    E: torch.Tensor
    perm: torch.Tensor  # int64 (D,)

    def apply(self, w: torch.Tensor) -> torch.Tensor:
        """P w, shape (D,): (R1 (x) R2) vec(W1) = vec(R1 W1 R2^T) for the row-major d1 x d1 W1."""
        D1, d1 = self.R1.shape
        W1 = w[: d1 * d1].reshape(d1, d1)
        y1 = (self.R1 @ W1 @ self.R2.T).reshape(D1 * D1)
        y2 = self.E @ w[d1 * d1 :]
        return torch.cat([y1, y2])[self.perm]

    def apply_transpose(self, v: torch.Tensor) -> torch.Tensor:
        """P^T v, shape (d,)."""
        D1, d1 = self.R1.shape
        u = torch.empty_like(v)
        u[self.perm] = v  # undo the permutation
        U1 = u[: D1 * D1].reshape(D1, D1)
        x1 = (self.R1.T @ U1 @ self.R2).reshape(d1 * d1)
        return torch.cat([x1, self.E.T @ u[D1 * D1 :]])

    def to_dense(self) -> torch.Tensor:
        """The D x d matrix (small D and d only)."""
        top = torch.kron(self.R1, self.R2)
        full = torch.block_diag(top, self.E) if self.E.numel() else top
        if full.shape != (self.D, self.d):  # a remainder block with zero rows or zero columns
            pad = torch.zeros(self.D, self.d)
            pad[: full.shape[0], : full.shape[1]] = full
            full = pad
        return full[self.perm]

    @property
    def nbytes(self) -> int:
        """Bytes held: two D1 x d1 factors, the remainder block, the permutation (int64)."""
        return _nbytes(self.R1, self.R2, self.E, self.perm)


Projector = DenseProjector | SparseProjector | KronProjector


def dense_projector(D: int, d: int, seed: int) -> DenseProjector:
    """Gaussian D x d projector, entries N(0, 1/D).

    >>> dense_projector(1000, 10, seed=0).to_dense().shape
    torch.Size([1000, 10])
    """
    rng = np.random.default_rng(seed)
    return DenseProjector("dense", D, d, _gaussian(rng, D, d, 1.0 / math.sqrt(D)))


def sparse_projector(D: int, d: int, seed: int) -> SparseProjector:
    """Sparse projector: Binomial(D d, 1/sqrt D) entries at uniform positions, values +-D^(-1/4).

    >>> p = sparse_projector(10_000, 100, seed=0)
    >>> 0.9 < p.matrix.values().numel() / (100 * 100) < 1.1
    True
    """
    rng = np.random.default_rng(seed)
    s = math.sqrt(D)
    nnz = int(rng.binomial(D * d, 1.0 / s))
    flat = rng.integers(0, D * d, size=nnz)
    rows, cols = flat // d, flat % d
    values = rng.choice(np.array([-1.0, 1.0]), size=nnz) / math.sqrt(s)
    index = torch.from_numpy(np.stack([rows, cols]))
    vals = torch.from_numpy(values.astype(np.float32))
    coo = torch.sparse_coo_tensor(index, vals, (D, d), check_invariants=True)
    return SparseProjector("sparse", D, d, coo.coalesce(), coo.t().coalesce())


def kron_projector(D: int, d: int, seed: int, qr: bool = False) -> KronProjector:
    """The authors' rounded double-Kronecker projector ("kron"), or with QR factors ("rdkronqr").

    Factors: Gaussian N(0, 1/D1) ("kron") or orthonormal columns ("rdkronqr"). Remainder block E:
    N(0, 1/(D - D1^2)) entries, or N(0, 1/D) when D or d is a perfect square, as in
    sublora/nn/projectors.py:383-390 @c606ea6.

    >>> p = kron_projector(351_744, 50_000, seed=137, qr=True)
    >>> tuple(p.R1.shape), tuple(p.E.shape)
    ((593, 223), (95, 271))
    """
    (D1, d1), (De, de) = kron_shapes(D, d)
    rng = np.random.default_rng(seed)
    if qr:
        R1, R2 = _orthonormal(rng, D1, d1), _orthonormal(rng, D1, d1)
    else:
        scale = 1 / math.sqrt(D1)
        R1, R2 = _gaussian(rng, D1, d1, scale), _gaussian(rng, D1, d1, scale)
    exact = D1 * D1 == D or d1 * d1 == d
    e_scale = 1 / math.sqrt(D if exact or De == 0 else De)
    E = _gaussian(rng, De, de, e_scale)
    perm = torch.from_numpy(rng.permutation(D))
    return KronProjector("rdkronqr" if qr else "kron", D, d, R1, R2, E, perm)


def make_projector(kind: str, D: int, d: int, seed: int) -> Projector:
    """Build a projector of one of `PROJECTOR_KINDS` mapping R^d -> R^D.

    >>> make_projector("rdkronqr", 400, 25, seed=1).apply(torch.zeros(25)).shape
    torch.Size([400])
    """
    if d > D:
        raise ValueError(f"d = {d} exceeds D = {D}")
    if kind == "dense":
        return dense_projector(D, d, seed)
    if kind == "sparse":
        return sparse_projector(D, d, seed)
    if kind in ("kron", "rdkronqr"):
        return kron_projector(D, d, seed, qr=(kind == "rdkronqr"))
    raise ValueError(f"unknown projector kind {kind!r}; choose from {PROJECTOR_KINDS}")
