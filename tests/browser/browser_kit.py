"""Shared machinery of the browser suite: build the site, serve it, find its pages, check them.

Nothing here drives a browser by itself except `load_page`; the checks are plain functions over
what a page load collected (`PageLoad`), so the fault-injection tests run exactly the checks the
per-page tests run. Every problem message starts with the page's path, so a failure names it.
"""

from __future__ import annotations

import functools
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from decimal import Decimal
from html.parser import HTMLParser
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urljoin, urlsplit

from explainer_tools.website.raw_tex import RAW_TEX_JS

REPO_ROOT = Path(__file__).resolve().parents[2]
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # Any host but the local server fails to resolve at once: nothing leaves the machine, and a
    # stray request shows up as a failed request instead of a timeout.
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 360, "height": 780}  # the narrowest common phone
MB = 1_000_000
BUDGET_DEFAULT = int(2.5 * MB)  # a chapter, an erratum, the home page
BUDGET_NOTEBOOK = 4 * MB
SEARCH_INDEX = "/search/search_index.json"
SEARCH_INDEX_BUDGET = int(1.5 * MB)  # the whole book's search index, downloaded once per visit
MATHJAX_TIMEOUT_MS = 20_000
# Build outputs that are not reader pages.
NOT_PAGES = ("404.html",)
NOT_PAGE_DIRS = ("assets", "search", "javascripts", "stylesheets",
                 "print_page")  # the whole book in one page: test_browser_features.py prints it


# --------------------------------------------------------------------------- building the site


def build_site(project: Path, dest: Path) -> Path:
    """`mkdocs build --strict` of `project` (a folder holding mkdocs.yml) into `dest`."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    # Not --quiet: mkdocs 1.6 then drops the warnings before --strict counts them, and passes.
    cmd = [
        sys.executable, "-m", "mkdocs", "build", "--strict",
        "-f", str(project / "mkdocs.yml"), "-d", str(dest),
    ]  # fmt: skip
    result = subprocess.run(cmd, cwd=project, env=env, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise RuntimeError(
            f"mkdocs build --strict failed in {project} (exit {result.returncode}):\n"
            f"{result.stdout}{result.stderr}"
        )
    return dest


def scratch_project(dest: Path, repo: Path = REPO_ROOT) -> Path:
    """A copy of the site's sources in `dest`: docs/ and mkdocs.yml copied (so a test may add
    pages), the other top-level folders the build may read linked to the originals."""
    dest.mkdir(parents=True, exist_ok=True)
    shutil.copytree(repo / "docs", dest / "docs")
    shutil.copy2(repo / "mkdocs.yml", dest / "mkdocs.yml")
    for name in ("explainer_tools", "explainer_code", "outputs"):
        if (repo / name).exists():
            (dest / name).symlink_to(repo / name, target_is_directory=True)
    return dest


def discover_pages(site: Path) -> list[str]:
    """URL paths ('' for the home page, 'chapters/05-x/' ...) of every HTML page of a built site,
    except the 404 page and the theme's and search's assets."""
    pages = []
    for html_file in sorted(site.rglob("*.html")):
        rel = html_file.relative_to(site)
        if rel.as_posix() in NOT_PAGES or rel.parts[0] in NOT_PAGE_DIRS:
            continue
        url = rel.as_posix()
        if url == "index.html":
            url = ""
        elif url.endswith("/index.html"):
            url = url[: -len("index.html")]
        pages.append(url)
    return pages


def page_label(url_path: str) -> str:
    return "/" + url_path


def budget_for(url_path: str) -> int:
    return BUDGET_NOTEBOOK if url_path.startswith("notebooks/") else BUDGET_DEFAULT


# --------------------------------------------------------------------------- serving it


class _Handler(SimpleHTTPRequestHandler):
    extensions_map = {  # noqa: RUF012 -- the base class declares it as a plain dict
        **SimpleHTTPRequestHandler.extensions_map,
        ".woff": "font/woff",
        ".woff2": "font/woff2",
        ".js": "text/javascript",
        ".json": "application/json",
        ".svg": "image/svg+xml",
    }

    def __init__(self, *args: Any, server_log: RequestLog, **kwargs: Any) -> None:
        self._log = server_log
        self._bytes = 0
        super().__init__(*args, **kwargs)

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def flush_headers(self) -> None:
        self._bytes += sum(len(chunk) for chunk in getattr(self, "_headers_buffer", []))
        super().flush_headers()

    def copyfile(self, source: Any, outputfile: Any) -> None:
        while chunk := source.read(64 * 1024):
            outputfile.write(chunk)
            self._bytes += len(chunk)

    def log_request(self, code: Any = "-", size: Any = "-") -> None:
        self._log.add(self.path, int(code) if str(code).isdigit() else 0, self)

    def handle_one_request(self) -> None:
        self._bytes = 0
        super().handle_one_request()
        self._log.settle(self)


@dataclass
class ServedRequest:
    path: str
    status: int
    bytes: int = 0


class RequestLog:
    """Every request the server answered, with the bytes it wrote (headers and body)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._entries: list[ServedRequest] = []
        self._open: dict[int, ServedRequest] = {}

    def add(self, path: str, status: int, handler: _Handler) -> None:
        with self._lock:
            entry = ServedRequest(path, status)
            self._entries.append(entry)
            self._open[id(handler)] = entry

    def settle(self, handler: _Handler) -> None:
        with self._lock:
            entry = self._open.pop(id(handler), None)
            if entry is not None:
                entry.bytes = handler._bytes

    def take(self) -> list[ServedRequest]:
        """The requests served since the last call, and forget them."""
        with self._lock:
            entries, self._entries = self._entries, []
            return entries


class QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        # A browser that cancels a request it no longer needs is not a server error.
        if isinstance(sys.exc_info()[1], ConnectionError):
            return
        super().handle_error(request, client_address)


