"""What a phone's load of the long pages costs, and what the reader sees at the page's edges, on
the built site (no timed test: what the browser lays out, not how long it takes).

1. The notebook page draws its cells only as they come near the screen (reader.css,
   content-visibility): a code cell far below the first screen is not laid out at load, nor a
   paragraph of a text cell there, but the headings are (Material reads their places for the
   table of contents each time the page's height changes), and so are its last cells: the
   footer does not move when the reader jumps to the end.
2. A page does not move under the reader as it loads on a phone: the first blocks of a chapter
   are drawn at their size from the first frame (they were drawn at content-visibility's
   placeholder size first; the home page's layout shift was 0.118).
3. The site's name over the navigation does not cover a link of the navigation, wherever the
   list is scrolled (it did on the notebook page, at Lighthouse's desktop size, once Material had
   scrolled the list to the page's link: axe-core's target-size). The test scrolls the list
   itself: Material scrolls it only when the page's link lies below the sidebar's first screen,
   and the notebook's link no longer does.
"""

from __future__ import annotations

from typing import Any

import pytest
from browser_kit import PHONE, StaticServer, open_context

pytestmark = pytest.mark.browser

NOTEBOOK = "notebooks/gpt2-under-the-hood/"
LIGHTHOUSE_DESKTOP = {"width": 1350, "height": 940}
WAIT_FONTS = "() => document.fonts.ready.then(() => true)"

# Per top-level cell of the notebook: text or code, how far below the first screen it starts,
# whether it is among the last five, whether its content is laid out (not skipped by
# content-visibility) and which of its paragraphs are (their first element); and every heading
# of the text cells.
CELLS_JS = """() => {
  const cells = Array.from(document.querySelectorAll('.jp-Notebook > .jp-Cell'));
  const drawn = (el) => el.checkVisibility({contentVisibilityAuto: true});
  return {
    cells: cells.map((cell, i) => ({
      code: cell.classList.contains('jp-CodeCell'),
      screens: (cell.getBoundingClientRect().top + scrollY) / innerHeight,
      last: i >= cells.length - 5,
      drawn: drawn(cell.querySelector('.jp-InputArea, .jp-RenderedMarkdown, p') || cell),
      text: Array.from(cell.querySelectorAll('.jp-RenderedMarkdown > p > :first-child'))
        .map(drawn),
    })),
    headings: Array.from(document.querySelectorAll('.jp-RenderedMarkdown :is(h1, h2, h3, h4)'))
      .map(drawn),
  };
}"""
FRAMES_JS = """(n) => new Promise((done) => {
  const step = (left) => left ? requestAnimationFrame(() => step(left - 1)) : done(true);
  step(n);
})"""
FOOTER_TOP_JS = "() => document.querySelector('.md-footer').getBoundingClientRect().top + scrollY"
# Each link of the primary navigation that the sidebar shows: what is drawn over its top, middle
# and bottom, where that is not the link.
COVERED_JS = """() => {
  const wrap = document.querySelector('.md-sidebar--primary .md-sidebar__scrollwrap');
  const box = wrap.getBoundingClientRect();
  return Array.from(wrap.querySelectorAll('a.md-nav__link')).flatMap((link) => {
    const r = link.getBoundingClientRect();
    if (!r.height || r.top < box.top || r.bottom > box.bottom) return [];
    return [r.top + 2, r.top + r.height / 2, r.bottom - 2].flatMap((y) => {
      const top = document.elementFromPoint(r.left + r.width / 2, y);
      return link.contains(top) ? [] : [link.textContent.trim() + ' at ' + Math.round(y) +
        ' under ' + (top ? top.tagName + '.' + top.className : '?')];
    });
  });
}"""


# Layout shifts as the page loads (the browser's own record, as Lighthouse's CLS sums it).
SHIFTS_JS = """window.__shifts = [];
new PerformanceObserver((list) => list.getEntries().forEach((entry) => window.__shifts.push(
  [entry.value, entry.sources.map((s) => s.node ? s.node.nodeName + ' ' +
    (s.node.textContent || '').trim().slice(0, 40) : '?')])))
  .observe({type: 'layout-shift', buffered: true});"""


