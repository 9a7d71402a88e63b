"""Mutation harness of the claim check: does the check fail when a page's numbers are made wrong?

On every page under docs/ (chapters, errata and the rest) it takes the numbers the check verifies
and makes wrong copies of the page, one fault each, of five kinds:

- digit: one digit of a number changed, to a value that the cited block(s) do not print (a
  value-based check cannot tell two numbers the block both prints apart);
- sentence swap: two neighbouring numbers of one sentence (or list item, heading) exchanged;
- row swap: the numbers of two neighbouring cells of one table row exchanged;
- between rows: the numbers of one column in two neighbouring rows of one table exchanged;
- unit: the unit after a number changed (bits to nats, % to ppm, s to ms, MB to GB, ...), to
  one the cited block(s) do not print after that value (the block that prints "1 nat" cannot
  tell a "1 bit" made "1 nat" from the truth).

Only faults that change the page's meaning are made: swapped numbers differ in value, and they
are numbers of one output block (the values a check by value cannot tell apart). A mutant
is caught when the check reports an error, not reported on the unmutated page, on a line the
fault touched. Everything runs in-process on strings (`check_page`); nothing is written.
Sampling is deterministic: at most `cap` mutants per kind and page, drawn with a seeded
`random.Random` (string seeds are hashed with SHA-512, so PYTHONHASHSEED does not matter).

    python -m explainer_tools.claims.mutate [--seed 0] [--cap 25] [--kinds digit,unit] [-v]
                                            [--targets] [--batch] [PAGE ...]

It prints, per kind, the mutants made, caught and the catch rate, and the errors the check
reports on the unmutated pages (false errors). With `--targets` the exit status is 1 when a rate
is below its target (TARGETS) or any false error is reported; `-v` lists every missed mutant;
`--batch` checks mutants of separate elements, tables and lists in one copy of the page (the
same catches in fewer checks: `batches`; the tests compare the two).
"""

from __future__ import annotations

import argparse
import itertools
import random
import re
import sys
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path

from explainer_tools.claims.check import _analyse, check_page, pages_under
from explainer_tools.claims.model import ClaimError, Occurrence, PageReport
from explainer_tools.claims.numbers import parse_number
from explainer_tools.claims.outputs import Outputs
from explainer_tools.claims.page import (
    _cells,
    _elements,
    _front_matter_elements,
    _split_front_matter,
)
from explainer_tools.claims.units import WRONG_UNIT, unit_after
from explainer_tools.layout import DEFAULT

KINDS = ("digit", "sentence swap", "row swap", "between rows", "unit")
TARGETS = {"digit": 1.0, "sentence swap": 0.6, "row swap": 0.9, "between rows": 0.9,
           "unit": 1.0}
CAP = 25
SEED = 0


@dataclass(frozen=True)
class Mutant:
    kind: str
    page: str
    lines: tuple[int, ...]  # the page lines the fault touches
    edits: tuple[tuple[int, int, str], ...]  # (start, end, replacement), offsets in the page
    description: str
    scope: frozenset[tuple[str, int]] = frozenset()  # the elements, tables and lists it touches

    def apply(self, text: str) -> str:
        for start, end, replacement in sorted(self.edits, reverse=True):
            text = text[:start] + replacement + text[end:]
        return text


@dataclass(frozen=True)
class _Number:
    """A verified number and where it stands: its element, sentence span and table cell."""

    occurrence: Occurrence
    element: int  # index of its element
    kind: str  # the element's kind: paragraph, item, row, heading, title
    span: tuple[int, int]  # its sentence (or the whole element), absolute offsets
    group: int  # its table or list
    cell: int  # its cell in a table row, -1 elsewhere


