"""Errata C7 and C10: loralib's merge-on-eval meets the authors' subspace wrapper and tied head.

A toy of GPT-2's layout: a token embedding tied to the output head (one tensor), a LoRA layer on
a hidden linear map (with dropout) and a LoRA layer on the head. Documents come from the book's
Markov-chain source (pacbound.markov, Chapter 9), so every loss is an exact population loss.
The LoRA layers are `pacbound.LoRALinear` with `merge_on_eval=True`, which merges on `.eval()`
and unmerges on `.train()` the way loralib's `Linear` does with its default `merge_weights=True`
[SOURCE: loralib/layers.py:100, 127-142 @c4593f0]. The subspace wrapper is rebuilt from its
description: it deletes the trainable tensors from the network and sets them, as plain tensors
theta_0 + P w, before every forward pass [SOURCE: sublora/nn/projectors.py:126-141, 194-203
@c606ea6].

Claims, numbered as the output blocks:
  [1] The toy: base model, LoRA through the subspace (trained w), and the coded model (w
      quantized to Q levels), with their exact population losses.
  [2] C7's first proposed correction, forwarding `train(mode)` from the wrapper to the network:
      on a freshly built wrapper, `.eval()` (which `get_bounds` calls before any forward pass,
      sublora_pipeline.py:389, 512) raises AttributeError, because the LoRA factors were deleted.
  [3] The same after one forward pass: `.eval()` merges the update of the w of that pass, and a
      later change of w (quantization) no longer reaches the function evaluated.
  [4] The second proposed correction, a registered network replaced through functional_call:
      `.eval()` merges the network's own factors, B0 A0 = 0, marks the layers merged, and the
      forward pass then evaluates the base model without any LoRA update.
  [5] What is safe: lora_dropout = 0 with the wrapper left as it is, or merge_weights = False
      (here merge_on_eval = False) with `train(mode)` forwarded; both evaluate the intended model.
  [6] C10: the LoRA-only path (intrinsic_dim = 0) calls `.eval()` on the GPT itself
      [SOURCE: sublora_pipeline.py:559 @c606ea6] after quantizing the LoRA tensors
      [SOURCE: bound_utils.py:203-220 @c606ea6]: the head's quantized update is merged into the
      tied weight, so the embedding table moves too and the evaluated model is not the trained
      and coded one.
Seeds: chain 0, documents 1, base model 2, LoRA 3, projection 4, dropout 5; the base model is
pretrained on another chain (seeds 6, 7) and adapted to chain 0. float64, one thread.
"""

from __future__ import annotations

import numpy as np
import pacbound as pb
import torch
from pacbound import markov
from script_glue import glue
from torch import nn
from torch.func import functional_call

torch.set_num_threads(1)
torch.set_default_dtype(torch.float64)  # last-bit CPU differences stay far below printed digits

V, N_EMBD, CONCENTRATION, DOC_LEN, N_DOCS = 16, 32, 0.3, 32, 200
R, LORA_ALPHA, LORA_DROPOUT = 4, 32, 0.1  # [SOURCE: config/sublora_bounds.yaml:23-27 @c606ea6]
D_SUB, LEVELS = 40, 11  # subspace dimension d and quantization levels Q of the toy
BASE_STEPS, LORA_STEPS, SUB_STEPS, LR = 150, 150, 300, 0.01
SEED_CHAIN, SEED_DOCS, SEED_BASE, SEED_LORA, SEED_PROJ, SEED_DROP = 0, 1, 2, 3, 4, 5
SEED_PRE_CHAIN, SEED_PRE_DOCS = 6, 7  # the chain the base model is pretrained on


class TiedToy(nn.Module):
    """Embedding (tied to the head) -> hidden LoRA linear -> tanh -> head LoRA linear -> logits.

    Input index V is the start state, with a vector of its own (the table has V rows).
    """

    def __init__(self, lora_dropout: float, merge_on_eval: bool) -> None:
        super().__init__()
        torch.manual_seed(SEED_BASE)
        self.wte = nn.Embedding(V, N_EMBD)
        self.start = nn.Parameter(0.1 * torch.randn(N_EMBD))
        self.hidden = nn.Linear(N_EMBD, N_EMBD)
        self.head = nn.Linear(N_EMBD, V, bias=False)
        self.head.weight = self.wte.weight  # tied, as GPT-2's (model.py:284)
        self.lora_args = {"r": R, "lora_alpha": LORA_ALPHA, "lora_dropout": lora_dropout,
                          "merge_on_eval": merge_on_eval}  # fmt: skip

    def add_lora(self) -> None:
        for p in self.parameters():
            p.requires_grad_(False)
        torch.manual_seed(SEED_LORA)
        self.hidden = pb.LoRALinear(self.hidden, **self.lora_args)
        self.head = pb.LoRALinear(self.head, **self.lora_args)

    def forward(self, states: torch.Tensor) -> torch.Tensor:
        table = torch.cat([self.wte.weight, self.start[None]])  # (V + 1, N_EMBD)
        return self.head(torch.tanh(self.hidden(table[states])))


