"""Chapter 19: LoRA, counted for GPT-2 small and run on a toy fine-tuning task.

Claims, numbered as the output blocks:
  [1] LoRA numbers of GPT-2 small with rank 4 on W_Q, W_V of every block and on the head
      [SOURCE: sublora/nn/model.py:80-84, 275-276 @c606ea6; config/sublora_bounds.yaml:26-27]:
      351,744 with nanoGPT's padded vocabulary 50,304; 351,556 with the real 50,257.
  [2] One LoRA layer of GPT-2's shape (768 x 768, r = 4, lora_alpha = 32, dropout 0.1): scaling
      lora_alpha / r = 8; A drawn uniformly within +-1/sqrt(768), B zero; at step 0 the layer's
      output equals the frozen base layer's exactly, in training mode with dropout active
      too.
  [3] A toy fine-tune: a small next-symbol model trained on Markov chain A is adapted to chain B
      with rank-2 LoRA on its two linear layers. The function at step 0 is the base model's,
      bit for bit; after training, LoRA gains as much as full fine-tuning (here slightly more),
      with about an eighth of the numbers.
  [4] Dropout and merging: with dropout active, two passes over the same input differ; in eval
      mode they agree, and the merged layer (W + (lora_alpha / r) B A) gives the unmerged output
      up to float rounding.
  [5] A head tied to the embedding (GPT-2's layout): merging the head's LoRA update in place, as
      loralib does on .eval() [SOURCE: loralib/layers.py:137-142 @c4593f0], also adds it to the
      input embedding table, so the merged model computes a different function.
Figure: ch19_lora_layout.png (where LoRA sits in GPT-2 small, and what one LoRA layer adds).
Seeds: chains 0 and 5, samples 1 and 6, model 2, LoRA 3, dropout 4. Population losses are exact
(computed from the chain, no sampling). Deterministic: one thread, float64, rounded output.
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
import torch
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch
from pacbound import markov
from script_glue import glue
from script_io import save_figure
from torch import nn

torch.set_num_threads(1)
torch.set_default_dtype(torch.float64)  # last-bit CPU differences stay far below printed digits

V, HIDDEN = 16, 64
DIRICHLET, MIX = 0.3, 0.5  # chain B = MIX * chain A + (1 - MIX) * a fresh random chain
N_TRAIN = 3_000
SEED_A, SEED_NEW, SEED_SAMPLE_A, SEED_SAMPLE_B = 0, 5, 1, 6
SEED_MODEL, SEED_LORA, SEED_DROPOUT = 2, 3, 4
STEPS, LR_FULL, LR_LORA = 400, 0.01, 0.01
R_TOY, ALPHA_TOY = 2, 4
N_EMBD, R, LORA_ALPHA, LORA_DROPOUT = 768, 4, 32, 0.1  # GPT-2 small and the authors' settings
N_LAYER, V_PAD, V_REAL = 12, pb.NANOGPT_VOCAB_SIZE, pb.GPT2_VOCAB_SIZE
FIGURE_NAME = "ch19_lora_layout.png"


# --------------------------------------------------------------------- chains, data, models
def random_chain(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).dirichlet(np.full(V, DIRICHLET), size=V)


def stationary(T: np.ndarray) -> np.ndarray:
    return markov.stationary_distribution(T)


def sample_counts(T: np.ndarray, n: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    counts = np.zeros((V, V))
    state = rng.choice(V, p=stationary(T))
    for _ in range(n):
        nxt = rng.choice(V, p=T[state])
        counts[state, nxt] += 1
        state = nxt
    return counts


def weights(T: np.ndarray, seed: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(training weights C / n, population weights pi_i T_ij) for the loss `bits`."""
    train_w = torch.tensor(sample_counts(T, N_TRAIN, seed) / N_TRAIN)
    pop_w = torch.tensor(stationary(T)[:, None] * T)
    return train_w, pop_w


def entropy_rate(T: np.ndarray) -> float:
    """-sum_i pi_i sum_j T_ij log2 T_ij, bits per symbol."""
    return markov.stationary_entropy_rate_bits(T)


