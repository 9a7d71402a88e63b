"""`make bench-site`: the site's budgets, measured (a benchmark to read, not a timed test).

It builds the site (`mkdocs build --strict`, timed: wall clock and the build's CPU seconds),
serves it on 127.0.0.1 and loads every page a reader opens (the home page, the chapters, the
companion notebook, the reference pages, the errata, the scripts' source pages; not the whole
book on one page, which is the PDF's source) in headless Chromium, each in a fresh context (an
empty cache), three times. Per page it prints the bytes served, the search index left out (the
search box fetches it; the budget does not count it), the median time until the page is fully
rendered (the load event or the last web font, KaTeX's, loaded, whichever is later), and whether
the page is within the byte budget: a table of every page, then the home page, Chapters 5, 14
and 22, the notebook, the slowest and the heaviest chapter.

Then `make serve`'s re-render time: a scratch copy of the project (its files and `.cache/`) is
served by `mkdocs serve`, a word is added to a paragraph of Chapter 14, and the time until the
served page holds it is taken (median of `--runs` edits). And, when Lighthouse is installed
(`make bench-tools`: `npm ci` of the committed bench-tools/package.json and package-lock.json
into bench-tools/node_modules, git-ignored), Lighthouse's mobile and desktop performance and
accessibility scores of the home page, Chapters 5, 14 and 22 and the notebook's page, while
`--busy` processes (2 unless told) spin on the CPU beside the browser: the budget must hold on
a busy machine, not only at rest. Nothing is downloaded here: without Lighthouse the bench says
how to get it and goes on.

Budgets: every chapter rendered in under 0.5 s, no page over 1 MB without the search
index, `make site` under 5 s (under 20 s from a fresh clone, with no `.cache/`), a prose edit
re-rendered by `make serve` in under 2 s, Lighthouse mobile performance at least 95 on those
pages at rest, at least 90 beside two busy loops. The
bench prints each budget and whether it is met. The figures depend on the machine and its load:
read them, do not assert them in a test.

    .venv/bin/python -m explainer_tools.website.site_bench [--runs 3] [--site DIR] [--no-build]
        [--no-serve] [--no-lighthouse] [--uncompressed] [--busy 2]

The bytes and times per page come from a plain server (the budget counts bytes before
compression). Lighthouse runs on a server that gzip-compresses text as static hosts do, since
its simulated slow network is what compression is for; `--uncompressed` runs it on a plain one.
"""

from __future__ import annotations

import argparse
import functools
import gzip
import io
import json
import os
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

from explainer_tools.layout import CACHE_DIR
from explainer_tools.layout import DEFAULT as LAYOUT
from explainer_tools.website.pdf import CHROMIUM, CHROMIUM_ARGS

SEARCH_INDEX = "search/search_index.json"
NAMED = {"": "Home", "chapters/05-transformers-gpt2/": "Chapter 5",
         "chapters/14-subsampling-complete-bound/": "Chapter 14",
         "chapters/22-miniature/": "Chapter 22",
         "notebooks/gpt2-under-the-hood/": "Notebook"}
BUDGET_SECONDS = 0.5
BUDGET_BYTES = 1_000_000
BUDGET_BUILD_SECONDS = 5.0
BUDGET_COLD_BUILD_SECONDS = 20.0  # a fresh clone: no .cache/
BUDGET_SERVE_SECONDS = 2.0
BUDGET_LIGHTHOUSE = 95
BUDGET_LIGHTHOUSE_BUSY = 90  # beside two busy loops
# Built files that are not pages a reader opens: the 404 page, the theme's and search's assets,
# and the whole book on one page (the PDF's source, `make pdf`).
NOT_READER_PAGES = ("404.html",)
NOT_READER_DIRS = ("assets", "search", "javascripts", "stylesheets", "print_page")
SERVE_PAGE = "docs/chapters/14-subsampling-complete-bound.md"
LIGHTHOUSE = Path(os.environ.get("EXPLAINER_LIGHTHOUSE", "")
                  or LAYOUT.root / "bench-tools" / "node_modules" / ".bin" / "lighthouse")

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


