"""`make chapter` scaffolds a chapter that regenerates and passes `check`, nothing else wired."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
MKDOCS = """nav:
  - Home: index.md
  - "Part II. Bounds":
      - "5. Transformers": chapters/05-transformers.md
      - "12. Smoothing": chapters/12-smoothing.md
      - "Companion notebook": notebooks/x.ipynb
"""


def run(repo: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "explainer_tools", *args], cwd=repo,
                          capture_output=True, text=True, check=False)


@pytest.mark.slow
def test_a_scaffolded_chapter_regenerates_and_passes_check(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(REPO_ROOT / "explainer_tools", repo / "explainer_tools",  # not the book's
                    ignore=shutil.ignore_patterns("__pycache__", "book_checks_pending.txt"))
    shutil.copy(REPO_ROOT / "requirements.lock", repo / "requirements.lock")
    (repo / "explainer_code").mkdir()
    shutil.copy(REPO_ROOT / "explainer_code" / "script_io.py", repo / "explainer_code")
    (repo / "docs" / "chapters").mkdir(parents=True)
    (repo / "mkdocs.yml").write_text(MKDOCS)

    made = run(repo, "chapter", "9", "generalization", "Generalization")
    assert made.returncode == 0, made.stderr
    nav = (repo / "mkdocs.yml").read_text().splitlines()
    assert nav[3:6] == ['      - "5. Transformers": chapters/05-transformers.md',
                        '      - "9. Generalization": chapters/09-generalization.md',
                        '      - "12. Smoothing": chapters/12-smoothing.md']
    page = (repo / "docs" / "chapters" / "09-generalization.md").read_text()
    for section in ("Where this fits", "The problem", "Intuition", "Precise definitions",
                    "Worked example", "errata", "Going deeper", "misconceptions", "Self-test",
                    "Summary", "Code for this chapter"):
        assert f"## {section}" in page or section in page, section
    again = run(repo, "chapter", "9", "generalization", "Generalization")
    assert again.returncode == 1 and "exists already" in again.stderr

    regen = run(repo, "regenerate")
    assert regen.returncode == 0, regen.stderr
    assert "ran ch09_generalization.py" in regen.stdout
    assert "[1] square(12) = 144" in (repo / "docs" / "chapters" / "09-generalization.md"
                                      ).read_text()
    check = run(repo, "check")
    assert check.returncode == 0, check.stdout + check.stderr
    assert "0 uncited" in check.stdout
