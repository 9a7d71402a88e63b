"""Erratum pages and the errata index as the site shows them: the fields of `book/errata.py`
rendered around each erratum's body, and the plugin's page events that do it.

`render_page` puts the front-matter fields around the body; `rendered_page` does the same and
records, for each line it writes, the lines of the source file that line comes from, so that an
error found in the rendered page (an unknown citation key in the `correction:` field, say) can
name the line of the file the author edits. The index (`render_index`) is one table of paper
errata and, when there are any, a section of code errata.

The page events (plugin.py calls `on_page_markdown` with the build's `ErrataState`) run before the
provenance and reader features (higher priority), so the tags in the rendered fields become
badges too. An unknown citation key, label or value name in a field is reported here, at the line
of the erratum's file it is written on (the reader feature, which sees only the rendered page,
would count the lines of that page). Values quoted by name (glue.py) are placed and linked here,
as the reader feature does on a chapter.
"""

from __future__ import annotations

import html
import re
import urllib.parse
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files

from explainer_tools import glue
from explainer_tools.book import bibliography, crossref, errata
from explainer_tools.book.errata import (
    INDEX_PATH,
    Erratum,
    ErratumError,
    erratum_page,
    split_erratum_front_matter,
)
from explainer_tools.markdown import read_front_matter
from explainer_tools.website import number_links
from explainer_tools.yaml_input import front_matter_fields

Span = tuple[int, int]  # first and last line (1-based) of the source file; (0, 0): generated


@dataclass(frozen=True)
class RenderedPage:
    """The Markdown of an erratum page and, per line, the source lines it comes from."""

    text: str
    origins: list[Span]

    def source_line(self, line: int, source: str, token: str = "") -> int:
        """The line of the source file that rendered line `line` (1-based) comes from: the first
        line of its span that contains `token`, else the span's first line (1 for a line the
        renderer made up)."""
        first, last = self.origins[line - 1] if 0 < line <= len(self.origins) else (0, 0)
        if not first:
            return 1
        lines = source.splitlines()
        for number in range(first, min(last, len(lines)) + 1):
            if token and token in lines[number - 1]:
                return number
        return first


def field_spans(source: str) -> dict[str, Span]:
    """The source lines of each front-matter field's value, by field name; for the `evidence`
    list also `evidence[i]`, one span per item (`yaml_input.front_matter_fields`)."""
    return {name: (at.first, at.last) for name, at in front_matter_fields(source).items()
            if "." not in name}


def chapter_title(docs_dir: Path, chapter: str) -> str:
    """The chapter's front-matter title or first `# ` heading; its path when it has neither."""
    path = docs_dir / chapter
    if not path.is_file():
        return chapter
    text = path.read_text(encoding="utf-8")
    try:
        meta, text = split_erratum_front_matter(text, chapter)
        if meta.get("title"):
            return html.escape(str(meta["title"]), quote=False)  # text, written into Markdown
    except ErratumError:
        pass
    for line in text.splitlines():
        if line.startswith("# "):
            return line[2:].strip().rstrip("#").strip()
    return chapter


def _chapter_links(erratum: Erratum, docs_dir: Path, from_page: str) -> list[str]:
    depth = from_page.count("/")
    return [
        f"[{chapter_title(docs_dir, c)}]({'../' * depth}{c})" for c in erratum.meta["chapters"]
    ]


def _evidence_line(item: dict[str, Any]) -> str:
    """One evidence item as a list line: `shows` is Markdown (tags, code), the other fields are
    names and places, text (escaped; the link's target quoted)."""
    shows = str(item["shows"]).strip()
    if "output" in item:
        return (f"- Output [{_text(item['block'])}] of {_code(item['output'])} "
                f"(embedded below): {shows}")
    if "repo" in item:
        repo, commit, file = str(item["repo"]), str(item["commit"]), str(item["file"])
        url = urllib.parse.quote(f"https://{repo}/blob/{commit}/{file}", safe=":/#.-_~@")
        tag = f"[SOURCE: {_text(repo)} @ {_text(commit[:7])}, {_text(file)}]"
        return f"- {tag} {_text(item['where'])} ([view]({url})): {shows}"
    package, file = _text(item["package"]), _text(item["file"])
    return f"- [SOURCE: {package}, {file}] {_code(item['file'])}: {shows}"


