"""Pages on disk for the browser tests that load one script of the site into a small page.

These tests (bound explorer, number cards, narrow tables) need no site build: they write an
HTML file into a temporary folder that loads the site's own script and stylesheet by path, and
open it from disk (file://) in the suite's Chromium (the `browser` fixture of conftest.py), which
also proves the feature works with no server.
"""

from __future__ import annotations

from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs"
ARGS = ["--no-sandbox", "--disable-gpu", "--host-resolver-rules=MAP * ~NOTFOUND"]


def write_page(folder: Path, body: str, scripts: list[str], styles: list[str] = ()) -> str:
    """Write an HTML page loading docs/<script> and docs/<style> by path; return its file URL."""
    head = "".join(f"<link rel='stylesheet' href='{(DOCS / s).as_uri()}'>" for s in styles)
    tail = "".join(f"<script src='{(DOCS / s).as_uri()}'></script>" for s in scripts)
    page = folder / "page.html"
    page.write_text(
        "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>fixture</title>"
        f"{head}</head><body><main class='md-typeset'>{body}</main>{tail}</body></html>",
        encoding="utf-8",
    )
    return page.as_uri()
