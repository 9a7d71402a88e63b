"""The notebook page made light enough for a phone: its stylesheet cut to what its cells use.

nbconvert writes the whole of JupyterLab's stylesheet into every notebook page: 0.57 MB, most of
it for widgets a static page never shows (Blueprint's `bp3-` classes, Lumino's `lm-`, the
editor's `CodeMirror`, `cm-`), and 40 kB of colour variables. It made the companion notebook's
page the one page of the site over the 1-MB budget. `slim` keeps the page as it looks:

- a selector is dropped only when it names a class of those libraries (`PRUNED_PREFIXES`) that
  no element of the page carries (classes inside `:not(...)` do not count: `.a:not(.b)` matches
  without `.b`); a rule goes when none of its selectors is left, an `@media` block when none of
  its rules is;
- a custom property (`--name: ...`) is dropped when nothing left (rules, the page's own `style`
  attributes, other kept properties) reads it with `var(--name`;
- the loader of Mermaid's diagram library goes (it fetches the library from a CDN when a page
  holds a diagram; these pages hold none, and the site loads nothing from other hosts), and so
  do copies of one stylesheet written twice;
- each code cell's source, written a second time into a hidden block for its copy button
  (38 kB), is not: the button copies the text of the cell's `<pre>` instead (`for=` names it),
  which is the same text;
- whitespace between two tags shrinks to one line break (outside `<pre>`, scripts and styles);
- in a code cell's source (`<div class="highlight-ipynb">`), Pygments' token spans that the
  site's stylesheets draw in the cell's own colour (`UNSTYLED`: names and punctuation,
  reader.css; whitespace, which shows no colour; the empty span Pygments opens each block with)
  give up their text to the line, and spans of one class
  that touch become one: a third of the page's elements, each laid out and styled on every
  load, for the same pixels (tests/browser/test_notebook_page_slim.py compares every character's
  box and colour with nbconvert's page, in both schemes);
- `images`: a figure written into the page as a `data:` URL (the notebook's own cells emit them)
  becomes a file beside the page, loaded lazily, with its width and height (no layout shift), so
  that a reader who opens the page loads the figures near the screen, not all of them.

Only the page's `<style>` blocks before its first cell are touched; a cell's output is never
changed. tests/test_notebook_slim.py checks the rules; tests/browser/test_notebook_page_slim.py that
the page draws the same pixels as nbconvert's and that a copy button copies the cell's source.

    >>> slim('<style>.jp-A{color:red}.jp-B{color:blue}.x{--u:1;--v:2}.jp-A{width:var(--u)}'
    ...      '</style><div class="jp-Cell jp-A x">')
    '<style>.jp-A{color:red}.x{--u:1;}.jp-A{width:var(--u)}</style><div class="jp-Cell jp-A x">'
"""

from __future__ import annotations

import base64
import hashlib
import re
import struct

import tinycss2
from tinycss2.ast import AtRule, Declaration, QualifiedRule

from explainer_tools.html_tokens import Token, splice, tokens, value_span

PRUNED_PREFIXES = ("bp3-", "jp-", "lm-", "p-", "CodeMirror", "cm-", "ansi-")
CLASS_IN_SELECTOR = re.compile(r"\.(-?[_a-zA-Z][\w-]*)")
NOT = re.compile(r":not\([^()]*\)")
VAR = re.compile(r"var\(\s*(--[\w-]+)")
# The start of the script that loads Mermaid (JavaScript, in a `<script type="module">`).
MERMAID_LOADER = re.compile(r'\s*document\.addEventListener\("DOMContentLoaded", async \(\) => '
                            r'\{\s*const diagrams = document\.querySelectorAll\("\.jp-Mermaid')
FIRST_CELL = '<div class="jp-Cell '
# The regexes over HTML below read one writer's fixed shape, so not html_tokens: nbconvert's
# copy button and code cell, and the spans Pygments writes inside it.
COPY_SOURCE = re.compile(r'<pre>(?P<code>(?:(?!</pre>).)*</pre>\s*</div>\s*)'
                         r'<div class="clipboard-copy-txt" id="(?P<id>cell-\d+)">(?:(?!</div>).)*'
                         r'</div>', re.S)
