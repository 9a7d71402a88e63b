"""Chapter 8: the linear algebra of Chapters 5 and 15-20, checked with numbers.

Claims, numbered as the output blocks:
  [1] Shapes and rank: a (768 x 4) times (4 x 768) product (LoRA's B A at rank r = 4 on one of
      GPT-2 small's 768 x 768 attention matrices) is a 768 x 768 matrix of rank 4, stored in
      6,144 numbers instead of 589,824; the sum of two rank-4 products has rank 8.
  [2] QR: a 2,384 x 128 Gaussian matrix G = U R_tri (numpy's Q and R; R_tri, not R, which is the
      book's population risk) with U's columns orthonormal (U^T U = I) and R_tri upper triangular;
      U keeps every length, G itself does not (G^T G is not I).
  [3] vec and the Kronecker product: vec(A X B) = (B^T (x) A) vec(X) for column-stacking vec,
      vec_row(A X B) = (A (x) B^T) vec_row(X) for row-stacking (numpy's reshape); a Kronecker
      product of two matrices with orthonormal columns has orthonormal columns; the storage of
      two 48 x 11 factors against their 2,304 x 121 product.
  [4] Random directions are nearly orthogonal: the cosine of two independent Gaussian vectors in
      R^D has mean 0 and standard deviation 1 / sqrt(D) (M = 4,000 pairs per D, seed 8): the
      measured sd x sqrt(D) lies within 2 standard errors of 1.
  [5] Singular values of a D x d matrix with N(0, 1/D) entries (pacbound.dense_projector, the
      dense projector of Chapter 18, seeds 100-102) at D = 2,384 lie near the Marchenko-Pastur
      edges 1 -+ sqrt(d / D); at d = 128 from about 0.77 to 1.22: not orthonormal. The lengths
      |P w| / |w| of random w stay far inside that range. Over 200 fresh projectors the
      smallest singular value at d = 128 lies above the lower edge on average, and two of the
      printed extremes beyond an edge (seed 101's largest at d = 16, seed 100's smallest at
      d = 128) are each reached by fewer than 5 % of them; the third, seed 102's largest at
      d = 512, is not compared with fresh projectors.
  [6] The rdkronqr projector of Chapter 18 at D = 2,384, d = 128: its 121 Kronecker directions
      have singular value 1; its 7 remainder directions do not.
  [7] Johnson-Lindenstrauss: 50 Gaussian points in R^2,384 mapped by an m x D matrix with
      N(0, 1/m) entries; the largest distortion of a squared pairwise distance against m (M = 20
      draws, seed 8, mean and standard error), how many draws keep every pair within gamma = 0.5
      (the distortion, not the failure probability epsilon), the share of pairs beyond it against
      the Chernoff bound per pair and the exact chi-square tail per pair (regularized incomplete
      gamma function, computed here), and Dasgupta and Gupta's sufficient m (where that bound is
      2 / J^2 for J points). At that m, the share of whole draws that leave some pair beyond
      gamma (20,000 fresh draws, seed 9) against the union bound on the exact tails: the union
      bound is loose by a small factor, Chernoff's bound per pair by a large one. (m and gamma,
      not k and eta: the book's notation keeps k for top-k and eta for the learning rate.)
Deterministic: numpy's default_rng with fixed seeds, float64; every printed value is rounded to
at most four decimal places, or to three significant digits in scientific notation (output [7]),
and values at rounding level are printed as bounds.
The figure ch08_singular_values.png draws [5], [6] and [7].
"""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pacbound as pb
import torch
from pacbound.projectors import dense_projector, kron_projector
from script_glue import glue
from script_io import save_figure

