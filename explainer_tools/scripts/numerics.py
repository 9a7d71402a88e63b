"""Does this machine compute the same bits as the machine that committed the outputs?

The committed outputs of the scripts that train (Chapters 7, 15, 20-26 and the notebook) are what
one machine's floating-point kernels computed; training turns a last-bit difference in any kernel
into different printed losses. `settings.CPU_PINNING_ENV` pins the kernels we know to choose code by
the CPU, but when `make check` still finds a training script's output changed on another machine,
the question is which kernel differs. This module answers it with probes: small computations
through each kernel the scripts use (PyTorch's matrix products, attention, GELU, layer norm, cross
entropy, embedding, AdamW, element-wise functions, a short training run; NumPy's QR, matrix
product and reductions), run in a fresh interpreter under the pinned run environment, each reduced
to a SHA-256 prefix of its result's bytes.

    python -m explainer_tools.scripts.numerics            # compare this machine with the reference
    python -m explainer_tools.scripts.numerics --record   # this machine becomes the reference

The reference, `outputs/numerics_reference.json`, is written only on purpose (`--record`, on the
machine whose outputs are committed), never by regenerate: it describes a machine, not the book.
`make check` ends with the comparison's one-line report; it never changes check's verdict, it says
where to look when the outputs differ.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from explainer_tools.layout import DEFAULT, OUTPUT_DIR, Layout
from explainer_tools.scripts.settings import run_environment

REFERENCE_PATH = (OUTPUT_DIR / "numerics_reference.json").as_posix()
PROBE_TIMEOUT_S = 120.0
# The probes run on one thread whatever the caller's settings: a threaded BLAS splits its sums by
# the thread count, so a caller's OMP_NUM_THREADS=1 gave another id on the same machine (seen: the
# NumPy reductions probe on an AMD EPYC). The id names the kernels, not the caller's threads.
PROBE_THREADS = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}

# Run in a fresh interpreter (torch and numpy read the pinning variables when they load). Each
# probe is deterministic on one machine; its value is the first 16 hex digits of the SHA-256 of
# the bytes of its results.
PROBE_SOURCE = r'''
import hashlib, json, platform
import numpy as np
import torch
import torch.nn.functional as F

torch.set_num_threads(1)
g = torch.Generator().manual_seed(0)


def digest(*values):
    h = hashlib.sha256()
    for v in values:
        a = v.detach().numpy() if isinstance(v, torch.Tensor) else np.asarray(v)
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:16]


def randn(*shape, grad=False):
    return torch.randn(*shape, generator=g).requires_grad_(grad)


probes = {}
a, b = randn(96, 200), randn(200, 130)
probes["torch matmul"] = digest(a @ b, torch.bmm(randn(8, 64, 16), randn(8, 16, 64)))
x, w, bias = randn(8, 64, 64, grad=True), randn(256, 64, grad=True), randn(256, grad=True)
y = F.linear(x, w, bias)
(y * y).sum().backward()
probes["torch linear, forward and backward"] = digest(y, x.grad, w.grad, bias.grad)
q, k, v = (randn(4, 4, 64, 16, grad=True) for _ in range(3))
y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
(y * y).sum().backward()
probes["torch attention, forward and backward"] = digest(y, q.grad, k.grad, v.grad)
u = randn(8, 64, 256, grad=True)
y = F.gelu(u)
(y * y).sum().backward()
probes["torch gelu, forward and backward"] = digest(y, u.grad)
u = randn(8, 64, 64, grad=True)
y = F.layer_norm(u, (64,))
(y * y * u).sum().backward()
probes["torch layer norm, forward and backward"] = digest(y, u.grad)
z, t = randn(2048, 48, grad=True), torch.randint(0, 48, (2048,), generator=g)
loss = F.cross_entropy(z, t)
loss.backward()
probes["torch cross entropy, forward and backward"] = digest(loss, z.grad)
table, index = randn(48, 64, grad=True), torch.randint(0, 48, (8, 64), generator=g)
y = F.embedding(index, table)
(y * y).sum().backward()
probes["torch embedding, backward"] = digest(table.grad)
u = randn(4096)
probes["torch exp, log, erf, tanh"] = digest(u.exp(), u.abs().log(), u.erf(), u.tanh())
p = randn(1000, grad=True)
opt = torch.optim.AdamW([p], lr=1e-2)
for _ in range(5):
    opt.zero_grad()
    (p.sin() * p).sum().backward()
    opt.step()
probes["torch AdamW"] = digest(p)

torch.manual_seed(0)
nn = torch.nn
emb, norm, head = nn.Embedding(48, 64), nn.LayerNorm(64), nn.Linear(64, 48)
qkv, proj, fc, fc2 = nn.Linear(64, 192), nn.Linear(64, 64), nn.Linear(64, 256), nn.Linear(256, 64)
params = [t for m in (emb, norm, head, qkv, proj, fc, fc2) for t in m.parameters()]
opt = torch.optim.AdamW(params, lr=1e-2)
tokens = torch.randint(0, 48, (16, 33), generator=g)
for _ in range(20):
    h = emb(tokens[:, :-1])
    qs, ks, vs = qkv(norm(h)).view(16, 32, 3, 4, 16).permute(2, 0, 3, 1, 4)
    att = F.scaled_dot_product_attention(qs, ks, vs, is_causal=True)
    h = h + proj(att.transpose(1, 2).reshape(16, 32, 64))
    h = h + fc2(F.gelu(fc(norm(h))))
    loss = F.cross_entropy(head(h).reshape(-1, 48), tokens[:, 1:].reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
probes["torch training, 20 steps"] = digest(*params)

rng = np.random.default_rng(0)
m = rng.standard_normal((300, 40))
probes["numpy QR"] = digest(np.linalg.qr(m, mode="reduced")[0])
probes["numpy matmul"] = digest(m.T @ m, m.astype(np.float32).T @ m.astype(np.float32))
probes["numpy exp, log, sums"] = digest(np.exp(m), np.log(np.abs(m)), m.sum(),
                                        m.astype(np.float32).sum(), np.linalg.norm(m))


def cpu_name():
    fields = {}
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                key, _, value = line.partition(":")
                fields.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    if "model name" not in fields:
        return platform.processor() or platform.machine()
    flags = set(fields.get("flags", "").split())
    isa = "AVX-512" if "avx512f" in flags else "AVX2" if "avx2" in flags else "no AVX2"
    return f"{fields['model name']}, {fields.get('vendor_id', '?')}, {isa}"


print(json.dumps({"cpu": cpu_name(), "torch": torch.__version__, "numpy": np.__version__,
                  "probes": probes}, sort_keys=True))
'''


class NumericsError(Exception):
    """The probes could not run, or the reference file is malformed (the message says which)."""


@dataclass(frozen=True)
class Fingerprint:
    """What one machine computes: its CPU's name, the library versions and each probe's digest."""

    cpu: str
    torch: str
    numpy: str
    probes: dict[str, str]

    def to_json(self) -> str:
        return json.dumps({"cpu": self.cpu, "torch": self.torch, "numpy": self.numpy,
                           "probes": self.probes}, indent=1, sort_keys=True) + "\n"

    @property
    def kernels(self) -> dict[str, str]:
        """What a stamp records of the machine that ran a script: `id`, the first 12 hex digits
        of the SHA-256 of the probes (two machines with one id compute the same bits in every
        probe), and the CPU's name for a reader.

        >>> Fingerprint("AMD Y", "2", "2", {"gelu": "ff"}).kernels
        {'id': 'bb943cf91acb', 'cpu': 'AMD Y'}
        """
        digest = hashlib.sha256(json.dumps(self.probes, sort_keys=True).encode("utf-8"))
        return {"id": digest.hexdigest()[:12], "cpu": self.cpu}


def parse_fingerprint(text: str, source: str) -> Fingerprint:
    """A fingerprint from its JSON; `source` names the file (or the probe) in errors.

    >>> parse_fingerprint('{"cpu": "x", "torch": "2", "numpy": "2", "probes": {"a": "0f"}}',
    ...                   "f").probes
    {'a': '0f'}
    """
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise NumericsError(f"{source}:{error.lineno}: not JSON ({error.msg})") from None
    if not isinstance(data, dict):
        raise NumericsError(f"{source}: expected an object with cpu, torch, numpy and probes")
    fields = {name: data.get(name) for name in ("cpu", "torch", "numpy")}
    probes = data.get("probes")
    if not all(isinstance(value, str) for value in fields.values()) or not (
            isinstance(probes, dict) and probes
            and all(isinstance(k, str) and isinstance(v, str) for k, v in probes.items())):
        raise NumericsError(f"{source}: expected strings cpu, torch, numpy and a non-empty "
                            "object probes of strings; run `python -m "
                            "explainer_tools.scripts.numerics --record` to write it again")
    return Fingerprint(probes=dict(probes), **fields)


def differing_probes(reference: Fingerprint, current: Fingerprint) -> list[str]:
    """Names of the reference's probes that this machine computes differently (or not at all),
    in the reference's order.

    >>> ref = Fingerprint("A", "2", "2", {"gelu": "01", "matmul": "02"})
    >>> differing_probes(ref, Fingerprint("B", "2", "2", {"gelu": "ff", "matmul": "02"}))
    ['gelu']
    """
    return [name for name, value in reference.probes.items() if current.probes.get(name) != value]


def report(reference: Fingerprint | None, current: Fingerprint) -> str:
    """The one line `make check` ends with.

    >>> ref = Fingerprint("Intel X", "2", "2", {"gelu": "01", "qr": "02"})
    >>> report(ref, ref)[-51:]
    'what the reference machine computes in all 2 probes'
    >>> report(ref, Fingerprint("AMD Y", "2", "2", {"gelu": "ff", "qr": "02"}))[:88]
    'numerics: this machine (AMD Y) differs from the reference machine (Intel X) in 1 of 2 pr'
    """
    if reference is None:
        return (f"numerics: no reference recorded ({REFERENCE_PATH}); this machine: {current.cpu}")
    versions = ""
    if (reference.torch, reference.numpy) != (current.torch, current.numpy):
        versions = (f" (torch {current.torch} here, {reference.torch} there; numpy "
                    f"{current.numpy} here, {reference.numpy} there)")
    different = differing_probes(reference, current)
    if not different:
        return (f"numerics: this machine ({current.cpu}) computes what the reference machine "
                f"computes in all {len(reference.probes)} probes{versions}")
    return (f"numerics: this machine ({current.cpu}) differs from the reference machine "
            f"({reference.cpu}) in {len(different)} of {len(reference.probes)} probes: "
            f"{', '.join(different)}; check compares outputs made there within the tolerance "
            f"for other kernels{versions}")


# ----------------------------------------------------------------- products of other kernels
#
# A script whose inputs are unchanged but whose committed products were made on kernels that
# compute other bits (another CPU vendor: MKL's vector math, which torch calls for sqrt, exp,
# sin and the like, takes a vendor's own code path whatever MKL_CBWR says) prints the same text
# with other last digits wherever training amplifies those bits. `make check` then compares its
# output number by number: the words must be identical, and each number within
# `RELATIVE_TOLERANCE` of the committed one (plus `LAST_DIGIT_UNITS` units of its last printed
# digit, for values near zero); its figures must have the same size and differ in at most
# `FIGURE_PIXEL_SHARE` of their pixels.
# The variable through which the pipeline tells a script this machine's kernel id (a test checks
# that explainer_code/script_io.py uses the same name).
KERNELS_ENV = "EXPLAINER_KERNELS"
RELATIVE_TOLERANCE = 0.01
LAST_DIGIT_UNITS = 20
FIGURE_PIXEL_SHARE = 0.01
_NUMBER = re.compile(r"(?<![\w.])[-+]?\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?")


def _value(text: str) -> tuple[float, float]:
    """A printed number's value and one unit of its last printed digit."""
    mantissa, _, exponent = text.replace(",", "").lower().partition("e")
    decimals = len(mantissa.partition(".")[2])
    scale = 10.0 ** int(exponent or 0)
    return float(mantissa) * scale, 10.0 ** -decimals * scale


