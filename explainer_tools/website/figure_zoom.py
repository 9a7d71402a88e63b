"""Figure zoom without a lightbox library: each image of a page becomes its own control.

At build time every `<img>` that is not already inside a link is wrapped in one: a link to the
image file itself (`<a class="zoom" href=...>`), so that without JavaScript a click or Enter opens
the figure full size in the browser. An image that carries its data in its `src` (the companion
notebook's plots, `data:` URLs) gets a `<button class="zoom">` instead: a link would copy the whole
image into the page a second time, and browsers refuse to open `data:` URLs as pages anyway.

`docs/javascripts/reader.js` turns a click on either into a native `<dialog>` that shows the image
at the size of the window (Escape, a click or the close button end it; the browser returns focus
to the figure). Native dialogs need no script of their own for focus and Escape, which is why
this replaces a lightbox plugin (70 kB of script and style on every page).

    >>> zoom_figures('<p><img alt="a" src="f.png" /></p>')
    '<p><a class="zoom" href="f.png" aria-haspopup="dialog"><img alt="a" src="f.png" /></a></p>'
    >>> zoom_figures('<a href="x"><img src="f.png"></a>')
    '<a href="x"><img src="f.png"></a>'
"""

from __future__ import annotations

import html

from explainer_tools.html_tokens import splice, tokens
from explainer_tools.website.html_text import FLAT_SKIPPED


def zoom_control(tag: str, src: str) -> str:
    """The image tag `tag` wrapped in its zoom control: a link to `src`, or a button when the
    image is its own data."""
    if src.startswith("data:"):
        return ('<button type="button" class="zoom" aria-haspopup="dialog" '
                f'aria-label="Show the figure full size">{tag}</button>')
    href = html.escape(src, quote=True)
    return f'<a class="zoom" href="{href}" aria-haspopup="dialog">{tag}</a>'


def zoom_figures(html_text: str) -> str:
    """`html_text` with every image outside a link, button and code wrapped in its zoom control."""
    if "<img" not in html_text.lower():  # most pages: nothing to read
        return html_text
    edits: list[tuple[int, int, str]] = []
    inside = {"a": 0, "button": 0}
    for token in tokens(html_text, raw=FLAT_SKIPPED):  # code is one text token
        if token.name in inside:
            inside[token.name] += -1 if token.kind == "end" else 1
        elif token.kind == "start" and token.name == "img" and not any(inside.values()):
            src = token.attrs.get("src")
            if src is not None:
                tag = html_text[token.start : token.end]
                edits.append((token.start, token.end, zoom_control(tag, src)))
    return splice(html_text, edits)
