"""The layout of the repository: where things are, how products are named, how scripts run.

Every other module of explainer_tools takes its paths and naming rules from here, and this module
imports none of them. The folders and naming rules belong to a `Layout`, a repository root: the
tools work on `DEFAULT` (the repository they belong to, `Layout.of_repository()`) unless given
another one (the pipeline's tests build small fixture repositories). The rules:

- a chapter script is `explainer_code/chNN_topic.py` (`SCRIPT_GLOB`);
- its output is `outputs/<stem>.txt` (`Layout.output_path`), its stamp
  `outputs/.stamps/<stem>.json` (`Layout.stamp_path`), its figures `docs/assets/fig/<name>.png`,
  written by the script through `script_io.save_figure` into `$EXPLAINER_FIG_DIR`
  (`FIG_DIR_ENV`) when the pipeline runs it;
- a companion notebook's source is `notebooks/<name>.py` (jupytext py:percent) and its executed
  copy `docs/notebooks/<name with - for _>.ipynb` (`Layout.notebook_targets`), stamped in
  `outputs/.stamps/notebook-<target stem>.json`;
- scripts and notebooks run with `run_environment()`: hash seed 0, Agg backend, UTF-8 output, and
  the CPU code paths of torch and oneDNN pinned to AVX2 and MKL's to its COMPATIBLE branch
  (`CPU_PINNING_ENV`).

>>> DEFAULT.relative(DEFAULT.output_path("ch05_param_count.py"))
'outputs/ch05_param_count.txt'
>>> copy = Layout(DEFAULT.root / "copy")
>>> copy.relative(copy.stamp_path("ch05_x.py"))
'outputs/.stamps/ch05_x.json'
>>> script_of_output("outputs/ch05_param_count.txt")
'ch05_param_count.py'
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

SCRIPT_GLOB = "ch[0-9][0-9]_*.py"
# The environment variable through which the pipeline tells `script_io.save_figure` where to
# write (a test checks that explainer_code/script_io.py uses the same name and default folder).
FIG_DIR_ENV = "EXPLAINER_FIG_DIR"
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
RUNNER_CODE = ("explainer_tools/layout.py", "explainer_tools/scripts/runner.py",
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


# --------------------------------------------------------------------------- naming rules


def output_name(script: str) -> str:
    """`ch05_x.py` -> `'outputs/ch05_x.txt'`, as messages and embed titles name it."""
    return f"outputs/{Path(script).stem}.txt"


def script_of_output(path: str | Path) -> str:
    """`outputs/ch05_x.txt` -> `ch05_x.py`."""
    return f"{Path(path).stem}.py"


@dataclass(frozen=True)
class Layout:
    """The folders of one repository (`root`, made absolute) and how its products are named."""

    root: Path

    def __post_init__(self) -> None:
        object.__setattr__(self, "root", Path(self.root).resolve())

    @classmethod
    def of_repository(cls) -> Layout:
        """The repository these tools belong to."""
        return cls(Path(__file__).resolve().parent.parent)

    @property
    def code_dir(self) -> Path:
        return self.root / "explainer_code"

    @property
    def output_dir(self) -> Path:
        return self.root / "outputs"

    @property
    def stamp_dir(self) -> Path:
        return self.output_dir / ".stamps"

    @property
    def docs_dir(self) -> Path:
        return self.root / "docs"

    @property
    def fig_dir(self) -> Path:
        return self.docs_dir / "assets" / "fig"

    @property
    def chapter_dir(self) -> Path:
        return self.docs_dir / "chapters"

    @property
    def errata_dir(self) -> Path:
        return self.docs_dir / "errata"

    @property
    def lock_file(self) -> Path:
        return self.root / "requirements.lock"

    @property
    def mkdocs_yml(self) -> Path:
        return self.root / "mkdocs.yml"

    @property
    def notebook_source_dir(self) -> Path:
        return self.root / "notebooks"

    @property
    def notebook_target_dir(self) -> Path:
        return self.docs_dir / "notebooks"

    @property
    def tools_dir(self) -> Path:
        return self.root / "explainer_tools"

    def output_path(self, script: str) -> Path:
        """`ch05_x.py` -> `<root>/outputs/ch05_x.txt`."""
        return self.output_dir / f"{Path(script).stem}.txt"

    def stamp_path(self, script: str) -> Path:
        return self.stamp_dir / f"{Path(script).stem}.json"

    def notebook_targets(self) -> dict[Path, Path]:
        """Notebook sources (jupytext py:percent) -> the executed notebooks the site renders:
        `notebooks/gpt2_under_the_hood.py` -> `docs/notebooks/gpt2-under-the-hood.ipynb`."""
        return {
            source: self.notebook_target_dir / f"{source.stem.replace('_', '-')}.ipynb"
            for source in sorted(self.notebook_source_dir.glob("*.py"))
        }

    def notebook_stamp_path(self, target: Path) -> Path:
        return self.stamp_dir / f"notebook-{target.stem}.json"

    def discover_scripts(self) -> list[str]:
        """The chapter scripts, by file name, sorted."""
        return sorted(path.name for path in self.code_dir.glob(SCRIPT_GLOB))

    def markdown_pages(self) -> list[Path]:
        """Every Markdown page under `docs/` (MkDocs' cache excluded), sorted."""
        return sorted(path for path in self.docs_dir.rglob("*.md")
                      if ".cache" not in path.parts)

    def relative(self, path: Path) -> str:
        """Root-relative POSIX path, or the path as given when it lies outside."""
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return str(path)


DEFAULT = Layout.of_repository()


# --------------------------------------------------------------------------- files


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_atomic(path: Path, data: bytes) -> None:
    """Write `data` so that readers see the old file or the new one, never half of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        Path(tmp).chmod(0o644)  # mkstemp creates 0600; products are ordinary readable files
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
