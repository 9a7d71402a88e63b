"""HTML as tokens with their places in the text, for the passes that read the HTML the site builds.

`tokens` runs the standard library's `html.parser.HTMLParser` over a text and returns its start
tags, end tags, comments, other markup (`<!DOCTYPE>`, processing instructions) and the text
between them, each with its `start` and `end` offsets in the text, so that a caller rewrites
the HTML by splicing the original (`splice`): what it leaves alone stays byte for byte as it
was. Attributes come parsed (names in lower case, values unescaped, the first of two with one
name winning); `value_span` says where an attribute's value lies, for rewriting it in place.

The content of `<script>` and `<style>`, and of any element named in `raw`, is one text token,
never read as tags (an element named in `raw` is jumped over whole: a highlighted code block is
thousands of tags). Markup that does not parse (a `<` in prose, an unterminated tag) is text.

A pass over HTML reads it with these tokens. A regex over HTML is allowed in two cases, and
says beside it which: markup in the one shape a known writer gives it (arithmatex's spans,
nbconvert's cells, Pygments' spans, a tag the tools write, Python-Markdown's double-quoted
attributes), or a pass over every whole page where tokenizing would cost a warm build measured
time, whose pattern then reads a tag whole (a quoted value may hold `>`) or a shape of the first
kind.

    >>> [(t.kind, t.start, t.end, t.name) for t in tokens('<p class=a>x<!-- > --></p>')]
    [('start', 0, 11, 'p'), ('text', 11, 12, ''), ('comment', 12, 22, ''), ('end', 22, 26, 'p')]
    >>> tokens('<img src="a.png" />')[0].attrs, tokens('<br/>')[0].closed
    ({'src': 'a.png'}, True)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from html.parser import HTMLParser, attrfind_tolerant, tagfind_tolerant
from typing import NamedTuple

NO_ATTRIBUTES: Mapping[str, str | None] = {}


class Token(NamedTuple):
    """One piece of an HTML text: `source[start:end]` is its own text."""

    kind: str  # "start", "end", "comment", "other" (doctype, processing instruction), "text"
    start: int
    end: int
    name: str = ""  # a tag's name, in lower case
    attrs: Mapping[str, str | None] = NO_ATTRIBUTES  # a start tag's (None: no value)
    closed: bool = False  # a start tag written `<x ... />`


_token = tuple.__new__  # a Token from its fields, without NamedTuple's keyword handling


class _Scanner(HTMLParser):
    """HTMLParser recording each piece of markup it reads with its span: the parser calls a
    handler for the markup, then `updatepos` with the span it has just read (which here
    records the token instead of counting lines: nothing asks this parser for `getpos`)."""

    def __init__(self, raw: Iterable[str]) -> None:
        super().__init__(convert_charrefs=True)
        self.CDATA_CONTENT_ELEMENTS = ("script", "style", *(name.lower() for name in raw))
        self.found: list[Token] = []
        self.base = 0  # where the parser's buffer starts in the text
        self.last = 0  # where the last token ends
        self.seen: tuple[str, str, list[tuple[str, str | None]], bool] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.seen = ("start", tag, attrs, False)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.seen = ("start", tag, attrs, True)

    def handle_endtag(self, tag: str) -> None:
        self.seen = ("end", tag, [], False)

    def handle_comment(self, data: str) -> None:
        self.seen = ("comment", "", [], False)

    def handle_decl(self, decl: str) -> None:
        self.seen = ("other", "", [], False)

    handle_pi = unknown_decl = handle_decl

    def updatepos(self, i: int, j: int) -> int:
        if self.seen is not None:
            start, end = self.base + i, self.base + j
            if start > self.last:  # the text before it
                self.found.append(_token(Token, ("text", self.last, start, "", NO_ATTRIBUTES,
                                                 False)))
            kind, name, attrs, closed = self.seen
            self.found.append(_token(Token, (kind, start, end, name,
                                             dict(reversed(attrs)) if attrs else NO_ATTRIBUTES,
                                             closed)))
            self.last = end
            self.seen = None
        return j


def tokens(source: str, raw: Iterable[str] = ()) -> list[Token]:
    """Every token of `source`, in order, covering it without gaps (module docstring); the
    content of the elements named in `raw` (and of script and style) is one text token."""
    scanner = _Scanner(raw)
    scanner.feed(source)
    scanner.base = len(source) - len(scanner.rawdata)  # what it kept waits for the end
    scanner.close()
    if scanner.last < len(source):
        scanner.found.append(Token("text", scanner.last, len(source)))
    return scanner.found


def value_span(source: str, tag: Token, name: str) -> tuple[int, int] | None:
    """Where the value of the attribute `name` of the start tag `tag` lies in `source`, inside
    its quotes; None when the tag has no such attribute with a value. The attributes are read
    with the parser's own patterns, as `tokens` read them.

    >>> text = "<a title='x' href=\\"#y\\">"
    >>> start, end = value_span(text, tokens(text)[0], "href")
    >>> text[start:end]
    '#y'
    """
    at = tagfind_tolerant.match(source, tag.start + 1)
    k = at.end() if at else tag.end
    while k < tag.end:
        found = attrfind_tolerant.match(source, k, tag.end)
        if not found:
            break
        if found.group(1).lower() == name and found.group(2):
            start, end = found.span(3)
            if source[start] in "'\"" and end - start >= 2 and source[end - 1] == source[start]:
                return start + 1, end - 1
            return start, end
        k = found.end()
    return None


def splice(source: str, edits: Iterable[tuple[int, int, str]]) -> str:
    """`source` with each `(start, end, text)` of `edits` (in order, not overlapping) put in
    place of `source[start:end]`.

    >>> splice("<a id=x>", [(6, 7, "p-x")])
    '<a id=p-x>'
    """
    pieces: list[str] = []
    last = 0
    for start, end, text in edits:
        pieces.append(source[last:start])
        pieces.append(text)
        last = end
    pieces.append(source[last:])
    return "".join(pieces)