def _located(text: str, page: str, report: PageReport) -> list[_Number]:
    _front, body_start = _split_front_matter(text)
    elements = _front_matter_elements(text, body_start) + _elements(text, body_start, page, [])
    bounds = []
    for index, element in enumerate(elements):
        *_rest, spans = _analyse(element.text, element.kind == "paragraph"
                                 and element.cites is None)
        cell_starts: list[int] = []
        if element.kind == "row":
            row = element.text.split("\n", 1)[0]
            position = 0
            for cell in _cells(row):
                position = row.find(cell, position)
                cell_starts.append(element.start + position)
                position += len(cell)
        for a, b in spans:
            bounds.append((element.start + a, element.start + b, index, element, cell_starts))
    found = []
    for occurrence in report.checked:
        if not occurrence.script:
            continue  # not verified (an error on the unmutated page)
        for start, end, index, element, cell_starts in bounds:
            if start <= occurrence.offset < end:
                cell = max((i for i, s in enumerate(cell_starts) if s <= occurrence.offset),
                           default=-1)
                found.append(_Number(occurrence, index, element.kind, (start, end),
                                     element.group, cell))
                break
    return found


def _cited_blocks(note: str) -> list[tuple[str, int]]:
    """(script, block number) of every block a checked number's note names."""
    blocks = []
    for citation in note.split("; "):
        match = re.fullmatch(r"outputs? (?P<blocks>.+) of (?P<script>\S+\.py)", citation)
        if match is not None:
            blocks += [(match.group("script"), int(number))
                       for number in re.findall(r"\[([0-9]+)\]", match.group("blocks"))]
    return blocks


def _printed(outputs: Outputs, note: str) -> set[Decimal]:
    """Every value printed in the blocks a checked number's note names."""
    return {t.value for script, number in _cited_blocks(note)
            for t in outputs.values(script, number)}


def _printed_with_unit(outputs: Outputs, note: str, value: Decimal | None, kind: str) -> bool:
    """Whether the blocks a checked number's note names print `value` with a unit of `kind`
    right after it ("1 nat": a unit change to it is a value the block prints, as a digit change
    to a printed value is)."""
    return any(t.value == value and outputs.unit_of(script, number, t)[0] == kind
               for script, number in _cited_blocks(note) for t in outputs.values(script, number))


def digit_changes(written: str) -> list[str]:
    """Every one-digit change of a written number that keeps its form (no new leading zero).

    >>> digit_changes("0.5")[:3]
    ['1.5', '2.5', '3.5']
    """
    digits = [i for i, ch in enumerate(written) if ch.isdigit()]
    changes = []
    for position in digits:
        for new in "0123456789":
            if new == written[position]:
                continue
            leading = position == digits[0] and len(digits) > 1 and written[
                position + 1:position + 2] not in (".", "")
            if new == "0" and leading:
                continue
            changes.append(written[:position] + new + written[position + 1:])
    return changes


def _value(written: str) -> Decimal | None:
    try:
        return parse_number(written)
    except (ValueError, InvalidOperation):
        return None


def _scope(*numbers: _Number) -> frozenset[tuple[str, int]]:
    """What a fault in these numbers may change the check of: their table or list (whose rows
    and items are checked together), else their element."""
    return frozenset(("group", n.group) if n.kind in ("row", "item") else ("element", n.element)
                     for n in numbers)


def _swap(kind: str, page: str, first: _Number, second: _Number, where: str) -> Mutant:
    a, b = first.occurrence, second.occurrence
    return Mutant(kind, page, tuple(sorted({a.line, b.line})),
                  ((a.offset, a.end, b.text), (b.offset, b.end, a.text)),
                  f"{where}: {a.text} (line {a.line}) <-> {b.text} (line {b.line})",
                  _scope(first, second))


def _wrong_unit(written: str, kind: str) -> str:
    wrong = WRONG_UNIT[kind]
    if written.startswith("\\"):  # \% in math
        return "\\,\\text{" + wrong + "}"
    if wrong in ("bits", "nats") and not written.endswith("s"):
        return wrong[:-1]  # bit -> nat, keeping the number of the noun
    return wrong


