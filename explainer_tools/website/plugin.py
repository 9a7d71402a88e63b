"""The book's MkDocs plugin, `explainer` (pyproject.toml's `mkdocs.plugins` entry point), listed
under `plugins:` in mkdocs.yml, just before print-site, its settings there (`BookConfig`). Each
of its handlers runs after every other plugin's of the same priority (`after_plugins`). It runs
the book's features in order:

- notebook (`notebook_page`): the companion notebook as a page, from mkdocs-jupyter's cache (no
  Jupyter import unless the notebook changed), its `.ipynb` copied beside it.
- build (`build_features`, `render_cache`, `print_site_anchors`): SOURCE_DATE_EPOCH; each page's
  Markdown converted only when it changed; every in-book link of the whole-book page finding
  its target.
- errata (`errata_pages`): each erratum page rendered from its front matter, at priority 50
  (before the badges: its fields hold tags). Owns the errata index, filled at its marker.
- reader (`reader_features`): labels and numbered formulas and figures, verified numbers linked to
  their output lines, chapter mentions, figure zoom, "last verified". Its parts own a generated
  page each (`GENERATED`, placed by the settings): the bibliography (citations checked and
  linked), the glossary (first uses marked), the claims ledger.
- sources (`source_pages`): each embedded script source on a page of its own (`code/...`),
  linked from the chapter instead of collapsed in it.
- provenance (`build_features`): tags become badges, the notebook's too.
- math (`build_features`, `math_render`): every formula rendered, last (post_page, post_build).
- page start (`load_fixes`): what made a phone's load slow, fixed in the written page (post_page).

A build's state lives on the plugin (`on_config` starts it afresh): the reader's (pages, labels,
bibliography, glossary, ledger, verified numbers, loaded once in `on_files`), shared with the
errata feature; the source pages; the notebook conversions under way. What stays in modules
lasts the process on purpose: `make serve` rebuilds in one process, with a new plugin each time
(MkDocs loads the configuration again), and those memos are what makes a rebuild fast
(`build_cache`, `math_render`'s formulas, `render_cache`'s patched `Page.render`, `page_url`).
Every error stops the build as a PluginError naming the file and line (the features raise them;
nothing exits).
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from mkdocs.config import config_options as c
from mkdocs.config.base import ValidationError
from mkdocs.exceptions import PluginError
from mkdocs.plugins import BasePlugin, CombinedEvent, event_priority
from mkdocs.structure.files import File, Files

from explainer_tools.book import crossref
from explainer_tools.website import (
    build_features,
    errata_pages,
    load_fixes,
    notebook_page,
    reader_features,
    source_pages,
)


class _PagePath(c.Type):
    """A Markdown page's path under docs/, as the nav names it."""

    def __init__(self, default: str) -> None:
        super().__init__(str, default=default)

    def run_validation(self, value: object) -> str:
        path = super().run_validation(value)
        if not path.endswith(".md") or path.startswith("/") or ".." in path.split("/"):
            raise ValidationError(f"a page under docs/ ending in .md, not {path!r}")
        return path


class _Colour(c.Type):
    """A colour as `#rrggbb`."""

    def __init__(self, default: str) -> None:
        super().__init__(str, default=default)

    def run_validation(self, value: object) -> str:
        colour = super().run_validation(value)
        if not re.fullmatch(r"#[0-9A-Fa-f]{6}", colour):
            raise ValidationError(f"a colour as #rrggbb, not {colour!r}")
        return colour


class BookConfig(c.Config):
    """The plugin's settings (mkdocs.yml, under `plugins: - explainer:`); each default is what
    this book uses, so the book lists the plugin without any."""

    # Where the features' generated pages go (the nav lists them there)
    glossary_page = _PagePath("glossary.md")
    bibliography_page = _PagePath("bibliography.md")
    ledger_page = _PagePath("claims-ledger.md")
    # Which files under docs/ are notebooks made pages (mkdocs-jupyter's `include`)
    notebooks = c.Type(str, default=notebook_page.NOTEBOOK_GLOB)
    # The browser's colour for the page's first palette: Material's header colour for the
    # first `theme.palette` entry's `primary` (indigo). Change it with the palette.
    theme_color = _Colour(build_features.THEME_COLOR)


T = TypeVar("T")

# The pages the build writes (not files under docs/), by the feature owning each, with the
# setting that places it.
GENERATED = {"glossary": "glossary_page", "bibliography": "bibliography_page",
             "ledger": "ledger_page"}


def after_plugins(priority: float = 0) -> Callable[[T], T]:
    """`event_priority(priority)`, a hair lower: the handler runs after every other plugin's of
    the same priority, wherever `plugins:` lists this one. MkDocs runs a plugin's handlers by
    priority, then in the order of `plugins:`; the book's features ran after all plugins (as
    MkDocs runs a hooks file), which they need (print-site is handed each page's final HTML,
    and `on_post_build` finishes the whole-book page print-site writes), while print-site warns,
    an error under `--strict`, unless it is listed last.

    >>> after_plugins(50)(lambda: None).mkdocs_priority
    49.999
    """
    return event_priority(priority - 0.001)


@functools.cache  # process-long: every page links every source page, on every rebuild
def page_url(from_page: str, to_page: str, directory_urls: bool) -> str:
    """The link from one page to the top of another (`crossref.relative_url`), computed once per
    pair: every page links every source page, on every rebuild of `make serve`.

    >>> page_url("chapters/09-x.md", "code/ch09_x.md", True)
    '../../code/ch09_x/'
    """
    return crossref.relative_url(from_page, to_page, "", directory_urls).removesuffix("#")


