"""The page as the browser starts it: what made a phone's load of a page slow, fixed at build time
(`on_post_page`, each a pure function of the page's HTML).

- **Links out of the tab order written in the page.** Number links and links to output lines
  (a chapter holds hundreds) leave the tab order (`tabindex="-1"`, `out_of_tab_order`): written
  at build time, the reader's script finds them done, where setting them at load restyled each
  link before Material's first measure of the page.
- **The search index fetched after the page has loaded** (`search_index_after_load`), not as
  Material starts (about 0.15 s into a load here): 265 kB compressed that no one needs before
  opening the search. When the first paint came after that request had started, Lighthouse's
  phone simulation counted the index before the largest paint (Chapter 22: 3.9 s instead of
  2.1-2.3 s, a score of 84-88 in two or three runs of eight); a script in the head holds that
  one request until the `load` event.
- **Addresses in the head made absolute before the page is first styled** (`head_links_resolved`).
  Material's instant navigation, when it starts, makes every relative address in the page
  absolute (`el.href = el.href`); a stylesheet whose address is set is loaded and applied again,
  and on Chapter 5 that restyled and laid out the whole page inside Material's start-up. A script
  after the head's links does the same before anything is styled; Material then finds them
  absolute and leaves them alone.

- **The light and dark switch without whole-page restyles** (`palette_without_restyles`):
  Material's palette component, when it starts, sets the palette again, adds its colour tags and
  reads the header's colours, restyling the whole page. The switch's form is handed to
  docs/javascripts/reader.js, which behaves the same (device preference on a first visit, the
  choice stored for the next page, Enter) and touches nothing at load that is already right.
  Side by side, 9 loads each at a phone's viewport, the renderer's main thread spent 43 ms more
  CPU with Material's switch on Chapter 5, 138 ms on the notebook's page and 30 ms on the home
  page (more in every pair on the first two); on a phone four times slower, as Lighthouse
  simulates one, that is 120-550 ms, over the 100 ms a reader notices.
"""

from __future__ import annotations

import re
from pathlib import Path

# A full page is read by patterns, not by the tokenizer (explainer_tools.html_tokens): parsing
# every page's whole HTML twice more would cost a warm build seconds. Each pattern reads a tag
# whole or an attribute in either quote (A_TAG, CLASS_ATTR, HREF_ATTR), or a fixed shape: the
# `<img>` Python-Markdown writes for a chapter figure, tags stripped only to count text.
CLASS_ATTR = re.compile(r"""\bclass\s*=\s*(?:"([^"]*)"|'([^']*)')""")  # either quote

FIGURE_IMG = re.compile(r'<img (?P<attrs>[^>]*?)'
                        r'src="(?P<src>[^"]*assets/fig/(?P<name>[\w.-]+\.png))"(?P<rest>[^>]*)>')


FIRST_SCREEN_TEXT = 2_500  # characters of text after the page's title: about two phone screens


def _text_before(page_html: str, end: int) -> int:
    """Characters of text between the page's title (its first <h1>, else the start) and `end`."""
    start = max(page_html.find("<h1"), 0)
    return len(re.sub(r"<[^>]*>", "", page_html[start:end]).strip()) if start < end else 0


def lazy_figures(page_html: str, figure_dir: Path) -> str:
    """Chapter figures (`assets/fig/*.png`) after the first loaded when the reader scrolls near
    them (`loading="lazy"`), decoded off the main thread, and with their width and height, read
    from the PNG, so the page keeps its layout while they arrive. A figure whose file is
    missing is left as it is (the link check reports it).

    >>> import tempfile, struct, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "ch01_a.png").write_bytes(b"\\x89PNG\\r\\n\\x1a\\n" + b"\\0\\0\\0\\rIHDR"
    ...                                       + struct.pack(">II", 825, 1110))
    >>> two = '<img alt="A" src="../assets/fig/ch01_a.png">' * 2
    >>> lazy_figures(two, folder).split("><")[1][42:]
    ' width="825" height="1110" loading="lazy" decoding="async">'
    >>> "lazy" in lazy_figures(two, folder).split("><")[0]
    False
    >>> far = "<h1>T</h1><p>" + "word " * 600 + "</p>" + two
    >>> "lazy" in lazy_figures(far, folder).split("><")[2]
    True
    """
    seen: list[str] = []

    def add(match: re.Match[str]) -> str:
        tag = match.group(0)
        path = figure_dir / match.group("name")
        if "loading=" in tag or not path.is_file():
            return tag
        with path.open("rb") as handle:
            header = handle.read(24)
        width, height = int.from_bytes(header[16:20], "big"), int.from_bytes(header[20:24], "big")
        # the first figure may be the largest thing on the first screen: not deferred unless
        # more than a phone screen or two of text comes before it (then it would only compete
        # with what the first screen needs)
        far = _text_before(page_html, match.start()) > FIRST_SCREEN_TEXT
        lazy = ' loading="lazy"' if seen or far else ""
        seen.append(match.group("name"))
        return (f'<img {match.group("attrs")}src="{match.group("src")}"{match.group("rest")}'
                f' width="{width}" height="{height}"{lazy} decoding="async">')

    return FIGURE_IMG.sub(add, page_html)



