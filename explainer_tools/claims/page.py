"""A page as the claim check sees it: prose elements (paragraphs, list items, table rows, headings,
admonition titles, an erratum's front-matter prose), their inline pieces, sentences, citations and
waivers. The block structure (front matter, fences, code, comments, embed regions) is
`markdown.scan`'s, read from markdown-it-py's tokens, and a formula is `markdown.MATH_PATTERN`,
the pattern `markdown.math_spans` finds with; the paragraphs, items, rows, headings and titles
are split here, line by line.
"""

from __future__ import annotations

import functools
import itertools
import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

from explainer_tools.claims.model import ClaimError
from explainer_tools.claims.numbers import parse_number
from explainer_tools.markdown import (
    ADMONITION,
    CODE_SPAN_PATTERN,
    HEADING,
    MATH_PATTERN,
    QUOTE_PREFIX,
    scan,
)
from explainer_tools.tags import TAG_PATTERN_UNNAMED
from explainer_tools.yaml_input import (
    ERRATUM_CODE_PROSE_FIELDS,
    ERRATUM_PROSE_FIELDS,
    front_matter_fields,
)

# Sections in which every number must be cited, skipped by rule or waived (BOOK.md's anatomy).
STRICT_SECTION = re.compile(r"worked example|misconception|self[- ]test", re.I)

# ---------------------------------------------------------------------------------------------
# Pages: front matter, block-level elements, inline segments
# ---------------------------------------------------------------------------------------------

LIST_ITEM = re.compile(r"^(?P<indent>\s*)(?P<marker>[-*+]|[0-9]+\.)\s+")
TABLE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")
FOOTNOTE_DEF = re.compile(r"^\s*\[\^[^\]]+\]:\s*")
CAPTION_START = re.compile(r"^\s*[*_]*(?:Table|Caption)\b[^:\n]*:")

# A formula is one alternative of this tokenizer, not `math_spans` (which knows only code and
# math): a comment, a tag or a link target that holds `$` or `\(` is no formula.
INLINE = re.compile(
    r"(?P<code>" + CODE_SPAN_PATTERN + r")"
    r"|(?P<comment><!--.*?-->)"
    r"|(?P<math>" + MATH_PATTERN + r")"
    r"|(?P<tag>" + TAG_PATTERN_UNNAMED + r")"
    r"|(?P<target>\]\([^)\s]*(?:\s+\"[^\"]*\")?\)|\]\[[^\]\n]*\])"
    r"|(?P<url><https?://[^>\s]+>|https?://[^\s)\]]+)"
    r"|(?P<footnote>\[\^[^\]\n]+\])"
    r"|(?P<html></?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>)"
    r"|(?P<attr>\{\s*[:#.][^}\n]*\}|\{\s*[A-Za-z-]+=[^}\n]*\})",
    re.S,
)
_SCRIPT_NAME = r"`?(?P<{0}>[\w./-]+\.py)`?"
_SCRIPT_REF = (
    r"(?:\s+(?:of|in|from)\s+\[?" + _SCRIPT_NAME.format("script") + r"\]?(?:\([^)\s]*\))?"
    r"|\s*\(\[?" + _SCRIPT_NAME.format("script2") + r"\]?(?:\([^)\s]*\))?\))?"
)
CITATION = re.compile(
    r"(?<![\w-])outputs?\s+(?P<blocks>\[[0-9]+\](?:(?:\s*,\s*|\s*,?\s+and\s+|\s*&\s*|\s*[–-]\s*"
    r"|\s+to\s+)\[[0-9]+\])*)" + _SCRIPT_REF,
    re.I,
)
WAIVER_COMMENT = re.compile(r"<!--\s*claims:(?P<body>.*?)-->", re.S)
WAIVER_BODY = re.compile(
    r"^\s*waive\s+(?P<numbers>[^\"]+?)\s*(?:\"(?P<reason>[^\"]*)\")?\s*$", re.S)
SENTENCE_END = re.compile(r"[.!?][\"'”’)]*\s+(?=[A-Z0-9\\(\[“\"*_§$])")
ABBREVIATIONS = frozenset({
    "e.g", "i.e", "al", "app", "fig", "figs", "eq", "eqs", "p", "pp", "sec", "ch", "vs", "cf",
    "no", "approx", "resp", "ca", "tab", "ref", "refs", "vol", "ed", "eds", "etc", "incl",
})



@dataclass
class Element:
    kind: str  # paragraph, item, row, heading, title
    start: int  # absolute offset of the element's first character
    text: str  # page text from start, with Markdown markers blanked (same length)
    line: int  # line of the first character
    strict: str  # heading of the fully-cited section it sits in, or ""
    group: int = -1  # list or table it belongs to
    header: tuple[str, ...] = ()  # a table row's column names
    waivers: list[_Waiver] = field(default_factory=list)
    cites: tuple[str, int] | None = None  # an erratum's evidence item: (script, block)


@dataclass
class _Waiver:
    values: list[Decimal]
    reason: str
    line: int
    used: set[Decimal] = field(default_factory=set)