class _CompressingHandler(_CountingHandler):
    """Text files gzip-compressed when the browser accepts it, as a static host serves them
    (GitHub Pages, Netlify, nginx's gzip_static): what Lighthouse's simulated network sees."""

    TYPES = (".html", ".js", ".css", ".json", ".svg", ".xml", ".txt")

    def send_head(self):  # type: ignore[override]
        path = Path(self.translate_path(self.path))
        if path.is_dir():
            path = path / "index.html"
        accepts = "gzip" in self.headers.get("Accept-Encoding", "")
        if not (accepts and path.is_file() and path.suffix in self.TYPES):
            return super().send_head()
        data = gzip.compress(path.read_bytes(), compresslevel=6, mtime=0)
        self.send_response(200)
        self.send_header("Content-Type", self.guess_type(str(path)))
        self.send_header("Content-Encoding", "gzip")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        return io.BytesIO(data)


@contextmanager
def serve(site: Path, compress: bool = False) -> Iterator[tuple[str, list[tuple[str, int]]]]:
    served: list[tuple[str, int]] = []
    base = _CompressingHandler if compress else _CountingHandler
    handler = type("Handler", (base,), {"served": served})
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(handler, directory=str(site)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_port}/", served
    finally:
        server.shutdown()
        server.server_close()


def build(site: Path, project: Path = LAYOUT.root) -> tuple[float, float]:
    """`mkdocs build --strict` of `project` into `site`: (wall seconds, CPU seconds)."""
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    result = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d",
                             str(site)], cwd=project, env=env, capture_output=True, text=True,
                            check=False)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise SystemExit(f"mkdocs build --strict failed:\n{result.stdout}{result.stderr}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def chapter_paths(site: Path) -> list[str]:
    return sorted(f"chapters/{p.parent.name}/" for p in (site / "chapters").glob("*/index.html"))


def reader_pages(site: Path) -> list[str]:
    """URL paths of every page of the built site that a reader opens ('' for the home page)."""
    pages = []
    for html in sorted(site.rglob("*.html")):
        rel = html.relative_to(site)
        if rel.as_posix() in NOT_READER_PAGES or rel.parts[0] in NOT_READER_DIRS:
            continue
        url = rel.as_posix()
        pages.append("" if url == "index.html" else url.removesuffix("index.html"))
    return sorted(pages)


@contextmanager
def busy_loops(count: int) -> Iterator[list[subprocess.Popen]]:
    """`count` processes that spin on the CPU until the block ends (a loaded machine)."""
    loops = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
             for _ in range(count)]
    try:
        yield loops
    finally:
        for loop in loops:
            loop.kill()
        for loop in loops:
            loop.wait(timeout=10)


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


def _verdict(met: bool) -> str:
    return "met" if met else "NOT met"


