"""What the claim check reports: citations, numbers found, errors, page reports."""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Decimal


@dataclass(frozen=True)
class Citation:
    script: str
    blocks: tuple[int, ...]
    line: int
    text: str

    def describe(self) -> str:
        if len(self.blocks) == 1:
            return f"output [{self.blocks[0]}] of {self.script}"
        listed = ", ".join(f"[{b}]" for b in self.blocks[:-1]) + f" and [{self.blocks[-1]}]"
        return f"outputs {listed} of {self.script}"


@dataclass(frozen=True)
class Occurrence:
    """A number found in prose, with its line and its absolute offset in the page text."""

    text: str
    value: Decimal | None
    line: int
    offset: int
    note: str = ""  # the skip rule, the waiver's reason, or the cited blocks
    end: int = 0  # absolute offset just after the number
    # for a checked number found in its cited block: where the output prints it
    script: str = ""
    block: int = 0
    output_line: int = 0  # 1-based line in outputs/<stem>.txt
    output_text: str = ""


@dataclass(frozen=True)
class ClaimError:
    page: str
    line: int
    message: str
    number: str = ""

    def __str__(self) -> str:
        return f"{self.page}:{self.line}: {self.message}"


@dataclass
class PageReport:
    page: str
    checked: list[Occurrence] = field(default_factory=list)
    skipped: list[Occurrence] = field(default_factory=list)
    waived: list[Occurrence] = field(default_factory=list)
    uncited: list[Occurrence] = field(default_factory=list)
    errors: list[ClaimError] = field(default_factory=list)
    cited: set[tuple[str, int]] = field(default_factory=set)
    uncited_errors: set[int] = field(default_factory=set)  # offsets already reported as errors
    glued: list[Occurrence] = field(default_factory=list)  # values quoted by name (glue.py)
    bare: list[Occurrence] = field(default_factory=list)  # numbers written in a strict section

    def summary(self) -> str:
        # A page that quotes values by name also says how many numbers its strict sections
        # still write as numerals (checked or uncited; not skipped by rule, not waived).
        glued = (f", {len(self.glued)} glued, {len(self.bare)} bare in the fully cited sections"
                 if self.glued else "")
        return (f"{self.page}: {len(self.checked)} checked, {len(self.skipped)} skipped by rule, "
                f"{len(self.waived)} waived, {len(self.uncited)} uncited{glued}, "
                f"{len(self.errors)} error{'s' if len(self.errors) != 1 else ''}")


