"""The rules against swapped numbers: order on a line, a row's own line, labels, symbols and units.
Each returns an error message, or nothing when the number stands where it should."""

from __future__ import annotations

import functools
import itertools
import re

from explainer_tools.claims.model import Citation, ClaimError, PageReport
from explainer_tools.claims.numbers import (
    PLAIN_WORD,
    STOPWORDS,
    Token,
    content_words,
)
from explainer_tools.claims.outputs import Outputs
from explainer_tools.claims.page import (
    _cells,
    _Element,
    _Unit,
)
from explainer_tools.claims.pairing import _paired_apart, _printed_once


def check_order(units: list[_Unit], page: str, outputs: Outputs, report: PageReport) -> None:
    """The order rule, against swapped numbers. Two numbers of one sentence, list
    item or table row that their cited block prints once each, on one line, must stand in the
    line's order; and in a table, the cells of one column that hold one such number each must
    follow the block's lines in the rows' order. A swap of two such numbers breaks the order:
    an error on the second of them."""
    flagged = {(e.line, e.number) for e in report.errors}
    columns: dict[tuple[int, int], list[tuple[int, tuple[str, int, int, int], Token, int]]] = {}
    labelled: dict[int, list[tuple[_Unit, tuple[str, int, int] | None]]] = {}
    for unit in units:
        element = unit.element
        placed = []
        row_line = _row_line(unit, outputs) if element.kind == "row" else None
        if element.kind == "row":
            labelled.setdefault(element.group, []).append((unit, row_line))
        for token in unit.numbers:
            if token.value is None or any(token.value in w.values for w in element.waivers):
                continue
            line = element.line + element.text.count("\n", 0, token.start)
            if (line, token.text) in flagged:
                continue
            where = _printed_once(unit, token, outputs)
            if row_line is not None and _cell_index(element, token.start) > 0 and (
                    _alone_in_cell(unit, token) or _list_cell(element, token.start)):
                on_row, message = _on_row_line(token, row_line, outputs, unit)
                if message:
                    report.errors.append(ClaimError(page, line, message, token.text))
                    flagged.add((line, token.text))
                    continue
                where = on_row or where
            if where is not None:
                placed.append((token, where, line))
        if element.kind != "row":
            for line, token, message in _paired_apart(unit, outputs, flagged):
                report.errors.append(ClaimError(page, line, message, token.text))
                flagged.add((line, token.text))
        if row_line is not None:
            for line, token, message in _row_order(unit, row_line, outputs, flagged):
                report.errors.append(ClaimError(page, line, message, token.text))
                flagged.add((line, token.text))
        for token in unit.numbers:
            line = element.line + element.text.count("\n", 0, token.start)
            if token.value is None or (line, token.text) in flagged or any(
                    token.value in w.values for w in element.waivers):
                continue
            message = _symbol_mismatch(unit, token, outputs)
            if message:
                flagged.add((line, token.text))
            else:
                message = _label_mismatch(unit, token, outputs)
            if message:
                report.errors.append(ClaimError(page, line, message, token.text))
        if element.kind == "row":
            for token, where, line in placed:
                if _alone_in_cell(unit, token):
                    cell = _cell_index(element, token.start)
                    columns.setdefault((element.group, cell), []).append(
                        (element.start, where, token, line))
    for rows in labelled.values():
        _check_row_labels(rows, page, outputs, report)
    for entries in columns.values():
        entries.sort(key=lambda entry: entry[0])
        _check_column_places(entries, page, outputs, report)
        for (_sa, wa, a, _la), (_sb, wb, b, lb) in itertools.pairwise(entries):
            if wa[:2] == wb[:2] and wb[2] < wa[2] and _form(a.text) == _form(b.text):
                report.errors.append(ClaimError(page, lb, (
                    f"{b.text} comes after {a.text} in its table column, but [{wb[1]}] of "
                    f"{wb[0]} prints it on an earlier line (numbers swapped between rows?)"),
                    b.text))


