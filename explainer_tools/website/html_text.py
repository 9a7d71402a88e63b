"""Rewrite the prose text of rendered HTML, leaving code, math, links and headings alone.

MkDocs hands hooks a page's HTML as a string (`on_page_content`). The reader features (citations,
cross-references, glossary terms) rewrite words of prose in it; they must not touch code blocks,
inline code, formulas, existing links, headings or the tags themselves. `map_prose` splits the
HTML into tags and text, tracks which elements are open, and calls a function on each text run
that lies outside every skipped element.

    >>> map_prose('<p>a <code>a</code> a</p>', lambda t: t.upper())
    '<p>A <code>a</code> A</p>'

It is a tokenizer for the HTML that Python-Markdown and MkDocs write (well nested, quoted
attributes), not a general HTML parser: comments and `<!DOCTYPE>` pass through untouched, and an
unclosed skipped element skips the rest of the page (a safe failure: nothing is rewritten).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

TAG_OR_COMMENT = re.compile(r"<!--.*?-->|<![^>]*>|<(/?)([A-Za-z][A-Za-z0-9-]*)([^>]*)>", re.S)
CLASS_ATTR = re.compile(r"""\bclass\s*=\s*(?:"([^"]*)"|'([^']*)')""")
VOID_ELEMENTS = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
     "track", "wbr"}
)  # fmt: skip
# Elements whose text is never prose.
SKIP_ELEMENTS = frozenset(
    {"a", "abbr", "button", "code", "h1", "h2", "h3", "h4", "h5", "h6", "kbd", "pre", "script",
     "style", "svg", "summary", "textarea", "title", "dfn"}
)  # fmt: skip
# Classes whose elements are never prose: formulas, provenance badges, the reader's own marks.
SKIP_CLASSES = frozenset({"arithmatex", "prov", "xref", "cite", "gloss", "num", "references",
                          "chapter-link"})


def _classes(attrs: str) -> set[str]:
    match = CLASS_ATTR.search(attrs)
    if not match:
        return set()
    return set((match.group(1) or match.group(2) or "").split())


def is_skipped(name: str, attrs: str, skip_classes: Iterable[str] = SKIP_CLASSES) -> bool:
    """Whether an element with this tag name and attribute text holds no prose."""
    return name.lower() in SKIP_ELEMENTS or bool(_classes(attrs) & set(skip_classes))


# Skipped elements that never hold one of their own kind: the scan jumps to their end tag
# (a highlighted code block is thousands of <span> tags, none of them prose).
FLAT_SKIPPED = frozenset({"pre", "code", "script", "style", "textarea"})


def map_prose(
    html_text: str,
    rewrite: Callable[[str], str],
    skip_classes: Iterable[str] = SKIP_CLASSES,
) -> str:
    """Apply `rewrite` to every text run of `html_text` outside code, math, links and headings
    (runs of white space alone are left as they are)."""
    classes = frozenset(skip_classes)
    pieces: list[str] = []
    stack: list[tuple[str, bool]] = []  # (tag name, whether it starts a skipped region)
    skipping = 0
    last = 0
    match = TAG_OR_COMMENT.search(html_text)
    while match:
        text = html_text[last : match.start()]
        pieces.append(rewrite(text) if text and not skipping and not text.isspace() else text)
        pieces.append(match.group(0))
        last = match.end()
        match = _step(match, html_text, stack, classes)
        if isinstance(match, int):  # a flat skipped element copied whole, up to `match`
            pieces.append(html_text[last:match])
            last = match
            match = TAG_OR_COMMENT.search(html_text, last)
        skipping = sum(skipped for _, skipped in stack)
    tail = html_text[last:]
    pieces.append(rewrite(tail) if tail and not skipping and not tail.isspace() else tail)
    return "".join(pieces)


def _step(match: re.Match[str], html_text: str, stack: list[tuple[str, bool]],
          classes: frozenset[str]) -> re.Match[str] | int | None:
    """Track the open elements after the tag `match`; the next tag, or the offset just past
    the end tag of a flat skipped element (copied whole by the caller)."""
    closing, name, attrs = match.group(1), match.group(2), match.group(3)
    following = match.end()
    if name is None:  # comment or doctype
        return TAG_OR_COMMENT.search(html_text, following)
    name = name.lower()
    if closing:
        # Pop to the matching open tag (tolerates the odd unclosed <p> inside it).
        for depth in range(len(stack) - 1, -1, -1):
            if stack[depth][0] == name:
                del stack[depth:]
                break
        return TAG_OR_COMMENT.search(html_text, following)
    if name in VOID_ELEMENTS or attrs.rstrip().endswith("/"):
        return TAG_OR_COMMENT.search(html_text, following)
    skipped = is_skipped(name, attrs, classes)
    if skipped and name in FLAT_SKIPPED:
        end = html_text.find(f"</{name}>", following)
        if end >= 0:
            return end + len(name) + 3
    stack.append((name, skipped))
    return TAG_OR_COMMENT.search(html_text, following)
