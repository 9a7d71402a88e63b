"""MkDocs hook: render each erratum page from its front matter, and fill the errata index.

The logic lives in `errata.py`; this module only connects it to MkDocs' events. It runs before
the provenance hook (higher priority), so the tags in the rendered fields become badges too.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority
from mkdocs.structure.files import Files

# MkDocs loads hooks by path; make the package importable from the repository root.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explainer_tools import errata


@event_priority(50)  # before mkdocs_hooks.py renders provenance badges (default priority 0)
def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    src_uri = page.file.src_uri
    docs_dir = Path(config["docs_dir"])
    if src_uri == errata.INDEX_PATH:
        return _render_index(markdown, docs_dir)
    folder, _, name = src_uri.rpartition("/")
    if folder != "errata" or not errata.is_erratum_file(name):
        return markdown
    try:
        erratum = errata.read_erratum(Path(page.file.abs_src_path))
    except errata.ErratumError as error:
        raise PluginError(str(error)) from None
    erratum = errata.Erratum(erratum.path, erratum.meta, markdown)
    problems = errata.check_fields(erratum)
    if problems:
        raise PluginError("; ".join(problems))
    page.meta["title"] = f"{erratum.meta['id']}: {erratum.meta['title']}"
    # Material reads `status` as its own page status (new/deprecated); ours is shown in the page.
    page.meta.pop("status", None)
    return errata.render_page(erratum, docs_dir)


def _render_index(markdown: str, docs_dir: Path) -> str:
    if markdown.count(errata.INDEX_MARKER) != 1:
        raise PluginError(f"docs/{errata.INDEX_PATH} must contain {errata.INDEX_MARKER} once")
    try:
        all_errata = errata.load_errata(docs_dir / "errata")
    except errata.ErratumError as error:
        raise PluginError(str(error)) from None
    problems = [p for e in all_errata for p in errata.check_fields(e)]
    if problems:
        raise PluginError("; ".join(problems))
    return markdown.replace(errata.INDEX_MARKER, errata.render_index(all_errata, docs_dir))
