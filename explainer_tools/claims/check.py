"""Checking a page's numbers against the blocks its citations name, and the whole site."""

from __future__ import annotations

import functools
import re
import time
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path

from explainer_tools.blocks import BlockError
from explainer_tools.claims.model import Citation, ClaimError, Occurrence, PageReport
from explainer_tools.claims.numbers import (
    Token,
    near_miss,
    scan_numbers,
)
from explainer_tools.claims.outputs import Outputs
from explainer_tools.claims.page import (
    CAPTION_START,
    CITATION,
    Element,
    column_of,
    front_matter_elements,
    inline_segments,
    page_elements,
    parse_waivers,
    sentence_spans,
)
from explainer_tools.glue import (
    GlueError,
    declared_scripts,
    field_references,
    quoted_scripts,
    references,
    resolve,
)
from explainer_tools.layout import DEFAULT, Layout, output_name
from explainer_tools.markdown import math_body, read_front_matter, scan
from explainer_tools.tree_io import CommandError, read_regular
from explainer_tools.yaml_input import front_matter_problem

# ---------------------------------------------------------------------------------------------
# Checking a page
# ---------------------------------------------------------------------------------------------


@dataclass
class _Unit:
    """A sentence, list item or table row of an element: its numbers and the citations that
    cover them."""
    element: Element
    start: int  # relative to the element
    end: int
    numbers: list[Token]  # offsets relative to the element
    citations: list[Citation]


def _resolve(match: re.Match[str], line: int, page: str, scripts: list[str], last: list[str],
             outputs: Outputs, errors: list[ClaimError]) -> Citation | None:
    numbers: list[int] = []
    block_list = match.group("blocks")
    for part in re.finditer(r"\[([0-9]+)\](?:\s*(?:[–-]|to)\s*\[([0-9]+)\])?", block_list):
        low = int(part.group(1))
        high = int(part.group(2)) if part.group(2) else low
        numbers.extend(range(low, high + 1))
    named = match.group("script") or match.group("script2")
    if named:
        script = named.rsplit("/", 1)[-1]
        last[:] = [script]
    elif last:
        script = last[0]
    elif len(scripts) == 1:
        script = scripts[0]
    else:
        errors.append(ClaimError(page, line, f"{match.group().strip()!r} names no script: write "
                                 "'output [N] of script.py' once earlier on the page, or declare "
                                 "exactly one script in the front matter (scripts: [...])"))
        return None
    blocks = outputs.blocks(script)
    if blocks is None:
        errors.append(ClaimError(page, line, f"{match.group().strip()!r} cites an unknown script "
                                 f"{script}: there is no outputs/{script.removesuffix('.py')}.txt"))
        return None
    missing = [n for n in numbers if n not in blocks]
    if missing:
        known = ", ".join(f"[{n}]" for n in sorted(blocks)) or "none"
        errors.append(ClaimError(page, line, f"{match.group().strip()!r} cites block "
                                 f"[{missing[0]}] of {script}, which prints blocks {known}"))
        return None
    return Citation(script, tuple(numbers), line, match.group().strip())


# A run of decimal digits other than ASCII 0-9 (fullwidth １２, Arabic-Indic ١٢, Devanagari, ...):
# Unicode category Nd, which `\d` matches and `[0-9]` does not
FOREIGN_DIGITS = re.compile(r"(?:(?![0-9])\d)+(?:[.,](?:(?![0-9])\d)+)*")


def foreign_digits(text: str, page: str) -> list[ClaimError]:
    """One error per line of prose, front matter or comment that writes a number in digits other
    than ASCII 0-9: the check reads numbers in ASCII digits only, so such a number would never be
    compared with its output block (and a reader's search for it would not find the output).

    >>> [e.message for e in foreign_digits("A loss of ３.５ bits.\\n", "x.md")]
    ["the number '３.５' is written in digits other than 0-9 (it reads 3.5): the claim check \
reads 0-9 only, so write it so"]
    """
    errors = []
    for line in scan(text).lines:
        if line.kind in ("code", "fence") or line.embedded:
            continue
        match = FOREIGN_DIGITS.search(line.text)
        if match:
            reads = unicodedata.normalize("NFKC", "".join(
                str(unicodedata.decimal(c)) if unicodedata.category(c) == "Nd" else c
                for c in match.group()))
            errors.append(ClaimError(page, line.number, f"the number {match.group()!r} is "
                                     f"written in digits other than 0-9 (it reads {reads}): the "
                                     "claim check reads 0-9 only, so write it so"))
    return errors