class StaticServer:
    """The built site on http://127.0.0.1:<free port>/, served from a thread."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.log = RequestLog()
        handler = functools.partial(_Handler, directory=str(root), server_log=self.log)
        self._server = QuietServer(("127.0.0.1", 0), handler)
        self.origin = f"http://127.0.0.1:{self._server.server_address[1]}"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    def __enter__(self) -> StaticServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def url(self, url_path: str) -> str:
        return f"{self.origin}/{url_path}"


# --------------------------------------------------------------------------- loading a page

# Runs in the page once it has loaded: waits for the fonts, then measures what the checks need.
# Formulas are rendered when the site is built (KaTeX): no math engine may run in the page.
COLLECT_JS = r"""
async ({timeoutMs, openAll}) => {
  const out = {};
  const settle = (promise, ms, what) => Promise.race([
    promise.then(() => null, (e) => `${what} rejected: ${e && e.message || e}`),
    new Promise((r) => setTimeout(() => r(`${what} did not settle within ${ms} ms`), ms)),
  ]);
  out.mathEngine = ["MathJax", "katex"].filter((name) => typeof window[name] !== "undefined");
  out.arithmatexCount = document.querySelectorAll(".arithmatex").length;
  out.unrenderedMath = Array.from(document.querySelectorAll(".arithmatex"))
    .filter((e) => !e.querySelector(".katex")).map((e) => e.textContent.trim().slice(0, 60));
  out.mathjaxProblem = await settle(document.fonts.ready, timeoutMs, "document.fonts.ready");
  // Images: make lazy ones load, then wait for every one to finish, loaded or failed.
  const imgs = Array.from(document.images);
  imgs.forEach((img) => { if (img.loading === "lazy") img.loading = "eager"; });
  await settle(Promise.all(imgs.map((img) => img.complete ? null : new Promise((r) => {
    img.addEventListener("load", r, {once: true}); img.addEventListener("error", r, {once: true});
  }))), timeoutMs, "images");
  out.images = imgs.map((img) => ({
    src: img.getAttribute("src") && img.getAttribute("src").slice(0, 120),
    alt: img.getAttribute("alt"), naturalWidth: img.naturalWidth, complete: img.complete,
    shownWidth: img.getBoundingClientRect().width, inArticleFigure: !!img.closest("article figure"),
  }));
  if (openAll) {
    // Show what a reader can reveal (collapsed answers, other tabs) so it can be measured.
    document.querySelectorAll("details").forEach((d) => { d.open = true; });
    const style = document.createElement("style");
    // and lay out every block: one skipped by content-visibility (off the screen) has its
    // contents unmeasured, so a formula inside an answer just opened there reads as width 0
    // although a reader who scrolls to it sees it drawn.
    style.textContent = ".tabbed-content > .tabbed-block { display: block !important; }"
      + " .md-content__inner > * { content-visibility: visible !important; }";
    document.head.appendChild(style);
    await settle(new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))),
                 timeoutMs, "two frames");
  }
  const describe = (el) => {
    const text = (el.getAttribute("aria-label") || el.textContent || "").trim();
    return text.slice(0, 60) || el.outerHTML.slice(0, 80);
  };
  out.math = Array.from(document.querySelectorAll(".katex")).map((c) => ({
    width: c.getBoundingClientRect().width,
    shown: c.checkVisibility(),
    what: describe(c),
  }));
  // A formula rendered twice shows up as two identical neighbours.
  out.duplicateMath = Array.from(document.querySelectorAll(".katex + .katex"))
    .filter((c) => {
      const prev = c.previousSibling;
      return prev && prev.classList && prev.classList.contains("katex")
        && prev.innerHTML === c.innerHTML;
    }).map(describe);
  out.notebookMath = document.querySelectorAll(
    ".jp-RenderedMarkdown .katex").length;
  out.mathErrors = Array.from(document.querySelectorAll(".katex-error")).map(
    (e) => e.getAttribute("title") || e.textContent.trim());
  // KaTeX shows a command it refused (an untrusted \href) as red text, not an error.
  document.querySelectorAll(".katex-mathml [mathcolor='#cc0000']").forEach((t) => {
    out.mathErrors.push(`refused command ${t.textContent}`);
  });
  // Raw TeX left in visible text (code shows TeX on purpose and is skipped).
  const skip = "pre, code, script, style, noscript, textarea, .katex, .md-search";
  const raw = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.nodeValue;
    const at = text.search(/\\[(\[]/);
    if (at < 0) continue;
    const parent = node.parentElement;
    if (!parent || parent.closest(skip) || !parent.checkVisibility()) continue;
    raw.push(text.slice(Math.max(0, at - 20), at + 40).replace(/\s+/g, " "));
  }
  // Notebook Markdown cells write math between dollars; left raw, the build did not render it.
  // Pandoc's rule tells math from money: no space inside the dollars, no digit right after.
  const dollars = /\$\$[^$]+\$\$|\$[^\s$](?:[^$\n]*[^\s$])?\$(?!\d)/;
  for (const cell of document.querySelectorAll(".jp-RenderedMarkdown, .jp-MarkdownCell")) {
    const walk = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walk.nextNode(); node; node = walk.nextNode()) {
      const parent = node.parentElement;
      if (!parent || parent.closest(skip) || !parent.checkVisibility()) continue;
      const found = node.nodeValue.match(dollars);
      if (found) raw.push(found[0].slice(0, 60));
    }
  }
  out.rawTex = Array.from(new Set(raw));
  // Provenance tags left as bracketed text instead of badges (outside code).
  const tag = /\[(?:PAPER\s[^\]\n]+|SOURCE:[^\]\n]+|MY EXPLANATION|MY ANALYSIS|INFERRED)\]/;
  const tags = [];
  const tagWalker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = tagWalker.nextNode(); node; node = tagWalker.nextNode()) {
    const found = node.nodeValue.match(tag);
    const parent = node.parentElement;
    if (!found || !parent || parent.closest(skip) || !parent.checkVisibility()) continue;
    tags.push(found[0].slice(0, 60));
  }
  out.rawTags = Array.from(new Set(tags));
  const content = document.querySelector(".md-content") || document.body;
  out.headings = Array.from(content.querySelectorAll("h1, h2, h3, h4, h5, h6")).map((h) => ({
    level: Number(h.tagName[1]),
    text: h.textContent.replace(/\s+/g, " ").replace("¶", "").trim().slice(0, 60),
  }));
  out.lang = document.documentElement.getAttribute("lang");
  out.title = document.title;
  return out;
}
"""

# Text and badges drawn outside an ancestor that cuts them off: overflow hidden or clip on an axis,
# or paint containment (`contain: paint`, and `content-visibility: auto`, which contains a block's
# paint whenever it is on screen). A scrolling ancestor (overflow auto or scroll) shows what lies
# outside it by scrolling, so only the part within it counts further up. Every block that
# `content-visibility` may skip is measured as it is on screen (its containment, not its
# placeholder size); elements of a box 1 px or less (screen-reader text) are hidden on purpose.
CLIP_JS = r"""
(scopeSelector) => {
  const scope = document.querySelector(scopeSelector) || document.body;
  const marked = [];
  for (const el of scope.querySelectorAll("*")) {
    if (getComputedStyle(el).contentVisibility !== "visible") {
      el.setAttribute("data-clip-cv", "");
      marked.push(el);
    }
  }
  const style = document.createElement("style");
  style.textContent = "[data-clip-cv] { content-visibility: visible !important;"
    + " contain: layout style paint !important; }";
  document.head.append(style);
  const out = [];
  const hiddenOnPurpose = (el) => {
    for (let a = el; a && a !== document.documentElement; a = a.parentElement) {
      const b = a.getBoundingClientRect();
      if (b.width <= 1 || b.height <= 1) return true;
    }
    return false;
  };
  // The cut of one box (a badge, a line of a text), as a message, or null. `slack`: how far a
  // box may reach past a clipping edge above or below without being cut: a text's box is its
  // font's ascent and descent, which reach past the ink (a formula's accents and superscripts,
  // in KaTeX's fonts, by up to a fifth of the font size), so a quarter of the font size.
  const cutOf = (box, from, what, slack = 0.5) => {
    if ((box.width === 0 && box.height === 0) || hiddenOnPurpose(from)) return null;
    const rect = {top: box.top, bottom: box.bottom, left: box.left, right: box.right};
    for (let a = from; a && a !== document.documentElement; a = a.parentElement) {
      const s = getComputedStyle(a);
      const paint = /paint|strict|content/.test(s.contain || "");
      const b = a.getBoundingClientRect();
      const cut = [];
      for (const [o, lo, hi, tol] of [[s.overflowX, "left", "right", 0.5],
                                       [s.overflowY, "top", "bottom", slack]]) {
        if (o === "auto" || o === "scroll") {
          rect[lo] = Math.max(rect[lo], b[lo]);
          rect[hi] = Math.min(rect[hi], b[hi]);
        } else if (o === "hidden" || o === "clip" || paint) {
          if (rect[lo] < b[lo] - tol) cut.push(`${lo} ${(b[lo] - rect[lo]).toFixed(1)} px`);
          if (rect[hi] > b[hi] + tol) cut.push(`${hi} ${(rect[hi] - b[hi]).toFixed(1)} px`);
        }
      }
      if (cut.length) {
        const classes = typeof a.className === "string" ? a.className.trim() : "";
        const name = a.tagName.toLowerCase()
          + (classes ? "." + classes.split(/\s+/).join(".") : "");
        return `${JSON.stringify(what.replace(/\s+/g, " ").trim().slice(0, 40))} cut by `
          + `<${name}> (${cut.join(", ")})`;
      }
    }
    return null;
  };
  for (const badge of scope.querySelectorAll(".prov, .prov-scope")) {
    if (!badge.checkVisibility()) continue;
    const cut = cutOf(badge.getBoundingClientRect(), badge.parentElement, badge.textContent);
    if (cut) out.push(cut);
  }
  // A text's line boxes first; where one is cut, its words: the spaces that end a wrapped line
  // hang past the box's edge, drawing nothing.
  const walker = document.createTreeWalker(scope, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!node.nodeValue.trim() || !parent || !parent.checkVisibility()) continue;
    const slack = Math.max(0.5, 0.25 * parseFloat(getComputedStyle(parent).fontSize));
    const range = document.createRange();
    range.selectNodeContents(node);
    if (!Array.from(range.getClientRects()).some((box) => cutOf(box, parent, "", slack))) {
      continue;
    }
    for (const word of node.nodeValue.matchAll(/\S+/g)) {
      range.setStart(node, word.index);
      range.setEnd(node, word.index + word[0].length);
      const cut = Array.from(range.getClientRects())
        .map((box) => cutOf(box, parent, word[0], slack)).find(Boolean);
      if (cut) { out.push(cut); break; }
    }
  }
  style.remove();
  marked.forEach((el) => el.removeAttribute("data-clip-cv"));
  return Array.from(new Set(out));
}
"""


OVERFLOW_JS = """
() => {
  const width = document.documentElement.clientWidth;
  const culprits = [];
  if (document.documentElement.scrollWidth > width + 1) {
    for (const el of document.body.querySelectorAll("*")) {
      const box = el.getBoundingClientRect();
      if (box.right <= width + 1 || !el.checkVisibility()) continue;
      // Report the outermost element that sticks out, not each of its descendants.
      if (culprits.some((c) => c.el.contains(el))) continue;
      let scroller = el.parentElement, clipped = false;
      for (; scroller && scroller !== document.body; scroller = scroller.parentElement) {
        const o = getComputedStyle(scroller).overflowX;
        if (o !== "visible") { clipped = true; break; }
      }
      if (!clipped) culprits.push({el, right: Math.round(box.right)});
    }
  }
  return {
    scrollWidth: document.documentElement.scrollWidth, clientWidth: width,
    culprits: culprits.slice(0, 5).map(({el, right}) =>
      `<${el.tagName.toLowerCase()} class="${el.className}"> reaches x=${right}`),
  };
}
"""


# Tab stops of the page as the reader gets it (before anything is opened): every element the Tab
# key reaches, and among them the reader's marks that must stay out of the tab order (numbers
# linked to their output line, links inside formulas, glossary terms).
TAB_STOPS_JS = r"""
() => {
  const focusable = "a[href], button, input, select, textarea, summary, [tabindex], "
    + "[contenteditable=''], [contenteditable='true']";
  const marks = "a.num, a[href*='#out-'], .gloss";
  const stops = Array.from(document.querySelectorAll(focusable)).filter((el) =>
    el.tabIndex >= 0 && !el.disabled && !el.closest("[inert]")
    && el.checkVisibility({visibilityProperty: true}));
  return {
    total: stops.length,
    marks: stops.filter((el) => el.matches(marks)).slice(0, 400)
      .map((el) => el.textContent.trim().slice(0, 40)),
  };
}
"""
TAB_STOPS_MAX = 400  # any page, whole page; Chapter 5 had 814 before numbers left the tab order
DARK = "slate"  # Material's dark scheme, as its palette toggle sets it


# The rules whose outcome depends on colours: the dark pass runs only these (the scheme switch
# changes CSS only, so every other rule would repeat the light pass's answer at its cost).
COLOUR_RULES = ["color-contrast", "link-in-text-block"]
# color-contrast is most of axe-core's time: it works out each text's background from the
# elements stacked under it. On two kinds of repeated element it runs on representatives only
# (COLOUR_SAMPLES_JS marks the rest `data-axe-skip`, which its selector leaves out; every other
# rule still sees every element):
# - in a code block, a highlighted token stands for every token with the same chain of classes
#   from the block's container down to it (the same CSS rules, on the same background: a
#   highlighted line is a class of its own in the chain);
# - a number linked to its output line (a.num, often hundreds on a chapter) stands for every
#   other in a parent of the same tag and classes: the same CSS rules, as a link and as text
#   (link-in-text-block leaves out the others too);
# - a typeset formula's glyphs (.katex-html) take the colour of the text around the formula,
#   whose contrast axe-core checks there. That premise is checked on every page: the script
#   returns each glyph with a colour of its own or a background (colour_sampling_problems).
COLOUR_SAMPLES_JS = r"""() => {
  const seen = new Set();
  let sampled = 0, skipped = 0;
  for (const span of document.querySelectorAll("pre span")) {
    const pre = span.closest("pre");
    const chain = [];
    for (let e = span; e && e !== pre.parentElement; e = e.parentElement) chain.push(e.className);
    const key = (pre.parentElement ? pre.parentElement.className : "") + "|" + chain.join("<");
    if (seen.has(key)) { skipped += 1; span.setAttribute("data-axe-skip", ""); continue; }
    seen.add(key); sampled += 1;
  }
  const parents = new Set();
  let links = 0;
  for (const link of document.querySelectorAll("a.num")) {
    const key = link.parentElement.tagName + "." + link.parentElement.className;
    if (parents.has(key)) { link.setAttribute("data-axe-skip", ""); links += 1; continue; }
    parents.add(key);
  }
  const odd = [];
  let glyphs = 0;
  for (const formula of document.querySelectorAll(".katex-html")) {
    const around = getComputedStyle(formula.closest(".katex").parentElement).color;
    for (const glyph of [formula, ...formula.querySelectorAll("*")]) {
      glyph.setAttribute("data-axe-skip", "");
      glyphs += 1;
      const style = getComputedStyle(glyph);
      const clear = ["rgba(0, 0, 0, 0)", "transparent"].includes(style.backgroundColor);
      if ((style.color !== around || !clear) && odd.length < 5) {
        odd.push({text: glyph.textContent.slice(0, 30), color: style.color, around,
                  background: style.backgroundColor});
      }
    }
  }
  return {codeTokensSampled: sampled, codeTokensSkipped: skipped, numberLinksSkipped: links,
          formulaGlyphs: glyphs,
          oddFormulaGlyphs: odd};
}"""
# axe-core's own settings for this suite, applied once per page after it is injected.
AXE_CONFIGURE_JS = """() => axe.configure({rules: [
  {id: "color-contrast", selector: "*:not([data-axe-skip])"},
  {id: "link-in-text-block",
   selector: "a[href]:not([data-axe-skip]), [role=link]:not([data-axe-skip])"}]})"""


def axe_violations(page: Any, rules: list[str] | None = None) -> list[dict[str, Any]]:
    """axe-core's violations on the page as it stands (all rules, or only `rules`), each with the
    nodes it names. axe-core is injected and configured (AXE_CONFIGURE_JS) once per page."""
    from axe_playwright_python.sync_playwright import Axe  # requirements.lock pins it

    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.evaluate(Axe().axe_script)
        page.evaluate(AXE_CONFIGURE_JS)
    options: dict[str, Any] = {"resultTypes": ["violations"]}
    if rules:
        options["runOnly"] = {"type": "rule", "values": rules}
    result = page.evaluate("options => axe.run(document, options)", options)
    return [{"id": v["id"], "help": v["help"], "impact": v.get("impact"),
             "nodes": [{"target": n["target"], "html": n.get("html", "")[:300],
                        "summary": (n.get("failureSummary") or "").replace("\n", " ")[:300]}
                       for n in v["nodes"]]}
            for v in result["violations"]]


def audit_schemes(page: Any) -> tuple[dict[str, list[dict[str, Any]]], dict[str, Any]]:
    """axe-core on the same load, the repeated elements left to their representatives for the
    contrast rule (COLOUR_SAMPLES_JS): every rule in the light scheme, the colour rules in the
    dark one; back to light. Returns the violations by scheme and what the sampling found."""
    # Colours change with a transition: measured mid-way, text would fail contrast at random.
    page.add_style_tag(content="*, *::before, *::after { transition: none !important; "
                               "animation: none !important; }")
    sampling = page.evaluate(COLOUR_SAMPLES_JS)
    found = {"light": axe_violations(page)}
    page.evaluate(f"document.body.setAttribute('data-md-color-scheme', '{DARK}')")
    found["dark"] = axe_violations(page, COLOUR_RULES)
    page.evaluate("document.body.setAttribute('data-md-color-scheme', 'default')")
    return found, sampling


# Number provenance, read in one call per page: following the first linked number opens its
# collapsed output and shows the highlighted line; then a sample of the linked numbers is
# focused (a folded block around one opened first, as a reader would) and each one's card, its
# target's text and its link are returned for number_link_problems. The page is scrolled back to
# the top, the card closed.
FOLLOW_FIRST_NUMBER_JS = """() => {
  const a = document.querySelector("a.num");
  return a && a.hash && a.pathname === location.pathname ? a.hash : null;
}"""
NUMBER_SHOWN_JS = """(id) => { const e = document.getElementById(id);
  if (!e) return false;
  const r = e.getBoundingClientRect();
  return e.checkVisibility() && r.top >= 0 && r.bottom <= innerHeight
    && getComputedStyle(e).outlineStyle !== "none"; }"""
NUMBER_CARDS_JS = """(sample) => {
  const all = Array.from(document.querySelectorAll("a.num"));
  const step = Math.max(1, Math.floor(all.length / sample));
  const chosen = all.filter((a, i) => i % step === 0).slice(0, sample);
  const rows = chosen.map((a) => {
    for (let d = a.closest("details"); d; d = d.parentElement.closest("details")) d.open = true;
    a.focus({preventScroll: true});
    const card = document.querySelector(".num-card");
    const target = document.getElementById(decodeURIComponent(a.hash.slice(1)));
    const row = {text: a.textContent, href: a.hash, card: card ? card.textContent : "",
                 focused: document.activeElement === a,
                 target: target ? target.textContent : null};
    a.blur();
    return row;
  });
  window.scrollTo(0, 0);
  return {count: all.length, rows: rows};
}"""
# Linked numbers checked per page, evenly spread (every len // 6-th, from the first). All of them
# would cost the same single call, but Chapter 25 links a number its self-test supposes ("4.0")
# to an output line that does not print it: a fault of the linker, reported, to be fixed first.
NUMBERS_SAMPLED = 6
CARD = re.compile(r"^Printed by (?P<script>ch\d\d_\w+\.py), output \[(?P<block>\d+)\], "
                  r"line (?P<line>\d+): .+ \(checked at script [0-9a-f]{8}, lock [0-9a-f]{8}\)$")


def number_facts(page: Any) -> dict[str, Any]:
    """The number-provenance facts of a page as loaded (folded blocks still folded)."""
    facts: dict[str, Any] = {"followed": None}
    first = page.evaluate(FOLLOW_FIRST_NUMBER_JS)
    if first is not None:
        page.click("a.num >> nth=0")
        page.wait_for_timeout(300)  # the reader's script opens the block and highlights
        facts["followed"] = {"href": first, "shown": page.evaluate(NUMBER_SHOWN_JS, first[1:]),
                             "text": page.text_content("a.num >> nth=0")}
        page.evaluate("() => { document.activeElement.blur(); window.scrollTo(0, 0); }")
    cards = page.evaluate(NUMBER_CARDS_JS, NUMBERS_SAMPLED)
    facts["count"], facts["links"] = cards["count"], cards["rows"]
    return facts


# A chapter's self-test: its first collapsed answer after the "Self-test" heading (questions may
# stand open around their collapsed answers), as a reader finds it and after one click.
SELF_TEST_ANSWER_JS = """() => {
  const heading = document.querySelector("article #self-test");
  return Array.from(document.querySelectorAll("article details")).findIndex(d =>
    !d.open && (!heading || heading.compareDocumentPosition(d) & Node.DOCUMENT_POSITION_FOLLOWING));
}"""


# True once the summary of the index-th <details> of the article has not moved for two frames.
SETTLED_JS = """i => new Promise(resolve => {
  const summary = document.querySelectorAll("article details")[i].querySelector(":scope > summary");
  const top = summary.getBoundingClientRect().top;
  requestAnimationFrame(() => requestAnimationFrame(() =>
    resolve(Math.abs(summary.getBoundingClientRect().top - top) < 0.5)));
})"""


def self_test_facts(page: Any) -> dict[str, Any]:
    """Click a chapter's first collapsed self-test answer: was its text hidden before, is the
    answer open after, and how wide is each formula in it (0: not shown)."""
    index = page.evaluate(SELF_TEST_ANSWER_JS)
    if index < 0:
        return {"found": False}
    answer = page.locator("article details").nth(index)
    body = answer.locator(":scope > :not(summary)").first
    hidden_before = not body.is_visible()
    summary = answer.locator(":scope > summary")
    # A reader clicks what stays put: blocks laid out only near the screen (content-visibility)
    # take their real height as they come into view, so the page moves under a click aimed at
    # once (seen on a loaded machine: the click landed on the article, not the summary).
    summary.scroll_into_view_if_needed()
    page.wait_for_function(SETTLED_JS, arg=index, timeout=MATHJAX_TIMEOUT_MS)
    summary.click()
    body.wait_for(state="visible", timeout=MATHJAX_TIMEOUT_MS)
    facts = answer.evaluate("""d => ({open: d.open, widths: Array.from(
        d.querySelectorAll('.katex')).map(c => c.getBoundingClientRect().width)})""")
    return {"found": True, "hiddenBefore": hidden_before, **facts}


def self_test_problems(load: PageLoad) -> list[str]:
    """A chapter has a self-test whose answers are collapsed; one click shows an answer, math
    included (read in the page's one load, load_page)."""
    facts = load.facts.get("selfTest")
    if facts is None:
        return []  # not a chapter
    if not facts["found"]:
        return [f"{load.label}: no collapsed self-test answer (<details>)"]
    problems = []
    if not facts["hiddenBefore"]:
        problems.append(f"{load.label}: a collapsed answer's text is visible")
    if not facts["open"]:
        problems.append(f"{load.label}: clicking the answer's summary did not open it")
    if not all(width > 0 for width in facts["widths"]):
        problems.append(f"{load.label}: invisible formula in an opened answer")
    return problems


def _digits(text: str) -> str:
    return re.sub(r"[^0-9.]", "", text)


def _values(text: str) -> set[Decimal]:
    """The numbers of a text by value (thousands separators dropped): the claim check matches
    by value, so "1.0000" in prose is the "1" an output printed."""
    return {Decimal(n.replace(",", ""))
            for n in re.findall(r"\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?", text)}


def printed_on(number: str, line: str) -> bool:
    found = _values(number)
    return (bool(found) and found <= _values(line)) or _digits(number) in _digits(line)


def number_link_problems(load: PageLoad) -> list[str]:
    """On a chapter page: numbers are linked; each sampled linked number, focused, shows the
    card of the output line that printed it (script, block, line, checked state); its link lands
    on that line, which holds the number (by value: 5e-3 is the 0.005 printed), of that script's
    output; following the first link shows the line, opened and highlighted."""
    if not load.url_path.startswith("chapters/"):
        return []
    facts = load.facts.get("numbers") or {}
    links = facts.get("links") or []
    if not links:
        return [f"{load.label}: no number is linked to its output"]
    found = []
    for link in links:
        card = CARD.match(link["card"] or "")
        if not card:
            found.append(f"{load.label}: number {link['text']!r} has card {link['card']!r}"
                         + ("" if link["focused"] else " (it cannot take focus)"))
            continue
        if link["target"] is None:
            found.append(f"{load.label}: {link['href']} (for {link['text']}) is missing")
        elif not printed_on(link["text"], link["target"]):
            found.append(f"{load.label}: {link['text']} is not on its line {link['href']}: "
                         f"{link['target']!r}")
        if card["script"].split(".")[0] not in link["href"]:
            found.append(f"{load.label}: {link['href']} is not {card['script']}'s")
    followed = facts.get("followed")
    if not followed or not followed["shown"]:
        what = followed["text"] if followed else "the first number"
        found.append(f"{load.label}: clicking {what} did not show "
                     f"{followed['href'] if followed else 'its line'} highlighted")
    return found


def settle_frames(page: Any) -> None:
    page.evaluate("() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))")


@dataclass
class PageLoad:
    """What one load of one page showed: events from the browser, the server's log, and the
    measurements of COLLECT_JS."""

    url_path: str
    console_errors: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    foreign_requests: list[str] = field(default_factory=list)
    served: list[ServedRequest] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)
    phone_facts: dict[str, Any] = field(default_factory=dict)  # the same load, resized to a phone
    seconds: float = 0.0

    def at_phone(self) -> PageLoad:
        """This load as the phone checks read it: the facts measured after the resize."""
        if not self.phone_facts:
            return self
        return PageLoad(self.url_path, self.console_errors, self.failed_requests,
                        self.foreign_requests, self.served, self.phone_facts, self.seconds)

    @property
    def label(self) -> str:
        return page_label(self.url_path)

    @property
    def bytes(self) -> int:
        """Bytes this page costs a reader: everything served for it except the site-wide search
        index, which the first page of a visit downloads once for every page (instant navigation
        keeps it) and which grows with the book; it has its own budget (SEARCH_INDEX_BUDGET)."""
        return sum(r.bytes for r in self.served if not r.path.endswith(SEARCH_INDEX))


