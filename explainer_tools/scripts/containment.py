"""Containment of a chapter script, in two layers.

By the kernel: where bubblewrap (`bwrap`) is installed and the kernel lets it make namespaces,
each script runs -- in a child of the runner's warm parent that contains itself (zygote.py), or
else in bwrap (`sandbox_command`) -- in a mount namespace where the whole file system is
read-only except its figure folder, its temporary folder, the runner's files for it and
Matplotlib's folders (`writable_paths`), in a PID namespace of its own (it cannot see or signal
the pipeline, and everything it starts ends with it), without network, capabilities or
controlling terminal. `sandbox_status` says once whether this machine can; where it cannot, the
pipeline says so in one line and falls back to the layer below alone
(`EXPLAINER_SANDBOX=required` makes that an error, `off` asks for it).

From inside its own process, in both cases: an audit hook refuses every Python write outside
the folders it may write to (`Containment`: an error naming the script even where the kernel
refuses too), tells reads from writes (`is_read`) and inputs from the rest (`repo_relative`);
`apply_limits` sets its resource limits (memory, file size, open files, and, in the sandbox of a
user other than root, processes). The kernel does not count root's processes against
RLIMIT_NPROC, so a root pipeline puts each sandboxed script in a cgroup of its own whose pids
controller caps its processes and threads (`ProcessCap`) where the machine has one. Used by the
runner (runner.py); no state but a cache of the sandbox probe.
"""

from __future__ import annotations

import contextlib
import errno
import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

try:
    import resource
except ImportError:  # not on Windows
    resource = None  # type: ignore[assignment]

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
    """Folders outside the repository that Matplotlib needs writable (its configuration folder,
    which it creates on import, and its font list cache, when it is missing), the only writes
    allowed outside the script's own folders; `MPLCONFIGDIR` replaces both when set."""
    configured = os.environ.get("MPLCONFIGDIR")
    if configured:
        return [Path(configured).resolve()]
    try:
        home = Path("~").expanduser()
    except RuntimeError:  # no home folder: no cache to allow
        return []
    cache = Path(os.environ.get("XDG_CACHE_HOME") or home / ".cache")
    config = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    return [(cache / "matplotlib").resolve(), (config / "matplotlib").resolve()]


def _target(path: object, dir_fd: object) -> Path | None:
    if isinstance(path, int) or not isinstance(path, str | bytes | os.PathLike):
        return None  # an open file descriptor: its opening was checked
    name = Path(os.fsdecode(path))
    if isinstance(dir_fd, int) and not name.is_absolute():
        with contextlib.suppress(OSError):
            name = Path(f"/proc/self/fd/{dir_fd}").readlink() / name
    return name.resolve()


def _alive(pid: int) -> bool:
    """Whether `pid` is a live process (not a zombie), from /proc; False where unknown."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[:1] not in ([b"Z"], [b"X"])
    except (OSError, IndexError):
        return False


class Containment:
    """Refuses, from an audit hook, every write of the script outside its writable folders
    (its figure folder and temporary folder, from the pipeline), and logs each refusal to a
    file the parent reads, even when the script catches the error or ends with os._exit."""

    def __init__(self, writable: Sequence[str], script: str, log_fd: int,
                 own: Callable[[], set[int]] | None = None) -> None:
        self.roots = [*(Path(p).resolve() for p in writable), *library_caches()]
        self.log_fd = log_fd
        self.script = script  # its file name, for messages
        self.own = own  # the script's process and its descendants: whom it may signal
        self.active = True

    def _signal(self, event: str, args: tuple[object, ...]) -> None:
        """Refuse a signal to a process outside the script's own tree (the runner, the
        pipeline: SIGSTOP would hang them); the kernel's sandbox cannot reach them at all."""
        target, sig = (*args, None, None)[:2]
        if self.own is None or sig == 0 or not isinstance(target, int):
            return
        if event == "os.kill" and target in (0, -os.getpgid(0)):
            return  # its own process group
        pid = abs(target)
        if pid == os.getpgid(0) or not _alive(pid) or pid in self.own():
            return
        os.write(self.log_fd, f"{event} {target} (signal {sig})\n".encode())
        raise PermissionError(errno.EPERM, f"{self.script} may signal only the processes "
                              f"it started (refused by the pipeline: {event} {target})")

    def allowed(self, target: Path) -> bool:
        return str(target) == os.devnull or any(target.is_relative_to(r) for r in self.roots)

    def check(self, event: str, args: tuple[object, ...]) -> None:
        if not self.active:
            return
        if event in ("os.kill", "os.killpg"):
            self._signal(event, args)
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


# --------------------------------------------------------------------------- what is an input

# Parts of a path that make a file no input of a script (products, caches, environments).
EXCLUDED_PARTS = {".venv", "__pycache__", ".git", "outputs", "site", ".cache", "build"}


