"""The site: the book's MkDocs plugin and everything only the site uses, the PDF and the site's
benchmark included (both read the built site).

The plugin, `plugin.BookPlugin`, is installed as the `explainer` entry point of the
`mkdocs.plugins` group (pyproject.toml; `make venv` installs the project, editable, which
registers it) and listed under `plugins:` in mkdocs.yml, before print-site, which must be last
(mkdocs-offline.yml repeats the list); its handlers run after the other plugins' of the same
priority wherever it is listed. Its settings go there, under `- explainer:`, and nowhere else:
the pages it generates (`glossary_page`, `bibliography_page`, `ledger_page`), which files are
notebooks (`notebooks`), the browser's colour of the first palette (`theme_color`);
`plugin.BookConfig` holds them and their defaults, which are this book's.

What it may import of the other packages: `IMPORTS["website"]` in explainer_tools/__init__.py.

0. `build_cache`: results of the site build memoised in `.cache/`. `html_text`: rewrites the
   prose of rendered HTML (skips code, math, links, headings). `math_render`: formulas rendered
   at build time (KaTeX). `notebook_slim`: the notebook page's stylesheet cut to what its cells
   use, its figures as files. `raw_tex`: raw TeX left as text. `explorer_presets`: the bound
   explorer's presets, read from the outputs at build time. `number_links`: numbers -> output
   lines. `source_pages`: each embedded script source on a page of its own. `last_verified`:
   the "last verified" line under a chapter's title, from the stamps' last commit.
1. `render_cache`: each page's Markdown converted once. `print_site_anchors`: the print-site
   plugin's whole-book page with every in-book link finding its target. `figure_zoom`: each
   figure a link (or button) that opens it full size.
   `load_fixes`: the page as the browser starts it (what made a phone's load slow, fixed at
   build time). `notebook_page`: the companion notebook's page (Jupyter only on a cache miss).
   `errata_pages`: erratum pages and the errata index as shown (with source lines), and their
   page events. `pdf`: `make pdf`.
2. `build_features` (build, provenance and math features), `reader_features` (the reader
   features' page events). `site_bench`: `make bench-site`.
3. `plugin`: the MkDocs plugin (its settings, and each build's state), composing the features.
"""

LAYERS: dict[str, int] = {
    "build_cache": 0, "html_text": 0, "math_render": 0, "notebook_slim": 0, "raw_tex": 0,
    "explorer_presets": 0, "number_links": 0, "source_pages": 0, "last_verified": 0,
    "render_cache": 1, "print_site_anchors": 1, "figure_zoom": 1, "load_fixes": 1,
    "notebook_page": 1, "errata_pages": 1, "pdf": 1,
    "build_features": 2, "reader_features": 2, "site_bench": 2,
    "plugin": 3,
}
