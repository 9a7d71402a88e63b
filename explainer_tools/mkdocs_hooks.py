"""MkDocs hooks: serve MathJax from the site itself, render provenance badges, and date the build
by the last commit (SOURCE_DATE_EPOCH), so two builds of one commit are identical files.

MathJax 3.2.2 comes from the pinned PyPI package `django-static-mathjax` (its `es5/` tree);
what the site needs, `tex-chtml.js`, the TeX extensions it autoloads on demand (`\boldsymbol`,
`\\cancel`, ...: only a page that uses one downloads it) and the CHTML web fonts, are added to the
build as generated files, so nothing third-party is committed and nothing is fetched. The
smaller bundle plus on-demand extensions keeps a chapter's page weight about 170 kB below the
`-full` bundle, which inlines every extension.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

# MkDocs loads hooks by path; make the package importable from the repository root.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from explainer_tools.provenance import ProvenanceError, render_tags, render_tags_in_html

MATHJAX_SITE_DIR = "assets/mathjax"
MATHJAX_FILES = ("tex-chtml.js",)
MATHJAX_FONT_DIR = "output/chtml/fonts/woff-v2"
MATHJAX_EXTENSION_DIR = "input/tex/extensions"


def mathjax_es5_dir() -> Path:
    """The `es5/` folder of the installed MathJax package."""
    import mathjax  # the django-static-mathjax distribution installs this module

    es5 = Path(mathjax.__file__).resolve().parent / "static" / "mathjax" / "es5"
    if not (es5 / MATHJAX_FILES[0]).is_file():
        raise FileNotFoundError(
            f"MathJax's es5 bundle is missing under {es5}; run `make venv` to install "
            "django-static-mathjax from requirements.lock"
        )
    return es5


def mathjax_files() -> list[tuple[str, Path]]:
    """(site path, file on disk) for every MathJax file the site serves."""
    es5 = mathjax_es5_dir()
    pairs = [(f"{MATHJAX_SITE_DIR}/{name}", es5 / name) for name in MATHJAX_FILES]
    for font in sorted((es5 / MATHJAX_FONT_DIR).glob("*.woff")):
        pairs.append((f"{MATHJAX_SITE_DIR}/{MATHJAX_FONT_DIR}/{font.name}", font))
    for extension in sorted((es5 / MATHJAX_EXTENSION_DIR).rglob("*.js")):
        relative = extension.relative_to(es5).as_posix()
        pairs.append((f"{MATHJAX_SITE_DIR}/{relative}", extension))
    return pairs


def source_date_epoch(folder: Path) -> str | None:
    """Seconds since 1970 of the last commit of the repository holding `folder`, or None."""
    try:
        result = subprocess.run(["git", "log", "-1", "--format=%ct"], cwd=folder,
                                capture_output=True, text=True, check=False, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    stamp = result.stdout.strip()
    return stamp if result.returncode == 0 and stamp.isdigit() else None


def on_config(config: Any) -> Any:
    """MkDocs dates the sitemap with SOURCE_DATE_EPOCH when it is set; set it to the last
    commit's date unless the caller chose one (outside a git checkout: today, as before)."""
    if "SOURCE_DATE_EPOCH" not in os.environ:
        epoch = source_date_epoch(Path(config["config_file_path"]).resolve().parent)
        if epoch is not None:
            os.environ["SOURCE_DATE_EPOCH"] = epoch
    return config


def on_files(files: Files, config: Any) -> Files:
    for site_path, disk_path in mathjax_files():
        files.append(File.generated(config, site_path, abs_src_path=str(disk_path)))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    try:
        rendered, _tags = render_tags(markdown, page=f"docs/{page.file.src_uri}")
    except ProvenanceError as error:
        raise PluginError(str(error)) from None
    return rendered


def on_page_content(html_text: str, page: Any, config: Any, files: Files) -> str:
    """Notebook pages arrive as HTML (mkdocs-jupyter renders them): badge their tags here."""
    if not page.file.src_uri.endswith(".ipynb"):
        return html_text
    try:
        rendered, _tags = render_tags_in_html(html_text, page=f"docs/{page.file.src_uri}")
    except ProvenanceError as error:
        raise PluginError(str(error)) from None
    return rendered