def set_chain_attr(module: nn.Module, name: str, value: torch.Tensor | None) -> None:
    *path, leaf = name.split(".")
    for part in path:
        module = getattr(module, part)
    if value is None:
        delattr(module, leaf)
    else:
        setattr(module, leaf, value)


class ListWrapper(nn.Module):
    """The network kept in a plain list; its trainable tensors deleted and set as theta_0 + P w."""

    def __init__(self, net: nn.Module, projector: pb.Projector, forward_train: bool) -> None:
        super().__init__()
        self._forward_net = [net]
        self.forward_train = forward_train  # the proposed correction: forward train(mode)
        named = [(n, p) for n, p in net.named_parameters() if p.requires_grad]
        self.names = [n for n, _ in named]
        self.init = [p.detach().clone() for _, p in named]
        for n in self.names:
            set_chain_attr(net, n, None)
        self.projector = projector
        self.w = nn.Parameter(torch.zeros(projector.d))

    def train(self, mode: bool = True) -> ListWrapper:
        super().train(mode)
        if self.forward_train:
            self._forward_net[0].train(mode)
        return self

    def forward(self, states: torch.Tensor) -> torch.Tensor:
        pieces = torch.split(self.projector.apply(self.w), [t.numel() for t in self.init])
        for n, t, piece in zip(self.names, self.init, pieces, strict=True):
            set_chain_attr(self._forward_net[0], n, t + piece.reshape(t.shape))
        return self._forward_net[0](states)


class FunctionalWrapper(nn.Module):
    """The network registered as a submodule; theta_0 + P w passed in by functional_call."""

    def __init__(self, net: nn.Module, projector: pb.Projector) -> None:
        super().__init__()
        self.net = net
        named = [(n, p) for n, p in net.named_parameters() if p.requires_grad]
        self.names = [n for n, _ in named]
        self.init = [p.detach().clone() for _, p in named]
        for p in net.parameters():
            p.requires_grad_(False)
        self.projector = projector
        self.w = nn.Parameter(torch.zeros(projector.d))

    def forward(self, states: torch.Tensor) -> torch.Tensor:
        pieces = torch.split(self.projector.apply(self.w), [t.numel() for t in self.init])
        parts = zip(self.names, self.init, pieces, strict=True)
        tensors = {n: t + p.reshape(t.shape) for n, t, p in parts}
        return functional_call(self.net, tensors, (states,))


class Source:
    """The Markov chain, its training documents, and exact losses of a model on it."""

    def __init__(self, seed_chain: int, seed_docs: int) -> None:
        self.chain = markov.random_markov_chain(V, CONCENTRATION, np.random.default_rng(seed_chain))
        rng = np.random.default_rng(seed_docs)
        docs = markov.sample_documents(self.chain, N_DOCS, DOC_LEN, rng)
        counts = markov.transition_counts(docs, V)
        self.train_w = torch.tensor(counts / counts.sum())
        self.states = torch.arange(V + 1)

    def train_loss(self, model: nn.Module) -> torch.Tensor:
        logp = torch.log_softmax(model(self.states), dim=1)
        return -(self.train_w * logp).sum() / np.log(2)

    def population_bits(self, model: nn.Module) -> float:
        with torch.no_grad():
            logp = torch.log_softmax(model(self.states), dim=1).numpy()
        return markov.expected_loss(self.chain, -logp / np.log(2), DOC_LEN)


def fit(model: nn.Module, source: Source, steps: int) -> None:
    params = [p for p in model.parameters() if p.requires_grad]
    opt = torch.optim.Adam(params, lr=LR)
    torch.manual_seed(SEED_DROP)
    for _ in range(steps):
        opt.zero_grad()
        source.train_loss(model).backward()
        opt.step()


def quantize_(tensor: torch.Tensor) -> None:
    """Round a tensor in place to Q uniform levels over its range (Chapter 15's quantizer)."""
    codes, book = pb.quantize_uniform(tensor.detach().numpy().ravel(), levels=LEVELS)
    tensor.data = torch.tensor(pb.dequantize(codes, book)).reshape(tensor.shape)


