"""The site plugin's reader features: citations, numbered equations and figures with references
across pages, the glossary, the claims ledger, figure zoom, and "last verified" under each
chapter title.

Each feature lives in its own module (bibliography, crossref, glossary, ledger, figure_zoom,
last_verified, number_links for values linked to their output lines, chapters for the home page's
list); this module wires them into the build's events (plugin.py calls each with the
build's `ReaderState`):

- `on_files`: load the BibTeX file, the glossary and the ledger; index the labels of every page;
  check the pages' numbers (cached per page).
  `generated_page` writes the pages the features own (Glossary, Bibliography, Claims ledger),
  which the plugin adds where its settings place them.
- `on_page_markdown`: fail on an unknown citation key or label (naming page and line); append the
  page's References section.
- `on_page_markdown` also links every number the claim check verified to its output line, and
  replaces each value quoted by name (glue.py) with its printed text, linked the same way; an
  unknown name fails the build with the page and line.
- `on_page_content`: number formulas and figures; turn citations, references and first uses of
  glossary terms into links (a term to its Glossary entry); anchor the lines of embedded
  outputs; make each figure open full size (the notebook's too); add the "last verified" line
  to chapters.

Errors stop the build with the page and line (the book never ships a dangling reference).
"""

from __future__ import annotations

import bisect
import dataclasses
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files

from explainer_tools import glue
from explainer_tools.book import bibliography, chapters, crossref, glossary, ledger
from explainer_tools.claims.api import verified_numbers
from explainer_tools.layout import DEFAULT, Layout
from explainer_tools.markdown import read_front_matter, read_utf8
from explainer_tools.website import build_cache, figure_zoom, last_verified, number_links
from explainer_tools.website.html_text import map_prose
from explainer_tools.yaml_input import front_matter_problem


@dataclass
class ReaderState:
    """The reader features' state: what `on_files` loads once per build, for the page events
    (the plugin makes one per build, hands it to each event, and shares part of it with the
    errata feature's `ErrataState`: explainer_tools/website/plugin.py)."""

    entries: dict[str, bibliography.Entry] = field(default_factory=dict)
    terms: list[glossary.Term] = field(default_factory=list)
    index: crossref.Index = field(default_factory=crossref.Index)
    chapters: dict[int, chapters.Chapter] = field(default_factory=dict)  # status from the nav
    nav: list[Any] = field(default_factory=list)
    directory_urls: bool = True  # False in the copy built to work from a folder (make offline)
    numbers: dict[str, list[number_links.NumberLink]] = field(default_factory=dict)  # by page
    outputs: dict[str, str] = field(default_factory=dict)  # script -> golden output text
    checked_at: dict[str, str] = field(default_factory=dict)  # script -> "script h, lock h"
    names: dict[str, dict[str, glue.Glued]] = field(default_factory=dict)  # script -> values
    tools_digest: str = ""  # of explainer_tools' sources, once per build
    sources: dict[str, str] = field(default_factory=dict)  # every Markdown page, by src_uri
    ledger: list[dict] = field(default_factory=list)  # the claims ledger's entries
    head: str | None = None  # the checkout's commit, read once per build
    layout: Layout = DEFAULT  # the repository being built: the folder of the build's mkdocs.yml
    glossary_page: str = "glossary.md"  # where the glossary page is (the plugin's setting)


def read_source(path: Path, src: str) -> str:
    """A page's text as MkDocs reads it (universal newlines); not UTF-8 is an error naming the
    page and line."""
    text = read_utf8(path, f"docs/{src}", PluginError, encoding="utf-8-sig")
    return text.replace("\r\n", "\n").replace("\r", "\n")


def _lines_before_body(source: str, markdown: str) -> int:
    """How many lines of the page precede the Markdown MkDocs hands to hooks: the front matter
    and the blank lines after it, which MkDocs strips."""
    body = source.rfind(markdown) if markdown else -1
    return source.count("\n", 0, body) if body > 0 else 0


def _crlf_shift(raw: str, offsets: list[int]) -> list[int]:
    """Offsets into `raw` (the bytes as written, CRLF kept) as offsets into its universal-newline
    text: each "\\r\\n" before an offset is one character shorter there."""
    pairs = [m.start() for m in re.finditer("\r\n", raw)]
    return [offset - bisect.bisect_left(pairs, offset) for offset in offsets]


def _head(state: ReaderState) -> str:
    """The checkout's commit, once per build ("" outside git)."""
    if state.head is None:
        result = subprocess.run(["git", "rev-parse", "HEAD"], cwd=state.layout.root,
                                capture_output=True, text=True, check=False)
        state.head = result.stdout.strip() if result.returncode == 0 else ""
    return state.head


def _last_verified(state: ReaderState, scripts: list[str]) -> last_verified.Verified:
    """`last_verified.last_verified`, memoised by the commit and the stamps' bytes: its two git
    commands per chapter cost a second of every build, and their answer changes only with them."""
    stamps = [last_verified.stamp_path(state.layout.root, script) for script in scripts]
    if not _head(state):
        return last_verified.last_verified(state.layout.root, scripts)
    key = [_head(state), scripts, [build_cache.digest(p.read_bytes()) if p.is_file() else ""
                              for p in stamps]]
    memo = build_cache.memo("verified", "last_verified v1")
    cached = memo.get(key)
    if cached is None:
        cached = dataclasses.astuple(last_verified.last_verified(state.layout.root, scripts))
        memo.put(key, cached)
    return last_verified.Verified(*cached)