def _blank_prefix(line: str, end: int) -> str:
    return " " * end + line[end:]


def page_elements(text: str, body_start: int, page: str, errors: list[ClaimError],
              written: str | None = None) -> list[Element]:
    """Split the page body into paragraphs, list items, table rows, headings, admonition titles.

    `written` is the page as written when `text` is a copy with its glue references blanked
    (same lines, same offsets): the blanks would read as indentation, so the page's structure
    (fences, comments, code) is the written page's."""
    lines = text.split("\n")
    starts = []
    position = 0
    for line in lines:
        starts.append(position)
        position += len(line) + 1
    first_line = text.count("\n", 0, body_start)
    elements: list[Element] = []
    current: Element | None = None
    pending_waivers: list[_Waiver] = []
    strict_level, strict_title = 0, ""
    group = 0
    header: tuple[str, ...] = ()
    in_table = False

    def close() -> None:
        nonlocal current
        if current is not None:
            current.text = current.text.rstrip("\n")
            elements.append(current)
        current = None

    def start(kind: str, index: int, line: str, new_group: bool = False) -> Element:
        nonlocal current, group, pending_waivers
        close()
        if new_group:
            group += 1
        current = Element(kind, starts[index], line, index + 1, strict_title, group)
        current.waivers.extend(pending_waivers)
        pending_waivers = []
        return current

    scanned = scan(text if written is None else written)
    if scanned.unclosed_fence:
        errors.append(ClaimError(page, scanned.unclosed_fence, "code fence never closed: every "
                                 "number after it is hidden from the check"))
    entries = scanned.lines
    index = first_line
    while index < len(lines):
        line = lines[index]
        entry = entries[index]
        if entry.embedded or entry.marker or entry.kind in ("fence", "code", "front", "blank"):
            close()  # embedded outputs and sources, fenced code, blank lines end an element
            in_table = False
            index += 1
            continue
        if entry.kind == "comment":
            close()
            end = index
            while "-->" not in entries[end].text and end + 1 < len(entries) and entries[
                    end + 1].kind == "comment":
                end += 1
            comment_text = "\n".join(lines[index:end + 1])
            pending_waivers.extend(parse_waivers(comment_text, index + 1, page, errors))
            index = end + 1
            continue
        quote = QUOTE_PREFIX.match(line)
        if quote and ">" in quote.group():
            line = _blank_prefix(line, quote.end())
        heading = HEADING.match(line)
        if heading:
            level = len(heading.group("marks"))
            if strict_level and level <= strict_level:
                strict_level, strict_title = 0, ""
            title = line[heading.end():].strip().rstrip("#").strip()
            if not strict_level and STRICT_SECTION.search(title):
                strict_level, strict_title = level, title
            start("heading", index, _blank_prefix(line, heading.end()))
            close()
            in_table = False
            index += 1
            continue
        admonition = ADMONITION.match(line)
        if admonition:
            title_text = admonition.group("title") or ""
            title_start = line.find('"' + title_text + '"') + 1 if admonition.group("title") \
                is not None else len(line)
            blanked = " " * title_start + title_text + " " * (len(line) - title_start - len(
                title_text))
            start("title", index, blanked)
            close()
            in_table = False
            index += 1
            continue
        next_line = lines[index + 1] if index + 1 < len(lines) else ""
        # As in Python-Markdown, a table or a list starts a block: after a blank line (or, for a
        # list item, inside a list); a line that only looks like one continues the paragraph.
        if "|" in line and TABLE_SEPARATOR.match(next_line) and not in_table and current is None:
            header = tuple(cell.strip() for cell in _cells(line))
            start("row", index, line, new_group=True)
            current.header = header
            close()
            in_table = True
            index += 2  # the separator row holds no prose
            continue
        if in_table and "|" in line:
            start("row", index, line)
            current.header = header
            close()
            index += 1
            continue
        in_table = False
        item = LIST_ITEM.match(line)
        if item and (current is None or current.kind == "item"):
            new_list = not (elements and elements[-1].kind == "item" and current is None
                            and elements[-1].group == group) and not (
                current is not None and current.kind == "item")
            start("item", index, _blank_prefix(line, item.end()), new_group=new_list)
            index += 1
            continue
        footnote = FOOTNOTE_DEF.match(line)
        if footnote:
            start("paragraph", index, _blank_prefix(line, footnote.end()))
            index += 1
            continue
        if current is None:
            start("paragraph", index, line)
        else:
            current.text += "\n" + line
        index += 1
    close()
    if pending_waivers:
        for waiver in pending_waivers:
            errors.append(ClaimError(page, waiver.line, "waiver is followed by no prose"))
    return elements


FRONT_MATTER_PROSE = ("title", *dict.fromkeys(ERRATUM_PROSE_FIELDS + ERRATUM_CODE_PROSE_FIELDS))


