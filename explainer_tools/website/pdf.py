"""`make pdf`: the whole book as one PDF, formulas and figures rendered, internal links working.

The site has a generated page holding every page in navigation order (`/print_page/`, made by
the print-site plugin). This command builds the site, serves it on 127.0.0.1, opens that page in
headless Chromium, waits for its fonts (the formulas were rendered when the site was built,
by KaTeX), checks the page (every formula
rendered with a width, every image loaded, every in-book link pointing at an element of the
page), and prints it to `build/book.pdf` with Chromium's own PDF printer. Nothing is fetched:
the browser may reach the local server only.

    .venv/bin/python -m explainer_tools.website.pdf [--site DIR] [--out build/book.pdf]

It exits non-zero, naming what is wrong, if the page is not fully rendered. A summary (formula,
image and link counts) is written beside the PDF as JSON, for the browser test to compare with the
individual pages.

The contents get page numbers from a second print: Chromium does not implement CSS
`target-counter()`, but its PDF names each linked heading in the catalogue's /Dests dictionary
(element id -> page). The numbers read from the first PDF are written into the contents, the
page is printed again, and the numbers are read back from that PDF; the book is printed until
they agree (at most MAX_PASSES times) or the command fails.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import re
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from explainer_tools.layout import DEFAULT as LAYOUT
from explainer_tools.website.raw_tex import RAW_TEX_JS

PRINT_PAGE = "print_page/"
CHROMIUM = os.environ.get("EXPLAINER_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
    "--disable-component-update", "--disable-sync",
    "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
]  # fmt: skip
FONTS_TIMEOUT_MS = 120_000
LOAD_TIMEOUT_MS = 300_000  # the whole-book page: Playwright's default 30 s is too short under load

# Runs in the page: what is rendered, and what is not.
INSPECT_JS = """() => {
  const math = Array.from(document.querySelectorAll(".katex"));
  const ids = new Set(Array.from(document.querySelectorAll("[id]")).map((e) => e.id));
  // print-site makes every in-book link absolute (http://host/print_page/#id): an in-page
  // link is one to this page's path with a hash, whatever its href's spelling.
  const internal = Array.from(document.querySelectorAll("a[href*='#']"))
    .filter((a) => a.pathname === location.pathname && a.hash.length > 1)
    .map((a) => decodeURIComponent(a.hash.slice(1)));
  const images = Array.from(document.querySelectorAll("img"));
  return {
    formulas: math.length,
    zero_width_formulas: math.filter((c) => c.getBoundingClientRect().width === 0
                                      && c.closest("details:not([open])") === null).length,
    raw_tex: Array.from(document.querySelectorAll(".arithmatex"))
      .filter((e) => !e.querySelector(".katex")).length,
    images: images.length,
    broken_images: images.filter((i) => !i.complete || i.naturalWidth === 0).map((i) => i.src),
    internal_links: internal.length,
    contents_lists: document.querySelectorAll("#print-page-toc > nav > ul").length,
    dangling_links: [...new Set(internal.filter((h) => !ids.has(h)))],
  };
}"""


MAX_PASSES = 4
# (Material's script makes every link absolute: the target is the link's hash on this page.)
CONTENTS_LINKS_JS = """() => Array.from(document.querySelectorAll("#print-page-toc a"))
  .filter((a) => a.pathname === location.pathname && a.hash)
  .map((a) => decodeURIComponent(a.hash.slice(1)))"""
# Writes each contents entry's page number (a dict id -> page) beside its link.
NUMBER_CONTENTS_JS = """(pages) => {
  document.querySelectorAll("#print-page-toc a").forEach((a) => {
    if (a.pathname !== location.pathname || !a.hash) return;
    const id = decodeURIComponent(a.hash.slice(1));
    let mark = a.querySelector(":scope > .toc-page");
    if (!mark) {
      mark = document.createElement("span");
      mark.className = "toc-page";
      a.appendChild(mark);
    }
    mark.textContent = id in pages ? String(pages[id]) : "";
  });
}"""
_OBJECT = re.compile(rb"(\d+) 0 obj\s*(.*?)\s*endobj", re.S)
_NAME_ESCAPE = re.compile(r"#([0-9A-Fa-f]{2})")


def _pdf_name(raw: bytes) -> str:
    return _NAME_ESCAPE.sub(lambda m: chr(int(m.group(1), 16)), raw.decode("latin-1"))


def heading_pages(data: bytes) -> dict[str, int]:
    """Element id -> page number (1-based) of every named destination in a PDF that Chromium
    printed (uncompressed object dictionaries, a /Pages tree, a /Dests dictionary in the
    catalogue). Raises ValueError when the PDF is not of that shape."""
    objects = {int(m.group(1)): m.group(2) for m in _OBJECT.finditer(data)}
    catalog = next((body for body in objects.values() if body.startswith(b"<</Type /Catalog")),
                   None)
    if catalog is None:
        raise ValueError("no /Catalog object (a compressed or unfamiliar PDF)")
    root = re.search(rb"/Pages (\d+) 0 R", catalog)
    dests = re.search(rb"/Dests (\d+) 0 R", catalog)
    if root is None or dests is None:
        raise ValueError("the catalogue names no /Pages tree or no /Dests dictionary")
    order: list[int] = []

    def walk(number: int) -> None:
        body = objects[number]
        kids = re.search(rb"/Kids \[([^\]]*)\]", body)
        if b"/Type /Pages" in body and kids:
            for kid in re.findall(rb"(\d+) 0 R", kids.group(1)):
                walk(int(kid))
        else:
            order.append(number)

    walk(int(root.group(1)))
    page_number = {obj: index + 1 for index, obj in enumerate(order)}
    entries = re.finditer(rb"/([^\s\[/]+) \[(\d+) 0 R /XYZ", objects[int(dests.group(1))])
    return {_pdf_name(m.group(1)): page_number[int(m.group(2))] for m in entries
            if int(m.group(2)) in page_number}


def _pdf_pages(data: bytes) -> int:
    counts = re.findall(rb"/Type /Pages\s*/Count (\d+)", data)
    return max(int(c) for c in counts) if counts else 0


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def serve(site: Path) -> Iterator[str]:
    """Serve `site` on 127.0.0.1 (a free port) for the duration; yields the base URL."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/"
    finally:
        server.shutdown()
        server.server_close()


