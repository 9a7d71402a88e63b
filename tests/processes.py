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