def open_context(browser: Any, viewport: dict[str, int]) -> Any:
    """A fresh browser context: empty cache, light colour scheme, English."""
    return browser.new_context(viewport=viewport, color_scheme="light", locale="en-US")


def watch(page: Any, load: PageLoad, origin: str) -> None:
    """Record console errors, uncaught exceptions, failed and foreign requests of `page`."""

    def on_console(message: Any) -> None:
        if message.type == "error":
            where = message.location.get("url") or ""
            load.console_errors.append(f"{message.text} ({where})" if where else message.text)

    def on_request(request: Any) -> None:
        parts = urlsplit(request.url)
        if parts.scheme in ("http", "https", "ws", "wss") and (
            f"{parts.scheme}://{parts.netloc}" != origin
        ):
            load.foreign_requests.append(request.url)

    def on_failed(request: Any) -> None:
        load.failed_requests.append(f"{request.url} ({request.failure})")

    def on_response(response: Any) -> None:
        if response.status >= 400:
            load.failed_requests.append(f"{response.url} (HTTP {response.status})")

    page.on("console", on_console)
    page.on("pageerror", lambda error: load.console_errors.append(f"uncaught: {error}"))
    page.on("request", on_request)
    page.on("requestfailed", on_failed)
    page.on("response", on_response)


