"""Mutants of the modules being restructured this round (glossary, reader_hook, errata_hook):
kept from the previous round's probes; whoever rewrites a module replaces its
mutants here (tests/test_mutants.py fails when a snippet no longer occurs)."""

from __future__ import annotations

from mutate import Mutant

MUTANTS = [
    Mutant("errata: fields not checked by the hook", "explainer_tools/website/errata_hook.py",
           "    check_rendered(rendered, source, src_uri, state)\n", "",
           ("tests/test_errata.py::test_probe_C9_an_error_in_an_erratum_names_its_line_in_the_file",)),
    Mutant("glossary: definition unescaped in tooltips", "explainer_tools/book/glossary.py",
           "        title = html.escape(term.definition, quote=True)",
           "        title = term.definition", ("tests/test_reader_features.py",)),
    Mutant("glossary: page heading unescaped", "explainer_tools/book/glossary.py",
           "heading, definition = html.escape(term.term), html.escape(term.definition)",
           "heading, definition = term.term, html.escape(term.definition)",
           ("tests/test_reader_features.py",)),
    Mutant("reader hook: CRLF offsets not shifted", "explainer_tools/website/reader_hook.py",
           "    return [offset - bisect.bisect_left(pairs, offset) for offset in offsets]",
           "    return offsets", ("tests/test_reader_features.py",)),
    Mutant("reader hook: stripped blank lines not counted",
           "explainer_tools/website/reader_hook.py",
           "    return source.count(\"\\n\", 0, body) if body > 0 else 0",
           "    return source.count(\"\\n\", 0, body) - 1 if body > 0 else 0",
           ("tests/test_reader_features.py",)),
]
