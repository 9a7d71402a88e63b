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
import re

from explainer_tools.website.html_text import FLAT_SKIPPED, TAG_OR_COMMENT

SRC_ATTR = re.compile(r"""\bsrc\s*=\s*(?:"([^"]*)"|'([^']*)')""")


def image_source(attrs: str) -> str | None:
    """The `src` of an `<img>` from its attribute text, unescaped; None when it has none."""
    match = SRC_ATTR.search(attrs)
    if not match:
        return None
    return html.unescape(match.group(1) if match.group(1) is not None else match.group(2))


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
    pieces: list[str] = []
    inside = {"a": 0, "button": 0}
    last = 0
    for match in TAG_OR_COMMENT.finditer(html_text):
        if match.start() < last:  # within a flat element copied whole
            continue
        closing, name, attrs = match.group(1), (match.group(2) or "").lower(), match.group(3)
        pieces.append(html_text[last : match.start()])
        last = match.end()
        tag = match.group(0)
        if name in FLAT_SKIPPED and not closing and not attrs.rstrip().endswith("/"):
            end = html_text.find(f"</{name}", last)
            last = len(html_text) if end < 0 else end
            pieces.append(tag + html_text[match.end() : last])
            continue
        if name in inside:
            inside[name] += -1 if closing else 1
        src = image_source(attrs) if name == "img" and not closing else None
        if src is not None and not any(inside.values()):
            tag = zoom_control(tag, src)
        pieces.append(tag)
    pieces.append(html_text[last:])
    return "".join(pieces)
