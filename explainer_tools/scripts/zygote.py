"""The warm sandbox: a child forked from the warm parent contains itself with the kernel.

`contain(writable)` runs in a freshly forked, single-threaded child, before any script code,
through libc (ctypes): it enters new user, mount, PID, network and IPC namespaces (its user
and group mapped to themselves, setgroups denied), forks once more -- PID namespaces apply to
children -- and returns in that child, PID 1 of the new namespace, after making every mount
private and the whole tree read-only (mount_setattr, recursive), binding `writable` (folders
and files) writable over it, mounting a fresh /proc (its /sys, /sysrq-trigger, /irq and /bus
read-only, as bubblewrap does) and a small fresh /dev (tmpfs with null, zero, full, random and
urandom bound from the host), starting a new session and dropping every capability (bounding
set, capset to zero, PR_SET_NO_NEW_PRIVS). The forking child waits for it and ends as it
ended. The caller then forks the script's process from PID 1, which stays as the namespace's
init (`run_as_init`): killing it, or the child outside, ends the whole namespace. Any failure
raises OSError, so no script runs uncontained. `probe` tries the whole sequence once.
"""

from __future__ import annotations

import ctypes
import errno
import os
import signal
import struct
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWUSER = 0x00020000, 0x08000000, 0x10000000
CLONE_NEWPID, CLONE_NEWNET = 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_BIND, MS_REC, MS_PRIVATE = 4096, 16384, 1 << 18
MOUNT_ATTR_RDONLY, AT_RECURSIVE, AT_FDCWD = 1, 0x8000, -100
SYS_MOUNT_SETATTR = 442  # x86-64 and arm64 alike (the new syscalls share their numbers)
PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, PR_SET_PDEATHSIG = 24, 38, 1
CAPABILITY_VERSION_3 = 0x20080522
DEVICES = ("null", "zero", "full", "random", "urandom")
PROC_READ_ONLY = ("sys", "sysrq-trigger", "irq", "bus")

_libc = ctypes.CDLL(None, use_errno=True)
_libc.mount.argtypes = [ctypes.c_char_p] * 3 + [ctypes.c_ulong, ctypes.c_char_p]
_libc.syscall.restype = ctypes.c_long


def _check(result: int, what: str) -> None:
    if result < 0:
        number = ctypes.get_errno()
        raise OSError(number, f"{what}: {os.strerror(number)}")


def _mount(source: str | None, target: str, kind: str | None, flags: int,
           data: str | None = None) -> None:
    def encode(text: str | None) -> bytes | None:
        return None if text is None else os.fsencode(text)

    _check(_libc.mount(encode(source), encode(target), encode(kind), flags,
                       encode(data)), f"mount {target}")


def _read_only(path: str, read_only: bool = True, recursive: bool = False) -> None:
    """mount_setattr: set (or clear) MOUNT_ATTR_RDONLY on the mount at `path`."""
    attr = struct.pack("QQQQ", MOUNT_ATTR_RDONLY if read_only else 0,
                       0 if read_only else MOUNT_ATTR_RDONLY, 0, 0)
    buffer = ctypes.create_string_buffer(attr, len(attr))
    _check(_libc.syscall(ctypes.c_long(SYS_MOUNT_SETATTR), ctypes.c_int(AT_FDCWD),
                         ctypes.c_char_p(os.fsencode(path)),
                         ctypes.c_uint(AT_RECURSIVE if recursive else 0), buffer,
                         ctypes.c_size_t(len(attr))), f"mount_setattr {path}")


def _write(path: str, text: str) -> None:
    fd = os.open(path, os.O_WRONLY)
    try:
        os.write(fd, text.encode("ascii"))
    finally:
        os.close(fd)


def _enter_namespaces() -> None:
    uid, gid = os.geteuid(), os.getegid()
    _check(_libc.unshare(CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWNET
                         | CLONE_NEWIPC), "unshare")
    _write("/proc/self/setgroups", "deny")
    _write("/proc/self/uid_map", f"{uid} {uid} 1\n")
    _write("/proc/self/gid_map", f"{gid} {gid} 1\n")


