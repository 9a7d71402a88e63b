"""Chapter 18: training in a random subspace, intrinsic dimension, and the projectors that do it.

Claims, numbered as the output blocks:
  [1] The task: a fixed random Markov chain on 16 symbols whose entropy rate we know exactly, a
      training sample drawn from it, and a small next-symbol model with D = 2,384 parameters.
      Because the chain is known, the population loss of any model is computed exactly (no
      Monte Carlo error): it is the expected code length under the chain's stationary law.
  [2] Full training (all D parameters, Adam) and the untrained model: the two ends of the scale.
  [3] Training only w in theta = theta_0 + P w for d = 1 ... 1,024, with a dense Gaussian P and
      with the authors' "rdkronqr" P, three projector seeds each: population loss and the share
      of full training's improvement reached. The share rises with d; d90 (the smallest d on
      the grid where every seed reaches 90 % of the improvement) is far below D.
  [4] The authors' rdkronqr projector at GPT-2 small's SubLoRA size (D = 351,744, d = 50,000):
      factor and remainder shapes, orthonormal Kronecker part, and a remainder block with more
      columns than rows, which leaves directions of w that move nothing.
  [5] Memory and work of the four projector families at that size, and built at a smaller size
      where all four fit: exact bytes and multiply-adds per product P w.
Figure: ch18_intrinsic_dimension.png (population loss against d, both projectors, d90 marked).
Seeds: chain 0, sample 1, model 2, projectors 100-102; 400 full-batch Adam steps per run.
Deterministic: one thread, float64, values printed to 3-4 significant digits.
The values Chapter 18 quotes are printed through `glue(name, ...)` (script_glue.py), so that
the page refers to them by name.
"""

from __future__ import annotations

import itertools
import math
import time

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pacbound as pb
import torch
from pacbound import markov
from pacbound.projectors import Projector
from script_glue import glue
from script_io import save_figure
from torch import nn

torch.set_num_threads(1)
torch.set_default_dtype(torch.float64)  # last-bit CPU differences stay far below printed digits

V = 16  # symbols of the Markov chain
DIRICHLET = 0.3  # concentration of each transition row: small = peaked rows, low entropy
N_TRAIN = 3_000  # transitions in the training sample
HIDDEN = 64
SEED_CHAIN, SEED_SAMPLE, SEED_MODEL = 0, 1, 2
PROJ_SEEDS = (100, 101, 102)
DIMS = (1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024)
KINDS = ("dense", "rdkronqr")
STEPS = 400
LR_FULL, LR_SUB = 0.01, 0.05
TARGET = 0.9  # share of full training's improvement that defines d90
GPT2_D, GPT2_d = 351_744, 50_000  # LoRA numbers of GPT-2 small; SubLoRA's d
SMALL_D, SMALL_d = 30_000, 500  # a size at which even the dense projector fits
TIMING_REPS, MIN_SPEEDUP = 21, 2  # timings enter the output only as this coarse comparison
FIGURE_NAME = "ch18_intrinsic_dimension.png"


# ------------------------------------------------------------------------------ the task
def markov_chain(seed: int) -> tuple[np.ndarray, np.ndarray, float]:
    """Transition matrix T (rows ~ Dirichlet), stationary law pi, entropy rate in bits
    (pacbound.markov's)."""
    rng = np.random.default_rng(seed)
    T = rng.dirichlet(np.full(V, DIRICHLET), size=V)
    return T, markov.stationary_distribution(T), markov.stationary_entropy_rate_bits(T)


def sample_counts(T: np.ndarray, pi: np.ndarray, n: int, seed: int) -> np.ndarray:
    """Counts C[i, j] of the n transitions i -> j of one run of the chain started from pi."""
    rng = np.random.default_rng(seed)
    counts = np.zeros((V, V))
    state = rng.choice(V, p=pi)
    for _ in range(n):
        nxt = rng.choice(V, p=T[state])
        counts[state, nxt] += 1
        state = nxt
    return counts


class NextSymbol(nn.Module):
    """Embedding -> tanh hidden layer -> logits over the next symbol."""

    def __init__(self) -> None:
        super().__init__()
        self.emb = nn.Embedding(V, V)
        self.hidden = nn.Linear(V, HIDDEN)
        self.out = nn.Linear(HIDDEN, V)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        return self.out(torch.tanh(self.hidden(self.emb(idx))))


def bits(weights: torch.Tensor, logits: torch.Tensor) -> torch.Tensor:
    """Expected code length in bits: sum_ij weights_ij * -log2 softmax(logits)_ij."""
    return -(weights * torch.log_softmax(logits, dim=1)).sum() / math.log(2)


