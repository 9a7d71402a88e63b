"""Chapter 20's code errata: C7 (LoRA dropout during bound evaluation) and C8 (config overridden).

Claims, numbered as the output blocks:
  [1] C7, the mechanism. A module kept in a plain Python list is not a registered submodule, so
      `.eval()` on the wrapper never reaches it: its dropout stays active. The authors' subspace
      wrapper holds the GPT that way [SOURCE: sublora/nn/projectors.py:130 @c606ea6] and the
      bound evaluation calls `.eval()` on the wrapper only [SOURCE: sublora/sublora_pipeline.py:559
      @c606ea6]. With a small LoRA model (lora_dropout 0.1, the authors' value) held the same
      way, two evaluation passes give different losses, and their mean sits above the loss of
      the model with dropout off. The same model registered as a submodule evaluates the same
      twice.
  [2] C8, the shape. `model_size` (default "small") picks (n_layer, n_head, n_embd) from a fixed
      table [SOURCE: sublora/utils.py:140-178; sublora/sublora_pipeline.py:76, 195-197 @c606ea6]
      and replaces whatever the YAML says; of the eight Figure 3 sweep shapes only GPT-2 small's
      own (12, 12, 768) is in the table, so a sweep config that sets only n_layer, n_head, n_embd
      trains GPT-2 small.
  [3] C8, the LoRA settings. At bound time (init_from = best_ckpt) thirteen settings, shape and
      LoRA ones included, are copied from the checkpoint over the bounds YAML
      [SOURCE: sublora/nn/create_model.py:76-79 @c606ea6]; intrinsic_dim is not among them.
Seeds: chain 0, sample 1, model 2, LoRA 3, dropout 4. The dropout masks are the only randomness
in [1]; its losses are exact population losses of the chain (no data sampling).
Every value the chapter quotes is printed through `glue(name, ...)` (script_glue.py), so that the
page refers to it by name.
"""

from __future__ import annotations

import math

import numpy as np
import pacbound as pb
import torch
from script_glue import glue
from torch import nn

torch.set_num_threads(1)
torch.set_default_dtype(torch.float64)  # last-bit CPU differences stay far below printed digits

V, HIDDEN, DIRICHLET, N_TRAIN, STEPS, LR = 16, 64, 0.3, 3_000, 300, 0.01
R, LORA_ALPHA, LORA_DROPOUT = 4, 32, 0.1  # [SOURCE: config/sublora_bounds.yaml:23-27 @c606ea6]
SEED_CHAIN, SEED_SAMPLE, SEED_MODEL, SEED_LORA, SEED_DROP = 0, 1, 2, 3, 4
PASSES = 200  # evaluation passes with fresh dropout masks

# [SOURCE: sublora/utils.py:140-178 @c606ea6] model_size -> (n_layer, n_head, n_embd)
MODEL_SIZES = {
    "small": (12, 12, 768),
    "small-medium": (16, 16, 1024),
    "medium": (24, 16, 1024),
    "medium-large": (20, 20, 1280),
    "large": (36, 20, 1280),
    "large-vlarge": (25, 25, 1600),
    "vlarge": (48, 25, 1600),
}
DEFAULT_MODEL_SIZE = "small"  # [SOURCE: sublora/sublora_pipeline.py:76 @c606ea6]
# Figure 3's sweep (n_layer, n_head, n_embd) [SECONDARY: paper App. E, p. 17]
SWEEP = [(4, 4, 32), (4, 4, 64), (4, 4, 128), (8, 8, 256), (8, 8, 384), (8, 8, 512),
         (10, 10, 640), (12, 12, 768)]  # fmt: skip
# [SOURCE: sublora/nn/create_model.py:77-78 @c606ea6] keys copied from the checkpoint
FROM_CHECKPOINT = (
    "n_layer", "n_head", "n_embd", "block_size", "bias", "vocab_size", "use_lora", "lora_alpha",
    "lora_dropout", "attention_linear_use_lora", "attention_linear_lora_r", "linear_head_lora_r",
    "linear_head_enable_lora",
)  # fmt: skip


class NextSymbol(nn.Module):
    """Embedding -> tanh hidden layer -> logits, LoRA on both linear layers."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(SEED_MODEL)
        self.emb = nn.Embedding(V, V)
        self.hidden = nn.Linear(V, HIDDEN)
        self.out = nn.Linear(HIDDEN, V)
        for p in self.parameters():
            p.requires_grad_(False)
        torch.manual_seed(SEED_LORA)
        kw = {"r": R, "lora_alpha": LORA_ALPHA, "lora_dropout": LORA_DROPOUT}
        self.hidden, self.out = pb.LoRALinear(self.hidden, **kw), pb.LoRALinear(self.out, **kw)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        return self.out(torch.tanh(self.hidden(self.emb(idx))))


class HeldInList(nn.Module):
    """Holds the network the way the authors' IDModule does: in a plain list, unregistered."""

    def __init__(self, net: nn.Module) -> None:
        super().__init__()
        self._forward_net = [net]

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        return self._forward_net[0](idx)


class Registered(nn.Module):
    """The same, with the network registered as a submodule."""

    def __init__(self, net: nn.Module) -> None:
        super().__init__()
        self.net = net

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        return self.net(idx)


def chain_weights() -> tuple[torch.Tensor, torch.Tensor]:
    """(training weights C / n, population weights pi_i T_ij) of the Markov chain."""
    rng = np.random.default_rng(SEED_CHAIN)
    T = rng.dirichlet(np.full(V, DIRICHLET), size=V)
    evals, evecs = np.linalg.eig(T.T)
    pi = np.real(evecs[:, np.argmin(np.abs(evals - 1))])
    pi = pi / pi.sum()
    srng = np.random.default_rng(SEED_SAMPLE)
    counts = np.zeros((V, V))
    state = srng.choice(V, p=pi)
    for _ in range(N_TRAIN):
        nxt = srng.choice(V, p=T[state])
        counts[state, nxt] += 1
        state = nxt
    return torch.tensor(counts / N_TRAIN), torch.tensor(pi[:, None] * T)


