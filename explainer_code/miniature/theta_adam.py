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
from miniature.train import LEVELS, TrainConfig, batch_offsets, get_batch, lr_at, quantizer

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


def aligned_offsets(rng: np.random.Generator, stream: np.ndarray, block: int,
                    n: int) -> np.ndarray:
    """n window starts drawn uniformly among the stream's EOD tokens that leave a whole window
    (block + 1 tokens): each window reads a document from its leading EOD, as `evaluate.score`
    does, so that a position in the window is a position in the document."""
    from miniature.corpus import EOD

    eods = np.flatnonzero(stream[: len(stream) - block - 1] == EOD)
    return eods[rng.integers(0, len(eods), size=n)]


def train(param: ProbeParametrization, stream: np.ndarray, cfg: TrainConfig,
          optimizer: str = "theta-adam", levels: int = LEVELS, clip_sd: float = 0.0,
          qat_lr: float | None = None, save: str = "", load: str = "",
          aligned: bool = False) -> list[float]:
    """`miniature.train.train` in one process with a choice of optimizer: the same batches,
    schedule and quantization-aware steps; the mean loss (nats) of each logging interval.

    `levels` and `clip_sd` choose the quantizer of the quantization-aware steps (`quantize`;
    the defaults are `miniature.train`'s), `qat_lr` their learning rate (default, as there,
    cfg.lr * cfg.min_lr_frac). `save` writes w, the optimizer's state and the losses after the
    cfg.steps training steps (before the quantization-aware ones) to a file; `load` reads such a
    file and takes only the steps after it, drawing the same batches as one uninterrupted run,
    so that quantization variants of one trained w cost no retraining. `aligned`: every window
    starts at a document's leading EOD (`aligned_offsets`), as the scoring reads documents,
    not at a random token."""
    rng = np.random.default_rng(cfg.seed)
    opt = make_optimizer(param, cfg, optimizer)
    total, block = cfg.steps + cfg.qat_steps, param.cfg.block_size
    losses, running, first = [], 0.0, 0
    if load:
        state = torch.load(load, weights_only=False)
        with torch.no_grad():
            param.w.copy_(state["w"])
        if isinstance(opt, ThetaAdam):
            opt.m, opt.v, opt.t = state["opt"]["m"], state["opt"]["v"], state["opt"]["t"]
        else:
            opt.load_state_dict(state["opt"])
        losses, first = list(state["losses"]), cfg.steps
    qlr = cfg.lr * cfg.min_lr_frac if qat_lr is None else qat_lr
    for step in range(total):
        if step == cfg.steps and save:
            torch.save({"w": param.w.detach().clone(), "losses": losses, "opt": (
                {"m": opt.m, "v": opt.v, "t": opt.t} if isinstance(opt, ThetaAdam)
                else opt.state_dict())}, save)
        if step == cfg.steps and cfg.qat_steps:
            param.ste = (quantizer() if (levels, clip_sd) == (LEVELS, 0.0)
                         else torch_quantizer(levels, clip_sd))
        lr = lr_at(min(step, cfg.steps - 1), cfg) if step < cfg.steps else qlr
        offsets = (aligned_offsets(rng, stream, block, cfg.batch_size) if aligned
                   else batch_offsets(rng, len(stream), block, cfg.batch_size))
        if step < first:
            continue
        x, y = get_batch(stream, offsets, block, param.w.device)
        running += train_step(param, opt, x, y, lr, cfg)
        if (step + 1) % cfg.log_every == 0:
            losses.append(running / cfg.log_every)
            running = 0.0
    if total == cfg.steps and save:
        torch.save({"w": param.w.detach().clone(), "losses": losses, "opt": (
            {"m": opt.m, "v": opt.v, "t": opt.t} if isinstance(opt, ThetaAdam)
            else opt.state_dict())}, save)
    param.ste = None
    return losses


