"""Every number the claim check verified becomes a link to the output line that printed it.

At build time the plugin's reader features ask the claim check
(`explainer_tools.claims.api.verified_numbers`) which numbers of a page it verified, and where
each was printed. This module then

- wraps each such number in the page's Markdown in `<a class="num" href="#out-..." data-block>`:
  hovering or focusing it shows a card (docs/javascripts/reader.js) with the script, block and
  output line that printed it and the state it was checked at (the script's and the lock's hashes
  from the run's stamp); clicking goes to that line of the output embedded in the chapter's code
  section, highlighted. A number inside a formula becomes `{\\href{...}{...}}`, which KaTeX
  renders as a link at build time (math_render.py trusts `\\href` to an in-page anchor only).
  A number whose output line is not embedded on the page is a focusable `<span>` that
  carries its line in data attributes;
- gives every line of an embedded output an anchor `out-<script stem>-L<line>`, and appends the
  page's table of stamp states (one small JSON script element), so that the card's text is built
  from the line on the page and costs no bytes per number.

A value a page quotes by name (`{glue}`name``, `\\glue{name}` in math: glue.py) becomes the
same link, its text the one printed (`NumberLink.shown`); in a heading, or in a formula whose
line is not embedded, the text alone.

Because the links come from the checker's own results, the site cannot show a provenance that
`make check` would not accept. No layout shift: the link keeps the text's size and only adds a
dotted underline (hidden in print).

    >>> anchor("ch05_param_count.py", 12)
    'out-ch05_param_count-L12'
"""

from __future__ import annotations

import html
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from explainer_tools import glue
from explainer_tools.blocks import parse_blocks
from explainer_tools.markdown import find_markers, math_ranges, math_text

# Characters that Markdown's inline processors (code, escapes, links, math) would act on inside an
# attribute before the raw-HTML pattern protects it.
_ATTRIBUTE_ESCAPES = {"`": "&#96;", "\\": "&#92;", "$": "&#36;", "[": "&#91;", "]": "&#93;",
                      "|": "&#124;", "*": "&#42;", "_": "&#95;"}


@dataclass(frozen=True)
class NumberLink:
    """One verified number to link: where it is in the Markdown body, and what printed it."""

    start: int  # offsets in the Markdown body MkDocs hands the plugin
    end: int
    text: str
    script: str
    block: int
    output_line: int
    output_text: str
    shown: str = ""  # a glued value (glue.py): the printed text that replaces the reference


def glued_link(text: str, reference: glue.Reference, scripts: list[str],
               names: dict[str, dict[str, glue.Glued]], outputs: dict[str, str],
               page: str) -> NumberLink:
    """The value `reference` (in `text`) quotes by name, as a link to the output line that
    printed it, showing the printed text in the reference's styles; a glue.GlueError
    `page:line: ...` when no script of `scripts` prints the name."""
    script, value = glue.resolve(reference, scripts, names, page)
    printed = outputs.get(script, "").split("\n")
    return NumberLink(reference.start, reference.end, text[reference.start:reference.end], script,
                      value.block, value.line,
                      printed[value.line - 1] if value.line <= len(printed) else "",
                      glue.display(value.text, reference.styles))


def anchor(script: str, line: int) -> str:
    return f"out-{Path(script).stem}-L{line}"


def attribute(text: str) -> str:
    """Text safe inside a double-quoted attribute of inline HTML in Markdown."""
    escaped = html.escape(text, quote=True)
    return "".join(_ATTRIBUTE_ESCAPES.get(char, char) for char in escaped)


def embedded_lines(markdown: str, outputs: dict[str, str], path: str) -> set[tuple[str, int]]:
    """(script, output line) of every line of an output embedded in this Markdown (of `path`)."""
    lines: set[tuple[str, int]] = set()
    for marker in find_markers(markdown, path):
        script, text = marker.target, outputs.get(marker.target)
        if marker.kind != "output" or text is None:
            continue
        if marker.block is not None:
            block = parse_blocks(text).get(marker.block)
            if block:
                lines.update((script, block.first_line + i) for i in range(len(block.lines)))
        else:
            lines.update((script, n) for n in range(1, text.count("\n") + 2))
    return lines


def _inside(position: int, ranges: Iterable[tuple[int, int]]) -> bool:
    return any(start < position < end for start, end in ranges)