def front_matter_errors(text: str, page: str) -> list[ClaimError]:
    """Invalid front matter, as the page's one error: read as absent, it would declare no
    scripts, and every number of the page would be reported uncited."""
    problem = front_matter_problem(text, page)
    if not problem:
        return []
    _, line, message = problem.split(":", 2)
    return [ClaimError(page, int(line), message.strip())]


def check_page(text: str, page: str, outputs: Outputs) -> PageReport:
    """Check one page's prose against the outputs; pure apart from reading `outputs`."""
    report = PageReport(page)
    errors = report.errors
    errors.extend(front_matter_errors(text, page))
    if errors:
        return report
    errors.extend(foreign_digits(text, page))
    front_matter = read_front_matter(text)
    front, body_start = front_matter.mapping, front_matter.body_start
    scripts = declared_scripts(front)
    for script in scripts:
        if outputs.blocks(script) is None:
            errors.append(ClaimError(page, 1, f"front matter declares {script}, which has no "
                                     f"outputs/{script.removesuffix('.py')}.txt"))
    fields = [(e.start, e.start + len(e.text)) for e in front_matter_elements(text, body_start)]
    written = text  # the page's structure is read from the page as written
    text = check_glued(text, page, quoted_scripts(front), outputs, report, fields)
    elements = (front_matter_elements(text, body_start)
                + page_elements(text, body_start, page, errors, written))
    last_script: list[str] = []
    units: list[_Unit] = []
    for element in elements:
        pieces, tokens, matches, spans = _analyse(element.text, element.kind == "paragraph"
                                                  and element.cites is None)
        for kind, s, e in pieces:
            if kind == "comment":
                line = element.line + element.text.count("\n", 0, s)
                element.waivers.extend(parse_waivers(element.text[s:e], line, page, errors))
        citations: list[tuple[int, Citation]] = []
        for match in matches:
            line = element.line + element.text.count("\n", 0, match.start())
            citation = _resolve(match, line, page, scripts, last_script, outputs, errors)
            if citation is not None:
                citations.append((match.start(), citation))
                report.cited.update((citation.script, b) for b in citation.blocks)
        if element.cites is not None:
            script, number = element.cites
            blocks = outputs.blocks(script)
            if blocks is None or number not in blocks:
                errors.append(ClaimError(page, element.line, f"evidence cites block [{number}] of "
                                         f"{script}, which does not exist"))
            else:
                citation = Citation(script, (number,), element.line, "evidence item")
                citations.insert(0, (0, citation))
                report.cited.add((script, number))
        for a, b in spans:
            cited_here = [c for position, c in citations if a <= position < b]
            unique = list({(c.script, c.blocks): c for c in cited_here}.values())
            units.append(_Unit(element, a, b, [t for t in tokens if a <= t.start < b], unique))
    _inherit_citations(elements, units)
    for unit in units:
        _check_unit(unit, page, outputs, report)
    check_glued_blocks(units, page, report)
    check_uncited(report, scripts, outputs)
    for element in elements:
        for waiver in element.waivers:
            for value in waiver.values:
                if value not in waiver.used:
                    errors.append(ClaimError(page, waiver.line, f"waiver of {value} matches no "
                                             "number in the prose it covers"))
    report.errors.sort(key=lambda error: error.line)
    return report