def load_page(
    browser: Any,
    server: StaticServer,
    url_path: str,
    viewport: dict[str, int] = DESKTOP,
    screenshot: Path | None = None,
    open_all: bool = True,
    phone: dict[str, int] | None = None,
    phone_screenshot: Path | None = None,
    audit: bool = False,
) -> PageLoad:
    """Load one page in a fresh context, wait until it is quiet, take the screenshot (before
    anything is opened), count its tab stops, then collect the facts the checks need.

    With `audit`, axe-core runs in the light and the dark scheme (facts["axe"]). With `phone`, the
    same page is then resized to that viewport and measured again (phone_facts): one load serves
    the desktop, the accessibility and the phone checks. On a chapter page the number links are
    read in the same load (facts["numbers"], number_facts)."""
    load = PageLoad(url_path)
    start = time.monotonic()
    context = open_context(browser, viewport)
    try:
        page = context.new_page()
        watch(page, load, server.origin)
        server.log.take()
        page.goto(server.url(url_path), wait_until="load")
        page.wait_for_load_state("networkidle")
        if screenshot is not None:
            page.evaluate("t => Promise.race([document.fonts.ready,"
                          " new Promise(r => setTimeout(r, t))])", MATHJAX_TIMEOUT_MS)
            screenshot.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(screenshot), full_page=True)
        tab_stops = page.evaluate(TAB_STOPS_JS)  # before anything is opened
        # axe-core sees the page as the reader first gets it: with every folded block open it
        # takes five times longer (Chapter 5's embedded outputs), for markup it already checks.
        axe, sampling = audit_schemes(page) if audit else (None, None)
        # Number provenance on a chapter page, as loaded (it follows one link, then opens
        # folded blocks around numbers); after axe, before COLLECT_JS opens every block anyway.
        # A chapter's self-test first: reading the numbers opens the folded blocks around some.
        chapter = url_path.startswith("chapters/")
        self_test = self_test_facts(page) if chapter else None
        numbers = number_facts(page) if chapter else {}
        load.facts = page.evaluate(
            COLLECT_JS, {"timeoutMs": MATHJAX_TIMEOUT_MS, "openAll": open_all}
        )
        load.facts["tabStops"] = tab_stops
        load.facts["numbers"] = numbers
        if self_test is not None:
            load.facts["selfTest"] = self_test
        load.facts["rawTexCommands"] = page.evaluate(RAW_TEX_JS)  # folded blocks included
        load.facts["clipped"] = page.evaluate(CLIP_JS, ".md-content")
        if viewport["width"] < 600:  # a phone: measure horizontal overflow
            load.facts["overflow"] = page.evaluate(OVERFLOW_JS)
        if axe is not None:
            load.facts["axe"] = axe
            load.facts["colourSampling"] = sampling
        if phone is not None:
            page.set_viewport_size(phone)
            settle_frames(page)
            if phone_screenshot is not None:
                phone_screenshot.parent.mkdir(parents=True, exist_ok=True)
                page.screenshot(path=str(phone_screenshot), full_page=True)
            load.phone_facts = page.evaluate(
                COLLECT_JS, {"timeoutMs": MATHJAX_TIMEOUT_MS, "openAll": open_all})
            load.phone_facts["overflow"] = page.evaluate(OVERFLOW_JS)
            load.phone_facts["clipped"] = page.evaluate(CLIP_JS, ".md-content")
        page.wait_for_load_state("networkidle")
        load.served = server.log.take()
        for request in load.served:
            if request.status >= 400:
                message = f"{server.origin}{request.path} (HTTP {request.status}, server log)"
                if not any(request.path in f for f in load.failed_requests):
                    load.failed_requests.append(message)
    finally:
        context.close()
    load.seconds = time.monotonic() - start
    return load


