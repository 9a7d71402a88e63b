"""Run a chapter script as `python script.py` would, and record the repository files it reads.

Usage: python explainer_tools/trace_run.py DEPS_JSON SCRIPT

The script runs in this process with `__name__ == "__main__"` and its own folder first on
`sys.path`, exactly like a direct run. An audit hook sees every file it opens for reading, and
`sys.modules` tells which local modules it imported; the ones inside the repository (outside
`.venv`, caches, `outputs/` and the figure folder, which are products) are written to DEPS_JSON
as a sorted list of repository-relative paths. Nothing is written if the script fails.
"""

from __future__ import annotations

import json
import os
import runpy
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
EXCLUDED_PARTS = {".venv", "__pycache__", ".git", "outputs", "site", ".cache", "build"}
WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


def repo_relative(path: str | os.PathLike[str] | int) -> str | None:
    """The repository-relative POSIX path of a source file, or None for anything else."""
    if isinstance(path, int):
        return None
    try:
        resolved = Path(os.fsdecode(path)).resolve()
    except (OSError, ValueError):
        return None
    if not resolved.is_relative_to(REPO_ROOT) or not resolved.is_file():
        return None
    relative = resolved.relative_to(REPO_ROOT)
    if EXCLUDED_PARTS.intersection(relative.parts) or relative.parts[:3] == (
        "docs",
        "assets",
        "fig",
    ):
        return None
    return relative.as_posix()


def is_read(mode: object, flags: object) -> bool:
    if isinstance(mode, str):
        return not any(ch in mode for ch in "wax+")
    return isinstance(flags, int) and not flags & WRITE_FLAGS


def main() -> None:
    deps_path, script = Path(sys.argv[1]), Path(sys.argv[2]).resolve()
    read: set[str] = set()

    def hook(event: str, args: tuple[object, ...]) -> None:
        if event == "open" and len(args) >= 3 and is_read(args[1], args[2]):
            relative = repo_relative(args[0])  # type: ignore[arg-type]
            if relative is not None:
                read.add(relative)

    sys.argv = [str(script)]
    sys.path[0] = str(script.parent)
    sys.addaudithook(hook)
    runpy.run_path(str(script), run_name="__main__")
    sys.stdout.flush()
    for module in list(sys.modules.values()):
        relative = repo_relative(getattr(module, "__file__", None) or "")
        if relative is not None:
            read.add(relative)
    read.add(script.relative_to(REPO_ROOT).as_posix())
    deps_path.write_text(json.dumps(sorted(read), indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
