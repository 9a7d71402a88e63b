"""Mutation test of the claim check over Chapter 5.

For every number the check verifies on the committed chapter, change one digit in a copy of the
page and assert that the check then fails on that line, naming the changed number. The catch rate
is printed (run with `-s` to see it) and must be 100 %.

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
    PageReport,
    check_page,
    check_site,
    parse_number,
)
from explainer_tools.layout import DEFAULT

REPO_ROOT = DEFAULT.root

CHAPTER = REPO_ROOT / "docs" / "chapters" / "05-transformers-gpt2.md"
PAGE = "docs/chapters/05-transformers-gpt2.md"
STRICT_HEADINGS = ("## Worked example", "## Common misconceptions", "## Self-test")


@pytest.fixture(scope="module")
def outputs() -> Outputs:
    return Outputs.from_dir(REPO_ROOT / "outputs")


@pytest.fixture(scope="module")
def chapter() -> str:
    return CHAPTER.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def baseline(chapter: str, outputs: Outputs) -> PageReport:
    return check_page(chapter, PAGE, outputs)


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


def test_chapter_5_passes_the_check(baseline: PageReport) -> None:
    assert baseline.errors == [], "\n".join(map(str, baseline.errors))
    assert len(baseline.checked) > 300  # the chapter quotes several hundred numbers


def test_the_committed_site_passes_in_seconds_of_cpu_time() -> None:
    began = time.process_time()  # CPU time: a loaded machine does not make it flake
    site = check_site(REPO_ROOT)
    spent = time.process_time() - began
    assert site.errors == [], "\n".join(map(str, site.errors))
    assert any(report.page == PAGE for report in site.pages)
    assert spent < 10, f"the claim check took {spent:.1f} s of CPU time"


def test_fully_cited_sections_have_no_uncited_numbers(chapter: str,
                                                      baseline: PageReport) -> None:
    lines = chapter.split("\n")
    strict: set[int] = set()
    inside = False
    for number, line in enumerate(lines, start=1):
        if line.startswith("## "):
            inside = line.startswith(STRICT_HEADINGS)
        if inside:
            strict.add(number)
    assert len(strict) > 100, "the worked example, misconceptions and self-test are missing"
    in_strict = [o for o in baseline.uncited if o.line in strict]
    assert in_strict == [], [(o.line, o.text) for o in in_strict]


def batches(chapter: str, baseline: PageReport, changes: dict[int, str]) -> list[list[int]]:
    """The changed numbers (by offset) in batches that hold at most one number of each table,
    list and other element. The check of a number reads only its own element, and its table's
    or list's other rows or items: changes in other elements cannot make it err or pass, so one
    check of a batch stands for one check per change. (A miss is checked again alone.)"""
    from explainer_tools.claims.mutate import _located

    group = {}
    for number in _located(chapter, PAGE, baseline):
        kind = "group" if number.kind in ("row", "item") else "element"
        group[number.occurrence.offset] = (kind, number.group if kind == "group"
                                           else number.element)
    filled: list[tuple[set, list[int]]] = []
    for offset in changes:
        key = group.get(offset, ("alone", offset))
        batch = next((b for b in filled if key not in b[0]), None)
        if batch is None:
            batch = (set(), [])
            filled.append(batch)
        batch[0].add(key)
        batch[1].append(offset)
    return [offsets for _keys, offsets in filled]


def test_every_checked_number_is_caught_when_one_digit_changes(
        chapter: str, outputs: Outputs, baseline: PageReport) -> None:
    caught, missed, second_choice = 0, [], 0
    changes: dict[int, str] = {}
    occurrences = {o.offset: o for o in baseline.checked}
    for occurrence in baseline.checked:
        printed = printed_values(outputs, occurrence.note)
        candidates = mutants(occurrence.text)
        chosen = next((m for m in candidates if parse_number(m) not in printed), None)
        assert chosen is not None, f"no one-digit change of {occurrence.text} leaves its block"
        second_choice += chosen != candidates[0]
        start = occurrence.offset
        assert chapter[start:start + len(occurrence.text)] == occurrence.text
        changes[start] = chosen

    def check(offsets: list[int]) -> set[int]:
        mutated = chapter
        for start in sorted(offsets, reverse=True):
            end = occurrences[start].end
            mutated = mutated[:start] + changes[start] + mutated[end:]
        errors = {(e.line, e.number) for e in check_page(mutated, PAGE, outputs).errors}
        return {s for s in offsets if (occurrences[s].line, changes[s]) in errors}

    for offsets in batches(chapter, baseline, changes):
        found = check(offsets)
        for start in offsets:
            occurrence = occurrences[start]
            if start in found or check([start]):
                caught += 1
            else:
                missed.append(f"line {occurrence.line}: {occurrence.text} -> {changes[start]}")
    total = len(baseline.checked)
    print(f"\nclaim-check mutation test, Chapter 5: caught {caught}/{total} one-digit changes "
          f"({100 * caught / total:.1f} %); {second_choice} needed a digit other than the "
          "first candidate because the first changed value is also printed in the cited block")
    assert missed == [], missed
    assert caught == total


@pytest.mark.parametrize(("page", "written", "mutated"), [
    ("docs/chapters/14-subsampling-complete-bound.md", "Occam part 1.0285 and",
     "Occam part 9.9999 and"),
    ("docs/chapters/11-prefix-codes-occam-bound.md", "the table 69.", "the table 96."),
])
def test_probe_D5_a_lower_case_reference_word_does_not_hide_a_number(
        page: str, written: str, mutated: str, outputs: Outputs) -> None:
    """"part" and "table" in lower case begin ordinary phrases, not references: the number after
    them is checked."""
    text = (REPO_ROOT / page).read_text(encoding="utf-8")
    assert text.count(written) == 1, f"{page} no longer says {written!r}: update the probe"
    assert check_page(text, page, outputs).errors == []
    errors = check_page(text.replace(written, mutated), page, outputs).errors
    assert [e.number for e in errors] == [re.findall(r"[0-9.]*[0-9]", mutated)[0]]


# --- the harness of `make mutate-claims` (explainer_tools/claims/mutate.py) ------------------


def test_the_harness_makes_each_kind_of_fault_on_a_small_page() -> None:
    from explainer_tools.claims import mutate

    output = ("Probe (probe.py)\n[1] loss (bits): unmerged 3.850 bits, merged 5.479 bits\n"
              "[2] levels, loss:\n     3    4.228\n    11    2.827\n    31    2.478\n")
    outputs = Outputs({"probe.py": output})
    page = ("---\nscripts: [probe.py]\n---\nThe loss is unmerged 3.850 bits and merged 5.479 "
            "bits (output [1]).\n\nRows of output [2]:\n\n| levels | loss |\n| --- | --- |\n"
            "| 3 | 4.228 |\n| 11 | 2.827 |\n| 31 | 2.478 |\n")
    report = check_page(page, "docs/x.md", outputs)
    assert report.errors == []
    made = mutate.page_mutants(page, "docs/x.md", outputs, report, cap=100)
    kinds = {m.kind for m in made}
    assert kinds == {"digit", "sentence swap", "row swap", "between rows", "unit"}
    for mutant in made:
        wrong = check_page(mutant.apply(page), "docs/x.md", outputs).errors
        assert any(e.line in mutant.lines for e in wrong), mutant.description
    again = mutate.page_mutants(page, "docs/x.md", outputs, report, cap=100)
    assert again == made  # deterministic
    assert mutate.digit_changes("10") == ["20", "30", "40", "50", "60", "70", "80", "90", "11",
                                          "12", "13", "14", "15", "16", "17", "18", "19"]


def test_the_harness_changes_no_unit_to_one_the_block_prints_after_that_value() -> None:
    """"1 bit" made "1 nat" is no fault a check can see when the block prints "1 nat"; the same
    page against a block that does not is mutated."""
    from explainer_tools.claims import mutate

    page = "---\nscripts: [probe.py]\n---\nProbability 1/2 costs 1 bit (output [1]).\n"

    def unit_mutants(block: str) -> list[str]:
        outputs = Outputs({"probe.py": f"Probe (probe.py)\n[1] {block}\n"})
        report = check_page(page, "docs/x.md", outputs)
        assert report.errors == []
        return [m.description for m in mutate.page_mutants(page, "docs/x.md", outputs, report,
                                                             kinds=["unit"])]

    assert unit_mutants("p = 1/2: 1.0000 bits = 0.6931 nats; 1 nat = 1.4427 bits") == []
    assert unit_mutants("p = 1/2: 1.0000 bits = 0.6931 nats") == ["1 bit -> 1 nat (line 4)"]


def test_the_harness_in_batches_catches_what_it_catches_one_by_one() -> None:
    """`--batch` (and the guard below) checks faults of separate elements, tables and lists in
    one copy of the page: on two real pages it must catch and miss exactly what the check of
    one fault at a time catches and misses."""
    from explainer_tools.claims import mutate

    pages = [REPO_ROOT / "docs/chapters/19-lora.md", REPO_ROOT / "docs/errata/e44.md"]
    one = mutate.run(REPO_ROOT, pages, cap=6)
    together = mutate.run(REPO_ROOT, pages, cap=6, batch=True)
    assert sum(one.made.values()) >= 30
    assert (together.made, together.caught) == (one.made, one.caught)
    assert sorted(m.description for m in together.missed) == sorted(
        m.description for m in one.missed)
    outputs = Outputs.from_dir(REPO_ROOT / "outputs")
    text, name = pages[0].read_text(encoding="utf-8"), "docs/chapters/19-lora.md"
    made = mutate.page_mutants(text, name, outputs, check_page(text, name, outputs), cap=6)
    sizes = [len(b) for b in mutate.batches(made)]
    assert max(sizes) > 1  # batches do form


@pytest.mark.slow
def test_the_harness_on_every_page_keeps_its_catch_rates() -> None:
    """`make mutate-claims` on a sample (8 mutants per kind and page): no false error on the
    committed pages, every one-digit change and unit change of the sample caught as the full
    run catches them, and the swap rates no lower than the rules reach today (the
    full run's rates are in the harness's output)."""
    from explainer_tools.claims import mutate

    result = mutate.run(REPO_ROOT, cap=8, batch=True)
    print("\n" + mutate.format_result(result))
    assert result.false_errors == []
    assert result.rate("digit") == 1.0
    assert result.rate("unit") == 1.0
    # The sample is drawn from today's pages, so the rates move when the prose does: after the
    # economy pass removed citations that repeated the one before them in a paragraph (rules
    # unchanged) 135/156, 133/152 and 182/319; after this round's reviews 181/319
    assert result.rate("row swap") >= 0.86  # 135/156
    assert result.rate("between rows") >= 0.87  # 133/152
    assert result.rate("sentence swap") >= 0.56  # 181/319