SEED = 8
# GPT-2 small's width; the authors' LoRA rank on attention and head, as configured in
# sublora-bounds-for-llms config/sublora_train.yaml:40-41 @c606ea6
N_EMBD, LORA_RANK = 768, 4
D_SMALL = 2_384  # the parameter count of Chapter 18's small model
D_SUB = 128  # the subspace dimension where Chapter 18's model reaches 90 % (its d90)
D_GRID = (16, 128, 512)  # subspace dimensions for the singular-value scan
PROJECTOR_SEEDS = (100, 101, 102)  # the projector seeds of Chapter 18
FRESH_SEEDS = tuple(range(1_000, 1_200))  # fresh projectors, to place the extremes of [5]
DENSE_W = 1_000  # random w whose lengths the dense projector of [5] changes
COSINE_DIMS = (10, 100, 2_384)
COSINE_PAIRS = 4_000  # M pairs of random vectors per dimension
COSINE_THRESHOLD = 0.1  # a cosine above this in size: not nearly perpendicular
JL_POINTS, JL_ETA, JL_DRAWS = 50, 0.5, 20
JL_K = (25, 50, 100, 188, 400)
WHOLE_SEED, WHOLE_DRAWS, WHOLE_BATCH = 9, 20_000, 500  # whole-draw failures at the lemma's m
FIGURE_NAME = "ch08_singular_values.png"
TINY = 1e-12  # float64 round-off level for these sizes


def lora_product(rng: np.random.Generator, n: int, r: int) -> tuple[np.ndarray, np.ndarray]:
    """B (n x r) and A (r x n), Gaussian: their product B A is n x n of rank at most r."""
    return rng.standard_normal((n, r)), rng.standard_normal((r, n))


def vec_col(X: np.ndarray) -> np.ndarray:
    """Stack the columns of X into one vector (the textbook vec)."""
    return X.reshape(-1, order="F")


def vec_row(X: np.ndarray) -> np.ndarray:
    """Stack the rows of X into one vector (numpy's and torch's reshape)."""
    return X.reshape(-1)


def gram_error(M: np.ndarray) -> float:
    """max |M^T M - I|: 0 exactly when the columns of M are orthonormal."""
    return float(np.abs(M.T @ M - np.eye(M.shape[1])).max())


def cosines(rng: np.random.Generator, dim: int, pairs: int) -> np.ndarray:
    """Cosines of the angle between `pairs` independent pairs of N(0, I_dim) vectors."""
    u = rng.standard_normal((pairs, dim))
    v = rng.standard_normal((pairs, dim))
    return (u * v).sum(1) / np.linalg.norm(u, axis=1) / np.linalg.norm(v, axis=1)


def mp_edges(D: int, d: int) -> tuple[float, float]:
    """Marchenko-Pastur edges of the singular values of a D x d N(0, 1/D) matrix: 1 -+ sqrt(d/D)."""
    c = math.sqrt(d / D)
    return 1 - c, 1 + c


def mp_singular_density(s: np.ndarray, D: int, d: int) -> np.ndarray:
    """Density of the singular values in the Marchenko-Pastur limit with ratio c = d / D.

    Eigenvalues lam = s^2 of P^T P have density sqrt((b - lam)(lam - a)) / (2 pi c lam) on [a, b],
    a, b = (1 -+ sqrt c)^2; a singular value s has density 2 s times that at lam = s^2.
    """
    c = d / D
    a, b = (1 - math.sqrt(c)) ** 2, (1 + math.sqrt(c)) ** 2
    lam = s**2
    inside = np.clip((b - lam) * (lam - a), 0, None)
    return 2 * s * np.sqrt(inside) / (2 * math.pi * c * lam)


def singular_values(M: np.ndarray) -> np.ndarray:
    """Singular values, largest first."""
    return np.linalg.svd(M, compute_uv=False)


def jl_distortions(rng: np.random.Generator, points: np.ndarray, k: int) -> np.ndarray:
    """| |F u - F v|^2 / |u - v|^2 - 1 | for every pair, F m x D with N(0, 1/m) entries (m = k)."""
    F = rng.standard_normal((k, points.shape[1])) / math.sqrt(k)
    Y = points @ F.T
    i, j = np.triu_indices(len(points), 1)
    ratio = ((Y[i] - Y[j]) ** 2).sum(1) / ((points[i] - points[j]) ** 2).sum(1)
    return np.abs(ratio - 1)


def pair_failure_bound(k: int, eta: float) -> float:
    """Chernoff bound on P(| |F u|^2 / |u|^2 - 1 | > gamma) for one pair (m = k, gamma = eta).

    The bound is 2 exp(-m (gamma^2/2 - gamma^3/3) / 2).

    At m = 4 ln J / (gamma^2/2 - gamma^3/3) it equals 2 / J^2, the step of Dasgupta and Gupta's
    proof.
    """
    return 2 * math.exp(-k * (eta**2 / 2 - eta**3 / 3) / 2)


