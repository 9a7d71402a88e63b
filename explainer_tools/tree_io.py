"""The working tree, from the pipeline's side: guarded while scripts run (`TreeGuard`), written
only after a check that every folder is writable (`preflight`), each file atomically (`apply`).
A failure of either is a `PipelineError`, whose message is printed as is.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

from explainer_tools.layout import Layout, write_atomic


class PipelineError(Exception):
    """A failure that stops the pipeline; its message is printed as is."""


UNGUARDED = {".git", ".venv", "site", ".cache", "build", ".pytest_cache", ".ruff_cache"}


def tree_contents(root: Path) -> dict[str, bytes]:
    """Every file of the working tree (bytes by relative path), outside UNGUARDED folders."""
    found: dict[str, bytes] = {}
    for folder, names, files in os.walk(root):
        names[:] = sorted(n for n in names if not (Path(folder) == root and n in UNGUARDED))
        for name in files:
            path = Path(folder) / name
            with contextlib.suppress(OSError):
                found[path.relative_to(root).as_posix()] = path.read_bytes()
    return found


class TreeGuard:
    """Around the scripts' run: the runner refuses their writes outside their scratch folders,
    but not those of programs they start; so the tree is read before and after. In check mode
    (`restore`) any file created, changed or deleted meanwhile is put back as it was (what was
    written is kept outside the tree) and the check fails; regenerate, during which an author
    may be editing pages, only names the files that changed."""

    def __init__(self, root: Path, restore: bool = True) -> None:
        self.root = root
        self.restore = restore
        self.before: dict[str, bytes] = {}

    def __enter__(self) -> TreeGuard:
        self.before = tree_contents(self.root)
        return self

    def __exit__(self, kind: object, error: object, trace: object) -> None:
        after = tree_contents(self.root)
        changed = sorted(p for p in {*self.before, *after} if self.before.get(p) != after.get(p))
        if not changed:
            return
        if not self.restore:
            print("regenerate: note: these files changed while the chapter scripts ran; if you "
                  "did not edit them, a script (or a program it started) did:\n  "
                  + "\n  ".join(changed), file=sys.stderr)
            return
        displaced = Path(tempfile.mkdtemp(prefix="explainer-displaced-"))
        lines = []
        for name in changed:
            path = self.root / name
            if name in after:  # keep what was written, outside the tree: nothing is lost
                write_atomic(displaced / name, after[name])
            if name in self.before:
                write_atomic(path, self.before[name])
                lines.append(f"{name} ({'changed' if name in after else 'deleted'}; restored)")
            else:
                path.unlink(missing_ok=True)
                lines.append(f"{name} (created; removed)")
        earlier = f"{error}\n" if isinstance(error, PipelineError) else ""
        raise PipelineError(
            f"{earlier}regenerate: while the chapter scripts ran, files of the tree changed "
            "outside the pipeline (a script, or a program it started, wrote them); they are "
            f"back as they were (what was written is kept in {displaced}):\n  "
            + "\n  ".join(lines))


def preflight(paths: Iterable[Path], layout: Layout) -> None:
    """Fail before writing anything when a file to write or remove cannot be written: each
    folder gets a trial file (which also catches read-only mounts, where root can't write)."""
    problems = []
    for folder in sorted({path.parent for path in paths}):
        probe = folder
        while not probe.exists():
            probe = probe.parent
        try:
            with tempfile.NamedTemporaryFile(dir=probe, prefix=".write-check-"):
                pass
        except OSError as error:
            problems.append(f"{layout.relative(folder)}/: cannot write there ({error.strerror})")
    if problems:
        raise PipelineError(
            "regenerate: nothing was written, because these folders are not writable:\n  "
            + "\n  ".join(problems)
            + "\nMake them writable (e.g. chmod u+w) and run `make regenerate` again."
        )


def apply(files: dict[Path, bytes], layout: Layout, remove: Iterable[Path] = ()) -> list[Path]:
    """Write every file whose bytes differ from what is on disk, then remove `remove`; return
    the paths written (messages name them relative to the layout's root). A failure mid-way
    names what was already written and how to recover."""
    changed = {p: d for p, d in sorted(files.items())
               if not (p.is_file() and p.read_bytes() == d)}
    remove = [p for p in remove if p.is_file()]
    preflight([*changed, *remove], layout)
    written: list[Path] = []
    try:
        for path, data in changed.items():
            write_atomic(path, data)
            written.append(path)
        for path in remove:
            path.unlink()
    except OSError as error:
        done = "\n  ".join(layout.relative(p) for p in written) or "(none)"
        raise PipelineError(
            f"regenerate: writing {layout.relative(Path(error.filename or '?'))} failed "
            f"({error}).\n"
            f"Already written (each file complete, as regenerated):\n  {done}\n"
            "The tree is consistent file by file but not as a whole: fix the cause and run "
            "`make regenerate` again (it rewrites what is still stale), or restore the "
            "committed state with `git checkout -- outputs docs`."
        ) from None
    return written