@functools.lru_cache(maxsize=8192)
def _analyse(text: str, paragraph: bool) -> tuple[
        tuple[tuple[str, int, int], ...], tuple[Token, ...], tuple[re.Match[str], ...],
        tuple[tuple[int, int], ...]]:
    """What an element's text holds: inline pieces, numbers, citations, sentence spans.

    Depends on the text alone, so it is cached: a page checked again after a one-character edit
    (tests/test_claims_changed_digits.py) re-analyses only the element that changed.
    """
    pieces = inline_segments(text)
    tokens: list[Token] = []
    for kind, s, e in pieces:
        if kind == "prose":
            tokens += scan_numbers(text[s:e], "prose", text, s)
        elif kind == "math":
            inner_start, inner_end = math_body(text, s, e)
            tokens += scan_numbers(text[inner_start:inner_end], "math", text, inner_start)
        elif kind in ("code", "tag"):
            reason = "inline code" if kind == "code" else "provenance tag"
            for digits in re.finditer(r"[0-9]+(?:[.,][0-9]+)*", text[s:e]):
                tokens.append(Token(digits.group(), None, s + digits.start(), s + digits.end(),
                                    reason))
    matches = tuple(match for match in CITATION.finditer(text)
                    if any(kind == "prose" and s <= match.start() < e for kind, s, e in pieces))
    if paragraph:
        spans = _merge_citation_only(text, sentence_spans(text, pieces),
                                     [match.start() for match in matches])
    else:
        spans = [(0, len(text))]
    return tuple(pieces), tuple(tokens), matches, tuple(spans)


def _merge_citation_only(text: str, spans: list[tuple[int, int]],
                         citations: list[int]) -> list[tuple[int, int]]:
    """A 'sentence' that is nothing but a citation, "(Output [3].)", belongs to the one before."""
    merged: list[tuple[int, int]] = []
    for a, b in spans:
        rest = CITATION.sub("", text[a:b])
        if merged and any(a <= p < b for p in citations) and not re.search(r"[A-Za-z0-9]", rest):
            merged[-1] = (merged[-1][0], b)
        else:
            merged.append((a, b))
    return merged


def _inherit_citations(elements: list[Element], units: list[_Unit]) -> None:
    """A sentence takes the citations of the nearest citing sentence before it in its paragraph;
    rows and items take the citations of their table's or list's introducing sentence."""
    by_element: dict[int, list[_Unit]] = {}
    for unit in units:
        by_element.setdefault(id(unit.element), []).append(unit)
    for element in elements:
        if element.kind != "paragraph":
            continue
        carried: list[Citation] = []
        for unit in by_element.get(id(element), []):
            if unit.citations:
                carried = unit.citations
            elif carried:
                unit.citations = list(carried)
    previous: Element | None = None
    inherited: dict[int, list[Citation]] = {}
    for position, element in enumerate(elements):
        first_of_group = element.kind in ("row", "item") and (
            previous is None or previous.kind != element.kind or previous.group != element.group)
        if first_of_group and previous is not None and previous.kind == "paragraph":
            intro = by_element[id(previous)][-1]
            ends_with_colon = element.kind == "row" or previous.text.rstrip().endswith(":")
            if intro.citations and ends_with_colon:
                inherited[element.group] = intro.citations
        if element.kind == "row" and (
                position + 1 == len(elements) or elements[position + 1].kind != "row"
                or elements[position + 1].group != element.group) and position + 1 < len(elements):
            caption = elements[position + 1]
            if caption.kind == "paragraph" and CAPTION_START.match(caption.text):
                cited = [c for u in by_element[id(caption)] for c in u.citations]
                if cited:
                    inherited.setdefault(element.group, cited)
        previous = element
    for unit in units:
        if unit.element.kind in ("row", "item") and not unit.citations:
            unit.citations = list(inherited.get(unit.element.group, []))


