"""The copy of the site built to work opened from a folder (`make offline`, file://).

Built once for this module from mkdocs-offline.yml, as `make offline` builds it (pages as .html
files). Every
relative link and source of every page must name a file that exists, so nothing opens a folder
listing; in Chromium, from file:// with no server and no network, the home page's list reaches a
chapter, a "Chapter N" link reaches another, and nothing is requested from outside. Search
needs a server (Material's offline search loads a worker shim from a CDN), so it is not tested.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

REPO = Path(__file__).resolve().parents[2]
LINK = re.compile(r'(?:href|src)="([^"#:?]*)(?:[#?][^"]*)?"')


@pytest.fixture(scope="module")
def offline_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    dest = tmp_path_factory.mktemp("offline") / "site"
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", "mkdocs-offline.yml",
         "-d", str(dest)],
        cwd=REPO, env=env, capture_output=True, text=True, check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return dest



def dead_links(site: Path) -> list[str]:
    """'page: link' for each relative href/src that names no file (404.html uses absolute
    paths on purpose: a server shows it, a folder never does)."""
    dead = []
    for page in sorted(site.rglob("*.html")):
        if page.name == "404.html":
            continue
        for link in set(LINK.findall(page.read_text(encoding="utf-8", errors="replace"))):
            if not link or link.startswith(("http", "data", "mailto", "//", "javascript")):
                continue
            target = (page.parent / link).resolve()
            if not target.is_file():
                dead.append(f"{page.relative_to(site)}: {link}")
    return dead


def test_every_link_of_the_offline_copy_names_a_file(offline_site: Path) -> None:
    assert (offline_site / "chapters" / "09-generalization.html").is_file()
    assert dead_links(offline_site) == []


def test_dead_links_finds_a_folder_link(tmp_path: Path) -> None:
    (tmp_path / "chapters").mkdir()
    (tmp_path / "index.html").write_text('<a href="chapters/">x</a><a href="index.html#a">')
    assert dead_links(tmp_path) == ["index.html: chapters/"]


def test_offline_copy_navigates_from_a_folder(offline_site, browser) -> None:
    page = browser.new_page(viewport={"width": 1280, "height": 900})  # type: ignore[attr-defined]
    failed: list[str] = []
    page.on("requestfailed", lambda request: failed.append(request.url))
    page.goto((offline_site / "index.html").as_uri())
    page.locator("article a[href='chapters/09-generalization.html']").first.click()
    page.wait_for_load_state()
    assert page.url.endswith("/chapters/09-generalization.html")
    assert "Generalization" in page.inner_text("h1")
    page.locator("article a.chapter-link[href$='/10-hoeffding-union-bound.html']").first.click()
    page.wait_for_load_state()
    assert page.url.endswith("/chapters/10-hoeffding-union-bound.html")
    assert failed == []
    page.close()