# Math in a notebook's Markdown cells, in the notations Jupyter users write.
NOTEBOOK_MATH = re.compile(
    r"\$\$.+?\$\$|\\\[.+?\\\]|\\\(.+?\\\)|\$[^\s$](?:[^$\n]*[^\s$])?\$(?!\d)", re.S
)
NOTEBOOK_CODE = re.compile(r"^(`{3,}|~{3,}).*?^\1|(`+).+?\2", re.S | re.M)


def notebook_formulas(ipynb: Path) -> list[str]:
    """The formulas written in the Markdown cells of a notebook (code spans and blocks skipped),
    to compare with what its page typesets: a renderer that eats `\\(` leaves no raw TeX
    behind, only a formula that never appears."""
    cells = json.loads(ipynb.read_text(encoding="utf-8"))["cells"]
    formulas = []
    for cell in cells:
        if cell["cell_type"] == "markdown":
            source = cell["source"]
            text = NOTEBOOK_CODE.sub(" ", "".join(source) if isinstance(source, list) else source)
            formulas += [m.group(0)[:40] for m in NOTEBOOK_MATH.finditer(text)]
    return formulas


def source_notebook(docs: Path, url_path: str) -> Path | None:
    """The .ipynb under docs/ that a page was rendered from, if any."""
    candidate = docs / (url_path.rstrip("/") + ".ipynb")
    return candidate if url_path and candidate.is_file() else None