def base_state() -> dict[str, torch.Tensor]:
    """A base model pretrained on another chain (all its weights trained), to be adapted."""
    net = TiedToy(0.0, False)
    fit(net, Source(SEED_PRE_CHAIN, SEED_PRE_DOCS), BASE_STEPS)
    return {k: v.clone() for k, v in net.state_dict().items()}


def fresh_net(state: dict, lora_dropout: float, merge_on_eval: bool) -> TiedToy:
    net = TiedToy(lora_dropout, merge_on_eval)
    net.load_state_dict(state)
    net.add_lora()
    return net


def trained_w(source: Source, state: dict, projector: pb.Projector) -> torch.Tensor:
    """w trained through the authors' wrapper as they run it (no forwarding, dropout active)."""
    wrapper = ListWrapper(fresh_net(state, LORA_DROPOUT, True), projector, forward_train=False)
    fit(wrapper, source, SUB_STEPS)
    return wrapper.w.detach().clone()


def intended_bits(source: Source, state: dict, projector: pb.Projector, w: torch.Tensor) -> float:
    """The model the message describes: theta_0 + P w, dropout off, nothing merged."""
    wrapper = FunctionalWrapper(fresh_net(state, 0.0, False), projector)
    wrapper.w.data = w.clone()
    return source.population_bits(wrapper.eval())


