"""The memoised Markdown conversion (explainer_tools/website/render_cache.py): a page rendered from
the memo is the page MkDocs renders, and what could change the result is part of the key."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from mkdocs.config import load_config
from mkdocs.structure.files import get_files
from mkdocs.structure.pages import Page

from explainer_tools.website import build_cache, render_cache

PLAIN_RENDER = getattr(Page.render, "explainer_original", Page.render)
CHAPTER = """# One

## A section {#sec-a}

See [the other page](two.md#sec-b) and [a missing anchor](two.md#nowhere).
"""


class CountingRender:
    """MkDocs' own render, counting its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, page: Any, config: Any, files: Any) -> None:
        self.calls += 1
        PLAIN_RENDER(page, config, files)


def project(tmp_path: Path, pages: dict[str, str]) -> Any:
    docs = tmp_path / "docs"
    docs.mkdir(exist_ok=True)
    for name, text in pages.items():
        (docs / name).write_text(text, encoding="utf-8")
    config_file = tmp_path / "mkdocs.yml"
    config_file.write_text("site_name: t\nmarkdown_extensions: [attr_list, toc]\n"
                           "validation: {anchors: warn}\n", encoding="utf-8")
    return load_config(config_file=str(config_file), docs_dir=str(docs))


def rendered(config: Any, name: str, render: Any, files: Any = None) -> Page:
    files = files or get_files(config)
    page = Page(None, files.get_file_from_path(name), config)
    page.read_source(config)
    render(page, config, files)
    return page


def summary(page: Page) -> tuple:
    links = {f.src_uri: anchors for f, anchors in (page.links_to_anchors or {}).items()}
    return (page.content, str(page.toc), page._title_from_render,
            sorted(page.present_anchor_ids or ()), links)


@pytest.fixture
def renders() -> tuple[CountingRender, Any]:
    """MkDocs' render, counted, and the same render memoised (in memory) in front of it."""
    plain = CountingRender()
    return plain, render_cache.cached_render(plain, build_cache.Memo("render-test", "v1",
                                                                     directory=None))


def test_a_page_from_the_memo_is_the_page_mkdocs_renders(
        tmp_path: Path, renders: tuple[CountingRender, Any]) -> None:
    config = project(tmp_path, {"one.md": CHAPTER, "two.md": "# Two\n\n## B {#sec-b}\n"})
    plain, render = renders
    first = rendered(config, "one.md", render)
    again = rendered(config, "one.md", render)
    assert plain.calls == 1
    assert summary(again) == summary(first) == summary(rendered(config, "one.md", PLAIN_RENDER))
    assert summary(again)[4] == {"two.md": {"sec-b": "two.md#sec-b",
                                            "nowhere": "two.md#nowhere"}}
    assert [link.id for link in again.toc] == ["one"] and again.toc.items[0].children[0].id == \
        "sec-a"


def test_an_edit_the_files_or_the_settings_render_the_page_again(
        tmp_path: Path, renders: tuple[CountingRender, Any]) -> None:
    config = project(tmp_path, {"one.md": CHAPTER, "two.md": "# Two\n"})
    plain, render = renders
    rendered(config, "one.md", render)
    (tmp_path / "docs" / "one.md").write_text(CHAPTER + "\nOne more word.\n", encoding="utf-8")
    assert "One more word" in rendered(config, "one.md", render).content
    assert plain.calls == 2
    (tmp_path / "docs" / "three.md").write_text("# Three\n", encoding="utf-8")
    rendered(config, "one.md", render)  # a new file: links may resolve differently
    assert plain.calls == 3
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: t\nmarkdown_extensions: [toc]\n", encoding="utf-8")
    rendered(load_config(config_file=str(tmp_path / "mkdocs.yml"),
                         docs_dir=str(tmp_path / "docs")), "one.md", render)
    assert plain.calls == 4


def test_a_render_that_warns_warns_on_every_build(
        tmp_path: Path, renders: tuple[CountingRender, Any],
        caplog: pytest.LogCaptureFixture) -> None:
    config = project(tmp_path, {"one.md": "# One\n\n[gone](missing.md)\n"})
    plain, render = renders
    with caplog.at_level(logging.WARNING, logger="mkdocs"):
        rendered(config, "one.md", render)
        rendered(config, "one.md", render)
    assert plain.calls == 2
    assert sum("missing.md" in r.getMessage() for r in caplog.records) == 2


def test_a_page_that_includes_files_is_never_kept(
        tmp_path: Path, renders: tuple[CountingRender, Any]) -> None:
    config = project(tmp_path, {"one.md": "# One\n\n    --8<-- \"part.md\"\n"})
    plain, render = renders
    rendered(config, "one.md", render)
    rendered(config, "one.md", render)
    assert plain.calls == 2


def test_a_linked_file_gone_from_the_files_renders_again(
        tmp_path: Path, renders: tuple[CountingRender, Any]) -> None:
    config = project(tmp_path, {"one.md": CHAPTER, "two.md": "# Two\n"})
    page = rendered(config, "one.md", renders[1])
    saved = render_cache._saved(page)
    files = get_files(config)
    files.remove(files.get_file_from_path("two.md"))
    assert render_cache._restore(page, saved, files) is False