def repo_relative(path: str | os.PathLike[str] | int, root: Path) -> str | None:
    """The POSIX path relative to `root` (a repository, resolved) of a source file, or None for
    anything else."""
    if isinstance(path, int):
        return None
    try:
        resolved = Path(os.fsdecode(path)).resolve()
    except (OSError, ValueError, TypeError):
        return None
    if not resolved.is_relative_to(root) or not resolved.is_file():
        return None
    relative = resolved.relative_to(root)
    if EXCLUDED_PARTS.intersection(relative.parts) or relative.parts[:3] == (
        "docs",
        "assets",
        "fig",
    ):
        return None
    return relative.as_posix()


def repo_relative_dir(path: object, root: Path) -> str | None:
    """The POSIX path relative to `root` of a source folder (for listings), or None."""
    if not isinstance(path, str | bytes | os.PathLike):
        return None
    try:
        resolved = Path(os.fsdecode(path) or ".").resolve()
    except (OSError, ValueError, TypeError):
        return None
    if not resolved.is_relative_to(root) or not resolved.is_dir() or resolved == root:
        return None
    relative = resolved.relative_to(root)
    if EXCLUDED_PARTS.intersection(relative.parts) or relative.parts[:3] == (
            "docs", "assets", "fig") or "site-packages" in relative.parts:
        return None
    return relative.as_posix()


# --------------------------------------------------------------------------- resource limits


def apply_limits(memory: int, file_size: int, open_files: int, processes: int = 0) -> None:
    """Limit this process (the script's) and what it starts: writable memory in bytes
    (RLIMIT_DATA, heap and anonymous mappings: a larger allocation fails, in Python with a
    MemoryError), the size of every file it writes (RLIMIT_FSIZE: a larger write fails with
    "File too large"), open files, and, if `processes`, its processes and threads (RLIMIT_NPROC:
    a fork past it fails; set only inside the sandbox's own user namespace, where the kernel
    counts the script's tasks alone, not all of its user's). settings.py holds the values."""
    if resource is None:
        return
    import signal

    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # an error in the script, not a kill
    limits = [(resource.RLIMIT_DATA, memory), (resource.RLIMIT_FSIZE, file_size),
              (resource.RLIMIT_NOFILE, open_files)]
    if processes and _own_user_namespace():
        limits.append((resource.RLIMIT_NPROC, processes))
    for kind, value in limits:
        _soft, hard = resource.getrlimit(kind)
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(kind, (value, value))


def _own_user_namespace() -> bool:
    """Whether this process is in a user namespace below the machine's first (whose uid map is
    the identity over every uid): there RLIMIT_NPROC counts this namespace's tasks only."""
    try:
        return Path("/proc/self/uid_map").read_text(encoding="ascii").split() != [
            "0", "0", "4294967295"]
    except OSError:
        return False


class ProcessCap:
    """A cgroup of its own for one script, whose pids controller lets it and what it starts have
    at most `limit` processes and threads together: a fork past it fails (EAGAIN). For a root
    pipeline, whose scripts RLIMIT_NPROC cannot limit. `ProcessCap.make` returns None where the
    machine has no pids controller this process may write to (no root, or a cgroup v2 tree that
    does not delegate it); `join` runs in the child before exec; `close` removes the cgroup
    once its processes are gone and tells whether the cap was reached."""

    def __init__(self, folder: Path, limit: int) -> None:
        self.folder, self.limit = folder, limit

    @classmethod
    def make(cls, name: str, limit: int) -> ProcessCap | None:
        parent = _pids_hierarchy()
        if parent is None:
            return None
        folder = parent / name
        try:
            folder.mkdir()
            (folder / "pids.max").write_text(f"{limit}\n", encoding="ascii")
        except OSError:
            with contextlib.suppress(OSError):
                folder.rmdir()
            return None
        return cls(folder, limit)

    def join(self) -> None:  # in the child between fork and exec: no allocation worth naming
        fd = os.open(self.folder / "cgroup.procs", os.O_WRONLY)
        try:
            os.write(fd, b"0")  # "0": the writing process itself
        finally:
            os.close(fd)

    def close(self) -> bool:
        """Remove the cgroup (its processes are ended first by the caller); True if a fork was
        refused at the cap."""
        try:
            events = (self.folder / "pids.events").read_text(encoding="ascii")
        except OSError:
            events = ""
        reached = any(line.split()[:1] == ["max"] and line.split()[1:2] != ["0"]
                      for line in events.splitlines())
        for _ in range(100):  # the last processes may still be leaving
            try:
                self.folder.rmdir()
                break
            except FileNotFoundError:
                break
            except OSError:
                import time

                time.sleep(0.01)
        return reached