def train(model: nn.Module, params: list[torch.Tensor], train_w: torch.Tensor, lr: float) -> None:
    """Full-batch Adam on the training loss for STEPS steps."""
    opt = torch.optim.Adam(params, lr=lr)
    idx = torch.arange(V)
    for _ in range(STEPS):
        opt.zero_grad()
        bits(train_w, model(idx)).backward()
        opt.step()


def fresh_model() -> NextSymbol:
    torch.manual_seed(SEED_MODEL)
    return NextSymbol()


def evaluate(model: nn.Module, train_w: torch.Tensor, pop_w: torch.Tensor) -> tuple[float, float]:
    """(training loss, population loss), bits per symbol."""
    with torch.no_grad():
        logits = model(torch.arange(V))
        return float(bits(train_w, logits)), float(bits(pop_w, logits))


def run_subspace(kind: str, d: int, seed: int, train_w, pop_w) -> float:
    """Population loss after training only w (d numbers) in theta = theta_0 + P w."""
    sub = pb.SubspaceModel(fresh_model(), d=d, kind=kind, seed=seed)
    train(sub, [sub.w], train_w, LR_SUB)
    return evaluate(sub, train_w, pop_w)[1]


# ------------------------------------------------------------------------------ projectors
def max_abs(x: torch.Tensor) -> float:
    return float(x.abs().max())


def projector_costs(D: int, d: int) -> dict[str, tuple[int, int]]:
    """(bytes held, multiply-adds per P w) of each family, from the structure (not built)."""
    (D1, d1), (De, de) = pb.kron_shapes(D, d)
    nnz = round(d * math.sqrt(D))  # expected non-zeros of the sparse projector
    kron_bytes = (2 * D1 * d1 + De * de) * 4 + D * 8  # float32 factors, int64 permutation
    kron_madds = D1 * d1 * d1 + D1 * d1 * D1 + De * de  # R1 W, (R1 W) R2^T, E w_2
    return {
        "dense": (D * d * 4, D * d),
        "sparse": (nnz * (4 + 16), nnz),  # float32 value + two int64 indices
        "kron": (kron_bytes, kron_madds),
        "rdkronqr": (kron_bytes, kron_madds),
    }


def median_time(proj: Projector) -> float:
    """Median wall time of one product P w over TIMING_REPS repetitions (seconds)."""
    w = torch.ones(proj.d)
    times = []
    for _ in range(TIMING_REPS):
        start = time.perf_counter()
        proj.apply(w)
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def human_bytes(n: float) -> str:
    for unit, size in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n:.0f} B"


def draw(results: dict, L0: float, Lfull: float, H: float, d90: dict) -> None:
    fig, ax = plt.subplots(figsize=(5.5, 6.4), layout="constrained")
    colours = {"dense": "#0072B2", "rdkronqr": "#D55E00"}
    markers = {"dense": "o", "rdkronqr": "s"}
    for kind in KINDS:
        losses = np.array([[results[kind, d, s] for s in PROJ_SEEDS] for d in DIMS])
        ax.plot(DIMS, losses.mean(1), marker=markers[kind], color=colours[kind],
                label=f"{kind} projector (mean of 3 seeds)")  # fmt: skip
        ax.fill_between(DIMS, losses.min(1), losses.max(1), color=colours[kind], alpha=0.2)
    target = L0 - TARGET * (L0 - Lfull)
    ax.axhline(L0, color="#999999", ls=":", label="untrained model")
    ax.axhline(Lfull, color="#009E73", ls="--", label="full training (all 2,384 parameters)")
    ax.axhline(target, color="#CC79A7", ls="-.", label="90 % of the improvement")
    ax.axhline(H, color="black", lw=0.8, label="entropy rate of the chain")
    ax.axvline(d90["dense"], color="#0072B2", lw=0.8, ls=":")
    ax.set_xscale("log", base=2)
    ax.set_xticks(DIMS, [str(d) for d in DIMS])
    ax.minorticks_off()
    ax.annotate(f"d90 = {d90['dense']}", (d90["dense"], target), xytext=(6, 14),
                textcoords="offset points")  # fmt: skip
    ax.set_xlabel("subspace dimension d (trained numbers)")
    ax.set_ylabel("population loss (bits per symbol)")
    fig.legend(frameon=False, loc="outside lower center")
    save_figure(fig, FIGURE_NAME)
    plt.close(fig)