class NextSymbol(nn.Module):
    """Embedding -> tanh hidden layer -> logits (the model of Chapter 18's experiment)."""

    def __init__(self) -> None:
        super().__init__()
        self.emb = nn.Embedding(V, V)
        self.hidden = nn.Linear(V, HIDDEN)
        self.out = nn.Linear(HIDDEN, V)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        return self.out(torch.tanh(self.hidden(self.emb(idx))))


class TiedNextSymbol(nn.Module):
    """Embedding -> tanh layer -> head whose weight IS the embedding table (GPT-2's tying)."""

    def __init__(self, width: int = 24) -> None:
        super().__init__()
        self.emb = nn.Embedding(V, width)
        self.mix = nn.Linear(width, width)
        self.head = nn.Linear(width, V, bias=False)
        self.head.weight = self.emb.weight

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        return self.head(torch.tanh(self.mix(self.emb(idx))))


def bits(w: torch.Tensor, logits: torch.Tensor) -> torch.Tensor:
    return -(w * torch.log_softmax(logits, dim=1)).sum() / math.log(2)


def train(model: nn.Module, train_w: torch.Tensor, lr: float) -> None:
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.Adam(params, lr=lr)
    idx = torch.arange(V)
    for _ in range(STEPS):
        opt.zero_grad()
        bits(train_w, model(idx)).backward()
        opt.step()


def pop_loss(model: nn.Module, pop_w: torch.Tensor) -> float:
    with torch.no_grad():
        return float(bits(pop_w, model(torch.arange(V))))


def trainable(model: nn.Module) -> int:
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def add_lora(model: nn.Module, names: list[str], r: int, lora_alpha: float, dropout: float) -> None:
    """Replace each named nn.Linear child by a LoRALinear around it (weights shared)."""
    torch.manual_seed(SEED_LORA)
    for p in model.parameters():
        p.requires_grad_(False)
    for name in names:
        setattr(model, name, pb.LoRALinear(getattr(model, name), r=r, lora_alpha=lora_alpha,
                                           lora_dropout=dropout))  # fmt: skip


# --------------------------------------------------------------------------------- figure
def _box(ax, x: float, y: float, w: float, h: float, text: str, colour: str) -> None:
    ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0.02", fc=colour, ec="#333333",
                                lw=0.8))  # fmt: skip
    ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=10)


def _arrow(ax, a: tuple[float, float], b: tuple[float, float]) -> None:
    ax.add_patch(FancyArrowPatch(a, b, arrowstyle="-|>", mutation_scale=9, lw=0.8,
                                 color="#333333"))  # fmt: skip


