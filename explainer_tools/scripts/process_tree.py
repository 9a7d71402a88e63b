"""Process trees: find every descendant of a process (psutil), and end them all.

A process that is a subreaper (PR_SET_CHILD_SUBREAPER, Linux) keeps its orphaned descendants (a
child that double-forks, or calls setsid and outlives its parent) in its tree, so `descendants`
finds them; `kill_tree` stops the root first so that none is re-parented away while it works.
Outside Linux prctl is a no-op, so a descendant that leaves its parent may be out of reach.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time

import psutil

GONE = (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess)


def prctl(option: int, value: int) -> None:
    """Linux prctl(2); a no-op elsewhere."""
    with contextlib.suppress(Exception):
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(option, value)


def set_death_signal(sig: int) -> None:
    """Ask Linux to send `sig` to this process when its parent ends."""
    prctl(1, sig)  # PR_SET_PDEATHSIG


def become_subreaper() -> None:
    """Orphaned descendants (a child that double-forks, or calls setsid and outlives its parent)
    are re-parented to this process instead of init, so they stay in its tree (Linux)."""
    prctl(36, 1)  # PR_SET_CHILD_SUBREAPER


def stopped(pid: int) -> bool:
    """Whether `pid` is stopped (SIGSTOP, SIGTSTP, or by a tracer); False where unknown."""
    try:
        return psutil.Process(pid).status() in (psutil.STATUS_STOPPED, psutil.STATUS_TRACING_STOP)
    except GONE:
        return False


def children(root: int) -> list[int]:
    """The live (not zombie) children of `root`."""
    return descendants(root, recursive=False)


def descendants(root: int, recursive: bool = True) -> list[int]:
    """Every live (not zombie) descendant of `root`."""
    try:
        below = psutil.Process(root).children(recursive=recursive)
    except GONE:
        return []
    found = []
    for child in below:
        with contextlib.suppress(*GONE):
            if child.status() not in (psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD):
                found.append(child.pid)
    return found


def send_signal(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, sig)


def kill(pid: int) -> None:
    send_signal(pid, signal.SIGKILL)


def kill_tree(root: int, include_root: bool = True) -> None:
    """SIGKILL every descendant of `root`, then its process group and `root` itself.

    `root` is first stopped (SIGSTOP): it can start nothing more, and it stays alive, so the
    descendants it is subreaper of stay in its tree. Killing `root` first would let a child that
    left the group with setsid be re-parented away at once, out of reach of the scan. The
    scan repeats until no descendant is left: what a killed descendant
    had started is re-parented to the stopped `root` and found on the next pass."""
    if include_root:
        send_signal(root, signal.SIGSTOP)
    for _attempt in range(200):
        found = descendants(root)
        if not found:
            break
        for pid in found:
            kill(pid)
        time.sleep(0.001)
    if include_root:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(root, signal.SIGKILL)  # the group, for what the scan could not reach
        kill(root)


def reap_children() -> None:
    """Wait for every child of this process that has ended (zombies of killed descendants)."""
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def end_descendants() -> None:
    """The script is over: nothing it started may outlive it."""
    kill_tree(os.getpid(), include_root=False)
    for _attempt in range(100):
        reap_children()
        if not descendants(os.getpid()):
            return
        time.sleep(0.002)


class Watchdog:
    """The pipeline's own watch over a running script's process tree: a process of it that
    stays stopped (SIGSTOP, or stopped by a debugger) over two looks is a hang, not a wait."""

    def __init__(self, every: float = 0.25) -> None:
        self.every = every  # seconds between looks
        self.last = 0.0
        self.seen: set[int] = set()  # roots found stopped at the last look

    def stopped_roots(self, roots: list[int]) -> set[int]:
        """Of `roots`, those whose tree has held a stopped process at two looks in a row."""
        now = time.monotonic()
        if now - self.last < self.every:
            return set()
        self.last = now
        found = {root for root in roots if any(stopped(pid) for pid in [root, *descendants(root)])}
        hung, self.seen = found & self.seen, found
        return hung
