"""Two rules against numbers swapped in a sentence: the words around each number, and
the words that join two numbers.

Words. A number in prose stands among words that say what it is: its label before it ("the
bound is 4.541", "true risk 3.935") and its noun after it ("8,013,769 documents"). Each of its
printings in the cited block has a label and a noun too, on its output line ("bound 4.541  true
risk 3.935"). A word next to a number that stands next to another number's printings but not
next to its own points at that other number. Two numbers of a sentence were swapped when each
one's words point at the other and neither's at itself, or when one's words point at the other
with two words at least and neither's words point at itself.

Joiners. Two neighbouring numbers joined in prose by the very words or operators that join them
on an output line ("593 x 223", "from 0.77 to 1.23", "115,840 of 115,873.64") copy that line's
phrase, so they keep its order: when the block joins them that way only in the other order, they
were swapped.
"""

from __future__ import annotations

import functools
import itertools
import re
from decimal import Decimal

from explainer_tools.claims.model import ClaimError, PageReport
from explainer_tools.claims.numbers import PLAIN_WORD, STOPWORDS, Token
from explainer_tools.claims.outputs import Outputs
from explainer_tools.claims.page import _Unit
from explainer_tools.claims.swaps import _symbol_before

BEFORE = 3  # content words of a number's label
AFTER = 2  # content words of its noun
CLAUSE = re.compile(r"[,;:()\[\]=]|\.\s|\s[-–—]\s")
FIELD = re.compile(CLAUSE.pattern + r"|\s{2,}")  # output lines also part fields by spaces
# units say what kind of number it is, not which one (the unit rule checks them)
UNIT_WORDS = frozenset(("bit", "nat", "byte", "percent", "ppm", "token"))
# words that join or compare two numbers: they name neither
CONNECTIVES = frozenset(("against", "versus", "whereas", "instead", "compared", "still",
                         "already", "nearly", "almost", "roughly", "exactly", "gives", "give",
                         "gets", "get", "becomes", "become", "reaches", "reach", "costs", "cost",
                         "pays", "pay", "says", "stands", "leaves", "them", "they", "it",
                         "now", "down", "up", "new", "old", "first", "last", "second"))
NOUN = re.compile(r"-?(?:\s*(?:\\?%|\\,|\\text\{|\}|per\b|[A-Za-z]{3,}\b)){1,6}")

# a number's words: (its label, its noun, the label's word nearest to it or "")
Context = tuple[frozenset[str], frozenset[str], str]
# a printing: (its value, its label, its noun, the words of its line)
Printing = tuple[Decimal, frozenset[str], frozenset[str], frozenset[str]]


def _report_once(report: PageReport, flagged: set[tuple[int, str]], page: str, line: int,
                 number: str, message: str) -> None:
    """An error on `number` at `line`, unless a rule has already flagged it there: one error per
    number, from the first rule that finds it."""
    if (line, number) not in flagged:
        flagged.add((line, number))
        report.errors.append(ClaimError(page, line, message, number))


@functools.lru_cache(maxsize=16384)
def stem(word: str) -> str:
    """A word reduced to a common stem, so that prose and output lines agree on it.

    >>> [stem(w) for w in ("Guessing", "documents", "trained", "bits", "loss", "entries")]
    ['guess', 'document', 'train', 'bit', 'loss', 'entry']
    """
    word = word.lower()
    for ending, keep in (("ing", 4), ("ies", 3), ("ed", 4), ("es", 4), ("s", 3)):
        if word.endswith(ending) and len(word) - len(ending) >= keep and not word.endswith("ss"):
            return word[:-len(ending)] + ("y" if ending == "ies" else "")
    return word


def _words(text: str) -> list[str]:
    text = re.sub(r"\\[A-Za-z]+", " ", text)
    return [stem(w) for w in PLAIN_WORD.findall(text) if w.lower() not in STOPWORDS
            and w.lower() not in CONNECTIVES and stem(w) not in UNIT_WORDS]