def front_matter_elements(text: str, body_start: int) -> list[Element]:
    """The prose fields of an erratum's front matter, and each evidence item's `shows:`.

    Errata keep their prose in YAML (see explainer_tools/book/errata.py); it is rendered on the
    page, so it is checked like the body. An evidence item `{output: X.py, block: N, shows: ...}`
    cites block [N] of X.py for its `shows:` text. Where each value stands is
    `yaml_input.front_matter_fields`'; a block scalar (`>-`) starts on the line after its key.
    """
    starts = [0]
    for line in text[:body_start].split("\n"):
        starts.append(starts[-1] + len(line) + 1)
    fields = front_matter_fields(text)
    elements: list[Element] = []
    for name, at in fields.items():
        item, _, key = name.rpartition(".")
        if not (key == "shows" or (not item and name in FRONT_MATTER_PROSE)):
            continue
        block_scalar = getattr(at.node, "style", None) in (">", "|")
        line = at.first + 1 if block_scalar else at.first
        start = starts[line - 1] + (0 if block_scalar else at.node.start_mark.column)
        end = starts[at.last] - 1
        if end <= start:
            continue
        element = Element("paragraph", start, text[start:end], line, "")
        output, block = fields.get(f"{item}.output"), fields.get(f"{item}.block")
        if item and output and block and str(block.node.value).isdigit():
            element.cites = (str(output.node.value).rsplit("/", 1)[-1], int(block.node.value))
        elements.append(element)
    return elements


def _cells(row: str) -> list[str]:
    """The cells of a table row, splitting at pipes outside code and math."""
    return list(_row_cells(row))


def column_of(element: Element, position: int) -> str:
    """The header of the table column that holds `position` (offset in a row element), or ""."""
    line_start = element.text.rfind("\n", 0, position) + 1
    offset = 0
    row = element.text[line_start:].split("\n", 1)[0]
    for index, cell in enumerate(_cells(row)):
        offset = row.find(cell, offset)
        if offset <= position - line_start < offset + len(cell):
            return element.header[index] if index < len(element.header) else ""
        offset += len(cell)
    return ""


@functools.lru_cache(maxsize=8192)
def _row_cells(row: str) -> tuple[str, ...]:
    masked = INLINE.sub(lambda m: " " * len(m.group()), row).replace("\\|", "  ")
    inner = masked.strip()
    lead = len(masked) - len(masked.lstrip())
    if inner.startswith("|"):
        lead += 1
        inner = inner[1:]
    if inner.endswith("|"):
        inner = inner[:-1]
    cells, position = [], lead
    for piece in inner.split("|"):
        cells.append(row[position:position + len(piece)])
        position += len(piece) + 1
    return tuple(cells)


def parse_waivers(comment: str, line: int, page: str, errors: list[ClaimError]) -> list[_Waiver]:
    waivers = []
    for match in WAIVER_COMMENT.finditer(comment):
        here = line + comment.count("\n", 0, match.start())
        body = WAIVER_BODY.match(match.group("body"))
        if not body:
            errors.append(ClaimError(page, here, f"malformed claims comment {match.group()!r}; "
                                     'write <!-- claims: waive NUMBER... "reason" -->'))
            continue
        reason = (body.group("reason") or "").strip()
        if not reason:
            errors.append(ClaimError(page, here, f"waiver of {body.group('numbers').strip()} has "
                                     'no reason; write <!-- claims: waive NUMBER "reason" -->'))
            continue
        try:
            values = [parse_number(word) for word in body.group("numbers").split()]
        except (ValueError, InvalidOperation):
            errors.append(ClaimError(page, here, f"waiver lists something that is not a number: "
                                     f"{body.group('numbers').strip()!r}"))
            continue
        waivers.append(_Waiver(values, reason, here))
    return waivers


def inline_segments(text: str) -> list[tuple[str, int, int]]:
    """Inline pieces of an element: (kind, start, end); kind is prose, math, code, tag, ..."""
    pieces: list[tuple[str, int, int]] = []
    position = 0
    for match in INLINE.finditer(text):
        if match.start() > position:
            pieces.append(("prose", position, match.start()))
        kind = next(name for name in ("code", "comment", "math", "tag", "target", "url",
                                      "footnote", "html", "attr") if match.group(name) is not None)
        pieces.append((kind, match.start(), match.end()))
        position = match.end()
    if position < len(text):
        pieces.append(("prose", position, len(text)))
    return pieces


def sentence_spans(text: str, pieces: list[tuple[str, int, int]]) -> list[tuple[int, int]]:
    """Sentence spans of a paragraph; a boundary must lie in prose, not in math or code."""
    prose = [(s, e) for kind, s, e in pieces if kind == "prose"]
    cuts = [0]
    for match in SENTENCE_END.finditer(text):
        stop = match.start()
        if not any(s <= stop < e for s, e in prose):
            continue
        word = re.search(r"([\w.]+)$", text[:stop])
        if word and (word.group(1).lower().rstrip(".") in ABBREVIATIONS
                     or re.fullmatch(r"[A-Z]", word.group(1))):
            continue
        cuts.append(match.end())
    cuts.append(len(text))
    return [(a, b) for a, b in itertools.pairwise(cuts) if text[a:b].strip()]
