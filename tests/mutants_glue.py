"""Mutants of values by name: the markers and sidecar (glue.py), the pipeline's use of them, the
page's references in the claim check and on the site, and glue_migrate (tests/mutate.py runs
them)."""

# ruff: noqa: E501  (a snippet is an exact line of code: kept whole, it stays greppable)

from __future__ import annotations

from mutate import Mutant


def mutant(name: str, path: str, old: str, new: str, *tests: str) -> Mutant:
    return Mutant(name, path, old, new, tests)


T_GLUE = "tests/test_glue.py"

MUTANTS = [
    mutant("glue: a name printed twice accepted", "explainer_tools/glue.py",
           "        if name in first:", "        if False:", T_GLUE),
    mutant("glue: an unclosed marker read to the next line", "explainer_tools/glue.py",
           "        line_end = data.find(b\"\\n\", start)", "        line_end = len(data)", T_GLUE),
    mutant("glue: output lines counted from 0", "explainer_tools/glue.py",
           "        return bytes(clean[:offset]).replace(b\"\\r\\n\", b\"\\n\").replace(b\"\\r\", b\"\\n\").count(b\"\\n\") + 1",
           "        return bytes(clean[:offset]).count(b\"\\n\")", T_GLUE),
    mutant("glue: an unknown name resolves to the first script's first value", "explainer_tools/glue.py",
           "    if len(printed_by) == 1:", "    if len(printed_by) == 1 or not printed_by:", T_GLUE),
    mutant("glue: references in code and comments read", "explainer_tools/glue.py",
           "        if line.kind != \"prose\" or line.embedded:", "        if line.embedded:", T_GLUE),
    mutant("glue_migrate: a math number written with the text's role", "explainer_tools/glue_migrate.py",
           "f\"\\\\glue{{{reference}}}\" if math else", "f\"{{glue}}`{reference}`\" if math else",
           T_GLUE),
    mutant("claims: a glued value's block not held to the sentence's citation", "explainer_tools/claims/check.py",
           "    check_glued_blocks(units, page, report)\n", "    pass\n", T_GLUE),
    mutant("glue_migrate: a text glued twice in the block: the first taken", "explainer_tools/glue_migrate.py",
           "            found = in_block if len(in_block) == 1 else []", "            found = in_block[:1]", T_GLUE),
    mutant("glue_migrate: commas of math not braced", "explainer_tools/glue_migrate.py",
           "                if (number_links.math_text(shown) if in_math else shown) == number.text:",
           "                if shown == number.text:", T_GLUE),
    mutant("glue_migrate: no style tried", "explainer_tools/glue_migrate.py",
           "            for styles in STYLINGS if g.block == number.block else ():",
           "            for styles in [()] if g.block == number.block else ():", T_GLUE),
    mutant("glue: a style not applied", "explainer_tools/glue.py",
           "        text = STYLES[style](text)", "        pass", T_GLUE),
    mutant("glue_migrate: the row's other values ignored", "explainer_tools/glue_migrate.py",
           "        found = [g for g in in_block if g.line in pinned.get(number.line, set())]",
           "        found = []", T_GLUE),
    mutant("pipeline: markers left in the output", "explainer_tools/scripts/pipeline.py",
           "            output = normalise_output(stdout, script)",
           "            output = normalise_output(result.stdout.replace(b\"\\x02\", b\"\").replace(b\"\\x1f\", b\"\").replace(b\"\\x03\", b\"\"), script)",
           T_GLUE),
    mutant("pipeline: the sidecar not written", "explainer_tools/scripts/pipeline.py",
           "            result.files[names] = run.names.encode(\"utf-8\")", "            pass", T_GLUE),
    mutant("pipeline: a sidecar nothing writes not reported", "explainer_tools/scripts/pipeline.py",
           "        if layout.output_path(script) in files and names not in files and names.is_file():",
           "        if False:", T_GLUE),
    mutant("number_links: a glued value shows its reference", "explainer_tools/website/number_links.py",
           "        text = (math_text(link.shown) if in_math else html.escape(link.shown)) if link.shown \\",
           "        text = link.text if link.shown \\", T_GLUE),
    mutant("reader_hook: an unknown name skipped", "explainer_tools/website/reader_hook.py",
           "            raise PluginError(str(error)) from None\n        printed",
           "            continue\n        printed", T_GLUE),
    mutant("claims: bare numbers not refused on a page that glues", "explainer_tools/claims/check.py",
           "            if report.glued:  # ... on a page that quotes values by name: refused",
           "            if False:", T_GLUE),
    mutant("claims: a name's digits read as numbers", "explainer_tools/claims/check.py",
           "    text = check_glued(text, page, scripts, outputs, report)",
           "    check_glued(text, page, scripts, outputs, report)", T_GLUE),
]