def numbers_close(committed: str, fresh: str) -> bool:
    """Whether two printed numbers agree within the tolerance for other kernels.

    >>> numbers_close("4.541", "4.566"), numbers_close("2,809", "2,802")
    (True, True)
    >>> numbers_close("0.012", "0.019"), numbers_close("4.541", "4.741")
    (True, False)
    """
    if committed == fresh:
        return True
    (a, unit), (b, _) = _value(committed), _value(fresh)
    return abs(a - b) <= RELATIVE_TOLERANCE * max(abs(a), abs(b)) + LAST_DIGIT_UNITS * unit


def text_mismatch(committed: str, fresh: str) -> str:
    r"""'' when `fresh` is `committed` up to numbers that each agree within the tolerance for
    other kernels; else the first line that does not, both versions.

    >>> text_mismatch("bound 4.541 (L = 2,809)\n", "bound 4.566 (L = 2,802)\n")
    ''
    >>> text_mismatch("bound 4.541, tie\n", "bound 4.566, lower\n")
    'line 1: words differ\n  committed: bound 4.541, tie\n  here:      bound 4.566, lower'
    """
    old, new = committed.splitlines(), fresh.splitlines()
    if len(old) != len(new):
        return f"{len(old)} lines committed, {len(new)} here"
    for number, (a, b) in enumerate(zip(old, new, strict=True), start=1):
        if a == b:
            continue
        both = f"\n  committed: {a}\n  here:      {b}"
        if _NUMBER.split(a) != _NUMBER.split(b):
            return f"line {number}: words differ{both}"
        for x, y in zip(_NUMBER.findall(a), _NUMBER.findall(b), strict=True):
            if not numbers_close(x, y):
                return f"line {number}: {x} committed, {y} here, beyond the tolerance{both}"
    return ""


