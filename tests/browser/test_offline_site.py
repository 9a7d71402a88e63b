"""The copy of the site built to work opened from a folder (`make offline`, file://).

Built once for this module from mkdocs-offline.yml, as `make offline` builds it (Material's
offline plugin: pages as .html files, the search index as a script, the vendored iframe-worker
shim). Every relative link and source of every page must name a file that exists, so nothing
opens a folder listing; in Chromium, from file:// with no server and no network, the home page's
list reaches a chapter, a "Chapter N" link reaches another, the search box finds a word and its
first result opens, the ten-minute page's bound explorer is built and computes, and nothing is
requested from outside. The offline copy's plugins are
mkdocs.yml's with `offline` added (INHERIT replaces lists, so they are written twice).
"""

from __future__ import annotations

import math
import os
import re
import subprocess
import sys
from pathlib import Path

import pacbound
import pytest
import yaml

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
LINK = re.compile(r'(?:href|src)="([^"#:?]*)(?:[#?][^"]*)?"')


@pytest.fixture(scope="module")
def offline_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dest = tmp_path_factory.mktemp("offline") / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", "mkdocs-offline.yml",
         "-d", str(dest)],
        cwd=REPO, env=env, capture_output=True, text=True, check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return dest


def test_offline_plugins_are_the_sites_plus_offline() -> None:
    def plugins(name: str) -> list[object]:
        config = yaml.load((REPO / name).read_text(encoding="utf-8"), Loader=yaml.BaseLoader)
        return config["plugins"]

    offline = plugins("mkdocs-offline.yml")
    assert "offline" in offline, "mkdocs-offline.yml: the offline plugin is missing"
    assert [p for p in offline if p != "offline"] == plugins("mkdocs.yml"), (
        "mkdocs-offline.yml's plugins differ from mkdocs.yml's: copy mkdocs.yml's list and keep "
        "`offline` in it")
    polyfills = yaml.load((REPO / "mkdocs-offline.yml").read_text(encoding="utf-8"),
                          Loader=yaml.BaseLoader)["extra"]["polyfills"]
    assert [p for p in polyfills if "iframe-worker" in p] == ["assets/iframe-worker/shim.js"]
    assert (REPO / "docs" / polyfills[0]).is_file()


def dead_links(site: Path) -> list[str]:
    """'page: link' for each relative href/src that names no file (404.html uses absolute
    paths on purpose: a server shows it, a folder never does)."""
    dead = []
    for page in sorted(site.rglob("*.html")):
        if page.name == "404.html":
            continue
        for link in set(LINK.findall(page.read_text(encoding="utf-8", errors="replace"))):
            if not link or link.startswith(("http", "data", "mailto", "//", "javascript")):
                continue
            target = (page.parent / link).resolve()
            if not target.is_file():
                dead.append(f"{page.relative_to(site)}: {link}")
    return dead


def test_every_link_of_the_offline_copy_names_a_file(offline_site: Path) -> None:
    assert (offline_site / "chapters" / "09-generalization.html").is_file()
    assert dead_links(offline_site) == []


def test_dead_links_finds_a_folder_link(tmp_path: Path) -> None:
    (tmp_path / "chapters").mkdir()
    (tmp_path / "index.html").write_text('<a href="chapters/">x</a><a href="index.html#a">')
    assert dead_links(tmp_path) == ["index.html: chapters/"]


def test_offline_copy_navigates_from_a_folder(offline_site, browser) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})  # type: ignore[attr-defined]
    failed: list[str] = []
    page.on("requestfailed", lambda request: failed.append(request.url))
    page.goto((offline_site / "index.html").as_uri())
    page.locator("article a[href='chapters/09-generalization.html']").first.click()
    page.wait_for_load_state()
    assert page.url.endswith("/chapters/09-generalization.html")
    assert "Generalization" in page.inner_text("h1")
    page.locator("article a.chapter-link[href$='/10-hoeffding-union-bound.html']").first.click()
    page.wait_for_load_state()
    assert page.url.endswith("/chapters/10-hoeffding-union-bound.html")
    assert failed == []
    page.close()


