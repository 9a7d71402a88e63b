"""The browser suite's fixtures: one strict build of the site, a local server, one Chromium.

The site is built once per session, when the first test needs it, never at collection: the
pages that parametrize the tests come from MkDocs' own file collection (list_pages.py, seconds),
and a test checks that they are exactly the pages the build renders. Browser tests skip with a
message when Chromium or Playwright is missing; the link crawler still runs. Screenshots are
opt-in: EXPLAINER_SCREENSHOTS=1 writes them to build/screenshots/.

EXPLAINER_SITE_PROJECT=<folder with mkdocs.yml> points the suite at another copy of the site,
e.g. a scratch copy with a deliberate fault, to see the suite fail on it.
"""

from __future__ import annotations

import atexit
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from browser_kit import (
    CHROMIUM_ARGS,
    DESKTOP,
    MB,
    PHONE,
    REPO_ROOT,
    PageLoad,
    StaticServer,
    budget_for,
    build_site,
    load_page,
    notebook_formulas,
    page_label,
    source_notebook,
)

PROJECT = Path(os.environ.get("EXPLAINER_SITE_PROJECT", REPO_ROOT)).resolve()
SCREENSHOTS = REPO_ROOT / "build" / "screenshots"
ENABLE_HINT = (
    "install Chromium to run them: `apt-get install -y chromium` (Debian/Ubuntu, as root), "
    "or set CHROMIUM=/path/to/chromium"
)

_built: dict[str, Path] = {}
_planned: dict[str, list[str]] = {}
SCREENSHOTS_WANTED = os.environ.get("EXPLAINER_SCREENSHOTS", "") not in ("", "0")
_desktop_loads: dict[str, PageLoad] = {}


def site_dir() -> Path:
    """The site built from PROJECT, once per test session, in a temporary folder."""
    if "site" not in _built:
        tmp = Path(tempfile.mkdtemp(prefix="explainer-site-"))
        atexit.register(shutil.rmtree, tmp, ignore_errors=True)
        _built["site"] = build_site(PROJECT, tmp / "site")
    return _built["site"]


def planned_pages() -> list[str]:
    """URL paths of the pages the build will render (as `discover_pages` names them), from
    MkDocs' file collection and the plugin's generated pages, without building."""
    if "pages" not in _planned:
        result = subprocess.run(
            [sys.executable, str(Path(__file__).with_name("list_pages.py")), str(PROJECT)],
            capture_output=True, text=True, check=False,
            env={**os.environ, "NO_MKDOCS_2_WARNING": "1"})
        if result.returncode != 0:
            raise RuntimeError(f"listing the pages of {PROJECT} failed:\n{result.stderr}")
        urls = json.loads(result.stdout.strip().splitlines()[-1])
        _planned["pages"] = sorted("" if url == "./" else url for url in urls)
    return _planned["pages"]


def site_url() -> str:
    config = yaml.safe_load((PROJECT / "mkdocs.yml").read_text(encoding="utf-8"))
    return str(config.get("site_url") or "http://127.0.0.1:8000/")


def screenshot_path(viewport: str, url_path: str) -> Path:
    name = url_path.strip("/").replace("/", "__") or "home"
    return SCREENSHOTS / viewport / f"{name.removesuffix('.html')}.png"


def loaded_pages(pages: list[str]) -> list[str]:
    """The pages the per-page browser tests load: every page, except that of the script-source
    pages (`code/...`, one generated template holding only highlighted code, source_pages.py)
    only the one of the longest file is loaded. The link crawler (test_site_links.py) and
    test_source_pages_hold_the_files read every one of them.

    >>> loaded_pages(["", "code/ch01_probability/", "code/ch22_markov/", "glossary/"])
    ['', 'code/ch22_markov/', 'glossary/']
    """
    sources = [page for page in pages if page.startswith("code/")]
    if not sources:
        return pages

    def size(page: str) -> int:
        path = PROJECT / "explainer_code" / (page.removeprefix("code/").strip("/") + ".py")
        return path.stat().st_size if path.is_file() else 0

    longest = max(sources, key=size)
    return [page for page in pages if not page.startswith("code/") or page == longest]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "page" in metafunc.fixturenames:
        pages = loaded_pages(planned_pages())
        metafunc.parametrize("page", pages, ids=[page_label(p) for p in pages])


