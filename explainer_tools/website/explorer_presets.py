"""The bound explorer's presets, read from the chapter scripts' outputs when the site is built.

A page asks for them with `data-presets="book"` on its `<div class="bound-explorer">`; the
plugin's build features (`expand`) replace that with the presets as JSON, which
`docs/javascripts/bound-explorer.js` turns into buttons. No number is typed in here: each input
is read from a named block of a script's output by a pattern, so the presets follow the book
when a script's numbers move, and a block whose wording changed stops the build with the file,
block and pattern that no longer match.

The four presets and where their inputs come from:

- GPT-2 small sent as float32 weights, and Chapter 17's stand-in for a SubLoRA message of the
  authors' size: Chapter 17
  (ch17_message.py [1], [3], [4]; its empirical risk is Chapter 17's stand-in, held fixed).
- The book's miniature (SubLoRA on the Markov source) and the best count table on the same data:
  Chapter 22 (ch22_markov.py [1]-[6]), with the failure probability of ch22_coverage.py [1]
  divided over the grid of smoothing weights, as Chapter 22 computes its bounds.

Each preset carries the bound its script printed, so a test can hold the explorer's formula, run
on these inputs, to the book's number (tests/test_explorer_presets.py,
tests/browser/test_bound_explorer.py).
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from pathlib import Path

from explainer_tools.blocks import parse_blocks

REQUEST = 'data-presets="book"'
NUMBER = r"[\d,]+(?:\.\d+)?"


class PresetError(ValueError):
    """An output that does not hold what a preset reads from it."""


@dataclass(frozen=True)
class Pick:
    """Named groups of `pattern`, searched in block `block` of `script`'s output."""

    script: str
    block: int
    pattern: str


@dataclass(frozen=True)
class Preset:
    key: str
    label: str
    note: str  # what the preset is; the inputs and the printed bound are shown beside it
    cite: str  # the output block that prints the bound
    picks: tuple[Pick, ...]
    grid_shares_eps: bool = False  # eps divided by the `grid` read from the output


def _n(name: str) -> str:
    return rf"(?P<{name}>{NUMBER})"


CH17, CH22, COVERAGE = "ch17_message.py", "ch22_markov.py", "ch22_coverage.py"
CH17_SETTING = (
    Pick(CH17, 4, rf"train error {_n('trainError')} bits per token held fixed; alpha = "
                  rf"{_n('alpha')}, Delta = {NUMBER}, {_n('extraBits')} extra bits; N = "
                  rf"{_n('nTrain')}, n = {_n('nSample')}, eps = {_n('eps')}\)"),
    Pick(CH17, 4, rf"random guessing costs log2 {_n('vocab')} ="),
)
CH22_SETTING = (
    Pick(CH22, 1, rf"training set S: N = {_n('nTrain')} documents"),
    Pick(CH22, 1, rf"random guess log2 {_n('vocab')} ="),
    Pick(CH22, 2, rf"bound sample n = {_n('nSample')} documents"),
    Pick(CH22, 4, rf"each alpha at eps / {_n('grid')}\)"),
    Pick(COVERAGE, 1, rf"epsilon = {_n('eps')}"),
)