class BookPlugin(BasePlugin[BookConfig]):
    """The book's features as one MkDocs plugin (module docstring)."""

    def __init__(self) -> None:
        self.load_config({})  # the defaults, until MkDocs loads mkdocs.yml's settings
        self._start(self.config)

    def _start(self, settings: BookConfig) -> None:
        """A build's state, empty: what `on_files` loads and the page events read."""
        self.reader = reader_features.ReaderState(glossary_page=settings.glossary_page)
        self.errata = errata_pages.ErrataState()
        self.sources: dict[str, source_pages.SourcePage] = {}  # by embedded file
        self.notebooks = notebook_page.Notebooks(settings.notebooks)

    @after_plugins()
    def on_config(self, config: Any) -> Any:
        self._start(self.config)  # a fresh state for each build (`make serve` rebuilds)
        return build_features.on_config(config)

    @after_plugins(100)  # first: the nav and every plugin see the notebook as a page
    def _notebook_files(self, files: Files, config: Any) -> Files:
        self.notebooks.start_conversions(files)
        return self.notebooks.as_pages(files)

    @after_plugins()
    def _book_files(self, files: Files, config: Any) -> Files:
        """Load once (reader_features), share with the errata feature, add the generated pages."""
        reader = self.reader
        files = reader_features.on_files(reader, files, config)
        self.errata = errata_pages.ErrataState(entries=reader.entries, index=reader.index,
                                        pages=reader.sources, names=reader.names,
                                        outputs=reader.outputs)
        for feature, setting in GENERATED.items():
            files.append(File.generated(config, self.config[setting],
                                        content=reader_features.generated_page(reader, feature)))
        return files

    @after_plugins(-50)  # after `_book_files`, which reads the pages
    def _source_files(self, files: Files, config: Any) -> Files:
        """A page for each script source the chapters embed (the sources feature)."""
        pages = self.reader.sources
        try:
            self.sources = source_pages.collect(pages)
        except ValueError as error:  # a marker problem, named by file and line
            raise PluginError(str(error)) from None
        titles = {page: source_pages.first_heading(text) or page for page, text in pages.items()}
        for source in self.sources.values():
            files.append(File.generated(config, source.path,
                                        content=source_pages.page_markdown(source, titles)))
        return files

    on_files = CombinedEvent(_notebook_files, _book_files, _source_files)

    @after_plugins()
    def on_pre_page(self, page: Any, config: Any, files: Files) -> Any:
        self.notebooks.prepare(page)
        return page

    @after_plugins(50)  # before the other plugins and the badges: an erratum's fields hold tags
    def _errata_markdown(self, markdown: str, page: Any, config: Any, files: Files) -> str:
        return errata_pages.on_page_markdown(self.errata, markdown, page, config, files)

    @after_plugins()
    def _reader_markdown(self, markdown: str, page: Any, config: Any, files: Files) -> str:
        """The reader features' and the badges' Markdown."""
        markdown = reader_features.on_page_markdown(self.reader, markdown, page, config, files)
        return build_features.on_page_markdown(markdown, page, config, files)

    @after_plugins(-100)  # last: the features above read the title as written
    def _title_as_text(self, markdown: str, page: Any, config: Any, files: Files) -> str:
        """A front-matter `title` (an erratum's among them) is text; MkDocs and the theme write
        a page's title into the navigation of every page, the `<title>` and the print page as
        HTML, unescaped (a title from the page's heading comes to them escaped). So it is
        escaped here, before any page is written: a `<script>` in a title is shown, never run.

        >>> from types import SimpleNamespace
        >>> page = SimpleNamespace(meta={"title": "E1: a <b> & c"})
        >>> _ = BookPlugin()._title_as_text("", page, {}, None)
        >>> page.meta["title"]
        'E1: a &lt;b&gt; &amp; c'
        """
        title = page.meta.get("title")
        if title is not None:
            # quote=False: the theme escapes attributes itself
            page.meta["title"] = html.escape(str(title), quote=False)
        return markdown

    on_page_markdown = CombinedEvent(_errata_markdown, _reader_markdown, _title_as_text)

    @after_plugins()
    def on_page_content(self, html_text: str, page: Any, config: Any, files: Files) -> str:
        src = page.file.src_uri
        directory_urls = bool(config["use_directory_urls"])
        links = {target: (page_url(src, source.path, directory_urls), source.lines,
                          page_url("index.md", source.path, directory_urls))
                 for target, source in self.sources.items()}
        html_text = source_pages.link_sources(html_text, links)  # first: less HTML for the rest
        html_text = reader_features.on_page_content(self.reader, html_text, page, config, files)
        return build_features.on_page_content(html_text, page, config, files)

    @after_plugins()
    def on_post_page(self, output: str, page: Any, config: Any) -> str:
        self.notebooks.copy_source(page)
        output = load_fixes.lazy_figures(output, Path(config["docs_dir"]) / "assets" / "fig")
        colour = self.config.theme_color
        # formulas: links in them
        output = build_features.on_post_page(output, page, config, colour)
        output = load_fixes.palette_without_restyles(load_fixes.out_of_tab_order(output))
        return load_fixes.search_index_after_load(load_fixes.head_links_resolved(output))

    @after_plugins()
    def on_post_build(self, config: Any) -> None:
        printed = build_features.print_page_file(config)
        if printed.is_file():  # its source links lead to their pages, not to anchors it lacks
            up = "../" if config["use_directory_urls"] else ""
            printed.write_text(source_pages.print_page_links(printed.read_text(encoding="utf-8"),
                                                             up), encoding="utf-8")
        build_features.on_post_build(config)