def reg_gamma_lower(a: float, x: float) -> float:
    """Regularized lower incomplete gamma P(a, x) by its power series (use for x < a + 1)."""
    term = total = 1.0 / a
    n = 0
    while term > total * 1e-17:
        n += 1
        term *= x / (a + n)
        total += term
    return math.exp(a * math.log(x) - x - math.lgamma(a)) * total


def reg_gamma_upper(a: float, x: float) -> float:
    """Regularized upper incomplete gamma Q(a, x) by Lentz's continued fraction (x > a + 1)."""
    tiny = 1e-300
    b = x + 1 - a
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        h *= d * c
        if abs(d * c - 1) < 1e-16:
            break
    return math.exp(a * math.log(x) - x - math.lgamma(a)) * h


def pair_failure_exact(k: int, eta: float) -> float:
    """Exact P(| |F u|^2 / |u|^2 - 1 | > gamma) for one pair (m = k, gamma = eta).

    m |F u|^2 / |u|^2 is chi-square with m degrees of freedom, Gamma(m/2, scale 2), so the
    tail is P(m/2, m (1 - gamma) / 2) + Q(m/2, m (1 + gamma) / 2).
    """
    a = k / 2
    lo, hi = k * (1 - eta) / 2, k * (1 + eta) / 2
    assert lo < a + 1 < hi
    return reg_gamma_lower(a, lo) + reg_gamma_upper(a, hi)


def whole_draw_failures(
    rng: np.random.Generator, points: np.ndarray, k: int, eta: float, draws: int, batch: int
) -> int:
    """How many of `draws` m x D Gaussian maps (m = k) leave some pair beyond gamma (= eta).

    The images points F^T have the law of L Z, with L the Cholesky factor of the Gram matrix
    points points^T and Z a J x m matrix of N(0, 1/m) entries: a draw costs J m numbers, not m D.
    Squared distances come from the images' Gram matrix: |y_i - y_j|^2 = G_ii + G_jj - 2 G_ij.
    """
    L = np.linalg.cholesky(points @ points.T)
    i, j = np.triu_indices(len(points), 1)
    squared = ((points[i] - points[j]) ** 2).sum(1)
    fails = 0
    for start in range(0, draws, batch):
        n = min(batch, draws - start)
        Y = L @ (rng.standard_normal((n, len(points), k)) / math.sqrt(k))
        G = Y @ Y.transpose(0, 2, 1)
        diag = np.diagonal(G, axis1=1, axis2=2)
        ratio = (diag[:, i] + diag[:, j] - 2 * G[:, i, j]) / squared
        fails += int((np.abs(ratio - 1) > eta).any(1).sum())
    return fails


def dasgupta_gupta_k(n_points: int, eta: float) -> int:
    """Smallest m >= 4 ln J / (gamma^2 / 2 - gamma^3 / 3) for J points (Dasgupta, Gupta 2003)."""
    return math.ceil(4 * math.log(n_points) / (eta**2 / 2 - eta**3 / 3))


def mean_se(x: np.ndarray) -> tuple[float, float]:
    """Mean and standard error of the mean."""
    return float(x.mean()), float(x.std(ddof=1) / math.sqrt(len(x)))