# --------------------------------------------------------------------------- the checks
# Each returns a list of problems; an empty list means the page passes.


def console_problems(load: PageLoad) -> list[str]:
    return [f"{load.label}: console error: {m}" for m in load.console_errors]


def request_problems(load: PageLoad) -> list[str]:
    return [f"{load.label}: failed request: {m}" for m in load.failed_requests]


def foreign_host_problems(load: PageLoad) -> list[str]:
    return [f"{load.label}: request to another host: {u}" for u in load.foreign_requests]


def image_problems(load: PageLoad) -> list[str]:
    problems = []
    for img in load.facts["images"]:
        if not img["complete"] or img["naturalWidth"] == 0:
            problems.append(f"{load.label}: image did not load: {img['src']}")
    return problems


def alt_problems(load: PageLoad) -> list[str]:
    return [
        f"{load.label}: image without alternative text: {img['src']}"
        for img in load.facts["images"]
        if not (img["alt"] or "").strip()
    ]


def math_problems(load: PageLoad) -> list[str]:
    facts = load.facts
    problems = []
    if facts["mathEngine"]:
        problems.append(f"{load.label}: a math engine runs in the page: {facts['mathEngine']}")
    problems += [f"{load.label}: formula not rendered at build time: {t!r}"
                 for t in facts["unrenderedMath"]]
    if facts["mathjaxProblem"]:
        problems.append(f"{load.label}: {facts['mathjaxProblem']}")
    for box in facts["math"]:
        if box["width"] <= 0:
            state = "" if box["shown"] else " (inside a hidden element)"
            problems.append(f"{load.label}: invisible formula (width 0){state}: {box['what']!r}")
    problems += [f"{load.label}: math error: {m}" for m in facts["mathErrors"]]
    problems += [f"{load.label}: formula typeset twice: {w!r}" for w in facts["duplicateMath"]]
    problems += [f"{load.label}: raw TeX left in visible text: {t!r}" for t in facts["rawTex"]]
    problems += [f"{load.label}: TeX command left as text: {t!r}"
                 for t in facts.get("rawTexCommands", []) if t not in " ".join(facts["rawTex"])]
    sources = facts.get("notebookSourceMath")
    if sources is not None and facts["notebookMath"] < len(sources):
        problems.append(
            f"{load.label}: the notebook's Markdown cells hold {len(sources)} formulas but the "
            f"page shows {facts['notebookMath']} typeset (first formulas: {sources[:3]})"
        )
    return problems