def _row_order(unit: _Unit, row_line: tuple[str, int, int], outputs: Outputs,
               flagged: set[tuple[int, str]]) -> list[tuple[int, Token, str]]:
    """The row-order rule: the number cells of a row (after its label; one number each, or a
    list) must be printings of the line the label names, in the line's order. A value printed
    there more than once takes its first printing after the cell before (the greedy match,
    which finds an order whenever one exists); a cell whose value the line prints only before
    that point stands out of order: (its page line, its token, the message) each."""
    element = unit.element
    script, number, index = row_line
    text, _words, printed = outputs.line_words(script, number)[index]
    errors = []
    position = -1
    previous: Token | None = None
    for token in unit.numbers:
        line = element.line + element.text.count("\n", 0, token.start)
        if token.value is None or (line, token.text) in flagged or _cell_index(
                element, token.start) < 1 or not (_alone_in_cell(unit, token) or _list_cell(
                element, token.start)) or any(token.value in w.values for w in element.waivers):
            continue
        places = [t.start for t in printed if t.value == token.value]
        later = [p for p in places if p > position]
        if later:
            position, previous = later[0], token
        elif places and previous is not None:
            errors.append((line, token, (
                f"{previous.text} and {token.text} stand in the other order on the line their "
                f"row's label names: {text.strip()!r} (cells swapped?)")))
    return errors


def _check_row_labels(rows: list[tuple[_Unit, tuple[str, int, int] | None]], page: str,
                      outputs: Outputs, report: PageReport) -> None:
    """The label rule of tables: when the first cells of two rows of a table at least name
    their output lines (`_row_line`), a row whose first cell holds a number but names no line at
    all (no line prints it first, with the cell's words) had a number swapped into its label
    ("degree 1 (0.3789 parameters)"): an error."""
    if sum(1 for _unit, row_line in rows if row_line is not None) < 2:
        return
    flagged = {e.line for e in report.errors}
    for unit, row_line in rows:
        first = (_cells(unit.element.text.split("\n", 1)[0]) or [""])[0]
        numbers = [t for t in unit.numbers if t.start < len(first) + 2 and t.value is not None]
        if not numbers or unit.element.line in flagged or _row_lines(unit, outputs) != []:
            continue
        if row_line is not None:  # its cells name the line: the label's numbers stand on it
            printed = {t.value for t in outputs.line_words(*row_line[:2])[row_line[2]][2]}
            numbers = [t for t in numbers if t.value not in printed]
            if not numbers:
                continue
        report.errors.append(ClaimError(page, unit.element.line, (
            f"the row's label {first.strip()!r} names no line of "
            f"{'; '.join(c.describe() for c in unit.citations)}, while the table's other rows "
            "name theirs (a number swapped into the label?)"), numbers[0].text))


def _line_labels(line: str, printed: list[Token]) -> list[tuple[Token, set[str]]]:
    """Each number printed on a line of output with its label (`_labels_of`, cached)."""
    return _labels_of(line, tuple(printed))


@functools.lru_cache(maxsize=8192)
def _labels_of(line: str, printed: tuple[Token, ...]) -> list[tuple[Token, set[str]]]:
    """Each number printed on a line of output with its label: the last content word before it,
    after the number before it and any clause mark ("unmerged 3.850 bits, merged 5.479":
    'merged' labels 5.479)."""
    labels = []
    previous = 0
    for token in printed:
        pieces = re.split(r"[,;:()\[\]]", line[previous:token.start])
        between = pieces[-1]
        words = [w for w in PLAIN_WORD.finditer(between) if w.group().lower() not in STOPWORDS]
        if words and previous and len(pieces) == 1 and not between[:words[-1].start()].strip():
            words = []  # the noun of the number before it ("50 tensors with 124,354,560")
        labels.append((token, content_words(words[-1].group()) if words else set()))
        previous = token.end
    return labels