def page_mutants(text: str, page: str, outputs: Outputs, report: PageReport,
                 kinds: Iterable[str] = KINDS, cap: int = CAP, seed: int = SEED) -> list[Mutant]:
    """The sampled mutants of one page (at most `cap` per kind), in a fixed order."""
    numbers = _located(text, page, report)
    pool: dict[str, list[Mutant]] = {kind: [] for kind in KINDS}
    for number in numbers:
        o = number.occurrence
        printed = _printed(outputs, o.note)
        changes = [c for c in digit_changes(o.text) if _value(c) not in printed | {None}]
        if changes:
            chosen = random.Random(f"{seed}:{page}:{o.offset}").choice(changes)
            pool["digit"].append(Mutant("digit", page, (o.line,), ((o.offset, o.end, chosen),),
                                        f"{o.text} -> {chosen} (line {o.line})",
                                        _scope(number)))
        unit = unit_after(text[o.end:o.end + 40])
        if unit is not None and unit[0] in WRONG_UNIT:
            kind, start, end = unit
            written = text[o.end + start:o.end + end]
            glued_plural = written == "s" and start == 0  # '2s': a plural, not seconds
            if not glued_plural and not _printed_with_unit(outputs, o.note, o.value,
                                                           WRONG_UNIT[kind]):
                wrong = _wrong_unit(written, kind)
                pool["unit"].append(Mutant(
                    "unit", page, (o.line,), ((o.end + start, o.end + end, wrong),),
                    f"{o.text} {written} -> {o.text} {wrong} (line {o.line})", _scope(number)))
    for first, second in itertools.pairwise(numbers):
        a, b = first.occurrence, second.occurrence
        if a.value == b.value or a.text == b.text or (a.script, a.block) != (b.script, b.block):
            continue
        if first.element == second.element and first.kind != "row" and first.span == second.span:
            pool["sentence swap"].append(_swap("sentence swap", page, first, second,
                                              "sentence"))
        if first.element == second.element and first.kind == "row" and first.cell != second.cell:
            pool["row swap"].append(_swap("row swap", page, first, second, "table row"))
    rows: dict[tuple[int, int], dict[int, list[_Number]]] = {}
    for number in numbers:
        if number.kind == "row":
            rows.setdefault((number.group, number.cell), {}).setdefault(
                number.element, []).append(number)
    for (_group, _cell), by_row in sorted(rows.items()):
        ordered = sorted(by_row.items())
        for (_row_a, in_a), (_row_b, in_b) in itertools.pairwise(ordered):
            if len(in_a) != 1 or len(in_b) != 1:
                continue  # a cell holding a formula: which number pairs with which is unclear
            a, b = in_a[0].occurrence, in_b[0].occurrence
            if a.value != b.value and a.text != b.text and (a.script, a.block) == (
                    b.script, b.block):
                pool["between rows"].append(_swap("between rows", page, in_a[0], in_b[0],
                                                  "column"))
    chosen: list[Mutant] = []
    for kind in KINDS:
        if kind not in kinds:
            continue
        candidates = pool[kind]
        if len(candidates) > cap:
            candidates = random.Random(f"{seed}:{page}:{kind}").sample(candidates, cap)
            candidates.sort(key=lambda m: m.edits)
        chosen.extend(candidates)
    return chosen


def _key(error: ClaimError) -> tuple[int, str]:
    return error.line, error.message


@dataclass
class Result:
    made: Counter[str]
    caught: Counter[str]
    missed: list[Mutant]
    false_errors: list[ClaimError]
    pages: int
    seconds: float

    def rate(self, kind: str) -> float:
        return self.caught[kind] / self.made[kind] if self.made[kind] else 1.0

    def below_targets(self) -> list[str]:
        return [kind for kind in KINDS if self.made[kind] and self.rate(kind) < TARGETS[kind]]


def batches(mutants: list[Mutant]) -> list[list[Mutant]]:
    """Mutants in batches whose scopes do not meet (at most one fault per element, table and
    list), in order. A number's check reads only its element and its table's or list's other
    rows or items, so faults in scopes apart cannot change each other's errors: one check of
    a batch gives each fault's errors. A mutant without a scope stands alone."""
    filled: list[tuple[set[tuple[str, int]], list[Mutant]]] = []
    for mutant in mutants:
        batch = next((b for b in filled if mutant.scope and not b[0] & mutant.scope), None)
        if batch is None:
            batch = (set(), [])
            filled.append(batch)
        batch[0].update(mutant.scope or {("alone", len(filled))})
        batch[1].append(mutant)
    return [members for _scope, members in filled]