def _verified_links(state: ReaderState,
                    sources: dict[str, str]) -> dict[str, list[number_links.NumberLink]]:
    """The claim check's verified numbers per page, as offsets into the page's source, each page
    checked only when it, the outputs or the tools changed (`make serve` re-checks the edited
    page alone)."""
    outputs = build_cache.digest(sorted(state.outputs.items()))
    key_of = {src: [state.tools_digest, outputs, src, text]
              for src, text in sources.items() if (state.layout.docs_dir / src).is_file()}
    memo = build_cache.memo("numbers", "claims api v1")
    result: dict[str, list[number_links.NumberLink]] = {}
    missing = []
    for src, key in key_of.items():
        cached = memo.get(key)
        if cached is None:
            missing.append(src)
        else:
            result[src] = [number_links.NumberLink(*row) for row in cached]
    if missing:
        checked = verified_numbers(state.layout.root,
                                   [state.layout.docs_dir / src for src in missing])
        for src in missing:
            claims = checked.get(f"docs/{src}")
            links = [number_links.NumberLink(v.span[0], v.span[1], v.text, v.script, v.block,
                                             v.output_line, v.output_text)
                     for v in (claims.verified if claims else [])]
            memo.put(key_of[src], [dataclasses.astuple(link) for link in links])
            result[src] = links
    return {src: links for src, links in result.items() if links}


def _load_numbers(state: ReaderState, sources: dict[str, str]) -> None:
    """The claim check's verified numbers, as offsets into each page's Markdown body, with the
    outputs and stamps they are checked against."""
    state.outputs = {path.stem + ".py": path.read_text(encoding="utf-8")
                     for path in sorted(state.layout.output_dir.glob("*.txt"))}
    for script in state.outputs:
        stamp = last_verified.read_stamp(state.layout.root, script)
        if stamp:
            state.checked_at[script] = (f"script {last_verified.short_hash(stamp.script_hash)}, "
                                        f"lock {last_verified.short_hash(stamp.lock_hash)}")
    state.names = glue.read_names(state.layout.output_dir)
    if not state.tools_digest:
        state.tools_digest = build_cache.tools_digest()
    state.numbers = _verified_links(state, sources)


def layout_of(config: Any) -> Layout:
    """The repository a build belongs to: the folder of its mkdocs.yml (a scratch copy of the
    site, as the browser tests build, reads its own pages, not the checkout's).

    >>> layout_of({"config_file_path": "copy/of/the/book/mkdocs.yml"}).root.name
    'book'
    """
    path = config.get("config_file_path") if hasattr(config, "get") else None
    return Layout(Path(path).parent) if path else DEFAULT


def on_files(state: ReaderState, files: Files, config: Any) -> Files:
    """Load what the page events need into this build's `state` (the plugin adds the generated
    pages from it: `generated_page`)."""
    state.layout = layout_of(config)
    try:
        state.entries = bibliography.load_bibliography(state.layout.root)
        state.terms = glossary.load_glossary(state.layout.root)
        state.ledger = ledger.load_ledger(state.layout.root)
        state.sources = {
            f.src_uri: read_source(Path(f.abs_src_path), f.src_uri)
            for f in files.documentation_pages()
            if f.abs_src_path and f.src_uri.endswith(".md")
        }
        for src, text in state.sources.items():
            problem = front_matter_problem(text, f"docs/{src}")
            if problem:
                raise PluginError(problem)
        chapters.refuse_duplicate_numbers(sorted(state.sources))
        state.index = crossref.build_index(state.sources)
        for src, text in state.sources.items():  # each page's `[@eq:...]`, by the file's lines
            crossref.check_references(text, src, state.index)
        state.nav = config["nav"] or []
        state.directory_urls = bool(config["use_directory_urls"])
        plan = chapters.load_plan(state.layout.root)
        state.chapters = {c.number: c for c in chapters.chapter_status(plan, state.nav)}
        _load_numbers(state, state.sources)
    except (bibliography.BibliographyError, glossary.GlossaryError, crossref.CrossRefError,
            chapters.BookError, ledger.LedgerError, ValueError) as error:
        raise PluginError(str(error)) from None
    return files


def generated_page(state: ReaderState, feature: str) -> str:
    """The Markdown of the page a feature owns (plugin.GENERATED: "glossary", "bibliography",
    "ledger"), from what `on_files` loaded."""
    if feature == "glossary":
        return glossary.glossary_markdown(state.terms, set(state.sources))
    if feature == "bibliography":
        return bibliography.bibliography_markdown(state.entries)
    if feature == "ledger":
        return ledger.ledger_markdown(state.ledger)
    raise KeyError(feature)


