"""The working tree as the pipeline (and the claim check) reads it: read only as regular files
(`read_regular`: no FIFO, socket or link can block or redirect a read), watched while
unsandboxed scripts run (`TreeGuard`: it names what changed, and never writes), held by one
regenerate or check at a time (`pipeline_lock`), written only after a check that every folder
is writable (`preflight`), each file atomically (`apply`). A failure of any is a
`CommandError`, whose message is printed as is.
"""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

from explainer_tools.layout import CACHE_DIR, Layout, write_atomic


class CommandError(Exception):
    """A failure that stops the command that met it (regenerate, check; for the claim check, a
    file it cannot read: an error of that page); its message is printed as is."""


UNGUARDED = {".git", ".venv", "site", ".cache", "build", ".pytest_cache", ".ruff_cache"}


def kind_of(mode: int) -> str:
    """What a file that is not a regular file is, in words."""
    for test, name in ((stat.S_ISLNK, "a symbolic link"), (stat.S_ISFIFO, "a FIFO"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a folder"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device")):
        if test(mode):
            return name
    return "not a regular file"


def read_regular(path: Path, name: str | None = None) -> bytes:
    """The bytes of `path`, which must be a regular file: a link is not followed, and a FIFO,
    socket or device is refused without waiting on it (a CommandError naming `name`, else
    the path). A missing file raises FileNotFoundError."""
    shown = name or str(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as error:
        if isinstance(error, FileNotFoundError):
            raise
        try:
            kind = kind_of(os.lstat(path).st_mode)
        except OSError:
            kind = error.strerror or "unreadable"
        raise CommandError(f"{shown}: {kind}; the pipeline reads only regular files "
                            "(remove it, or replace it with the file itself)") from None
    with os.fdopen(fd, "rb") as handle:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise CommandError(f"{shown}: {kind_of(mode)}; the pipeline reads only regular "
                                "files (remove it, or replace it with the file itself)")
        return handle.read()


# The folders whose files the pipeline and the checks after it read.
READ_FOLDERS = ("docs", "explainer_code", "outputs", "notebooks")


def irregular_files(root: Path, folders: Iterable[str] = READ_FOLDERS) -> list[str]:
    """Entries under `folders` of `root` that are neither regular files nor folders (links,
    FIFOs, sockets, devices): "path: kind" each, sorted. A reader would follow a link out of
    the tree, or block on a FIFO for ever; the pipeline refuses the tree instead."""
    found = []
    stack = [root / folder for folder in folders]
    while stack:
        folder = stack.pop()
        try:
            entries = list(os.scandir(folder))
        except (FileNotFoundError, NotADirectoryError):
            continue
        for entry in entries:
            if entry.is_dir(follow_symlinks=False):
                stack.append(Path(entry.path))
            elif not entry.is_file(follow_symlinks=False):
                mode = entry.stat(follow_symlinks=False).st_mode
                found.append(f"{Path(entry.path).relative_to(root).as_posix()}: {kind_of(mode)}")
    return sorted(found)


class IrregularFiles(CommandError):
    """The tree holds links, FIFOs or sockets where the pipeline reads: nothing else runs."""


def refuse_irregular_files(root: Path, command: str) -> None:
    found = irregular_files(root)
    if found:
        raise IrregularFiles(
            f"{command}: the pipeline reads only regular files, and these are not (a link could "
            "carry a read out of the tree, a FIFO would block it); nothing was run or written. "
            "Remove them, or replace each with the file itself:\n  " + "\n  ".join(found))


def tree_contents(root: Path) -> dict[str, bytes]:
    """Every regular file of the working tree (bytes by relative path), outside UNGUARDED
    folders; links, FIFOs and sockets are recorded by kind, never opened."""
    found: dict[str, bytes] = {}
    for folder, names, files in os.walk(root):
        names[:] = sorted(n for n in names if not (Path(folder) == root and n in UNGUARDED))
        for name in files:
            path = Path(folder) / name
            relative = path.relative_to(root).as_posix()
            try:
                found[relative] = read_regular(path)
            except CommandError:
                found[relative] = f"<{kind_of(os.lstat(path).st_mode)}>".encode()
            except OSError:
                continue
    return found


class TreeGuard:
    """Around a run of code that the kernel does not contain (scripts outside the sandbox, the
    notebooks): the tree is read before and after, and every file created, changed or deleted
    meanwhile is named. It never writes: an author may be editing pages at the same time.
    `failing` (check): the names are an error; else (regenerate) a note on stderr."""

    def __init__(self, root: Path, failing: bool = True) -> None:
        self.root = root
        self.failing = failing
        self.before: dict[str, bytes] = {}

    def __enter__(self) -> TreeGuard:
        self.before = tree_contents(self.root)
        return self

    def __exit__(self, kind: object, error: object, trace: object) -> None:
        after = tree_contents(self.root)
        changed = sorted(p for p in {*self.before, *after} if self.before.get(p) != after.get(p))
        if not changed:
            return
        lines = [f"{name} ({how})" for name in changed for how in [
            "created" if name not in self.before else "deleted" if name not in after
            else "changed"]]
        if not self.failing:
            print("regenerate: note: these files changed while the chapter scripts ran; if you "
                  "did not edit them, a script (or a program it started) did:\n  "
                  + "\n  ".join(lines), file=sys.stderr)
            return
        earlier = f"{error}\n" if isinstance(error, CommandError) else ""
        raise CommandError(
            f"{earlier}check: files of the tree changed while it ran (you, or a program a script "
            "started, wrote them; nothing was put back, and the comparison may be of a tree in "
            "between): run check again\n  " + "\n  ".join(lines))


LOCK_NAME = (CACHE_DIR / "pipeline.lock").as_posix()  # in the ignored cache folder


@contextlib.contextmanager
def pipeline_lock(layout: Layout, command: str) -> Iterator[None]:
    """One regenerate or check at a time in a repository (fcntl.flock on LOCK_NAME, released
    by the kernel when the holder ends, however it ends): the second says which run holds the
    lock and waits for it. The holder's name is in the file while it runs, empty after."""
    import fcntl

    path = layout.root / LOCK_NAME
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.pread(fd, 300, 0).decode("utf-8", "replace").strip() or "another run"
            print(f"{command}: waiting for {holder} to finish (it holds {LOCK_NAME})",
                  file=sys.stderr, flush=True)
            fcntl.flock(fd, fcntl.LOCK_EX)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{command} (pid {os.getpid()}, started {time.strftime('%H:%M:%S')})"
                  .encode(), 0)
        try:
            yield
        finally:
            os.ftruncate(fd, 0)
    finally:
        os.close(fd)


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
        raise CommandError(
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
        raise CommandError(
            f"regenerate: writing {layout.relative(Path(error.filename or '?'))} failed "
            f"({error}).\n"
            f"Already written (each file complete, as regenerated):\n  {done}\n"
            "The tree is consistent file by file but not as a whole: fix the cause and run "
            "`make regenerate` again (it rewrites what is still stale), or restore the "
            "committed state with `git checkout -- outputs docs`."
        ) from None
    return written