def rendered_page(erratum: Erratum, docs_dir: Path, source: str = "") -> RenderedPage:
    """The Markdown MkDocs renders for an erratum page (the fields around the body), with the
    origin of each line in `source`, the file's text (read from `erratum.path` when empty)."""
    if not source:
        source = erratum.path.read_text(encoding="utf-8") if erratum.path.is_file() else ""
    spans = field_spans(source)
    meta = erratum.meta
    page = erratum_page(erratum)
    status_note = {
        "confirmed": "confirmed: the evidence below shows it directly",
        "inferred": "inferred: a conclusion the evidence supports but does not show directly",
    }[meta["status"]]
    if erratum.is_code:
        where, says = "Code locations", "## What the code does"
        wrong, says_field = "## What is wrong, and what the code should do", "code_does"
    else:
        where, says = "Paper locations", "## What the paper says"
        wrong, says_field = "## What is wrong, missing or ambiguous", "paper_says"
    blocks: list[tuple[str, Span]] = [
        (f"# {meta['id']}: {_text(meta['title'])}\n", spans.get("title", (0, 0))),
        (f"**Status**: {status_note}  ", spans.get("status", (0, 0))),
        (f"**{where}**: {'; '.join(map(_text, erratum.locations))}  ", (0, 0)),
        (f"**Chapters**: {', '.join(_chapter_links(erratum, docs_dir, page))}  ",
         spans.get("chapters", (0, 0))),
        ("[All errata](index.md)\n", (0, 0)),
    ]
    blocks += _field_section(says, meta, says_field, spans)
    blocks += _field_section(wrong, meta, "problem", spans)
    blocks.append(("## Evidence\n", (0, 0)))
    blocks += [(_evidence_line(item), spans.get(f"evidence[{number}]", (0, 0)))
               for number, item in enumerate(meta["evidence"])]
    blocks.append(("", (0, 0)))
    blocks += _body_blocks(erratum, source)
    blocks += _field_section("## What it changes for the paper's results", meta, "consequences",
                             spans)
    blocks += _field_section("## Suggested correction", meta, "correction", spans)
    lines: list[str] = []
    origins: list[Span] = []
    for text, origin in blocks:
        for line in text.split("\n"):
            lines.append(line)
            origins.append(origin if line else (0, 0))
    return RenderedPage("\n".join(lines), origins)


def _field_section(heading: str, meta: dict[str, Any], name: str,
                   spans: dict[str, Span]) -> list[tuple[str, Span]]:
    return [(heading + "\n", (0, 0)), (str(meta[name]).strip() + "\n", spans.get(name, (0, 0)))]


def _body_blocks(erratum: Erratum, source: str) -> list[tuple[str, Span]]:
    """The body, line by line, each line its own origin: where the body stands in the source
    (MkDocs hands hooks the body without the blank lines after the front matter)."""
    body = erratum.body.strip("\n")
    found = source.find(body, read_front_matter(source).body_start) if body else -1
    if found < 0:
        return [(body, (0, 0)), ("", (0, 0))]
    start = source.count("\n", 0, found) + 1
    blocks = [(line, (start + number, start + number))
              for number, line in enumerate(body.split("\n"))]
    return [*blocks, ("", (0, 0))]


def render_page(erratum: Erratum, docs_dir: Path) -> str:
    """The Markdown MkDocs renders for an erratum page: the fields around the body."""
    return rendered_page(erratum, docs_dir).text


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _code(name: object) -> str:
    """A name as inline code; as escaped HTML when a backtick in it would end the code span."""
    name = str(name)
    return f"`{name}`" if "`" not in name else f"<code>{_text(name)}</code>"


def _text(text: object) -> str:
    """A field that is text, not Markdown (the title), as Markdown: its HTML escaped, so that a
    `<script>` in it is shown, never run."""
    return html.escape(str(text), quote=False)


CODE_SECTION = (
    "## Errata of the authors' released code\n\n"
    "[MY EXPLANATION] These concern the code the authors released with the paper, not the paper's "
    "text: what a line of it does, what it should do, and what that changes for the bounds."
)


def render_index(errata: Iterable[Erratum], docs_dir: Path) -> str:
    """The index for the page `errata/index.md`: one row per erratum.

    Paper errata form one table; when there are code errata, the paper table gets a heading and
    the code errata follow in a section of their own, with their code locations.
    """
    errata = list(errata)
    paper = [e for e in errata if not e.is_code]
    code = [e for e in errata if e.is_code]
    if not code:
        return _index_table(paper, docs_dir, "Paper locations")
    return "\n\n".join(
        [
            "## Errata of the paper",
            _index_table(paper, docs_dir, "Paper locations"),
            CODE_SECTION,
            _index_table(code, docs_dir, "Code locations"),
        ]
    )


def _index_table(errata: Iterable[Erratum], docs_dir: Path, where: str) -> str:
    rows = [
        f"| Erratum | Title | {where} | Chapters | Status |",
        "| --- | --- | --- | --- | --- |",
    ]
    for erratum in errata:
        meta = erratum.meta
        rows.append(
            "| "
            + " | ".join(
                [
                    f"[{meta['id']}]({erratum.path.name})",
                    _cell(_text(meta["title"])),
                    _cell("; ".join(map(_text, erratum.locations))),
                    ", ".join(_chapter_links(erratum, docs_dir, INDEX_PATH)),
                    str(meta["status"]),
                ]
            )
            + " |"
        )
    return "\n".join(rows)


# ---------------------------------------------------------------- the plugin's page events
@dataclass
class ErrataState:
    """The errata feature's state: what its page checks need, loaded once per build by the
    reader features (the plugin hands it over from their `ReaderState`); None where it is not
    loaded."""

    entries: dict[str, bibliography.Entry] | None = None
    index: crossref.Index | None = None
    pages: dict[str, str] = field(default_factory=dict)
    names: dict[str, dict[str, glue.Glued]] = field(default_factory=dict)  # script -> values
    outputs: dict[str, str] = field(default_factory=dict)  # script -> its golden output