def _pixels(png: bytes) -> Any:
    import io

    import numpy as np
    from PIL import Image

    return np.asarray(Image.open(io.BytesIO(png)).convert("RGBA"))


def pixel_difference(committed: bytes, fresh: bytes) -> str:
    """How two PNGs differ, in words: size, or how many pixels and where.

    >>> import io; from PIL import Image
    >>> def png(value):
    ...     out = io.BytesIO(); Image.new("RGB", (4, 2), value).save(out, "PNG")
    ...     return out.getvalue()
    >>> pixel_difference(png((0, 0, 0)), png((9, 9, 9)))
    '8 of 8 pixels differ (100.00 %), within x 0-3, y 0-1'
    """
    try:
        old, new = _pixels(committed), _pixels(fresh)
    except Exception as error:  # a committed file that is not a PNG at all
        return f"committed file is not a readable PNG ({error})"
    if old.shape != new.shape:
        return (f"size {old.shape[1]}x{old.shape[0]} committed, "
                f"{new.shape[1]}x{new.shape[0]} regenerated")
    changed = (old != new).any(axis=-1)
    count = int(changed.sum())
    if not count:
        return "same pixels, different encoding or metadata"
    rows, cols = changed.nonzero()
    return (f"{count:,} of {changed.size:,} pixels differ ({100 * count / changed.size:.2f} %), "
            f"within x {cols.min()}-{cols.max()}, y {rows.min()}-{rows.max()}")