def main() -> None:
    print("Chapter 8 -- vectors, matrices, rank, random Gaussian matrices (ch08_linear_algebra.py)")
    rng = np.random.default_rng(SEED)
    torch.set_default_dtype(torch.float64)  # the projectors' entries kept in double precision

    B, A = lora_product(rng, N_EMBD, LORA_RANK)
    BA = B @ A
    B2, A2 = lora_product(rng, N_EMBD, LORA_RANK)
    rank1, rank2 = np.linalg.matrix_rank(BA), np.linalg.matrix_rank(BA + B2 @ A2)
    stored, full = B.size + A.size, N_EMBD * N_EMBD
    print(
        f"[1] B ({glue('b_rows', N_EMBD)} x {glue('b_cols', LORA_RANK)}) times "
        f"A ({glue('a_rows', LORA_RANK)} x {glue('a_cols', N_EMBD)}) = B A, shape "
        f"{glue('ba_rows', BA.shape[0])} x {glue('ba_cols', BA.shape[1])}, "
        f"rank {glue('ba_rank', rank1)}"
    )
    print(
        f"    numbers stored: B and A {glue('lora_stored', stored, ',')}; a full "
        f"{glue('full_rows', N_EMBD)} x {glue('full_cols', N_EMBD)} matrix "
        f"{glue('full_stored', full, ',')} "
        f"({glue('lora_stored_percent', 100 * stored / full, '.2f')}%)"
    )
    print(f"    sum of two rank-{glue('sum_term_rank', LORA_RANK)} products: "
          f"rank {glue('sum_rank', rank2)}")
    assert BA.shape == (N_EMBD, N_EMBD) and rank1 == LORA_RANK and rank2 == 2 * LORA_RANK
    assert stored == 6_144 and full == 589_824

    G = rng.standard_normal((D_SMALL, D_SUB)) / math.sqrt(D_SMALL)
    Q, R = np.linalg.qr(G)
    w = rng.standard_normal(D_SUB)
    q_ratio = np.linalg.norm(Q @ w) / np.linalg.norm(w)
    g_ratio = np.linalg.norm(G @ w) / np.linalg.norm(w)
    print(
        f"[2] G: {glue('qr_g_rows', D_SMALL, ',')} x {glue('qr_g_cols', D_SUB)} with "
        f"N(0, 1/{glue('qr_variance_denominator', D_SMALL)}) entries; G = U R_tri (numpy's Q, R), "
        f"U {glue('qr_u_rows', Q.shape[0], ',')} x {glue('qr_u_cols', Q.shape[1])}, "
        f"R_tri {glue('qr_r_rows', R.shape[0])} x {glue('qr_r_cols', R.shape[1])} upper triangular"
    )
    print(
        f"    max |U^T U - I| below 1e-12: {gram_error(Q) < TINY}; max |U R_tri - G| below 1e-12: "
        f"{np.abs(Q @ R - G).max() < TINY}; below the diagonal of R_tri exactly 0: "
        f"{bool(np.all(np.tril(R, -1) == 0))}"
    )
    print(
        f"    max |G^T G - I| = {glue('qr_g_gram_error', gram_error(G), '.3f')}; for one Gaussian "
        f"w: |U w| / |w| = {glue('qr_u_length_ratio', q_ratio, '.3f')}, "
        f"|G w| / |w| = {glue('qr_g_length_ratio', g_ratio, '.3f')}"
    )
    assert gram_error(Q) < TINY and abs(q_ratio - 1) < TINY and gram_error(G) > 0.05

    A3, X3, B3 = (
        rng.standard_normal((3, 2)),
        rng.standard_normal((2, 4)),
        rng.standard_normal((4, 5)),
    )
    err_col = np.abs(vec_col(A3 @ X3 @ B3) - np.kron(B3.T, A3) @ vec_col(X3)).max()
    err_row = np.abs(vec_row(A3 @ X3 @ B3) - np.kron(A3, B3.T) @ vec_row(X3)).max()
    err_swap = np.abs(vec_row(A3 @ X3 @ B3) - np.kron(B3.T, A3) @ vec_row(X3)).max()
    (D1, d1), (De, de) = pb.kron_shapes(D_SMALL, D_SUB)
    Q1 = np.linalg.qr(rng.standard_normal((D1, d1)))[0]
    Q2 = np.linalg.qr(rng.standard_normal((D1, d1)))[0]
    K = np.kron(Q1, Q2)
    print(
        f"[3] A {glue('vec_a_rows', A3.shape[0])} x {glue('vec_a_cols', A3.shape[1])}, "
        f"X {glue('vec_x_rows', X3.shape[0])} x {glue('vec_x_cols', X3.shape[1])}, "
        f"B {glue('vec_b_rows', B3.shape[0])} x {glue('vec_b_cols', B3.shape[1])}: "
        f"vec(A X B) = (B^T (x) A) vec(X), columns stacked: max error below 1e-12: {err_col < TINY}"
    )
    print(
        f"    rows stacked: vec_row(A X B) = (A (x) B^T) vec_row(X): max error below 1e-12: "
        f"{err_row < TINY}; the column formula with rows stacked is off by "
        f"{glue('vec_swap_error', err_swap, '.2f')}"
    )
    print(
        f"    two {glue('kron_factor_rows', D1)} x {glue('kron_factor_cols', d1)} factors U1, U2 "
        f"with orthonormal columns: U1 (x) U2 is {glue('kron_product_rows', K.shape[0], ',')} x "
        f"{glue('kron_product_cols', K.shape[1])}, its columns orthonormal (max |entry of its "
        f"Gram matrix minus I| below 1e-12): {gram_error(K) < TINY}"
    )
    print(f"    numbers stored: factors {glue('kron_factors_stored', 2 * D1 * d1, ',')}; "
          f"product {glue('kron_product_stored', K.size, ',')}")
    assert err_col < TINY and err_row < TINY and err_swap > 0.1 and gram_error(K) < TINY
    assert (D1, d1, De, de) == (48, 11, 80, 7)

    print(f"[4] cosine of two independent N(0, I_D) vectors, M = "
          f"{glue('cos_pairs', COSINE_PAIRS, ',')} pairs per D:")
    print("        D     mean cos   sd cos   sd x sqrt(D) +- SE   share |cos| > "
          f"{glue('cos_threshold', COSINE_THRESHOLD)} (pairs)")
    cos_by_dim = {}
    for dim in COSINE_DIMS:
        c = cosines(rng, dim, COSINE_PAIRS)
        cos_by_dim[dim] = c
        sd = float(c.std(ddof=1))
        se_mean = sd / math.sqrt(COSINE_PAIRS)
        # standard error of the sd, by the delta method from the fourth central moment
        centred = c - c.mean()
        se_sd = math.sqrt((np.mean(centred**4) - sd**4) / COSINE_PAIRS) / (2 * sd)
        scaled, se_scaled = sd * math.sqrt(dim), se_sd * math.sqrt(dim)
        share = float((np.abs(c) > COSINE_THRESHOLD).mean())
        key = f"cos_D{dim}"
        print(
            f"    {glue(key, dim, '>6,')}   {glue(f'{key}_mean', c.mean(), '+.4f')}   "
            f"{glue(f'{key}_sd', sd, '.4f')}   {glue(f'{key}_sd_scaled', scaled, '.3f')} +- "
            f"{glue(f'{key}_sd_scaled_se', se_scaled, '.3f')}   "
            f"{glue(f'{key}_share', share, '.3f')} "
            f"({glue(f'{key}_count', int((np.abs(c) > COSINE_THRESHOLD).sum()), ',')})"
        )
        assert abs(c.mean()) < 3 * se_mean and abs(scaled - 1) < 2 * se_scaled

    print(
        f"[5] singular values of D x d matrices with N(0, 1/D) entries, "
        f"D = {glue('sv_D', D_SMALL, ',')} (pacbound.dense_projector, seeds "
        f"{glue('sv_seed_first', PROJECTOR_SEEDS[0])}-{glue('sv_seed_last', PROJECTOR_SEEDS[-1])}):"
    )
    print(
        f"        d    edges 1 -+ sqrt(d/D)    smallest "
        f"({glue('sv_smallest_seeds', len(PROJECTOR_SEEDS))} seeds)       largest "
        f"({glue('sv_largest_seeds', len(PROJECTOR_SEEDS))} seeds)"
    )
    spectra = {}
    for d in D_GRID:
        lo, hi = mp_edges(D_SMALL, d)
        sv = [
            singular_values(dense_projector(D_SMALL, d, s).to_dense().numpy())
            for s in PROJECTOR_SEEDS
        ]
        spectra[d] = sv
        smin = [float(v[-1]) for v in sv]
        smax = [float(v[0]) for v in sv]
        key = f"sv_d{d}"
        print(
            f"    {glue(key, d, '>5')}       {glue(f'{key}_edge_low', lo, '.4f')}  "
            f"{glue(f'{key}_edge_high', hi, '.4f')}        "
            + " ".join(glue(f"{key}_smallest_seed{s}", x, ".3f")
                       for s, x in zip(PROJECTOR_SEEDS, smin, strict=True))
            + "     "
            + " ".join(glue(f"{key}_largest_seed{s}", x, ".3f")
                       for s, x in zip(PROJECTOR_SEEDS, smax, strict=True))
        )
        assert all(abs(x - lo) < 0.03 for x in smin) and all(abs(x - hi) < 0.03 for x in smax)
    # how unusual are the two extremes that lie outside an edge? fresh projectors, same generator
    d_hi = 16  # the subspace dimension of seed 101's largest singular value, beyond its edge
    fresh_hi = np.array([singular_values(dense_projector(D_SMALL, d_hi, s).to_dense().numpy())[0]
                         for s in FRESH_SEEDS])
    fresh_lo = np.array([singular_values(dense_projector(D_SMALL, D_SUB, s).to_dense().numpy())[-1]
                         for s in FRESH_SEEDS])
    high, low = float(spectra[d_hi][1][0]), float(spectra[D_SUB][0][-1])  # seeds 101 and 100
    lo128 = mp_edges(D_SMALL, D_SUB)[0]
    print(
        f"    {glue('fresh_count', len(FRESH_SEEDS))} fresh projectors (seeds "
        f"{glue('fresh_seed_first', FRESH_SEEDS[0])}-{glue('fresh_seed_last', FRESH_SEEDS[-1])}): "
        f"largest at d = {glue('fresh_high_d', d_hi)} "
        f"{glue('fresh_high_mean', fresh_hi.mean(), '.4f')} +- "
        f"{glue('fresh_high_sd', fresh_hi.std(ddof=1), '.4f')} (sd), "
        f"{glue('fresh_high_percent', 100 * (fresh_hi >= high).mean(), '.1f')}% at or above seed "
        f"{glue('fresh_high_seed', PROJECTOR_SEEDS[1])}'s {glue('fresh_high_value', high, '.3f')}; "
        f"smallest at d = {glue('fresh_low_d', D_SUB)} "
        f"{glue('fresh_low_mean', fresh_lo.mean(), '.4f')} +- "
        f"{glue('fresh_low_sd', fresh_lo.std(ddof=1), '.4f')} (sd), "
        f"{glue('fresh_low_percent', 100 * (fresh_lo <= low).mean(), '.1f')}% at or below seed "
        f"{glue('fresh_low_seed', PROJECTOR_SEEDS[0])}'s {glue('fresh_low_value', low, '.3f')}"
    )
    se_lo = fresh_lo.std(ddof=1) / math.sqrt(len(FRESH_SEEDS))
    assert fresh_lo.mean() - lo128 > 2 * se_lo  # typically above the lower edge
    assert (fresh_hi >= high).mean() < 0.05 and (fresh_lo <= low).mean() < 0.05  # rare draws
    P = dense_projector(D_SMALL, D_SUB, PROJECTOR_SEEDS[0]).to_dense().numpy()
    W = rng.standard_normal((D_SUB, DENSE_W))
    lengths = np.linalg.norm(P @ W, axis=0) / np.linalg.norm(W, axis=0)
    s_all = spectra[D_SUB][0]
    print(
        f"    d = {glue('dense_d', D_SUB)}, seed {glue('dense_seed', PROJECTOR_SEEDS[0])}: "
        f"max |P^T P - I| = {glue('dense_gram_error', gram_error(P), '.3f')}; "
        f"singular values {glue('dense_sv_min', s_all[-1], '.3f')} to "
        f"{glue('dense_sv_max', s_all[0], '.3f')}"
    )
    print(
        f"    |P w| / |w| for {glue('dense_w_count', DENSE_W, ',')} Gaussian w: "
        f"{glue('dense_w_ratio_min', lengths.min(), '.3f')} to "
        f"{glue('dense_w_ratio_max', lengths.max(), '.3f')} "
        f"(mean {glue('dense_w_ratio_mean', lengths.mean(), '.3f')})"
    )
    assert s_all[-1] < lengths.min() and lengths.max() < s_all[0]
    assert lengths.min() > 0.9 and lengths.max() < 1.1

    Pk = kron_projector(D_SMALL, D_SUB, PROJECTOR_SEEDS[0], qr=True).to_dense().numpy()
    sk = singular_values(Pk)
    n_unit = int((np.abs(sk - 1) < 1e-9).sum())
    rest = np.sort(sk[np.abs(sk - 1) >= 1e-9])
    print(f"[6] rdkronqr, D = {glue('rdk_D', D_SMALL, ',')}, d = {glue('rdk_d', D_SUB)}: "
          f"factors {glue('rdk_factor_rows', D1)} x {glue('rdk_factor_cols', d1)}, "
          f"remainder {glue('rdk_remainder_rows', De)} x {glue('rdk_remainder_cols', de)}")
    # the remainder's singular values, ascending: the smallest and largest by name, then the rest
    rest_names = ["rdk_other_min", *(f"rdk_other_{i}" for i in range(2, len(rest))),
                  "rdk_other_max"]
    print(
        f"    singular values equal to {glue('rdk_unit_value', 1)} (within 1e-9): "
        f"{glue('rdk_unit_count', n_unit)} = "
        f"{glue('rdk_unit_root', d1)}^2; the other {glue('rdk_other_count', len(rest))}: "
        + " ".join(glue(name, x, ".3f") for name, x in zip(rest_names, rest, strict=True))
    )
    assert n_unit == d1 * d1 and len(rest) == de

    points = rng.standard_normal((JL_POINTS, D_SMALL))
    k_dg = dasgupta_gupta_k(JL_POINTS, JL_ETA)
    print(
        f"[7] {glue('jl_points', JL_POINTS)} Gaussian points in R^{glue('jl_D', D_SMALL, ',')} "
        f"({glue('jl_pairs', JL_POINTS * (JL_POINTS - 1) // 2, ',')} pairs), "
        f"mapped by m x D matrices with N(0, 1/m) entries, M = {glue('jl_draws', JL_DRAWS)} "
        "draws per m:"
    )
    print(
        f"    Dasgupta-Gupta sufficient m for gamma = {glue('jl_gamma', JL_ETA)}: "
        f"4 ln {glue('jl_formula_points', JL_POINTS)} / "
        f"(gamma^2/2 - gamma^3/3) -> m = {glue('jl_m_sufficient', k_dg)}"
    )
    print(
        "        m   largest distortion: mean +- SE   draws within gamma   pairs beyond gamma   "
        "bound per pair   exact per pair"
    )
    jl = {}
    exact = {}
    for k in JL_K:
        dist = np.array([jl_distortions(rng, points, k) for _ in range(JL_DRAWS)])  # (draws, pairs)
        m, se = mean_se(dist.max(1))
        jl[k] = (m, se)
        within = int((dist.max(1) < JL_ETA).sum())
        beyond = float((dist > JL_ETA).mean())
        bound = pair_failure_bound(k, JL_ETA)
        beyond_txt = f"{beyond:.2e}" if beyond > 0 else "0"
        bound_txt = f"{bound:.2e}" if bound < 1 else "above 1"
        exact[k] = pair_failure_exact(k, JL_ETA)
        key = f"jl_m{k}"
        print(
            f"    {glue(key, k, '>5')}   {glue(f'{key}_distortion', m, '.3f')} +- "
            f"{glue(f'{key}_distortion_se', se, '.3f')}     {glue(f'{key}_within', within, '>2')} "
            f"of {glue(f'{key}_draws', JL_DRAWS)}       "
            f"{glue(f'{key}_beyond', beyond_txt, '>9')}   "
            f"{glue(f'{key}_bound', bound_txt, '>14')}   {glue(f'{key}_exact', exact[k], '.2e')}"
        )
        assert beyond <= bound and exact[k] < bound
    n_pairs = JL_POINTS * (JL_POINTS - 1) // 2
    slack = pair_failure_bound(k_dg, JL_ETA) / exact[k_dg]
    print(
        f"    at m = {glue('chernoff_m', k_dg)}: Chernoff's bound per pair is "
        f"{glue('chernoff_ratio', slack, '.0f')} times the exact chi-square tail; the union bound "
        f"on exact tails, {glue('union_pairs', n_pairs, ',')} x "
        f"{glue('union_exact_per_pair', exact[k_dg], '.2e')} = "
        f"{glue('union_sum', n_pairs * exact[k_dg], '.3f')}, allows at most "
        f"{glue('union_sum_percent', 100 * n_pairs * exact[k_dg], '.1f')} % of draws to fail"
    )
    assert 70 < slack < 80 and n_pairs * exact[k_dg] < 0.02
    # the union bound's own slack: whole draws that fail, from a generator of their own
    fails = whole_draw_failures(
        np.random.default_rng(WHOLE_SEED), points, k_dg, JL_ETA, WHOLE_DRAWS, WHOLE_BATCH
    )
    rate = fails / WHOLE_DRAWS
    se_rate = math.sqrt(rate * (1 - rate) / WHOLE_DRAWS)
    union = n_pairs * exact[k_dg]
    print(
        f"    {glue('whole_draws', WHOLE_DRAWS, ',')} fresh draws at m = {glue('whole_m', k_dg)} "
        f"(seed {glue('whole_seed', WHOLE_SEED)}): {glue('whole_fails', fails)} leave some "
        f"pair beyond gamma, {glue('whole_fail_percent', 100 * rate, '.2f')} % +- "
        f"{glue('whole_fail_percent_se', 100 * se_rate, '.2f')} % (SE); the union bound on "
        f"exact tails, {glue('whole_union_percent', 100 * union, '.2f')} %, is "
        f"{glue('whole_union_ratio', union / rate, '.2f')} times that"
    )
    assert rate - 2 * se_rate > union / 1.5 and rate < union + 2 * se_rate  # loose by little
    assert k_dg == 188 and abs(pair_failure_bound(k_dg, JL_ETA) * JL_POINTS**2 / 2 - 1) < 0.02
    assert jl[25][0] > 2 * jl[400][0] and jl[400][0] + 2 * jl[400][1] < JL_ETA

    draw_figure(spectra, sk, jl, k_dg)
    print("All assertions passed.")


