"""`make bench-site`: the site's budgets, measured (a benchmark to read, not a timed test).

It builds the site (`mkdocs build --strict`, timed: wall clock and the build's CPU seconds),
serves it on 127.0.0.1 and loads every chapter and the home page in headless Chromium, each in a
fresh context (an empty cache), three times. Per page it prints the bytes served, the search
index left out (the search box fetches it; the budget does not count it), and the median time
until the page is fully rendered: the load event or the last web font (KaTeX's) loaded,
whichever is later. Shown: the home page, Chapters 5, 14 and 22, the slowest and the heaviest
chapter.

Budgets (issue 32): every chapter rendered in under 0.5 s, no page over 1 MB without the search
index, `make site` under 5 s. The figures depend on the machine and its load: read them, do not
assert them in a test.

    .venv/bin/python -m explainer_tools.site_bench [--runs 3] [--site DIR] [--no-build]
"""

from __future__ import annotations

import argparse
import functools
import os
import resource
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

from explainer_tools.layout import REPO_ROOT
from explainer_tools.pdf import CHROMIUM, CHROMIUM_ARGS

SEARCH_INDEX = "search/search_index.json"
NAMED = {"": "Home", "chapters/05-transformers-gpt2/": "Chapter 5",
         "chapters/14-subsampling-complete-bound/": "Chapter 14",
         "chapters/22-miniature/": "Chapter 22"}
BUDGET_SECONDS = 0.5
BUDGET_BYTES = 1_000_000
BUDGET_BUILD_SECONDS = 5.0

# Recorded from the first moment on: when each batch of web fonts finished loading.
FONT_TIMES_JS = """
window.__fontsDone = 0;
document.fonts.addEventListener("loadingdone", () => { window.__fontsDone = performance.now(); });
"""
RENDERED_JS = """async () => {
  await document.fonts.ready;
  const nav = performance.getEntriesByType("navigation")[0];
  return Math.max(nav ? nav.loadEventEnd : 0, window.__fontsDone || 0) / 1000;
}"""


class _CountingHandler(SimpleHTTPRequestHandler):
    served: ClassVar[list[tuple[str, int]]] = []  # replaced per server by `serve`

    def copyfile(self, source, outputfile) -> None:  # type: ignore[override]
        data = source.read()
        outputfile.write(data)
        self.served.append((self.path.split("?")[0], len(data)))

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def serve(site: Path) -> Iterator[tuple[str, list[tuple[str, int]]]]:
    served: list[tuple[str, int]] = []
    handler = type("Handler", (_CountingHandler,), {"served": served})
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/", served
    finally:
        server.shutdown()
        server.server_close()


def build(site: Path) -> tuple[float, float]:
    """`mkdocs build --strict` into `site`: (wall seconds, CPU seconds of the build)."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d",
                             str(site)], cwd=REPO_ROOT, env=env, capture_output=True, text=True,
                            check=False)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise SystemExit(f"mkdocs build --strict failed:\n{result.stdout}{result.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def chapter_paths(site: Path) -> list[str]:
    return sorted(f"chapters/{p.parent.name}/" for p in (site / "chapters").glob("*/index.html"))


def measure(browser, base: str, served: list, url_path: str, runs: int) -> tuple[float, int]:
    """(median seconds until rendered, bytes served without the search index) of one page."""
    times, sizes = [], []
    for _ in range(runs):
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        try:
            context.add_init_script(FONT_TIMES_JS)
            page = context.new_page()
            served.clear()
            page.goto(base + url_path, wait_until="load")
            page.wait_for_load_state("networkidle")
            times.append(page.evaluate(RENDERED_JS))
            sizes.append(sum(n for path, n in served if not path.endswith(SEARCH_INDEX)))
        finally:
            context.close()
    return statistics.median(times), max(sizes)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, default=REPO_ROOT / "build" / "bench-site")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-build", action="store_true", help="measure the site already there")
    args = parser.parse_args(argv)
    if not args.no_build:
        wall, cpu = build(args.site)
        verdict = "ok" if wall < BUDGET_BUILD_SECONDS else "over budget"
        print(f"mkdocs build --strict: {wall:.1f} s wall, {cpu:.1f} s CPU "
              f"(budget {BUDGET_BUILD_SECONDS:.0f} s: {verdict})")
    from playwright.sync_api import sync_playwright

    rows: dict[str, tuple[float, int]] = {}
    with serve(args.site) as (base, served), sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            for url_path in ["", *chapter_paths(args.site)]:
                rows[url_path] = measure(browser, base, served, url_path, args.runs)
        finally:
            browser.close()
    print(f"{'page':<40} {'rendered s (median of ' + str(args.runs) + ')':>26} {'kB':>8}")
    for url_path, name in NAMED.items():
        seconds, size = rows[url_path]
        print(f"{name:<40} {seconds:>26.2f} {size / 1000:>8.0f}")
    chapters = [p for p in rows if p.startswith("chapters/")]
    slowest = max(chapters, key=lambda p: rows[p][0])
    heaviest = max(chapters, key=lambda p: rows[p][1])
    print(f"{'slowest chapter: ' + slowest.split('/')[1][:22]:<40} {rows[slowest][0]:>26.2f} "
          f"{rows[slowest][1] / 1000:>8.0f}")
    print(f"{'heaviest chapter: ' + heaviest.split('/')[1][:21]:<40} {rows[heaviest][0]:>26.2f} "
          f"{rows[heaviest][1] / 1000:>8.0f}")
    over_time = [p for p in chapters if rows[p][0] >= BUDGET_SECONDS]
    over_size = [p for p in rows if rows[p][1] > BUDGET_BYTES]
    print(f"chapters over {BUDGET_SECONDS} s: {len(over_time)} of {len(chapters)}; "
          f"pages over {BUDGET_BYTES / 1e6:.0f} MB: {len(over_size)} of {len(rows)} "
          f"({', '.join(p or 'home' for p in over_size) or 'none'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
