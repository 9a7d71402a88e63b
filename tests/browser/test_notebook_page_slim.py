"""The lighter notebook page (explainer_tools/website/notebook_slim.py) looks as nbconvert's page
does: the companion notebook converted by mkdocs-jupyter's converter, once as converted and once
slimmed, each in a page with the site's stylesheets, gives every element the same box and the
same computed style (at a phone's width, where the notebook's rules for narrow screens
apply too), the token spans inside a cell's code apart: those the slim page unwraps or joins;
there every character that shows (not whitespace) has the same box, colour, weight and slant,
in the light and the dark scheme; and a cell's copy button, whose hidden copy of
the source is gone, still copies the cell's source."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from standalone_kit import write_page

from explainer_tools.website.notebook_slim import slim

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = next((ROOT / "docs" / "notebooks").glob("*.ipynb"))
STYLES = ["stylesheets/explainer.css", "stylesheets/reader.css", "notebooks/notebook.css"]
PROPS = ["display", "position", "color", "background-color", "font-family", "font-size",
         "font-weight", "line-height", "margin", "padding", "border", "white-space", "overflow-x",
         "visibility", "opacity", "text-align"]
LAYOUT_JS = """(props) => Array.from(document.querySelectorAll('main *'))
  .filter((el) => !el.closest('.clipboard-copy-txt, script, style, .highlight-ipynb pre *'))
  .map((el) => { const r = el.getBoundingClientRect(); const s = getComputedStyle(el);
    return [el.tagName, Math.round(r.x), Math.round(r.y), Math.round(r.width),
            Math.round(r.height), ...props.map((p) => s.getPropertyValue(p))]; })"""
# Every character of the cells' code that shows: its text and style, and where it is drawn.
CODE_CHARS_JS = """() => {
  const out = [];
  const range = document.createRange();
  document.querySelectorAll('.highlight-ipynb pre').forEach((pre) => {
    const walker = document.createTreeWalker(pre, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const s = getComputedStyle(node.parentElement);
      const style = [s.color, s.fontWeight, s.fontStyle, s.textDecorationLine].join(' ');
      for (let i = 0; i < node.data.length; i++) {
        if (!node.data[i].trim()) continue;
        range.setStart(node, i);
        range.setEnd(node, i + 1);
        const r = range.getBoundingClientRect();
        out.push([node.data[i] + ' ' + style, r.x, r.y]);
      }
    }
  });
  return out;
}"""


@pytest.fixture(scope="module")
def converted() -> str:
    convert = pytest.importorskip("mkdocs_jupyter.convert")
    return convert.nb2html(str(NOTEBOOK), execute=False, kernel_name="", theme="",
                           allow_errors=True, show_input=True, no_input=False, no_prompt=False,
                           remove_tag_config={}, highlight_extra_classes="",
                           include_requirejs=False, custom_mathjax_url="")


def _layout(browser, folder: Path, html: str, width: int) -> tuple[list, dict[str, list]]:
    """Every element's box and style, and the code's characters in each scheme."""
    folder.mkdir()
    url = write_page(folder, html, [], STYLES, theme=True)
    context = browser.new_context(viewport={"width": width, "height": 900})
    try:
        page = context.new_page()
        page.goto(url)
        layout = page.evaluate(LAYOUT_JS, PROPS)
        # colours change with a transition: read mid-way, they would differ at random
        page.add_style_tag(content="* { transition: none !important; }")
        chars = {}
        for scheme in ("default", "slate"):
            page.evaluate(f"document.body.setAttribute('data-md-color-scheme', '{scheme}')")
            chars[scheme] = page.evaluate(CODE_CHARS_JS)
        return layout, chars
    finally:
        context.close()


@pytest.mark.slow
def test_the_slim_page_lays_out_and_styles_every_element_as_nbconvert_does(
        browser, tmp_path, converted, width=375) -> None:
    thin = slim(converted)
    assert len(thin) < 0.5 * len(converted)
    before, before_chars = _layout(browser, tmp_path / "before", converted, width)
    after, after_chars = _layout(browser, tmp_path / "after", thin, width)
    assert len(before) == len(after) > 1_000
    differ = [(a, b) for a, b in zip(before, after, strict=True) if a != b]
    assert not differ, f"{len(differ)} elements differ, first: {differ[0]}"
    for scheme, chars in before_chars.items():
        assert len(chars) > 20_000
        # a run of text cut in fewer pieces may place a glyph a fraction of a pixel apart
        differ = [(a, b) for a, b in zip(chars, after_chars[scheme], strict=True)
                  if a[0] != b[0] or abs(a[1] - b[1]) >= 0.5 or abs(a[2] - b[2]) >= 0.5]
        assert not differ, f"{scheme}: {len(differ)} characters differ, first: {differ[0]}"


def test_the_slim_page_has_a_third_fewer_elements(converted) -> None:
    """Each element is styled and laid out on every load of the page (Lighthouse's DOM size)."""
    count = len(re.findall(r"<[a-zA-Z]", converted))
    assert len(re.findall(r"<[a-zA-Z]", slim(converted))) < 0.7 * count


@pytest.mark.slow
def test_a_copy_button_copies_its_cells_source(browser, tmp_path, converted) -> None:
    sources = dict(re.findall(r'<div class="clipboard-copy-txt" id="(cell-\d+)">(.*?)</div>',
                              converted, re.S))
    url = write_page(tmp_path, slim(converted), [], STYLES, theme=True)
    context = browser.new_context(permissions=["clipboard-read", "clipboard-write"])
    try:
        page = context.new_page()
        page.goto(url)
        cell, source = next(iter(sources.items()))
        page.locator(f'clipboard-copy[for="{cell}"]').click()
        copied = page.evaluate("navigator.clipboard.readText()")
        assert copied.rstrip("\n") == html.unescape(source).rstrip("\n")
    finally:
        context.close()