def noun(text: str, end: int, high: int, marks: re.Pattern[str] = CLAUSE
         ) -> tuple[list[str], int]:
    """The content words right after a number (at most AFTER, before `high`, a clause mark, or a
    stopword other than "per"; units pass but do not count), and where they end.

    >>> noun("8,013,769 documents; test_size", 9, 30)
    (['document'], 19)
    """
    match = NOUN.match(text, end, high)
    if match is None:
        return [], end
    words: list[str] = []
    stop = end
    for word in re.finditer(r"[A-Za-z]{3,}", marks.split(match.group())[0]):
        lower = word.group().lower()
        if lower in ("per", "text") or stem(lower) in UNIT_WORDS:
            continue
        if lower in STOPWORDS or lower in CONNECTIVES or len(words) == AFTER:
            break
        words.append(stem(lower))
        stop = end + word.end()
    return words, stop


def label(before: str, marks: re.Pattern[str] = CLAUSE) -> str:
    """The text of a number's label in what precedes it: after the last clause mark, or, when
    nothing but a colon, an equals sign or a run of spaces follows that mark ("loss: 2.5",
    "attention   22.92"), the clause before it.

    >>> label("gradient descent: "), label("w, ")
    ('gradient descent', ' ')
    """
    pieces = re.split("(" + marks.pattern + ")", before)
    texts, separators = pieces[::2], pieces[1::2]
    index = len(texts) - 1
    while index > 0 and not _words(texts[index]) and separators[index - 1].strip() in (
            ":", "=", ""):
        index -= 1
    return texts[index]


@functools.lru_cache(maxsize=16384)
def contexts(text: str, spans: tuple[tuple[int, int], ...], low: int, high: int,
             marks: re.Pattern[str] = CLAUSE) -> tuple[Context, ...]:
    """The words of each number of a sentence or an output line: its label (a symbol it is
    assigned to, "N = 8", with the symbol's name if it is a word, "alpha = 0.1"; else at most
    BEFORE content words of the clause before it, after the noun of the number before it) and
    its noun (`noun`). A number joined to the one before it
    by no word and no comma or clause mark ("38,633,472 = 31.23 %", "8 x 1,024") shares that
    one's label. `spans` are the numbers' (start, end), in order, between `low` and `high`
    (cached: a page checked again after a one-number edit reads only the sentence that changed).

    >>> [(sorted(a), c) for a, _b, c in contexts("bound 4.541  true risk 3.935",
    ...                                          ((6, 11), (23, 28)), 0, 28, FIELD)]
    [(['bound'], 'bound'), (['risk', 'true'], 'risk')]
    """
    found: list[Context] = []
    previous: list[str] = []
    for index, (start, end) in enumerate(spans):
        begin = noun(text, spans[index - 1][1], start, marks)[1] if index else low
        symbol = _symbol_before(text[max(begin, start - 40):start], fold=False)
        if symbol:  # "alpha = 0.1": the symbol, and its name as a word
            words = ["=" + symbol, *_words(symbol.replace("_", " "))[:1]]
        else:
            words = _words(label(text[begin:start], marks))[-BEFORE:]
        between = text[spans[index - 1][1]:start] if index else ","
        if not _words(between) and not re.search(r"[,;:()\[\]]", between):
            words = previous
        previous = words
        following = spans[index + 1][0] if index + 1 < len(spans) else high
        found.append((frozenset(words), frozenset(noun(text, end, following, marks)[0]),
                      words[-1] if words else ""))
    return tuple(found)


HEADER_FIELD = re.compile(r"\S+(?: \S+)*")


def is_header(line: str) -> bool:
    """Whether an output line heads a table's columns: two fields at least, parted by runs of
    spaces, and no digit ("  shape   nanoGPT count   LoRA share")."""
    return not re.search(r"[0-9]", line) and len(HEADER_FIELD.findall(line.strip())) >= 2


def column_words(header: str, start: int, end: int) -> list[str]:
    """The words of the header field above a number printed at [start, end) of a row: the field
    it overlaps most.

    >>> column_words("  shape   LoRA share   token-table share", 12, 16)
    ['lora', 'share']
    """
    best, overlap = "", 0
    for field in HEADER_FIELD.finditer(header):
        shared = min(end, field.end()) - max(start, field.start())
        if shared > overlap:
            best, overlap = field.group(), shared
    return _words(best)


