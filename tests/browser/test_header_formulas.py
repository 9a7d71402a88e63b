"""A table header that holds only a formula has a name: reader.js names its <math> in words read
from its own MathML, so axe-core (empty-table-header) and a screen reader find text there."""

from __future__ import annotations

from typing import Any

import pytest
from browser_kit import StaticServer, axe_violations

pytestmark = pytest.mark.browser

CHAPTER_12 = "chapters/12-prediction-smoothing/"
# The <math> names of the headers whose only content is formulas.
NAMES_JS = """() => Array.from(document.querySelectorAll(".md-typeset th")).filter((th) => {
    const bare = th.cloneNode(true);
    bare.querySelectorAll(".arithmatex").forEach((f) => f.remove());
    return th.querySelector("math") && !bare.textContent.trim();
  }).flatMap((th) => Array.from(th.querySelectorAll("math"),
                                (m) => m.getAttribute("aria-label")))"""


def test_header_formulas_are_named(browser: Any, server: StaticServer) -> None:
    page = browser.new_page()
    try:
        page.goto(server.url(CHAPTER_12))
        page.wait_for_load_state("load")
        names = page.evaluate(NAMES_JS)
        assert names and all(names), names
        assert "Δ ( α )" in names and "α = 0.01" in names, names
        assert axe_violations(page, ["empty-table-header"]) == []
        # Without the names, axe-core finds the headers empty (the check is not vacuous).
        page.evaluate("() => document.querySelectorAll('th math').forEach("
                      "(m) => m.removeAttribute('aria-label'))")
        found = axe_violations(page, ["empty-table-header"])
        assert found and len(found[0]["nodes"]) >= 5, found
    finally:
        page.close()
