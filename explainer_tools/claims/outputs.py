"""Script outputs as the claim check reads them: blocks and the numbers each block prints."""

from __future__ import annotations

import re
from collections.abc import Mapping
from decimal import Decimal
from pathlib import Path

from explainer_tools.blocks import Block, BlockError, parse_blocks
from explainer_tools.claims.numbers import Token, scan_numbers
from explainer_tools.glue import Glued, read_names
from explainer_tools.layout import output_name, script_of_output
from explainer_tools.tree_io import read_regular

# ---------------------------------------------------------------------------------------------
# Outputs
# ---------------------------------------------------------------------------------------------


class Outputs:
    """Script outputs, by script name (`ch05_param_count.py`), parsed into blocks on first use."""

    def __init__(self, texts: Mapping[str, str], origin: str = "outputs",
                 names: Mapping[str, dict[str, Glued]] | None = None) -> None:
        self._texts = dict(texts)
        self.names = dict(names or {})  # script -> its glued values (glue.py)
        self._origin = origin
        self._blocks: dict[str, dict[int, Block]] = {}
        self._values: dict[tuple[str, int], list[Token]] = {}
        self._all: dict[str, set[Decimal]] = {}

    @classmethod
    def from_dir(cls, directory: Path) -> Outputs:
        texts = {script_of_output(path): read_regular(path).decode("utf-8", "replace")
                 for path in sorted(directory.glob("*.txt"))}
        return cls(texts, origin=str(directory), names=read_names(directory))

    def text(self, script: str) -> str:
        """The script's whole output ("" for an unknown script)."""
        return self._texts.get(script, "")

    @property
    def scripts(self) -> list[str]:
        return sorted(self._texts)

    def blocks(self, script: str) -> dict[int, Block] | None:
        if script not in self._texts:
            return None
        if script not in self._blocks:
            try:
                self._blocks[script] = parse_blocks(self._texts[script], output_name(script))
            except BlockError:
                self._blocks[script] = {}  # reported once, by check_site
                raise
        return self._blocks[script]

    def all_values(self, script: str) -> set[Decimal]:
        """Every number the script's whole output prints (empty for an unknown script)."""
        if script not in self._texts:
            return set()
        if script not in self._all:
            self._all[script] = {t.value for t in scan_numbers(self._texts[script], "block")
                                 if t.value is not None}
        return self._all[script]

    def line_of(self, script: str, number: int, token: Token) -> tuple[int, str]:
        """The output-file line (1-based number, text) on which block [number] prints `token`."""
        block = (self.blocks(script) or {})[number]
        index = block.text.count("\n", 0, token.start)
        return block.first_line + index, block.lines[index]

    def values(self, script: str, number: int) -> list[Token]:
        """The numbers printed in block [number] of the script's output (block marker left out)."""
        key = (script, number)
        if key not in self._values:
            blocks = self.blocks(script) or {}
            text = blocks[number].text
            marker = re.match(r"\[[0-9]+\] ", text)
            if marker:
                text = " " * marker.end() + text[marker.end():]
            self._values[key] = [t for t in scan_numbers(text, "block") if t.value is not None]
        return self._values[key]