def draw_figure(spectra: dict, sk: np.ndarray, jl: dict, k_dg: int) -> None:
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(5.5, 8.2))
    s = np.linspace(0.6, 1.4, 400)
    sv = np.concatenate(spectra[D_SUB])
    ax1.hist(sv, bins=30, density=True, color="#56B4E9", label="dense N(0, 1/D), 3 seeds")
    ax1.plot(
        s,
        mp_singular_density(s, D_SMALL, D_SUB),
        color="#000000",
        lw=1.5,
        label="Marchenko-Pastur law",
    )
    for i, edge in enumerate(mp_edges(D_SMALL, D_SUB)):
        ax1.axvline(
            edge, color="#D55E00", ls="--", lw=1, label="edges 1 -+ sqrt(d/D)" if i == 0 else None
        )
    ax1.axvline(
        1.0,
        color="#009E73",
        lw=2.5,
        label=f"rdkronqr: {int((abs(sk - 1) < 1e-9).sum())} of {D_SUB} at 1",
    )
    ax1.set_xlabel("singular value")
    ax1.set_ylabel("density")
    ax1.set_title(f"D = {D_SMALL:,}, d = {D_SUB}: a random P is not orthonormal", fontsize=10)
    ax1.set_ylim(0.0, 1.6 * ax1.get_ylim()[1])  # room for the legend above the histogram
    ax1.legend(loc="upper left")
    ks = list(jl)
    ax2.errorbar(
        ks,
        [jl[k][0] for k in ks],
        yerr=[2 * jl[k][1] for k in ks],
        marker="o",
        color="#0072B2",
        capsize=3,
        label="largest distortion, mean of 20 draws (+-2 SE)",
    )
    ax2.axhline(JL_ETA, color="#D55E00", ls="--", lw=1, label=f"gamma = {JL_ETA}")
    ax2.axvline(k_dg, color="#999999", ls=":", lw=1.5, label=f"Dasgupta-Gupta m = {k_dg}")
    ax2.set_xscale("log")
    ax2.set_xticks(ks, [str(k) for k in ks])
    ax2.minorticks_off()
    ax2.set_xlabel("target dimension m")
    ax2.set_ylabel("max |ratio of squared distances - 1|")
    ax2.set_title(f"Johnson-Lindenstrauss: {JL_POINTS} points in R^{D_SMALL:,}", fontsize=10)
    ax2.legend(loc="upper right")
    fig.tight_layout()
    save_figure(fig, FIGURE_NAME, dpi=150)
    plt.close(fig)


if __name__ == "__main__":
    main()
