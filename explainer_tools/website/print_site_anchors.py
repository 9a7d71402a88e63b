"""The print-site plugin's whole-book page (`print_page/`, the source of `make pdf`) with every
in-book link finding its target.

The plugin gives each page's part of the whole-book page its own prefix: it prefixes every
in-book link (`#x` becomes `#page-x`), but its anchor rewriting (`update_anchor_ids`) prefixed
the ids of h1-h6, sup and li only, so links to equations, figures, output lines and glossary
entries pointed nowhere there; and its scan is quadratic in a line's length, while a paragraph
of rendered formulas is one long line (a warm build took 0.3-0.4 s more CPU with it).
`update_anchor_ids` here prefixes every id in one pass (inputs excepted: the plugin's
`fix_tabbed_content` does those), the references to ids inside the page (aria-labelledby,
aria-describedby, aria-controls, headers) and the links inside formulas (`\\href{#..}`, still
TeX at that point).
Links to `data:` URLs (the notebook's figures) are left alone instead of being made into
anchors (`_keeping_data_urls`). `make pdf` checks that every in-book link finds its target.

Each page's part is also kept in this process by its arguments (`memoised_page_part`):
`make serve` rewrites only the parts of the pages an edit changed (rewriting them all takes
about 0.5 s of CPU).
"""

from __future__ import annotations

import re
from typing import Any

from explainer_tools.website import build_cache

# Patterns, not the tokenizer (explainer_tools.html_tokens): parsing the parts of the whole-book
# page (2.3 MB) costs a warm build 0.4 s more than these. They read the fixed shape of ids and
# id references as Python-Markdown, Material and the tools write them (double-quoted).
ANCHOR_TAGS = re.compile(r'<(?!input\b)([a-z][a-z0-9-]*)(\s[^>]*?)?\sid="([^"]*)"', re.I)
TEX_HREF = re.compile(r"\\href\{#([^}]*)\}")  # a link inside a formula, still TeX here
ID_REFERENCES = re.compile(r'\s(aria-labelledby|aria-describedby|aria-controls|headers)="([^"]*)"')


def update_anchor_ids(page_html: str, page_key: str) -> str:
    """`id="x"` -> `id="KEY-x"` on every element but `<input>`, and the page's references to
    ids likewise, as the plugin's link rewriting expects (module docstring): one pass, so
    linear in a line's length.

    >>> update_anchor_ids('<h2 id="a">A</h2><div id="b"></div><li class="c" id="d">', "p")
    '<h2 id="p-a">A</h2><div id="p-b"></div><li class="c" id="p-d">'
    >>> update_anchor_ids('<nav aria-labelledby="t u"><input id="__tabbed_1">', "p")
    '<nav aria-labelledby="p-t p-u"><input id="__tabbed_1">'
    >>> update_anchor_ids(r'<span class="arithmatex">\\(x = {\\href{#out-s-L1}{2}}\\)</span>', "p")
    '<span class="arithmatex">\\\\(x = {\\\\href{#p-out-s-L1}{2}}\\\\)</span>'
    """
    page_html = ANCHOR_TAGS.sub(
        lambda m: f'<{m.group(1)}{m.group(2) or ""} id="{page_key}-{m.group(3)}"', page_html)
    page_html = TEX_HREF.sub(lambda m: f"\\href{{#{page_key}-{m.group(1)}}}", page_html)
    return ID_REFERENCES.sub(
        lambda m: f' {m.group(1)}="{" ".join(f"{page_key}-{i}" for i in m.group(2).split())}"',
        page_html)


def fix_print_site() -> None:
    """Install the fixes in the print-site plugin (from the site plugin's `on_config`; once per
    process); without the plugin, nothing."""
    try:
        from mkdocs_print_site_plugin import urls
    except ImportError:
        return
    urls.update_anchor_ids = update_anchor_ids
    if not getattr(urls.is_external, "explainer_data_urls", False):
        urls.is_external = _keeping_data_urls(urls.is_external)
    from mkdocs_print_site_plugin import renderer

    if not getattr(renderer.fix_internal_links, "explainer_cached", False):
        renderer.fix_internal_links = memoised_page_part(
            renderer.fix_internal_links, build_cache.Memo("print-site", "", directory=None))


def memoised_page_part(original: Any, memo: build_cache.Memo) -> Any:
    """print-site's `fix_internal_links` (`original`: one page's part of the whole-book page,
    its links and ids rewritten; string work only) memoised by its arguments, in this process:
    `make serve` rewrites only the parts of pages whose HTML changed."""
    def fix_internal_links(page_html: str, page_url: str, directory_urls: bool,
                           heading_number: Any) -> str:
        key = [page_html, page_url, bool(directory_urls), str(heading_number)]
        part = memo.get(key)
        if part is None:
            part = original(page_html, page_url, directory_urls, heading_number)
            memo.put(key, part)
        return part

    fix_internal_links.explainer_cached = True  # type: ignore[attr-defined]
    return fix_internal_links


def _keeping_data_urls(is_external: Any) -> Any:
    """print-site's test for links it leaves alone, with `data:` URLs added: the notebook's
    figures may link to their own data, and the plugin made such links into anchors of the
    whole-book page that point nowhere."""
    def keeps(url: str) -> bool:
        return url.startswith("data:") or is_external(url)

    keeps.explainer_data_urls = True  # type: ignore[attr-defined]
    return keeps