def on_page_markdown(state: ReaderState, markdown: str, page: Any, config: Any,
                     files: Files) -> str:
    src = page.file.src_uri
    source = read_source(Path(page.file.abs_src_path), src) if page.file.abs_src_path else ""
    if not source:  # a generated page (a page with a file had its references checked in on_files)
        try:
            crossref.check_references(markdown, src, state.index)
        except crossref.CrossRefError as error:
            raise PluginError(str(error)) from None
    # Citations are read from the file when MkDocs hands on its body unchanged (every page but an
    # erratum, which the errata feature composes): markdown.scan has read that text already.
    text, offset = ((source, 0) if source and source.endswith(markdown)
                    else (markdown, _lines_before_body(source, markdown)))
    cited = bibliography.cited_keys(text)
    for key, line in cited:
        if key not in state.entries:
            raise PluginError(f"docs/{src}:{line + offset}: unknown citation key {key!r} "
                              f"(add it to {bibliography.BIB_PATH})")
    markdown = _link_numbers(state, markdown, page)
    if src == "index.md":  # the list of parts and chapters, generated from the nav
        markdown = chapters.fill_home(markdown, list(state.chapters.values()), state.nav)
    return markdown + bibliography.references_markdown([k for k, _ in cited], state.entries)


def _glued_links(state: ReaderState, source: str, page: Any) -> list[number_links.NumberLink]:
    """The page's references to glued values, as links (offsets into `source`); an unknown
    name is an error naming the page and line."""
    src = page.file.src_uri
    scripts = glue.quoted_scripts(read_front_matter(source).mapping)
    try:
        return [number_links.glued_link(source, reference, scripts, state.names, state.outputs,
                                        f"docs/{src}") for reference in glue.references(source)]
    except glue.GlueError as error:
        raise PluginError(str(error)) from None


def _link_numbers(state: ReaderState, markdown: str, page: Any) -> str:
    links = state.numbers.get(page.file.src_uri, [])
    if not page.file.abs_src_path:
        return markdown
    raw = Path(page.file.abs_src_path).read_bytes().decode("utf-8", "replace")
    source = raw.replace("\r\n", "\n").replace("\r", "\n")
    body = source.rfind(markdown) if markdown else -1
    if body < 0:  # composed before (an erratum page: errata_pages placed its values) or changed
        left = glue.references(markdown)
        if left:
            written = markdown[left[0].start:left[0].end]
            line = next((n for n, text in enumerate(source.split("\n"), 1) if written in text), 1)
            raise PluginError(f"docs/{page.file.src_uri}:{line}: the page's Markdown changed "
                              "before the values it quotes by name could be placed")
        return markdown  # no verified offsets to trust: no links
    glued = _glued_links(state, source, page)
    if not links and not glued:
        return markdown
    starts = _crlf_shift(raw, [n.start for n in links])  # the claim check reads bytes as written
    ends = _crlf_shift(raw, [n.end for n in links])
    shifted = [number_links.NumberLink(start - body, end - body, n.text, n.script, n.block,
                                       n.output_line, n.output_text)
               for n, start, end in zip(links, starts, ends, strict=True) if start >= body]
    shifted += [dataclasses.replace(n, start=n.start - body, end=n.end - body) for n in glued
                if n.start >= body]
    embedded = number_links.embedded_lines(source, state.outputs, f"docs/{page.file.src_uri}")
    return number_links.link_numbers(markdown, shifted, embedded)


def on_page_content(state: ReaderState, html_text: str, page: Any, config: Any,
                    files: Files) -> str:
    src = page.file.src_uri
    if src.endswith(".ipynb"):  # its links are written as site URLs (CONTRIBUTING.md)
        html_text = figure_zoom.zoom_figures(html_text)
        return html_text if state.directory_urls else crossref.file_urls(html_text, src)
    html_text = crossref.number_equations(html_text, src, state.index)
    html_text = crossref.number_figures(html_text, src, state.index)
    used: set[str] = set()
    glossary_url = ("" if src == state.glossary_page else
                    crossref.relative_url(src, state.glossary_page, "", state.directory_urls)
                    .removesuffix("#"))

    def prose(text: str) -> str:
        text = bibliography.render_citations(text, state.entries, f"docs/{src}")
        text = crossref.render_references(text, src, state.index, state.directory_urls)
        text = glossary.mark_first_uses(text, state.terms, used, glossary_url)
        return chapters.render_chapter_mentions(text, src, state.chapters, state.directory_urls)

    html_text = map_prose(html_text, prose)
    html_text = number_links.anchor_output_lines(html_text, state.outputs)
    html_text = number_links.exclude_sources_from_search(html_text)
    html_text = figure_zoom.zoom_figures(html_text)
    if 'class="num"' in html_text:
        html_text += number_links.stamps_json(state.checked_at)
    scripts = list(page.meta.get("scripts") or [])
    if scripts and crossref.chapter_number(src) is not None:
        line = last_verified.verified_html(_last_verified(state, scripts), scripts)
        html_text = html_text.replace("</h1>", "</h1>\n" + line, 1)
    page.html = html_text  # the print-site plugin keeps its own copy; give it the final HTML
    return html_text
