"""Rewrite the prose text of rendered HTML, leaving code, math, links and headings alone.

MkDocs hands hooks a page's HTML as a string (`on_page_content`). The reader features (citations,
cross-references, glossary terms) rewrite words of prose in it; they must not touch code blocks,
inline code, formulas, existing links, headings or the tags themselves. `map_prose` splits the
HTML into tags and text, tracks which elements are open, and calls a function on each text run
that lies outside every skipped element.

    >>> map_prose('<p>a <code>a</code> a</p>', lambda t: t.upper())
    '<p>A <code>a</code> A</p>'

The HTML is read by the shared tokenizer (`explainer_tools.html_tokens`, the standard library's
parser): comments and `<!DOCTYPE>` pass through untouched, a quoted attribute value may hold `>`,
and an unclosed skipped element skips the rest of the page (a safe failure: nothing is
rewritten).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping

from explainer_tools.html_tokens import tokens

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


def is_skipped(name: str, attrs: Mapping[str, str | None],
               skip_classes: Iterable[str] = SKIP_CLASSES) -> bool:
    """Whether an element with this tag name and these attributes holds no prose."""
    classes = (attrs.get("class") or "").split()
    return name in SKIP_ELEMENTS or not set(skip_classes).isdisjoint(classes)


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
    for token in tokens(html_text, raw=FLAT_SKIPPED):
        piece = html_text[token.start : token.end]
        if token.kind == "text" and not skipping and not piece.isspace():
            piece = rewrite(piece)
        elif token.kind == "start" and not token.closed and token.name not in VOID_ELEMENTS:
            skipped = is_skipped(token.name, token.attrs, classes)
            stack.append((token.name, skipped))
            skipping += skipped
        elif token.kind == "end":
            # Pop to the matching open tag (tolerates the odd unclosed <p> inside it).
            for depth in range(len(stack) - 1, -1, -1):
                if stack[depth][0] == token.name:
                    skipping -= sum(skipped for _, skipped in stack[depth:])
                    del stack[depth:]
                    break
        pieces.append(piece)
    return "".join(pieces)