# ------------------------------------------------------------------ quantization and the bound
def quantize(w: np.ndarray, levels: int = LEVELS,
             clip_sd: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """(codes, float16 codebook) of w: `pacbound.quantize_uniform` when clip_sd is 0; otherwise
    `levels` uniform bins over [-m, m], m = clip_sd times the root mean square of w, the numbers
    beyond m in the end bins, each codeword the mean of its bin (so the decoder needs the codes
    and the codebook only, as for `quantize_uniform`: the message's parts are the same)."""
    import pacbound

    if clip_sd <= 0:
        return pacbound.quantize_uniform(w, levels)
    vec = np.asarray(w, dtype=np.float64).ravel()
    m = min(clip_sd * float(np.sqrt(np.mean(vec**2))), float(np.max(np.abs(vec))))
    edges = np.linspace(-m - 1e-6, m + 1e-6, levels + 1)
    codes = np.clip(np.digitize(vec, edges) - 1, 0, levels - 1).astype(np.int64)
    book = np.array([vec[codes == k].mean() if np.any(codes == k) else edges[k]
                     for k in range(levels)])
    return codes, book.astype(np.float16)


def torch_quantizer(levels: int, clip_sd: float):
    """w (tensor) -> its quantized values under `quantize` (for the straight-through steps)."""

    def q(w: torch.Tensor) -> torch.Tensor:
        codes, book = quantize(w.detach().cpu().numpy(), levels, clip_sd)
        return torch.from_numpy(np.asarray(book, dtype=np.float32)[codes]).to(w.device)

    return q


def finish(param, S, cfg: GPTConfig, sample: np.ndarray, heldout, device, losses: list[float],
           t0: float, levels: int = LEVELS, clip_sd: float = 0.0):
    """`miniature.experiment.finish` with a choice of quantizer (`quantize`): the same scoring,
    real arithmetic code, prefix code and bound; at the defaults it is that function."""
    import math
    import time

    import pacbound

    from miniature import experiment
    from miniature.evaluate import score

    if (levels, clip_sd) == (LEVELS, 0.0):
        return experiment.finish(param, S, cfg, sample, heldout, device, losses, t0)
    block, vocab = cfg.block_size, cfg.vocab_size
    raw = score(param, S, sample, block, vocab, device=device)
    codes, book = quantize(param.w.detach().cpu().numpy(), levels, clip_sd)
    counts = pacbound.symbol_counts(codes, levels)
    data = pacbound.arithmetic_encode(codes, counts)
    assert np.array_equal(pacbound.arithmetic_decode(data, counts, len(codes)), codes)
    coder_bits = pacbound.arithmetic_code_length_bits(codes, counts)
    message = pacbound.message_parts(codes, levels)
    param.override = torch.tensor(pacbound.dequantize(codes, book), dtype=torch.float32,
                                  device=param.w.device)
    scores = score(param, S, sample, block, vocab, device=device)
    prefix = pacbound.prefix_code_bits(message.total)
    smoothed, bound, alpha, top1 = experiment.bounds(scores, prefix, S.n_docs)
    res = experiment.Result(param.kind, param.D, param.d, message, coder_bits, prefix,
                            float(raw.bits().mean()), float(scores.bits().mean()), smoothed,
                            bound, alpha, float(scores.top1_error().mean()), top1, losses=losses)
    if heldout is not None:
        h = score(param, heldout, np.arange(heldout.n_docs), block, vocab, device=device)
        per_doc = h.bits()
        res.heldout_bits, res.heldout_top1 = float(per_doc.mean()), float(h.top1_error().mean())
        res.heldout_se = float(per_doc.std(ddof=1) / math.sqrt(len(per_doc)))
        sm = h.bits(alpha)
        res.heldout_smoothed = float(sm.mean())
        res.heldout_smoothed_se = float(sm.std(ddof=1) / math.sqrt(len(sm)))
    param.override = None
    res.seconds = time.time() - t0
    return res
