"""The tools behind the book: run the chapter scripts, embed their outputs, check every number,
build the site.

One package per concern; each package's docstring says what lives in it, what it may import and
what it must not:

- `scripts/`: the script pipeline: run the chapter scripts and the companion notebook (sandbox,
  limits, dependency tracing), write and check their outputs, figures and stamps, embed the
  outputs into the pages (`make regenerate`, `make check`, `make bench`).
- `book/`: the book's own rules, read from its sources: chapter status from the nav, errata,
  bibliography, numbered formulas and figures, glossary, claims ledger, provenance tags as
  badges, the book-wide checks. Most of these modules also render their own element (a glossary
  mark, a badge, a numbered formula, the ledger's table).
- `claims/`: numbers quoted in prose against the output blocks they cite, by value, and values
  quoted by name against the outputs that print them (`make claims`).
- `website/`: the MkDocs plugin and the features only the site has (math at build time, render
  cache, load fixes, an erratum's page composed from its fields, numbers linked to their output
  lines, "last verified", the explorer's presets, the notebook page, the PDF and the site's
  benchmark). Rule: a module that reads one kind of the book's sources (the nav, the pages' own
  syntax, `docs/_data/`, the errata) goes in `book/`, with the rendering of what it reads; one that
  works on MkDocs' events, the built HTML, or what the scripts and the claim check produced goes in
  `website/`.

Beside them, the shared modules (layers 0-1 below): a module that modules of two packages
import lives here, at the top level, not inside one of them. And two commands: `__main__` and
`glue_migrate` (a page's numbers rewritten as references to glued values: it needs the claim
check).

Where a command goes. What `make regenerate` and `make check` run, and what an author types while
writing (claims, errata, chapter, bench, costs), is a subcommand of `python -m explainer_tools`
(`__main__`, the only one: no package has its own; `check_everything` is all of `make check`;
the installed console script `explainer` is the same command). A
tool run on its own (by a Makefile target outside those two, or by hand) is its module's `main`, run
as `python -m explainer_tools.PACKAGE.MODULE`: `website.pdf`, `website.site_bench`,
`scripts.numerics`, `scripts.bench --miniature`, `scripts.sandbox_report`, `glue_migrate`. The
checks that `check_everything` calls (`claims.cli`, `book.errata`, `book.ledger`, `book.chapters`,
`book.book_checks`) keep a `main` each, so that each also runs alone. Not commands: the processes
the tools start themselves (`scripts/runner.py` as the scripts' runner, `website/notebook_page.py`
converting the notebook beside the build).

Two rules hold every import (tests/test_layers.py parses each one, those inside functions too):
a package or module imports only those of lower layers (`LAYERS`; inside a package, its own
`LAYERS` orders its modules the same way), and of the packages beside its own only what
`IMPORTS` lists. No `__init__` imports anything but the claim check's, which gathers its names
for a person at a Python prompt; another package reads the claim check through `claims.api`.
"""

LAYERS: dict[str, int] = {
    "layout": 0,  # the repository's folders (every module's), naming rules, atomic writer
    "markdown": 0,  # the Markdown reader, the math finder, the YAML loader of the book's inputs
    "blocks": 0,  # numbered output blocks
    "tags": 0,  # the provenance tag vocabulary (also read by explainer_code/gpt_lab)
    "html_tokens": 0,  # HTML as tokens with their offsets (most of the site's HTML passes)
    "yaml_input": 1,  # the data files, each field's type checked; where front-matter values stand
    "glue": 1,  # values by name: a script's glued values, their sidecar, a page's references
    "tree_io": 1,  # the tree read as regular files only, watched, locked, written atomically
    "scripts": 2,
    "book": 3,
    "claims": 3,
    "website": 4,
    "glue_migrate": 5,
    "__main__": 5,
}

# What a package or command may import of the other packages: a module, or a whole package;
# the shared modules of lower layers it may always import.
IMPORTS: dict[str, tuple[str, ...]] = {
    "scripts": (),  # the others read what it writes, never the other way
    "book": (),  # not claims: the two checks are independent
    "claims": (),  # not book, for the same reason
    "website": ("book", "claims.api", "scripts.stamps"),
    "glue_migrate": ("claims.api",),
    "__main__": ("book", "claims", "scripts"),
}
