"""Chapter 22's GPU tier trains under torchrun with DistributedDataParallel. This checks, on CPU
with the gloo backend and 2 processes, that DDP changes nothing but the speed: the gradient of
the first step and the vector w after a few steps (quantization-aware ones included) agree with
one process that takes the whole batch."""

from __future__ import annotations

import os
import socket
from pathlib import Path

import miniature  # noqa: F401  (pins CPU kernels before torch)
import numpy as np
import pytest
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F
from miniature.corpus import make_markov_source, markov_docset
from miniature.model import GPTConfig
from miniature.subspace import Parametrization
from miniature.train import TrainConfig, batch_offsets, get_batch, train
from torch.nn.parallel import DistributedDataParallel as DDP

CFG = GPTConfig(vocab_size=8, block_size=16, n_layer=1, n_head=2, n_embd=16)
TCFG = TrainConfig(steps=6, qat_steps=2, batch_size=4, lr=1e-2, warmup=2, log_every=1000)
D_SUB = 40


def stream() -> np.ndarray:
    return markov_docset(make_markov_source(vocab=8, seed=0), 200, seed=1, block=256).stream


def first_grad(param: Parametrization, module: torch.nn.Module, rank: int,
               world: int) -> torch.Tensor:
    rng = np.random.default_rng(TCFG.seed)
    offsets = batch_offsets(rng, len(stream()), CFG.block_size, TCFG.batch_size)
    local = TCFG.batch_size // world
    x, y = get_batch(stream(), offsets[rank * local : (rank + 1) * local], CFG.block_size,
                     torch.device("cpu"))
    logits = module(x)
    F.cross_entropy(logits.reshape(-1, CFG.vocab_size), y.reshape(-1)).backward()
    grad = param.w.grad.detach().clone()
    param.w.grad = None
    return grad


def worker(rank: int, world: int, port: int, out: str) -> None:
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    torch.set_num_threads(1)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    param = Parametrization(CFG, "sublora", D_SUB, model_seed=0, proj_seed=137)
    module = DDP(param)
    grad = first_grad(param, module, rank, world)
    train(param, stream(), TCFG, rank=rank, world=world, module=module)
    if rank == 0:
        torch.save({"grad": grad, "w": param.w.detach().clone()}, out)
    # Both ranks leave together: a rank that tears gloo down while its peer is still in a
    # collective aborts the peer ("terminate called without an active exception", seen in CI).
    dist.barrier()
    dist.destroy_process_group()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict, dict]:
    torch.set_num_threads(1)
    param = Parametrization(CFG, "sublora", D_SUB, model_seed=0, proj_seed=137)
    grad = first_grad(param, param, 0, 1)
    train(param, stream(), TCFG)
    one = {"grad": grad, "w": param.w.detach().clone()}
    out = Path(tmp_path_factory.mktemp("ddp")) / "two.pt"
    # Spawned, not forked: the test runs inside a pytest-xdist worker, which has threads of its
    # own (execnet's), and a fork of a threaded process can inherit a held lock. A forked rank
    # once hung on one in a CI run; spawning costs each rank an import of torch.
    mp.start_processes(worker, args=(2, free_port(), str(out)), nprocs=2, join=True,
                       start_method="spawn")
    return one, torch.load(out)


def test_gradient_agrees(runs: tuple[dict, dict]) -> None:
    one, two = runs
    assert one["grad"].abs().max() > 1e-4  # a real gradient, not zeros
    assert torch.allclose(one["grad"], two["grad"], rtol=1e-5, atol=1e-7)


def test_trained_w_agrees(runs: tuple[dict, dict]) -> None:
    one, two = runs
    assert one["w"].abs().max() > 1e-3  # training moved w
    assert torch.allclose(one["w"], two["w"], rtol=1e-4, atol=1e-6)


def test_batch_must_split_evenly() -> None:
    param = Parametrization(CFG, "sublora", D_SUB, model_seed=0, proj_seed=137)
    with pytest.raises(ValueError, match="multiple"):
        train(param, stream(), TrainConfig(batch_size=3), world=2)
