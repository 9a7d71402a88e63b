"""A display formula wider than its box scrolls inside it, and a reader can tell and can scroll it
without a mouse: the box is a tab stop (reader.js), the arrow keys scroll it, a focus ring shows
it has the focus, and a shadow on an edge shows there is more formula beyond that edge
(explainer.css). A formula that fits is no tab stop.

The page here loads the site's reader.js and explainer.css with a formula box 900 px wide in a
375-px window, opened from disk (reader.js sets itself up without Material's document$, as in
the offline copy); no site build needed.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from standalone_kit import write_page

pytestmark = pytest.mark.browser

BODY = (
    "<div class='md-content'><div class='md-content__inner md-typeset'>"
    "<p>Before.</p>"
    "<div class='arithmatex' id='wide'><span class='katex-display'><span class='katex'>"
    "<span class='wide-formula' style='display: inline-block; width: 900px; height: 3em'>"
    "</span></span></span></div>"
    "<div class='arithmatex' id='narrow'><span class='katex-display'><span class='katex'>"
    "<span style='display: inline-block; width: 100px; height: 2em'></span></span></span></div>"
    "<p>After.</p></div></div>"
)


@pytest.fixture()
def tab(browser: object, tmp_path: Path) -> Iterator[object]:
    url = write_page(tmp_path, BODY, ["javascripts/reader.js"], ["stylesheets/explainer.css"],
                     theme=True)
    context = browser.new_context(viewport={"width": 375, "height": 700})  # type: ignore[attr-defined]
    page = context.new_page()
    page.goto(url)
    page.wait_for_function("document.getElementById('wide').dataset.scrollStop === 'scrolls'",
                           timeout=10_000)
    yield page
    context.close()


def _edge_darkness(page: object) -> tuple[float, float]:
    """How much darker than the page the left and right 10 px of the wide box are (0 to 255),
    drawn with its formula hidden: only the box's own background shows."""
    from PIL import Image

    png = page.locator("#wide").screenshot()  # type: ignore[attr-defined]
    image = Image.open(io.BytesIO(png)).convert("L")
    width, height = image.size

    def darkness(x0: int, x1: int) -> float:
        pixels = [image.getpixel((x, y)) for x in range(x0, x1) for y in range(height)]
        return 255 - sum(pixels) / len(pixels)

    return darkness(0, 10), darkness(width - 10, width)


def test_a_wide_formula_is_a_tab_stop_and_scrolls_by_keyboard(tab) -> None:
    page = tab
    assert page.get_attribute("#wide", "tabindex") == "0"
    assert page.get_attribute("#narrow", "tabindex") is None
    page.focus("body")
    page.keyboard.press("Tab")
    assert page.evaluate("document.activeElement.id") == "wide"
    ring = page.evaluate("""() => { const s = getComputedStyle(document.activeElement);
                            return [s.outlineStyle, parseFloat(s.outlineWidth)]; }""")
    assert ring[0] not in ("none", "hidden") and ring[1] >= 2, ring
    for _ in range(5):
        page.keyboard.press("ArrowRight")
    page.wait_for_function("document.getElementById('wide').scrollLeft > 100")


def test_a_wide_formula_shows_which_way_it_scrolls(tab) -> None:
    page = tab
    page.add_style_tag(content=".wide-formula { visibility: hidden; }")
    left, right = _edge_darkness(page)
    assert right > left + 8, f"at the start: no shadow on the right edge ({left:.1f}, {right:.1f})"
    page.evaluate("() => { const box = document.getElementById('wide');"
                  " box.scrollLeft = box.scrollWidth; }")
    left, right = _edge_darkness(page)
    assert left > right + 8, f"at the end: no shadow on the left edge ({left:.1f}, {right:.1f})"
