"""The claim check catches a changed digit anywhere in the book.

For every number the check verifies on the committed pages (a number written as digits, found in
the block its sentence cites), change one digit in a copy of its page and assert that the check
then fails on that line, naming the changed number. The catch rate is printed (run with `-s` to
see it) and must be 100 %. Values quoted by name (`{glue}`name``) are no digits of the prose:
they cannot be mistyped, and are not mutated.

Which digit: the last one first, each replaced by the next digit (mod 10), moving leftwards. A
change that turns the number into another number the cited block(s) also print is skipped in
favour of the next candidate: no value-based check could tell "12" from "13" in a block that prints
both, and the prose would still be true to its block. How many numbers needed such a second
choice is printed too. Everything runs in-process on strings: no files are written.
"""

from __future__ import annotations

import re
import time
from decimal import Decimal

import pytest

from explainer_tools.claims import (
    Outputs,
    SiteReport,
    check_page,
    check_site,
    parse_number,
)
from explainer_tools.claims.page import front_matter_elements, page_elements
from explainer_tools.layout import DEFAULT
from explainer_tools.markdown import read_front_matter

REPO_ROOT = DEFAULT.root

STRICT_HEADINGS = ("## Worked example", "## Common misconceptions", "## Self-test")


@pytest.fixture(scope="module")
def outputs() -> Outputs:
    return Outputs.from_dir(REPO_ROOT / "outputs")


@pytest.fixture(scope="module")
def site() -> SiteReport:
    return check_site(REPO_ROOT)


def printed_values(outputs: Outputs, note: str) -> set[Decimal]:
    """Every value printed in the blocks named by a checked number's note."""
    values: set[Decimal] = set()
    for citation in note.split("; "):
        match = re.fullmatch(r"outputs? (?P<blocks>.+) of (?P<script>\S+\.py)", citation)
        assert match, citation
        for number in re.findall(r"\[([0-9]+)\]", match.group("blocks")):
            values.update(t.value for t in outputs.values(match.group("script"), int(number)))
    return values


def mutants(text: str) -> list[str]:
    """One-digit changes of a written number, last digit first, never a new leading zero."""
    digits = [i for i, ch in enumerate(text) if ch.isdigit()]
    found = []
    for position in reversed(digits):
        for step in range(1, 10):
            new = str((int(text[position]) + step) % 10)
            followed_by = text[position + 1:position + 2]
            leading = position == digits[0] and len(digits) > 1 and followed_by not in (".", "")
            if new == "0" and leading:
                continue
            found.append(text[:position] + new + text[position + 1:])
    return found


def test_the_committed_site_passes_in_seconds_of_cpu_time() -> None:
    began = time.process_time()  # CPU time: a loaded machine does not make it flake
    site = check_site(REPO_ROOT)
    spent = time.process_time() - began
    assert site.errors == [], "\n".join(map(str, site.errors))
    assert len(site.pages) > 40
    assert spent < 10, f"the claim check took {spent:.1f} s of CPU time"


def test_fully_cited_sections_have_no_uncited_numbers(site: SiteReport) -> None:
    """Found from the headings alone, independently of the check's own reading of them."""
    strict_lines = 0
    for report in site.pages:
        lines = (REPO_ROOT / report.page).read_text(encoding="utf-8").split("\n")
        strict: set[int] = set()
        inside = False
        for number, line in enumerate(lines, start=1):
            if line.startswith("## "):
                inside = line.startswith(STRICT_HEADINGS)
            if inside:
                strict.add(number)
        strict_lines += len(strict)
        in_strict = [o for o in report.uncited if o.line in strict]
        assert in_strict == [], (report.page, [(o.line, o.text) for o in in_strict])
    assert strict_lines > 1000, "the worked examples, misconceptions and self-tests are missing"


def batches(text: str, page: str, offsets: list[int]) -> list[list[int]]:
    """The changed numbers (by offset) in batches that hold at most one number of each table,
    list and other element. The check of a number reads only its own element, and its table's
    or list's other rows or items: changes in other elements cannot make it err or pass, so one
    check of a batch stands for one check per change. (A miss is checked again alone.)"""
    body_start = read_front_matter(text).body_start
    elements = front_matter_elements(text, body_start) + page_elements(text, body_start, page, [])
    filled: list[tuple[set, list[int]]] = []
    for offset in offsets:
        index, element = next(((i, e) for i, e in enumerate(elements)
                               if e.start <= offset < e.start + len(e.text)), (-1, None))
        if element is None:
            key: tuple = ("alone", offset)
        elif element.kind in ("row", "item"):
            key = ("group", element.group)
        else:
            key = ("element", index)
        batch = next((b for b in filled if key not in b[0]), None)
        if batch is None:
            batch = (set(), [])
            filled.append(batch)
        batch[0].add(key)
        batch[1].append(offset)
    return [found for _keys, found in filled]


def test_every_checked_number_is_caught_when_one_digit_changes(
        site: SiteReport, outputs: Outputs) -> None:
    caught, missed, second_choice, total = 0, [], 0, 0
    for report in site.pages:
        verified = {o.offset: o for o in report.checked if o.script}
        if not verified:
            continue
        text = (REPO_ROOT / report.page).read_text(encoding="utf-8")
        changes: dict[int, str] = {}
        for start, occurrence in verified.items():
            printed = printed_values(outputs, occurrence.note)
            candidates = mutants(occurrence.text)
            chosen = next((m for m in candidates if parse_number(m) not in printed), None)
            assert chosen is not None, f"no one-digit change of {occurrence.text} leaves its block"
            second_choice += chosen != candidates[0]
            assert text[start:occurrence.end] == occurrence.text
            changes[start] = chosen

        def check(offsets: list[int], text: str = text, page: str = report.page,
                  changes: dict[int, str] = changes,
                  verified: dict = verified) -> set[int]:
            mutated = text
            for start in sorted(offsets, reverse=True):
                mutated = mutated[:start] + changes[start] + mutated[verified[start].end:]
            errors = {(e.line, e.number) for e in check_page(mutated, page, outputs).errors}
            return {s for s in offsets if (verified[s].line, changes[s]) in errors}

        for offsets in batches(text, report.page, list(changes)):
            found = check(offsets)
            for start in offsets:
                total += 1
                if start in found or check([start]):
                    caught += 1
                else:
                    missed.append(f"{report.page}:{verified[start].line}: "
                                  f"{verified[start].text} -> {changes[start]}")
    print(f"\nclaim-check mutation test, whole book: caught {caught}/{total} one-digit changes; "
          f"{second_choice} needed a digit other than the first candidate because the first "
          "changed value is also printed in the cited block")
    assert total > 0, "no page writes a verified number as digits any more: retire this test"
    assert missed == [], missed
