"""pacbound's projectors, LoRA layer and subspace wrapper, checked against independent references.

References: numpy's `np.kron` and explicit block matrices for the structured projectors; plain
`nn.Linear` layers for LoRA; autograd through the unwrapped model for the subspace gradient.
"""

from __future__ import annotations

import doctest

import numpy as np
import pacbound as pb
import pytest
import torch
from pacbound import lora as pb_lora
from pacbound import projectors as pb_proj
from pacbound import subspace as pb_sub
from torch import nn

KINDS = pb_proj.PROJECTOR_KINDS
# (D, d) pairs: neither a square; D a square; d a square; both squares
SHAPES = [(530, 40), (529, 40), (530, 36), (529, 36)]


@pytest.mark.parametrize("module", [pb_proj, pb_lora, pb_sub])
def test_doctests(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize(("D", "d"), SHAPES)
def test_shapes_and_apply_matches_dense(kind, D, d):
    p = pb.make_projector(kind, D, d, seed=3)
    dense = p.to_dense()
    assert tuple(dense.shape) == (D, d)
    w = torch.from_numpy(np.random.default_rng(0).standard_normal(d).astype(np.float32))
    v = torch.from_numpy(np.random.default_rng(1).standard_normal(D).astype(np.float32))
    assert p.apply(w).shape == (D,) and p.apply_transpose(v).shape == (d,)
    torch.testing.assert_close(p.apply(w), dense @ w, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(p.apply_transpose(v), dense.T @ v, rtol=1e-4, atol=1e-5)
    # adjointness: <P w, v> = <w, P^T v>
    assert abs(float(p.apply(w) @ v) - float(w @ p.apply_transpose(v))) < 1e-3


@pytest.mark.parametrize("qr", [False, True])
def test_kron_structure_against_numpy(qr):
    D, d = 530, 40  # D1 = 23, d1 = 6, remainder 1 x 4
    p = pb_proj.kron_projector(D, d, seed=5, qr=qr)
    assert tuple(p.R1.shape) == (23, 6) and tuple(p.E.shape) == (1, 4)
    ref = np.zeros((D, d))
    ref[:529, :36] = np.kron(p.R1.numpy(), p.R2.numpy())
    ref[529:, 36:] = p.E.numpy()
    ref = ref[p.perm.numpy()]
    np.testing.assert_allclose(p.to_dense().numpy(), ref, rtol=1e-6, atol=1e-7)
    assert sorted(p.perm.tolist()) == list(range(D))


def test_paper_shapes():
    assert pb.kron_shapes(351_744, 50_000) == ((593, 223), (95, 271))
    assert pb.gpt2_lora_params(12, 768) == 351_744


def test_rdkronqr_orthonormal_kron_part():
    p = pb_proj.kron_projector(530, 40, seed=7, qr=True)
    dense = p.to_dense().double()
    gram = dense.T @ dense
    np.testing.assert_allclose(gram[:36, :36].numpy(), np.eye(36), atol=1e-5)
    np.testing.assert_allclose(gram[:36, 36:].numpy(), 0.0, atol=1e-6)
    # the remainder block has 1 row and 4 columns: rank 1, not orthonormal
    assert np.linalg.matrix_rank(gram[36:, 36:].numpy(), tol=1e-6) == 1


@pytest.mark.parametrize("kind", ["dense", "sparse", "kron"])
def test_random_columns_have_unit_norm_on_average(kind):
    p = pb.make_projector(kind, 4900, 100, seed=11)
    norms2 = (p.to_dense().double() ** 2).sum(0)
    assert abs(float(norms2.mean()) - 1.0) < 0.1


def test_sparse_density():
    D, d = 10_000, 200
    p = pb.make_projector("sparse", D, d, seed=2)
    nnz = p.matrix.values().numel()
    assert abs(nnz / (d * D**0.5) - 1) < 0.05
    steps = np.abs(p.matrix.values().numpy()) / D**-0.25  # sums of a few +-1 (repeats add up)
    np.testing.assert_allclose(steps, np.round(steps), atol=1e-5)
    assert np.mean(np.round(steps) == 1) > 0.95


def test_seed_determines_projector():
    a = pb.make_projector("rdkronqr", 530, 40, seed=1).to_dense()
    b = pb.make_projector("rdkronqr", 530, 40, seed=1).to_dense()
    c = pb.make_projector("rdkronqr", 530, 40, seed=2).to_dense()
    assert torch.equal(a, b) and not torch.equal(a, c)


def test_nbytes():
    assert pb.make_projector("dense", 530, 40, seed=0).nbytes == 530 * 40 * 4
    assert pb.make_projector("kron", 530, 40, seed=0).nbytes == (2 * 23 * 6 + 4) * 4 + 530 * 8


def test_bad_arguments():
    with pytest.raises(ValueError):
        pb.make_projector("fastfood", 100, 10, seed=0)
    with pytest.raises(ValueError):
        pb.make_projector("dense", 10, 100, seed=0)


# ----------------------------------------------------------------------------------- LoRA layer
def _base(n_in=6, n_out=5, seed=0):
    torch.manual_seed(seed)
    return nn.Linear(n_in, n_out)


def test_lora_step0_equals_base():
    base = _base()
    ref = nn.Linear(6, 5)
    ref.load_state_dict(base.state_dict())
    layer = pb.LoRALinear(base, r=2, lora_alpha=8, lora_dropout=0.5)
    x = torch.randn(7, 6)
    assert torch.equal(layer(x), ref(x))  # B = 0: exact, even with dropout active
    assert layer.scaling == 4.0
    assert torch.count_nonzero(layer.lora_A) == layer.lora_A.numel()
    assert torch.count_nonzero(layer.lora_B) == 0


def test_lora_update_formula_and_grads():
    layer = pb.LoRALinear(_base(), r=3, lora_alpha=6)
    with torch.no_grad():
        layer.lora_B.normal_()
    x = torch.randn(4, 6)
    W = layer.weight.detach() + 2.0 * layer.lora_B.detach() @ layer.lora_A.detach()
    torch.testing.assert_close(layer(x), x @ W.T + layer.bias.detach())
    layer(x).sum().backward()
    assert layer.weight.grad is None and layer.bias.grad is None
    assert layer.lora_A.grad is not None and layer.lora_B.grad is not None
    assert pb.lora_parameter_names(layer) == ["lora_A", "lora_B"]


def test_merge_equals_unmerged_in_eval():
    layer = pb.LoRALinear(_base(), r=2, lora_alpha=4, lora_dropout=0.3)
    with torch.no_grad():
        layer.lora_B.normal_()
    w_before = layer.weight.detach().clone()
    x = torch.randn(9, 6)
    layer.eval()  # dropout off
    unmerged_out = layer(x)
    layer.merge()
    assert layer.merged
    torch.testing.assert_close(layer(x), unmerged_out, rtol=1e-5, atol=1e-6)
    layer.unmerge()
    torch.testing.assert_close(layer.weight.detach(), w_before, rtol=0, atol=1e-6)


def test_merge_on_eval_like_loralib():
    layer = pb.LoRALinear(_base(), r=2, lora_alpha=4, merge_on_eval=True)
    with torch.no_grad():
        layer.lora_B.normal_()
    w_before = layer.weight.detach().clone()
    layer.eval()
    assert layer.merged
    torch.testing.assert_close(layer.weight.detach() - w_before, layer.delta_weight().detach())
    layer.train()
    assert not layer.merged
    torch.testing.assert_close(layer.weight.detach(), w_before, rtol=0, atol=1e-6)


def test_dropout_differs_in_train_not_in_eval():
    layer = pb.LoRALinear(_base(), r=2, lora_alpha=4, lora_dropout=0.5)
    with torch.no_grad():
        layer.lora_B.normal_()
    x = torch.randn(3, 6)
    torch.manual_seed(0)
    assert not torch.equal(layer(x), layer(x))
    layer.eval()
    assert torch.equal(layer(x), layer(x))


def test_merge_changes_tied_weight():
    emb = nn.Embedding(5, 6)
    head = nn.Linear(6, 5, bias=False)
    head.weight = emb.weight
    layer = pb.LoRALinear(head, r=2, lora_alpha=2)
    assert layer.weight is emb.weight
    with torch.no_grad():
        layer.lora_B.fill_(1.0)
    before = emb.weight.detach().clone()
    layer.merge()
    assert not torch.equal(emb.weight.detach(), before)
    torch.testing.assert_close(emb.weight.detach() - before, layer.delta_weight().detach())


# --------------------------------------------------------------------------- subspace wrapper
class TinyNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.emb = nn.Embedding(7, 6)
        self.q = pb.LoRALinear(nn.Linear(6, 6), r=2, lora_alpha=4, lora_dropout=0.2)
        self.head = nn.Linear(6, 7, bias=False)
        self.head.weight = self.emb.weight  # tied, as in GPT-2

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        return self.head(torch.tanh(self.q(self.emb(idx))))


@pytest.mark.parametrize("kind", KINDS)
def test_subspace_w0_gives_theta0_and_only_w_gets_grads(kind):
    torch.manual_seed(0)
    net = TinyNet().eval()
    idx = torch.tensor([[1, 2, 3], [4, 5, 6]])
    ref = net(idx).detach()
    theta0 = torch.cat([p.detach().reshape(-1) for p in net.parameters()])
    sub = pb.SubspaceModel(net, d=20, kind=kind, seed=1).eval()
    assert sub.D == theta0.numel() == sum(p.numel() for p in net.parameters())
    assert torch.equal(sub.theta_0(), theta0)
    assert torch.equal(sub(idx), ref)
    sub(idx).square().sum().backward()
    assert sub.w.grad is not None and float(sub.w.grad.abs().sum()) > 0
    assert all(p.grad is None for p in net.parameters())
    assert [n for n, p in sub.named_parameters() if p.requires_grad] == ["w"]


def test_subspace_gradient_is_projected_full_gradient():
    torch.manual_seed(1)
    net = TinyNet().eval()
    idx = torch.tensor([[0, 3, 6]])
    names = pb.lora_parameter_names(net)
    assert names == ["q.lora_A", "q.lora_B"]
    sub = pb.SubspaceModel(net, names, d=10, kind="dense", seed=4).eval()
    with torch.no_grad():
        sub.w.normal_()
    sub(idx).sum().backward()
    # independent reference: the gradient with respect to the LoRA tensors themselves
    ref = TinyNet().eval()
    ref.load_state_dict(net.state_dict())
    cur = sub.current_tensors()
    with torch.no_grad():
        ref.q.lora_A.copy_(cur["q.lora_A"])
        ref.q.lora_B.copy_(cur["q.lora_B"])
    ref(idx).sum().backward()
    g_theta = torch.cat([ref.q.lora_A.grad.reshape(-1), ref.q.lora_B.grad.reshape(-1)])
    expected = sub.projector.apply_transpose(g_theta)
    torch.testing.assert_close(sub.w.grad, expected, rtol=1e-4, atol=1e-5)


def test_subspace_eval_reaches_dropout():
    torch.manual_seed(2)
    net = TinyNet()
    sub = pb.SubspaceModel(net, pb.lora_parameter_names(net), d=8, kind="dense", seed=0)
    with torch.no_grad():
        sub.w.normal_()
    idx = torch.tensor([[1, 2, 3, 4]])
    sub.eval()
    assert not net.training and not net.q.dropout.training
    assert torch.equal(sub(idx), sub(idx))


def test_subspace_rejects_merge_on_eval_and_unknown_names():
    net = TinyNet()
    with pytest.raises(KeyError):
        pb.SubspaceModel(net, ["nope"], d=2, kind="dense")
    net.q.merge_on_eval = True
    with pytest.raises(ValueError):
        pb.SubspaceModel(net, d=2, kind="dense")