def card_text(script: str, block: int, line: int, printed: str, checked_at: str) -> str:
    """What the card of a number says (reader.js builds the same text in the browser)."""
    printed = " ".join(printed.split())
    return (f"Printed by {script}, output [{block}], line {line}: {printed} "
            f"(checked at {checked_at})")


def stamps_json(checked_at: dict[str, str]) -> str:
    """The per-page table the cards read: script -> checked state. A hidden element, not a
    `<script>`: Material's instant navigation would run a script element as JavaScript."""
    data = html.escape(json.dumps(checked_at, sort_keys=True), quote=True)
    return f'<div class="number-stamps" hidden data-stamps="{data}"></div>'


def link_numbers(markdown: str, links: list[NumberLink], embedded: set[tuple[str, int]]) -> str:
    """Wrap each verified number of the Markdown body in its link (from the end backwards, so
    earlier offsets stay valid). Numbers in headings are left alone (they would enter the TOC)."""
    maths = math_ranges(markdown)
    result = markdown
    for link in sorted(links, key=lambda item: item.start, reverse=True):
        if markdown[link.start : link.end] != link.text:
            continue  # the body does not hold the number where the check saw it: skip safely
        in_math = _inside(link.start, maths)
        text = (math_text(link.shown) if in_math else html.escape(link.shown)) if link.shown \
            else link.text
        line_start = markdown.rfind("\n", 0, link.start) + 1
        target = (link.script, link.output_line) in embedded
        href = f"#{anchor(link.script, link.output_line)}"
        if markdown[line_start:link.start].lstrip().startswith("#") or (in_math and not target):
            if not link.shown:
                continue
            wrapped = f"{{{text}}}" if in_math else text  # a glued value still shows its text
        elif in_math:
            # Braced, so that `\sqrt2` -> `\sqrt{\href{..}{2}}` keeps its argument.
            wrapped = f"{{\\href{{{href}}}{{{text}}}}}"
        elif target:
            wrapped = f'<a class="num" href="{href}" data-block="{link.block}">{text}</a>'
        else:
            wrapped = (f'<span class="num" tabindex="0" data-script="{link.script}" '
                       f'data-block="{link.block}" data-line="{link.output_line}" '
                       f'data-printed="{attribute(link.output_text)}">{text}</span>')
        result = result[: link.start] + wrapped + result[link.end :]
    return result


# The marker comments as they survive into the built HTML (find_markers reads Markdown lines).
EMBEDDED_SOURCE = re.compile(r'(<!--\s*embed:\s*source\s+\S+\s*-->\s*<div class="highlight")')


def exclude_sources_from_search(html_text: str) -> str:
    """Embedded script sources stay out of the search index (`data-search-exclude`, Material's
    search plugin): they are the bulk of the index, which every page downloads, and the prose
    around them names what they compute.

    >>> exclude_sources_from_search('<!-- embed: source a.py -->\\n<div class="highlight">')
    '<!-- embed: source a.py -->\\n<div class="highlight" data-search-exclude>'
    """
    return EMBEDDED_SOURCE.sub(r"\1 data-search-exclude", html_text)


_EMBEDDED_BLOCK = re.compile(
    r"(?P<marker><!--\s*embed:\s*output\s+(?P<script>\S+\.py)(?:\s+\[(?P<block>\d+)\])?\s*-->)"
    r"(?P<between>\s*<div class=\"highlight\">(?:<span class=\"filename\">[^<]*</span>)?"
    r"<pre[^>]*>(?:<span></span>)?<code>)(?P<code>.*?)(?P<close></code>)",
    re.S,
)


def anchor_output_lines(html_text: str, outputs: dict[str, str]) -> str:
    """Give each line of every embedded output an id, once per page."""
    used: set[str] = set()

    def lines(match: re.Match[str]) -> str:
        script = match.group("script")
        text = outputs.get(script)
        if text is None:
            return match.group(0)
        first = 1
        if match.group("block"):
            block = parse_blocks(text).get(int(match.group("block")))
            first = block.first_line if block else 1
        wrapped = []
        for offset, line in enumerate(match.group("code").split("\n")):
            ident = anchor(script, first + offset)
            if ident in used or not line:
                wrapped.append(line)
                continue
            used.add(ident)
            wrapped.append(f'<span class="out-line" id="{ident}">{line}</span>')
        return (match.group("marker") + match.group("between") + "\n".join(wrapped)
                + match.group("close"))

    return _EMBEDDED_BLOCK.sub(lines, html_text)
