"""The claim check's results as data, for tools that build on them (see the package docstring)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from explainer_tools.claims.check import check_site
from explainer_tools.claims.model import ClaimError, Occurrence
from explainer_tools.layout import DEFAULT


@dataclass(frozen=True)
class VerifiedNumber:
    """A number in prose that the check found in the output block its sentence cites."""

    page: str  # e.g. "docs/chapters/05-transformers-gpt2.md"
    line: int  # 1-based line of the number in the page's Markdown source
    column: int  # 1-based column of its first character
    span: tuple[int, int]  # (start, end) offsets of the number as written in the source
    text: str  # the number as written, e.g. "123,689,472"
    script: str  # the cited script, e.g. "ch05_param_count.py"
    block: int  # the cited block that prints it
    output_line: int  # 1-based line in outputs/<stem>.txt that prints the value
    output_text: str  # that line


@dataclass
class PageClaims:
    page: str
    verified: list[VerifiedNumber] = field(default_factory=list)
    uncited: list[Occurrence] = field(default_factory=list)
    skipped: list[Occurrence] = field(default_factory=list)
    waived: list[Occurrence] = field(default_factory=list)
    errors: list[ClaimError] = field(default_factory=list)


def verified_numbers(root: Path = DEFAULT.root, pages: list[Path] | None = None) -> dict[
        str, PageClaims]:
    """Run the claim check and return, per page (repository-relative path), what it verified."""
    site = check_site(root, pages)
    result: dict[str, PageClaims] = {}
    for report in site.pages:
        text = (root / report.page).read_text(encoding="utf-8") if (
            root / report.page).is_file() else ""
        claims = PageClaims(report.page, uncited=list(report.uncited),
                            skipped=list(report.skipped), waived=list(report.waived),
                            errors=list(report.errors))
        error_offsets = {(e.line, e.number) for e in report.errors}
        for occurrence in report.checked:
            if not occurrence.script or (occurrence.line, occurrence.text) in error_offsets:
                continue
            column = occurrence.offset - text.rfind("\n", 0, occurrence.offset)
            claims.verified.append(VerifiedNumber(
                report.page, occurrence.line, column, (occurrence.offset, occurrence.end),
                occurrence.text, occurrence.script, occurrence.block, occurrence.output_line,
                occurrence.output_text))
        result[report.page] = claims
    return result
