"""The layout of the repository: where things are, how products are named, how scripts run.

Every other module of explainer_tools takes its paths and naming rules from here, and this module
imports none of them. The rules:

- a chapter script is `explainer_code/chNN_topic.py` (`SCRIPT_GLOB`);
- its output is `outputs/<stem>.txt` (`output_path`), its stamp `outputs/.stamps/<stem>.json`
  (`stamp_path`), its figures `docs/assets/fig/<name>.png`, written by the script through
  `script_io.save_figure` into `$EXPLAINER_FIG_DIR` (`FIG_DIR_ENV`) when the pipeline runs it;
- a companion notebook's source is `notebooks/<name>.py` (jupytext py:percent) and its executed
  copy `docs/notebooks/<name with - for _>.ipynb` (`notebook_targets`), stamped in
  `outputs/.stamps/notebook-<target stem>.json`;
- scripts and notebooks run with `run_environment()`: hash seed 0, Agg backend, UTF-8 output, and
  the CPU code paths of torch, MKL and oneDNN pinned to AVX2 (`CPU_PINNING_ENV`).

>>> output_path("ch05_param_count.py").relative_to(REPO_ROOT).as_posix()
'outputs/ch05_param_count.txt'
>>> script_of_output("outputs/ch05_param_count.txt")
'ch05_param_count.py'
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
CODE_DIR = REPO_ROOT / "explainer_code"
OUTPUT_DIR = REPO_ROOT / "outputs"
STAMP_DIR = OUTPUT_DIR / ".stamps"
DOCS_DIR = REPO_ROOT / "docs"
FIG_DIR = DOCS_DIR / "assets" / "fig"
CHAPTER_DIR = DOCS_DIR / "chapters"
ERRATA_DIR = DOCS_DIR / "errata"
LOCK_FILE = REPO_ROOT / "requirements.lock"
MKDOCS_YML = REPO_ROOT / "mkdocs.yml"
NOTEBOOK_SOURCE_DIR = REPO_ROOT / "notebooks"
NOTEBOOK_TARGET_DIR = DOCS_DIR / "notebooks"
TOOLS_DIR = Path(__file__).resolve().parent
SCRIPT_GLOB = "ch[0-9][0-9]_*.py"
# The environment variable through which the pipeline tells `script_io.save_figure` where to
# write (a test checks that explainer_code/script_io.py uses the same name and default folder).
FIG_DIR_ENV = "EXPLAINER_FIG_DIR"
# Pin the CPU code paths of PyTorch's kernels, MKL and oneDNN to AVX2, so that a machine with
# AVX-512 computes exactly what an AVX2-only machine does. Without this, the notebook's training
# run ends at a different loss on a different CPU (seen: 3.249 vs 3.265 nats per token with
# ATEN_CPU_CAPABILITY=avx512 vs avx2) and `make check` fails there. These variables are read when
# torch loads, so they must be in the environment before `import torch` (runner.py sees to it).
CPU_PINNING_ENV = {
    "ATEN_CPU_CAPABILITY": "avx2",
    "MKL_CBWR": "AVX2",
    "ONEDNN_MAX_CPU_ISA": "AVX2",
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
# The code that decides how scripts run: part of every stamp (issue 10.5).
RUNNER_CODE = ("explainer_tools/layout.py", "explainer_tools/runner.py",
               "explainer_tools/containment.py", "explainer_tools/process_tree.py")


def run_environment() -> dict[str, str]:
    """The variables the pipeline sets for every script and notebook (on top of os.environ)."""
    return {**FIXED_ENV, **CPU_PINNING_ENV}


def seconds_setting(name: str, default: float) -> float:
    """A positive number of seconds from environment variable `name` (`default` when unset or
    empty); anything else is an error that names the variable.

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
        raise ValueError(f"{name}={value!r} is not a positive number of seconds (e.g. {name}="
                         f"{default:g}); unset it for the default, {default:g}")
    return seconds


def script_timeout() -> float:
    """The per-script wall-clock backstop: `$EXPLAINER_SCRIPT_TIMEOUT` seconds, else 3600."""
    return seconds_setting(TIMEOUT_ENV, DEFAULT_SCRIPT_TIMEOUT_S)


def script_cpu_limit() -> float:
    """The per-script CPU-time limit: `$EXPLAINER_SCRIPT_CPU_LIMIT` seconds, else 600."""
    return seconds_setting(CPU_LIMIT_ENV, DEFAULT_SCRIPT_CPU_LIMIT_S)


# --------------------------------------------------------------------------- naming rules


def output_path(script: str) -> Path:
    """`ch05_x.py` -> `outputs/ch05_x.txt` (absolute)."""
    return OUTPUT_DIR / f"{Path(script).stem}.txt"


def output_name(script: str) -> str:
    """`ch05_x.py` -> `'outputs/ch05_x.txt'`, as messages and embed titles name it."""
    return f"outputs/{Path(script).stem}.txt"


def script_of_output(path: str | Path) -> str:
    """`outputs/ch05_x.txt` -> `ch05_x.py`."""
    return f"{Path(path).stem}.py"


def stamp_path(script: str) -> Path:
    return STAMP_DIR / f"{Path(script).stem}.json"


def notebook_targets() -> dict[Path, Path]:
    """Notebook sources (jupytext py:percent) -> the executed notebooks the site renders:
    `notebooks/gpt2_under_the_hood.py` -> `docs/notebooks/gpt2-under-the-hood.ipynb`."""
    return {
        source: NOTEBOOK_TARGET_DIR / f"{source.stem.replace('_', '-')}.ipynb"
        for source in sorted(NOTEBOOK_SOURCE_DIR.glob("*.py"))
    }


def notebook_stamp_path(target: Path) -> Path:
    return STAMP_DIR / f"notebook-{target.stem}.json"


def discover_scripts() -> list[str]:
    """The chapter scripts, by file name, sorted."""
    return sorted(path.name for path in CODE_DIR.glob(SCRIPT_GLOB))


def markdown_pages(docs: Path = DOCS_DIR) -> list[Path]:
    """Every Markdown page under `docs/` (MkDocs' cache excluded), sorted."""
    return sorted(path for path in docs.rglob("*.md") if ".cache" not in path.parts)


def relative(path: Path) -> str:
    """Repository-relative POSIX path, or the path as given when it lies outside."""
    try:
        return path.relative_to(REPO_ROOT).as_posix()
    except ValueError:
        return str(path)


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
