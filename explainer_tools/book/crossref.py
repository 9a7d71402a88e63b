"""Numbered equations and figures, and references to them from any page.

In a chapter `docs/chapters/NN-slug.md`:

- a display formula gets a number when it holds a label:
  `\\[ R(h) \\le \\hat R(h) + \\sqrt{\\ldots} \\label{eq:hoeffding} \\]` is shown as (9.1), the
  first labelled formula of Chapter 9;
- every `<figure markdown>` is numbered in order (Figure 9.1, 9.2, ...), its caption starts with
  the number, and `<figure markdown id="fig-overfit">` makes it referable as `fig:overfit`;
- `[@eq:hoeffding]` anywhere on the site becomes a link "Eq. (9.1)" to the formula,
  `[@fig:overfit]` a link "Figure 9.1"; hovering or focusing the link previews the formula or the
  figure. An unknown label, or a label defined twice, fails the build naming page and line.

The index is built from the Markdown sources before any page is rendered, so a reference may point
forward or to another chapter.

    >>> index = build_index({"chapters/09-gen.md": "\\\\[ a \\\\label{eq:x} \\\\]\\n"})
    >>> index.labels["eq:x"].number
    '9.1'
"""

from __future__ import annotations

import html
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from explainer_tools.html_tokens import splice, tokens, value_span
from explainer_tools.markdown import math_spans, scan

CHAPTER_FILE = re.compile(r"(?:^|/)chapters/(\d{2})-[^/]+\.md$")
EQ_LABEL = re.compile(r"\\label\{(eq:[A-Za-z0-9_-]+)\}")
FIGURE_ID = re.compile(r"fig-([A-Za-z0-9_-]+)")  # a figure's id, as its label names it
IMAGE_SRC = re.compile(r"!\[[^\]]*\]\(([^)\s]+)")
REFERENCE = re.compile(r"\[@((?:eq|fig):[A-Za-z0-9_-]+)\]")


class CrossRefError(ValueError):
    """An unknown or duplicate label, naming the page and line."""


@dataclass(frozen=True)
class Label:
    name: str  # eq:hoeffding, fig:overfit
    page: str  # src path under docs/, e.g. chapters/09-generalization.md
    line: int
    number: str  # 9.1
    anchor: str  # eq-hoeffding, fig-overfit
    preview: str = ""  # the formula's TeX, or the figure's image path (relative to the page)

    @property
    def text(self) -> str:
        return f"Eq. ({self.number})" if self.name.startswith("eq:") else f"Figure {self.number}"


@dataclass
class Index:
    labels: dict[str, Label] = field(default_factory=dict)
    figures: dict[str, list[str]] = field(default_factory=dict)  # page -> figure numbers in order


def chapter_number(page: str) -> int | None:
    match = CHAPTER_FILE.search(page)
    return int(match.group(1)) if match else None


def _outside_fences(markdown: str) -> list[tuple[int, str]]:
    """(line number, line) of the prose lines (the shared scanner: no code, no embedded
    output, no front matter, no comment)."""
    return [(line.number, line.text) for line in scan(markdown).lines
            if line.kind == "prose" and not line.embedded]


def _add(index: Index, label: Label) -> None:
    if label.name in index.labels:
        first = index.labels[label.name]
        raise CrossRefError(
            f"docs/{label.page}:{label.line}: label {label.name!r} is already defined at "
            f"docs/{first.page}:{first.line}"
        )
    index.labels[label.name] = label


def _formula_of(markdown: str, label: str) -> str:
    for span in math_spans(markdown):
        body = markdown[span.body_start:span.body_end]
        if span.display and f"\\label{{{label}}}" in body:
            return body.replace(f"\\label{{{label}}}", "").strip()
    return ""


def index_page(index: Index, page: str, markdown: str) -> None:
    """Add the labels of one page (its path under docs/ and its Markdown) to `index`."""
    chapter = chapter_number(page)
    lines = _outside_fences(markdown)
    equation = figure = 0
    numbers: list[str] = []
    for number, line in lines:
        for match in EQ_LABEL.finditer(line):
            if chapter is None:
                raise CrossRefError(f"docs/{page}:{number}: numbered formulas belong in chapters")
            equation += 1
            name = match.group(1)
            _add(index, Label(name, page, number, f"{chapter}.{equation}",
                              name.replace(":", "-"), _formula_of(markdown, name)))
        for tag in tokens(line) if "<figure" in line.lower() else []:
            if tag.kind != "start" or tag.name != "figure" or chapter is None:
                continue  # figures outside chapters are not numbered
            figure += 1
            numbers.append(f"{chapter}.{figure}")
            ident = FIGURE_ID.fullmatch(tag.attrs.get("id") or "")
            if ident:
                image = next((IMAGE_SRC.search(text) for _, text in lines if _ >= number
                              and IMAGE_SRC.search(text)), None)
                _add(index, Label(f"fig:{ident.group(1)}", page, number, f"{chapter}.{figure}",
                                  f"fig-{ident.group(1)}", image.group(1) if image else ""))
    index.figures[page] = numbers


def build_index(pages: dict[str, str]) -> Index:
    """The labels of every page: {path under docs/: Markdown} -> Index."""
    index = Index()
    for page in sorted(pages):
        index_page(index, page, pages[page])
    return index


def _url_parts(page: str) -> list[str]:
    """The folders of a page's directory URL: `chapters/09-x.md` -> chapters, 09-x."""
    parts = list(PurePosixPath(page).with_suffix("").parts)
    return parts[:-1] if parts and parts[-1] == "index" else parts


