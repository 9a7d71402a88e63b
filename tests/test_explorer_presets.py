"""The bound explorer's presets (explainer_tools/website/explorer_presets.py): read from the
scripts' outputs, they give the bounds the chapters print; an output that no longer holds what a
preset reads stops the build with the file, line and block; the site hook writes them into the
page."""

from __future__ import annotations

import html
import json
import math
import shutil
from pathlib import Path

import pacbound
import pytest

from explainer_tools.website import explorer_presets
from explainer_tools.website.explorer_presets import PresetError, expand, presets

ROOT = Path(__file__).resolve().parents[1]
OUTPUTS = ROOT / "outputs"
NEEDED = sorted({p.script for preset in explorer_presets.PRESETS for p in preset.picks})


def _bound(p: dict[str, float]) -> float:
    k = pacbound.prefix_code_bits(p["messageBits"])
    return pacbound.subsampling_bound(
        train_error=p["trainError"], loss_range=pacbound.loss_range(p["alpha"], int(p["vocab"])),
        complexity_nats=(k + p["extraBits"]) * math.log(2), n_population=int(p["nTrain"]),
        n_sample=int(p["nSample"]), eps=p["eps"])


def test_each_preset_gives_the_bound_its_chapter_printed() -> None:
    got = presets(OUTPUTS)
    assert [p["key"] for p in got] == ["gpt2-float32", "sublora-stand-in", "miniature",
                                       "count-table"]
    for preset in got:
        inputs = preset["inputs"]
        assert set(inputs) == {"trainError", "messageBits", "nTrain", "nSample", "alpha",
                               "vocab", "extraBits", "eps"}, preset["key"]
        # the printed inputs are rounded to their last digit: 5e-4 in the risk, 5e-4 in the bound
        assert abs(_bound(inputs) - preset["printed"]) <= 1e-3, preset["key"]
    miniature = got[2]["inputs"]
    assert miniature["eps"] == pytest.approx(0.05 / 8)  # the grid of eight weights shares eps
    assert [_bound(p["inputs"]) > math.log2(p["inputs"]["vocab"]) for p in got] == [
        True, False, False, False]


def _copy_outputs(tmp_path: Path) -> Path:
    for script in NEEDED:
        name = Path(script).stem + ".txt"
        shutil.copy(OUTPUTS / name, tmp_path / name)
    return tmp_path


def test_a_reworded_block_names_its_file_line_and_block(tmp_path) -> None:
    folder = _copy_outputs(tmp_path)
    path = folder / "ch22_markov.txt"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("extra bits: the choice is paid as", "extra bits, paid as"),
                    encoding="utf-8")
    first = next(i for i, line in enumerate(text.splitlines(), 1) if line.startswith("[6] "))
    with pytest.raises(PresetError, match=rf"ch22_markov.txt:{first}: block \[6\] no longer"):
        presets(folder)


def test_a_missing_output_or_block_is_named(tmp_path) -> None:
    folder = _copy_outputs(tmp_path)
    (folder / "ch22_coverage.txt").unlink()
    with pytest.raises(PresetError, match=r"ch22_coverage.txt: missing"):
        presets(folder)
    folder = _copy_outputs(tmp_path)
    path = folder / "ch17_message.txt"
    path.write_text(path.read_text(encoding="utf-8").replace("[3] ", "[9] "), encoding="utf-8")
    with pytest.raises(PresetError, match=r"ch17_message.txt: no block \[3\]"):
        presets(folder)


def test_the_hook_writes_the_presets_into_the_page_and_nothing_else() -> None:
    page = '<div class="bound-explorer" data-alpha="0.1"\n     data-presets="book"></div>'
    out = expand(page, OUTPUTS)
    assert 'data-presets="book"' not in out and out.startswith(page.split("data-presets")[0])
    attr = out.split('data-presets="', 1)[1].split('"></div>', 1)[0]
    assert json.loads(html.unescape(attr)) == presets(OUTPUTS)
    plain = "<div class='bound-explorer'></div> data-presets=book"
    assert expand(plain, OUTPUTS) == plain


def test_the_ten_minute_page_asks_for_the_presets() -> None:
    assert explorer_presets.REQUEST in (ROOT / "docs/bound-in-ten-minutes.md").read_text(
        encoding="utf-8")
