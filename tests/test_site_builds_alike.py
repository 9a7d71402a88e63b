"""The built site is a function of its sources: on a scratch copy of the book (a fresh clone,
no `.cache/`), a build from nothing, the build after it (from the cache the first left: every
page's render, formulas and checked numbers memoised) and another build from nothing write the
same files, byte for byte."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
NOT_COPIED = shutil.ignore_patterns(".git", ".venv", ".cache", "site", "site-offline", "build",
                                    "bench-tools", "__pycache__", ".pytest_cache", ".ruff_cache")


def _build(project: Path) -> subprocess.CompletedProcess[str]:
    """`mkdocs build --strict` of `project` into its site/."""
    shutil.rmtree(project / "site", ignore_errors=True)
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "SOURCE_DATE_EPOCH": "1767225600"}
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict"], cwd=project,
                          env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          timeout=900, check=False)


def _tree(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes()
            for p in sorted(site.rglob("*")) if p.is_file()}


def _differences(one: dict[str, bytes], other: dict[str, bytes]) -> list[str]:
    return sorted(name for name in set(one) | set(other) if one.get(name) != other.get(name))


@pytest.fixture
def fresh_clone(tmp_path: Path) -> Path:
    """The project's files without `.cache/` (and without git: `make mutate`'s copies have
    none; the build's date is given)."""
    project = tmp_path / "project"
    shutil.copytree(REPO, project, ignore=NOT_COPIED, symlinks=True)
    return project


def test_a_cold_build_and_the_warm_build_after_it_write_the_same_site(
        fresh_clone: Path) -> None:
    project = fresh_clone
    cold = _build(project)
    assert cold.returncode == 0, cold.stderr[-3000:]
    first = _tree(project / "site")
    assert "index.html" in first and "print_page/index.html" in first
    kept = {p.parent.name for p in (project / ".cache").rglob("*.json")}
    assert {"render", "katex", "numbers"} <= kept, f"the next build reads a cache: {kept}"
    warm = _build(project)
    assert warm.returncode == 0, warm.stderr[-3000:]
    assert _differences(first, _tree(project / "site")) == [], (
        "the cache a build leaves builds the same site")
    shutil.rmtree(project / ".cache")
    again = _build(project)
    assert again.returncode == 0, again.stderr[-3000:]
    assert _differences(first, _tree(project / "site")) == [], (
        "two builds from nothing write the same site")
