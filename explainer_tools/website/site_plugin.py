"""The book's MkDocs plugin: the one hooks file in mkdocs.yml, running the book's features in order.

A real entry-point plugin would need the project installed into the environment; a hooks file
needs nothing, so this module is the plugin and composes the features:

- notebook (`notebook_page`): the companion notebook as a page, from mkdocs-jupyter's cache (no
  Jupyter import unless the notebook changed), its `.ipynb` copied beside it.
- build (`mkdocs_hooks`, `render_cache`, `print_site_anchors`): SOURCE_DATE_EPOCH; each page's
  Markdown converted only when it changed; every in-book link of the whole-book page finding
  its target.
- errata (`errata_hook`): each erratum page rendered from its front matter, at priority 50
  (before the badges: its fields hold tags). Owns the errata index, filled at its marker.
- reader (`reader_hook`): labels and numbered formulas and figures, verified numbers linked to
  their output lines, chapter mentions, "last verified". Its parts own a generated page each:
  the bibliography (citations checked and linked) `bibliography.md`, the glossary (first uses
  marked) `glossary.md`, the claims ledger `claims-ledger.md`.
- sources (`source_pages`): each embedded script source on a page of its own (`code/...`),
  linked from the chapter instead of collapsed in it.
- provenance (`mkdocs_hooks`): tags become badges, the notebook's too.
- math (`mkdocs_hooks`, `math_render`): every formula rendered, last (post_page, post_build).
- page start (`site_speed`): what made a phone's load slow, fixed in the written page (post_page).

Loading happens once per build (`on_files`): the reader's state (pages, labels, bibliography,
glossary, ledger, verified numbers) is shared with the errata feature. Every error stops the
build as a PluginError naming the file and line (the features raise them; nothing exits).
"""

from __future__ import annotations

import functools
import html
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.plugins import CombinedEvent, event_priority
from mkdocs.structure.files import File, Files

# MkDocs loads hooks by path; make the package importable from the repository root.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from explainer_tools.book import crossref
from explainer_tools.website import (
    errata_hook,
    mkdocs_hooks,
    notebook_page,
    reader_hook,
    site_speed,
    source_pages,
)


@dataclass(frozen=True)
class GeneratedPage:
    """A page the build writes (not a file under docs/), owned by one feature."""

    feature: str
    path: str  # under docs/, as the nav names it


GENERATED = (GeneratedPage("glossary", "glossary.md"),
             GeneratedPage("bibliography", "bibliography.md"),
             GeneratedPage("ledger", "claims-ledger.md"))


def on_config(config: Any) -> Any:
    return mkdocs_hooks.on_config(config)


@event_priority(100)  # first: the nav and every plugin see the notebook as a page
def _notebook_files(files: Files, config: Any) -> Files:
    notebook_page.start_conversions(files)
    return notebook_page.as_pages(files)


def _book_files(files: Files, config: Any) -> Files:
    """Load once (reader_hook), share with the errata feature, add the generated pages."""
    files = reader_hook.on_files(files, config)
    state = reader_hook.STATE
    errata_hook.STATE = errata_hook._State(entries=state.entries, index=state.index,
                                           pages=state.sources)
    for page in GENERATED:
        files.append(File.generated(config, page.path,
                                    content=reader_hook.generated_page(page.path)))
    return files


SOURCES: dict[str, source_pages.SourcePage] = {}  # by embedded file, from `_source_files`


@event_priority(-50)  # after `_book_files`, which reads the pages
def _source_files(files: Files, config: Any) -> Files:
    """A page for each script source the chapters embed (the sources feature)."""
    pages = reader_hook.STATE.sources
    SOURCES.clear()
    try:
        SOURCES.update(source_pages.collect(pages))
    except ValueError as error:  # a marker problem, named by file and line
        raise PluginError(str(error)) from None
    titles = {page: source_pages.first_heading(text) or page for page, text in pages.items()}
    for source in SOURCES.values():
        files.append(File.generated(config, source.path,
                                    content=source_pages.page_markdown(source, titles)))
    return files


on_files = CombinedEvent(_notebook_files, _book_files, _source_files)


def on_pre_page(page: Any, config: Any, files: Files) -> Any:
    notebook_page.prepare(page)
    return page


@event_priority(50)  # before the other plugins and the badges: an erratum's fields hold tags
def _errata_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    return errata_hook.on_page_markdown(markdown, page, config, files)


def _reader_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """The reader features' and the badges' Markdown."""
    markdown = reader_hook.on_page_markdown(markdown, page, config, files)
    return mkdocs_hooks.on_page_markdown(markdown, page, config, files)


@event_priority(-100)  # last: the features above read the title as written
def _title_as_text(markdown: str, page: Any, config: Any, files: Files) -> str:
    """A front-matter `title` (an erratum's among them) is text; MkDocs and the theme write a
    page's title into the navigation of every page, the `<title>` and the print page as HTML,
    unescaped (a title from the page's heading comes to them escaped). So it is escaped here,
    before any page is written: a `<script>` in a title is shown, never run.

    >>> from types import SimpleNamespace
    >>> page = SimpleNamespace(meta={"title": "E1: a <b> & c"})
    >>> _ = _title_as_text("", page, {}, None)
    >>> page.meta["title"]
    'E1: a &lt;b&gt; &amp; c'
    """
    title = page.meta.get("title")
    if title is not None:
        page.meta["title"] = html.escape(str(title), quote=False)  # the theme escapes attributes
    return markdown


on_page_markdown = CombinedEvent(_errata_markdown, _reader_markdown, _title_as_text)


@functools.cache
def page_url(from_page: str, to_page: str, directory_urls: bool) -> str:
    """The link from one page to the top of another (`crossref.relative_url`), computed once per
    pair: every page links every source page, on every rebuild of `make serve`.

    >>> page_url("chapters/09-x.md", "code/ch09_x.md", True)
    '../../code/ch09_x/'
    """
    return crossref.relative_url(from_page, to_page, "", directory_urls).removesuffix("#")


def on_page_content(html_text: str, page: Any, config: Any, files: Files) -> str:
    src = page.file.src_uri
    directory_urls = bool(config["use_directory_urls"])
    links = {target: (page_url(src, source.path, directory_urls), source.lines,
                      page_url("index.md", source.path, directory_urls))
             for target, source in SOURCES.items()}
    html_text = source_pages.link_sources(html_text, links)  # first: less HTML for the rest
    html_text = reader_hook.on_page_content(html_text, page, config, files)
    return mkdocs_hooks.on_page_content(html_text, page, config, files)


def on_post_page(output: str, page: Any, config: Any) -> str:
    notebook_page.copy_source(page)
    output = site_speed.lazy_figures(output, Path(config["docs_dir"]) / "assets" / "fig")
    output = mkdocs_hooks.on_post_page(output, page, config)  # formulas rendered: links in them
    output = site_speed.palette_without_restyles(site_speed.out_of_tab_order(output))
    return site_speed.search_index_after_load(site_speed.head_links_resolved(output))


def on_post_build(config: Any) -> None:
    printed = mkdocs_hooks.print_page_file(config)
    if printed.is_file():  # its source links lead to their pages, not to anchors it lacks
        up = "../" if config["use_directory_urls"] else ""
        printed.write_text(source_pages.print_page_links(printed.read_text(encoding="utf-8"), up),
                           encoding="utf-8")
    mkdocs_hooks.on_post_build(config)