def test_offline_copy_searches_from_a_folder(offline_site, browser) -> None:
    """Search runs in a Web Worker that a file:// page may not start; with the vendored shim the
    search box appears, finds a word of Chapter 10 and opens that chapter."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})  # type: ignore[attr-defined]
    outside: list[str] = []
    page.on("request", lambda r: outside.append(r.url) if not r.url.startswith("file:") else None)
    page.goto((offline_site / "chapters" / "09-generalization.html").as_uri())
    search = page.locator("input.md-search__input")
    search.click(timeout=15_000)
    search.type("Hoeffding")
    first = page.locator(".md-search-result__item a").first
    first.wait_for(timeout=20_000)
    assert "hoeffding" in (first.get_attribute("href") or "")
    first.click()
    page.wait_for_load_state()
    assert page.url.split("?")[0].endswith("/chapters/10-hoeffding-union-bound.html")
    assert outside == []
    page.close()


def test_offline_copy_explorer_computes_from_a_folder(offline_site, browser) -> None:
    """The ten-minute page's bound explorer, opened from file://, is built and computes: the
    bound it shows is pacbound's for the inputs the page sets, and a slider moved by the
    keyboard moves it. (Material's document$ never emits from a folder; an explorer that waited
    for it stayed an empty box.)"""
    from playwright.sync_api import expect  # the browser fixture skips when it is missing

    page = browser.new_page(viewport={"width": 1280, "height": 900})  # type: ignore[attr-defined]
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto((offline_site / "bound-in-ten-minutes.html").as_uri())
    root = page.locator(".bound-explorer")
    page.locator(".bound-explorer .bx-status").wait_for(timeout=10_000)
    root.scroll_into_view_if_needed()
    data = {key: float(value) for key, value in page.evaluate(
        "() => Object.assign({}, document.querySelector('.bound-explorer').dataset)").items()
        if key not in ("bxBuilt", "bound", "presets")}
    inputs = {"vocab": 50_257.0, "extraBits": 7.0, "eps": 0.05, **data}
    k = pacbound.prefix_code_bits(inputs["messageBits"])
    want = pacbound.subsampling_bound(
        train_error=inputs["trainError"],
        loss_range=pacbound.loss_range(inputs["alpha"], int(inputs["vocab"])),
        complexity_nats=(k + inputs["extraBits"]) * math.log(2),
        n_population=int(inputs["nTrain"]), n_sample=int(inputs["nSample"]), eps=inputs["eps"])
    shown = float(root.get_attribute("data-bound") or "nan")
    assert shown == pytest.approx(want, rel=1e-9)
    expect(page.locator(".bound-explorer .bx-status")).to_contain_text(  # as drawn on screen
        "bits per token: non-vacuous", use_inner_text=True)
    slider = page.get_by_label("Training documents, N (slider, logarithmic)")
    slider.focus()
    for _ in range(20):
        page.keyboard.press("ArrowLeft")
    assert float(root.get_attribute("data-bound") or "nan") > shown  # fewer documents
    # the presets the build wrote from the outputs work from a folder too: the miniature's
    page.locator(".bound-explorer button.bx-preset[data-preset='miniature']").click()
    printed = re.search(r"minimum over the grid: ([\d.]+) bits", (REPO / "outputs/ch22_markov.txt")
                        .read_text(encoding="utf-8"))
    assert printed and float(root.get_attribute("data-bound") or "nan") == pytest.approx(
        float(printed.group(1)), abs=1e-3)
    # reader.js loaded the explorer's script because the page holds an explorer; a page with
    # none loads it not
    assert page.locator("script#bx-script").count() == 1
    other = browser.new_page()  # type: ignore[attr-defined]
    other.goto((offline_site / "chapters" / "14-subsampling-complete-bound.html").as_uri())
    other.wait_for_function("document.querySelectorAll('[data-scroll-stop]').length > 0",
                            timeout=10_000)
    assert other.evaluate("typeof window.BoundExplorer") == "undefined"
    other.close()
    assert errors == []
    page.close()


def test_offline_copy_sets_up_the_reader_from_a_folder(offline_site, browser) -> None:
    """reader.js sets itself up from file:// too (it waited for document$ alone before): the
    sideways-scrolling boxes get their keyboard stops settled, and an equation reference shows
    its preview card under the pointer."""
    page = browser.new_page(viewport={"width": 1280, "height": 900})  # type: ignore[attr-defined]
    page.goto((offline_site / "chapters" / "14-subsampling-complete-bound.html").as_uri())
    page.wait_for_function("document.querySelectorAll('[data-scroll-stop]').length > 0",
                           timeout=10_000)
    page.locator("article a.xref").first.hover()
    page.locator(".xref-card").wait_for(timeout=5_000)
    page.close()