def _pids_hierarchy() -> Path | None:
    """The cgroup folder, this process's own, under which a child cgroup with a pids controller
    can be made: in cgroup v1 the hierarchy mounted with the pids controller, in v2 the unified
    one where this cgroup already offers pids to its children. None elsewhere, and for a user
    other than root (whose processes RLIMIT_NPROC limits instead)."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        return None
    try:
        mounts = Path("/proc/self/mountinfo").read_text(encoding="utf-8").splitlines()
        own = Path("/proc/self/cgroup").read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    v1 = v2 = None
    for line in mounts:
        fields = line.split()
        if "-" not in fields:
            continue
        tail = fields[fields.index("-") + 1:]
        if tail[:1] == ["cgroup"] and "pids" in tail[2].split(",") and v1 is None:
            v1 = Path(fields[4])
        elif tail[:1] == ["cgroup2"] and v2 is None:
            v2 = Path(fields[4])
    for line in own:
        number, controllers, path = line.split(":", 2)
        relative = path.lstrip("/")
        if v1 is not None and "pids" in controllers.split(","):
            return v1 / relative
        if v2 is not None and number == "0" and controllers == "":
            folder = v2 / relative
            with contextlib.suppress(OSError):
                if "pids" in (folder / "cgroup.subtree_control").read_text().split():
                    return folder
    return None


# --------------------------------------------------------------------------- the kernel's layer

BWRAP = "bwrap"
# How scripts are contained: "auto" (unset: the kernel's sandbox where it works, else the audit
# hooks alone, said in one line), "required" (CI: the fallback is an error), "off" (the hooks).
SANDBOX_ENV = "EXPLAINER_SANDBOX"
# Every sandbox: the file system read-only, fresh /dev and /proc, its own PID and network
# namespaces, a new session (no terminal to push input into), no capabilities (even as root: it
# cannot remount anything writable), killed if the pipeline dies.
BWRAP_FLAGS = ("--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-pid",
               "--unshare-net", "--unshare-ipc", "--die-with-parent", "--new-session",
               "--cap-drop", "ALL")


def sandbox_setting() -> str:
    """`$EXPLAINER_SANDBOX`: "auto" (unset), "required" or "off"; anything else is an error."""
    value = os.environ.get(SANDBOX_ENV, "").strip().lower() or "auto"
    if value not in ("auto", "required", "off"):
        raise ValueError(f"{SANDBOX_ENV}={value!r}: expected required, off, or unset (auto)")
    return value


@functools.cache
def _probe() -> str:
    """Why the kernel's layer cannot be used here ('' when it can): bwrap missing, or the
    kernel refusing its namespaces (no unprivileged user namespaces)."""
    found = shutil.which(BWRAP)
    if found is None:
        return "bubblewrap (bwrap) is not installed"
    try:
        done = subprocess.run([found, *BWRAP_FLAGS, "--", "true"], stdin=subprocess.DEVNULL,
                              capture_output=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"bwrap could not start ({error})"
    if done.returncode != 0:
        reason = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"the kernel refused bwrap's namespaces ({reason[-1] if reason else 'no reason'})"
    return ""


_said: list[str] = []


def sandbox_status() -> bool:
    """Whether scripts run in the kernel's sandbox. The fallback is said once, in one line, on
    stderr; with EXPLAINER_SANDBOX=required it is an error (RuntimeError)."""
    setting = sandbox_setting()
    if setting == "off":
        return False
    reason = _probe()
    if not reason:
        return True
    if setting == "required":
        raise RuntimeError(f"{SANDBOX_ENV}=required, but {reason}: chapter scripts cannot be "
                           "contained by the kernel here (apt-get install bubblewrap)")
    if not _said:
        _said.append(reason)
        print(f"note: {reason}; chapter scripts are contained by audit hooks only (their own "
              "Python writes), not by the kernel", file=sys.stderr)
    return False


def writable_paths(writable: Sequence[str], files: Sequence[str]) -> list[str]:
    """What a sandbox leaves writable: `writable` folders, `files` and Matplotlib's folders,
    each made here first (`files` empty)."""
    for folder in writable:
        Path(folder).mkdir(parents=True, exist_ok=True)
    for name in files:
        Path(name).write_bytes(b"")
    for cache in library_caches():  # as Matplotlib would make them on its first import
        with contextlib.suppress(OSError):
            cache.mkdir(parents=True, exist_ok=True)
    return [*writable, *files, *(str(p) for p in library_caches() if p.is_dir())]


def sandbox_command(writable: Sequence[str], files: Sequence[str], chdir: str) -> list[str]:
    """The bwrap command line that runs a command with only `writable_paths` writable."""
    command = [shutil.which(BWRAP) or BWRAP, *BWRAP_FLAGS]
    for path in writable_paths(writable, files):
        command += ["--bind", path, path]
    return [*command, "--chdir", chdir, "--"]
