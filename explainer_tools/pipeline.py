"""`make regenerate` and `make check`: run the chapter scripts, keep their outputs and figures,
embed outputs and sources into the Markdown pages.

regenerate
    1. Find the chapter scripts (`explainer_code/ch*.py`) whose inputs changed since their stamp
       (`outputs/.stamps/<script>.json`): the script, every repository file it imported or read,
       `requirements.lock`, or a product (output, figure) that no longer matches.
    2. Run them in parallel (one per core), each with a scratch figure folder, through
       `trace_run.py`, which records what they read. A failure stops everything: its traceback
       is printed, the exit code is non-zero, and no file in the tree is touched.
    3. Re-embed every marker in `docs/**/*.md`. Any marker error stops everything, again before
       anything is written.
    4. Write what changed, each file atomically. Unchanged files are not rewritten.
    5. Execute the companion notebooks (`notebooks/*.py` -> `docs/notebooks/*.ipynb`) whose
       inputs changed: the source, the `gpt_lab` code, `requirements.lock` and every Markdown
       page, which the notebook's small model is trained on -- so this step comes after the
       pages are embedded. A failing notebook leaves the notebook and its stamp untouched.

check
    Runs every script into a scratch folder (stamps ignored), embeds into copies of the pages, and
    compares outputs, figures, stamps and pages with the committed ones: a unified diff per text
    difference, a description per figure difference. Then re-executes each notebook in memory and
    compares its deterministic text (`notebooks.comparable_text`: timing cells excluded) with the
    committed notebook. Writes nothing into the tree.
"""

from __future__ import annotations

import concurrent.futures
import difflib
import hashlib
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from explainer_tools import cpu_paths
from explainer_tools.markers import MarkerError, embed, resolver

REPO_ROOT = Path(__file__).resolve().parent.parent
CODE_DIR = REPO_ROOT / "explainer_code"
OUTPUT_DIR = REPO_ROOT / "outputs"
STAMP_DIR = OUTPUT_DIR / ".stamps"
FIG_DIR = REPO_ROOT / "docs" / "assets" / "fig"
DOCS_DIR = REPO_ROOT / "docs"
LOCK_FILE = REPO_ROOT / "requirements.lock"
TRACER = Path(__file__).resolve().parent / "trace_run.py"
SCRIPT_GLOB = "ch[0-9][0-9]_*.py"
# Pin the CPU code paths of PyTorch's kernels, MKL and oneDNN to AVX2, so that a machine with
# AVX-512 computes exactly what an AVX2-only machine does. Without this, the notebook's
# training run ends at a different loss on a different CPU (seen here: 3.249 vs 3.265 nats
# per token with ATEN_CPU_CAPABILITY=avx512 vs avx2) and `make check` fails there.
CPU_PINNING_ENV = {
    "ATEN_CPU_CAPABILITY": "avx2",
    "MKL_CBWR": "AVX2",
    "ONEDNN_MAX_CPU_ISA": "AVX2",
}
NOTEBOOK_SOURCE_DIR = REPO_ROOT / "notebooks"
NOTEBOOK_TARGET_DIR = DOCS_DIR / "notebooks"
NOTEBOOK_CODE = ("explainer_code/gpt_lab", "explainer_tools/notebooks.py")


class PipelineError(Exception):
    """A failure that stops the pipeline; its message is printed as is."""


@dataclass
class ScriptRun:
    """What one run of a chapter script produced."""

    script: str  # file name, e.g. "ch05_param_count.py"
    output: str
    figures: dict[str, bytes]
    inputs: list[str]  # repository-relative paths it read

    def stamp(self) -> str:
        return render_stamp(self.script, self.inputs, self.output, self.figures)


@dataclass
class Plan:
    """Every file the pipeline wants in the tree: path -> bytes."""

    files: dict[Path, bytes] = field(default_factory=dict)
    remove: list[Path] = field(default_factory=list)  # figures a re-run script no longer draws
    ran: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------- small pure helpers


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def relative(path: Path) -> str:
    try:
        return path.relative_to(REPO_ROOT).as_posix()
    except ValueError:
        return str(path)


def output_path(script: str) -> Path:
    return OUTPUT_DIR / f"{Path(script).stem}.txt"


def stamp_path(script: str) -> Path:
    return STAMP_DIR / f"{Path(script).stem}.json"


def render_stamp(script: str, inputs: Iterable[str], output: str, figures: dict[str, bytes]) -> str:
    """The stamp of a run: hashes of everything it read and everything it produced."""
    hashed_inputs = {
        path: sha256((REPO_ROOT / path).read_bytes()) for path in sorted(set(inputs))
    }
    hashed_inputs[relative(LOCK_FILE)] = sha256(LOCK_FILE.read_bytes())
    stamp = {
        "script": script,
        "inputs": dict(sorted(hashed_inputs.items())),
        "output": sha256(output.encode("utf-8")),
        "figures": {name: sha256(data) for name, data in sorted(figures.items())},
    }
    return json.dumps(stamp, indent=1, sort_keys=False) + "\n"