def _word_before(unit: _Unit, token: Token) -> str:
    """The content word right before a number in its sentence or cell, or "" when the only word
    since the number before it may be that number's own noun ("3.850 bits unmerged to 5.479")."""
    text = unit.element.text
    if unit.element.kind == "row" and token.start < len(
            (_cells(text.split("\n", 1)[0]) or [""])[0]) + 2:
        return ""
    previous = [t.end for t in unit.numbers if t.end <= token.start and t.start >= unit.start]
    before_start = max([unit.start, *previous])
    between = text[before_start:token.start]
    words = context_words(between)
    if previous and len(re.split(r"[,;:()]|\.\s", between)) == 1 and len(
            [w for w in PLAIN_WORD.findall(between) if w.lower() not in STOPWORDS]) < 2:
        return ""
    return words[0] if words else ""


def _label_mismatch(unit: _Unit, token: Token, outputs: Outputs) -> str:
    """The label rule, against numbers swapped within a sentence or a row. The word
    right before a number in prose (`_word_before`) is compared with the labels of the output
    lines that print its value (`_line_labels`). When no printing carries that word as its
    label, while a line that prints the value labels exactly one other number with it, and
    that other number stands in the same sentence after this printing's own label, the two
    were swapped: each stands after the other's label."""
    word = _word_before(unit, token)
    if not word:
        return ""
    suspect = ""
    for key in dict.fromkeys((c.script, n) for c in unit.citations for n in c.blocks):
        for line_text, _words, printed in outputs.line_words(*key):
            if not any(t.value == token.value for t in printed):
                continue
            labels = _line_labels(line_text, printed)
            own = [words for t, words in labels if t.value == token.value]
            if any(word in words for words in own):
                return ""
            others = [t for t, words in labels if word in words and t.value != token.value]
            if suspect or len(others) != 1 or not all(own):
                continue
            partners = [t for t in unit.numbers if t.value == others[0].value]
            if any(_word_before(unit, t) in set().union(*own) for t in partners):
                suspect = (f"{token.text} follows '{word}', but on the line of [{key[1]}] of "
                           f"{key[0]} that prints it, '{word}' labels {others[0].text}: "
                           f"{line_text.strip()!r} (swapped numbers?)")
    return suspect


def _place_on_line(where: tuple[str, int, int, int], outputs: Outputs) -> tuple[int, list[Token],
                                                                                  str]:
    """Which printed number of its line a printing is (0-based), the line's numbers, the line."""
    script, number, index, offset = where
    line_start = (outputs.blocks(script) or {})[number].text.rfind("\n", 0, offset) + 1
    text, _words, printed = outputs.line_words(script, number)[index]
    place = next((i for i, t in enumerate(printed) if t.start == offset - line_start), -1)
    return place, printed, text


def _check_column_places(entries: list[tuple[int, tuple[str, int, int, int], Token, int]],
                         page: str, outputs: Outputs, report: PageReport) -> None:
    """A table column copies one place of its rows' output lines (the third number of each, say).
    When every other cell of the column (two at least) comes from the same place of its line and
    this cell does not, counted from the line's start and from its end alike (a line may hold
    an extra number in its label), while its line prints another number at that place, the
    cell was swapped with another of its row: an error."""
    places = [(_place_on_line(where, outputs), token, line) for _s, where, token, line in entries]
    if len(places) < 3:
        return
    for index, ((place, printed, text), token, line) in enumerate(places):
        from_end = len(printed) - place
        others = [(p, len(pr) - p) for j, ((p, pr, _t), _tk, _l) in enumerate(places) if j != index]
        starts, ends = {p for p, _e in others}, {e for _p, e in others}
        if len(starts) != 1 or len(ends) != 1:
            continue
        expected, expected_end = starts.pop(), ends.pop()
        if place == expected or from_end == expected_end or not 0 <= expected < len(
                printed) or printed[expected].value == token.value:
            continue
        report.errors.append(ClaimError(page, line, (
            f"{token.text} stands in a table column whose other cells copy number "
            f"{expected + 1} of their output lines, but it is number {place + 1} of its line, "
            f"which prints {printed[expected].text} there: {text.strip()!r} (cells swapped in "
            "the row?)"), token.text))


