"""The tools behind the book: run the chapter scripts, embed their outputs, check every number.

One module per job, in layers; a module imports only modules of lower layers (tests/test_layers.py
parses the imports and fails otherwise):

0. `layout`: a repository's `Layout` (its folders; naming rules: script -> output, stamp,
   notebook), the run environment, the atomic writer. `blocks`: numbered output blocks.
   `tags`: the provenance tag vocabulary.
   `markdown`: the one Markdown scanner (front matter, fences, comments, embed regions), and
   the one YAML loader (no anchors or aliases).
   `html_text`: rewrites the prose of rendered HTML (skips code, math, links, headings).
   `build_cache`: results of the site build memoised in `.cache/`. `site_config`: the one reader
   of mkdocs.yml outside MkDocs.
   `cpu_paths`: whether this CPU can take the pinned AVX2 code paths the outputs were made on.
   `process_tree`: a process's descendants (/proc) and how to end them all. `containment`: the
   kernel's sandbox (bubblewrap) and the audit hook that refuse a script's writes outside its
   folders, its resource limits. `zygote`: the same sandbox built by the warm parent's
   children themselves (namespaces, mounts, capabilities), without bubblewrap.
   `notebook_slim`: the notebook page's stylesheet cut to what its cells use, its figures as
   files.
1. `sandbox_report`: `make sandbox`'s one line. `markers`: embed markers in pages.
   `provenance`: tags -> badges. `runner`: runs scripts
   (in the kernel's sandbox, or a warm fork parent, or plain subprocesses), with limits, a
   watchdog and dependency tracing.
   `notebooks`: executes and compares the companion notebooks. `stamps`: the stamp files and
   the freshness rule. `tree_io`: the tree read as regular files only, watched while scripts
   run outside the sandbox, held by one run at a time, and written atomically.
   Reader features: `bibliography` (BibTeX, citations), `crossref` (numbered formulas and
   figures), `number_links` (numbers -> output lines). `yaml_input`: the data files read with
   `markdown`'s strict loader, each field's type checked.
   `site_speed`: the page as the browser starts it (what made a phone's load slow, fixed at
   build time). `print_site_anchors`: the print-site plugin's whole-book page with every
   in-book link finding its target. `render_cache`: each page's Markdown converted once.
   `notebook_page`: the companion notebook's page (Jupyter only on a cache miss).
   `explorer_presets`: the bound explorer's presets, read from the outputs at build time.
   `glue`: values by name: the markers a script prints around a glued value, the sidecar
   `outputs/<stem>.names.json`, a page's `{glue}` references resolved.
   `numerics`: probes of the floating-point kernels, compared with the machine that committed
   the outputs (make check's last line; make numerics).
2. Reader features on YAML data: `glossary`, `ledger` (the claims ledger).
   `claims` (package): numbers quoted in prose vs the output blocks they cite. `errata`: the
   erratum pages, their index and checks. `book`: chapter status from the nav (home page list,
   BOOK.md's table, "Chapter N"). `verified` ("last verified", from the stamps). `book_checks`:
   the book-wide checks (status phrases, outside references, tag budget, structure,
   bibliography). `raw_tex` (layer 0): raw TeX left as text. `run_costs`: the recorded run
   time of each script, so that the longest start first. `run_products`: a finished run
   judged (its output, its figures, its source changed while it ran). `other_kernels`: which
   committed products were made on kernels that compute other bits than this machine's, and
   how check compares them there (within the tolerance `numerics` states).
3. `pipeline`: regenerate and check (scripts, pages, figures, stamps, notebooks).
   `errata_pages`: erratum pages and the errata index as rendered, with source lines.
4. `scaffold`: `make chapter`. `glue_migrate`: a page's numbers rewritten as references to
   glued values. `bench`: `make bench`, `make costs`. `pdf`: `make pdf`.
5. `__main__`: the one command line. `mkdocs_hooks`, `errata_hook`, `reader_hook`: the site
   plugin's features (build, provenance and math; errata; the reader features).
6. `site_plugin`: the MkDocs plugin (the one hooks file in mkdocs.yml), composing them.
"""

LAYERS: dict[str, int] = {
    "layout": 0,
    "blocks": 0,
    "tags": 0,
    "markdown": 0,
    "html_text": 0,
    "cpu_paths": 0,
    "raw_tex": 0,
    "glue": 1,
    "yaml_input": 1,
    "process_tree": 0,
    "containment": 0,
    "zygote": 0,
    "math_render": 0,
    "build_cache": 0,
    "site_config": 0,
    "notebook_slim": 0,
    "site_speed": 1,
    "print_site_anchors": 1,
    "explorer_presets": 1,
    "figure_zoom": 1,
    "render_cache": 1,
    "notebook_page": 1,
    "bibliography": 1,
    "crossref": 1,
    "glossary": 2,
    "number_links": 1,
    "ledger": 2,
    "markers": 1,
    "source_pages": 2,
    "provenance": 1,
    "runner": 1,
    "sandbox_report": 1,
    "notebooks": 1,
    "stamps": 1,
    "tree_io": 1,
    "claims": 2,
    "errata": 2,
    "book": 2,
    "book_checks": 2,
    "verified": 2,
    "run_costs": 2,
    "run_products": 2,
    "other_kernels": 2,
    "numerics": 1,
    "pipeline": 3,
    "errata_pages": 3,
    "scaffold": 4,
    "glue_migrate": 4,
    "bench": 4,
    "pdf": 4,
    "site_bench": 5,
    "__main__": 5,
    "mkdocs_hooks": 5,
    "errata_hook": 5,
    "reader_hook": 5,
    "site_plugin": 6,
}