def _open(browser: Any, server: StaticServer, url_path: str, viewport: dict[str, int]) -> Any:
    context = open_context(browser, viewport)
    page = context.new_page()
    page.goto(server.url(url_path), wait_until="load")
    page.wait_for_function(WAIT_FONTS)
    page.wait_for_load_state("networkidle")
    page.evaluate(FRAMES_JS, 5)
    return page


def test_notebook_cells_far_below_are_not_laid_out_at_load(browser, server) -> None:
    page = _open(browser, server, NOTEBOOK, PHONE)
    try:
        found = page.evaluate(CELLS_JS)
        far = [c for c in found["cells"] if c["code"] and c["screens"] > 3 and not c["last"]]
        assert len(far) >= 15, found["cells"]
        assert not any(c["drawn"] for c in far), "a code cell far below the screen was laid out"
        assert all(c["drawn"] for c in found["cells"] if not c["code"] or c["last"])
        far_text = [p for c in found["cells"] if c["screens"] > 3 and not c["last"]
                    for p in c["text"]]
        assert len(far_text) >= 20 and not any(far_text), "a paragraph far below was laid out"
        assert all(all(c["text"]) for c in found["cells"] if c["last"])
        assert len(found["headings"]) >= 5 and all(found["headings"]), found["headings"]
    finally:
        page.context.close()


def test_the_footer_stays_put_when_the_reader_jumps_to_the_end(browser, server) -> None:
    page = _open(browser, server, NOTEBOOK, PHONE)
    try:
        page.evaluate("window.scrollTo(0, document.documentElement.scrollHeight)")
        before = page.evaluate(FOOTER_TOP_JS)
        page.evaluate(FRAMES_JS, 10)  # cells near the end drawn, if they were not
        assert page.evaluate(FOOTER_TOP_JS) == pytest.approx(before, abs=1)
    finally:
        page.context.close()


@pytest.mark.parametrize("url_path", ["", "chapters/05-transformers-gpt2/",
                                      "chapters/22-miniature/"])
def test_the_first_screen_does_not_move_as_a_phone_loads_it(browser, server, url_path) -> None:
    context = browser.new_context(viewport={"width": 412, "height": 823}, is_mobile=True,
                                  has_touch=True, device_scale_factor=1.75)
    try:
        context.add_init_script(SHIFTS_JS)
        page = context.new_page()
        page.goto(server.url(url_path), wait_until="load")
        page.wait_for_function(WAIT_FONTS)
        page.wait_for_load_state("networkidle")
        page.evaluate(FRAMES_JS, 5)
        shifts = page.evaluate("window.__shifts")
        assert sum(value for value, _ in shifts) < 0.01, shifts
    finally:
        context.close()


@pytest.mark.parametrize("url_path", [NOTEBOOK, "errata/"])
def test_no_navigation_link_is_covered_wherever_the_list_is_scrolled(browser, server,
                                                                     url_path) -> None:
    page = _open(browser, server, url_path, LIGHTHOUSE_DESKTOP)
    try:
        height = page.evaluate(
            "() => { const w = document.querySelector("
            "'.md-sidebar--primary .md-sidebar__scrollwrap');"
            " return w.scrollHeight - w.clientHeight; }")
        assert height > 0, "the list fits its sidebar: nothing to scroll, the check sees nothing"
        covered = []
        for top in [*range(0, height, 20), height]:
            page.evaluate(
                "(top) => { document.querySelector("
                "'.md-sidebar--primary .md-sidebar__scrollwrap').scrollTop = top; }", top)
            page.evaluate(FRAMES_JS, 1)
            covered += [f"scrolled {top} px: {c}" for c in page.evaluate(COVERED_JS)]
        assert covered == []
    finally:
        page.context.close()


def test_material_scrolls_the_list_to_a_link_far_down(browser, server) -> None:
    """Where the current page's link is below the sidebar's first screen (Errata, near the end),
    Material scrolls the list to it: the position the covering was first seen at."""
    page = _open(browser, server, "errata/", LIGHTHOUSE_DESKTOP)
    try:
        assert page.evaluate(
            "() => document.querySelector('.md-sidebar--primary .md-sidebar__scrollwrap')"
            ".scrollTop") > 0
        assert page.evaluate(COVERED_JS) == []
    finally:
        page.context.close()
