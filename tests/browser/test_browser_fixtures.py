"""Fixture pages built only for these tests, in a scratch copy of the site.

1. Escaping: a script output holding `<script>`, `<b>` and `&`, embedded by the pipeline's own
   `explainer_tools.scripts.marker_fill.embed` (a fenced `text` block, also indented inside a
   collapsible answer),
   and the same strings as notebook outputs, must show as text: no script runs, no <b> element.
2. Faults: a broken link, an external script, a malformed formula, a display formula left as
   raw TeX, a missing image, an image without alternative text and a heading jump each make
   the checks of the per-page tests (the same functions) fail with a message that names the page.
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_kit import (
    PAGE_CHECKS,
    PageLoad,
    StaticServer,
    accessibility_problems,
    all_problems,
    build_site,
    colour_sampling_problems,
    link_problems,
    load_page,
    scratch_project,
)
from conftest import PROJECT, site_url

MARKUP = "<script>window.__fixtureScriptRan = true;</script> <b>not bold</b> & AT&T &amp; done"

OUTPUT = (
    f"Fixture -- markup in output (fixture_escaping.py)\n[1] {MARKUP}\nAll assertions passed.\n"
)

# Markers only; `embed_outputs` fills them the way `make regenerate` does.
ESCAPING_MD = """\
# Escaping fixture

[MY EXPLANATION] A script printed markup; the page must show it as text.

<!-- embed: output fixture_escaping.py -->
<!-- /embed -->

??? question "Self-test: what is \\(1 + 1\\)?"
    <!-- embed: output fixture_escaping.py [1] -->
    <!-- /embed -->

    The answer is \\(2\\), and in general

    \\[ \\sum_{i=1}^{n} i = \\frac{n(n+1)}{2}. \\]
"""


def embed_outputs(markdown: str, project: Path) -> str:
    """The pipeline's own embedding (explainer_tools.scripts.marker_fill) of OUTPUT in the page."""
    from explainer_tools.scripts.marker_fill import embed, resolver

    resolve = resolver({"fixture_escaping.py": OUTPUT}, project / "explainer_code")
    return embed(markdown, "docs/fixtures/escaping.md", resolve)


def notebook(cells: list[dict[str, Any]]) -> str:
    return json.dumps(
        {
            "cells": cells,
            "metadata": {
                "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
                "language_info": {"name": "python"},
            },
            "nbformat": 4,
            "nbformat_minor": 5,
        }
    )


ESCAPING_NOTEBOOK = notebook(
    [
        {"cell_type": "markdown", "id": "m1", "metadata": {}, "source": ["# Notebook fixture"]},
        {
            "cell_type": "code",
            "execution_count": 1,
            "id": "c1",
            "metadata": {},
            "source": ["print(MARKUP)\n", "MARKUP"],
            "outputs": [
                {"name": "stdout", "output_type": "stream", "text": [MARKUP + "\n"]},
                {
                    "output_type": "execute_result",
                    "execution_count": 1,
                    "metadata": {},
                    "data": {"text/plain": [repr(MARKUP)]},
                },
            ],
        },
    ]
)

# A one-pixel PNG, so image faults need no file.
PIXEL = (
    "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9Q"
    "DwADhgGAWjR9awAAAABJRU5ErkJggg=="
)

FAULT_PAGES = {
    "broken-link": """\
        # Broken links

        [A section that does not exist](#no-such-section), [an anchor the home page lacks](
        ../index.md#no-such-anchor) and <a href="../no-such-page/">a page that does not exist</a>.
        """,
    "external-script": """\
        # External script

        <script src="https://cdn.example.com/library.js"></script>

        This page loads a script from another host.
        """,
    # A formula KaTeX cannot parse fails the build (tests/test_math_render.py); this one is
    # written as a raw HTML block the build does not recognise, so it reaches the page as TeX.
    "bad-formula": """\
        # A formula the build left alone

        <div class='arithmatex'>\\(\\frac{1}{2}\\)</div>
        """,
    "raw-tex": """\
        # Raw TeX after prose

        A display formula right after a line of prose stays text:
        \\[
          \\begin{aligned} a &= \\frac{1}{2} \\end{aligned}
        \\]
        """,
    "image-faults": f"""\
        # Image faults

        <img alt="a figure that was never drawn" src="../../assets/fig/no-such-figure.png">

        <img src="{PIXEL}">

        ### A heading two levels down
        """,
    # The colour audit runs on representatives (browser_kit.COLOUR_SAMPLES_JS): a token class
    # too faint in both schemes must still fail, from its first token; a formula glyph with a
    # colour of its own breaks the premise that lets glyphs go unaudited.
    "low-contrast": """\
        # Low contrast

        <style>.md-typeset .highlight code .k { color: #808080 !important; }</style>

        ```python
        def first(): pass
        def second(): pass
        def third(): pass
        ```

        A formula with a colour of its own: \\(\\textcolor{#808080}{x} + y\\).
        """,
}

# fault -> (check that must report it, text the report must contain)
EXPECTED = {
    "broken-link": [],  # the crawler's business: see test_crawler_reports_broken_links
    "external-script": [
        ("foreign_hosts", "cdn.example.com/library.js"),
        ("requests", "cdn.example.com/library.js"),
    ],
    "bad-formula": [
        ("math", "raw TeX left in visible text: '\\\\(\\\\frac{1}{2"),
        ("math", "formula not rendered at build time: '\\\\(\\\\frac{1}{2}"),
    ],
    "raw-tex": [("math", "TeX command left as text: '")],
    "image-faults": [
        ("images", "no-such-figure.png"),
        ("requests", "no-such-figure.png"),
        ("alt_text", "data:image/png"),
        ("headings", "from h1"),
    ],
    "low-contrast": [],  # see test_the_sampled_colour_audit_still_fails_faint_tokens_...
}


