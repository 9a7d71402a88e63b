"""Every formula rendered when the site is built: KaTeX, run in an embedded V8 (mini-racer).

The reader's browser gets HTML (for the eye) and MathML (for screen readers: KaTeX's
`htmlAndMathml` output) and one stylesheet with its fonts (docs/assets/katex/); no math engine
runs in the page. KaTeX's script is vendored in explainer_tools/website/katex/ (MIT licence beside
it); mini-racer comes from PyPI as a wheel with V8 inside, so a fresh machine needs nothing but
`pip install`.

What is rendered, after the reader features have numbered the formulas (`\\label` -> `\\tag`):

- `<span class="arithmatex">\\( .. \\)</span>` and `<div class="arithmatex">\\[ .. \\]</div>`
  (pymdownx.arithmatex, generic mode), the wrapper kept;
- the formulas of a notebook's Markdown cells (`.jp-RenderedMarkdown`: `$ .. $`, `$$ .. $$`),
  found by the shared Markdown math finder (`markdown.math_spans`), outside `<pre>`/`<code>`;
- the equation previews: each `<a class="xref" data-tex="..">` gets `data-preview="KEY"` and the
  page one `<template data-preview-for="KEY">` holding the rendered formula, which reader.js
  shows in the card.

`\\href` is trusted only for an in-page anchor (`#out-..`, the number links inside formulas).
A formula KaTeX cannot render fails the build, naming the page, the line of the page's source
that holds it, and KaTeX's message: the book ships no half-rendered page.

Rendered formulas are memoised in this process (`make serve` re-renders only formulas it has not
seen) and in `.cache/katex/` between builds (keyed by KaTeX's version and the options).

    >>> "katex-mathml" in render_formulas([("x^2", False)])[0]
    True
"""

from __future__ import annotations

import atexit
import hashlib
import html
import json
import re
import threading
from pathlib import Path

from explainer_tools.layout import DEFAULT
from explainer_tools.markdown import MathSpan, math_spans

KATEX_JS = Path(__file__).resolve().parent / "katex" / "katex.min.js"
CACHE_DIR = DEFAULT.cache_dir / "katex"
KATEX_CSS = "assets/katex/katex.min.css"  # the site's copy (docs/assets/katex/)

# The options every formula is rendered with. Part of the cache key.
_OPTIONS_JS = r"""{
  output: "htmlAndMathml",
  throwOnError: true,
  strict: "ignore",
  trust: (context) => context.command === "\\href" && /^#[A-Za-z0-9_.:-]+$/.test(context.url),
}"""
_RENDER_JS = """
function explainerRender(items) {
  const options = OPTIONS;
  return JSON.stringify(items.map(([tex, display]) => {
    try {
      return {html: katex.renderToString(tex, Object.assign({displayMode: display}, options))};
    } catch (error) {
      return {error: String(error && error.message || error)};
    }
  }));
}
""".replace("OPTIONS", _OPTIONS_JS)
_UNTRUSTED = 'mathcolor="#cc0000"'  # KaTeX's mark for a command it refused (an untrusted \href)


class MathError(ValueError):
    """A formula KaTeX cannot render: the message names page and line when the caller knows."""

    def __init__(self, message: str, tex: str = "") -> None:
        super().__init__(message)
        self.tex = tex


class _Engine:
    """One V8 context with KaTeX loaded, created on first use and closed at exit."""

    def __init__(self) -> None:
        self._context = None
        self._lock = threading.Lock()
        self.version = ""

    def render(self, items: list[tuple[str, bool]]) -> list[dict[str, str]]:
        with self._lock:
            if self._context is None:
                from py_mini_racer import MiniRacer  # the wheel `mini-racer`

                context = MiniRacer()
                context.eval(KATEX_JS.read_text(encoding="utf-8"))
                context.eval(_RENDER_JS)
                self.version = str(context.eval("katex.version"))
                self._context = context
                atexit.register(self.close)  # an open context keeps the interpreter alive
            return json.loads(self._context.call("explainerRender", items))

    def close(self) -> None:
        with self._lock:
            if self._context is not None:
                self._context.close()
                self._context = None


# Module-level, not the plugin's: they last the process, so a rebuild of `make serve` (a new
# plugin each time) starts no new V8 and renders only the formulas it has not seen.
_ENGINE = _Engine()
_MEMO: dict[tuple[str, bool], str] = {}
_disk_loaded = False
_disk_dirty = False


def _cache_file() -> Path:
    digest = hashlib.sha256(KATEX_JS.read_bytes() + _RENDER_JS.encode()).hexdigest()[:16]
    return CACHE_DIR / f"formulas-{digest}.json"