PRESETS = (
    Preset("gpt2-float32", "GPT-2 small, raw",
           "Every weight of nanoGPT's GPT-2 small (padded vocabulary included) sent as a 32-bit "
           "float; the other inputs are Chapter 17's, "
           "its empirical risk a stand-in of 5 bits per token, not a measured risk.",
           "output [4] of ch17_message.py",
           (Pick(CH17, 3, rf"float32, 32 bits per weight\s+{_n('messageBits')} bits"),
            Pick(CH17, 4, rf"float32, 32 bits per weight\s+bound\s+{_n('bound')}"),
            *CH17_SETTING)),
    Preset("sublora-stand-in", "A SubLoRA-sized message",
           "Chapter 17's stand-in for a SubLoRA message of the authors' size: d = 50,000 random "
           "numbers (not the authors' trained vector) coded at 11 levels, with the authors' "
           "document count and subsample; the empirical risk is the same stand-in.",
           "output [4] of ch17_message.py",
           (Pick(CH17, 1, rf"message L\s+{_n('messageBits')} bits"),
            Pick(CH17, 4, rf"SubLoRA message of \[1\]\s+bound\s+{_n('bound')}"),
            *CH17_SETTING)),
    Preset("miniature", "The book's miniature",
           "Chapter 22's SubLoRA model on a Markov source, smoothed at the grid's best weight; "
           "each of the grid's eight weights is bounded at a share of the failure probability.",
           "output [5] of ch22_markov.py",
           (Pick(CH22, 3, rf"= L = {_n('messageBits')} bits"),
            Pick(CH22, 3, rf"plus {_n('extraBits')} bits for hyperparameters"),
            Pick(CH22, 5, rf"smoothed at alpha = {_n('alpha')}\): empirical {_n('trainError')}"
                          rf"\s+bound {_n('bound')}"),
            *CH22_SETTING), grid_shares_eps=True),
    Preset("count-table", "A count table",
           "The best count table on the same data (order 1): a fixed-width table of rounded bigram "
           "log-probabilities, chosen among 18 tables after scoring them: the choice is paid by "
           "bounding each table and weight at a share of the failure probability.",
           "output [6] of ch22_markov.py",
           (Pick(CH22, 6, r"best table: order 1,"),
            *CH22_SETTING,
            Pick(CH22, 6, rf"in the grid, {_n('extraBits')} extra bits: the choice is paid as "
                          rf"eps / {_n('grid')} for each table"),
            Pick(CH22, 6, rf"order 1\s+\d+ bits\s+L =\s+{_n('messageBits')}\s+bound\s+"
                          rf"{_n('bound')}\s+empirical {_n('trainError')}\s.*?alpha = "
                          rf"{_n('alpha')}\)")), grid_shares_eps=True),
)


def _read(output_dir: Path, pick: Pick, cache: dict[str, dict]) -> dict[str, float]:
    path = output_dir / (Path(pick.script).stem + ".txt")
    if pick.script not in cache:
        if not path.is_file():
            raise PresetError(f"{path}: missing (the bound explorer's presets read it; "
                              f"run make regenerate)")
        cache[pick.script] = parse_blocks(path.read_text(encoding="utf-8"), str(path))
    block = cache[pick.script].get(pick.block)
    if block is None:
        raise PresetError(f"{path}: no block [{pick.block}] (a preset of the bound explorer, "
                          f"explainer_tools/website/explorer_presets.py, reads one)")
    found = re.search(pick.pattern, block.text)
    if found is None:
        raise PresetError(f"{path}:{block.first_line}: block [{pick.block}] no longer matches "
                          f"the bound explorer's preset pattern {pick.pattern!r} "
                          f"(explainer_tools/website/explorer_presets.py)")
    return {k: float(v.replace(",", "")) for k, v in found.groupdict().items()}


def presets(output_dir: Path) -> list[dict]:
    """The presets as the explorer reads them: key, label, note, cite, inputs, printed bound."""
    cache: dict[str, dict] = {}
    result = []
    for preset in PRESETS:
        values: dict[str, float] = {}
        for pick in preset.picks:
            values.update(_read(output_dir, pick, cache))
        if preset.grid_shares_eps:
            values["eps"] /= values.pop("grid")
        printed = values.pop("bound")
        result.append({"key": preset.key, "label": preset.label, "note": preset.note,
                       "cite": preset.cite, "inputs": values, "printed": printed})
    return result


def expand(markdown: str, output_dir: Path) -> str:
    """`markdown` with each `data-presets="book"` replaced by the presets as an attribute."""
    if REQUEST not in markdown:
        return markdown
    data = html.escape(json.dumps(presets(output_dir), sort_keys=True), quote=True)
    return markdown.replace(REQUEST, f'data-presets="{data}"')
