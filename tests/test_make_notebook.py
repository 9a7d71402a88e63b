"""`make notebook` starts Jupyter as root too (a container, or a machine where everything runs as
root): Jupyter refuses root unless given --allow-root, so the Makefile passes it then, and only
then. Read from `make -n` (nothing is installed or started)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def _jupyter_command(user_id: str) -> str:
    result = subprocess.run(["make", "-n", "notebook", f"USER_ID={user_id}"], cwd=REPO,
                            capture_output=True, text=True, check=True)
    lines = result.stdout.replace("\\\n", " ").splitlines()
    return next(line for line in lines if "bin/jupyter notebook" in line)


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_notebook_allows_root_only_as_root() -> None:
    assert "--allow-root" in _jupyter_command("0").split()
    assert "--allow-root" not in _jupyter_command("1000").split()