@functools.lru_cache(maxsize=8192)
def _printings(line: str, printed: tuple[Token, ...], header: str) -> tuple[Printing, ...]:
    """Each number printed on an output line, with its words (`contexts`, and the words of its
    column in `header`, the line heading the table it is a row of, or "") and its line's."""
    whole = frozenset(_words(line))
    near = contexts(line, tuple((t.start, t.end) for t in printed), 0, len(line), FIELD)
    return tuple((t.value, before | frozenset(column_words(header, t.start, t.end)) if header
                  else before, after, whole)
                 for t, (before, after, _nearest) in zip(printed, near, strict=True))


def _block_printings(unit: _Unit, outputs: Outputs) -> list[Printing]:
    found: list[Printing] = []
    for key in dict.fromkeys((c.script, n) for c in unit.citations for n in c.blocks):
        header = ""
        for line, _words, printed in outputs.line_words(*key):
            if is_header(line):
                header = line
                continue
            if not printed or len(HEADER_FIELD.findall(line.strip())) < 2:
                header = ""
            found.extend(_printings(line, tuple(printed), header))
    return found


def _words_of(value: Decimal, printings: list[Printing]) -> tuple[set[str], set[str], set[str]]:
    """The label, noun and line words of every printing of `value`."""
    labels: set[str] = set()
    nouns: set[str] = set()
    lines: set[str] = set()
    for printed, before, after, whole in printings:
        if printed == value:
            labels |= before
            nouns |= after
            lines |= whole
    return labels, nouns, lines


def pointing(context: Context, at: tuple[set[str], set[str], set[str]],
             away: tuple[set[str], set[str], set[str]]) -> tuple[set[str], set[str]]:
    """The words of a number (label and noun) that stand next to the printings `at` of one value
    and next to none of the printings `away` of the other: (label and noun words that match,
    words that match only their lines).

    >>> at, away = ({"bound"}, set(), {"bound", "true", "risk"}), ({"true", "risk"}, set(),
    ...                                                            {"bound", "true", "risk"})
    >>> [sorted(words) for words in pointing((frozenset({"risk", "cover"}), frozenset()), away, at)]
    [['risk'], []]
    """
    before, after = context[0], context[1]
    near = (before & at[0] - away[0]) | (after & at[1] - away[1])
    return near, (before | after) & at[2] - away[2]


def _on_every(words: set[str], value: Decimal, printings: list[Printing]) -> bool:
    """Whether one of `words` stands next to every printing of `value` (label or noun)."""
    return any(all(word in before or word in after for printed, before, after, _line in printings
                   if printed == value) for word in words)


def _labelled(value: Decimal, printings: list[Printing]) -> bool:
    """Whether every printing of `value` has words of its own (a label or a noun)."""
    return all(before or after for printed, before, after, _line in printings if printed == value)


def swapped(first: Context, second: Context, values: tuple[Decimal, Decimal],
            printings: list[Printing], reversed_on_line: bool) -> bool:
    """Whether two numbers of a sentence, `values` as written with their words `first` and
    `second`, were swapped. Neither's words may point at its own printings (`pointing`); then
    it takes each one's words pointing at the other's printings; or one's pointing at the
    other's with two words at least; or with one word that stands next to every printing of
    the other (`_on_every`), when a line prints the two only in the other order
    (`reversed_on_line`), or when that word is the nearest of the number's label and either a
    line prints the two only in the other order or every printing of both numbers has words
    of its own (`_labelled`)."""
    x, y = (_words_of(value, printings) for value in values)
    first_own, first_other = pointing(first, x, y), pointing(first, y, x)
    second_own, second_other = pointing(second, y, x), pointing(second, x, y)
    if first_other[0] and second_other[0] and not first_own[0] and not second_own[0]:
        return True
    if any(first_own) or any(second_own):
        return False
    if len(first_other[0]) >= 2 or len(second_other[0]) >= 2:
        return True
    if reversed_on_line and (_on_every(first_other[0], values[1], printings)
                             or _on_every(second_other[0], values[0], printings)):
        return True
    if reversed_on_line and (first_other[0] & {first[2]} or second_other[0] & {second[2]}):
        return True  # the order and the nearest word agree: two signs of one swap
    if not (_labelled(values[0], printings) and _labelled(values[1], printings)):
        return False
    return (_on_every(first_other[0] & {first[2]}, values[1], printings)
            or _on_every(second_other[0] & {second[2]}, values[0], printings))


