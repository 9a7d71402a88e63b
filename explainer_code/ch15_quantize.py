"""Chapter 15: quantizing the weights of a small model, and what it costs.

Claims, numbered as the output blocks:
  [1] The authors' uniform quantizer on a vector of 12 numbers with 5 levels: equal-width bins over
      [-max|w|, max|w|], codes, a codebook of bin means in float16, the decoded vector
      [SOURCE: sublora/bounds/quantize_fns.py:202-215 @c606ea6].
  [2] A small network trained here (numpy, float64, full-batch Adam): next-symbol prediction for a
      fixed random Markov chain over 16 symbols, whose population loss is computed exactly from
      the chain (no sampling error), next to the chain's entropy rate.
  [3] Quantizing all of its weights with 3 to 255 levels: the population loss after quantization
      and the message length (pacbound.message_length_bits). Few levels give a short message and
      a large loss; the loss recovers only as the levels grow, because one large weight stretches
      every bin. A test of why 5 levels lose more than 3: sending the weights between max|w| / 5
      and max|w| / 3 to the 3-level middle entry lowers the 5-level loss, although 5 levels have
      less than half the squared error of 3.
  [4] At 11 levels, what the switched-off options would add: a k-means codebook (Lloyd's
      algorithm in 1-D) and quantization-aware training (straight-through gradient, as the
      authors' Quantize function [SOURCE: quantize_fns.py:150-161]) with SGD and momentum 0.9
      [SOURCE: sublora/bounds/bound_utils.py:167-169].
  [5] How much [3] and [4] depend on the one network: eight more networks on the same chain, each
      with its own training sample and initialisation, quantized with 11 levels; the loss
      increase of uniform bins and what k-means and quantization-aware training recover, as
      mean +- standard error over the eight, and the range.
Figure: ch15_quantize.png (population loss and message length against the number of levels).
Seeded numpy draws, float64 arithmetic, 16 x 32 matrices; losses printed to 4 significant
digits. Byte-identical only under the pipeline's pinned kernels: the trained network (and so
[2]-[5]) moves with the floating-point kernels.
Every value the chapter quotes is printed through `glue(name, ...)` (script_glue.py), so that the
page refers to it by name.
"""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pacbound as pb
from pacbound import markov
from pacbound.message import CODEBOOK_ENTRY_BITS as CODEBOOK_BITS
from script_glue import glue
from script_io import save_figure

FIGURE_NAME = "ch15_quantize.png"

TOY_W = (-0.9, -0.52, -0.31, -0.05, 0.0, 0.04, 0.12, 0.18, 0.33, 0.41, 0.77, 1.2)
TOY_LEVELS = 5

V = 16  # symbols of the Markov chain
DIRICHLET = 0.2  # concentration of each transition row: small = predictable chain
N_TRAIN = 20_000  # training transitions sampled from the chain
HIDDEN = 32  # width of the network's hidden layer
STEPS = 1_500  # full-batch Adam steps
LR = 0.03
SEED_CHAIN, SEED_DATA, SEED_INIT = 15, 16, 17
N_NETWORKS = 8  # the spread of [5]
SEED_DATA_SPREAD, SEED_INIT_SPREAD = 100, 200

LEVEL_GRID = (3, 5, 7, 9, 11, 15, 21, 31, 63, 127, 255)
RELEASED_LEVELS = 11  # [SOURCE: config/sublora_bounds.yaml:35]
KMEANS_MAX_ITERS = 100
QAT_STEPS = 300
QAT_LR = 0.05
QAT_MOMENTUM = 0.9  # [SOURCE: sublora/bounds/bound_utils.py:167-169]


# --------------------------------------------------------------------------- the data source
def make_chain(seed: int) -> tuple[np.ndarray, np.ndarray]:
    """A random transition matrix P (rows Dirichlet(0.2)) and its stationary distribution pi
    (pacbound.markov's, polished); the path below is this toy's own sampler."""
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.full(V, DIRICHLET), size=V)
    pi = markov.stationary_distribution(p)
    for _ in range(200):  # polish by power iteration: exact to float precision
        pi = pi @ p
    return p, pi


