"""How a chapter script or notebook runs: the environment it gets and the limits it runs under.

Every script and notebook runs with `run_environment()`: hash seed 0, Agg backend, UTF-8 output,
and the CPU code paths of torch, oneDNN, MKL, OpenBLAS and NumPy pinned (`CPU_PINNING_ENV`). The
limits (CPU time, wall time, memory, file size, open files, processes) have defaults here and
environment variables that override them. This module and the runner's own modules
(`RUNNER_CODE`) are hashed into every stamp: an edit here re-runs every script, an edit to
`explainer_tools/layout.py` (where things are) does not.

>>> run_environment()["PYTHONHASHSEED"]
'0'
"""

from __future__ import annotations

import os

# Pin the CPU code paths, so that every x86-64 CPU with AVX2 computes the same bits: PyTorch's own
# kernels and oneDNN to AVX2 (an AVX-512 machine is held to it), MKL to its COMPATIBLE branch
# (SSE2 without the approximate rcpps/rsqrtps). Intel's oneMKL developer guide ("Getting Started
# with Conditional Numerical Reproducibility") says that on non-Intel CPUs only AUTO and
# COMPATIBLE are supported, and that MKL_CBWR=AVX2 there falls back to AUTO (MKL's own
# dispatch). Seen: outputs committed from an earlier machine (its CPU not recorded), re-run on an
# AVX-512 Intel machine with MKL_CBWR=AVX2, differed in Chapters 7, 22 and 25 and in the
# notebook; with COMPATIBLE there, Chapters 22 and 25 matched them byte for byte. Training
# amplifies last-bit differences (seen: 3.249 vs 3.265 nats per token with
# ATEN_CPU_CAPABILITY=avx512 vs avx2). NumPy brings a BLAS and LAPACK of its own (OpenBLAS, built
# for every core type and choosing at load) and SIMD loops of its own (chosen at load too), so
# both are pinned: OpenBLAS to its AVX2 kernels ("Haswell"; an AMD Zen gets these too, OpenBLAS
# has no separate Zen kernels in this build) and NumPy's loops off their AVX-512 versions.
# Seen on this project's AVX-512 Intel machine: pinning them moved Chapter 15 (its network is
# trained with NumPy) and the notebook's last digits, nothing else. Not explained by them: the
# WordNet run of Chapter 22 gave message L = 1,747 bits on an AMD EPYC and 1,739 here; the
# float32 projector it uses is bit-identical under every OpenBLAS core type and thread count
# tried here, and pinned here it still gives 1,739 (the cause on that machine is open). These
# variables are read when torch and numpy load, so they must be in the environment before either
# is imported (runner.py).
CPU_PINNING_ENV = {
    "ATEN_CPU_CAPABILITY": "avx2",
    "MKL_CBWR": "COMPATIBLE",
    "ONEDNN_MAX_CPU_ISA": "AVX2",
    "OPENBLAS_CORETYPE": "Haswell",
    "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR",
}
# The rest of the environment every script and notebook runs with.
FIXED_ENV = {
    "PYTHONHASHSEED": "0",
    "MPLBACKEND": "Agg",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONIOENCODING": "utf-8",
}
# Per-script limits of the pipeline. The CPU-time limit is the one that bites: CPU seconds do not
# grow when the machine is busy, so a loaded CI machine cannot turn a slow run into a failure. The
# wall-clock limit is only a backstop for a script that waits (sleeps, blocks) without computing.
DEFAULT_SCRIPT_CPU_LIMIT_S = 600.0
CPU_LIMIT_ENV = "EXPLAINER_SCRIPT_CPU_LIMIT"
DEFAULT_SCRIPT_TIMEOUT_S = 3600.0
TIMEOUT_ENV = "EXPLAINER_SCRIPT_TIMEOUT"
# What a script may use beyond time (containment.apply_limits, in the script's own process):
# its standard output is capped (the pipeline refuses more, naming the script), every file it
# writes is capped a little above that (RLIMIT_FSIZE: a larger write fails), its writable memory
# (RLIMIT_DATA: heap and anonymous mappings), its open files and, in the sandbox, its processes
# are limited.
OUTPUT_CAP_BYTES = 2 * 1024 * 1024
FILE_SIZE_LIMIT_BYTES = OUTPUT_CAP_BYTES + 1  # so that an output over the cap is seen as such
DEFAULT_SCRIPT_MEMORY_GB = 8.0
MEMORY_ENV = "EXPLAINER_SCRIPT_MEMORY_GB"
OPEN_FILES_LIMIT = 1024
# Processes and threads a script in the sandbox may have at once, itself included (a fork bomb
# stops here): RLIMIT_NPROC in the sandbox's user namespace, or a cgroup's pids.max for root.
PROCESS_LIMIT = 256
# The code that decides how scripts run: part of every stamp.
RUNNER_CODE = ("explainer_tools/scripts/settings.py", "explainer_tools/scripts/runner.py",
               "explainer_tools/scripts/containment.py", "explainer_tools/scripts/process_tree.py",
               "explainer_tools/scripts/zygote.py")


def run_environment() -> dict[str, str]:
    """The variables the pipeline sets for every script and notebook (on top of os.environ)."""
    return {**FIXED_ENV, **CPU_PINNING_ENV}


def seconds_setting(name: str, default: float, unit: str = "seconds") -> float:
    """A positive number (of seconds, or of `unit`) from environment variable `name` (`default`
    when unset or empty); anything else is an error that names the variable.

    >>> seconds_setting("EXPLAINER_NO_SUCH_SETTING", 7.0)
    7.0
    """
    value = os.environ.get(name, "").strip()
    if not value:
        return default
    try:
        seconds = float(value)
    except ValueError:
        seconds = float("nan")
    if not 0 < seconds < float("inf"):
        raise ValueError(f"{name}={value!r} is not a positive number of {unit} (e.g. {name}="
                         f"{default:g}); unset it for the default, {default:g}")
    return seconds


def script_timeout() -> float:
    """The per-script wall-clock backstop: `$EXPLAINER_SCRIPT_TIMEOUT` seconds, else 3600."""
    return seconds_setting(TIMEOUT_ENV, DEFAULT_SCRIPT_TIMEOUT_S)


def script_cpu_limit() -> float:
    """The per-script CPU-time limit: `$EXPLAINER_SCRIPT_CPU_LIMIT` seconds, else 600."""
    return seconds_setting(CPU_LIMIT_ENV, DEFAULT_SCRIPT_CPU_LIMIT_S)


def script_memory_limit() -> int:
    """The per-script limit of writable memory in bytes: `$EXPLAINER_SCRIPT_MEMORY_GB` GB
    (10^9 bytes), else 8."""
    return int(seconds_setting(MEMORY_ENV, DEFAULT_SCRIPT_MEMORY_GB, "GB") * 1e9)
