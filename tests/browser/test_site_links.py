"""The link crawler: every internal link and anchor of the built site resolves.

Pure Python over the built HTML (no browser), so it runs everywhere. It reads every HTML file
mkdocs wrote, notebook pages and errata included, and checks each `href`/`src` that stays on the
site: the target file exists and the `#fragment` names an id in it.
"""

from __future__ import annotations

from pathlib import Path

from browser_kit import discover_pages, link_problems
from conftest import planned_pages, site_url


def test_the_tested_pages_are_the_built_pages(built_site: Path) -> None:
    """The pages that parametrize the browser tests (listed without a build) are exactly the
    HTML pages the build wrote: no page goes untested."""
    assert planned_pages() == sorted(discover_pages(built_site))


def test_every_internal_link_and_anchor_resolves(built_site: Path) -> None:
    problems = link_problems(built_site, site_url())
    assert not problems, f"{len(problems)} broken links:\n" + "\n".join(problems)


def test_source_pages_hold_the_files_and_chapters_link_them(built_site: Path) -> None:
    """Each script source the chapters embed is linked where it was collapsed, and its page
    (source_pages.py) holds that file's text, highlighted; no chapter still carries one."""
    import html
    import re

    from explainer_tools.layout import DEFAULT
    CODE_DIR = DEFAULT.code_dir

    link = re.compile(r'<p class="source-page"><a href="(?P<url>[^"]+)" data-site-path="[^"]+">')
    linked = set()
    for url_path in discover_pages(built_site):
        if not url_path.startswith("chapters/"):
            continue
        page = built_site / url_path / "index.html"
        text = page.read_text(encoding="utf-8")
        assert "<!-- embed: source" not in text, f"/{url_path} still holds a collapsed source"
        for match in link.finditer(text):
            linked.add((page.parent / match["url"] / "index.html").resolve())
    assert len(linked) >= 30, len(linked)
    for target in sorted(linked):
        text = target.read_text(encoding="utf-8")
        name = re.search(r"<h1[^>]*>explainer_code/([\w./-]+)", text)
        assert name, f"{target} names no file in its title"
        code = html.unescape(re.sub(r"<[^>]+>", "", text[text.index('<div class="highlight"'):]))
        source = (CODE_DIR / name[1]).read_text(encoding="utf-8")
        assert source.rstrip("\n") in code, f"{target} does not hold {name[1]} as it is"


def test_chapter_figures_load_lazily_with_their_size(built_site: Path) -> None:
    """Every chapter figure but a first one near the top is loaded when the reader comes near it;
    each has the PNG's width and height so that nothing moves when it arrives
    (load_fixes.lazy_figures); the whole-book page, printed at once, loads them all."""
    import re

    tag = re.compile(r'<img [^>]*?src="[^"]*assets/fig/([\w.-]+\.png)"[^>]*>')
    from explainer_tools.website import load_fixes

    seen = deferred_first = 0
    for url_path in discover_pages(built_site):
        if not url_path.startswith("chapters/"):
            continue
        html_text = (built_site / url_path / "index.html").read_text("utf-8")
        for index, match in enumerate(tag.finditer(html_text)):
            header = (built_site / "assets" / "fig" / match[1]).read_bytes()[:24]
            size = (int.from_bytes(header[16:20], "big"), int.from_bytes(header[20:24], "big"))
            assert f'width="{size[0]}" height="{size[1]}"' in match[0], match[0]
            # the first figure of a page may be on its first screen: not deferred, unless more
            # than two phone screens of text come before it
            far = load_fixes._text_before(html_text, match.start()) > load_fixes.FIRST_SCREEN_TEXT
            assert ('loading="lazy"' in match[0]) == (index > 0 or far), (url_path, match[0])
            deferred_first += index == 0 and far
            seen += 1
    assert seen >= 30 and deferred_first >= 1, (seen, deferred_first)
    printed = (built_site / "print_page" / "index.html").read_text(encoding="utf-8")
    assert "assets/fig/" in printed and 'loading="lazy"' not in printed


def test_the_page_description_is_one_intact_attribute(built_site: Path) -> None:
    """Material writes site_description into a meta tag unescaped: a straight quote in it would
    end the attribute early."""
    from html.parser import HTMLParser

    found: list[str] = []

    class Meta(HTMLParser):
        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            values = dict(attrs)
            if tag == "meta" and values.get("name") == "description":
                found.append(values.get("content") or "")

    Meta().feed((built_site / "index.html").read_text(encoding="utf-8"))
    assert len(found) == 1 and found[0].endswith("checked and reproducible."), found
