"""The cut of KaTeX's AMS font (explainer.css, docs/stylesheets/fonts/): blackboard capitals draw
as with KaTeX's whole font; a page that writes only those letters does not load the whole font
(28 kB: it put Chapter 5 over the 1-MB page budget); a page that writes another AMS character
loads it and draws that character as before. No site build needed.

The cut's glyphs are the whole font's (outlines, hinting programs, advance widths, vertical
metrics: compared with fontTools when it was made), and the text's box is the same to the
pixel; the rasterizer still anti-aliases a few edge pixels differently (0.2% of them by more
than a quarter of full scale, none by more than 100 of 255), a hinting that depends on the rest
of the font [INFERRED], so the drawings are compared within that: a fallback font, or another
letter, differs in most of the box."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PIL import Image, ImageChops
from standalone_kit import write_page

pytestmark = pytest.mark.browser

KATEX = "assets/katex/katex.min.css"
CUT = "CENPQRZ"
# the site's formulas as KaTeX writes \mathbb R; U+6B is \Bbbk, outside the cut
FORMULA = ("<p><span class='katex' style='font-size: 64px'><span class='mord mathbb' id='f'>"
           "{text}</span></span></p>")
# KaTeX_AMS's faces: each one's unicode-range and whether the browser has loaded it.
FACES_JS = """() => document.fonts.ready.then(() => Array.from(document.fonts)
  .filter((face) => face.family.replace(/"/g, '') === 'KaTeX_AMS')
  .map((face) => [face.unicodeRange, face.status]))"""


@pytest.fixture(scope="module")
def tab(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 900, "height": 300})
    yield context.new_page()
    context.close()


def _draw(tab: Any, folder: Path, text: str, site_css: bool) -> tuple[Image.Image, list]:
    folder.mkdir()
    styles = [KATEX, "stylesheets/explainer.css"] if site_css else [KATEX]
    tab.goto(write_page(folder, FORMULA.format(text=text), [], styles))
    faces = tab.evaluate(FACES_JS)
    tab.locator("#f").screenshot(path=folder / "f.png")
    return Image.open(folder / "f.png").convert("L"), faces


def _same_drawing(one: Image.Image, other: Image.Image) -> bool:
    """Same box, and at most 1% of its pixels more than a quarter of full scale apart."""
    if one.size != other.size:
        return False
    diff = ImageChops.difference(one, other).tobytes()  # one byte a pixel (mode L)
    return sum(1 for value in diff if value > 64) <= 0.01 * len(diff)


def test_blackboard_capitals_draw_as_with_the_whole_font(tab, tmp_path) -> None:
    cut, faces = _draw(tab, tmp_path / "cut", CUT, site_css=True)
    whole, _ = _draw(tab, tmp_path / "whole", CUT, site_css=False)
    assert _same_drawing(cut, whole)
    other, _ = _draw(tab, tmp_path / "other", "CENPQRR", site_css=False)
    assert not _same_drawing(cut, other)  # the comparison tells one letter from another
    loaded = [rng for rng, status in faces if status == "loaded"]
    assert loaded and all(rng != "U+0-10FFFF" for rng in loaded), faces  # the cut only


def test_another_ams_character_loads_the_whole_font_and_draws_as_before(tab, tmp_path) -> None:
    cut, faces = _draw(tab, tmp_path / "cut", "R\u006b", site_css=True)
    whole, _ = _draw(tab, tmp_path / "whole", "R\u006b", site_css=False)
    assert _same_drawing(cut, whole)
    assert ("U+0-10FFFF", "loaded") in [tuple(f) for f in faces], faces