SYMBOL_BEFORE = re.compile(r"(?<![A-Za-z0-9_\\/*}])(?P<symbol>\\?[A-Za-z][A-Za-z0-9]*"
                           r"(?:_\{?[A-Za-z0-9]+\}?)?)(?:\\\))?\s*(?:=|\\approx|≈)\s*$")
OPERAND_AFTER = re.compile(r"\s*(?:[-+*/×−]|x\s|\\times)\s*[0-9(]")
# a setting named in inline code right before its value ("`lora_alpha` 32", "`block_size` = 1,024")
CODE_NAME_BEFORE = re.compile(r"`(?P<symbol>[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)?)`\s*=?\s*$")
_SYMBOL_NAMES = {"varepsilon": "eps", "epsilon": "eps", "\u03b5": "eps", "\u03b1": "alpha"}


def _symbol_before(text: str, fold: bool = True) -> str:
    """The symbol a number is assigned to, from the text just before it ("N = ", "\\alpha=",
    "n_{layer} = ", "\\(N\\) = "; not a ratio's "/r = "; a name in inline code,
    "`lora_alpha` 32"), normalised (with `fold`, to lower case, as outputs may write N as n:
    "alpha", "n_layer"), or ""."""
    match = SYMBOL_BEFORE.search(text[-40:]) or CODE_NAME_BEFORE.search(text[-40:])
    if not match:
        return ""
    symbol = match.group("symbol").lstrip("\\").replace("{", "").replace("}", "")
    symbol = _SYMBOL_NAMES.get(symbol, symbol)
    return symbol.lower() if fold else symbol


def _symbol_mismatch(unit: _Unit, token: Token, outputs: Outputs) -> str:
    """The symbol rule, against numbers swapped between symbols: a number written
    `X = v` (in prose or math) whose cited block(s) print v only as `Y = v` with other symbols,
    and print X as `X = w`, was swapped with w; so was one that they print never as `X = v`
    but also with no symbol, when w stands in the same sentence, not as `X = w`."""
    text = unit.element.text
    symbol = _symbol_before(text[max(unit.start, token.start - 40):token.start])
    if not symbol:
        return ""
    own: list[str] = []
    assigned: list[tuple[str, Token, str]] = []
    for citation in unit.citations:
        for number in citation.blocks:
            for line_text, _words, printed in outputs.line_words(citation.script, number):
                for t in printed:
                    named = "" if OPERAND_AFTER.match(line_text, t.end) else _symbol_before(
                        line_text[:t.start])  # "L = 115,474 + 176 = ...": L is no 115,474
                    if t.value == token.value:
                        own.append(named)
                    elif named == symbol:
                        assigned.append((named, t, line_text))
    if "" in own:  # printed unnamed too: swapped only with a number the sentence holds
        written = {t.value for t in unit.numbers if t is not token and _symbol_before(
            text[max(unit.start, t.start - 40):t.start]) != symbol}
        assigned = [entry for entry in assigned if entry[1].value in written]
    if not own or symbol in own or not assigned:
        return ""
    _named, other, line_text = assigned[0]
    ways = [f"as {n} = {token.text}" for n in sorted(set(own) - {""})] + ["with no symbol"] * (
        "" in own)
    return (f"{symbol} = {token.text}, but the cited block(s) print {token.text} only "
            f"{' or '.join(ways)}, and {symbol} = {other.text}: {line_text.strip()!r} (swapped "
            "numbers?)")