def chromium_path() -> str | None:
    """$CHROMIUM if set (even to a missing file, to try the skip), else the system Chromium."""
    if "CHROMIUM" in os.environ:
        candidates = [os.environ["CHROMIUM"]]
    else:
        candidates = ["/usr/bin/chromium", shutil.which("chromium") or ""]
    return next((c for c in candidates if c and Path(c).is_file()), None)


@pytest.fixture(scope="session")
def built_site() -> Path:
    return site_dir()


@pytest.fixture(scope="session")
def server(built_site: Path) -> Iterator[StaticServer]:
    with StaticServer(built_site) as running:
        yield running


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    executable = chromium_path()
    if executable is None:
        pytest.skip(f"browser tests need Chromium, which is missing; {ENABLE_HINT}")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("browser tests need Playwright (`pip install playwright`, in requirements)")
    shutil.rmtree(SCREENSHOTS, ignore_errors=True)
    playwright = sync_playwright().start()
    try:
        chromium = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()
    finally:
        playwright.stop()


def with_sources(load: PageLoad) -> PageLoad:
    """Add what the page's source says it should show: the formulas of a notebook."""
    notebook = source_notebook(PROJECT / "docs", load.url_path)
    if notebook is not None:
        load.facts["notebookSourceMath"] = notebook_formulas(notebook)
    return load


@pytest.fixture(scope="session")
def desktop_load(browser: Any, server: StaticServer) -> Callable[[str], PageLoad]:
    """Load a page once per session: at desktop width, audited by axe-core in both colour
    schemes, then resized to a phone and measured again (PageLoad.phone_facts). Screenshots of
    both widths when EXPLAINER_SCREENSHOTS=1."""

    def load(url_path: str) -> PageLoad:
        if url_path not in _desktop_loads:
            shots = [screenshot_path(v, url_path) if SCREENSHOTS_WANTED else None
                     for v in ("desktop", "phone")]
            _desktop_loads[url_path] = with_sources(
                load_page(browser, server, url_path, DESKTOP, shots[0], phone=PHONE,
                          phone_screenshot=shots[1], audit=True)
            )
        return _desktop_loads[url_path]

    return load


@pytest.fixture(scope="session")
def phone_load(desktop_load: Callable[[str], PageLoad]) -> Callable[[str], PageLoad]:
    """The same single load, as the phone checks read it (the facts measured after the resize)."""

    def load(url_path: str) -> PageLoad:
        return with_sources(desktop_load(url_path).at_phone())

    return load


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not _desktop_loads:
        return
    write = terminalreporter.write_line
    terminalreporter.section("page weight (bytes served per page, fresh cache, desktop)")
    write(f"{'page':<48} {'requests':>8} {'MB':>7} {'budget':>7} {'math':>8} {'load s':>7}")
    for url_path, load in sorted(_desktop_loads.items()):
        mathjax = sum(r.bytes for r in load.served if "/assets/katex/" in r.path)
        write(
            f"{page_label(url_path):<48} {len(load.served):>8} {load.bytes / MB:>7.3f} "
            f"{budget_for(url_path) / MB:>7.1f} {mathjax / MB:>8.3f} {load.seconds:>7.2f}"
        )
    terminalreporter.section("accessibility (one load per page: axe-core light/dark, tab stops)")
    write(f"{'page':<48} {'axe light':>9} {'axe dark':>9} {'tab stops':>9}")
    for url_path, load in sorted(_desktop_loads.items()):
        axe = load.facts.get("axe", {})
        counts = [sum(len(v["nodes"]) for v in axe.get(s, [])) for s in ("light", "dark")]
        stops = load.facts.get("tabStops", {}).get("total", "?")
        write(f"{page_label(url_path):<48} {counts[0]:>9} {counts[1]:>9} {stops:>9}")
    if SCREENSHOTS_WANTED:
        write(f"screenshots: {SCREENSHOTS}/{{desktop,phone}}/")