def _check_unit(unit: _Unit, page: str, outputs: Outputs, report: PageReport) -> None:
    element = unit.element
    candidates: list[tuple[Token, Citation, int]] = []
    for citation in unit.citations:
        for number in citation.blocks:
            printed_here = outputs.values(citation.script, number)
            candidates.extend((t, citation, number) for t in printed_here)
    printed = {t.value for t, _, _ in candidates}
    for token in unit.numbers:
        line = element.line + element.text.count("\n", 0, token.start)
        occurrence = Occurrence(token.text, token.value, line, element.start + token.start,
                                token.skip, element.start + token.end)
        if token.value is None:
            report.skipped.append(occurrence)
            continue
        waiver = next((w for w in element.waivers if token.value in w.values), None)
        if waiver is not None:
            waiver.used.add(token.value)
            report.waived.append(Occurrence(token.text, token.value, line, occurrence.offset,
                                            waiver.reason, occurrence.end))
            continue
        if element.strict:  # a numeral where every number must cite its block
            report.bare.append(occurrence)
            if report.glued:  # ... on a page that quotes values by name: refused
                report.errors.append(ClaimError(
                    page, line, f"{token.text} is a bare number in the section "
                    f"{element.strict!r} of a page that quotes values by name: write "
                    "{glue}`name` (python -m explainer_tools.glue_migrate PAGE) or waive it",
                    token.text))
        if not unit.citations:
            report.uncited.append(occurrence)
            if element.strict:
                report.errors.append(ClaimError(
                    page, line, f"{token.text} is uncited in the section {element.strict!r}, where "
                    "every number must cite the output block that prints it (or carry a waiver "
                    "<!-- claims: waive N \"reason\" -->)", token.text))
                report.uncited_errors.add(occurrence.offset)
            continue
        cited = "; ".join(c.describe() for c in unit.citations)
        if token.value in printed:
            found, citation, number = next(c for c in candidates if c[0].value == token.value)
            output_line, output_text = outputs.line_of(citation.script, number, found)
            report.checked.append(Occurrence(
                token.text, token.value, line, occurrence.offset, cited, occurrence.end,
                citation.script, number, output_line, output_text))
            continue
        report.checked.append(Occurrence(token.text, token.value, line, occurrence.offset, cited,
                                         occurrence.end))
        message = f"{token.text} is not printed in {cited}"
        if element.kind == "row" and element.header:
            column = column_of(element, token.start)
            if column:
                message += f" (table column {column!r})"
        miss = near_miss(token, [t for t, _, _ in candidates])
        if miss is not None:
            closest, kind = miss
            where = next(f"[{n}] of {c.script}" for t, c, n in candidates if t is closest)
            message += f"; closest there: {closest.text} in {where}"
            message += f" (near miss: {kind})" if kind else ""
        report.errors.append(ClaimError(page, line, message, token.text))


def check_glued(text: str, page: str, scripts: list[str], outputs: Outputs,
                report: PageReport, fields: list[tuple[int, int]] = ()) -> str:
    """The values the page quotes by name, in its body and in `fields` (an erratum's
    front-matter prose, as offsets): verified by construction (the name is the printed text),
    counted as glued; a name that no script prints is an error at its line. Returns the page
    with each reference blanked (the digits of a name are no number of the prose)."""
    found = references(text) + field_references(text, list(fields))
    for reference in found:
        try:
            script, value = resolve(reference, scripts, outputs.names, page)
        except GlueError as error:
            message = str(error).removeprefix(f"{page}:{reference.line}: ")
            report.errors.append(ClaimError(page, reference.line, message))
            continue
        printed = outputs.text(script).split("\n")
        report.glued.append(Occurrence(
            value.text, None, reference.line, reference.start, reference.name, reference.end,
            script, value.block, value.line,
            printed[value.line - 1] if value.line <= len(printed) else ""))
        report.cited.add((script, value.block))
    for reference in found:
        text = (text[:reference.start] + " " * (reference.end - reference.start)
                + text[reference.end:])
    return text


def check_glued_blocks(units: list[_Unit], page: str, report: PageReport) -> None:
    """A value quoted by name in a sentence (row, item) that cites outputs must be printed in a
    block it cites, as a number written out must: a real name of the wrong block is an error."""
    for unit in units:
        if not unit.citations:
            continue
        start = unit.element.start + unit.start
        end = unit.element.start + unit.end
        cited = {(c.script, block) for c in unit.citations for block in c.blocks}
        for glued in report.glued:
            if start <= glued.offset < end and (glued.script, glued.block) not in cited:
                where = "; ".join(c.describe() for c in unit.citations)
                report.errors.append(ClaimError(
                    page, glued.line, f"'{glued.note}' is printed in output [{glued.block}] of "
                    f"{glued.script}, which this sentence does not cite ({where})"))