def scratch_copy(dest: Path, cache: bool = True) -> None:
    """The project's files (tracked and not ignored), and its `.cache/` unless `cache` is
    False (a fresh clone), copied to `dest`."""
    listed = subprocess.run(["git", "ls-files", "-z", "-co", "--exclude-standard"], cwd=LAYOUT.root,
                            capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = LAYOUT.root / name
        if source.is_file() and not source.is_symlink():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    if cache and LAYOUT.cache_dir.is_dir():
        shutil.copytree(LAYOUT.cache_dir, dest / CACHE_DIR)


def cold_build() -> tuple[float, float]:
    """`build` of a scratch copy of the project without its `.cache/`, as a fresh clone builds."""
    with tempfile.TemporaryDirectory(prefix="bench-cold-") as folder:
        scratch = Path(folder) / "project"
        scratch_copy(scratch, cache=False)
        return build(scratch / "site", scratch)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _fetch(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.read().decode("utf-8", "replace")
    except OSError:
        return ""


def _wait_for(url: str, word: str, limit: float) -> float | None:
    """Seconds until the page at `url` holds `word` (None after `limit` seconds)."""
    start = time.monotonic()
    while time.monotonic() - start < limit:
        if word in _fetch(url):
            return time.monotonic() - start
        time.sleep(0.05)
    return None


def _cpu_seconds(pid: int) -> float:
    """User and system CPU seconds of a running process so far (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def serve_command(port: int, dirty: bool) -> list[str]:
    """`mkdocs serve` as `make serve` runs it; `dirty`: with `--dirtyreload`, for comparison,
    not strict (a dirty build always warns that the other pages go stale, and a strict build
    stops at that warning, so the edit would never be served).

    >>> serve_command(8000, False)[1:]
    ['-m', 'mkdocs', 'serve', '--strict', '-a', '127.0.0.1:8000']
    >>> serve_command(8000, True)[3:]
    ['serve', '--no-strict', '--dirtyreload', '-a', '127.0.0.1:8000']
    """
    flags = ["--no-strict", "--dirtyreload"] if dirty else ["--strict"]
    return [sys.executable, "-m", "mkdocs", "serve", *flags, "-a", f"127.0.0.1:{port}"]


def serve_rerender(runs: int, dirty: bool = False) -> list[tuple[float, float] | None]:
    """(wall seconds, the server's CPU seconds) from saving a prose edit of Chapter 14 to
    `mkdocs serve` serving it, per edit (None: not served within two minutes)."""
    times: list[tuple[float, float] | None] = []
    with tempfile.TemporaryDirectory(prefix="bench-serve-") as folder:
        scratch = Path(folder)
        scratch_copy(scratch)
        port = _free_port()
        command = serve_command(port, dirty)
        with (scratch / "serve.log").open("w") as log:
            server = subprocess.Popen(command, cwd=scratch, stdout=log, stderr=log,
                                      env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
                                      start_new_session=True)
        try:
            url = f"http://127.0.0.1:{port}/" + SERVE_PAGE.removeprefix("docs/").removesuffix(
                ".md") + "/"
            if _wait_for(url, "</html>", 600) is None:
                log_text = (scratch / "serve.log").read_text()
                raise SystemExit(f"mkdocs serve did not start:\n{log_text}")
            page = scratch / SERVE_PAGE
            original = page.read_text(encoding="utf-8")
            for run in range(runs):
                word = f"benchedit{run}word"
                before = _cpu_seconds(server.pid)
                page.write_text(original + f"\n\nA sentence the bench adds, {word}.\n",
                                encoding="utf-8")
                wall = _wait_for(url, word, 120)
                times.append(None if wall is None else (wall, _cpu_seconds(server.pid) - before))
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            server.wait(timeout=60)
    return times


def lighthouse(url: str, desktop: bool, runs: int = 1) -> dict[str, float]:
    """Lighthouse's performance and accessibility scores (0-100) of one page: the median of
    `runs` runs (a single run varies by several points on this machine)."""
    scores = [_lighthouse_once(url, desktop) for _ in range(runs)]
    names = {name for score in scores for name in score}
    return {name: statistics.median(s[name] for s in scores if name in s) for name in names}


def _lighthouse_once(url: str, desktop: bool) -> dict[str, float]:
    with tempfile.TemporaryDirectory(prefix="bench-lh-") as folder:
        report = Path(folder) / "report.json"
        flags = " ".join(["--headless=new", *CHROMIUM_ARGS[:2]])
        command = [str(LIGHTHOUSE), url, "--quiet", "--output=json", f"--output-path={report}",
                   "--only-categories=performance,accessibility", f"--chrome-path={CHROMIUM}",
                   f"--chrome-flags={flags}", *(["--preset=desktop"] if desktop else [])]
        subprocess.run(command, capture_output=True, text=True, check=False, timeout=600)
        if not report.is_file():
            return {}
        categories = json.loads(report.read_text(encoding="utf-8"))["categories"]
    # a category Lighthouse could not score (a page that timed out) has score null: left out
    return {name: round(100 * value["score"]) for name, value in categories.items()
            if value.get("score") is not None}


def print_lighthouse(base: str, runs: int = 3, busy: int = 0) -> None:
    if not LIGHTHOUSE.exists():
        print("Lighthouse: not installed; `make bench-tools` installs Lighthouse 12.2.3 from "
              "bench-tools/package-lock.json (node and npm needed, once, with a network)")
        return
    budget = BUDGET_LIGHTHOUSE_BUSY if busy else BUDGET_LIGHTHOUSE
    print(f"Lighthouse, median of {runs} runs each, "
          + (f"{busy} busy loop(s) spinning beside the browser" if busy else "machine at rest"))
    print(f"{'Lighthouse':<16} {'mobile perf':>12} {'mobile a11y':>12} {'desktop perf':>13} "
          f"{'desktop a11y':>13}")
    mobile_scores = []
    for url_path, name in NAMED.items():
        mobile = lighthouse(base + url_path, False, runs)
        desktop = lighthouse(base + url_path, True, runs)
        mobile_scores.append(mobile.get("performance", 0))  # unscored: not met
        print(f"{name:<16} {mobile.get('performance', '-'):>12} "
              f"{mobile.get('accessibility', '-'):>12} {desktop.get('performance', '-'):>13} "
              f"{desktop.get('accessibility', '-'):>13}")
    print(f"budget: Lighthouse mobile performance >= {budget} on these pages"
          + (" beside busy loops" if busy else "") + f": {_verdict(min(mobile_scores) >= budget)}")


def print_pages(rows: dict[str, tuple[float, int]], runs: int) -> None:
    header = f"{'page':<40} {'rendered s (median of ' + str(runs) + ')':>26} {'kB':>8}"
    print(f"every page: {header}  within {BUDGET_BYTES / 1e6:.0f} MB")
    for url_path, (seconds, size) in sorted(rows.items()):
        print(f"{'/' + url_path:<52} {seconds:>26.2f} {size / 1000:>8.0f}  "
              + ("yes" if size <= BUDGET_BYTES else "NO"))
    print(header)
    for url_path, name in NAMED.items():
        if url_path not in rows:
            continue
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
    print(f"budget: every chapter rendered in < {BUDGET_SECONDS} s: {_verdict(not over_time)} "
          f"({len(over_time)} of {len(chapters)} over)")
    print(f"budget: no page over {BUDGET_BYTES / 1e6:.0f} MB: {_verdict(not over_size)} "
          f"({len(over_size)} of {len(rows)} over: "
          f"{', '.join(p or 'home' for p in over_size) or 'none'})")


def print_serve(runs: int) -> None:
    for dirty in (False, True):
        times = serve_rerender(runs, dirty)
        done = [t for t in times if t is not None]
        median = statistics.median(t[0] for t in done) if done else float("inf")
        cpu = statistics.median(t[1] for t in done) if done else float("inf")
        label = ("mkdocs serve --no-strict --dirtyreload (the other pages go stale)" if dirty
                 else "make serve (mkdocs serve)")
        shown = ", ".join("timeout" if t is None else f"{t[0]:.1f}" for t in times)
        line = (f"{label}: a prose edit re-rendered in {median:.1f} s wall, {cpu:.1f} s CPU "
                f"(medians; wall {shown})")
        if not dirty:
            met = median < BUDGET_SERVE_SECONDS
            line += f"; budget {BUDGET_SERVE_SECONDS:.0f} s: {_verdict(met)}"
        print(line)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--site", type=Path, default=LAYOUT.build_dir / "bench-site")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--no-build", action="store_true", help="measure the site already there")
    parser.add_argument("--no-serve", action="store_true", help="skip the serve re-render time")
    parser.add_argument("--no-lighthouse", action="store_true", help="skip Lighthouse")
    parser.add_argument("--lighthouse-runs", type=int, default=3)
    parser.add_argument("--busy", type=int, default=2,
                        help="busy loops spinning beside Lighthouse's browser (0: at rest)")
    parser.add_argument("--uncompressed", action="store_true",
                        help="Lighthouse on a server that does not compress (as `make serve`)")
    args = parser.parse_args(argv)
    if args.no_build and not (args.site / "index.html").is_file():
        raise SystemExit(f"site_bench: --no-build, but {args.site} holds no built site "
                         "(build it, or pass --site DIR)")
    if not args.no_build:
        wall, cpu = build(args.site)
        print(f"mkdocs build --strict: {wall:.1f} s wall, {cpu:.1f} s CPU; budget "
              f"{BUDGET_BUILD_SECONDS:.0f} s: {_verdict(wall < BUDGET_BUILD_SECONDS)}")
        wall, cpu = cold_build()
        print(f"mkdocs build --strict of a fresh clone (no .cache/): {wall:.1f} s wall, "
              f"{cpu:.1f} s CPU; budget {BUDGET_COLD_BUILD_SECONDS:.0f} s: "
              f"{_verdict(wall < BUDGET_COLD_BUILD_SECONDS)}")
    from playwright.sync_api import sync_playwright

    rows: dict[str, tuple[float, int]] = {}
    with serve(args.site) as (base, served):
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                for url_path in reader_pages(args.site):
                    rows[url_path] = measure(browser, base, served, url_path, args.runs)
            finally:
                browser.close()
        print_pages(rows, args.runs)
    if not args.no_lighthouse:
        with serve(args.site, compress=not args.uncompressed) as (base, _served):
            print("Lighthouse on a server that " + ("does not compress" if args.uncompressed
                  else "gzip-compresses text files, as static hosts do"))
            with busy_loops(args.busy):
                print_lighthouse(base, args.lighthouse_runs, args.busy)
    if not args.no_serve:
        print_serve(args.runs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
