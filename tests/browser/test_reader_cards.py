"""Number cards of docs/javascripts/reader.js, for a screen reader and on a touch screen.

- A focused number keeps its own text as its accessible name; the card is its description
  (aria-describedby points at the card's id), and the link loses it when the card closes.
- On a touch screen the first tap on a number shows its card and does not jump; the second tap
  follows the link to the output line; a tap elsewhere closes the card.

The page is a small HTML file that loads the site's reader.js from disk: no site build needed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from standalone_kit import DOCS

pytestmark = pytest.mark.browser

SCRIPT = DOCS / "javascripts" / "reader.js"
PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>cards</title></head>
<body><main><p>The message is <a class="num" id="n1" href="#out-ch17_message-L6"
data-block="1">115,826</a> bits long.</p><p id="elsewhere">Another paragraph.</p>
<div style="height: 2000px"></div>
<pre><code><span id="out-ch17_message-L5">[1] The message</span>
<span id="out-ch17_message-L6">    message L   115,826 bits</span></code></pre>
<div style="height: 2000px"></div></main>
<script src="{script}"></script></body></html>"""




def _open(browser: object, tmp_path: Path, **context: object) -> tuple[object, object]:
    html = tmp_path / "cards.html"
    html.write_text(PAGE.replace("{script}", SCRIPT.as_uri()), encoding="utf-8")
    ctx = browser.new_context(**context)  # type: ignore[attr-defined]
    page = ctx.new_page()
    page.goto(html.as_uri())
    return ctx, page


def test_focused_number_is_described_by_its_card_not_renamed(browser, tmp_path) -> None:
    ctx, page = _open(browser, tmp_path)
    try:
        page.focus("#n1")
        card = page.locator(".num-card")
        assert "message L" in card.inner_text() and "ch17_message.py" in card.inner_text()
        number = page.locator("#n1")
        assert number.get_attribute("aria-label") is None
        assert number.get_attribute("aria-describedby") == card.get_attribute("id")
        page.keyboard.press("Escape")
        assert page.locator(".num-card").count() == 0
        assert number.get_attribute("aria-describedby") is None
    finally:
        ctx.close()


def test_first_tap_shows_the_card_second_tap_follows(browser, tmp_path) -> None:
    ctx, page = _open(browser, tmp_path, has_touch=True, is_mobile=True,
                      viewport={"width": 390, "height": 844})
    try:
        page.tap("#n1")
        page.wait_for_timeout(100)
        assert page.locator(".num-card").count() == 1, "the first tap shows no card"
        assert page.evaluate("location.hash") == "", "the first tap jumped"
        page.tap("#n1")
        page.wait_for_timeout(300)
        assert page.evaluate("location.hash") == "#out-ch17_message-L6"
        visible = page.evaluate(
            "() => { const r = document.getElementById('out-ch17_message-L6')"
            ".getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; }")
        assert visible, "the output line is not on screen after the jump"
        page.evaluate("window.scrollTo(0, 0)")
        page.wait_for_timeout(1100)  # past the tap window
        page.tap("#n1")
        page.wait_for_timeout(100)
        assert page.locator(".num-card").count() == 1
        page.wait_for_timeout(1100)
        page.tap("#elsewhere")
        page.wait_for_timeout(100)
        assert page.locator(".num-card").count() == 0, "a tap elsewhere leaves the card open"
    finally:
        ctx.close()