# Pygments classes drawn in a code cell's own colour (reader.css: names, punctuation), whitespace
# (no colour to show), and the empty span that opens every block.
UNSTYLED = ("n", "p", "w", "")
CELL_SOURCE = re.compile(r'(<div class="highlight-ipynb[^"]*"><pre\b[^>]*>)(.*?)(</pre>)', re.S)
_NAMES = "|".join(c for c in UNSTYLED if c)
TOKEN = re.compile(rf'<span(?: class="({_NAMES})")?>([^<]*)</span>')
TOUCHING = re.compile(r'<span class="([\w-]+)">([^<]*)</span><span class="\1">([^<]*)</span>')
KEEP_SPACES = ("pre", "textarea")  # with scripts and styles: their text is left as it is


def _split_selectors(prelude: str) -> list[str]:
    """`a, b:not(c, d)` -> ['a', 'b:not(c, d)']: commas at the top level only."""
    parts, depth, start = [], 0, 0
    for i, char in enumerate(prelude):
        depth += {"(": 1, "[": 1, ")": -1, "]": -1}.get(char, 0)
        if char == "," and depth == 0:
            parts.append(prelude[start:i].strip())
            start = i + 1
    parts.append(prelude[start:].strip())
    return [p for p in parts if p]


def _selector_used(selector: str, used: set[str]) -> bool:
    names = CLASS_IN_SELECTOR.findall(NOT.sub("", selector))
    return all(name in used or not name.startswith(PRUNED_PREFIXES) for name in names)


def _prune_rules(rules: list, used: set[str]) -> list:
    kept = []
    for rule in rules:
        if isinstance(rule, QualifiedRule):
            selectors = [s for s in _split_selectors(tinycss2.serialize(rule.prelude))
                         if _selector_used(s, used)]
            if selectors:
                rule.prelude = tinycss2.parse_component_value_list(", ".join(selectors))
                kept.append(rule)
        elif isinstance(rule, AtRule) and rule.lower_at_keyword == "media" and rule.content:
            inner = _prune_rules(tinycss2.parse_rule_list(rule.content, True, True), used)
            if inner:
                rule.content = tinycss2.parse_component_value_list(tinycss2.serialize(inner))
                kept.append(rule)
        elif not isinstance(rule, tinycss2.ast.ParseError):
            kept.append(rule)
    return kept


def _declarations(rule: QualifiedRule) -> list:
    return tinycss2.parse_blocks_contents(rule.content, skip_whitespace=True, skip_comments=True)


def _prune_properties(sheets: list[list], page_styles: str) -> None:
    """Drop, in place, each custom property that nothing kept reads (to a fixed point)."""
    rules = [r for sheet in sheets for r in sheet if isinstance(r, QualifiedRule)]
    while True:
        read = set(VAR.findall(page_styles))
        for rule in rules:
            read.update(VAR.findall(tinycss2.serialize(rule.content)))
        changed = False
        for rule in rules:
            declarations = _declarations(rule)
            kept = [d for d in declarations if not (isinstance(d, Declaration)
                    and d.name.startswith("--") and d.name not in read)]
            if len(kept) != len(declarations):
                changed = True
                rule.content = tinycss2.parse_component_value_list(
                    ";".join(tinycss2.serialize([d]) for d in kept))
        if not changed:
            return


def _elements(html_text: str, name: str) -> list[tuple[Token, Token | None, Token]]:
    """Each element `name` of `html_text` that holds only text (a script, a style): its start
    tag, its text (None when empty) and its end tag."""
    found = []
    pieces = tokens(html_text)
    for i, tag in enumerate(pieces):
        if tag.kind != "start" or tag.name != name or tag.closed:
            continue
        text = pieces[i + 1] if pieces[i + 1 : i + 2] and pieces[i + 1].kind == "text" else None
        end = pieces[i + (2 if text else 1) :][:1]
        if end and end[0].kind == "end" and end[0].name == name:
            found.append((tag, text, end[0]))
    return found


def _without_mermaid_loader(head: str) -> str:
    loaders = [(start.start, end.end, "") for start, text, end in _elements(head, "script")
               if start.attrs == {"type": "module"} and text is not None
               and MERMAID_LOADER.match(head, text.start, text.end)]
    return splice(head, loaders)


def _shrink_spaces(page: str) -> str:
    """White space between two tags -> one line break, outside pre, textarea, script, style."""
    edits = []
    pieces = tokens(page, raw=KEEP_SPACES)
    for before, text, after in zip(pieces, pieces[1:], pieces[2:], strict=False):
        if (text.kind == "text" and before.kind != "text" and after.kind != "text"
                and text.end - text.start >= 2 and page[text.start : text.end].isspace()
                and not (before.kind == "start" and not before.closed
                         and before.name in (*KEEP_SPACES, "script", "style"))):
            edits.append((text.start, text.end, "\n"))
    return splice(page, edits)


