"""What a reader does on the site: search, switch to dark mode and back, move between pages with
instant navigation. Each test drives the built site in Chromium. (Opening a chapter's self-test
answer is checked in each chapter's one load: browser_kit.self_test_problems.)"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_kit import (
    DESKTOP,
    MATHJAX_TIMEOUT_MS,
    PageLoad,
    StaticServer,
    discover_pages,
    math_problems,
    open_context,
    page_label,
)
from conftest import site_url

pytestmark = pytest.mark.browser

CHAPTER_5 = "chapters/05-transformers-gpt2/"
WAIT_MS = 15_000

# Once the fonts have loaded: how many formulas (rendered at build time) are on the page, and
# which have no width (answers opened first, as the per-page checks do).
MATH_STATE_JS = """
async (timeoutMs) => {
  await Promise.race([document.fonts.ready, new Promise((r) => setTimeout(r, timeoutMs))]);
  document.querySelectorAll("details").forEach((d) => { d.open = true; });
  const boxes = Array.from(document.querySelectorAll(".katex"));
  return {
    count: boxes.length,
    zero: boxes.filter((b) => b.getBoundingClientRect().width <= 0).map(
      (b) => (b.textContent || "").slice(0, 40)),
  };
}
"""


@pytest.fixture
def tab(browser: Any) -> Iterator[Any]:
    """A fresh desktop tab, with console errors and uncaught exceptions recorded on it."""
    context = open_context(browser, DESKTOP)
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda error: page.errors.append(f"{page.url}: uncaught: {error}"))
    page.on(
        "console",
        lambda m: (
            page.errors.append(f"{page.url}: {m.text} ({m.location.get('url')})")
            if m.type == "error"
            else None
        ),
    )
    try:
        yield page
    finally:
        context.close()


def goto(tab: Any, server: StaticServer, url_path: str) -> None:
    """Load a page and wait until its fonts (KaTeX's included) have loaded."""
    tab.goto(server.url(url_path), wait_until="load")
    tab.evaluate(
        """t => Promise.race([document.fonts.ready,
             new Promise(r => setTimeout(r, t))]).then(() => null)""",
        MATHJAX_TIMEOUT_MS,
    )


def test_search_finds_chapter_5(tab: Any, server: StaticServer, built_site: Path) -> None:
    assert (built_site / CHAPTER_5 / "index.html").is_file(), (
        f"/{CHAPTER_5} is not in the built site, so search cannot find it"
    )
    goto(tab, server, "")
    query = tab.locator("input.md-search__input")
    query.click()
    query.press_sequentially("weight tying", delay=20)
    try:
        tab.wait_for_function(
            """path => Array.from(document.querySelectorAll(".md-search-result__link"))
                 .some(a => new URL(a.href).pathname.startsWith(path))""",
            arg="/" + CHAPTER_5,
            timeout=WAIT_MS,
        )
    except Exception as error:  # report what the search did show
        shown = tab.locator(".md-search-result").inner_text()
        raise AssertionError(
            f"/: searching 'weight tying' did not list /{CHAPTER_5}; the results said: {shown!r}"
        ) from error
    assert not tab.errors, f"/: console errors while searching: {tab.errors}"


INDEX_AND_LOAD_JS = """() => {
  const index = performance.getEntriesByType("resource")
    .find(entry => entry.name.endsWith("/search/search_index.json"));
  const navigation = performance.getEntriesByType("navigation")[0];
  return index && navigation.loadEventEnd > 0 ? [index.startTime, navigation.loadEventStart]
                                              : null;
}"""


@pytest.mark.parametrize("url_path", ["", "chapters/22-miniature/"])
def test_the_search_index_is_asked_for_once_the_page_has_loaded(
        tab: Any, server: StaticServer, url_path: str) -> None:
    """Not while the page is first painted (load_fixes.search_index_after_load): Material
    asked for it about 0.1 s before the load event here."""
    tab.goto(server.url(url_path), wait_until="load")
    asked, loaded = tab.wait_for_function(INDEX_AND_LOAD_JS, timeout=WAIT_MS).json_value()
    assert asked >= loaded, f"/{url_path}: index asked for at {asked:.0f} ms, load at {loaded:.0f}"
    status = tab.evaluate("""() => new Promise(done => {
      const request = new XMLHttpRequest();  // asked for after the load: sent at once
      request.open("GET", "/search/search_index.json");
      request.onload = () => done(request.status);
      setTimeout(() => done("not sent"), 5000);
      request.send();
    })""")
    assert status == 200, f"/{url_path}: the index asked for after the load: {status}"
    assert not tab.errors, f"/{url_path}: console errors: {tab.errors}"


def scheme_and_background(tab: Any) -> tuple[str, float]:
    """Material's colour scheme attribute and the page background's luminance (0 black, 1 white)."""
    return tab.evaluate(
        """() => {
          const rgb = getComputedStyle(document.body).backgroundColor.match(/\\d+/g).map(Number);
          const lum = (0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]) / 255;
          return [document.body.getAttribute("data-md-color-scheme"), lum];
        }"""
    )


def test_palette_toggle_switches_to_dark_and_back(tab: Any, server: StaticServer) -> None:
    goto(tab, server, "")
    toggle = tab.locator("form[data-reader-palette] label:visible")
    scheme, light = scheme_and_background(tab)
    assert scheme == "default" and light > 0.8, f"/: starts as {scheme} (luminance {light:.2f})"
    toggle.click()
    tab.wait_for_function("() => document.body.dataset.mdColorScheme === 'slate'", timeout=WAIT_MS)
    scheme, dark = scheme_and_background(tab)
    assert dark < 0.3, f"/: dark mode ({scheme}) but the background's luminance is {dark:.2f}"
    tab.locator("form[data-reader-palette] label:visible").click()
    tab.wait_for_function(
        "() => document.body.dataset.mdColorScheme === 'default'", timeout=WAIT_MS
    )
    scheme, back = scheme_and_background(tab)
    assert back > 0.8, f"/: back to {scheme} but the background's luminance is {back:.2f}"
    assert not tab.errors, f"/: console errors while toggling: {tab.errors}"


def header_metas(tab: Any) -> tuple[str, str]:
    """The page's colour-scheme and theme-color metas, once the switch has read the header."""
    tab.wait_for_function("() => document.querySelector('meta[name=theme-color]')", timeout=WAIT_MS)
    return tab.evaluate("""() => ['color-scheme', 'theme-color'].map(
        (n) => document.querySelector(`meta[name="${n}"]`).content)""")


def test_the_palette_choice_holds_on_the_next_page_and_enter_switches(
        tab: Any, server: StaticServer) -> None:
    """The switch is the reader's script's (load_fixes.palette_without_restyles): Material's
    palette component is not started, the choice is stored where Material's script at the top
    of a page reads it, the metas follow the header, and Enter on the switch switches back."""
    goto(tab, server, "")
    assert header_metas(tab)[0] == "light", f"/: color-scheme meta {header_metas(tab)}"
    tab.locator("form[data-reader-palette] label:visible").click()
    tab.wait_for_function("() => document.body.dataset.mdColorScheme === 'slate'", timeout=WAIT_MS)
    assert header_metas(tab)[0] == "dark", f"/: in dark mode the metas are {header_metas(tab)}"
    tab.wait_for_function(
        "() => !document.body.hasAttribute('data-md-color-switching')", timeout=WAIT_MS)
    goto(tab, server, CHAPTER_5)
    scheme, dark = scheme_and_background(tab)
    assert scheme == "slate" and dark < 0.3, f"/{CHAPTER_5}: after choosing dark, {scheme}"
    visible = tab.locator("form[data-reader-palette] label:visible")
    assert visible.count() == 1 and visible.get_attribute("for") == "__palette_0", (
        f"/{CHAPTER_5}: in dark mode the switch should offer light (__palette_0)")
    tab.locator("form[data-reader-palette] input").nth(1).focus()
    tab.keyboard.press("Enter")
    tab.wait_for_function(
        "() => document.body.dataset.mdColorScheme === 'default'", timeout=WAIT_MS)
    assert tab.locator("[data-md-component=palette]").count() == 0
    assert not tab.errors, f"console errors: {tab.errors}"


# Every change to the colour-scheme and theme-color tags from the first moment on.
META_WRITES_JS = """window.__metaWrites = [];
new MutationObserver((records) => records.forEach((r) => {
  const tags = r.type === 'attributes' ? [r.target] : Array.from(r.addedNodes);
  tags.filter((t) => t.nodeName === 'META' && /^(color-scheme|theme-color)$/.test(t.name))
    .forEach((t) => window.__metaWrites.push(t.name + '=' + t.content));
})).observe(document, {subtree: true, childList: true, attributes: true});"""


def test_the_light_palette_writes_no_colour_tag_as_the_page_loads(browser: Any,
                                                                   server: StaticServer) -> None:
    """The build writes the light palette's colour-scheme and theme-color tags
    (build_features.palette_metas), so the palette script, which writes a tag only where it
    differs from the header, writes none at load: a tag written then restyles the whole page."""
    context = open_context(browser, DESKTOP)
    try:
        context.add_init_script(META_WRITES_JS)
        page = context.new_page()
        goto(page, server, CHAPTER_5)
        page.evaluate("() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 200)))")
        writes = page.evaluate("window.__metaWrites")
        parsed = [w for w in writes if w in ("color-scheme=light", "theme-color=#4051b5")]
        assert writes == parsed and len(parsed) == 2, writes  # the parser's two, nothing else
    finally:
        context.close()


def test_a_first_visit_follows_the_devices_dark_preference(browser: Any,
                                                          server: StaticServer) -> None:
    context = browser.new_context(viewport=DESKTOP, color_scheme="dark", locale="en-US")
    try:
        page = context.new_page()
        goto(page, server, CHAPTER_5)
        page.wait_for_function(
            "() => document.body.dataset.mdColorScheme === 'slate'", timeout=WAIT_MS)
        stored = page.evaluate("() => __md_get('__palette')")
        assert stored["index"] == 1 and stored["color"]["scheme"] == "slate", stored
    finally:
        context.close()


def check_math_after_swap(tab: Any, label: str, title: str, expected: int) -> None:
    """Wait for the swapped-in page (its title) and for its formulas to be typeset and visible;
    fail with what the page shows if that does not happen."""
    tab.wait_for_function("t => document.title === t", arg=title, timeout=WAIT_MS)
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

    with contextlib.suppress(PlaywrightTimeoutError):  # the assertions below say what is wrong
        tab.wait_for_function(
            """n => {
              document.querySelectorAll("details").forEach((d) => { d.open = true; });
              const boxes = Array.from(document.querySelectorAll(".katex"));
              return boxes.length === n && boxes.every(b => b.getBoundingClientRect().width > 0);
            }""",
            arg=expected,
            timeout=WAIT_MS,
        )
    state = tab.evaluate(MATH_STATE_JS, MATHJAX_TIMEOUT_MS)
    assert state["count"] == expected, (
        f"{label}: after instant navigation {state['count']} formulas are typeset; "
        f"a direct load typesets {expected}"
    )
    assert not state["zero"], (
        f"{label}: invisible formulas after instant navigation: {state['zero']}"
    )


def instant_navigate(tab: Any, server: StaticServer, url_path: str) -> None:
    """Click the page's own link to `url_path`, as a reader would."""
    clicked = tab.evaluate(
        """url => {
          const link = Array.from(document.querySelectorAll("a[href]")).find(a => a.href === url);
          if (link) link.click();
          return !!link;
        }""",
        server.url(url_path),
    )
    assert clicked, f"no link to /{url_path} on {tab.url}"
    tab.wait_for_url(server.url(url_path), timeout=WAIT_MS)


def test_instant_navigation_keeps_math_rendered(
    tab: Any,
    server: StaticServer,
    built_site: Path,
    desktop_load: Callable[[str], PageLoad],
) -> None:
    math_pages: list[str] = []  # the first two, loaded one by one (each load is seconds)
    for url_path in discover_pages(built_site):
        if len(math_pages) < 2 and desktop_load(url_path).facts["math"]:
            math_pages.append(url_path)
    if len(math_pages) < 2:
        pytest.skip(f"needs two pages with math; the site has {len(math_pages)}")
    first, second = math_pages[:2]
    expected = {}
    for url_path in (first, second):  # what a direct load shows, and that it is itself fine
        load = desktop_load(url_path)
        assert not math_problems(load), "\n".join(math_problems(load))
        expected[url_path] = (load.facts["title"], len(load.facts["math"]))
    # Material keeps to instant navigation only for URLs of its sitemap, which it moves onto the
    # page's protocol and hostname but not its port; so the sitemap is shown as it would be on a
    # server at the configured site_url.
    sitemap = (built_site / "sitemap.xml").read_text(encoding="utf-8")
    served: list[str] = []

    def serve_sitemap(route: Any) -> None:
        route.fulfill(body=sitemap.replace(site_url().rstrip("/"), server.origin),
                      content_type="application/xml")
        served.append(route.request.url)

    tab.route(server.url("sitemap.xml"), serve_sitemap)
    goto(tab, server, first)
    # Material listens for clicks only once it has the sitemap: on a busy machine a click that
    # comes first is an ordinary (full) navigation. Wait for it, then for its handler to be set.
    for _ in range(WAIT_MS // 100):
        if served:
            break
        tab.wait_for_timeout(100)
    tab.wait_for_timeout(500)
    tab.evaluate("() => { window.__noFullReload = true; }")
    instant_navigate(tab, server, second)
    assert tab.evaluate("() => window.__noFullReload === true"), (
        f"going from {page_label(first)} to {page_label(second)} reloaded the page: "
        "instant navigation is off, so this test proves nothing"
    )
    check_math_after_swap(tab, page_label(second), *expected[second])
    tab.go_back()
    tab.wait_for_url(server.url(first), timeout=WAIT_MS)
    check_math_after_swap(tab, page_label(first) + " (back)", *expected[first])
    assert not tab.errors, f"console errors while navigating: {tab.errors}"