def check_uncited(report: PageReport, declared: list[str], outputs: Outputs) -> None:
    """An uncited number that no output of the page's scripts prints is an error: it can only
    be a claim nothing checks. (One that some output prints stays a listed warning: the prose
    may restate it without a citation.) The page's scripts: those its front matter declares,
    its erratum evidence names and its citations cite."""
    scripts = set(declared) | {script for script, _ in report.cited}
    printed: set[Decimal] = set()
    for script in sorted(scripts):
        printed |= outputs.all_values(script)
    reported = {error.line for error in report.errors}  # e.g. a citation that did not resolve
    for occurrence in report.uncited:
        if occurrence.offset in report.uncited_errors or occurrence.value in printed or (
                occurrence.line in reported):
            continue
        where = ", ".join(sorted(scripts)) or "none: the page declares no scripts"
        report.errors.append(ClaimError(
            report.page, occurrence.line,
            f"{occurrence.text} is uncited, and no output of the page's scripts ({where}) "
            "prints it: cite the block that prints it, e.g. (output [N] of chNN_topic.py), or "
            "waive it with a reason: <!-- claims: waive "
            f"{occurrence.text} \"why it needs no script\" -->", occurrence.text))


# ---------------------------------------------------------------------------------------------
# The whole site
# ---------------------------------------------------------------------------------------------


@dataclass
class SiteReport:
    pages: list[PageReport]
    uncited_blocks: list[tuple[str, int]]
    errors: list[ClaimError]
    seconds: float


def _display_name(path: Path, root: Path) -> str:
    for candidate, base in ((path, root), (path.absolute(), root.absolute()),
                            (path.resolve(), root.resolve())):
        if candidate.is_relative_to(base):
            return candidate.relative_to(base).as_posix()
    return str(path)


def check_site(root: Path = DEFAULT.root, pages: Iterable[Path] | None = None) -> SiteReport:
    began = time.perf_counter()
    try:
        outputs = Outputs.from_dir(Layout(root).output_dir)
    except (CommandError, GlueError) as error:  # an output that is not a regular file, a names
        where, _, why = str(error).partition(": ")  # file that does not read: nothing to check
        return SiteReport([], [], [ClaimError(_display_name(Path(where), root), 0, why)], 0.0)
    errors: list[ClaimError] = []
    for script in outputs.scripts:
        try:
            outputs.blocks(script)
        except BlockError as error:
            where = re.match(r"^(?P<file>[^:]+):(?P<line>[0-9]+): (?P<message>.*)$", str(error))
            errors.append(ClaimError(where.group("file"), int(where.group("line")),
                                     where.group("message")) if where else ClaimError(
                output_name(script), 0, str(error)))
    reports = []
    for path in pages if pages is not None else Layout(root).markdown_pages():
        name = _display_name(path, root)
        try:
            data = read_regular(path, name)  # a FIFO or socket named *.md is refused, not waited on
        except CommandError as error:
            errors.append(ClaimError(name, 0, str(error).removeprefix(f"{name}: ")))
            continue
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            line = data[:error.start].count(b"\n") + 1
            errors.append(ClaimError(name, line, "not UTF-8 (byte "
                                     f"{data[error.start:error.start + 1]!r}); save it as UTF-8"))
            continue
        report = check_page(text, name, outputs)
        reports.append(report)
        errors.extend(report.errors)
    cited = set().union(*(r.cited for r in reports)) if reports else set()
    uncited_blocks = []
    for script in outputs.scripts:
        try:
            numbers = sorted(outputs.blocks(script) or {})
        except BlockError:
            continue
        uncited_blocks.extend((script, n) for n in numbers if (script, n) not in cited)
    return SiteReport(reports, uncited_blocks, errors, time.perf_counter() - began)