def run(root: Path = DEFAULT.root, pages: Iterable[Path] | None = None,
        kinds: Iterable[str] = KINDS, cap: int = CAP, seed: int = SEED,
        batch: bool = False) -> Result:
    """Make and check the mutants of every page; nothing is written. With `batch`, mutants in
    scopes apart are checked together (`batches`): the same result, in fewer checks."""
    began = time.perf_counter()
    kinds = tuple(kinds)
    outputs = Outputs.from_dir(root / "outputs")
    made: Counter[str] = Counter()
    caught: Counter[str] = Counter()
    missed: list[Mutant] = []
    false_errors: list[ClaimError] = []
    paths = list(pages) if pages is not None else pages_under(root / "docs")
    for path in paths:
        name = path.resolve().relative_to(root.resolve()).as_posix()
        text = path.read_text(encoding="utf-8")
        report = check_page(text, name, outputs)
        false_errors.extend(report.errors)
        before = Counter(_key(e) for e in report.errors)
        made_here = page_mutants(text, name, outputs, report, kinds, cap, seed)
        for group in batches(made_here) if batch else [[m] for m in made_here]:
            edits = tuple(edit for mutant in group for edit in mutant.edits)
            mutated = Mutant("batch", name, (), edits, "").apply(text)
            new = Counter(_key(e) for e in check_page(mutated, name, outputs).errors) - before
            for mutant in group:
                made[mutant.kind] += 1
                if any(line in mutant.lines for line, _message in new):
                    caught[mutant.kind] += 1
                else:
                    missed.append(mutant)
    return Result(made, caught, missed, false_errors, len(paths),
                  time.perf_counter() - began)


def format_result(result: Result, verbose: bool = False) -> str:
    out = [f"claim-check mutation harness: {result.pages} pages ({result.seconds:.1f} s)",
           f"{'kind':<14} {'mutants':>8} {'caught':>8} {'rate':>8} {'target':>8}"]
    for kind in KINDS:
        if result.made[kind]:
            out.append(f"{kind:<14} {result.made[kind]:>8} {result.caught[kind]:>8} "
                       f"{100 * result.rate(kind):>7.1f}% {100 * TARGETS[kind]:>7.0f}%")
    out.append(f"false errors on the unmutated pages: {len(result.false_errors)}")
    out.extend(f"  error: {error}" for error in result.false_errors)
    if verbose:
        out.extend(f"  missed {m.kind}: {m.page}: {m.description}" for m in result.missed)
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m explainer_tools.claims.mutate",
                                     description="Mutation harness of the claim check.")
    parser.add_argument("pages", nargs="*", type=Path, help="pages (default: all of docs/)")
    parser.add_argument("--root", type=Path, default=DEFAULT.root)
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--cap", type=int, default=CAP, help="mutants per kind and page")
    parser.add_argument("--kinds", default=",".join(KINDS),
                        help="comma-separated kinds: " + ", ".join(KINDS))
    parser.add_argument("--targets", action="store_true",
                        help="exit 1 when a rate is below its target or a false error is found")
    parser.add_argument("-v", "--verbose", action="store_true", help="list the missed mutants")
    parser.add_argument("--batch", action="store_true",
                        help="check mutants in separate elements together (faster, same result)")
    args = parser.parse_args(argv)
    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    unknown = [k for k in kinds if k not in KINDS]
    if unknown:
        parser.error(f"unknown kind {unknown[0]!r}; known: {', '.join(KINDS)}")
    result = run(args.root, args.pages or None, kinds, args.cap, args.seed, args.batch)
    print(format_result(result, args.verbose))
    if args.targets and (result.below_targets() or result.false_errors):
        print("below target: " + (", ".join(result.below_targets()) or "none")
              + f"; false errors: {len(result.false_errors)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
