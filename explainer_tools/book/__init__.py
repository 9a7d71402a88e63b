"""The book's own rules, read from its sources (the nav, the pages, docs/_data/, the errata):
each module reads one kind of source and checks it; most also render what the site shows of it
(an erratum's page is rendered in `website/errata_pages`). `make check` runs the checks; the site
plugin (`website`) renders with the same modules.

What it may import of the other packages: `IMPORTS["book"]` in explainer_tools/__init__.py.

0. `mkdocs_yml`: mkdocs.yml read as YAML (scaffold edits its nav as text). `bibliography` (BibTeX,
   citations), `crossref` (numbered formulas and figures, labels across pages), `glossary`,
   `ledger` (the claims ledger), `provenance` (tags -> badges).
1. `chapters`: chapter status from the nav (home page list, BOOK.md's table, "Chapter N").
   `errata`: what an erratum is (its fields, read and checked), the index's marker; how the site
   shows one is `website/errata_pages`. `book_checks`: the book-wide checks
   (status phrases, outside references, tag budget, structure, bibliography).
2. `scaffold`: `make chapter` (a new chapter's page, script and nav entry).
"""

LAYERS: dict[str, int] = {
    "mkdocs_yml": 0, "bibliography": 0, "crossref": 0, "glossary": 0, "ledger": 0,
    "provenance": 0,
    "chapters": 1, "errata": 1, "book_checks": 1,
    "scaffold": 2,
}
