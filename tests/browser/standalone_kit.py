"""Pages on disk for the browser tests that load one script of the site into a small page.

These tests (bound explorer, number cards, narrow tables) need no site build: they write an
HTML file into a temporary folder that loads the site's own script and stylesheet by path, and
open it from disk (file://) in the suite's Chromium (the `browser` fixture of conftest.py), which
also proves the feature works with no server. With `theme`, the page also loads Material's own
stylesheets from the installed theme (its reset, its colour variables) and carries the palette
attributes Material writes on <body>, in the light scheme or (`scheme="slate"`) the dark one.
"""

from __future__ import annotations

from pathlib import Path

DOCS = Path(__file__).resolve().parents[2] / "docs"
ARGS = ["--no-sandbox", "--disable-gpu", "--host-resolver-rules=MAP * ~NOTFOUND"]


def theme_stylesheets() -> list[str]:
    """File URLs of Material's main and palette stylesheets, as installed."""
    import material

    folder = Path(material.__file__).parent / "templates" / "assets" / "stylesheets"
    return [sorted(folder.glob(f"{name}.*.min.css"))[0].as_uri() for name in ("main", "palette")]


def write_page(folder: Path, body: str, scripts: list[str], styles: list[str] = (),
               theme: bool = False, scheme: str = "default") -> str:
    """Write an HTML page loading docs/<script> and docs/<style> by path; return its file URL."""
    links = (theme_stylesheets() if theme else []) + [(DOCS / s).as_uri() for s in styles]
    head = "".join(f"<link rel='stylesheet' href='{href}'>" for href in links)
    tail = "".join(f"<script src='{(DOCS / s).as_uri()}'></script>" for s in scripts)
    palette = (f" data-md-color-scheme='{scheme}' data-md-color-primary='indigo'"
               " data-md-color-accent='indigo'") if theme else ""
    page = folder / "page.html"
    page.write_text(
        "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>fixture</title>"
        f"{head}</head><body{palette}><main class='md-typeset'>{body}</main>{tail}</body></html>",
        encoding="utf-8",
    )
    return page.as_uri()