def heading_problems(load: PageLoad) -> list[str]:
    headings = load.facts["headings"]
    if not headings:
        return [f"{load.label}: no headings"]
    problems = []
    if headings[0]["level"] != 1:
        problems.append(f"{load.label}: first heading is h{headings[0]['level']}, not h1")
    for before, after in itertools.pairwise(headings):
        if after["level"] > before["level"] + 1:
            problems.append(
                f"{load.label}: heading jumps from h{before['level']} ({before['text']!r}) "
                f"to h{after['level']} ({after['text']!r})"
            )
    return problems


def provenance_problems(load: PageLoad) -> list[str]:
    return [
        f"{load.label}: provenance tag shown as plain text, not a badge: {t!r}"
        for t in load.facts["rawTags"]
    ]


def lang_problems(load: PageLoad) -> list[str]:
    return [] if (load.facts["lang"] or "").strip() else [f"{load.label}: <html> has no lang"]


def weight_problems(load: PageLoad) -> list[str]:
    budget = budget_for(load.url_path)
    if load.bytes <= budget:
        return []
    biggest = sorted(load.served, key=lambda r: -r.bytes)[:5]
    top = ", ".join(f"{r.path} {r.bytes / MB:.2f} MB" for r in biggest)
    return [
        f"{load.label}: page weight {load.bytes / MB:.2f} MB exceeds the budget of "
        f"{budget / MB:.1f} MB (largest: {top})"
    ]


def search_index_problems(site: Path) -> list[str]:
    """The search index every page loads once must stay within its own budget."""
    size = (site / SEARCH_INDEX.lstrip("/")).stat().st_size
    if size <= SEARCH_INDEX_BUDGET:
        return []
    return [f"{SEARCH_INDEX}: {size / MB:.2f} MB exceeds its budget of "
            f"{SEARCH_INDEX_BUDGET / MB:.1f} MB (embedded sources are excluded from it with "
            "data-search-exclude; exclude more, or raise the budget with a reason)"]


def accessibility_problems(load: PageLoad) -> list[str]:
    """axe-core's violations, in the light and the dark scheme (load_page(audit=True)); every
    one is a problem, with no rule or element excepted."""
    problems = []
    for scheme, violations in load.facts.get("axe", {}).items():
        for violation in violations:
            nodes = violation["nodes"]
            first = nodes[0]
            problems.append(
                f"{load.label}: axe {violation['id']} ({scheme} scheme, {len(nodes)} element(s)):"
                f" {violation['help']}; first: {first['target']} {first['summary']}")
    return problems


def colour_sampling_problems(load: PageLoad) -> list[str]:
    """What lets the colour rules run on representatives must hold on the page: no glyph of a
    formula has a colour of its own or paints a background (COLOUR_SAMPLES_JS)."""
    sampling = load.facts.get("colourSampling") or {}
    return [f"{load.label}: a formula glyph has its own colours ({g['text']!r}: colour "
            f"{g['color']} in text of {g['around']}, background {g['background']}); the colour "
            "audit skips formula glyphs on the premise that they have none"
            for g in sampling.get("oddFormulaGlyphs", [])]