def sample_counts(p: np.ndarray, pi: np.ndarray, n: int, seed: int) -> np.ndarray:
    """Transition counts C[x, y] of a path of n steps started from the stationary law."""
    rng = np.random.default_rng(seed)
    cum = np.cumsum(p, axis=1)
    u = rng.random(n + 1)
    x = int(np.searchsorted(np.cumsum(pi), u[0]))
    counts = np.zeros((V, V), dtype=np.int64)
    for t in range(1, n + 1):
        y = min(int(np.searchsorted(cum[x], u[t])), V - 1)
        counts[x, y] += 1
        x = y
    return counts


def entropy_rate_bits(p: np.ndarray, pi: np.ndarray) -> float:
    """sum_x pi(x) H(P[x, .]): the best population loss any predictor can reach, bits per symbol."""
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, -p * np.log2(p), 0.0)
    return float(pi @ terms.sum(axis=1))


# --------------------------------------------------------------------------- the network
SHAPES = {"E": (V, HIDDEN), "b1": (HIDDEN,), "W": (HIDDEN, V), "b2": (V,)}


def unflatten(theta: np.ndarray) -> dict[str, np.ndarray]:
    """Split the flat weight vector into the network's tensors."""
    out, i = {}, 0
    for name, shape in SHAPES.items():
        n = int(np.prod(shape))
        out[name] = theta[i : i + n].reshape(shape)
        i += n
    return out


def log_probs(theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """log q(y | x) for every x (rows) and the hidden activations; the network is
    q(. | x) = softmax(tanh(E[x] + b1) W + b2)."""
    t = unflatten(theta)
    hid = np.tanh(t["E"] + t["b1"])  # (V, HIDDEN): one row per input symbol
    z = hid @ t["W"] + t["b2"]  # (V, V) logits
    z = z - z.max(axis=1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=1, keepdims=True)), hid


def loss_and_grad(theta: np.ndarray, counts: np.ndarray) -> tuple[float, np.ndarray]:
    """Mean cross-entropy (nats) over the training transitions, and its gradient."""
    t = unflatten(theta)
    lq, hid = log_probs(theta)
    n = counts.sum()
    loss = float(-(counts * lq).sum() / n)
    dz = (np.exp(lq) * counts.sum(axis=1, keepdims=True) - counts) / n  # (V, V)
    d_w = hid.T @ dz
    d_b2 = dz.sum(axis=0)
    d_a = (dz @ t["W"].T) * (1 - hid**2)
    grads = {"E": d_a, "b1": d_a.sum(axis=0), "W": d_w, "b2": d_b2}
    return loss, np.concatenate([grads[k].ravel() for k in SHAPES])


def population_loss_bits(theta: np.ndarray, p: np.ndarray, pi: np.ndarray) -> float:
    """Exact expected loss under the chain: sum_x pi(x) sum_y P(x, y) (-log2 q(y | x))."""
    lq, _ = log_probs(theta)
    return float(pi @ (-(p * lq).sum(axis=1)) / math.log(2))