def _row_line(unit: _Unit, outputs: Outputs) -> tuple[str, int, int] | None:
    """The one output line a table row copies: the one its first cell names (`_row_lines`),
    else the one line that prints all the numbers of its other cells (`_printing_all`), or
    None."""
    found = _row_lines(unit, outputs)
    if found is not None and len(found) == 1:
        return found[0]
    found = _printing_all(unit, outputs)
    return found[0] if len(found) == 1 else None


def _printing_all(unit: _Unit, outputs: Outputs) -> list[tuple[str, int, int]]:
    """The lines of the cited block(s) that print every number of a row's cells after its
    label (two at least)."""
    element = unit.element
    values = {t.value for t in unit.numbers if t.value is not None and _cell_index(
        element, t.start) > 0}
    if len(values) < 2:
        return []
    keys = dict.fromkeys((c.script, n) for c in unit.citations for n in c.blocks)
    return [(script, number, index) for script, number in keys
            for index, (_t, _w, printed) in enumerate(outputs.line_words(script, number))
            if values <= {t.value for t in printed}]


def _row_lines(unit: _Unit, outputs: Outputs) -> list[tuple[str, int, int]] | None:
    """The output lines a table row's first cell names: (script, block, line index) each, or
    None when it names none by its form. A first cell holding one number names the lines of
    the cited block(s) whose first printed number it is; a first cell of words names the lines
    holding all of them, and when it holds numbers too ("bigram counted from 10 documents"),
    printing them in order."""
    text = unit.element.text.split("\n", 1)[0]
    cells = _cells(text)
    if len(cells) < 2:
        return None  # not a row: it names nothing
    keys = [(c.script, n) for c in unit.citations for n in c.blocks]
    label_numbers = [t for t in unit.numbers if t.start < len(cells[0]) + 2 and t.value is not
                     None]
    found = []
    if len(label_numbers) == 1 and not content_words(cells[0]):
        value = label_numbers[0].value
        for script, number in dict.fromkeys(keys):
            for index, (_t, _w, printed) in enumerate(outputs.line_words(script, number)):
                if printed and printed[0].value == value:
                    found.append((script, number, index))
    else:
        words = content_words(cells[0])
        values = [t.value for t in label_numbers]
        if not words:
            return None  # several numbers and no words: it names nothing
        for script, number in dict.fromkeys(keys):
            for index, (_t, line_words, printed) in enumerate(outputs.line_words(script, number)):
                if words <= line_words and len(printed) > len(values) and _in_order(
                        values, [t.value for t in printed]):
                    found.append((script, number, index))
    return found


def _in_order(wanted: list, values: list) -> bool:
    """Whether `wanted` is a subsequence of `values`."""
    rest = iter(values)
    return all(any(value == w for value in rest) for w in wanted)


def _on_row_line(token: Token, row_line: tuple[str, int, int], outputs: Outputs, unit: _Unit
                 ) -> tuple[tuple[str, int, int, int] | None, str]:
    """Where the row's line prints `token` (when it prints its value once), and an error when
    it prints it nowhere but another line of the cited block(s) does, and the row's line prints
    a number written alike (as many digits and decimals; else, after its first number, as many
    decimals): a cell copied from another row."""
    script, number, index = row_line
    block = (outputs.blocks(script) or {})[number]
    line_start = sum(len(line) + 1 for line in block.lines[:index])
    text, _words, printed = outputs.line_words(script, number)[index]
    same = [t for t in printed if t.value == token.value]
    if len(same) == 1:
        return (script, number, index, line_start + same[0].start), ""
    if same:
        return None, ""
    alike = [t for t in printed if _form(t.text) == _form(token.text)] or [
        t for t in printed[1:] if t.decimals == token.decimals]
    if not alike:
        return None, ""
    return None, (f"{token.text} is printed in {'; '.join(c.describe() for c in unit.citations)}"
                  f", but not on the line its row's label names, which prints "
                  f"{', '.join(t.text for t in alike)}: {text.strip()!r} (a number from another "
                  "row?)")


