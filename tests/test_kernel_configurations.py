"""What `make check` verifies does not depend on which kernels this CPU runs: a training script
run under a second kernel configuration that every x86-64 CPU offers (MKL's AUTO branch, its
own fastest code for this CPU, instead of the pinned COMPATIBLE one) computes other bits, and
check accepts its products as made on other kernels, within the stated tolerance
(explainer_tools/scripts/other_kernels.py). This is what an AMD machine does to outputs committed
from an Intel one; here it is tried on the developer's own machine.

Chapter 7's pretraining run stands for the training scripts: the cheapest of them whose products
a change of kernels moves (its figure moved between an Intel and an AMD CPU)."""

from __future__ import annotations

from pathlib import Path

import pytest

from explainer_tools.layout import DEFAULT
from explainer_tools.scripts import cpu_paths, pipeline, settings

SCRIPTS = ["ch07_pretraining.py"]
SECOND = {"MKL_CBWR": "AUTO"}


@pytest.mark.slow
@pytest.mark.skipif(bool(cpu_paths.pinned_paths_unavailable()),
                    reason="the pinned x86 code paths are not this CPU's")
def test_a_second_kernel_configuration_changes_bits_but_not_what_check_verifies(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in SECOND.items():
        monkeypatch.setitem(settings.CPU_PINNING_ENV, name, value)
    monkeypatch.setenv("MINIATURE_CPU_PIN", "off")  # the miniature would pin MKL back
    runs = pipeline.run_scripts(SCRIPTS, tmp_path, jobs=2, layout=DEFAULT)
    moved = [script for script, run in runs.items()
             if run.output != pipeline.committed_output(script, DEFAULT)
             or any(data != (DEFAULT.fig_dir / name).read_bytes()
                    for name, data in run.figures.items())]
    assert moved, f"{SECOND} computed the committed bits: the test would show nothing"
    second = {"id": "second-configuration", "cpu": f"this CPU with {SECOND}"}
    notes = pipeline.settle_other_kernels(runs, dict.fromkeys(SCRIPTS, second), DEFAULT)
    assert all("agrees within the tolerance" in note for note in notes), notes
    for script, run in runs.items():
        assert run.output == pipeline.committed_output(script, DEFAULT)
