"""Every page of the built site, as Chromium shows it.

For each page (found in the built site, so a new page is tested as soon as it exists) and each
check of `browser_kit.PAGE_CHECKS`: no console errors, no failed requests, no request to any host
but the local server, every image loads and has alternative text, every formula is visible and
error-free with no raw TeX left (a notebook typesets as many formulas as its Markdown cells
hold), headings in order, a language attribute, provenance tags shown as badges, and the page
weight within its budget (2.5 MB, 4 MB for a notebook; the site-wide search index, loaded once
per visit, has a budget of its own), the reader's marks out of the tab order, no text or badge
cut off by a box that clips it (`content-visibility`, overflow hidden), and no axe-core
violation in the light or the dark colour scheme (the colour rules on one representative of each
kind of highlighted code token; formula glyphs, which take the colour of their text, are checked
to have no colours of their own).

Each page is loaded once (conftest.desktop_load): at desktop width, audited by axe-core in both
schemes, then resized to a phone and measured again; every check reads that one load.
Screenshots are opt-in (EXPLAINER_SCREENSHOTS=1).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from browser_kit import (
    PAGE_CHECKS,
    PageLoad,
    accessibility_problems,
    clip_problems,
    colour_sampling_problems,
    figure_legibility_problems,
    overflow_problems,
    search_index_problems,
)

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("check", list(PAGE_CHECKS))
def test_page(page: str, check: str, desktop_load: Callable[[str], PageLoad]) -> None:
    problems = PAGE_CHECKS[check](desktop_load(page))
    assert not problems, "\n".join(problems)


def test_page_is_accessible(page: str, desktop_load: Callable[[str], PageLoad]) -> None:
    """axe-core finds no violation, in the light scheme and in the dark one (same load), and
    the premise of its sampled colour audit holds on the page."""
    load = desktop_load(page)
    problems = accessibility_problems(load) + colour_sampling_problems(load)
    assert not problems, "\n".join(problems)


def test_page_fits_a_phone(page: str, phone_load: Callable[[str], PageLoad],
                           built_site: Path) -> None:
    """At 360 px (the same load, resized) the page scrolls only vertically (wide code and math
    scroll inside their box), nothing is cut off by a clipping box, its figures' text stays
    legible, and it shows no console errors
    or failed requests there either."""
    load = phone_load(page)
    problems = overflow_problems(load) + figure_legibility_problems(load, built_site)
    problems += clip_problems(load)
    problems += PAGE_CHECKS["console"](load) + PAGE_CHECKS["requests"](load)
    problems += PAGE_CHECKS["math"](load)
    assert not problems, "\n".join(problems)


def test_search_index_within_its_budget(built_site: Path) -> None:
    """The site-wide search index, loaded once per visit, has its own budget (page weights
    leave it out; see PageLoad.bytes)."""
    problems = search_index_problems(built_site)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("facts, expected", [
    ({"found": False}, "no collapsed self-test answer"),
    ({"found": True, "hiddenBefore": False, "open": True, "widths": []}, "text is visible"),
    ({"found": True, "hiddenBefore": True, "open": False, "widths": []}, "did not open"),
    ({"found": True, "hiddenBefore": True, "open": True, "widths": [3.0, 0]}, "invisible formula"),
])
def test_a_self_test_that_does_not_open_is_a_problem(facts: dict, expected: str) -> None:
    load = PageLoad("chapters/01-x/")
    load.facts["selfTest"] = facts
    problems = PAGE_CHECKS["self_test"](load)
    assert len(problems) == 1 and expected in problems[0], problems
    load.facts["selfTest"] = {"found": True, "hiddenBefore": True, "open": True, "widths": [3.0]}
    assert PAGE_CHECKS["self_test"](load) == []
