"""A finished chapter-script run, judged before anything of it reaches the tree: its output
(UTF-8, at most `OUTPUT_CAP_BYTES`, no control character: `normalise_output`, `output_too_long`),
its figures (regular PNG files: `collect_figures`), whether its source or inputs changed while it
ran (`changed_during_run`), and why the run cannot be used (`run_error`: refused writes, limits,
a stopped process, a failure, an exit that skipped the end of the script). Each problem is one
message naming the script (and the line, the file). And how a product differs from the committed
file (`text_diff`, `figure_diff`). Used by pipeline.py.
"""

from __future__ import annotations

import contextlib
import difflib
import os
import re
import time
from pathlib import Path

from explainer_tools.layout import Layout, sha256
from explainer_tools.scripts import containment, numerics, runner
from explainer_tools.scripts.settings import (
    OUTPUT_CAP_BYTES,
    script_cpu_limit,
    script_memory_limit,
    script_timeout,
)
from explainer_tools.tree_io import CommandError, kind_of, read_regular

# Characters an output may not hold: they would reach the pages and the terminal as control
# codes (NUL, ANSI escape sequences, C1 controls) or reorder what a reader sees (bidirectional
# embeddings, overrides and isolates).
FORBIDDEN_IN_OUTPUT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def normalise_output(data: bytes, script: str) -> str:
    """Script output as text, the same way for regenerate and check: UTF-8 (else an error naming
    the script), line endings "\\r\\n" and "\\r" made "\\n", no control character but tab and
    line feed and no bidirectional control (else an error naming the script and the line)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise CommandError(
            f"explainer_code/{script}: its output is not UTF-8 (line {line}, byte "
            f"{error.start}: {data[error.start:error.start + 1]!r}); print text, not bytes"
        ) from None
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    bad = FORBIDDEN_IN_OUTPUT.search(text)
    if bad:
        line = text.count("\n", 0, bad.start()) + 1
        raise CommandError(
            f"explainer_code/{script}: its output holds the control character "
            f"U+{ord(bad.group()):04X} on line {line} (NUL, terminal escapes and bidirectional "
            "controls are refused); print plain text")
    return text


def limits() -> tuple[float, float]:
    """(wall-clock backstop, CPU-time limit) in seconds; a malformed setting (of those or of
    the memory limit or the sandbox) is an error."""
    try:
        script_memory_limit()
        containment.sandbox_setting()
        return script_timeout(), script_cpu_limit()
    except ValueError as error:
        raise CommandError(f"regenerate: {error}") from None


def sandboxed() -> bool:
    """Whether the scripts run in the kernel's sandbox (an error where it is required and
    cannot be had)."""
    try:
        return containment.sandbox_status()
    except (RuntimeError, ValueError) as error:
        raise CommandError(f"regenerate: {error}") from None


PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def collect_figures(fig_dir: Path, script: str) -> dict[str, bytes]:
    """The PNG figures a script left in its figure folder, by name. Its entries must be regular
    files (a link would copy what it points to into the book, a FIFO would block the reader),
    and a `.png` must be a PNG: anything else is an error naming the script and the file."""
    figures, errors = {}, []
    for entry in sorted(os.scandir(fig_dir), key=lambda e: e.name):
        mode = entry.stat(follow_symlinks=False).st_mode
        where = f"explainer_code/{script}: figure folder entry {entry.name!r}"
        if not (entry.is_file(follow_symlinks=False) or entry.is_dir(follow_symlinks=False)):
            errors.append(f"{where} is {kind_of(mode)}; a figure is a regular PNG file")
            continue
        if not entry.name.endswith(".png") or entry.is_dir(follow_symlinks=False):
            continue
        data = read_regular(Path(entry.path), where)
        if not data.startswith(PNG_MAGIC):
            errors.append(f"{where} is not a PNG (it starts {data[:8]!r}); save figures with "
                          "script_io.save_figure")
            continue
        figures[entry.name] = data
    if errors:
        raise CommandError("\n".join(errors))
    return figures


def changed_during_run(script: str, source_hash: str, inputs: list[str], began_ns: int,
                       layout: Layout) -> str:
    """Why a finished run cannot be stamped because its source or an input changed while it
    ran (a stamp would pair the new files with the old output); empty when nothing did."""
    name = f"explainer_code/{script}"
    try:
        now = sha256(read_regular(layout.code_dir / script, name))
    except (OSError, CommandError):
        now = ""
    if now != source_hash:
        return (f"{name} changed while it ran; its output is of the old source, so nothing was "
                "written and no stamp either: run regenerate again\n")
    moved, ended_ns = [], time.time_ns()  # a time stamp after now: a skewed clock, not an edit
    for relative in inputs:
        with contextlib.suppress(OSError):
            if began_ns < (layout.root / relative.rstrip("/")).stat().st_mtime_ns <= ended_ns:
                moved.append(relative)
    if moved:
        return (f"{name}: its inputs {', '.join(moved)} changed while it ran; nothing was "
                "written and no stamp either: run regenerate again\n")
    return ""


def output_too_long(script: str, result: runner.Result) -> str:
    """The error for an output over the cap (the runner's file-size limit stops the script a
    byte after it), else empty."""
    if len(result.stdout) <= OUTPUT_CAP_BYTES:
        return ""
    return (f"explainer_code/{script} printed more than {OUTPUT_CAP_BYTES:,} bytes (the limit of "
            "an output; the write past it failed); nothing was written. Print less.\n")


def run_error(script: str, request: runner.Request, result: runner.Result) -> str:
    """Why a run cannot be used (empty when it can): refused writes, limits, failure, an exit
    that skipped the end of the script."""
    name = f"explainer_code/{script}"
    if result.refused:
        paths = "\n  ".join(result.refused)
        return (f"{name} tried to write outside its figure and temporary folders (or to signal "
                f"a process it did not start); this was refused and nothing was written:\n  "
                f"{paths}\nA chapter script prints its output and saves figures with "
                "script_io.save_figure; nothing else.\n")
    if result.cpu_exceeded:
        return (f"{name} used more than {request.cpu_limit:g} s of CPU time and was killed "
                "(with everything it started); nothing was written. Raise the limit with "
                "EXPLAINER_SCRIPT_CPU_LIMIT=SECONDS if the script is meant to compute longer.\n"
                + _tail(result.stdout, "its output before the limit"))
    if result.timed_out:
        return (f"{name} timed out after {request.timeout:g} s of wall-clock time and was "
                "killed (with everything it started); nothing was written. Raise the limit "
                "with EXPLAINER_SCRIPT_TIMEOUT=SECONDS if the script is meant to wait longer.\n"
                + _tail(result.stdout, "its output before the timeout"))
    if result.stopped:
        return (f"{name}: a process of its run was stopped (SIGSTOP) and never resumed; it was "
                "killed with everything it started, and nothing was written.\n"
                + result.stderr.decode("utf-8", "replace"))
    if result.returncode != 0 and result.process_limit:
        return (f"{name} failed (exit {result.returncode}) after a fork was refused at its limit "
                f"of {result.process_limit} processes and threads; nothing was written. A "
                "chapter script needs a few, not hundreds.\n"
                + result.stderr.decode("utf-8", "replace"))
    if result.returncode != 0 and b"MemoryError" in result.stderr:
        return (f"{name} failed (exit {result.returncode}) with a MemoryError: a script may hold "
                f"{script_memory_limit() / 1e9:g} GB of writable memory; nothing was written. "
                "Raise the limit with EXPLAINER_SCRIPT_MEMORY_GB=GB if the script needs more.\n"
                + result.stderr.decode("utf-8", "replace")
                + _tail(result.stdout, "its output before the failure"))
    if result.returncode != 0:
        return (f"{name} failed (exit {result.returncode}); nothing was written.\n"
                + result.stderr.decode("utf-8", "replace")
                + _tail(result.stdout, "its output before the failure"))
    if result.unfinished:
        return (f"{name} exited without returning (os._exit, or a kill), so the runner could "
                "not record what it read and no stamp can be written; nothing was written. "
                "End the script by returning from it (or sys.exit).\n")
    return ""


def _tail(stdout: bytes, title: str) -> str:
    return f"--- {title} ---\n" + stdout.decode("utf-8", "replace") if stdout else ""


def text_diff(path: Path, expected: bytes, layout: Layout) -> str:
    committed = path.read_bytes().decode("utf-8", "replace") if path.is_file() else ""
    name = layout.relative(path)
    return "".join(
        difflib.unified_diff(
            committed.splitlines(keepends=True),
            expected.decode("utf-8", "replace").splitlines(keepends=True),
            fromfile=f"{name} (committed)",
            tofile=f"{name} (regenerated)",
        )
    )


def figure_diff(path: Path, expected: bytes, layout: Layout) -> str:
    """Say how a committed PNG differs from the regenerated one."""
    name = layout.relative(path)
    if not path.is_file():
        return f"{name}: figure missing from the tree (the script draws it)\n"
    committed = path.read_bytes()
    return (f"{name}: figure differs ({len(committed):,} bytes committed, {len(expected):,} "
            f"regenerated)\n  {numerics.pixel_difference(committed, expected)}\n")