def bits(w: torch.Tensor, logits: torch.Tensor) -> float:
    return float(-(w * torch.log_softmax(logits, dim=1)).sum() / math.log(2))


def trained_lora_model(train_w: torch.Tensor) -> NextSymbol:
    net = NextSymbol()
    params = [p for p in net.parameters() if p.requires_grad]
    opt = torch.optim.Adam(params, lr=LR)
    torch.manual_seed(SEED_DROP)
    for _ in range(STEPS):
        opt.zero_grad()
        loss = -(train_w * torch.log_softmax(net(torch.arange(V)), dim=1)).sum()
        loss.backward()
        opt.step()
    return net


def main() -> None:
    print("Chapter 20 -- two errata of the released code, C7 and C8 (ch20_code_errata.py)")

    # [1] C7
    train_w, pop_w = chain_weights()
    net = trained_lora_model(train_w)
    idx = torch.arange(V)
    held = HeldInList(net)
    held.eval()
    dropouts = [m for m in net.modules() if isinstance(m, nn.Dropout)]
    state = (held.training, net.training, all(m.training for m in dropouts))
    torch.manual_seed(SEED_DROP)
    with torch.no_grad():
        passes = np.array([bits(pop_w, held(idx)) for _ in range(PASSES)])
        net.eval()  # what the evaluation should have done
        clean = bits(pop_w, net(idx))
        net.train()
        reg = Registered(net).eval()
        reg_gap = abs(bits(pop_w, reg(idx)) - bits(pop_w, reg(idx)))
    first_gap = abs(passes[0] - passes[1])
    se = passes.std(ddof=1) / math.sqrt(PASSES)
    excess = passes.mean() - clean
    print(f"[1] C7: a LoRA model (r = {glue('authors_lora_r', R)}, lora_alpha = "
          f"{glue('authors_lora_alpha', LORA_ALPHA)}, lora_dropout = "
          f"{glue('authors_lora_dropout', LORA_DROPOUT)}) held in a plain list, "
          "after wrapper.eval():")  # fmt: skip
    print(f"    wrapper.training = {state[0]}; held network .training = {state[1]}; "
          f"its {len(dropouts)} dropout modules active: {state[2]}")  # fmt: skip
    print(f"    two evaluation passes, population loss: {glue('pass1_loss', passes[0], '.3f')} and "
          f"{glue('pass2_loss', passes[1], '.3f')} bits (differ by "
          f"{glue('pass_gap', first_gap, '.3f')})")  # fmt: skip
    print(f"    over {glue('eval_passes', PASSES)} passes: mean {passes.mean():.3f} +- {se:.3f} "
          f"bits, range "
          f"{passes.min():.3f} to {passes.max():.3f}; dropout off: {clean:.3f} bits")  # fmt: skip
    print(f"    dropout left on costs {glue('dropout_cost', excess, '.3f')} bits per symbol on "
          f"average here ({glue('dropout_cost_share', excess / clean, '.1%')})")  # fmt: skip
    print(f"    registered as a submodule instead: two passes differ by {reg_gap:g}")
    assert state == (False, True, True) and len(dropouts) == 2
    assert first_gap > 0.001 and excess > 4 * se and reg_gap == 0

    # [2] C8: the shape
    built = MODEL_SIZES[DEFAULT_MODEL_SIZE]
    in_table = [s for s in SWEEP if s in MODEL_SIZES.values()]
    print(f"[2] C8: model_size (default {DEFAULT_MODEL_SIZE!r}) picks the shape from a table of "
          f"{len(MODEL_SIZES)} sizes and overwrites the YAML's n_layer, n_head, "
          "n_embd:")  # fmt: skip
    print(f"    {'asked for (n_layer, n_head, n_embd)':<38} {'built':<14} {'parameters asked':>16} "
          f"{'built':>13}")  # fmt: skip
    big = pb.gpt2_params(built[0], built[2])
    for s in SWEEP:
        asked = pb.gpt2_params(s[0], s[2])
        shape = glue("smallest_sweep_shape", str(s), "<38") if s == SWEEP[0] else f"{s!s:<38}"
        print(f"    {shape} {built!s:<14} {asked:>16,} {big:>13,}")
    print(f"    Figure 3 sweep shapes in the table: {glue('sweep_in_table', len(in_table))} of "
          f"{glue('sweep_shapes', len(SWEEP))} "
          f"({glue('sweep_shape_in_table', ', '.join(map(str, in_table)))}); the smallest "
          f"asked-for model comes out "
          f"{glue('smallest_built_ratio', big / pb.gpt2_params(4, 32), '.1f')} "
          "times larger")  # fmt: skip
    assert in_table == [(12, 12, 768)]

    # [3] C8: the checkpoint
    lora_keys = [k for k in FROM_CHECKPOINT if "lora" in k]
    print(f"[3] C8: at bound time {len(FROM_CHECKPOINT)} settings come from the checkpoint, "
          f"not from the bounds YAML; {len(lora_keys)} of them are LoRA settings:")  # fmt: skip
    print(f"    {', '.join(lora_keys)}")
    print(f"    intrinsic_dim among them: {'intrinsic_dim' in FROM_CHECKPOINT}")
    assert len(FROM_CHECKPOINT) == 13 and len(lora_keys) == 7
    print("All assertions passed.")


if __name__ == "__main__":
    main()