def build_site(dest: Path) -> None:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    cmd = [sys.executable, "-m", "mkdocs", "build", "--strict", "-d", str(dest)]
    result = subprocess.run(cmd, cwd=LAYOUT.root, env=env, capture_output=True, text=True,
                            check=False)
    if result.returncode != 0:
        raise SystemExit(f"mkdocs build --strict failed:\n{result.stdout}{result.stderr}")


def problems_of(summary: dict) -> list[str]:
    """What makes a rendered book page unfit to print."""
    found = []
    if summary["formulas"] == 0:
        found.append("no formula was rendered")
    if summary["zero_width_formulas"]:
        found.append(f"{summary['zero_width_formulas']} formula(s) rendered with zero width")
    if summary["raw_tex"]:
        found.append(f"{summary['raw_tex']} formula(s) left as raw TeX")
    if summary.get("raw_tex_commands"):
        found.append(f"TeX left as text: {summary['raw_tex_commands'][:5]}")
    if summary["broken_images"]:
        found.append(f"images that did not load: {summary['broken_images'][:5]}")
    if summary.get("contents_lists", 1) != 1:
        found.append(f"the contents are printed {summary['contents_lists']} times, not once")
    if summary.get("contents_entries", 1) == 0:
        found.append("the contents list no entries (print-site's contents were not built)")
    if summary.get("contents_passes", 1) > MAX_PASSES:
        found.append(f"the contents' page numbers did not settle in {MAX_PASSES} prints")
    if summary.get("contents_numbered", 0) < summary.get("contents_entries", 0):
        found.append(f"{summary['contents_entries'] - summary['contents_numbered']} contents "
                     "entries have no page in the PDF")
    if not summary.get("contents_in_order", True):
        found.append("the contents' page numbers are not in book order")
    if summary.get("internal_links", 1) == 0:
        found.append("no in-book link found: the link check would check nothing")
    if summary["dangling_links"]:
        found.append(f"in-book links to missing anchors: {summary['dangling_links'][:10]}")
    return found