def main() -> None:
    print("Errata C7 and C10 -- merge-on-eval, the subspace wrapper and the tied head "
          "(ch19_merge.py)")  # fmt: skip
    source = Source(SEED_CHAIN, SEED_DOCS)
    state = base_state()
    names = pb.lora_parameter_names(fresh_net(state, 0.0, False))
    dim = sum(t.numel() for n, t in fresh_net(state, 0.0, False).named_parameters() if n in names)
    projector = pb.make_projector("dense", dim, D_SUB, SEED_PROJ)
    w = trained_w(source, state, projector)
    wq = w.clone()
    quantize_(wq)
    net0 = TiedToy(0.0, False)
    net0.load_state_dict(state)
    base_bits = source.population_bits(net0.eval())
    target_q = intended_bits(source, state, projector, wq)
    target_w = intended_bits(source, state, projector, w)
    print("[1] The toy and its three models:")
    print(f"    V = {V}, n_embd = {N_EMBD}, LoRA r = {R} on the hidden layer and the tied head "
          f"({dim} numbers), d = {glue('subspace_dim', D_SUB)}, Q = {LEVELS} levels")  # fmt: skip
    print(f"    population loss, bits per token: base model {glue('base_bits', base_bits, '.3f')}; "
          f"trained w {glue('trained_bits', target_w, '.3f')}; quantized w (the coded model) "
          f"{glue('coded_bits', target_q, '.3f')}")  # fmt: skip

    # [2] forwarding train(mode), fresh wrapper
    fresh = ListWrapper(fresh_net(state, LORA_DROPOUT, True), projector, forward_train=True)
    fresh.w.data = wq.clone()
    try:
        fresh.eval()
        error = "none"
    except AttributeError as exc:
        error = f"AttributeError: {exc}"
    print("[2] C7 fix 'forward train(mode) to the network', wrapper built from the checkpoint, "
          ".eval() before any forward pass:")  # fmt: skip
    print(f"    {error}")
    assert error.startswith("AttributeError") and "lora_" in error

    # [3] forwarding after a forward pass: merged once, quantization ignored
    live = ListWrapper(fresh_net(state, LORA_DROPOUT, True), projector, forward_train=True)
    live.w.data = w.clone()
    with torch.no_grad():
        live(source.states)  # a forward pass, as training leaves it
        live.eval()  # merges the update of w, the head's into the tied table
        before = source.population_bits(live)
        live.w.data = wq.clone()  # quantization changes w afterwards
        after = source.population_bits(live)
    print("[3] The same after one forward pass: .eval() merges the update of that pass's w; "
          "then w is quantized:")  # fmt: skip
    print(f"    evaluated before quantizing w {before:.3f} bits, after {after:.3f} bits: the "
          f"change of w never reaches the function: {before == after}")  # fmt: skip
    print(f"    the coded (quantized) model has {target_q:.3f} bits, the unquantized one "
          f"{target_w:.3f}; the merged head also moved the tied embedding table")  # fmt: skip
    assert before == after and abs(target_q - target_w) > 1e-3
    assert min(abs(after - target_q), abs(after - target_w)) > 0.05

    # [4] registered + functional_call
    func = FunctionalWrapper(fresh_net(state, LORA_DROPOUT, True), projector)
    func.w.data = wq.clone()
    func.eval()
    merged_flags = [m.merged for m in func.modules() if isinstance(m, pb.LoRALinear)]
    evaluated = source.population_bits(func)
    print("[4] C7 fix 'register the network and use functional_call', then .eval():")
    print(f"    LoRA layers marked merged: {merged_flags}; merged update B0 A0 is zero: "
          f"{all(float(m.lora_B.abs().max()) == 0 for m in func.modules() if isinstance(m, pb.LoRALinear))}")  # fmt: skip  # noqa: E501
    print(f"    evaluated {evaluated:.3f} bits = the base model without LoRA {base_bits:.3f}; the "
          f"coded model {target_q:.3f}")  # fmt: skip
    assert all(merged_flags) and abs(evaluated - base_bits) < 1e-9
    assert abs(target_q - base_bits) > 0.05

    # [5] the safe ways
    nodrop = ListWrapper(fresh_net(state, 0.0, True), projector, forward_train=False)
    nodrop.w.data = wq.clone()
    nodrop.eval()
    a, b = source.population_bits(nodrop), source.population_bits(nodrop)
    nomerge = ListWrapper(fresh_net(state, LORA_DROPOUT, False), projector, forward_train=True)
    nomerge.w.data = wq.clone()
    nomerge.eval()
    c, e = source.population_bits(nomerge), source.population_bits(nomerge)
    print("[5] What works (coded model: quantized w, dropout off):")
    print(f"    lora_dropout = 0, wrapper unchanged: two passes {a:.3f} and {b:.3f}")
    print(f"    merge_weights = False and train(mode) forwarded: two passes {c:.3f} and {e:.3f}")
    print(f"    both equal the coded model's {target_q:.3f} to within 1e-9: "
          f"{max(abs(x - target_q) for x in (a, b, c, e)) < 1e-9}")  # fmt: skip
    assert max(abs(x - target_q) for x in (a, b, c, e)) < 1e-9

    # [6] C10: the LoRA-only bound path
    gpt = fresh_net(state, LORA_DROPOUT, True)
    fit(gpt, source, LORA_STEPS)
    table_before = gpt.wte.weight.detach().clone()
    gpt.eval()  # estimate_loss before quantization (sublora_pipeline.py:389, 512)
    gpt.train()  # and back (sublora_pipeline.py:403)
    restored = float((gpt.wte.weight - table_before).abs().max())
    for n, p in gpt.named_parameters():
        if n in names:
            quantize_(p)  # quantize_model, intrinsic_dim = 0 (bound_utils.py:203-220)
    unmerged = source.population_bits(_intended(gpt))
    gpt.eval()  # estimate_loss after quantization
    gpt.train()
    gpt.eval()  # get_bounds, sublora_pipeline.py:559: the bound metrics use this model
    moved = float((gpt.wte.weight - table_before).abs().max())
    evaluated = source.population_bits(gpt)
    print("[6] C10: LoRA only (intrinsic_dim = 0): the bound path's eval/train calls on the GPT, "
          "with the LoRA tensors quantized in between:")  # fmt: skip
    print(f"    an eval/train round trip restores the tied table to within 1e-9: "
          f"{restored < 1e-9}")  # fmt: skip
    print(f"    at the final .eval() the head's update is merged into the tied table: the "
          f"embedding moves by up to {glue('lora_only_table_moved', moved, '.3f')}")  # fmt: skip
    print(f"    population loss: the coded model (unmerged, dropout off) "
          f"{glue('lora_only_coded_bits', unmerged, '.3f')} bits; the model the bound evaluates "
          f"{glue('lora_only_evaluated_bits', evaluated, '.3f')} bits (difference "
          f"{evaluated - unmerged:+.3f})")  # fmt: skip
    assert restored < 1e-9 and moved > 0.01 and abs(evaluated - unmerged) > 0.005
    print("All assertions passed.")


def _intended(gpt: TiedToy) -> TiedToy:
    """A copy of the LoRA-only model with dropout off and no merging: the coded function."""
    copy = TiedToy(0.0, False)
    copy.load_state_dict({k: v for k, v in gpt.state_dict().items() if "lora" not in k},
                         strict=False)  # fmt: skip
    copy.add_lora()
    for (_, p), (_, q) in zip(copy.named_parameters(), gpt.named_parameters(), strict=True):
        p.data = q.detach().clone()
    return copy.eval()


if __name__ == "__main__":
    main()