def draw_figure(per_block: int, head: int, total: int, base: int) -> None:
    """Top: where LoRA sits in GPT-2 small. Bottom: what one LoRA layer adds to W u, u its input."""
    frozen, lora = "#DDDDDD", "#E69F00"
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(5.5, 8.4),
                                      gridspec_kw={"height_ratios": [1.1, 1.0]})  # fmt: skip
    for ax in (top, bottom):
        ax.set_xlim(0, 1)
        ax.set_ylim(0, 1)
        ax.axis("off")
    bottom.set_xlim(-0.03, 1.03)
    # top: the stack, bottom to top (in each block, attention comes before the MLP)
    _box(top, 0.1, 0.02, 0.8, 0.08, "token embedding (tied to the head)", frozen)
    top.add_patch(FancyBboxPatch((0.02, 0.16), 0.96, 0.56, boxstyle="round,pad=0.01",
                                 fc="none", ec="#777777", ls="--", lw=0.8))  # fmt: skip
    top.text(0.5, 0.665, f"x {N_LAYER} blocks", ha="center", fontsize=10, color="#555555")
    for i, (name, colour) in enumerate([("W_Q", lora), ("W_K", frozen), ("W_V", lora),
                                        ("W_O", frozen)]):  # fmt: skip
        _box(top, 0.07 + 0.23 * i, 0.22, 0.17, 0.09, name, colour)
    top.text(0.5, 0.34, "attention (after a LayerNorm)", ha="center", fontsize=10)
    _box(top, 0.06, 0.46, 0.88, 0.1, "MLP (after a LayerNorm)", frozen)
    _box(top, 0.06, 0.8, 0.88, 0.08, "head (uses the embedding table)", lora)
    for a, b in [((0.5, 0.1), (0.5, 0.22)), ((0.5, 0.37), (0.5, 0.46)), ((0.5, 0.72),
                 (0.5, 0.8))]:  # fmt: skip
        _arrow(top, a, b)
    top.text(0.5, 0.93, f"LoRA on W_Q, W_V: {N_LAYER} x {per_block:,}; head {head:,}\n"
             f"total {total:,} numbers, {total / base:.3%} of {base:,}", ha="center",
             fontsize=10)  # fmt: skip
    # bottom: one layer; its input u (a hidden vector) splits into the frozen path (above) and
    # the trained path (below)
    _box(bottom, 0.0, 0.42, 0.09, 0.12, "u", "#FFFFFF")
    _box(bottom, 0.3, 0.56, 0.34, 0.14, f"W  {N_EMBD} x {N_EMBD}\nfrozen", frozen)
    _box(bottom, 0.04, 0.06, 0.17, 0.2, "dropout\n(training\nonly)", "#FFFFFF")
    _box(bottom, 0.28, 0.06, 0.14, 0.2, f"A\n{R} x {N_EMBD}", lora)
    _box(bottom, 0.49, 0.06, 0.19, 0.2, f"B\n{N_EMBD} x {R}\nstarts at 0", lora)
    _box(bottom, 0.75, 0.06, 0.23, 0.2, f"x lora_alpha\n/ r = {LORA_ALPHA // R}", lora)
    _box(bottom, 0.8, 0.42, 0.1, 0.1, "+", "#FFFFFF")
    _arrow(bottom, (0.09, 0.52), (0.3, 0.62))
    _arrow(bottom, (0.05, 0.42), (0.12, 0.26))
    _arrow(bottom, (0.23, 0.16), (0.26, 0.16))
    _arrow(bottom, (0.44, 0.16), (0.47, 0.16))
    _arrow(bottom, (0.70, 0.16), (0.73, 0.16))
    _arrow(bottom, (0.85, 0.28), (0.85, 0.40))
    _arrow(bottom, (0.64, 0.63), (0.82, 0.52))
    bottom.text(0.93, 0.47, "y", ha="left", va="center", fontsize=10)
    bottom.text(0.5, 0.78, "y = W u + (lora_alpha / r) B A dropout(u)", ha="center",
                fontsize=10)  # fmt: skip
    bottom.text(0.5, 0.88, f"one LoRA layer: {R} x ({N_EMBD} + {N_EMBD}) = {R * 2 * N_EMBD:,} "
                f"trained\nnumbers beside {N_EMBD * N_EMBD:,} frozen", ha="center",
                fontsize=10)  # fmt: skip
    fig.tight_layout()
    save_figure(fig, FIGURE_NAME)