def reversed_on_line(unit: _Unit, outputs: Outputs, first: Decimal, second: Decimal) -> bool:
    """Whether a line of the cited block(s) prints both values, and none prints a `first`
    before a `second`."""
    both = False
    for key in dict.fromkeys((c.script, n) for c in unit.citations for n in c.blocks):
        for _line, _words, printed in outputs.line_words(*key):
            starts = [t.start for t in printed if t.value == first]
            ends = [t.start for t in printed if t.value == second]
            if starts and ends:
                if min(starts) < max(ends):
                    return False
                both = True
    return both


def check_context(units: list[_Unit], page: str, outputs: Outputs, report: PageReport) -> None:
    """The word rule: two neighbouring numbers of a sentence (not a table row) that the cited
    block(s) print, whose words say they were swapped (`swapped`): an error on the second."""
    flagged = {(e.line, e.number) for e in report.errors}
    for unit in units:
        element = unit.element
        if element.kind == "row" or not unit.citations:
            continue
        printings = _block_printings(unit, outputs)
        values = {printing[0] for printing in printings}
        near = contexts(element.text, tuple((t.start, t.end) for t in unit.numbers), unit.start,
                        unit.end)
        checked = [(t, words) for t, words in zip(unit.numbers, near, strict=True)
                   if t.value in values and not any(t.value in w.values for w in element.waivers)]
        for (first, a), (second, b) in itertools.pairwise(checked):
            if first.value == second.value or not swapped(
                    a, b, (first.value, second.value), printings,
                    reversed_on_line(unit, outputs, first.value, second.value)):
                continue
            line = element.line + element.text.count("\n", 0, second.start)
            _report_once(report, flagged, page, line, second.text, (
                f"{first.text} and {second.text} look swapped: the words next to each stand next "
                f"to the other's printing in {'; '.join(c.describe() for c in unit.citations)}, "
                "not its own (if not, name each number in the block's words)"))


# words that set a number against the one it corrects or replaces
CORRECTIONS = frozenset(("instead of", "rather than", "not", ", not", "and not", "but not"))


_JOIN_NOISE = re.compile(r"\\[()\[\],;!]|[{}$]|\\text|\\mathrm")
_JOIN_SAME = ((r"->|→|\\to\b|\\rightarrow", " to "), (r"\\times|×|\*|\\cdot|·", " x "),
              (r"\\pm|±|\+-|\+/-", " ± "), (r"−", "-"), (r"\\approx|≈", " ~ "),
              (r"\\le|≤", " <= "), (r"\\ge|≥", " >= "))


@functools.lru_cache(maxsize=16384)
def joiner(between: str) -> str:
    """What joins two neighbouring numbers, normalised: math markup and units dropped,
    operators written one way, lower case, one space between pieces.

    >>> joiner(r"\\times"), joiner(" bits per token to "), joiner(" × ")
    ('x', 'to', 'x')
    """
    text = _JOIN_NOISE.sub(" ", re.sub(r"^[MkB](?![A-Za-z])", " ", between))
    for pattern, replacement in _JOIN_SAME:
        text = re.sub(pattern, replacement, text)
    joined = " ".join(w for w in re.findall(r"[A-Za-z]+|[^\sA-Za-z]", text.lower())
                      if stem(w) not in UNIT_WORDS and w not in ("per", "%"))
    if joined in CORRECTIONS:
        return "instead of"  # "0.949960 instead of 0.95" is "0.949960, not 0.95"
    return "x" if joined == "by" else joined  # "95 by 271" is "95 x 271"


# bare connectives that read two numbers in order, as an output line prints them side by side
SIDE_BY_SIDE = frozenset((",", "and", "or", "to", "against", "versus"))


def same_join(printed: str, written: str) -> bool:
    """Whether an output line joins two numbers as the prose does: by the same words and
    operators; where the prose writes operators only ("5.0000+1.0285"), by the same operators
    between words that label the next number ("5.0000 + Occam part 1.0285"); where the line
    prints them side by side, parted by spaces alone (a table row), by a bare connective.

    >>> same_join("+ occam part", "+"), same_join("of", "to"), same_join("", "to")
    (True, False, True)
    """
    if printed == written:
        return True
    if printed in ("", ",") and written in SIDE_BY_SIDE:
        return True
    return bool(written) and not re.search(r"[a-z]", written) and " ".join(
        re.findall(r"[^\sa-z]", printed)) == written


