"""Numbered output blocks: the unit that prose cites and markers embed.

A chapter script prints an optional title line, then blocks. A block starts with `[N] ` at
column 0; every following line that starts with whitespace (or is empty) belongs to it. Any
other line at column 0 ("All assertions passed.") ends the block and belongs to no block.

>>> parse_blocks("T\\n[1] a = 1\\n    b = 2\\n[2] c\\nAll done.\\n")[1].text
'[1] a = 1\\n    b = 2'
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

BLOCK_START = re.compile(r"^\[(?P<number>\d+)\] ")


class BlockError(ValueError):
    """An output whose block numbering is broken (duplicate numbers)."""


@dataclass(frozen=True)
class Block:
    number: int
    first_line: int  # 1-based line of `[N]` in the output file
    lines: tuple[str, ...]

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def parse_blocks(output: str, source: str = "<output>") -> dict[int, Block]:
    """Split a script's output into its numbered blocks, keyed by number."""
    blocks: dict[int, Block] = {}
    current: list[str] | None = None
    number = first = 0

    def close() -> None:
        if current is not None:
            while current and not current[-1].strip():
                current.pop()
            blocks[number] = Block(number, first, tuple(current))

    for line_no, line in enumerate(output.splitlines(), start=1):
        start = BLOCK_START.match(line)
        if start:
            close()
            number, first, current = int(start.group("number")), line_no, [line]
            if number in blocks:
                raise BlockError(f"{source}:{line_no}: block [{number}] appears twice")
        elif current is not None and (not line or line[0].isspace()):
            current.append(line)
        else:
            close()
            current = None
    close()
    return blocks


def read_output_blocks(path: Path) -> dict[int, Block] | None:
    """The blocks of a golden output file, or None when the file does not exist; a malformed
    file raises BlockError naming it. The one reader of output files for the errata and the
    ledger checks."""
    if not path.is_file():
        return None
    return parse_blocks(path.read_text(encoding="utf-8"), source=str(path))