def main() -> None:
    print("Chapter 18 -- subspace training and intrinsic dimension (ch18_subspace.py)")

    # [1] the task
    T, pi, H = markov_chain(SEED_CHAIN)
    counts = sample_counts(T, pi, N_TRAIN, SEED_SAMPLE)
    train_w = torch.tensor(counts / N_TRAIN)
    pop_w = torch.tensor(pi[:, None] * T)
    D = sum(p.numel() for p in fresh_model().parameters())
    print(f"[1] Markov chain on {glue('n_symbols', V)} symbols, rows ~ "
          f"Dirichlet({glue('dirichlet', DIRICHLET)}): entropy rate "
          f"{glue('entropy_rate', H, '.4f')} bits per symbol (uniform guessing: "
          f"{glue('uniform_bits', math.log2(V), '.0f')} bits)")  # fmt: skip
    print(f"    training sample: {glue('n_train', N_TRAIN, ',')} transitions; model embedding "
          f"{V}x{V} -> {glue('hidden', HIDDEN)} tanh -> {V} logits: "
          f"D = {glue('n_params', D, ',')} parameters")  # fmt: skip
    assert D == 2_384 and 0.5 < H < 3.5

    # [2] the two ends
    L0_train, L0 = evaluate(fresh_model(), train_w, pop_w)
    full = fresh_model()
    train(full, list(full.parameters()), train_w, LR_FULL)
    Lfull_train, Lfull = evaluate(full, train_w, pop_w)
    print(f"[2] untrained model: population loss {glue('untrained_loss', L0, '.3f')} bits "
          f"(training loss {glue('untrained_train_loss', L0_train, '.3f')})")  # fmt: skip
    print(f"    full training ({glue('full_steps', STEPS)} Adam steps, lr "
          f"{glue('full_lr', LR_FULL)}): population loss {glue('full_loss', Lfull, '.3f')} "
          f"bits (training loss {glue('full_train_loss', Lfull_train, '.3f')}); entropy rate "
          f"{glue('full_entropy_rate', H, '.3f')}")  # fmt: skip
    assert Lfull < L0 - 1.0 and Lfull > H and Lfull_train < Lfull

    # [3] the subspace curve
    results = {(k, d, s): run_subspace(k, d, s, train_w, pop_w)
               for k in KINDS for d in DIMS for s in PROJ_SEEDS}  # fmt: skip
    share = {key: (L0 - loss) / (L0 - Lfull) for key, loss in results.items()}
    print(f"[3] training only w in theta = theta_0 + P w ({glue('subspace_steps', STEPS)} Adam "
          f"steps, lr {glue('subspace_lr', LR_SUB)}); "
          f"population loss (bits), mean and range over projector seeds {PROJ_SEEDS}, and the "
          "share of full training's improvement:")  # fmt: skip
    print(
        f"    {'d':>5}  {'d/D':>7}  " + "  ".join(f"{k + ' loss':>21}  {'share':>6}" for k in KINDS)
    )
    d90 = {}
    for d in DIMS:
        cells = []
        for k in KINDS:
            ls = [results[k, d, s] for s in PROJ_SEEDS]
            sh = [share[k, d, s] for s in PROJ_SEEDS]
            key = f"{k}_d{d}"  # e.g. dense_d128_loss, rdkronqr_d128_gain_share
            cells.append(f"{glue(f'{key}_loss', np.mean(ls), '7.3f')} "
                         f"[{glue(f'{key}_min', min(ls), '5.3f')},"
                         f"{glue(f'{key}_max', max(ls), '5.3f')}]  "
                         f"{glue(f'{key}_gain_share', np.mean(sh), '6.1%')}")
            if k not in d90 and min(sh) >= TARGET:
                d90[k] = d
        print(f"    {glue(f'd{d}', d, '>5')}  {glue(f'd{d}_share_of_D', d / D, '7.2%')}  "
              + "  ".join(cells))
    for k in KINDS:
        below = [d for d in DIMS if d < d90[k]]
        worst_below = max(np.mean([share[k, d, s] for s in PROJ_SEEDS]) for d in below)
        print(f"    d90 ({k}): {glue(f'{k}_d90', d90[k])} = "
              f"{glue(f'{k}_d90_share_of_D', d90[k] / D, '.1%')} of D; every smaller d on the "
              f"grid reaches at most {glue(f'{k}_best_below_d90', worst_below, '.1%')} of the "
              "improvement on average")  # fmt: skip
        assert worst_below < TARGET and d90[k] <= D // 4
    by_seed = {(k, d): [results[k, d, s] for s in PROJ_SEEDS] for k in KINDS for d in DIMS}
    spread = max(max(v) - min(v) for v in by_seed.values())
    print(f"    largest spread between projector seeds at one d: "
          f"{glue('seed_spread', spread, '.3f')} bits")
    monotone = all(np.mean(by_seed[k, a]) >= np.mean(by_seed[k, b]) - 0.02
                   for k in KINDS for a, b in itertools.pairwise(DIMS))  # fmt: skip
    print(f"    mean loss never rises by more than 0.02 bits as d doubles: {monotone}")
    assert monotone

    # [4] rdkronqr at GPT-2 small's size, in float32 as the authors store it
    torch.set_default_dtype(torch.float32)
    P = pb.make_projector("rdkronqr", GPT2_D, GPT2_d, seed=137)
    (D1, d1), (De, de) = pb.kron_shapes(GPT2_D, GPT2_d)
    eye = torch.eye(d1)
    orth = max(max_abs(P.R1.T @ P.R1 - eye), max_abs(P.R2.T @ P.R2 - eye))
    w = torch.from_numpy(np.random.default_rng(7).standard_normal(GPT2_d).astype(np.float32))
    w_kron = torch.cat([w[: d1 * d1], torch.zeros(de)])
    ratio = float(P.apply(w_kron).norm() / w_kron.norm())
    sv = torch.linalg.svdvals(P.E.double())
    rank_e = int((sv > 1e-6 * sv[0]).sum())
    Pw = P.apply(w)
    print(f"[4] rdkronqr for D = {glue('lora_numbers', GPT2_D, ',')}, "
          f"d = {glue('gpt2_d', GPT2_d, ',')} [SOURCE: sublora/nn/projectors.py:"
          "372-395 @c606ea6]:")  # fmt: skip
    print(f"    Kronecker factors {glue('kron_rows', D1)} x {glue('kron_cols', d1)} each ({D1}^2 = "
          f"{glue('kron_rows_squared', D1 * D1, ',')} rows, {d1}^2 = "
          f"{glue('kron_cols_squared', d1 * d1, ',')} columns); remainder block "
          f"{glue('remainder_rows', De)} x {glue('remainder_cols', de)}")  # fmt: skip
    print(f"    factors orthonormal: max |R^T R - I| below 1e-5: {orth < 1e-5}; for w in the "
          f"Kronecker part |P w| / |w| = {glue('kron_norm_ratio', ratio, '.4f')}")  # fmt: skip
    print(f"    remainder block: rank {glue('remainder_rank', rank_e)} of its {de} columns, so "
          f"{glue('dead_directions', de - rank_e)} directions of w change nothing; rank of P = "
          f"{glue('rank_p', d1 * d1 + rank_e, ',')} of d = {GPT2_d:,}")  # fmt: skip
    print(f"    |P w| / |w| for a Gaussian w over all {GPT2_d:,} coordinates: "
          f"{float(Pw.norm() / w.norm()):.3f}")  # fmt: skip
    assert (D1, d1, De, de) == (593, 223, 95, 271) and orth < 1e-5 and abs(ratio - 1) < 1e-4
    assert rank_e == 95 and d1 * d1 + rank_e == 49_824

    # [5] memory and work
    print(f"[5] bytes held and multiply-adds per product P w, at D = {GPT2_D:,}, d = {GPT2_d:,} "
          "(from the structure; the dense and sparse ones are not built):")  # fmt: skip
    big = projector_costs(GPT2_D, GPT2_d)
    for kind, (nbytes, madds) in big.items():
        print(f"    {kind:<9} {glue(f'{kind}_memory', human_bytes(nbytes), '>9')}   "
              f"{glue(f'{kind}_madds', madds, '.3g')} multiply-adds")
    assert big["rdkronqr"][0] == P.nbytes == 3_974_844
    print("    dense / rdkronqr memory: "
          f"{glue('memory_ratio', big['dense'][0] / big['rdkronqr'][0], ',.0f')} times")
    small = {k: pb.make_projector(k, SMALL_D, SMALL_d, seed=3) for k in pb.PROJECTOR_KINDS}
    formula = projector_costs(SMALL_D, SMALL_d)
    print(f"    built at D = {glue('small_D', SMALL_D, ',')}, d = {glue('small_d', SMALL_d)}: "
          "bytes held (measured) and multiply-adds:")
    for kind, proj in small.items():
        print(f"    {kind:<9} {glue(f'small_{kind}_memory', human_bytes(proj.nbytes), '>9')}   "
              f"{glue(f'small_{kind}_madds', formula[kind][1], '.3g')}")
    assert small["dense"].nbytes == formula["dense"][0]
    assert small["kron"].nbytes == formula["kron"][0]
    assert abs(small["sparse"].nbytes / formula["sparse"][0] - 1) < 0.02
    speedup = median_time(small["dense"]) / median_time(small["rdkronqr"])
    print(f"    measured (median of {glue('timing_reps', TIMING_REPS)} products): rdkronqr's "
          f"product is more than {glue('min_speedup', MIN_SPEEDUP)} times faster than the dense "
          f"one: {speedup > MIN_SPEEDUP}")  # fmt: skip
    assert speedup > MIN_SPEEDUP
    draw(results, L0, Lfull, H, d90)
    print("All assertions passed.")


if __name__ == "__main__":
    main()
