"""The authors' uniform quantizer: a vector of floats becomes small integer codes and a codebook.

What the released code does [SOURCE: sublora-bounds-for-llms sublora/bounds/quantize_fns.py
get_random_symbols_and_codebook, @c606ea6]:

1. m = max|w|; the interval [-m - 1e-6, m + 1e-6] is cut into `levels` bins of equal width;
2. each number's code is the index of its bin (0 .. levels - 1);
3. each bin's codebook entry is the mean of the numbers that fell into it (an empty bin keeps its
   left edge, a value that no code uses);
4. the codebook is stored as float16, so the decoded vector is `codebook[codes]` in float16.

Left out: the k-means codebook (`use_kmeans`) and quantization-aware training, both switched off
by the released configuration (`use_kmeans: False`, `max_quant_iters: 0`).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

EDGE_MARGIN: float = 1e-6
"""Added to max|w| on both sides so that the extreme values fall inside the outer bins."""


def quantize_uniform(
    w: npt.ArrayLike, levels: int = 11
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float16]]:
    """Quantize `w` into `levels` uniform bins over [-max|w|, max|w|]; return (codes, codebook).

    edges_k = -(m + 1e-6) + k (2 m + 2e-6) / levels,  k = 0 .. levels,  m = max|w|
    code(w_i) = the k with edges_k <= w_i < edges_{k+1}
    codebook_k = float16(mean of the w_i with code k)   (left edge if no w_i has code k)

    >>> codes, book = quantize_uniform([-1.0, -0.5, 0.0, 0.25, 1.0], levels=3)
    >>> codes.tolist(), book.tolist()
    ([0, 0, 1, 1, 2], [-0.75, 0.125, 1.0])
    """
    if levels < 1:
        raise ValueError("levels must be at least 1")
    vec = np.asarray(w, dtype=np.float64).ravel()
    if vec.size == 0:
        raise ValueError("cannot quantize an empty vector")
    if not np.all(np.isfinite(vec)):
        raise ValueError("w must be finite")
    largest = float(np.max(np.abs(vec)))
    edges = np.linspace(-largest - EDGE_MARGIN, largest + EDGE_MARGIN, levels + 1)
    codes = (np.digitize(vec, edges) - 1).astype(np.int64)
    sums = np.bincount(codes, weights=vec, minlength=levels)
    counts = np.bincount(codes, minlength=levels)
    centroids = np.where(counts > 0, sums / np.maximum(counts, 1), edges[:levels])
    return codes, centroids.astype(np.float16)


def dequantize(codes: npt.ArrayLike, codebook: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """The decoded vector codebook[codes], as float64 (the values the quantized model uses).

    >>> dequantize([0, 2, 1], [-1.0, 0.0, 1.0]).tolist()
    [-1.0, 1.0, 0.0]
    """
    book = np.asarray(codebook, dtype=np.float64)
    return book[np.asarray(codes, dtype=np.int64)]