def _load_disk_cache() -> None:
    global _disk_loaded
    if _disk_loaded:
        return
    _disk_loaded = True
    try:
        stored = json.loads(_cache_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    for tex, display, rendered in stored if isinstance(stored, list) else []:
        _MEMO.setdefault((tex, bool(display)), rendered)


def save_cache() -> None:
    """Write the memo to .cache/katex/ (after a build), if it grew."""
    global _disk_dirty
    if not _disk_dirty:
        return
    try:
        CACHE_DIR.mkdir(parents=True, exist_ok=True)
        rows = sorted([tex, display, rendered] for (tex, display), rendered in _MEMO.items())
        _cache_file().write_text(json.dumps(rows), encoding="utf-8")
        _disk_dirty = False
    except OSError:
        pass  # a read-only checkout builds without the cache


def render_formulas(items: list[tuple[str, bool]]) -> list[str]:
    """[(TeX, display?)] -> KaTeX's HTML for each; MathError names the first that fails."""
    global _disk_dirty
    _load_disk_cache()
    missing = sorted({item for item in items if item not in _MEMO})
    if missing:
        for item, result in zip(missing, _ENGINE.render(missing), strict=True):
            if "error" in result:
                raise MathError(f"{result['error']} in formula {item[0]!r}", item[0])
            if _UNTRUSTED in result["html"]:
                raise MathError(f"a command KaTeX does not trust (\\href to an outside address?) "
                                f"in formula {item[0]!r}", item[0])
            _MEMO[item] = result["html"]
        _disk_dirty = True
    return [_MEMO[item] for item in items]


# arithmatex's HTML, not Markdown (`markdown.math_spans` reads Markdown and notebook cells).
# Regexes, not html_tokens, because each reads one writer's fixed shape: arithmatex's span and
# div, nbconvert's Markdown cell and its pre/code, crossref's own `<a class="xref">`.
INLINE = re.compile(r'(<span class="arithmatex"[^>]*>)\\\((.*?)\\\)(</span>)', re.S)
DISPLAY = re.compile(r'(<div class="arithmatex"[^>]*>)\s*\\\[(.*?)\\\]\s*(</div>)', re.S)
NOTEBOOK_CELL = re.compile(r'(<div class="jp-RenderedHTMLCommon jp-RenderedMarkdown[^"]*"[^>]*>)'
                           r'(.*?)(</div>)', re.S)
NOTEBOOK_SKIP = re.compile(r"<(pre|code)\b.*?</\1>", re.S)
XREF_TEX = re.compile(r'(<a class="xref"[^>]*?) data-tex="([^"]*)"')


def _notebook_formula(text: str, span: MathSpan) -> tuple[str, bool]:
    """(TeX, display) of a formula of a notebook cell's HTML (the shared Markdown math finder)."""
    return html.unescape(text[span.body_start:span.body_end]).strip(), span.display


def _line_of(tex: str, source: str) -> int | None:
    """The line of the page's source that holds the start of a formula, if it can be found."""
    for probe in (tex.strip(), tex.strip().splitlines()[0].strip() if tex.strip() else ""):
        if probe:
            at = source.find(probe)
            if at >= 0:
                return source.count("\n", 0, at) + 1
    return None


def locate(error: MathError, page: str, source: str) -> str:
    """The error's message with the page and the line of its source that holds the formula."""
    line = _line_of(error.tex, source) if error.tex else None
    where = f"docs/{page}:{line}" if line else f"docs/{page}"
    return f"{where}: formula not rendered at build time: {error}"


def _preview_key(tex: str) -> str:
    return hashlib.sha1(tex.encode("utf-8")).hexdigest()[:10]


def render_page(html_text: str) -> str:
    """Every formula of one page's HTML rendered (MathError for one KaTeX cannot render:
    `locate` names its page and line)."""
    found: list[tuple[str, bool]] = []
    for match in INLINE.finditer(html_text):
        found.append((html.unescape(match.group(2)).strip(), False))
    for match in DISPLAY.finditer(html_text):
        found.append((html.unescape(match.group(2)).strip(), True))
    cells = list(NOTEBOOK_CELL.finditer(html_text))
    for cell in cells:
        found += [_notebook_formula(text, span)
                  for text in [NOTEBOOK_SKIP.sub("", cell.group(2))] for span in math_spans(text)]
    previews = [html.unescape(m.group(2)) for m in XREF_TEX.finditer(html_text)]
    found += [(tex, True) for tex in previews]
    if not found:
        return html_text
    rendered = dict(zip(found, render_formulas(found), strict=True))

    def inline(match: re.Match[str]) -> str:
        tex = html.unescape(match.group(2)).strip()
        return match.group(1) + rendered[(tex, False)] + match.group(3)

    def display(match: re.Match[str]) -> str:
        tex = html.unescape(match.group(2)).strip()
        return match.group(1) + rendered[(tex, True)] + match.group(3)

    def formulas(text: str) -> str:
        pieces, last = [], 0
        for span in math_spans(text):
            pieces += [text[last:span.start], rendered[_notebook_formula(text, span)]]
            last = span.end
        return "".join(pieces) + text[last:]

    def notebook_math(text: str) -> str:
        pieces, last = [], 0
        for skip in NOTEBOOK_SKIP.finditer(text):
            pieces += [formulas(text[last:skip.start()]), skip.group(0)]
            last = skip.end()
        return "".join(pieces) + formulas(text[last:])

    html_text = INLINE.sub(inline, html_text)
    html_text = DISPLAY.sub(display, html_text)
    if cells:
        html_text = NOTEBOOK_CELL.sub(
            lambda m: m.group(1) + notebook_math(m.group(2)) + m.group(3), html_text)
    if previews:
        html_text = XREF_TEX.sub(
            lambda m: f'{m.group(1)} data-tex="{m.group(2)}" '
                      f'data-preview="{_preview_key(html.unescape(m.group(2)))}"', html_text)
        templates = "".join(
            f'<template data-preview-for="{_preview_key(tex)}">{rendered[(tex, True)]}</template>'
            for tex in sorted(set(previews)))
        block = f'<div class="xref-previews" hidden data-search-exclude>{templates}</div>'
        # Inside the article: Material's instant navigation swaps the article, not the body.
        at = html_text.rfind("</article>")
        at = at if at >= 0 else len(html_text)
        html_text = html_text[:at] + block + html_text[at:]
    return html_text