def _joined(unit: _Unit, outputs: Outputs, first: Decimal, second: Decimal, join: str
            ) -> tuple[bool, str]:
    """Whether a line of the cited block(s) prints `first` and then `second` with `join`
    between them, and the first line that prints them so in the other order ("" if none)."""
    backward = ""
    for key in dict.fromkeys((c.script, n) for c in unit.citations for n in c.blocks):
        for line, _words, printed in outputs.line_words(*key):
            for x, y in itertools.pairwise(printed):
                if (x.value, y.value) not in ((first, second), (second, first)) or not same_join(
                        joiner(line[x.end:y.start]), join):
                    continue
                if x.value == first:
                    return True, ""
                backward = backward or line
    return False, backward


def check_joined(units: list[_Unit], page: str, outputs: Outputs, report: PageReport) -> None:
    """The joiner rule: two neighbouring numbers of a sentence joined by what joins them on a
    line of the cited block(s) (`joiner`: "x", "to", "of", "=", a phrase) stand in that line's
    order; when the block joins them so only in the other order, an error on the second."""
    flagged = {(e.line, e.number) for e in report.errors}
    for unit in units:
        element = unit.element
        if element.kind == "row" or not unit.citations:
            continue
        for first, second in itertools.pairwise(unit.numbers):
            if first.value is None or second.value is None or first.value == second.value or any(
                    t.value in w.values for w in element.waivers for t in (first, second)):
                continue
            join = joiner(element.text[first.end:second.start])
            if join == "and" and re.search(r"\bbetween\W*$", element.text[:first.start]):
                join = "to"  # a range: "between 2 and 3" is "from 2 to 3"
            forward, backward = _joined(unit, outputs, first.value, second.value, join)
            if forward or not backward:
                continue
            line = element.line + element.text.count("\n", 0, second.start)
            _report_once(report, flagged, page, line, second.text, (
                f"{first.text} and {second.text} are joined by {join!r}, and "
                f"{'; '.join(c.describe() for c in unit.citations)} joins them so only in the "
                f"other order: {backward.strip()!r} (swapped numbers?)"))


def _printed_once_at(unit: _Unit, outputs: Outputs, value: Decimal
                     ) -> tuple[str, int, int, int] | None:
    """Where the cited block(s) print `value`, when they print it once: (script, block, line
    index, offset on the line)."""
    found = []
    for key in dict.fromkeys((c.script, n) for c in unit.citations for n in c.blocks):
        for index, (_line, _words, printed) in enumerate(outputs.line_words(*key)):
            found.extend((key[0], key[1], index, t.start) for t in printed if t.value == value)
    return found[0] if len(found) == 1 else None


def _lists(unit: _Unit) -> list[list[Token]]:
    """The plain lists of three numbers or more in a sentence: numbers joined by commas and
    "and" alone ("0.390, 0.391 and 0.398")."""
    text = unit.element.text
    found: list[list[Token]] = []
    current: list[Token] = []
    for first, second in itertools.pairwise(unit.numbers):
        if first.value is not None and second.value is not None and joiner(
                text[first.end:second.start]) in (",", "and", ", and"):
            current = current or [first]
            current.append(second)
            continue
        if len(current) >= 3:
            found.append(current)
        current = []
    if len(current) >= 3:
        found.append(current)
    return found


def check_lists(units: list[_Unit], page: str, outputs: Outputs, report: PageReport) -> None:
    """The list rule: in a plain list of three numbers or more (`_lists`), two neighbours that
    one cited block prints once each stand in the order it prints them (line by line, then
    along a line); an error on the second when they do not."""
    flagged = {(e.line, e.number) for e in report.errors}
    for unit in units:
        element = unit.element
        if element.kind == "row" or not unit.citations:
            continue
        for numbers in _lists(unit):
            places = [_printed_once_at(unit, outputs, t.value) for t in numbers]
            for (a, at), (b, bt) in itertools.pairwise(zip(numbers, places, strict=True)):
                if at is None or bt is None or at[:2] != bt[:2] or at[2:] <= bt[2:]:
                    continue
                line = element.line + element.text.count("\n", 0, b.start)
                _report_once(report, flagged, page, line, b.text, (
                    f"{a.text} and {b.text} stand in a list, and [{at[1]}] of {at[0]} prints "
                    f"them in the other order (swapped numbers?)"))