def main() -> None:
    print("Chapter 19 -- LoRA (ch19_lora.py)")

    # [1] counts for GPT-2 small
    per_matrix = pb.lora_factor_count(N_EMBD, N_EMBD, R)
    per_block = 2 * per_matrix
    head_pad = pb.lora_factor_count(V_PAD, N_EMBD, R)
    head_real = pb.lora_factor_count(V_REAL, N_EMBD, R)
    total_pad = pb.gpt2_lora_params(N_LAYER, N_EMBD, R, vocab=V_PAD)
    total_real = pb.gpt2_lora_params(N_LAYER, N_EMBD, R, vocab=V_REAL)
    base = pb.gpt2_params(N_LAYER, N_EMBD)
    print(
        f"[1] rank {glue('rank', R)} on W_Q and W_V of each of {glue('n_layer', N_LAYER)} blocks "
        "and on the head of GPT-2 small:"
    )
    print(f"    one {glue('n_embd', N_EMBD)} x {N_EMBD} matrix: A {R} x {N_EMBD} + "
          f"B {N_EMBD} x {R} = {glue('per_matrix', per_matrix, ',')}; per block "
          f"{glue('per_block', per_block, ',')}; {N_LAYER} blocks "
          f"{glue('blocks_total', N_LAYER * per_block, ',')}")  # fmt: skip
    print(f"    head ({glue('vocab_padded', V_PAD, ',')} x {N_EMBD}): {R} x ({V_PAD:,} + {N_EMBD}) "
          f"= {glue('head_padded', head_pad, ',')}; total {glue('total_padded', total_pad, ',')} "
          f"({glue('head_share', head_pad / total_pad, '.1%')} in the head)")  # fmt: skip
    print(f"    with the real vocabulary {glue('vocab_real', V_REAL, ',')}: head "
          f"{glue('head_real', head_real, ',')}, total {glue('total_real', total_real, ',')}")
    print(f"    against the model's {glue('base_params', base, ',')} parameters: "
          f"{glue('lora_share', total_pad / base, '.3%')}")
    assert (per_block, N_LAYER * per_block, head_pad) == (12_288, 147_456, 204_288)
    assert (total_pad, total_real) == (351_744, 351_556)
    draw_figure(per_block, head_pad, total_pad, base)

    # [2] one layer of GPT-2's shape
    torch.manual_seed(SEED_LORA)
    base_layer = nn.Linear(N_EMBD, N_EMBD, bias=False)
    frozen = base_layer.weight.detach().clone()
    layer = pb.LoRALinear(base_layer, r=R, lora_alpha=LORA_ALPHA, lora_dropout=LORA_DROPOUT)
    bound = 1 / math.sqrt(N_EMBD)
    x = torch.randn(8, N_EMBD)
    torch.manual_seed(SEED_DROPOUT)
    with torch.no_grad():
        diff0 = float((layer(x) - x @ frozen.T).abs().max())
    print(f"[2] LoRALinear({N_EMBD} -> {N_EMBD}, r = {glue('layer_rank', R)}, lora_alpha = "
          f"{glue('lora_alpha', LORA_ALPHA)}, dropout {glue('lora_dropout', LORA_DROPOUT)}): "
          f"scaling lora_alpha / r = {glue('scaling', layer.scaling, 'g')}")  # fmt: skip
    print(f"    A: {R} x {N_EMBD}, uniform in +-1/sqrt({glue('layer_n_embd', N_EMBD)}) = "
          f"+-{glue('a_bound', bound, '.4f')} (largest |A| "
          f"{glue('a_largest', float(layer.lora_A.abs().max()), '.4f')}); B: {N_EMBD} x {R}, "
          f"all zero: {int(torch.count_nonzero(layer.lora_B)) == 0}")  # fmt: skip
    print("    step 0, training mode, dropout on: max |LoRA layer - base layer| = "
          f"{glue('step0_layer_diff', diff0, 'g')}")
    assert layer.scaling == 8 and float(layer.lora_A.abs().max()) <= bound and diff0 == 0

    # [3] the toy fine-tune
    T_A = random_chain(SEED_A)
    T_B = MIX * T_A + (1 - MIX) * random_chain(SEED_NEW)
    train_a, _ = weights(T_A, SEED_SAMPLE_A)
    train_b, pop_b = weights(T_B, SEED_SAMPLE_B)
    H_B = entropy_rate(T_B)
    torch.manual_seed(SEED_MODEL)
    pretrained = NextSymbol()
    train(pretrained, train_a, LR_FULL)
    state = {k: v.clone() for k, v in pretrained.state_dict().items()}
    before = pop_loss(pretrained, pop_b)
    idx = torch.arange(V)
    with torch.no_grad():
        base_logits = pretrained(idx)

    full = NextSymbol()
    full.load_state_dict(state)
    train(full, train_b, LR_FULL)
    after_full = pop_loss(full, pop_b)

    lora_model = NextSymbol()
    lora_model.load_state_dict(state)
    add_lora(lora_model, ["hidden", "out"], R_TOY, ALPHA_TOY, dropout=0.0)
    with torch.no_grad():
        step0 = float((lora_model(idx) - base_logits).abs().max())
    step0_loss = pop_loss(lora_model, pop_b)
    n_lora, n_all = trainable(lora_model), sum(p.numel() for p in full.parameters())
    train(lora_model, train_b, LR_LORA)
    after_lora = pop_loss(lora_model, pop_b)
    gained = (before - after_lora) / (before - after_full)
    print(f"[3] toy fine-tune: model pretrained on chain A, adapted to chain B "
          f"({glue('n_train', N_TRAIN, ',')} training transitions, {glue('steps', STEPS)} Adam "
          "steps); population loss on B, bits:")  # fmt: skip
    print(f"    pretrained model, before adapting      {glue('pretrained_loss', before, '.3f')}")
    print(f"    LoRA r = {glue('toy_rank', R_TOY)} on both linear layers, step 0   "
          f"{glue('step0_loss', step0_loss, '.3f')}  (max |logit change| = "
          f"{glue('step0_logit_change', step0, 'g')})")  # fmt: skip
    print(f"    LoRA, after training ({glue('lora_numbers', n_lora, ',')} numbers)     "
          f"{glue('lora_loss', after_lora, '.3f')}")
    print(f"    full fine-tuning ({glue('full_numbers', n_all, ',')} numbers)        "
          f"{glue('full_loss', after_full, '.3f')}")
    print(f"    entropy rate of chain B                {glue('entropy_rate_b', H_B, '.3f')}")
    print(f"    LoRA reaches {glue('lora_gain_share', gained, '.0%')} of full fine-tuning's gain "
          f"with {glue('lora_numbers_share', n_lora / n_all, '.1%')} of the numbers")  # fmt: skip
    assert (
        step0 == 0
        and step0_loss == before
        and after_lora < before - 0.1
        and gained > 0.5
        and n_lora == 320
    )

    # [4] dropout and merging
    torch.manual_seed(SEED_LORA)
    drop_layer = pb.LoRALinear(nn.Linear(HIDDEN, V), r=R_TOY, lora_alpha=ALPHA_TOY,
                               lora_dropout=LORA_DROPOUT)  # fmt: skip
    h = torch.randn(32, HIDDEN)
    with torch.no_grad():
        drop_layer.lora_B.normal_()
        torch.manual_seed(SEED_DROPOUT)
        train_gap = float((drop_layer(h) - drop_layer(h)).abs().max())
        drop_layer.eval()
        eval_gap = float((drop_layer(h) - drop_layer(h)).abs().max())
        unmerged = drop_layer(h)
        drop_layer.merge()
        merge_gap = float((drop_layer(h) - unmerged).abs().max())
    print(
        f"[4] a LoRA layer with dropout {LORA_DROPOUT} and B set to standard Gaussian entries "
        "(a stand-in for a trained, nonzero B):"
    )
    print("    training mode, two passes on the same input: max difference "
          f"{glue('train_gap', train_gap, '.2f')}")
    print(f"    eval mode, two passes: max difference {glue('eval_gap', eval_gap, 'g')}")
    print("    merged W + (lora_alpha / r) B A against unmerged, eval mode: max difference "
          "below 1e-5: "
          f"{merge_gap < 1e-5}")  # fmt: skip
    assert train_gap > 0.1 and eval_gap == 0 and merge_gap < 1e-5

    # [5] the tied head
    torch.manual_seed(SEED_MODEL)
    tied = TiedNextSymbol()
    train(tied, train_a, LR_FULL)
    table_before = tied.emb.weight.detach().clone()
    torch.manual_seed(SEED_LORA)
    for p in tied.parameters():
        p.requires_grad_(False)
    tied.head = pb.LoRALinear(tied.head, r=R_TOY, lora_alpha=ALPHA_TOY, merge_on_eval=True)
    shared = tied.head.weight is tied.emb.weight
    train(tied, train_b, LR_LORA)
    tied.train()
    unmerged_loss = pop_loss(tied, pop_b)  # no dropout here, so this is the trained function
    tied.eval()  # merges in place, as loralib's Linear.train(False) does
    merged_loss = pop_loss(tied, pop_b)
    moved = float((tied.emb.weight.detach() - table_before).abs().max())
    print("[5] tied head and embedding (one tensor), LoRA on the head, merged on .eval():")
    print(f"    head weight is the embedding table: {shared}; after merging, the embedding table "
          f"moved by up to {glue('tied_moved', moved, '.3f')}")  # fmt: skip
    print(f"    population loss on B: unmerged {glue('tied_unmerged_loss', unmerged_loss, '.3f')} "
          f"bits, merged {glue('tied_merged_loss', merged_loss, '.3f')} bits (difference "
          f"{glue('tied_merge_cost', merged_loss - unmerged_loss, '+.3f')})")  # fmt: skip
    assert shared and moved > 0.01 and abs(merged_loss - unmerged_loss) > 0.005
    print("All assertions passed.")


if __name__ == "__main__":
    main()
