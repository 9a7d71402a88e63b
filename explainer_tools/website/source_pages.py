"""The site plugin's source feature: each embedded script source on a page of its own.

A chapter's "Code for this chapter" section embeds the sources of its scripts
(`<!-- embed: source ch05_param_count.py -->`, written by `make regenerate`), each in a
collapsed block. Highlighted, they are most of a chapter's HTML (Chapter 5: 287 kB of 743 kB,
half of its DOM), downloaded and parsed by every reader, though few open them. So the build
gives each embedded file a page, `code/<file>/` (not in the nav, left out of the search index
and of the whole-book print), and on the chapter page the collapsed block becomes one line
linking to it. The Markdown keeps the embedded source: `make check` still compares it with the
file, and a reader of the repository still finds it in the chapter.

Only a collapsed block that holds nothing but the embedded source is replaced; a source shown
open in the text stays where it is.
"""

from __future__ import annotations

import html
import re
import textwrap
from dataclasses import dataclass, field

from explainer_tools.markdown import find_markers

FOLDER = "code"
# A collapsed block (pymdownx.details) whose whole body is one embedded source. The marker
# comments survive into the HTML, so they delimit the source exactly (in the built HTML, which
# find_markers, a reader of Markdown lines, does not read).
COLLAPSED_SOURCE = re.compile(
    r'<details class="[^"]*">\s*<summary>(?P<summary>[^<]*)</summary>\s*'
    r"<!-- embed: source (?P<target>[\w./-]+) -->.*?<!-- /embed -->\s*</details>",
    re.S,
)


@dataclass
class SourcePage:
    """One embedded file: its page's path under docs/, its embedded lines, who shows it."""

    target: str  # the file under explainer_code/, e.g. "pacbound/markov.py"
    body: str  # the embedded Markdown (a fenced block), dedented
    shown_on: list[str] = field(default_factory=list)  # docs-relative pages embedding it

    @property
    def path(self) -> str:
        return f"{FOLDER}/{self.target.removesuffix('.py')}.md"

    @property
    def lines(self) -> int:
        return max(0, self.body.count("\n") - 2)  # the fence's own two lines left out


def collect(pages: dict[str, str]) -> dict[str, SourcePage]:
    """Every source embedded in `pages` (docs-relative path -> Markdown), by target, in the
    order first met; the body is the first page's copy (`make check` keeps all copies equal)."""
    found: dict[str, SourcePage] = {}
    for page, text in sorted(pages.items()):
        lines = text.splitlines(keepends=True)
        for marker in find_markers(text, f"docs/{page}"):
            if marker.kind != "source":
                continue
            if marker.target not in found:
                embedded = "".join(lines[marker.start_line:marker.end_line - 1])
                found[marker.target] = SourcePage(marker.target,
                                                  textwrap.dedent(embedded).strip("\n") + "\n")
            if page not in found[marker.target].shown_on:
                found[marker.target].shown_on.append(page)
    return found


def first_heading(text: str) -> str | None:
    """A page's first level-1 heading, without its `#`.

    >>> first_heading("---\\ntitle: x\\n---\\n\\n# Chapter 5: Transformers\\n")
    'Chapter 5: Transformers'
    """
    for line in text.splitlines():
        if line.startswith("# "):
            return line[2:].strip()
    return None


def page_markdown(source: SourcePage, titles: dict[str, str]) -> str:
    """The Markdown of a source's page: its name, where the book uses it, the highlighted file."""
    back = ", ".join(f"[{titles.get(page, page)}](../{'../' * source.target.count('/')}{page}"
                     "#code-for-this-chapter)" for page in source.shown_on)
    return (
        "---\nsearch:\n  exclude: true\n---\n\n"
        f"# explainer_code/{source.target}\n\n"
        f"The source as `make regenerate` embeds it, {source.lines:,} lines; shown on {back}. "
        "`make check` fails when it differs from the file.\n\n"
        f"{source.body}"
    )


def link_sources(html_text: str, links: dict[str, tuple[str, int, str]]) -> str:
    """Replace each collapsed block holding only an embedded source by a line linking to its
    page (`links`: target -> (URL relative to this page, its number of lines, its URL from the
    site's root)). A target with no page stays as it is."""

    def replace(match: re.Match[str]) -> str:
        target = match.group("target")
        if target not in links:
            return match.group(0)
        url, lines, site_path = links[target]
        summary = match.group("summary").strip() or f"Source: {target}"
        return (f'<p class="source-page"><a href="{html.escape(url)}" '
                f'data-site-path="{html.escape(site_path)}">{summary}</a>: '
                f"{lines:,} lines, highlighted, on a page of its own</p>")

    return COLLAPSED_SOURCE.sub(replace, html_text)


# A pattern, not the tokenizer (explainer_tools.html_tokens): parsing the whole-book page
# (2.4 MB) costs a warm build 0.4 s more.
PRINTED_LINK = re.compile(r'<a href="[^"]*" data-site-path="(?P<path>[^"]+)">')


def print_page_links(html_text: str, up_to_root: str) -> str:
    """The whole-book page gathers the chapters, not the source pages, and its plugin turns
    every link to a page of the site into an anchor on itself: point the source links back at
    their pages (`up_to_root`: the way from the whole-book page to the site's root).

    >>> print_page_links('<a href="#code-ch09_x" data-site-path="code/ch09_x/">', "../")
    '<a href="../code/ch09_x/" data-site-path="code/ch09_x/">'
    """
    return PRINTED_LINK.sub(lambda m: f'<a href="{up_to_root}{m.group("path")}" '
                                      f'data-site-path="{m.group("path")}">', html_text)