def print_book(browser: Any, base_url: str, out: Path,
               before_print: Callable[[Any], object] | None = None) -> dict:
    """With a running Playwright browser, print the whole-book page served at `base_url` to
    `out` (atomically); return what the page showed (see INSPECT_JS) and what the PDF holds.

    `before_print(page)`, if given, runs after the whole page is inspected and before it is
    printed; what it returns is summary["before_print"]. The test suite uses it to print one
    chapter of the inspected book (`make pdf` prints all of it)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    page = browser.new_page(viewport={"width": 1100, "height": 1400})
    try:
        page.goto(base_url + PRINT_PAGE, wait_until="load", timeout=LOAD_TIMEOUT_MS)
        page.wait_for_function("() => document.fonts.ready.then(() => true)",
                               timeout=FONTS_TIMEOUT_MS)
        page.emulate_media(media="print")
        summary = page.evaluate(INSPECT_JS)
        summary["raw_tex_commands"] = page.evaluate(RAW_TEX_JS)
        if before_print is not None:
            summary["before_print"] = before_print(page)
        tmp = out.with_suffix(".pdf.tmp")
        summary.update(number_contents(page, tmp))
        os.replace(tmp, out)
    finally:
        page.close()
    data = out.read_bytes()
    summary["pdf_bytes"] = len(data)
    summary["pdf_link_annotations"] = data.count(b"/Subtype /Link")
    summary["pdf_internal_destinations"] = data.count(b"/Dest")
    summary["pdf_type3_fonts"] = data.count(b"/Subtype /Type3")
    summary["pdf_katex_fonts"] = data.count(b"/BaseFont /") and data.count(b"KaTeX_")  # glyphs
    return summary


def _print(page: Any, path: Path) -> bytes:
    page.pdf(path=str(path), format="A4", print_background=True, outline=True, tagged=True,
             margin={"top": "15mm", "bottom": "15mm", "left": "12mm", "right": "12mm"})
    return path.read_bytes()


def number_contents(page: Any, path: Path) -> dict:
    """Print the page to `path` until the page numbers written into its contents are the pages
    its PDF puts those headings on (see the module's docstring); what it found, for the
    summary."""
    wanted = page.evaluate(CONTENTS_LINKS_JS)
    data = _print(page, path)
    written: dict[str, int] = {}
    passes = 1
    while True:
        found = {key: value for key, value in heading_pages(data).items() if key in wanted}
        if found == written or passes > MAX_PASSES:
            break
        page.evaluate(NUMBER_CONTENTS_JS, found)
        written = found
        data = _print(page, path)
        passes += 1
    numbers = [written[key] for key in wanted if key in written]
    return {
        "contents_entries": len(wanted),
        "contents_numbered": len(numbers),
        "contents_passes": passes,
        "contents_in_order": numbers == sorted(numbers),
        "pdf_pages": _pdf_pages(data),
    }


def render_pdf(site: Path, out: Path) -> dict:
    """Serve a built site, start Chromium, print its whole-book page to `out`."""
    from playwright.sync_api import sync_playwright

    if not Path(CHROMIUM).exists():
        raise SystemExit(f"Chromium not found at {CHROMIUM} (apt-get install chromium, or set "
                         "EXPLAINER_CHROMIUM)")
    with serve(site) as base, sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            return print_book(browser, base, out)
        finally:
            browser.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m explainer_tools.website.pdf",
                                     description=__doc__)
    parser.add_argument("--site", type=Path, help="an already built site (default: build one)")
    parser.add_argument("--out", type=Path, default=LAYOUT.build_dir / "book.pdf")
    args = parser.parse_args(argv)
    site = args.site or LAYOUT.build_dir / "pdf-site"
    if args.site is None:
        build_site(site)
    summary = render_pdf(site, args.out)
    args.out.with_suffix(".json").write_text(json.dumps(summary, indent=1, sort_keys=True) + "\n",
                                             encoding="utf-8")
    problems = problems_of(summary)
    for problem in problems:
        print(f"{args.out}: {problem}", file=sys.stderr)
    print(f"{args.out}: {summary['pdf_bytes'] / 1e6:.1f} MB, {summary['formulas']} formulas, "
          f"{summary['images']} images, {summary['internal_links']} in-book links "
          f"({summary['pdf_internal_destinations']} internal link targets in the PDF)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