def init_theta(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    parts = {
        "E": rng.normal(0, 1.0, SHAPES["E"]),
        "b1": np.zeros(HIDDEN),
        "W": rng.normal(0, 1 / math.sqrt(HIDDEN), SHAPES["W"]),
        "b2": np.zeros(V),
    }
    return np.concatenate([parts[k].ravel() for k in SHAPES])


def train(counts: np.ndarray, seed: int) -> np.ndarray:
    """Full-batch Adam (beta 0.9, 0.999) on the training transitions."""
    theta = init_theta(seed)
    m, v = np.zeros_like(theta), np.zeros_like(theta)
    for step in range(1, STEPS + 1):
        _, g = loss_and_grad(theta, counts)
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g**2
        theta = theta - LR * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
    return theta


# --------------------------------------------------------------------------- the codebooks
def kmeans_1d(w: np.ndarray, init: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Lloyd's algorithm in one dimension from the given centroids; returns (codes, centroids)."""
    cent = np.sort(init.astype(np.float64))
    codes = np.zeros(w.size, dtype=np.int64)
    for _ in range(KMEANS_MAX_ITERS):
        new = np.argmin(np.abs(w[:, None] - cent[None, :]), axis=1)
        if np.array_equal(new, codes) and _ > 0:
            break
        codes = new
        for k in range(cent.size):
            if np.any(codes == k):
                cent[k] = w[codes == k].mean()
    return codes, cent.astype(np.float16)


def nearest(w: np.ndarray, cent: np.ndarray) -> np.ndarray:
    """Index of the nearest centroid for every weight (the authors' Quantize forward)."""
    return np.argmin((w[:, None] - cent[None, :]) ** 2, axis=1)


def quantization_aware(
    theta: np.ndarray, counts: np.ndarray, levels: int
) -> tuple[np.ndarray, np.ndarray]:
    """Straight-through training of the weights and the centroids; returns (codes, codebook).

    Forward uses the nearest centroid of each weight; backward passes the gradient unchanged to
    the weight and sums it over the weights assigned to each centroid (quantize_fns.py:150-161).
    """
    _, book = pb.quantize_uniform(theta, levels)
    w, cent = theta.copy(), book.astype(np.float64)
    mw, mc = np.zeros_like(w), np.zeros_like(cent)
    for _ in range(QAT_STEPS):
        codes = nearest(w, cent)
        _, g = loss_and_grad(cent[codes], counts)
        gc = np.bincount(codes, weights=g, minlength=levels)
        mw = QAT_MOMENTUM * mw + g
        mc = QAT_MOMENTUM * mc + gc
        w, cent = w - QAT_LR * mw, cent - QAT_LR * mc
    # The authors' quantization-aware branch keeps float32 centroids and passes them to
    # get_message_len, which then charges 32 bits per entry [SOURCE: bound_utils.py:187-195,
    # quantize_fns.py:226 @c606ea6].
    book32 = cent.astype(np.float32)
    return nearest(w, book32.astype(np.float64)), book32


# --------------------------------------------------------------------------------- blocks
def block1_toy() -> None:
    w = np.array(TOY_W)
    codes, book = pb.quantize_uniform(w, TOY_LEVELS)
    m = np.abs(w).max()
    edges = np.linspace(-m - 1e-6, m + 1e-6, TOY_LEVELS + 1)
    print(f"[1] The uniform quantizer, {glue('toy_levels', TOY_LEVELS)} levels, on "
          f"{glue('toy_n', w.size)} numbers (max|w| = {glue('toy_max', m)}):")
    print(f"    w       {' '.join(glue(f'toy_w{i}', x, '+.2f') for i, x in enumerate(w))}")
    width = 2 * m / TOY_LEVELS
    print(f"    edges   {' '.join(glue(f'toy_edge{k}', e, '+.2f') for k, e in enumerate(edges))}"
          f"   (bin width {glue('toy_bin_width', width, '.2f')})")
    print(f"    codes   {' '.join(glue(f'toy_code{i}', c, '>5d') for i, c in enumerate(codes))}")
    print("    codebook (bin means, float16): "
          + ", ".join(glue(f"toy_book{k}", float(b), "+.4f") for k, b in enumerate(book)))
    dec = pb.dequantize(codes, book)
    print(f"    decoded {' '.join(f'{x:+.2f}' for x in dec)}")
    middle = TOY_LEVELS // 2
    print(
        f"    largest error {glue('toy_max_error', np.abs(dec - w).max(), '.4f')}; "
        f"the code {glue('toy_middle_code', middle)} bin holds "
        f"{glue('toy_middle_count', int((codes == middle).sum()))} numbers"
    )
    assert codes.tolist() == [0, 1, 1, 2, 2, 2, 2, 2, 3, 3, 4, 4]
    assert book.dtype == np.float16 and abs(float(book[0]) + 0.9) < 1e-3
    assert np.abs(dec - w).max() <= 2 * m / TOY_LEVELS


def block2_train() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    p, pi = make_chain(SEED_CHAIN)
    counts = sample_counts(p, pi, N_TRAIN, SEED_DATA)
    theta = train(counts, SEED_INIT)
    h_rate = entropy_rate_bits(p, pi)
    h_uni = float(-(pi * np.log2(pi)).sum())
    train_bits = loss_and_grad(theta, counts)[0] / math.log(2)
    pop_bits = population_loss_bits(theta, p, pi)
    d = theta.size
    print(
        f"[2] A network q(. | x) = softmax(tanh(E[x] + b1) W + b2), {glue('n_symbols', V)} "
        f"symbols, hidden width {glue('hidden_width', HIDDEN)}: d = {glue('n_weights', d, ',')} "
        "weights"
    )
    print(
        f"    data: a fixed random Markov chain (rows Dirichlet({glue('dirichlet', DIRICHLET)}), "
        f"seed {glue('seed_chain', SEED_CHAIN)}); {glue('n_train', N_TRAIN, ',')} training "
        f"transitions (seed {glue('seed_data', SEED_DATA)}); {glue('adam_steps', STEPS, ',')} "
        "full-batch Adam steps"
    )
    print(
        f"    entropy rate {glue('entropy_rate', h_rate, '.3f')} bits (best possible); symbol "
        f"entropy {glue('symbol_entropy', h_uni, '.3f')} bits (no context)"
    )
    print(
        f"    trained: training loss {glue('train_loss', train_bits, '.3f')} bits, population "
        f"loss {glue('population_loss', pop_bits, '.3f')} bits (exact, from the chain)"
    )
    ratio = float(np.abs(theta).max() / theta.std())
    print(
        f"    weights: standard deviation {glue('weight_std', theta.std(), '.3f')}, max|w| "
        f"{glue('weight_max', np.abs(theta).max(), '.3f')} = "
        f"{glue('weight_max_in_stds', ratio, '.2f')} standard deviations"
    )
    assert d == V * HIDDEN + HIDDEN + HIDDEN * V + V == 1_072
    assert h_rate < pop_bits < h_rate + 0.1 < h_uni
    assert train_bits < pop_bits
    return theta, counts, p, pi


def block3_levels(theta: np.ndarray, p: np.ndarray, pi: np.ndarray) -> dict[str, list[float]]:
    d = theta.size
    base = population_loss_bits(theta, p, pi)
    naive = 32 * d
    print(
        f"[3] Quantizing all {glue('levels_n_weights', d, ',')} weights (population loss "
        f"unquantized {glue('levels_base_loss', base, '.3f')} bits; float32 storage "
        f"{glue('float32_bits', naive, ',')} bits):"
    )
    print("    levels   H (bits)  message (bits)  share in middle bin  loss (bits)  loss increase")
    rows: dict[str, list[float]] = {"levels": [], "loss": [], "message": []}
    for levels in LEVEL_GRID:
        codes, book = pb.quantize_uniform(theta, levels)
        h = pb.empirical_entropy_bits(codes, levels)
        msg = pb.message_length_bits(codes, levels)
        loss = population_loss_bits(pb.dequantize(codes, book), p, pi)
        middle = float(np.mean(codes == levels // 2))
        key = f"levels{levels}"
        print(
            f"    {glue(key, levels, '>6')}   {glue(f'{key}_entropy', h, '>7.4f')}  "
            f"{glue(f'{key}_message', msg, '>14,')}  "
            f"{glue(f'{key}_middle_share', 100 * middle, '>18.1f')} %  "
            f"{glue(f'{key}_loss', loss, '>11.3f')}  "
            f"{glue(f'{key}_increase', loss - base, '>+13.3f')}"
        )
        rows["levels"].append(levels)
        rows["loss"].append(loss)
        rows["message"].append(msg)
    _, book5 = pb.quantize_uniform(theta, 5)
    amax = float(np.abs(theta).max())
    inner = book5[[1, 3]].astype(np.float64)
    print(
        f"    at 5 levels the codebook is "
        f"{', '.join(glue(f'levels5_book{k}', v, '+.3f') for k, v in enumerate(book5))}; the "
        f"entries beside the middle are {glue('levels5_inner_low', inner[0], '+.3f')} and "
        f"{glue('levels5_inner_high', inner[1], '+.3f')}, "
        f"{glue('levels5_inner_low_share', abs(inner[0]) / amax, '.2f')} and "
        f"{glue('levels5_inner_high_share', inner[1] / amax, '.2f')} of max|w| (bin means, near "
        f"max|w| / 3 = {glue('max_third', amax / 3, '.3f')}, not the bins' centres at "
        f"2 max|w| / 5 = {glue('levels5_bin_centre', 0.4 * amax, '.3f')})"
    )  # fmt: skip
    assert all(0.28 < abs(v) / amax < 0.36 for v in inner)
    codes3, book3 = pb.quantize_uniform(theta, 3)
    codes5 = pb.quantize_uniform(theta, 5)[0]
    q3, q5 = pb.dequantize(codes3, book3), pb.dequantize(codes5, book5)
    between = (np.abs(theta) > amax / 5) & (np.abs(theta) < amax / 3)
    q5_mid = np.where(between, float(book3[1]), q5)
    loss5, loss5_mid = population_loss_bits(q5, p, pi), population_loss_bits(q5_mid, p, pi)
    sq3, sq5, sq5_mid = (float(np.sum((q - theta) ** 2)) for q in (q3, q5, q5_mid))
    print(
        f"    a test of why 5 levels lose more than 3: the "
        f"{glue('test_moved_count', int(between.sum()))} weights with "
        f"max|w| / {glue('test_low_divisor', 5)} < |w| < max|w| / {glue('test_high_divisor', 3)} "
        f"sent to the {glue('test_coarse_levels', 3)}-level middle entry "
        f"{glue('test_coarse_middle', float(book3[1]), '+.3f')} instead lower the "
        f"{glue('test_fine_levels', 5)}-level loss from {glue('test_loss5', loss5, '.3f')} to "
        f"{glue('test_loss5_moved', loss5_mid, '.3f')} bits; squared error: 3 levels "
        f"{glue('test_sq_error3', sq3, '.1f')}, 5 levels {glue('test_sq_error5', sq5, '.1f')}, "
        f"5 levels so changed {glue('test_sq_error5_moved', sq5_mid, '.1f')}"
    )  # fmt: skip
    assert loss5_mid < loss5 - 0.3 and sq5 < sq3 / 2
    width11 = 2 * float(np.abs(theta).max()) / RELEASED_LEVELS
    print(
        f"    at {glue('width_levels', RELEASED_LEVELS)} levels each bin is 2 max|w| / "
        f"{RELEASED_LEVELS} = {glue('bin_width11', width11, '.3f')} wide, "
        f"{glue('bin_width11_in_stds', width11 / theta.std(), '.3f')} standard deviations of the "
        "weights"
    )
    loss_a, msg_a = np.array(rows["loss"]), np.array(rows["message"])
    assert np.all(np.diff(msg_a) > 0)  # more levels, longer message
    assert loss_a[0] > base + 1.0  # 3 levels: more than a bit per symbol lost
    assert loss_a[-1] < base + 0.01  # 255 levels: nearly free
    i11 = LEVEL_GRID.index(RELEASED_LEVELS)
    assert loss_a[i11] > base + 0.1
    assert msg_a[-1] < naive
    return rows


def block4_codebooks(
    theta: np.ndarray, counts: np.ndarray, p: np.ndarray, pi: np.ndarray
) -> dict[str, tuple[float, int]]:
    levels = RELEASED_LEVELS
    base = population_loss_bits(theta, p, pi)
    codes_u, book_u = pb.quantize_uniform(theta, levels)
    codes_k, book_k = kmeans_1d(theta, book_u.astype(np.float64))
    codes_q, book_q = quantization_aware(theta, counts, levels)
    print(
        f"[4] {glue('released_levels', levels)} levels, three ways to choose the codebook "
        f"(population loss unquantized {glue('codebooks_base_loss', base, '.3f')} bits):"
    )
    print(
        f"    quantization-aware training: SGD with momentum {glue('qat_momentum', QAT_MOMENTUM)} "
        f"(as the authors' code), learning rate {glue('qat_lr', QAT_LR)}, "
        f"{glue('qat_steps', QAT_STEPS)} steps, straight-through gradient"
    )
    print(f"    {'codebook':<48} H (bits)  message (bits)  loss (bits)")
    out: dict[str, tuple[float, int]] = {}
    for key, name, codes, book in [
        ("uniform", "uniform bins (released config)", codes_u, book_u),
        ("kmeans", "k-means, Lloyd from uniform", codes_k, book_k),
        ("qat", f"quantization-aware, {QAT_STEPS} steps, float32 codebook", codes_q, book_q),
    ]:
        h = pb.empirical_entropy_bits(codes, levels)
        wide = (book.dtype.itemsize * 8 - CODEBOOK_BITS) * levels  # float32: +16 a level
        msg = pb.message_length_bits(codes, levels) + wide
        loss = population_loss_bits(pb.dequantize(codes, book), p, pi)
        print(f"    {name:<48} {glue(f'{key}_entropy', h, '>8.4f')}  "
              f"{glue(f'{key}_message', msg, '>14,')}  {glue(f'{key}_loss', loss, '>11.3f')}")
        out[name.split(",")[0].split(" ")[0]] = (loss, msg)
    (lu, mu), (lk, mk), (lq, mq) = out["uniform"], out["k-means"], out["quantization-aware"]
    print(
        "    against uniform bins: k-means lowers the loss by "
        f"{glue('kmeans_gain', lu - lk, '.3f')} bits and lengthens the message by "
        f"{glue('kmeans_extra_bits', mk - mu, ',')} bits;"
    )
    print(
        f"    quantization-aware training lowers the loss by {glue('qat_gain', lu - lq, '.3f')} "
        f"bits and lengthens the message by {glue('qat_extra_bits', mq - mu, ',')} bits"
    )
    print(f"    without entropy coding a code costs log2 {glue('fixed_width_levels', levels)} = "
          f"{glue('fixed_width_bits', math.log2(levels), '.4f')} bits")
    n_toy = 10**6
    print(
        f"    a complexity term sqrt(L / N) at N = {glue('trade_N', n_toy, ',')}: uniform "
        f"{glue('trade_uniform', math.sqrt(mu / n_toy), '.4f')}, quantization-aware "
        f"{glue('trade_qat', math.sqrt(mq / n_toy), '.4f')}"
    )
    assert lk < lu and mk > mu  # k-means: better fit, but codes used more evenly: longer message
    assert lq < lu  # training through the quantizer recovers loss
    assert lq < base + 0.1
    return out


def block5_seeds(p: np.ndarray, pi: np.ndarray) -> None:
    levels = RELEASED_LEVELS
    rows = []
    for i in range(N_NETWORKS):
        counts = sample_counts(p, pi, N_TRAIN, SEED_DATA_SPREAD + i)
        theta = train(counts, SEED_INIT_SPREAD + i)
        base = population_loss_bits(theta, p, pi)
        codes_u, book_u = pb.quantize_uniform(theta, levels)
        lu = population_loss_bits(pb.dequantize(codes_u, book_u), p, pi)
        codes_k, book_k = kmeans_1d(theta, book_u.astype(np.float64))
        lk = population_loss_bits(pb.dequantize(codes_k, book_k), p, pi)
        codes_q, book_q = quantization_aware(theta, counts, levels)
        lq = population_loss_bits(pb.dequantize(codes_q, book_q), p, pi)
        rows.append((lu - base, lu - lk, lu - lq))
    arr = np.array(rows)
    mean = arr.mean(axis=0)
    se = arr.std(axis=0, ddof=1) / math.sqrt(N_NETWORKS)
    print(
        f"[5] {N_NETWORKS} more networks on the same chain (training samples seeds "
        f"{SEED_DATA_SPREAD}-{SEED_DATA_SPREAD + N_NETWORKS - 1}, initialisations seeds "
        f"{SEED_INIT_SPREAD}-{SEED_INIT_SPREAD + N_NETWORKS - 1}), {levels} levels, "
        "population loss in bits, mean +- standard error [range]:"
    )  # fmt: skip
    names = (
        ("spread_uniform_increase", "loss increase of uniform bins"),
        ("spread_kmeans_gain", "k-means lowers the loss by"),
        ("spread_qat_gain", "quantization-aware training lowers the loss by"),
    )
    for j, (key, name) in enumerate(names):
        print(
            f"    {name:<48} {glue(f'{key}_mean', mean[j], '.3f')} +- "
            f"{glue(f'{key}_se', se[j], '.3f')} [{glue(f'{key}_min', arr[:, j].min(), '.3f')}, "
            f"{glue(f'{key}_max', arr[:, j].max(), '.3f')}]"
        )
    share = arr[:, 2] / arr[:, 0]
    print(
        f"    quantization-aware training recovers "
        f"{glue('spread_qat_share_min', 100 * share.min(), '.0f')} % to "
        f"{glue('spread_qat_share_max', 100 * share.max(), '.0f')} % of the uniform increase; "
        f"k-means lowers the loss on {glue('spread_kmeans_wins', int(np.sum(arr[:, 1] > 0)))} of "
        f"{glue('spread_networks', N_NETWORKS)} networks"
    )  # fmt: skip
    assert mean[2] - 2 * se[2] > mean[1] + 2 * se[1]  # QAT gains more than k-means, beyond 2 SE
    assert mean[1] - 2 * se[1] > 0  # k-means helps on average, beyond 2 SE
    assert share.min() > 0.5  # QAT recovers most of the damage on every network


# --------------------------------------------------------------------------------- figure
def draw_figure(rows: dict[str, list[float]], base: float, naive: int,
                extra: dict[str, tuple[float, int]]) -> None:  # fmt: skip
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(5.5, 7.6))
    lv = rows["levels"]
    ax1.plot(lv, rows["loss"], "o-", color="#0072B2", label="uniform bins (the authors')")
    ax1.axhline(base, color="#009E73", ls="--", lw=1, label="unquantized")
    ax1.plot([RELEASED_LEVELS], [extra["k-means"][0]], "s", color="#E69F00", label="k-means, 11")
    ax1.plot([RELEASED_LEVELS], [extra["quantization-aware"][0]], "^", color="#CC79A7",
             label="quantization-aware, 11")  # fmt: skip
    ax1.set_xscale("log", base=2)
    ax1.set_xlabel("quantization levels")
    ax1.set_ylabel("population loss (bits per symbol)")
    ax1.set_title("What quantization costs in loss", fontsize=10)
    ax1.legend(frameon=False)
    ax1.grid(alpha=0.3)
    ax2.plot(lv, rows["message"], "o-", color="#0072B2", label="message length (arithmetic coded)")
    ax2.axhline(naive, color="#D55E00", ls="--", lw=1, label="float32 storage")
    ax2.set_xscale("log", base=2)
    ax2.set_xlabel("quantization levels")
    ax2.set_ylabel("bits")
    ax2.set_ylim(0, naive * 1.1)
    ax2.set_title("What quantization buys in message length", fontsize=10)
    ax2.legend(frameon=False, loc="center right")
    ax2.grid(alpha=0.3)
    ticks = [3, 5, 11, 31, 63, 127, 255]
    for ax in (ax1, ax2):
        ax.axvline(RELEASED_LEVELS, color="#777777", lw=0.8, ls=":")
        ax.set_xticks(ticks, [str(t) for t in ticks])
        ax.minorticks_off()
    fig.tight_layout()
    save_figure(fig, FIGURE_NAME)
    plt.close(fig)


def main() -> None:
    print("Chapter 15 -- quantizing the weights of a small model (ch15_quantize.py)")
    block1_toy()
    theta, counts, p, pi = block2_train()
    rows = block3_levels(theta, p, pi)
    extra = block4_codebooks(theta, counts, p, pi)
    draw_figure(rows, population_loss_bits(theta, p, pi), 32 * theta.size, extra)
    block5_seeds(p, pi)
    print("All assertions passed.")


if __name__ == "__main__":
    main()
