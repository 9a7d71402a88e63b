"""Each page's Markdown converted once: MkDocs' `Page.render` memoised by what it depends on.

Python-Markdown with the book's extensions is the largest single cost of a build (about a third
of it), and `make serve` rebuilds every page after each edit although one page changed. What
`Page.render` produces (the HTML, the table of contents, the title found in the text, the
anchors the page holds and the links to other pages' anchors it makes) depends only on:

- the page's Markdown as the plugins left it (`on_page_markdown` has run: equation numbers,
  number links and the rest are already in the text), and where the page lives (`src_uri`);
- the set of files and `use_directory_urls` (relative links are resolved and checked against
  them), and the Markdown configuration: `mkdocs.yml`, the installed packages (the lock) and the
  book's own code (a hook may add extensions);

and those are the key (`build_cache.memo`, in `.cache/render/`, saved after a build). A render
that logs a warning is not kept, so `--strict` sees the warning on every build; a page that
includes other files (pymdownx.snippets, `--8<--`) is never kept, since the included file is
not in the key.

    >>> token = {"level": 2, "id": "a", "name": "A", "children": [
    ...     {"level": 3, "id": "b", "name": "B", "children": []}]}
    >>> from mkdocs.structure.toc import get_toc
    >>> toc_tokens(get_toc([token])) == [token]
    True
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from mkdocs.structure.toc import get_toc

from explainer_tools.layout import DEFAULT
from explainer_tools.website import build_cache

SNIPPET_MARK = "--8<--"


def toc_tokens(toc: Any) -> list[dict[str, Any]]:
    """The Python-Markdown toc tokens that `mkdocs.structure.toc.get_toc` made `toc` from."""
    return [{"level": link.level, "id": link.id, "name": link.title,
             "children": toc_tokens(link.children)} for link in toc]


def _file_bytes(path: Path) -> bytes:
    return path.read_bytes() if path.is_file() else b""


def setting_digest(config: Any) -> str:
    """What every page's render depends on besides its own text (module docstring)."""
    config_file = Path(config.get("config_file_path") or DEFAULT.mkdocs_yml)
    return build_cache.digest([
        build_cache.digest(_file_bytes(config_file)),
        build_cache.digest(_file_bytes(DEFAULT.lock_file)),
        build_cache.tools_digest(),
        bool(config["use_directory_urls"]), str(config.get("docs_dir")),
    ])


def files_digest(files: Any) -> str:
    """The site's files, as relative links see them: each source path and whether it is a page."""
    return build_cache.digest(sorted([f.src_uri, f.is_documentation_page()] for f in files))


class _Warnings(logging.Handler):
    """Counts the warnings MkDocs logs while one page renders."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        self.count += 1


def _saved(page: Any) -> dict[str, Any]:
    links = page.links_to_anchors
    return {
        "content": page.content,
        "toc": toc_tokens(page.toc),
        "title": page._title_from_render,
        "anchors": sorted(page.present_anchor_ids or ()),
        "links": None if links is None else sorted(
            [to_file.src_uri, sorted(anchors.items())] for to_file, anchors in links.items()),
    }


def _restore(page: Any, saved: dict[str, Any], files: Any) -> bool:
    """Set what `Page.render` sets from `saved`; False when a linked file is gone."""
    links = None
    if saved["links"] is not None:
        links = {}
        for src_uri, anchors in saved["links"]:
            to_file = files.get_file_from_path(src_uri)
            if to_file is None:
                return False
            links[to_file] = dict(anchors)
    page.content = saved["content"]
    page.toc = get_toc(saved["toc"])
    page._title_from_render = saved["title"]
    page.present_anchor_ids = set(saved["anchors"])
    page.links_to_anchors = links
    return True


def cached_render(original: Any, memo: build_cache.Memo) -> Any:
    """`Page.render` (`original`) memoised in `memo` (module docstring)."""
    # The digests of this build's config and files, held with the objects they are of (a
    # rebuild of `make serve` brings new ones).
    current: dict[str, tuple[Any, str]] = {}

    def of(name: str, value: Any, compute: Any) -> str:
        if name not in current or current[name][0] is not value:
            current[name] = (value, compute(value))
        return current[name][1]

    def render(self: Any, config: Any, files: Any) -> None:
        markdown = self.markdown
        if markdown is None or SNIPPET_MARK in markdown:
            return original(self, config, files)
        key = [of("config", config, setting_digest), of("files", files, files_digest),
               self.file.src_uri, markdown]
        saved = memo.get(key)
        if saved is not None and _restore(self, saved, files):
            return None
        warnings = _Warnings()
        logger = logging.getLogger("mkdocs")
        logger.addHandler(warnings)
        try:
            original(self, config, files)
        finally:
            logger.removeHandler(warnings)
        if not warnings.count:
            memo.put(key, _saved(self))
        return None

    render.explainer_original = original  # type: ignore[attr-defined]
    return render


def patch_render() -> None:
    """Install the memoised `Page.render` (once per process), its results in `.cache/render/`."""
    from mkdocs.structure import pages

    if hasattr(pages.Page.render, "explainer_original"):
        return
    pages.Page.render = cached_render(pages.Page.render,
                                      build_cache.memo("render", "page render v1"))