def _build_tree(writable: Sequence[str]) -> None:
    """The mounts, from PID 1 of the new namespace (a fresh /proc shows its own)."""
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    _read_only("/", recursive=True)
    for path in writable:  # over the read-only tree
        _mount(path, path, None, MS_BIND)
        _read_only(path, read_only=False)
    _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    for name in PROC_READ_ONLY:
        path = f"/proc/{name}"
        if Path(path).exists():
            _mount(path, path, None, MS_BIND | MS_REC)
            _read_only(path, recursive=True)
    devices = {name: os.open(f"/dev/{name}", os.O_PATH) for name in DEVICES}
    _mount("tmpfs", "/dev", "tmpfs", MS_NOSUID | MS_NOEXEC, "mode=0755,size=1m")
    for name, fd in devices.items():
        os.close(os.open(f"/dev/{name}", os.O_CREAT | os.O_WRONLY, 0o666))
        _mount(f"/proc/self/fd/{fd}", f"/dev/{name}", None, MS_BIND)
        os.close(fd)
    Path("/dev/shm").mkdir(0o1777)
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
                         ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2")):
        Path(f"/dev/{name}").symlink_to(target)


def _drop_capabilities() -> None:
    cap = 0
    while _libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0:  # until past the last capability
        cap += 1
    header = ctypes.create_string_buffer(struct.pack("Ii", CAPABILITY_VERSION_3, 0), 8)
    data = ctypes.create_string_buffer(bytes(24), 24)  # two sets of three zero masks
    _check(_libc.capset(header, data), "capset")
    _check(_libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(PR_SET_NO_NEW_PRIVS)")


def contain(writable: Sequence[str]) -> None:
    """Contain this process (see the module's docstring); returns in PID 1 of the new
    namespace. The process that called it waits outside and never returns."""
    _enter_namespaces()
    child = os.fork()
    if child == 0:  # the caller's code goes on here, and ends with os._exit
        _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getpid() != 1:
            raise OSError("not PID 1 of a new PID namespace")
        _build_tree(writable)
        os.setsid()
        _drop_capabilities()
        return
    _, status = os.waitpid(child, 0)
    _end_as(status)


def _end_as(status: int) -> None:
    """End this process as a child that ended with wait status `status` did."""
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        signal.signal(sig, signal.SIG_DFL)
        os.kill(os.getpid(), sig)
    os._exit(os.waitstatus_to_exitcode(status) & 0xFF)


def run_as_init(work: Callable[[], int]) -> None:
    """In PID 1: run `work` in a child (the script must not have init's signal immunity), reap
    the namespace's orphans until it ends, then end as it did."""
    child = os.fork()
    if child == 0:
        code = 1
        try:
            code = work()
        finally:
            os._exit(code)
    while True:
        pid, status = os.waitpid(-1, 0)
        if pid == child:
            _end_as(status)


def probe() -> str:
    """Whether `contain` works here: '' if it does, else why not. A forked child contains
    itself with a scratch folder writable, then writes there and must fail to write next to
    it."""
    with tempfile.TemporaryDirectory() as scratch:
        inside = Path(scratch) / "writable"
        inside.mkdir()
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            os.close(read)
            try:
                contain([str(inside)])
                (inside / "ok").write_text("ok")
                try:
                    (Path(scratch) / "refused").write_text("")
                except OSError as error:
                    if error.errno != errno.EROFS:  # what the read-only tree gives
                        raise
                else:
                    raise OSError("a write outside the writable folder succeeded")
                os.write(write, b"ok")
                os._exit(0)
            except BaseException as error:
                os.write(write, str(error).encode("utf-8", "replace")[:500])
                os._exit(1)
        os.close(write)
        with os.fdopen(read, "rb") as handle:
            said = handle.read().decode("utf-8", "replace")
        os.waitpid(pid, 0)
        return "" if said == "ok" else said or "the probe child died"
