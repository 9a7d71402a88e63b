"""The plugin's build, provenance and math features (plugin.py calls them): render every formula
at build time (explainer_tools/website/math_render.py), render provenance badges, fill the bound
explorer's presets from the outputs (explorer_presets.py), write the first palette's colour tags
in each page's head (`palette_metas`), and date the build by the last commit
(SOURCE_DATE_EPOCH), so two builds of one commit are identical files.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files

from explainer_tools.book.provenance import ProvenanceError, render_tags, render_tags_in_html
from explainer_tools.layout import Layout
from explainer_tools.website import build_cache, math_render, print_site_anchors, render_cache
from explainer_tools.website.explorer_presets import REQUEST, PresetError, expand

# mkdocs-jupyter's template loads MathJax 2 (with an empty src) and configures it; the page's
# formulas are rendered at build time instead.
NOTEBOOK_MATHJAX = re.compile(r"<!-- Load mathjax -->.*?<!-- End of mathjax configuration -->",
                              re.S)


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
    """Fix the print-site plugin's anchors (print_site_anchors.py), and convert each page's
    Markdown only when it changed (render_cache.py). MkDocs dates the sitemap with
    SOURCE_DATE_EPOCH when it is set; set it to the last commit's date unless the caller chose
    one (outside a git checkout: today, as before)."""
    print_site_anchors.fix_print_site()
    render_cache.patch_render()
    if "SOURCE_DATE_EPOCH" not in os.environ:
        epoch = source_date_epoch(Path(config["config_file_path"]).resolve().parent)
        if epoch is not None:
            os.environ["SOURCE_DATE_EPOCH"] = epoch
    return config


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """Badge the provenance tags; give a bound explorer that asks for them the presets read
    from the scripts' outputs (explainer_tools/website/explorer_presets.py)."""
    try:
        if REQUEST in markdown:
            outputs = Layout(Path(config["config_file_path"]).resolve().parent).output_dir
            markdown = expand(markdown, outputs)
        rendered, _tags = render_tags(markdown, page=f"docs/{page.file.src_uri}")
    except (ProvenanceError, PresetError) as error:
        raise PluginError(str(error)) from None
    return rendered


def on_page_content(html_text: str, page: Any, config: Any, files: Files) -> str:
    """Notebook pages arrive as HTML (mkdocs-jupyter renders them): badge their tags here, and
    drop the MathJax loader its template writes."""
    src = page.file.src_uri
    if not src.endswith(".ipynb"):
        return html_text
    try:
        html_text, _tags = render_tags_in_html(html_text, page=f"docs/{src}")
    except ProvenanceError as error:
        raise PluginError(str(error)) from None
    html_text = NOTEBOOK_MATHJAX.sub("", html_text)
    page.html = html_text  # the print-site plugin's copy
    return html_text


def _render_math(html_text: str, page: str, source_path: str | None) -> str:
    try:
        return math_render.render_page(html_text)
    except math_render.MathError as error:
        source = ""
        if source_path:
            source = Path(source_path).read_text(encoding="utf-8", errors="replace")
        raise PluginError(math_render.locate(error, page, source)) from None


# The colour-scheme and theme-color tags of the first palette (light, and the colour of
# Material's header there: the plugin's `theme_color`), written where the page starts. The
# reader's palette script (reader.js) writes a tag only when it differs from what the header
# shows; a tag it had to create made the browser restyle the whole page once it was parsed (on
# the notebook page, a third of the elements styled during a phone's load). In the dark palette
# the script rewrites them. tests/browser/test_browser_reader.py checks that the light palette
# writes no tag.
THEME_COLOR = "#4051b5"  # Material's header in the palette `primary: indigo`


def palette_metas(page_html: str, theme_color: str = THEME_COLOR) -> str:
    """`page_html` with the first palette's tags after its charset.

    >>> palette_metas('<head><meta charset="utf-8"><title>')[28:]
    '<meta name="color-scheme" content="light"><meta name="theme-color" content="#4051b5"><title>'
    """
    metas = ('<meta name="color-scheme" content="light">'
             f'<meta name="theme-color" content="{theme_color}">')
    return page_html.replace('<meta charset="utf-8">', '<meta charset="utf-8">' + metas, 1)


def on_post_page(output: str, page: Any, config: Any, theme_color: str = THEME_COLOR) -> str:
    """Render every formula of the finished page. Last of all, so the search index, the
    glossary and the print-site plugin's anchor rewriting read the short TeX, not KaTeX's HTML.
    The palette's tags go in the head (`palette_metas`)."""
    return palette_metas(_render_math(output, page.file.src_uri, page.file.abs_src_path),
                         theme_color)


def print_page_file(config: Any) -> Path:
    """The one-page book the print-site plugin writes (after every page)."""
    site = Path(config["site_dir"])
    return site / ("print_page/index.html" if config["use_directory_urls"] else "print_page.html")


def on_post_build(config: Any) -> None:
    """The one-page book's formulas, rendered like every page's; then the formula cache saved."""
    path = print_page_file(config)
    if path.is_file():
        text = path.read_text(encoding="utf-8")
        path.write_text(_render_math(text, "print_page", None), encoding="utf-8")
    math_render.save_cache()
    build_cache.save_all()
