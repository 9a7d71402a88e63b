"""Containment of a chapter script, from inside its own process: an audit hook refuses every
write outside the folders it may write to (`Containment`), and tells reads from writes
(`is_read`). Used by the runner's child (runner.py); it has no state of its own.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Sequence
from pathlib import Path

WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


def is_read(mode: object, flags: object) -> bool:
    if isinstance(mode, str):
        return not any(ch in mode for ch in "wax+")
    return isinstance(flags, int) and not flags & WRITE_FLAGS


# Events that change the file system, and the positions of the paths they change.
WRITE_EVENTS: dict[str, tuple[int, ...]] = {
    "os.rename": (0, 1), "os.remove": (0,), "os.rmdir": (0,), "os.mkdir": (0,),
    "os.truncate": (0,), "os.chmod": (0,), "os.chown": (0,), "os.symlink": (1,),
    "os.link": (1,), "os.utime": (0,), "shutil.rmtree": (0,), "shutil.copyfile": (1,),
    "shutil.copytree": (1,), "shutil.move": (0, 1), "shutil.make_archive": (0,),
}
DIR_FD_ARG = {"os.remove": 1, "os.rmdir": 1, "os.mkdir": 2, "os.chmod": 2, "os.symlink": 2,
              "os.utime": 3, "shutil.rmtree": 1}


def library_caches() -> list[Path]:
    """Caches outside the repository that libraries may fill during a run (Matplotlib's font
    list, when it is missing), the only writes allowed outside the script's own folders."""
    configured = os.environ.get("MPLCONFIGDIR")
    if configured:
        return [Path(configured).resolve()]
    try:
        cache = Path(os.environ.get("XDG_CACHE_HOME") or Path("~/.cache").expanduser())
    except RuntimeError:  # no home folder: no cache to allow
        return []
    return [(cache / "matplotlib").resolve()]


def _target(path: object, dir_fd: object) -> Path | None:
    if isinstance(path, int) or not isinstance(path, str | bytes | os.PathLike):
        return None  # an open file descriptor: its opening was checked
    name = Path(os.fsdecode(path))
    if isinstance(dir_fd, int) and not name.is_absolute():
        with contextlib.suppress(OSError):
            name = Path(f"/proc/self/fd/{dir_fd}").readlink() / name
    return name.resolve()


class Containment:
    """Refuses, from an audit hook, every write of the script outside its writable folders
    (its figure folder and temporary folder, from the pipeline), and logs each refusal to a
    file the parent reads, even when the script catches the error or ends with os._exit."""

    def __init__(self, writable: Sequence[str], script: str, log_fd: int) -> None:
        self.roots = [*(Path(p).resolve() for p in writable), *library_caches()]
        self.log_fd = log_fd
        self.script = script  # its file name, for messages
        self.active = True

    def allowed(self, target: Path) -> bool:
        return str(target) == os.devnull or any(target.is_relative_to(r) for r in self.roots)

    def check(self, event: str, args: tuple[object, ...]) -> None:
        if not self.active:
            return
        if event == "open":
            if len(args) < 3 or is_read(args[1], args[2]):
                return
            targets = [_target(args[0], None)]
        elif event in WRITE_EVENTS:
            dir_fd = args[DIR_FD_ARG[event]] if event in DIR_FD_ARG and len(args) > DIR_FD_ARG[
                event] else None
            targets = [_target(args[i], dir_fd) for i in WRITE_EVENTS[event] if i < len(args)]
        else:
            return
        for target in targets:
            if target is not None and not self.allowed(target):
                os.write(self.log_fd, f"{event} {target}\n".encode("utf-8", "replace"))
                raise PermissionError(
                    errno.EACCES,
                    f"{self.script} may write only into its figure and temporary folders "
                    f"(refused by the pipeline: {event})", str(target))
