"""Chapter scripts print the same bytes and draw the same figures with 1 thread as the committed
golden files (which `make check` regenerates with the default thread count, 2 on CI).

Re-running every script would double the suite's time as chapters arrive, so this runs a
deterministic sample in one warm runner: the two cheapest scripts (no torch import, smallest
source) and one more that rotates with the day of the year. EXPLAINER_DETERMINISM=all runs all.
"""

from __future__ import annotations

import datetime
import os
from pathlib import Path

import pytest

from explainer_tools.layout import DEFAULT
from explainer_tools.scripts import pipeline

SCRIPTS = DEFAULT.discover_scripts()


def cost(script: str) -> tuple[bool, int]:
    text = (DEFAULT.code_dir / script).read_text(encoding="utf-8")
    return ("import torch" in text, len(text))


def sample(scripts: list[str], day: int) -> list[str]:
    """The two cheapest scripts, plus the one at `day` modulo the rest.

    >>> sample(["a", "b", "c", "d"], 5)  # with cost = name order
    ['a', 'b', 'd']
    """
    ranked = sorted(scripts, key=lambda s: (cost(s) if s.startswith("ch") else (False, 0), s))
    chosen, rest = ranked[:2], ranked[2:]
    if rest:
        chosen.append(rest[day % len(rest)])
    return sorted(chosen)


SAMPLE = SCRIPTS if os.environ.get("EXPLAINER_DETERMINISM") == "all" else sample(
    SCRIPTS, datetime.date.today().timetuple().tm_yday)


@pytest.mark.slow
def test_sampled_scripts_match_the_golden_files_with_one_thread(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for variable in ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"):
        monkeypatch.setenv(variable, "1")
    elsewhere = pipeline.other_kernels(SAMPLE, DEFAULT)  # made on other kernels: tolerance
    runs = pipeline.run_scripts(SAMPLE, tmp_path, jobs=2, layout=DEFAULT)
    notes = pipeline.settle_other_kernels(runs, elsewhere, DEFAULT)
    assert not [note for note in notes if "beyond the tolerance" in note], notes
    for script, run in runs.items():
        assert run.output == DEFAULT.output_path(script).read_bytes().decode("utf-8"), script
        for name, data in run.figures.items():
            assert data == (DEFAULT.fig_dir / name).read_bytes(), name


def test_the_sample_is_small_and_rotates() -> None:
    assert len(SAMPLE) == len(SCRIPTS) or len(SAMPLE) <= 3
    if len(SCRIPTS) > 3:
        assert len({tuple(sample(SCRIPTS, d)) for d in range(len(SCRIPTS))}) > 1