def _list_cell(element: _Element, position: int) -> bool:
    """Whether the table cell at `position` holds numbers only, with commas, signs, "+-" or
    "of" ("0.9181, 1.0819", "2.0551 +- 0.0020", "32 of 64"), not a formula."""
    index = _cell_index(element, position)
    cells = _cells(element.text.split("\n", 1)[0])
    return 0 <= index < len(cells) and re.fullmatch(r"(?:[\s0-9.,%+\-−±]|\bof\b)+",
                                                     cells[index]) is not None


def _cell_index(element: _Element, position: int) -> int:
    row = element.text.split("\n", 1)[0]
    offset = 0
    for index, cell in enumerate(_cells(row)):
        offset = row.find(cell, offset)
        if offset <= position < offset + len(cell):
            return index
        offset += len(cell)
    return -1


CONTEXT_WORDS = 3  # content words before a number that may name its row
PROSE_WORDS = 1  # of them, how many must name one line together (0: tables only)
def context_words(before: str) -> list[str]:
    """The content words just before a number that may say what it is, nearest first: from the
    last clause mark or number on, at most CONTEXT_WORDS of them.

    >>> context_words("12 layers; the token embedding holds ")
    ['hold', 'embedding', 'token']
    """
    return list(_context_words(before))


@functools.lru_cache(maxsize=8192)
def _context_words(before: str) -> tuple[str, ...]:
    before = re.split(r"[,;:()\[\]0-9]|\.\s", before)[-1]
    words = [w for w in PLAIN_WORD.findall(re.sub(r"\\[A-Za-z]+", " ", before))
             if w.lower() not in STOPWORDS]
    return tuple(w for word in reversed(words[-CONTEXT_WORDS:]) for w in content_words(word))


def _context(unit: _Unit, token: Token) -> tuple[list[str], int]:
    """Context words of a number and how many of them must name its row: in a table row, every
    word of the row's label (its first cell); in prose, the two nearest `context_words` of the
    text before it in its sentence that the block uses."""
    text = unit.element.text
    if unit.element.kind == "row":
        cells = _cells(text.split("\n", 1)[0])
        first = cells[0] if cells else ""
        if token.start < len(first) + 2:
            return [], 0
        label = sorted(content_words(first))
        return label, len(label)
    before_start = max([unit.start] + [t.end for t in unit.numbers if t.end <= token.start])
    return context_words(text[before_start:token.start]), PROSE_WORDS


def _form(text: str) -> tuple[int, int]:
    """How a number is written: (digits before the point, digits after it)."""
    digits = re.sub(r"[^0-9.]", "", text.replace("{,}", ""))
    whole, _, fraction = digits.partition(".")
    return len(whole.lstrip("0") or "0"), len(fraction)


def named_row(context: list[str], need: int, lines: list[tuple[str, set[str], list[Token]]]
              ) -> tuple[str, str, list[Token]] | None:
    """The row that context words name. In prose, the `need` nearest words that the cited
    block(s) use must all stand on one line and on no other; for a table row's label, all its
    words. That line must print a number. Returns (the nearest of those words, the line, the
    numbers printed after that word on it), or None.

    >>> lines = [("token embedding 38,633,472", {"token", "embedding"}, []),
    ...          ("attention 22.92", {"attention"}, [])]
    >>> named_row(["embedding", "token", "hold"], 2, lines) is None  # prints no number
    True
    """
    known = [w for w in context if any(w in words for _, words, _ in lines)]
    if need < 1 or len(known) < need or (need == len(context) and len(known) < len(context)):
        return None
    chosen = set(known[:need])
    holders = [(text, printed) for text, words, printed in lines if chosen <= words]
    if len(holders) != 1 or not holders[0][1]:
        return None
    text, printed = holders[0]
    at = _word_position(text, known[0])
    after = [t for t in printed if t.start >= at]
    return known[0], text, after or [max(printed, key=lambda t: t.start)]


