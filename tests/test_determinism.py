"""Every chapter script prints the same bytes and draws the same figures with 1 or 2 threads,
and both equal the committed golden files."""

from __future__ import annotations

from pathlib import Path

import pytest

from explainer_tools import pipeline

SCRIPTS = pipeline.discover_scripts()


@pytest.mark.slow
@pytest.mark.parametrize("script", SCRIPTS)
def test_script_output_is_identical_with_one_and_two_threads(
    script: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = {}
    for threads in ("1", "2"):
        for variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
            monkeypatch.setenv(variable, threads)
        scratch = tmp_path / f"threads{threads}"
        scratch.mkdir()
        runs[threads] = pipeline.run_script(script, scratch)
    one, two = runs["1"], runs["2"]
    assert one.output == two.output
    assert one.figures == two.figures
    assert one.output == pipeline.output_path(script).read_text(encoding="utf-8")
    for name, data in one.figures.items():
        assert data == (pipeline.FIG_DIR / name).read_bytes(), name


def test_there_are_chapter_scripts_to_check() -> None:
    assert "ch05_param_count.py" in SCRIPTS and "ch05_attention.py" in SCRIPTS
