"""Process helpers shared by the runner and containment tests (Linux /proc)."""

from __future__ import annotations

from pathlib import Path


def alive(pid: int) -> bool:
    """Running (a killed process may linger as a zombie until some parent reaps it)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state not in ("Z", "X")


def running_with(argument: str) -> list[int]:
    """Live processes whose command line holds `argument` (pids as this machine sees them:
    a process in a PID namespace of its own is found too, under its outside pid)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            words = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if argument.encode() in words and alive(int(entry.name)):
            found.append(int(entry.name))
    return found


def marker() -> str:
    """A `sleep` duration no other process uses: its command line finds it (running_with)."""
    import random

    return f"300.{random.randrange(10**9):09d}"