def is_fresh(script: str) -> bool:
    """True when the committed stamp matches the current inputs and products of `script`."""
    path = stamp_path(script)
    if not path.is_file() or not output_path(script).is_file():
        return False
    try:
        stamp = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError:
        return False
    checks = [(REPO_ROOT / p, h) for p, h in stamp.get("inputs", {}).items()]
    checks.append((output_path(script), stamp.get("output")))
    checks += [(FIG_DIR / name, h) for name, h in stamp.get("figures", {}).items()]
    if relative(LOCK_FILE) not in stamp.get("inputs", {}):
        return False
    return all(p.is_file() and sha256(p.read_bytes()) == h for p, h in checks)


def stamped_figures(script: str) -> list[str]:
    """The figures the committed stamp of `script` says it drew."""
    try:
        return list(json.loads(stamp_path(script).read_text(encoding="utf-8"))["figures"])
    except (OSError, json.JSONDecodeError, KeyError):
        return []


def discover_scripts() -> list[str]:
    return sorted(path.name for path in CODE_DIR.glob(SCRIPT_GLOB))


def markdown_pages() -> list[Path]:
    return sorted(path for path in DOCS_DIR.rglob("*.md") if ".cache" not in path.parts)


# --------------------------------------------------------------------------- running scripts


def run_script(script: str, scratch: Path) -> ScriptRun:
    """Run one chapter script with its figures going to a scratch folder; raise on failure."""
    fig_dir = scratch / "fig" / Path(script).stem
    fig_dir.mkdir(parents=True)
    deps_file = scratch / f"{Path(script).stem}.deps.json"
    env = dict(os.environ)
    env.update(
        EXPLAINER_FIG_DIR=str(fig_dir),
        PYTHONHASHSEED="0",
        MPLBACKEND="Agg",
        PYTHONDONTWRITEBYTECODE="1",
        PYTHONIOENCODING="utf-8",
        **CPU_PINNING_ENV,
    )
    result = subprocess.run(
        [sys.executable, str(TRACER), str(deps_file), str(CODE_DIR / script)],
        cwd=scratch,  # scripts must not depend on the working folder
        env=env,
        capture_output=True,
        check=False,
    )
    if result.returncode != 0:
        raise PipelineError(
            f"regenerate: explainer_code/{script} failed (exit {result.returncode}); "
            "nothing was written.\n"
            + result.stderr.decode("utf-8", "replace")
            + (
                "--- its output before the failure ---\n"
                + result.stdout.decode("utf-8", "replace")
                if result.stdout
                else ""
            )
        )
    figures = {path.name: path.read_bytes() for path in sorted(fig_dir.glob("*.png"))}
    inputs = json.loads(deps_file.read_text(encoding="utf-8"))
    return ScriptRun(script, result.stdout.decode("utf-8"), figures, inputs)