@pytest.fixture(scope="session")
def fixture_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The site plus the fixture pages under docs/fixtures/ (left out of the nav by mkdocs.yml's
    `not_in_nav: /fixtures/`), built with --strict like the real one."""
    root = tmp_path_factory.mktemp("fixture-site")
    project = scratch_project(root / "project", PROJECT)
    fixtures = project / "docs" / "fixtures"
    fixtures.mkdir()
    escaping = embed_outputs(ESCAPING_MD, project)
    assert escaping.count(MARKUP) == 2, escaping  # both markers were filled
    (fixtures / "escaping.md").write_text(escaping, encoding="utf-8")
    (fixtures / "escaping-notebook.ipynb").write_text(ESCAPING_NOTEBOOK, encoding="utf-8")
    for name, text in FAULT_PAGES.items():
        (fixtures / f"{name}.md").write_text(textwrap.dedent(text), encoding="utf-8")
    return build_site(project, root / "site")


@pytest.fixture(scope="session")
def fixture_server(fixture_site: Path) -> Iterator[StaticServer]:
    with StaticServer(fixture_site) as running:
        yield running


def test_crawler_reports_broken_links(fixture_site: Path) -> None:
    problems = link_problems(fixture_site, site_url())
    ours = [p for p in problems if p.startswith("/fixtures/broken-link/:")]
    assert len(ours) == 3, "the crawler missed a broken link:\n" + "\n".join(problems)
    assert any("#no-such-section" in p for p in ours)
    assert any("no id 'no-such-anchor'" in p for p in ours)
    assert any("no-such-page" in p for p in ours)


@pytest.mark.browser
@pytest.mark.parametrize("fault", [f for f in FAULT_PAGES if EXPECTED[f]])
def test_fault_fails_the_page_checks(
    fault: str, browser: Any, fixture_server: StaticServer
) -> None:
    url_path = f"fixtures/{fault}/"
    load = load_page(browser, fixture_server, url_path)
    for check, needle in EXPECTED[fault]:
        problems = PAGE_CHECKS[check](load)
        assert any(needle in p and p.startswith(f"/{url_path}:") for p in problems), (
            f"check {check!r} did not report {needle!r} on /{url_path}; it said {problems}"
        )


@pytest.mark.browser
def test_the_sampled_colour_audit_still_fails_faint_tokens_and_coloured_glyphs(
        browser: Any, fixture_server: StaticServer) -> None:
    load = load_page(browser, fixture_server, "fixtures/low-contrast/", audit=True)
    sampling = load.facts["colourSampling"]
    assert sampling["codeTokensSkipped"] >= 2, sampling  # two of the three `def`s were not audited
    contrast = [p for p in accessibility_problems(load) if "axe color-contrast" in p]
    for scheme in ("light", "dark"):
        assert any(f"({scheme} scheme," in p for p in contrast), (
            f"the faint keyword passed the {scheme} scheme's audit: {contrast}")
    glyphs = colour_sampling_problems(load)
    assert glyphs and "x" in glyphs[0] and "rgb(128, 128, 128)" in glyphs[0], glyphs


def shown_markup(load: PageLoad, tab: Any) -> None:
    """The checks pass on the page, the markup is visible text, and nothing of it is live."""
    assert not all_problems(load), "\n".join(all_problems(load))
    state = tab.evaluate(
        """() => ({
          ran: window.__fixtureScriptRan === true,
          bold: document.querySelectorAll(".md-content b").length,
          scripts: Array.from(document.scripts).filter(
            s => s.textContent.includes("__fixtureScriptRan")).length,
          text: document.querySelector(".md-content").innerText,
        })"""
    )
    label = "/" + load.url_path
    assert not state["ran"], f"{label}: the <script> in an output ran"
    assert state["bold"] == 0, f"{label}: the <b> in an output became an element"
    assert state["scripts"] == 0, f"{label}: the <script> in an output became an element"
    assert MARKUP in state["text"], f"{label}: the output is not shown verbatim:\n{state['text']}"


@pytest.mark.browser
@pytest.mark.parametrize("url_path", ["fixtures/escaping/", "fixtures/escaping-notebook/"])
def test_output_markup_shows_as_text(
    url_path: str, browser: Any, fixture_server: StaticServer
) -> None:
    load = load_page(browser, fixture_server, url_path)  # opens the collapsible answer
    context = browser.new_context()
    try:
        tab = context.new_page()
        tab.goto(fixture_server.url(url_path), wait_until="load")
        tab.evaluate("() => document.fonts.ready.then(() => null)")
        tab.evaluate("() => document.querySelectorAll('details').forEach(d => { d.open = true; })")
        shown_markup(load, tab)
    finally:
        context.close()


@pytest.mark.browser
def test_fixture_answer_opens_with_its_math(browser: Any, fixture_server: StaticServer) -> None:
    """The collapsed answer of the fixture page opens on a click and shows its formulas."""
    context = browser.new_context()
    try:
        tab = context.new_page()
        tab.goto(fixture_server.url("fixtures/escaping/"), wait_until="load")
        tab.evaluate("() => document.fonts.ready.then(() => null)")
        answer = tab.locator("article details").first
        assert not answer.evaluate("d => d.open")
        answer.locator(":scope > summary").click()
        answer.locator(".katex").last.wait_for(state="visible")
        widths = answer.evaluate(
            "d => Array.from(d.querySelectorAll('.katex'))"
            ".map(c => c.getBoundingClientRect().width)"
        )
        assert len(widths) == 3 and all(w > 0 for w in widths), widths  # title, \(2\), display
    finally:
        context.close()
