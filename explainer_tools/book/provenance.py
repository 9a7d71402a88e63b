"""Provenance tags: `[PAPER abstract, v3]`, `[SECONDARY: paper App. E, p. 16]`,
`[SOURCE: nanoGPT model.py]`, `[MY EXPLANATION]`, `[MY ANALYSIS]`, `[INFERRED]` in Markdown
become badges on the site.

Tags inside fenced code, inline code, front matter and HTML comments are left alone. The tag
grammar is `tags.py`'s; the Markdown structure is `markdown.scan`'s. A `[PAPER]` without a
location is an error: the book never cites the paper without saying where; nor with a location
in a part of the paper it has not read (`tags.paper_tag_problem`).

A run of paragraphs of one kind is tagged once: a line holding only `[SECTION: MY EXPLANATION]`
(any tag after `SECTION:`), right under a heading or at the top of an admonition, renders as a
badge with the note "this section unless marked" ("this block" when indented, i.e. inside an
admonition or list). Sentences of another kind inside the run carry their own tag. A `SECTION:`
tag that shares its line with prose is an error.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass

from explainer_tools.html_tokens import tokens
from explainer_tools.markdown import scan
from explainer_tools.tags import KIND_CLASSES, TAG_PATTERN, kind_of, paper_tag_problem

INLINE_SKIP_PATTERN = re.compile(r"(`+)(?:.+?)\1|<!--.*?-->", re.S)


SCOPE_LINE = re.compile(r"^(?P<indent>[ \t]*)(?P<tag>\[SECTION:[^\]\n]*\])[ \t]*$")
SCOPE_NOTES = {False: "this section unless marked", True: "this block unless marked"}


class ProvenanceError(ValueError):
    """A malformed provenance tag, with the page and line it is on."""


@dataclass(frozen=True)
class Tag:
    kind: str  # one of KIND_CLASSES
    text: str  # what the badge shows, e.g. "PAPER App. E, p. 16"
    line: int  # 1-based line in the page
    scope: bool = False  # a [SECTION: ...] default for the run of paragraphs it heads


_kind_of = kind_of


def _badge(tag_text: str) -> str:
    kind = _kind_of(tag_text)
    return f'<span class="prov {KIND_CLASSES[kind]}">{html.escape(tag_text)}</span>'


def _scope_badge(line: str, page: str, line_no: int, tags: list[Tag]) -> str | None:
    """Render a line that holds only `[SECTION: <tag>]`; None if the line is not one."""
    scope = SCOPE_LINE.match(line)
    if scope is None:
        return None
    match = TAG_PATTERN.fullmatch(scope.group("tag"))
    if match is None:
        raise ProvenanceError(
            f"{page}:{line_no}: {scope.group('tag')} does not name a tag; write e.g. "
            "[SECTION: MY EXPLANATION]"
        )
    tag_text = " ".join(match.group("tag").split())
    if problem := paper_tag_problem(tag_text):
        raise ProvenanceError(f"{page}:{line_no}: {problem}")
    tags.append(Tag(_kind_of(tag_text), tag_text, line_no, scope=True))
    indent = scope.group("indent")
    note = SCOPE_NOTES[bool(indent)]
    return (
        f'{indent}<span class="prov-scope" title="Provenance of what follows, until the next '
        f'heading: each claim is of this kind unless it carries its own tag">{_badge(tag_text)}'
        f'<span class="prov-scope__note">{note}</span></span>'
    )


def _replace_outside_code(text: str, page: str, line_no: int, tags: list[Tag]) -> str:
    """Replace the tags of one line of prose, skipping inline code and HTML comments."""
    pieces: list[str] = []
    last = 0
    for skip in INLINE_SKIP_PATTERN.finditer(text):
        pieces.append(_replace_in_prose(text[last : skip.start()], page, line_no, tags))
        pieces.append(skip.group(0))
        last = skip.end()
    pieces.append(_replace_in_prose(text[last:], page, line_no, tags))
    return "".join(pieces)


def _replace_in_prose(text: str, page: str, line_no: int, tags: list[Tag]) -> str:
    def substitute(match: re.Match[str]) -> str:
        if match.group("scope"):
            raise ProvenanceError(
                f"{page}:{line_no}: {match.group(0)} must stand on a line of its own, under a "
                "heading or at the top of an admonition"
            )
        tag_text = " ".join(match.group("tag").split())
        if problem := paper_tag_problem(tag_text):
            raise ProvenanceError(f"{page}:{line_no}: {problem}")
        tags.append(Tag(_kind_of(tag_text), tag_text, line_no))
        return _badge(tag_text)

    return TAG_PATTERN.sub(substitute, text)


def render_tags(markdown: str, page: str = "<page>") -> tuple[str, list[Tag]]:
    """Return the Markdown with every provenance tag replaced by a badge, and the tags found.

    >>> render_tags("[MY EXPLANATION] d = 768.")[0]
    '<span class="prov prov--explanation">MY EXPLANATION</span> d = 768.'
    """
    tags: list[Tag] = []
    out_lines: list[str] = []
    for entry in scan(markdown).lines:
        if entry.kind != "prose":  # front matter, fenced code, HTML comments, blank lines
            out_lines.append(entry.text)
            continue
        scoped = _scope_badge(entry.text, page, entry.number, tags)
        if scoped is not None:
            out_lines.append(scoped)
            continue
        out_lines.append(_replace_outside_code(entry.text, page, entry.number, tags))
    return "\n".join(out_lines), tags


CODE_ELEMENTS = ("pre", "code", "script", "style", "textarea")  # their text is never prose


def render_tags_in_html(html_text: str, page: str = "<page>") -> tuple[str, list[Tag]]:
    """Badges for tags in already-rendered HTML (notebook pages, whose Markdown cells MkDocs
    never sees as Markdown). Text inside tags' markup, code, scripts and styles is left alone.

    >>> render_tags_in_html("<p>[MY ANALYSIS] x</p><pre>[MY ANALYSIS]</pre>")[0].count("prov--")
    1
    """
    tags: list[Tag] = []
    pieces: list[str] = []
    in_code = False  # the text just after a code element's start tag is its whole content
    for token in tokens(html_text, raw=CODE_ELEMENTS):
        piece = html_text[token.start : token.end]
        if token.kind == "text" and not in_code:
            piece = _replace_in_prose_html(html.unescape(piece), page, tags)
        in_code = token.kind == "start" and token.name in CODE_ELEMENTS and not token.closed
        pieces.append(piece)
    return "".join(pieces), tags


def _replace_in_prose_html(text: str, page: str, tags: list[Tag]) -> str:
    """Escape a text node back to HTML, with its tags turned into badges."""
    out: list[str] = []
    last = 0
    for match in TAG_PATTERN.finditer(text):
        tag_text = " ".join(match.group("tag").split())  # a SECTION: prefix renders as a badge
        if problem := paper_tag_problem(tag_text):
            raise ProvenanceError(f"{page}: {problem}")
        tags.append(Tag(_kind_of(tag_text), tag_text, 0))
        out.append(html.escape(text[last : match.start()], quote=False))
        out.append(_badge(tag_text))
        last = match.end()
    out.append(html.escape(text[last:], quote=False))
    return "".join(out)