def tab_stop_problems(load: PageLoad) -> list[str]:
    """The reader's marks stay out of the tab order, and the page has at most TAB_STOPS_MAX."""
    stops = load.facts.get("tabStops")
    if stops is None:
        return []
    problems = []
    if stops["marks"]:
        problems.append(f"{load.label}: {len(stops['marks'])} numbers, formula links or glossary "
                        f"terms are tab stops (first: {stops['marks'][:5]})")
    if stops["total"] > TAB_STOPS_MAX:
        problems.append(f"{load.label}: {stops['total']} tab stops, more than {TAB_STOPS_MAX}")
    return problems


def figure_legibility_problems(load: PageLoad, site: Path) -> list[str]:
    """A chapter figure shown on this phone must keep its smallest text at
    `script_io.MIN_TEXT_PX` CSS px: the size recorded in the PNG (at 358 px wide) scaled to the
    width the figure is shown at. Call with a phone load (PageLoad.at_phone)."""
    code = str(REPO_ROOT / "explainer_code")
    if code not in sys.path:  # called once per page: add the chapter scripts' folder once
        sys.path.insert(0, code)
    import script_io

    problems = []
    for img in load.facts["images"]:
        src = img["src"] or ""
        if not img["inArticleFigure"] or "assets/fig/" not in src:
            continue
        url = urljoin(f"http://site/{load.url_path}", src)  # the image's path on the site
        path = site / unquote(urlsplit(url).path).lstrip("/")
        recorded = script_io.recorded_legibility(path.read_bytes()) if path.is_file() else None
        if recorded is None:
            problems.append(f"{load.label}: {src} has no recorded text size (save_figure)")
            continue
        if recorded == "no text":
            continue
        shown = float(recorded) * img["shownWidth"] / script_io.PHONE_WIDTH_PX
        if shown < script_io.MIN_TEXT_PX - 0.05:
            problems.append(f"{load.label}: {src} shown {img['shownWidth']:.0f} px wide: its "
                            f"smallest text is {shown:.1f} CSS px (at least "
                            f"{script_io.MIN_TEXT_PX:g} wanted)")
    return problems


def clip_problems(load: PageLoad) -> list[str]:
    """Text or a badge cut off by an ancestor that clips it (CLIP_JS): hidden, not scrollable."""
    clipped = load.facts.get("clipped", [])
    return [f"{load.label}: {len(clipped)} text(s) or badge(s) drawn outside a clipping box, "
            f"cut off: " + "; ".join(clipped[:5])] if clipped else []


def overflow_problems(load: PageLoad) -> list[str]:
    overflow = load.facts.get("overflow")
    if not overflow or overflow["scrollWidth"] <= overflow["clientWidth"] + 1:
        return []
    return [
        f"{load.label}: page is {overflow['scrollWidth']} px wide on a "
        f"{overflow['clientWidth']} px screen: " + "; ".join(overflow["culprits"] or ["?"])
    ]


PAGE_CHECKS = {
    "console": console_problems,
    "requests": request_problems,
    "foreign_hosts": foreign_host_problems,
    "images": image_problems,
    "alt_text": alt_problems,
    "math": math_problems,
    "headings": heading_problems,
    "lang": lang_problems,
    "provenance_badges": provenance_problems,
    "weight": weight_problems,
    "tab_stops": tab_stop_problems,
    "number_links": number_link_problems,
    "self_test": self_test_problems,
    "clipped": clip_problems,
}


def all_problems(load: PageLoad) -> list[str]:
    return [problem for check in PAGE_CHECKS.values() for problem in check(load)]


# --------------------------------------------------------------------------- the link crawler


class _LinkParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[tuple[str, str]] = []  # (tag, url)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        for key in ("id", "name") if tag == "a" else ("id",):
            if values.get(key):
                self.ids.add(values[key] or "")
        for key in ("href", "src"):
            url = values.get(key)
            if url is not None and (key == "src" or tag in ("a", "link", "area")):
                self.links.append((tag, url))


@functools.lru_cache(maxsize=4096)
def _parse(html_file: Path, mtime_ns: int) -> _LinkParser:
    parser = _LinkParser()
    parser.feed(html_file.read_text(encoding="utf-8"))
    parser.close()
    return parser


def parse_html(html_file: Path) -> _LinkParser:
    return _parse(html_file, html_file.stat().st_mtime_ns)


def _target_file(site: Path, path: str) -> Path | None:
    """The file a site-absolute URL path serves, as a static server would, or None."""
    candidate = site / unquote(path).lstrip("/")
    if candidate.is_dir():
        candidate = candidate / "index.html"
    return candidate if candidate.is_file() else None


def link_problems(site: Path, site_url: str = "http://127.0.0.1:8000/") -> list[str]:
    """Every internal link (a, link, img, script, ...) of every HTML file of the built site must
    reach a file, and every #fragment an id (or <a name>) in the page it points to.

    Links to other hosts are not fetched by a page and cannot be checked offline; links that
    spell out the site's own `site_url` (canonical links) are internal."""
    own = urlsplit(site_url)
    prefix = own.path if own.path.endswith("/") else own.path + "/"
    problems = []
    for html_file in sorted(site.rglob("*.html")):
        rel = html_file.relative_to(site).as_posix()
        label = "/" + (rel.removesuffix("index.html") if rel != "404.html" else rel)
        page_url = prefix + rel.removesuffix("index.html")
        for tag, url in parse_html(html_file).links:
            parts = urlsplit(url)
            if parts.scheme in ("mailto", "javascript", "data", "tel", "blob"):
                continue
            if (parts.scheme or parts.netloc) and (parts.scheme, parts.netloc) != (
                own.scheme,
                own.netloc,
            ):
                continue
            resolved = urlsplit(urljoin(page_url, url))
            if not resolved.path.startswith(prefix):
                problems.append(f"{label}: link <{tag}> {url!r} leaves the site ({resolved.path})")
                continue
            target = _target_file(site, resolved.path[len(prefix) :])
            if target is None:
                problems.append(
                    f"{label}: broken link <{tag}> {url!r} (nothing at {resolved.path})"
                )
                continue
            fragment = unquote(resolved.fragment)
            if target.parent.name == "print_page":
                # The whole-book page gets its ids from print-site.js at run time; the browser
                # checks its anchors (explainer_tools.website.pdf, test_browser_features.py).
                continue
            if fragment and target.suffix == ".html" and fragment not in parse_html(target).ids:
                where = "/" + target.relative_to(site).as_posix()
                problems.append(f"{label}: broken anchor {url!r} (no id {fragment!r} in {where})")
    return problems