def run_scripts(scripts: list[str], scratch: Path, jobs: int) -> dict[str, ScriptRun]:
    """Run scripts in parallel; the first failure (in script order) is raised."""
    if not scripts:
        return {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        futures = {script: pool.submit(run_script, script, scratch) for script in scripts}
        runs: dict[str, ScriptRun] = {}
        errors: list[str] = []
        for script, future in futures.items():
            try:
                runs[script] = future.result()
            except PipelineError as error:
                errors.append(str(error))
    if errors:
        raise PipelineError("\n".join(errors))
    return runs


# --------------------------------------------------------------------------- planning


def committed_output(script: str) -> str:
    path = output_path(script)
    return path.read_text(encoding="utf-8") if path.is_file() else ""


def plan_pages(outputs: dict[str, str], pages: list[Path]) -> dict[Path, bytes]:
    """The embedded text of every page; all marker errors are collected, then raised together."""
    resolve = resolver(outputs, CODE_DIR)
    planned: dict[Path, bytes] = {}
    errors: list[str] = []
    for page in pages:
        text = page.read_text(encoding="utf-8")
        try:
            planned[page] = embed(text, relative(page), resolve).encode("utf-8")
        except MarkerError as error:
            errors.append(str(error))
    if errors:
        raise PipelineError(
            "regenerate: marker errors; no file was rewritten:\n  " + "\n  ".join(errors)
        )
    return planned


def plan(scripts: list[str], to_run: list[str], jobs: int) -> Plan:
    """Run `to_run` and compute every file the tree should hold for `scripts`."""
    result = Plan(ran=list(to_run))
    with tempfile.TemporaryDirectory(prefix="regenerate-") as scratch:
        runs = run_scripts(to_run, Path(scratch), jobs)
    outputs = {script: committed_output(script) for script in scripts}
    for script, run in runs.items():
        outputs[script] = run.output
        result.files[output_path(script)] = run.output.encode("utf-8")
        result.files[stamp_path(script)] = run.stamp().encode("utf-8")
        for name, data in run.figures.items():
            result.files[FIG_DIR / name] = data
        dropped = set(stamped_figures(script)) - set(run.figures)
        result.remove += [FIG_DIR / name for name in sorted(dropped) if (FIG_DIR / name).is_file()]
    result.files.update(plan_pages(outputs, markdown_pages()))
    return result


# --------------------------------------------------------------------------- writing


def write_atomic(path: Path, data: bytes) -> None:
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


def apply(files: dict[Path, bytes]) -> list[Path]:
    """Write every file whose bytes differ from what is on disk; return the ones written."""
    written = []
    for path, data in sorted(files.items()):
        if path.is_file() and path.read_bytes() == data:
            continue
        write_atomic(path, data)
        written.append(path)
    return written


# --------------------------------------------------------------------------- differences


def text_diff(path: Path, expected: bytes) -> str:
    committed = path.read_bytes().decode("utf-8", "replace") if path.is_file() else ""
    name = relative(path)
    return "".join(
        difflib.unified_diff(
            committed.splitlines(keepends=True),
            expected.decode("utf-8", "replace").splitlines(keepends=True),
            fromfile=f"{name} (committed)",
            tofile=f"{name} (regenerated)",
        )
    )


def figure_diff(path: Path, expected: bytes) -> str:
    """Say how a committed PNG differs from the regenerated one."""
    name = relative(path)
    if not path.is_file():
        return f"{name}: figure missing from the tree (the script draws it)\n"
    committed = path.read_bytes()
    lines = [f"{name}: figure differs ({len(committed):,} bytes committed, "
             f"{len(expected):,} regenerated)"]
    try:
        import io

        import numpy as np
        from PIL import Image

        old = np.asarray(Image.open(io.BytesIO(committed)).convert("RGBA"))
        new = np.asarray(Image.open(io.BytesIO(expected)).convert("RGBA"))
        if old.shape != new.shape:
            lines.append(
                f"  size {old.shape[1]}x{old.shape[0]} committed, "
                f"{new.shape[1]}x{new.shape[0]} regenerated"
            )
        else:
            changed = np.any(old != new, axis=-1)
            count = int(changed.sum())
            if count:
                rows, cols = np.nonzero(changed)
                lines.append(
                    f"  {count:,} of {changed.size:,} pixels differ "
                    f"({100 * count / changed.size:.2f} %), within x {cols.min()}-{cols.max()}, "
                    f"y {rows.min()}-{rows.max()}"
                )
            else:
                lines.append("  same pixels, different encoding or metadata")
    except Exception as error:  # a committed file that is not a PNG at all
        lines.append(f"  committed file is not a readable PNG ({error})")
    return "\n".join(lines) + "\n"


def differences(files: dict[Path, bytes], scripts: list[str]) -> list[str]:
    reports = []
    for path, data in sorted(files.items()):
        if path.is_file() and path.read_bytes() == data:
            continue
        if path.suffix == ".png":
            reports.append(figure_diff(path, data))
        else:
            reports.append(text_diff(path, data) or f"{relative(path)}: differs\n")
    expected = {path for path in files if path.parent == FIG_DIR}
    for stray in sorted(FIG_DIR.glob("*.png")):
        if stray not in expected:
            reports.append(f"{relative(stray)}: no chapter script draws this figure\n")
    wanted_outputs = {output_path(s) for s in scripts} | {stamp_path(s) for s in scripts}
    wanted_outputs |= {notebook_stamp_path(target) for target in notebook_targets().values()}
    for stray in sorted([*OUTPUT_DIR.glob("*.txt"), *STAMP_DIR.glob("*.json")]):
        if stray not in wanted_outputs:
            reports.append(f"{relative(stray)}: no chapter script of that name\n")
    return reports


# --------------------------------------------------------------------------- notebooks


def notebook_targets() -> dict[Path, Path]:
    """Notebook sources (jupytext py:percent) -> the executed notebooks the site renders:
    `notebooks/gpt2_under_the_hood.py` -> `docs/notebooks/gpt2-under-the-hood.ipynb`."""
    return {
        source: NOTEBOOK_TARGET_DIR / f"{source.stem.replace('_', '-')}.ipynb"
        for source in sorted(NOTEBOOK_SOURCE_DIR.glob("*.py"))
    }


def notebook_stamp_path(target: Path) -> Path:
    return STAMP_DIR / f"notebook-{target.stem}.json"


def notebook_inputs(source: Path) -> list[str]:
    """Everything an execution of the notebook reads from the repository."""
    inputs = [relative(source)]
    for entry in NOTEBOOK_CODE:
        path = REPO_ROOT / entry
        files = sorted(path.rglob("*.py")) if path.is_dir() else [path] if path.is_file() else []
        inputs += [relative(f) for f in files if "__pycache__" not in f.parts]
    inputs += [relative(page) for page in markdown_pages()]
    return inputs


def render_notebook_stamp(source: Path, notebook: bytes) -> str:
    from explainer_tools.notebooks import comparable_text

    return render_stamp(
        relative(source),
        notebook_inputs(source),
        comparable_text(notebook),  # the stamp's "output": what check compares
        {},
    )


def notebook_is_fresh(source: Path, target: Path) -> bool:
    stamp = notebook_stamp_path(target)
    if not stamp.is_file() or not target.is_file():
        return False
    return stamp.read_text(encoding="utf-8") == render_notebook_stamp(source, target.read_bytes())


def execute_notebooks(force: bool) -> list[Path]:
    """Execute stale notebooks, then write each with its stamp; return the files written."""
    written = []
    for source, target in notebook_targets().items():
        if not force and notebook_is_fresh(source, target):
            continue
        from explainer_tools.notebooks import execute_notebook

        print(f"regenerate: executing {relative(source)} (about 90 s)", flush=True)
        try:
            notebook = execute_notebook(source)
        except Exception as error:
            raise PipelineError(
                f"regenerate: {relative(source)} failed; {relative(target)} left as it was.\n"
                f"{error}"
            ) from None
        stamp = render_notebook_stamp(source, notebook).encode("utf-8")
        written += apply({target: notebook, notebook_stamp_path(target): stamp})
    return written


def notebook_differences() -> list[str]:
    """Re-execute every notebook in memory and report drift from the committed copies."""
    targets = notebook_targets()
    if not targets:
        return []
    from explainer_tools.notebooks import NotebookError, diff_notebooks, execute_notebook

    reports = []
    unavailable = cpu_paths.pinned_paths_unavailable()  # '' on x86-64 with AVX2
    for source, target in targets.items():
        if not target.is_file():
            reports.append(f"{relative(target)}: missing; run `make regenerate`\n")
            continue
        try:
            fresh = execute_notebook(source)
        except NotebookError as error:
            reports.append(f"{relative(target)}: {error}\n")
            continue
        if unavailable:  # an ARM laptop: it ran and its claims hold; outputs not comparable
            print(cpu_paths.not_compared_message(relative(target), unavailable))
            continue
        diff = diff_notebooks(target.read_bytes(), fresh, relative(target))
        if diff:
            reports.append(diff + f"{relative(target)}: differs from a fresh execution\n")
        stamp = notebook_stamp_path(target)
        expected = render_notebook_stamp(source, fresh).encode("utf-8")
        if not stamp.is_file() or stamp.read_bytes() != expected:
            reports.append(text_diff(stamp, expected) or f"{relative(stamp)}: differs\n")
    return reports


# --------------------------------------------------------------------------- entry points


def regenerate(jobs: int, force: bool = False, notebooks: bool = True) -> int:
    scripts = discover_scripts()
    to_run = [s for s in scripts if force or not is_fresh(s)]
    result = plan(scripts, to_run, jobs)
    written = apply(result.files)
    for path in result.remove:
        path.unlink()
        print(f"  removed {relative(path)} (its script no longer draws it)")
    if notebooks:
        written += execute_notebooks(force)
    ran = ", ".join(result.ran) if result.ran else "none (all fresh)"
    print(f"regenerate: ran {ran}; {len(written)} file(s) written")
    for path in written:
        print(f"  wrote {relative(path)}")
    return 0


def check(jobs: int, notebooks: bool = True) -> int:
    scripts = discover_scripts()
    result = plan(scripts, scripts, jobs)
    reports = differences(result.files, scripts)
    if notebooks:
        reports += notebook_differences()
    for report in reports:
        sys.stdout.write(report if report.endswith("\n") else report + "\n")
    if reports:
        print(
            f"check: {len(reports)} difference(s) between the committed files and a fresh "
            "regeneration; run `make regenerate` and commit the result."
        )
        return 1
    notebook_count = len(notebook_targets()) if notebooks else 0
    print(
        f"check: {len(scripts)} script(s), {notebook_count} notebook(s), "
        f"{len(result.files)} file(s): all up to date"
    )
    return 0
