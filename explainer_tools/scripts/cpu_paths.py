"""On which CPUs `make check` compares the companion notebooks' outputs, and what it says elsewhere.

The notebooks train small models; training amplifies last-bit floating-point differences into
different printed losses and samples. So the pipeline pins the code paths
(`settings.CPU_PINNING_ENV`: PyTorch and oneDNN to x86 AVX2, MKL to its COMPATIBLE branch, the one
branch besides AUTO that MKL supports on other vendors' CPUs, NumPy's OpenBLAS to its AVX2 kernels
and NumPy's own loops off AVX-512), and the stored notebook is what
those paths compute. An x86-64 CPU with AVX2 (Intel since 2013, AMD since 2015; AVX-512 machines
are held to AVX2) takes the same paths, and `make check` compares its text outputs.

A CPU that cannot take those paths -- an ARM laptop (Apple silicon, Graviton), or an old x86 CPU
without AVX2 -- computes slightly different numbers, and a comparison would print a wall of diffs
that says nothing about the reader's change. There `make check` still executes the notebook (so a
broken cell or a claim of its prose that no longer holds still fails, see `gpt_lab/checks.py`),
but does not compare its outputs, and says so in one message; so it does where the notebook was
made on kernels that compute other bits than this machine's (another vendor's CPU,
`other_kernels.py`). Chapter scripts are compared everywhere: byte for byte where their kernels
made them, elsewhere within the tolerance `numerics.py` states.
"""

from __future__ import annotations

import platform
from pathlib import Path

X86_64 = ("x86_64", "amd64")
CPUINFO = Path("/proc/cpuinfo")


def cpu_flags(cpuinfo: Path = CPUINFO) -> set[str] | None:
    """The CPU feature flags from /proc/cpuinfo (Linux), or None where there is no such file."""
    try:
        text = cpuinfo.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("flags"):
            return set(line.partition(":")[2].split())
    return None


def pinned_paths_unavailable(machine: str | None = None, flags: set[str] | None = None) -> str:
    """Why this machine cannot run the pinned AVX2 code paths ('' when it can).

    >>> pinned_paths_unavailable("arm64", None)
    'this machine is arm64, not x86-64'
    >>> pinned_paths_unavailable("x86_64", {"sse2", "avx2"})
    ''
    """
    machine = machine if machine is not None else platform.machine()
    if machine.lower() not in X86_64:
        return f"this machine is {machine}, not x86-64"
    if flags is None and machine == platform.machine():
        flags = cpu_flags()
    if flags is not None and "avx2" not in flags:
        return "this x86-64 CPU has no AVX2"
    return ""  # flags unknown (macOS, Windows): every x86-64 Mac or PC of the last decade has AVX2


def not_compared_message(notebook: str, reason: str) -> str:
    """The one message `make check` prints instead of a notebook comparison."""
    return (
        f"{notebook}: executed, claims checked, outputs NOT compared: {reason}.\n"
        "  The notebook trains its model; training grows last-bit differences into other\n"
        "  printed losses and other sampled text, so a comparison would only list those. It is\n"
        "  compared on a machine whose kernels made it (make numerics; the stamp names them)."
    )