def _ordinal(unit: _Unit, token: Token) -> int:
    """Which number after its label `token` is: in a table row, its place among the row's
    numbers after the first cell (the Share column's number is the second); in prose, the
    first."""
    if unit.element.kind != "row":
        return 0
    first = _cells(unit.element.text.split("\n", 1)[0])
    label_end = len(first[0]) + 1 if first else 0
    return sum(1 for t in unit.numbers
               if label_end <= t.start < token.start and t.value is not None)


def _alone_in_cell(unit: _Unit, token: Token) -> bool:
    """Whether `token` is the only number of its table cell."""
    if unit.element.kind != "row":
        return False
    row = unit.element.text.split("\n", 1)[0]
    position = 0
    for cell in _cells(row):
        position = row.find(cell, position)
        if position <= token.start < position + len(cell):
            return sum(1 for t in unit.numbers if position <= t.start < position + len(cell)) == 1
        position += len(cell)
    return False


def line_mismatch(unit: _Unit, token: Token, candidates: list[tuple[Token, Citation, int]],
                   outputs: Outputs) -> str:
    """The row rule against swapped numbers. The words before a number (a
    table row's label) name a row of the cited block(s) (`named_row`). When that row does not
    print the number, and the number it prints in the same place after the naming word (the
    first, or for a table cell the same column) is written like this one (as many digits, as
    many decimals), the number was copied from another row: an error. Returns the message, or
    "" when the number is where its words say."""
    context, need = _context(unit, token)
    if not context:
        return ""
    lines: list[tuple[str, set[str], list[Token]]] = []
    for key in dict.fromkeys((c.script, n) for _, c, n in candidates):
        lines.extend(outputs.line_words(*key))
    row = named_row(context, need, lines)
    if row is None:
        return ""
    word, text, after = row
    if any(t.value == token.value for line, _words, printed in lines if line == text
           for t in printed):
        return ""
    place = _ordinal(unit, token)
    expected = after[place] if place < len(after) else None
    if expected is not None and _form(expected.text) != _form(token.text):
        expected = None
    if expected is None and _alone_in_cell(unit, token):
        # a table's columns need not follow the line's order: a cell that holds one number
        # (not a formula) is compared with the first number written alike
        expected = next((t for t in after if _form(t.text) == _form(token.text)), None)
    if expected is None:
        return ""
    if unit.element.kind != "row" and not _swapped_partner(unit, token, expected, lines):
        return ""  # in prose, only a swap: each number stands after the other's line's words
    return (f"{token.text} is printed in {'; '.join(c.describe() for c in unit.citations)}, "
            f"but the line that '{word}' points to prints {expected.text} there: "
            f"{text.strip()!r} (a number from another row?)")


def _swapped_partner(unit: _Unit, token: Token, expected: Token,
                     lines: list[tuple[str, set[str], list[Token]]]) -> bool:
    """Whether the number the named line prints (`expected`) stands in the same sentence, after
    words that name a line printing `token`'s value: the signature of two swapped numbers."""
    text = unit.element.text
    for partner in unit.numbers:
        if partner.value != expected.value or partner is token:
            continue
        before_start = max([unit.start, *(t.end for t in unit.numbers if t.end <= partner.start)])
        row = named_row(context_words(text[before_start:partner.start]), PROSE_WORDS, lines)
        if row is not None and any(t.value == token.value for line, _w, printed in lines
                                   if line == row[1] for t in printed):
            return True
    return False


def _word_position(text: str, word: str) -> int:
    for match in PLAIN_WORD.finditer(text):
        if content_words(match.group()) == {word}:
            return match.start()
    return 0


def column_of(element: _Element, position: int) -> str:
    line_start = element.text.rfind("\n", 0, position) + 1
    offset = 0
    row = element.text[line_start:].split("\n", 1)[0]
    for index, cell in enumerate(_cells(row)):
        offset = row.find(cell, offset)
        if offset <= position - line_start < offset + len(cell):
            return element.header[index] if index < len(element.header) else ""
        offset += len(cell)
    return ""
