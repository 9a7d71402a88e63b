"""The companion notebook's page, without Jupyter in the site build when nothing changed.

mkdocs-jupyter turned `docs/notebooks/*.ipynb` into pages; importing it costs more than a second
of every build (jupytext, nbformat and nbconvert load at import), though its own cache already
held the page. This feature does what the plugin did for this book, with the plugin's settings
of mkdocs.yml before (`execute: false`, `include_source: true`, the rest default):

- the notebook is a page of the site (`NotebookFile`), at `notebooks/<name>/`;
- its HTML, table of contents and title come from `.cache/mkdocs-jupyter/<key>.json`, the
  plugin's own cache file and key (the notebook's bytes and the conversion options), so the
  page is the same, byte for byte; only on a miss is mkdocs-jupyter imported, to convert the
  notebook (nbconvert, not executed: `make regenerate` executes it) and fill the cache. The
  conversion (seconds, most of them imports) starts in a process of its own as soon as the
  build lists its files (`start_conversions`), so that a fresh clone's build does the rest of
  the book meanwhile, on the other core;
- the `.ipynb` is copied beside the page (the notebook's download link);
- the page is made lighter once, when converted (`notebook_slim`: the stylesheet cut to what the
  cells use, the copy buttons' duplicate sources dropped, the code's unstyled token spans
  unwrapped, figures as lazily loaded files beside the page); `SLIM` enters the cache key, so a
  page cached before a change of it is converted again.

    >>> cache_key(b"{}")[:12]
    '9a4346f523f6'
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files
from mkdocs.structure.toc import get_toc

from explainer_tools.layout import DEFAULT
from explainer_tools.website import notebook_slim
from explainer_tools.website.build_cache import CACHE_ROOT

# Which files are notebooks, anywhere under docs/ (mkdocs-jupyter's `include: ["*.ipynb"]`): the
# default of the plugin's `notebooks` setting.
NOTEBOOK_GLOB = "*.ipynb"
CACHE_DIR = CACHE_ROOT / "mkdocs-jupyter"
# mkdocs-jupyter 0.26's options as mkdocs.yml set them (`execute: false`), in its key's order.
OPTIONS: dict[str, Any] = {
    "kernel_name": "", "theme": "", "allow_errors": True, "show_input": True, "no_input": False,
    "no_prompt": False, "remove_tag_config": {}, "highlight_extra_classes": "",
    "include_requirejs": False, "custom_mathjax_url": "", "toc_depth": 6,
}  # fmt: skip
SLIM = "slim=3"  # the version of notebook_slim's changes, in the cache key


class NotebookFile(File):
    """A notebook that is a page of the site (MkDocs takes only Markdown files as pages)."""

    def is_documentation_page(self) -> bool:
        return True


def cache_key(notebook: bytes, slim: str | None = SLIM) -> str:
    """mkdocs-jupyter's cache key (the notebook's bytes and the conversion options), extended
    with `slim` (None: mkdocs-jupyter's key itself)."""
    hasher = hashlib.sha256()
    hasher.update(notebook)
    hasher.update(b"execute=False")
    for key, value in OPTIONS.items():
        hasher.update(f"{key}={value!r}".encode())
    if slim is not None:
        hasher.update(slim.encode())
    return hasher.hexdigest()


def _convert(path: str) -> dict[str, Any]:
    """The page from the notebook by mkdocs-jupyter's converter (the slow path: imports Jupyter)."""
    from mkdocs_jupyter import convert, plugin

    options = {k: v for k, v in OPTIONS.items() if k != "toc_depth"}
    content = convert.nb2html(path, execute=False, **options)
    content, figures = notebook_slim.images(notebook_slim.slim(content))
    toc_tokens, title = plugin._get_nb_toc_tokens(path, OPTIONS["toc_depth"])
    return {"content": content, "toc_tokens": toc_tokens, "title": title,
            "images": {name: base64.b64encode(data).decode() for name, data in figures.items()}}


def _cache_file(path: str) -> Path:
    return CACHE_DIR / f"{cache_key(Path(path).read_bytes())}.json"



def _store(cache: Path, page: dict[str, Any]) -> None:
    """Write a converted page to its cache file, whole or not at all."""
    try:
        cache.parent.mkdir(parents=True, exist_ok=True)
        temporary = cache.with_name(f"{cache.name}.{os.getpid()}.tmp")
        temporary.write_text(json.dumps(page), encoding="utf-8")
        temporary.replace(cache)
    except OSError:
        pass  # a read-only checkout converts on every build


def _load(cache: Path) -> dict[str, Any] | None:
    try:
        return json.loads(cache.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


class Notebooks:
    """The notebook feature of one build: which files are notebooks (`glob`, the plugin's
    `notebooks` setting) and the conversions this build started."""

    def __init__(self, glob: str = NOTEBOOK_GLOB) -> None:
        self.glob = glob
        # Conversions under way in a process of their own, by the cache file they will fill.
        self.pending: dict[Path, subprocess.Popen] = {}

    def is_notebook(self, file: File) -> bool:
        return Path(file.src_uri).match(self.glob)

    def as_pages(self, files: Files) -> Files:
        """`files` with every notebook made a page."""
        return Files([NotebookFile(f.src_uri, f.src_dir, f.dest_dir, f.use_directory_urls)
                      if self.is_notebook(f) and f.src_dir else f for f in files])

    def start_conversions(self, files: Files) -> None:
        """Start converting, each in a process of its own (`python -m
        explainer_tools.website.notebook_page NOTEBOOK CACHE_FILE`), the notebooks whose page is
        not cached."""
        for file in files:
            if not (self.is_notebook(file) and file.abs_src_path
                    and Path(file.abs_src_path).is_file()):
                continue
            cache = _cache_file(file.abs_src_path)
            if cache.is_file() or cache in self.pending:
                continue
            env = {**os.environ, "PYTHONPATH": os.pathsep.join(
                filter(None, [str(DEFAULT.root), os.environ.get("PYTHONPATH")]))}
            self.pending[cache] = subprocess.Popen(
                [sys.executable, "-m", "explainer_tools.website.notebook_page", file.abs_src_path,
                 str(cache)],
                cwd=DEFAULT.root, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL)

    def rendered(self, path: str) -> dict[str, Any]:
        """{content, toc_tokens, title} of the notebook at `path`: from the cache (filled by the
        conversion under way, once it ends), else converted here (a failed conversion in its
        own process fails again here, with its error)."""
        cache = _cache_file(path)
        pending = self.pending.pop(cache, None)
        if pending is not None:
            pending.wait()
        page = _load(cache)
        if page is None:
            page = _convert(path)
            _store(cache, page)
        return page

    def prepare(self, page: Any) -> None:
        """Make a notebook page render from `rendered` instead of from Markdown."""
        if not self.is_notebook(page.file):
            return
        path = page.file.abs_src_path

        def render(config: Any, files: Files) -> None:
            data = self.rendered(path)
            page.content = data["content"]
            page.toc = get_toc(data["toc_tokens"])
            if data.get("title") is not None:
                page.title = data["title"]

        page.render = render

    def copy_source(self, page: Any) -> None:
        """The `.ipynb` beside its page (the page's download link), and the page's figures."""
        if self.is_notebook(page.file):
            target = Path(page.file.abs_dest_path).parent / Path(page.file.abs_src_path).name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(page.file.abs_src_path, target)
            for name, data in self.rendered(page.file.abs_src_path).get("images", {}).items():
                (target.parent / name).write_bytes(base64.b64decode(data))


if __name__ == "__main__":  # the conversion in a process of its own (`start_conversions`)
    notebook, cache_file = sys.argv[1:3]
    _store(Path(cache_file), _convert(notebook))
