"""The tools behind the book: run the chapter scripts, embed their outputs, check every number,
build the site.

One package per concern; each package's docstring says what lives in it, what it may import and
what it must not:

- `scripts/`: the script pipeline: run the chapter scripts and the companion notebook (sandbox,
  limits, dependency tracing), write and check their outputs, figures and stamps, embed the
  outputs into the pages (`make regenerate`, `make check`, `make bench`).
- `book/`: the book's own rules, read from its sources: chapter status from the nav, errata,
  bibliography, numbered formulas and figures, glossary, claims ledger, provenance tags as
  badges, the book-wide checks. The checks and the site both use them.
- `claims/`: numbers quoted in prose against the output blocks they cite, by value, and values
  quoted by name against the outputs that print them (`make claims`).
- `website/`: the MkDocs plugin and what only the site uses (math at build time, render cache,
  page speed, erratum pages as shown, "last verified", the notebook page, the PDF and the site's
  benchmark).

Beside them, the few modules every package shares (layer 0-1 below), and two commands:
`__main__` (the one command line) and `glue_migrate` (a page's numbers rewritten as references
to glued values: it needs the claim check).

A package or module imports only those of lower layers (tests/test_layers.py parses every import,
those inside functions too); inside a package, its own `LAYERS` orders its modules the same way
(the claim check's too, in claims/__init__.py). No `__init__` imports anything but the
claim check's, which gathers its public names (`from explainer_tools.claims import ...`).
"""

LAYERS: dict[str, int] = {
    "layout": 0,  # the repository's folders, naming rules, atomic writer
    "markdown": 0,  # the Markdown reader, the math finder, the YAML loader of the book's inputs
    "blocks": 0,  # numbered output blocks
    "tags": 0,  # the provenance tag vocabulary (also read by explainer_code/gpt_lab)
    "html_tokens": 0,  # HTML as tokens with their offsets (most of the site's HTML passes)
    "yaml_input": 1,  # the data files, read with markdown's loader, each field's type checked
    "glue": 1,  # values by name: a script's glued values, their sidecar, a page's references
    "tree_io": 1,  # the tree read as regular files only, watched, locked, written atomically
    "scripts": 2,
    "book": 3,
    "claims": 3,
    "website": 4,
    "glue_migrate": 5,
    "__main__": 5,
}
