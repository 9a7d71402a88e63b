"""Nothing the reader should see is cut off by a box that clips it (browser_kit.CLIP_JS).

A section's provenance badge sits in a paragraph of its own, which `content-visibility: auto`
(explainer.css) paint-contains: a badge drawn above that paragraph's box loses its top half. The
per-page tests run the same measurement on every page, at desktop and phone width
(PAGE_CHECKS["clipped"], test_page_fits_a_phone); here it runs on a small page that loads the
site's own stylesheet, with the old rule that cut the badges, and with boxes that clip, scroll or
hide text on purpose, so the measurement is seen to tell them apart. No site build needed.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_kit import CLIP_JS
from standalone_kit import write_page

pytestmark = pytest.mark.browser

# Twelve short paragraphs first: the first twelve blocks of a page are drawn whole
# (explainer.css), so the section stands where content-visibility applies.
SECTION = (
    "<div class='md-content'><div class='md-content__inner'>"
    + "<p>An earlier paragraph.</p>" * 12 +
    "<h2>Where this fits</h2>"
    "<p><span class='prov-scope' title='Provenance of what follows'>"
    "<span class='prov prov--explanation'>MY EXPLANATION</span>"
    "<span class='prov-scope__note'>this section unless marked</span></span></p>"
    "<p>The point first: <span class='prov prov--analysis'>MY ANALYSIS</span> a sentence.</p>"
    "{extra}</div></div>"
)
# The rule that cut every section badge: the badge, not its paragraph, pulled up.
OLD_RULE = ("<style>.md-typeset .prov-scope { margin-top: -0.4em; }"
            " .md-typeset p:has(> .prov-scope) { margin-top: 1em; }</style>")


@pytest.fixture(scope="module")
def tab(browser: object) -> Iterator[object]:
    context = browser.new_context(viewport={"width": 375, "height": 800})  # type: ignore[attr-defined]
    yield context.new_page()
    context.close()


def _clipped(tab: object, tmp_path: Path, extra: str = "") -> list[str]:
    url = write_page(tmp_path, SECTION.replace("{extra}", extra), [],
                     ["stylesheets/explainer.css", "stylesheets/reader.css"])
    tab.goto(url)  # type: ignore[attr-defined]
    return tab.evaluate(CLIP_JS, ".md-content")  # type: ignore[attr-defined]


def test_section_badge_is_whole(tab, tmp_path) -> None:
    assert _clipped(tab, tmp_path) == []


def test_badge_pulled_above_its_paragraph_is_reported(tab, tmp_path) -> None:
    clipped = _clipped(tab, tmp_path, OLD_RULE)
    assert clipped, "the old rule cuts the badge, and the measurement missed it"
    badge = [c for c in clipped if c.startswith('"MY EXPLANATION') and "cut by <p>" in c]
    assert badge and "top" in badge[0], clipped


def test_clipping_scrolling_and_hidden_boxes_are_told_apart(tab, tmp_path) -> None:
    wide = "a_long_line_of_output_" * 12
    extra = (
        f"<div style='overflow: hidden; width: 8em'><span>{wide}</span></div>"
        f"<div style='overflow-x: auto; width: 8em'><code>scrolls_{wide}</code></div>"
        "<span class='reader-sr-only'>read aloud only</span>"
    )
    clipped = _clipped(tab, tmp_path, extra)
    assert len(clipped) == 1 and "a_long_line_of_output" in clipped[0], clipped
    assert "right" in clipped[0] and "scrolls_" not in clipped[0]