UNKNOWN_LABEL = re.compile(r"^docs/[^:]+:(?P<line>\d+): unknown label '(?P<label>[^']+)'$")


FIELD_NAMED = re.compile(r"field '(?P<a>[^']+)'|^[^:]+: (?P<b>id|status|concerns) ")


def located(problems: list[str], erratum: errata.Erratum) -> str:
    """The problems of one erratum, each as `docs/errata/<file>:<line>: ...`: the line of the
    field it names (the front matter's first line for a missing field)."""
    source = erratum.path.read_bytes().decode("utf-8", "replace").replace("\r\n", "\n")
    spans = field_spans(source)
    where = f"docs/errata/{erratum.path.name}"
    lines = []
    for problem in problems:
        match = FIELD_NAMED.search(problem)
        name = (match["a"] or match["b"]) if match else ""
        lines.append(f"{where}:{spans[name][0] if name in spans else 1}: {problem}")
    return "; ".join(lines)


def check_rendered(rendered: RenderedPage, source: str, src: str,
                   state: ErrataState) -> None:
    """Unknown citation keys and labels in a rendered erratum page, reported at the line of
    its source file."""
    if state.entries is not None:
        for key, line in bibliography.cited_keys(rendered.text):
            if key not in state.entries:
                number = rendered.source_line(line, source, f"@{key}")
                raise PluginError(f"docs/{src}:{number}: unknown citation key {key!r} "
                                  f"(add it to {bibliography.BIB_PATH})")
    if state.index is not None:
        try:
            crossref.check_references(rendered.text, src, state.index)
        except crossref.CrossRefError as error:
            match = UNKNOWN_LABEL.match(str(error))
            if not match:
                raise PluginError(str(error)) from None
            number = rendered.source_line(int(match["line"]), source, f"@{match['label']}")
            raise PluginError(f"docs/{src}:{number}: unknown label {match['label']!r}") from None


def on_page_markdown(state: ErrataState, markdown: str, page: Any, config: Any,
                     files: Files) -> str:
    src_uri = page.file.src_uri
    docs_dir = Path(config["docs_dir"])
    if src_uri == errata.INDEX_PATH:
        return _render_index(markdown, docs_dir)
    folder, _, name = src_uri.rpartition("/")
    if folder != "errata" or not errata.is_erratum_file(name):
        return markdown
    try:
        erratum = errata.read_erratum(Path(page.file.abs_src_path))
    except errata.ErratumError as error:
        raise PluginError(str(error)) from None
    erratum = errata.Erratum(erratum.path, erratum.meta, markdown)
    problems = errata.erratum_field_problems(erratum)
    if problems:
        raise PluginError(located(problems, erratum))
    page.meta["title"] = f"{erratum.meta['id']}: {erratum.meta['title']}"
    # Material reads `status` as its own page status (new/deprecated); ours is shown in the page.
    page.meta.pop("status", None)
    source = Path(page.file.abs_src_path).read_bytes().decode("utf-8", "replace")
    source = source.replace("\r\n", "\n")
    rendered = rendered_page(erratum, docs_dir, source)
    check_rendered(rendered, source, src_uri, state)
    return link_glued(rendered, source, src_uri, erratum, state)


def link_glued(rendered: RenderedPage, source: str, src: str,
               erratum: errata.Erratum, state: ErrataState) -> str:
    """The rendered page with each value quoted by name (glue.py, in a field or the body)
    shown as its printed text, linked to its output line as on a chapter; a name no script of
    the evidence prints is an error at the line of the erratum's file it is written on."""
    found = glue.references(rendered.text)
    if not found:
        return rendered.text
    scripts = glue.quoted_scripts(erratum.meta)
    links = []
    for reference in found:
        try:
            links.append(number_links.glued_link(rendered.text, reference, scripts, state.names,
                                                 state.outputs, f"docs/{src}"))
        except glue.GlueError as error:
            written = rendered.text[reference.start:reference.end]
            line = rendered.source_line(reference.line, source, written)
            raise PluginError(f"docs/{src}:{line}: " + str(error).removeprefix(
                f"docs/{src}:{reference.line}: ")) from None
    embedded = number_links.embedded_lines(rendered.text, state.outputs, f"docs/{src}")
    return number_links.link_numbers(rendered.text, links, embedded)


def _render_index(markdown: str, docs_dir: Path) -> str:
    if markdown.count(errata.INDEX_MARKER) != 1:
        raise PluginError(f"docs/{errata.INDEX_PATH}:1: must contain {errata.INDEX_MARKER} once")
    try:
        all_errata = errata.load_errata(docs_dir / "errata")
    except errata.ErratumError as error:
        raise PluginError(str(error)) from None
    problems = [located(found, e) for e in all_errata
                if (found := errata.erratum_field_problems(e))]
    if problems:
        raise PluginError("; ".join(problems))
    return markdown.replace(errata.INDEX_MARKER, render_index(all_errata, docs_dir))