def slim(page: str) -> str:
    """`page` (a notebook page's HTML) with its stylesheets cut to what it uses."""
    head_end = page.find(FIRST_CELL)
    head, body = (page, "") if head_end < 0 else (page[:head_end], page[head_end:])
    head = _without_mermaid_loader(head)
    tags = [tag for tag in tokens(page) if tag.kind == "start"]
    used = {name for tag in tags for name in (tag.attrs.get("class") or "").split()}
    blocks = _elements(head, "style")
    sheets, seen = [], set()
    for _, block, _ in blocks:
        text = head[block.start : block.end] if block else ""
        if text.strip() in seen:
            sheets.append(None)  # a copy of a stylesheet already kept
            continue
        seen.add(text.strip())
        parsed = tinycss2.parse_stylesheet(text, skip_comments=True, skip_whitespace=True)
        sheets.append(_prune_rules(parsed, used))
    _prune_media_properties(sheets, " ".join(tag.attrs.get("style") or "" for tag in tags))
    head = splice(head, [(start.start, end.end, f"{head[start.start:start.end]}"
                          f"{tinycss2.serialize(sheet)}</style>" if sheet else "")
                         for (start, _, end), sheet in zip(blocks, sheets, strict=True)])
    body = CELL_SOURCE.sub(_plain_tokens, COPY_SOURCE.sub(r'<pre id="\g<id>">\g<code>', body))
    return _shrink_spaces(head + body)


def _plain_tokens(match: re.Match) -> str:
    """A code cell's `<pre>` with its unstyled token spans unwrapped and touching spans of one
    class joined.

    >>> _plain_tokens(CELL_SOURCE.match('<div class="highlight-ipynb"><pre><span></span>'
    ...     '<span class="n">x</span><span class="w"> </span><span class="o">=</span>'
    ...     '<span class="o">-</span><span class="mi">1</span></pre>'))
    '<div class="highlight-ipynb"><pre>x <span class="o">=-</span><span class="mi">1</span></pre>'
    """
    code = TOKEN.sub(r"\2", match[2])
    while True:
        joined = TOUCHING.sub(r'<span class="\1">\2\3</span>', code)
        if joined == code:
            return match[1] + code + match[3]
        code = joined


def _prune_media_properties(sheets: list, page_styles: str) -> None:
    """Custom properties are pruned on the top-level rules and on those of each @media block,
    whose content is re-serialized from the pruned rules."""
    live = [s for s in sheets if s is not None]
    media: list[tuple[AtRule, list]] = []
    for sheet in live:
        for rule in sheet:
            if isinstance(rule, AtRule) and rule.lower_at_keyword == "media" and rule.content:
                media.append((rule, tinycss2.parse_rule_list(rule.content, True, True)))
    _prune_properties(live + [inner for _, inner in media], page_styles)
    for rule, inner in media:
        rule.content = tinycss2.parse_component_value_list(tinycss2.serialize(inner))


PNG_DATA = "data:image/png;base64,"


def images(page: str) -> tuple[str, dict[str, bytes]]:
    """`page` with each PNG `data:` image a lazily loaded file `figure-<hash>.png` beside it,
    and those files' bytes by name."""
    files: dict[str, bytes] = {}
    edits = []
    for tag in tokens(page):
        if tag.kind != "start" or tag.name != "img":
            continue
        span = value_span(page, tag, "src")
        if span is None or not page.startswith(PNG_DATA, span[0], span[1]):
            continue
        try:
            data = base64.b64decode(page[span[0] + len(PNG_DATA) : span[1]], validate=True)
        except ValueError:
            continue
        if data[:8] != b"\x89PNG\r\n\x1a\n":
            continue
        width, height = struct.unpack(">II", data[16:24])
        name = f"figure-{hashlib.sha256(data).hexdigest()[:12]}.png"
        files[name] = data
        quoted = page[span[1] : span[1] + 1] in ("'", '"')
        after = span[1] + quoted
        edits += [(span[0], span[1], name),
                  (after, after, f' loading="lazy" width="{width}" height="{height}"')]
    return splice(page, edits), files