def url_depth(page: str, directory_urls: bool = True) -> int:
    """How many folders deep a page's rendered URL is: the `../` needed to reach the site root.

    >>> url_depth("chapters/09-x.md"), url_depth("chapters/09-x.md", directory_urls=False)
    (2, 1)
    """
    if directory_urls:
        return len(_url_parts(page))
    return len(PurePosixPath(page).parts) - 1


def relative_url(from_page: str, to_page: str, anchor: str, directory_urls: bool = True) -> str:
    """Link from one page's rendered URL to an anchor on another page.

    With directory URLs (the site) `chapters/09-x.md` is served as `chapters/09-x/`; without
    them (the copy that works from a folder, `make offline`) as `chapters/09-x.html`.

    >>> relative_url("chapters/10-y.md", "chapters/09-x.md", "eq-a")
    '../../chapters/09-x/#eq-a'
    >>> relative_url("chapters/10-y.md", "chapters/09-x.md", "eq-a", directory_urls=False)
    '../chapters/09-x.html#eq-a'
    """
    if from_page == to_page:
        return f"#{anchor}"
    up = "../" * url_depth(from_page, directory_urls)
    if not directory_urls:
        return up + str(PurePosixPath(to_page).with_suffix(".html")) + f"#{anchor}"
    target = "/".join(_url_parts(to_page))
    return up + (f"{target}/" if target else "") + f"#{anchor}"


DIRECTORY_LINK = re.compile(r"((?:\.\./)+)([\w./-]+?)/(#.*)?")  # a link's address, as written


def file_urls(html_text: str, page: str) -> str:
    """Relative links written as directory URLs (`../../chapters/05-x/`) -> file URLs.

    For a page whose links were written by hand as site URLs (a notebook's Markdown cells), in
    the copy of the site that works from a folder.

    >>> file_urls('<a href="../../chapters/05-x/#a">', "notebooks/n.ipynb")
    '<a href="../chapters/05-x.html#a">'
    """
    edits: list[tuple[int, int, str]] = []
    for tag in tokens(html_text):
        span = value_span(html_text, tag, "href") if "href" in tag.attrs else None
        match = DIRECTORY_LINK.fullmatch(html_text[span[0] : span[1]]) if span else None
        if span and match:
            ups = match.group(1).count("../") - 1  # the directory URL is one folder deeper
            target = posixpath.normpath(posixpath.join(
                *([posixpath.dirname(page)] + [".."] * ups), match.group(2)))
            relative = posixpath.relpath(target, posixpath.dirname(page) or ".")
            edits.append((*span, f'{relative}.html{match.group(3) or ""}'))
    return splice(html_text, edits)


def check_references(markdown: str, page: str, index: Index) -> None:
    """Every `[@eq:...]` / `[@fig:...]` of a page must name a defined label."""
    for number, line in _outside_fences(markdown):
        for match in REFERENCE.finditer(re.sub(r"(`+).+?\1", "", line)):
            if match.group(1) not in index.labels:
                raise CrossRefError(f"docs/{page}:{number}: unknown label {match.group(1)!r}")


def render_references(text: str, page: str, index: Index, directory_urls: bool = True) -> str:
    """Replace `[@eq:x]` / `[@fig:x]` in a run of prose HTML by links with a preview."""

    def replace(match: re.Match[str]) -> str:
        label = index.labels[match.group(1)]
        href = relative_url(page, label.page, label.anchor, directory_urls)
        if label.name.startswith("eq:"):
            data = f' data-tex="{html.escape(label.preview, quote=True)}"'
        else:
            image = ""
            if label.preview:  # Markdown path relative to the defining page's source file
                site_path = posixpath.normpath(
                    posixpath.join(posixpath.dirname(label.page), label.preview))
                image = "../" * url_depth(page, directory_urls) + site_path
            data = f' data-img="{html.escape(image, quote=True)}"'
        return f'<a class="xref" href="{href}"{data}>{html.escape(label.text)}</a>'

    return REFERENCE.sub(replace, text)


# Numbering formulas and figures reads a rendered page by patterns, not by the tokenizer
# (explainer_tools.html_tokens): parsing each page with figures or labels costs a warm build 0.35 s.
def number_equations(html_text: str, page: str, index: Index) -> str:
    """`\\label{eq:x}` in a rendered display formula -> `\\tag{9.1}`, and the anchor on its div."""
    by_name = {label.name: label for label in index.labels.values() if label.page == page}

    def tag(match: re.Match[str]) -> str:
        block = match.group(0)
        found = EQ_LABEL.search(block)
        if not found or found.group(1) not in by_name:
            return block
        label = by_name[found.group(1)]
        block = block.replace(found.group(0), f"\\tag{{{label.number}}}")
        return block.replace('<div class="arithmatex">',
                             f'<div class="arithmatex" id="{label.anchor}">', 1)

    # arithmatex's HTML, not Markdown (the formulas of Markdown are `markdown.math_spans`')
    return re.sub(r'<div class="arithmatex">.*?</div>', tag, html_text, flags=re.S)


def number_figures(html_text: str, page: str, index: Index) -> str:
    """Number each `<figure>` in order: its caption starts "Figure 9.1." and it gets its anchor."""
    numbers = iter(index.figures.get(page, []))

    def figure(match: re.Match[str]) -> str:
        number = next(numbers, None)
        block = match.group(0)
        if number is None:
            return block
        label = f'<span class="fig-number">Figure {number}.</span> '
        return re.sub(r"<figcaption[^>]*>", lambda cap: cap.group(0) + label, block, count=1)

    return re.sub(r"<figure\b[^>]*>.*?</figure>", figure, html_text, flags=re.S)
