"""Prose tables become stacked cards on a phone (docs/javascripts/narrow-tables.js).

At 390 px a table with a prose column (the claims ledger, the errata index) shows each row as a
card with every cell under its column's name and nothing wider than the screen; a table of
numbers keeps its columns; at desktop width both stay ordinary tables.
"""

from __future__ import annotations

import pytest
from standalone_kit import write_page

pytestmark = pytest.mark.browser

PROSE_ROW = ("<tr><td>E{i}</td><td>The larger model sizes are nominal, and two of their shapes"
             " are never given anywhere in the paper</td><td>§6.4, p. 7</td><td>inferred</td></tr>")
NUMBER_ROW = "<tr><td>float{i}</td><td>3,958,063,104</td><td>34,172</td><td>251.089</td></tr>"
BODY = (
    "<table id='prose'><thead><tr><th>Erratum</th><th>Title</th><th>Paper locations</th>"
    "<th>Status</th></tr></thead><tbody>" + "".join(PROSE_ROW.format(i=i) for i in range(4))
    + "</tbody></table><table id='numbers'><thead><tr><th>format</th><th>bits</th>"
    "<th>times SubLoRA</th><th>bound</th></tr></thead><tbody>"
    + "".join(NUMBER_ROW.format(i=i) for i in range(4)) + "</tbody></table>"
)



def _layout(browser: object, tmp_path, width: int) -> dict:
    url = write_page(tmp_path, BODY, ["javascripts/narrow-tables.js"], ["stylesheets/reader.css"])
    ctx = browser.new_context(viewport={"width": width, "height": 900})  # type: ignore[attr-defined]
    try:
        page = ctx.new_page()
        page.goto(url)
        return page.evaluate("""() => {
          const t = (id) => document.getElementById(id);
          const cell = t('prose').querySelector('tbody td:nth-child(2)');
          return {
            stacked: t('prose').classList.contains('stack-narrow'),
            numbersStacked: t('numbers').classList.contains('stack-narrow'),
            label: cell.dataset.label,
            shown: getComputedStyle(cell, '::before').content,
            proseDisplay: getComputedStyle(t('prose')).display,
            widest: Math.max(...Array.from(t('prose').querySelectorAll('td'))
                             .map((td) => td.getBoundingClientRect().right)),
            screen: document.documentElement.clientWidth,
          };
        }""")
    finally:
        ctx.close()


def test_prose_table_stacks_on_a_phone_and_numbers_keep_columns(browser, tmp_path) -> None:
    got = _layout(browser, tmp_path, 390)
    assert got["stacked"] and not got["numbersStacked"]
    assert got["label"] == "Title" and "Title" in got["shown"]
    assert got["proseDisplay"] == "block"
    assert got["widest"] <= got["screen"], f"a card is wider than the screen: {got}"


def test_tables_stay_tables_on_a_desktop(browser, tmp_path) -> None:
    got = _layout(browser, tmp_path, 1280)
    assert got["stacked"]  # marked, but the phone layout applies only to narrow screens
    assert got["proseDisplay"] == "table"