def figure_mismatch(committed: bytes, fresh: bytes) -> str:
    """'' when two PNGs have the same size and differ in at most `FIGURE_PIXEL_SHARE` of their
    pixels; else how they differ."""
    try:
        old, new = _pixels(committed), _pixels(fresh)
    except Exception:
        return pixel_difference(committed, fresh)
    if old.shape != new.shape or (old != new).any(axis=-1).mean() > FIGURE_PIXEL_SHARE:
        return (pixel_difference(committed, fresh)
                + f" (at most {100 * FIGURE_PIXEL_SHARE:g} % may differ)")
    return ""


_THIS_MACHINE: dict[str, Fingerprint] = {}


def this_machine() -> Fingerprint:
    """This machine's fingerprint, probed once per process."""
    if "fingerprint" not in _THIS_MACHINE:
        _THIS_MACHINE["fingerprint"] = probe()
    return _THIS_MACHINE["fingerprint"]


def probe(python: str = sys.executable, env: dict[str, str] | None = None) -> Fingerprint:
    """Run the probes in a fresh interpreter under the pinned run environment, on one thread (or
    under `env`)."""
    environment = env if env is not None else {**os.environ, **run_environment(), **PROBE_THREADS}
    try:
        done = subprocess.run([python, "-c", PROBE_SOURCE], env=environment, capture_output=True,
                              text=True, timeout=PROBE_TIMEOUT_S, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise NumericsError(f"numerics: the probes ran over {PROBE_TIMEOUT_S:.0f} s") from None
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-5:])
        raise NumericsError(f"numerics: the probes failed (exit {done.returncode}):\n{tail}")
    return parse_fingerprint(done.stdout.strip().splitlines()[-1], "the probes' output")


def read_reference(layout: Layout = DEFAULT) -> Fingerprint | None:
    """The recorded reference, None when there is none."""
    path = layout.root / REFERENCE_PATH
    if not path.is_file():
        return None
    return parse_fingerprint(path.read_text(encoding="utf-8"), REFERENCE_PATH)


def elsewhere(recorded: dict[str, str] | None, here: dict[str, str] | None,
              layout: Layout) -> dict[str, str] | None:
    """The kernels committed products were made on (`recorded`; None: the reference machine's)
    where they compute other bits than `here` (this machine's; None: not known), else None."""
    reference = read_reference(layout) if here else None
    recorded = recorded or (reference.kernels if reference else None)
    return recorded if here and recorded and recorded.get("id") != here["id"] else None


def check_line(layout: Layout = DEFAULT) -> str:
    """`report` for this machine, or the reason it could not be made (never raises)."""
    try:
        return report(read_reference(layout), probe())
    except NumericsError as error:
        return str(error)


def main(argv: list[str] | None = None, layout: Layout = DEFAULT) -> int:
    parser = argparse.ArgumentParser(prog="python -m explainer_tools.scripts.numerics",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--record", action="store_true",
                        help=f"write this machine's probes to {REFERENCE_PATH}")
    parser.add_argument("--id", action="store_true",
                        help="print this machine's kernel id (what stamps and data files record)")
    args = parser.parse_args(argv)
    try:
        current = probe()
        if args.id:
            print(current.kernels["id"])
            return 0
        if args.record:
            path: Path = layout.root / REFERENCE_PATH
            path.write_text(current.to_json(), encoding="utf-8")
            print(f"numerics: wrote {REFERENCE_PATH} ({current.cpu}, {len(current.probes)} probes)")
            return 0
        line = report(read_reference(layout), current)
    except NumericsError as error:
        print(error, file=sys.stderr)
        return 2
    print(line)
    return 0 if " computes what " in line else 1


if __name__ == "__main__":
    sys.exit(main())
