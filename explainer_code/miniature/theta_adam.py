"""An optional optimizer for the subspace kinds: Adam's moments on theta, the step projected onto w.

Not used by any chapter script yet (kept out of `train`, `subspace` and `experiment`, whose bytes
the chapters' stamps record). `miniature.copying_probe` runs it.

Why: the book trains w with AdamW on w (the authors' recipe). Adam normalizes each coordinate of
w, and through theta = theta_0 + P w every coordinate of w mixes all D numbers of theta, so a
group of theta whose gradient is small moves at its gradient's share of the mixture. On the
copying source LoRA's query numbers start with a gradient 100 to 300 times smaller than the
value matrices' and the head's; direct Adam on the LoRA numbers moves them as fast as the rest,
Adam on w does not. `ThetaAdam` keeps Adam's moments for each of the D numbers of theta and
moves w by P^T u / c, u being Adam's step on theta: theta moves by P P^T u, close to the
projection of that step onto the subspace (P's columns are near orthonormal). The coded message
is w either way; the optimizer costs no bits.

`ProbeParametrization` adds what the probe varies to `Parametrization`: the projector's kind and
a scale c (theta = theta_0 + c P w), and the forward pass at a given theta.
"""

from __future__ import annotations

import numpy as np
import torch
import torch.nn.functional as F
from torch.func import functional_call

from miniature.model import GPTConfig
from miniature.subspace import Parametrization
from miniature.train import TrainConfig, batch_offsets, get_batch, lr_at, quantizer

OPTIMIZERS = ("adamw", "theta-adam")


class ProbeParametrization(Parametrization):
    """`Parametrization` with a choice of projector and theta = theta_0 + proj_scale P w."""

    def __init__(self, cfg: GPTConfig, kind: str, d: int, model_seed: int, proj_seed: int,
                 lora_rank: int = 4, device: str | torch.device = "cpu",
                 projector: str = "rdkronqr", proj_scale: float = 1.0) -> None:
        super().__init__(cfg, kind, d, model_seed, proj_seed, lora_rank=lora_rank, device=device)
        self.proj_scale = proj_scale
        if self.projector is not None and projector != "rdkronqr":
            import pacbound

            from miniature.subspace import _to_device

            self.projector = _to_device(pacbound.make_projector(projector, self.D, d, proj_seed),
                                        torch.device(device))

    def theta(self, w: torch.Tensor) -> torch.Tensor:
        if self.projector is None:
            return w
        return self.theta0 + self.proj_scale * self.projector.apply(w)

    def current_w(self) -> torch.Tensor:
        """The w the forward pass uses: `override`, or w (quantized straight-through in QAT)."""
        w = self.w if self.override is None else self.override
        if self.ste is not None:
            w = w + (self.ste(w.detach()) - w).detach()
        return w

    def forward_theta(self, idx: torch.Tensor, flat: torch.Tensor) -> torch.Tensor:
        """The GPT with the trained group's numbers taken from `flat` (D numbers)."""
        out, start = dict(self.fixed), 0
        for name, shape in zip(self.names, self.shapes, strict=True):
            n = shape.numel()
            out[name] = flat[start : start + n].view(shape)
            start += n
        return functional_call(self.gpt[0], out, (idx,))


class ThetaAdam:
    """AdamW whose moments live on theta (D numbers) and whose step is projected onto w.

    With g the gradient on theta and u = m_hat / (sqrt(v_hat) + eps) Adam's direction there,
    w <- w (1 - lr wd) - lr P^T u / c for theta = theta_0 + c P w: apart from the weight decay,
    theta moves by -lr P P^T u.
    """

    def __init__(self, param: ProbeParametrization, cfg: TrainConfig,
                 betas: tuple[float, float] = (0.9, 0.999), eps: float = 1e-6) -> None:
        if param.projector is None:
            raise ValueError("theta-adam needs a projector (kind sublora or subspace)")
        self.param, self.cfg, self.betas, self.eps, self.t = param, cfg, betas, eps, 0
        self.m = torch.zeros_like(param.theta0)
        self.v = torch.zeros_like(param.theta0)

    @torch.no_grad()
    def step(self, g: torch.Tensor, lr: float) -> None:
        b1, b2 = self.betas
        self.t += 1
        self.m.mul_(b1).add_(g, alpha=1 - b1)
        self.v.mul_(b2).addcmul_(g, g, value=1 - b2)
        u = (self.m / (1 - b1**self.t)) / ((self.v / (1 - b2**self.t)).sqrt() + self.eps)
        w = self.param.w
        w.mul_(1 - lr * self.cfg.weight_decay)
        w.sub_(lr * self.param.projector.apply_transpose(u) / self.param.proj_scale)


def make_optimizer(param: ProbeParametrization, cfg: TrainConfig, optimizer: str):
    """`ThetaAdam`, or `miniature.train`'s AdamW on w ("adamw")."""
    if optimizer == "theta-adam":
        return ThetaAdam(param, cfg)
    if optimizer != "adamw":
        raise ValueError(f"optimizer {optimizer!r} not in {OPTIMIZERS}")
    return torch.optim.AdamW([param.w], lr=cfg.lr, betas=(0.9, 0.999), eps=1e-6,
                             weight_decay=cfg.weight_decay)


def train_step(param: ProbeParametrization, opt, x: torch.Tensor, y: torch.Tensor, lr: float,
               cfg: TrainConfig) -> float:
    """One step on the batch (x, y) at learning rate lr, as `miniature.train.train` takes it for
    "adamw"; the loss in nats."""
    if isinstance(opt, ThetaAdam):
        flat = param.theta(param.current_w()).detach().requires_grad_(True)
        logits = param.forward_theta(x, flat)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))
        loss.backward()
        g = flat.grad
        norm = float(g.norm())
        if norm > cfg.grad_clip:
            g = g * (cfg.grad_clip / norm)
        opt.step(g, lr)
        return loss.item()
    for group in opt.param_groups:
        group["lr"] = lr
    logits = param(x)
    loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))
    opt.zero_grad(set_to_none=True)
    loss.backward()
    torch.nn.utils.clip_grad_norm_([param.w], cfg.grad_clip)
    opt.step()
    return loss.item()


def train(param: ProbeParametrization, stream: np.ndarray, cfg: TrainConfig,
          optimizer: str = "theta-adam") -> list[float]:
    """`miniature.train.train` in one process with a choice of optimizer: the same batches,
    schedule and quantization-aware steps; the mean loss (nats) of each logging interval."""
    rng = np.random.default_rng(cfg.seed)
    opt = make_optimizer(param, cfg, optimizer)
    total, block = cfg.steps + cfg.qat_steps, param.cfg.block_size
    losses, running = [], 0.0
    for step in range(total):
        if step == cfg.steps and cfg.qat_steps:
            param.ste = quantizer()
        lr = lr_at(min(step, cfg.steps - 1), cfg) if step < cfg.steps else cfg.lr * cfg.min_lr_frac
        x, y = get_batch(stream, batch_offsets(rng, len(stream), block, cfg.batch_size), block,
                         param.w.device)
        running += train_step(param, opt, x, y, lr, cfg)
        if (step + 1) % cfg.log_every == 0:
            losses.append(running / cfg.log_every)
            running = 0.0
    param.ste = None
    return losses