# An <a> tag, its attributes read whole (a quoted value may hold ">").
A_TAG = re.compile(r"""<a\b(?P<attrs>(?:[^>"']|"[^"]*"|'[^']*')*)>""")
HREF_ATTR = re.compile(r"""\shref=(?:"([^"]*)"|'([^']*)')""")


def _attr(pattern: re.Pattern[str], attrs: str) -> str:
    found = pattern.search(attrs)
    return (found.group(1) or found.group(2) or "") if found else ""


def out_of_tab_order(page_html: str) -> str:
    """Number links and links to output lines leave the tab order, as the reader's script rule
    says (`a.num, a[href*='#out-'], a[href*='-out-']`, docs/javascripts/reader.js); a link with
    a tabindex of its own keeps it.

    >>> out_of_tab_order('<a class="num" href="#L1">2</a> <a href="#x">x</a>')
    '<a class="num" href="#L1" tabindex="-1">2</a> <a href="#x">x</a>'
    >>> out_of_tab_order('<a href="../p/#p-out-b-L2" title="a > b">3</a>')
    '<a href="../p/#p-out-b-L2" title="a > b" tabindex="-1">3</a>'
    >>> out_of_tab_order('<a class="numeral" href="#y">4</a><a class="num" tabindex="0">5</a>')
    '<a class="numeral" href="#y">4</a><a class="num" tabindex="0">5</a>'
    """
    def leave(match: re.Match[str]) -> str:
        attrs = match.group("attrs")
        if re.search(r"\stabindex=", attrs):
            return match.group(0)
        href = _attr(HREF_ATTR, attrs)
        output_line = "-out-" in href or "#out-" in href
        if "num" in _attr(CLASS_ATTR, attrs).split() or output_line:
            return f'<a{attrs} tabindex="-1">'
        return match.group(0)

    return A_TAG.sub(leave, page_html)


# Run where the head ends: every stylesheet above it has loaded (a script waits for them).
RESOLVE_HEAD_LINKS = ('<script>document.querySelectorAll("link[href]")'
                      '.forEach(function (link) { link.href = link.href; })</script>')


def head_links_resolved(page_html: str) -> str:
    """The head's links given their absolute address before the page is first styled (module
    docstring); a page without a head, or with the script already, is left as it is.

    >>> head_links_resolved('<head><link rel="stylesheet" href="a.css"></head><body>')[-35:]
    'link.href; })</script></head><body>'
    >>> page = head_links_resolved("<head></head>")
    >>> head_links_resolved(page) == page, head_links_resolved("<p>x</p>")
    (True, '<p>x</p>')
    """
    return _where_head_ends(page_html, RESOLVE_HEAD_LINKS)


def _where_head_ends(page_html: str, script: str) -> str:
    end = page_html.find("</head>")
    if end < 0 or script in page_html[:end]:
        return page_html
    return page_html[:end] + script + page_html[end:]


# Material asks for the search index with an XMLHttpRequest (`open`, then `send`) as it starts;
# the request is sent once the page has loaded, or at once if it has (a request aborted before
# then is not sent). Any other request goes as it would.
SEARCH_INDEX_AFTER_LOAD = (
    "<script>(function (proto) { var open = proto.open, send = proto.send; "
    "proto.open = function (method, url) { this.explainerUrl = String(url); "
    "return open.apply(this, arguments); }; "
    "proto.send = function () { var request = this, args = arguments; "
    'if (document.readyState === "complete" || '
    '!/\\/search\\/search_index\\.json$/.test(request.explainerUrl || "")) '
    "{ return send.apply(request, args); } "
    'addEventListener("load", function () { setTimeout(function () { '
    "if (request.readyState === 1) { send.apply(request, args); } }, 0); }, {once: true}); "
    "}; })(XMLHttpRequest.prototype)</script>")


def search_index_after_load(page_html: str) -> str:
    """The search index fetched once the page has loaded, not while it is first painted (module
    docstring); a page without a head, or with the script already, is left as it is.

    >>> page = search_index_after_load("<head></head><body>")
    >>> page.endswith("</script></head><body>"), search_index_after_load(page) == page
    (True, True)
    """
    return _where_head_ends(page_html, SEARCH_INDEX_AFTER_LOAD)


MATERIAL_PALETTE = '<form class="md-header__option" data-md-component="palette">'


def palette_without_restyles(page_html: str) -> str:
    """The header's light and dark switch handed from Material's palette component to the
    reader's script (module docstring): Material mounts only what names a component.

    >>> palette_without_restyles(
    ...     '<form class="md-header__option" data-md-component="palette"><input>')
    '<form class="md-header__option" data-reader-palette><input>'
    """
    return page_html.replace(MATERIAL_PALETTE,
                             '<form class="md-header__option" data-reader-palette>', 1)
