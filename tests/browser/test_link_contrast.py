"""Links keep 4.5:1 against what is behind them, in both colour schemes, at rest, under the
pointer and with the keyboard's focus: in running text, inside inline code, around inline code,
and in a code block.

Material's dark scheme colours an indigo site's links #5488e8, 4.13:1 on its code background,
and colours a link under the pointer or with focus in its accent, #526cfe: 3.78:1 on the page's
background. The page here loads Material's own stylesheets (from the installed theme) and the
site's, with the palette attributes Material writes on <body>; no site build needed.
"""

from __future__ import annotations

import pytest
from standalone_kit import write_page

pytestmark = pytest.mark.browser

BODY = (
    "<p>Text with <a id='prose' href='#a'>a link in it</a>.</p>"
    "<p>See <code><a id='in-code' href='#b'>ch22_markov.py</a></code> and "
    "<a id='around-code' href='#c'><code>ch22_seeds.py</code></a>.</p>"
    "<pre><code><a id='in-block' href='#d'>[1] a line of output</a></code></pre>"
)
CONTRAST_JS = r"""(id) => {
  const rgba = (c) => { const m = c.match(/[\d.]+/g).map(Number);
                        return [m[0], m[1], m[2], m.length > 3 ? m[3] : 1]; };
  const over = (top, bottom) => top.slice(0, 3).map((v, i) => v * top[3] + bottom[i] * (1 - top[3]))
    .concat([1]);
  const lum = (c) => { const f = (v) => { v /= 255;
    return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return 0.2126 * f(c[0]) + 0.7152 * f(c[1]) + 0.0722 * f(c[2]); };
  const link = document.getElementById(id);
  const text = link.querySelector("code") || link;
  const layers = [];
  for (let e = text; e; e = e.parentElement) {
    const c = rgba(getComputedStyle(e).backgroundColor);
    if (c[3] > 0) { layers.push(c); if (c[3] >= 1) break; }
  }
  let back = [255, 255, 255, 1];
  for (const c of layers.reverse()) back = over(c, back);
  const fore = over(rgba(getComputedStyle(text).color), back);
  const [a, b] = [lum(fore), lum(back)];
  return {ratio: (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05),
          colour: getComputedStyle(text).color};
}"""


@pytest.mark.parametrize("scheme", ["default", "slate"])
def test_links_keep_their_contrast(browser, tmp_path, scheme) -> None:
    url = write_page(tmp_path, BODY, [], ["stylesheets/explainer.css", "stylesheets/reader.css"],
                     theme=True, scheme=scheme)
    context = browser.new_context(viewport={"width": 800, "height": 600})  # type: ignore[attr-defined]
    try:
        page = context.new_page()
        page.goto(url)
        page.add_style_tag(content="*, *::before, *::after { transition: none !important; }")
        low = []
        for link in ("prose", "in-code", "around-code", "in-block"):
            states = {"at rest": lambda: page.mouse.move(0, 0)}
            states["under the pointer"] = lambda link=link: page.hover(f"#{link}")
            states["focused"] = lambda link=link: (page.mouse.move(0, 0),
                                                   page.focus(f"#{link}"))
            for state, enter in states.items():
                enter()
                got = page.evaluate(CONTRAST_JS, link)
                if got["ratio"] < 4.5:
                    low.append(f"{link} {state}: {got['ratio']:.2f}:1 ({got['colour']})")
                page.evaluate("document.activeElement && document.activeElement.blur()")
        assert not low, f"{scheme} scheme: " + "; ".join(low)
    finally:
        context.close()
