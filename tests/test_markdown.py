"""The shared Markdown module (explainer_tools/markdown.py): its math finder, and the tools that
read formulas through it (the claim check, the number links, the formula index, the KaTeX pass);
its block structure, read from markdown-it's tokens."""

from __future__ import annotations

import pytest

from explainer_tools.book import crossref
from explainer_tools.claims.page import inline_segments, page_elements
from explainer_tools.markdown import math_ranges, math_spans, math_text, scan
from explainer_tools.website import math_render
from explainer_tools.website.number_links import NumberLink, link_numbers


def formulas(text: str) -> list[tuple[str, str, bool]]:
    """(formula with delimiters, its body, display) of every formula of `text`."""
    return [(text[s.start:s.end], text[s.body_start:s.body_end], s.display)
            for s in math_spans(text)]


def test_every_delimiter_of_arithmatex_is_found_with_its_body() -> None:
    text = (r"a \(x+1\) b \[y\] c $$z$$ d $w$ e" "\n"
            r"\begin{aligned} u &= 2 \end{aligned} f")
    assert formulas(text) == [
        (r"\(x+1\)", "x+1", False),
        (r"\[y\]", "y", True),
        ("$$z$$", "z", True),
        ("$w$", "w", False),
        (r"\begin{aligned} u &= 2 \end{aligned}", r"\begin{aligned} u &= 2 \end{aligned}", True),
    ]


def test_a_formula_may_span_lines() -> None:
    assert formulas("\\[\n a = 1\n\\]") == [("\\[\n a = 1\n\\]", "\n a = 1\n", True)]


@pytest.mark.parametrize("text", [
    "costs $5 and $6 today",  # a closing dollar before a digit: prices, not a formula
    "from $ x$ on",  # a dollar before a space opens nothing
    "from $x $ on",  # nor closes after one
    r"an escaped \$x\$ pair",
    "`$x$` and `` \\(y\\) `` in code",  # inline code wins: the renderer shows it as code
])
def test_what_is_not_a_formula(text: str) -> None:
    assert math_spans(text) == []


def test_a_code_span_hides_a_delimiter_that_would_open_a_formula_after_it() -> None:
    text = r"write `\(` to open, then \(a\) is math"
    assert formulas(text) == [(r"\(a\)", "a", False)]


def test_the_claim_check_reads_the_same_formulas() -> None:
    text = r"Pay $5 and $6, see `\(` and \(n = 12\) and $$m = 3$$ and $k$."
    math = [(s, e) for kind, s, e in inline_segments(text) if kind == "math"]
    assert math == math_ranges(text) and len(math) == 3


def test_a_number_between_two_prices_is_linked_as_prose_not_as_a_formula() -> None:
    text = "costs $5 and 6 and $7"
    at = text.index("6")
    link = NumberLink(at, at + 1, "6", "ch01_a.py", 1, 3, "six = 6")
    out = link_numbers(text, [link], {("ch01_a.py", 3)})
    assert '<a class="num" href="#out-ch01_a-L3" data-block="1">6</a>' in out
    assert "\\href" not in out


def test_a_number_in_a_formula_is_linked_inside_the_formula() -> None:
    text = r"so \(n = 12\) here"
    at = text.index("12")
    link = NumberLink(at, at + 2, "12", "ch01_a.py", 1, 3, "n = 12")
    assert link_numbers(text, [link], {("ch01_a.py", 3)}) == \
        r"so \(n = {\href{#out-ch01_a-L3}{12}}\) here"


def test_a_label_in_any_display_formula_gives_its_preview() -> None:
    pages = {"chapters/09-a.md": "$$ a^2 \\label{eq:a} $$\n\n\\[ b \\label{eq:b} \\]\n"}
    labels = crossref.build_index(pages).labels
    assert (labels["eq:a"].number, labels["eq:a"].preview) == ("9.1", "a^2")
    assert (labels["eq:b"].number, labels["eq:b"].preview) == ("9.2", "b")


def test_a_notebook_cell_renders_the_formulas_the_finder_finds() -> None:
    cell = ('<div class="jp-RenderedHTMLCommon jp-RenderedMarkdown">'
            '<p>$x$ costs $5 and $6 but $$y$$</p></div>')
    out = math_render.render_page(cell)
    assert out.count('class="katex"') == 2 and "costs $5 and $6 but" in out


def test_printed_text_in_a_formula_braces_its_thousands_commas() -> None:
    assert math_text("50,257") == "50{,}257"


# ---------------------------------------------------------------------------------------------
# The block structure (`scan`), read from markdown-it's tokens
# ---------------------------------------------------------------------------------------------

def kinds(text: str) -> list[str]:
    return [line.kind for line in scan(text).lines]


def test_an_admonition_body_runs_over_two_blank_lines() -> None:
    # An embedded Python source holds two blank lines between functions; the body, and the
    # fence in it, go on (mdit-py-plugins' admonition would end at them).
    page = ('??? example "Source"\n\n    <!-- embed: source a.py -->\n    ```python\n'
            "    x = 1\n\n\n    def f():\n        return 2\n    ```\n    <!-- /embed -->\n"
            "\nAfter\n")
    lines = scan(page).lines
    assert [line.kind for line in lines] == [
        "prose", "blank", "comment", "fence", "code", "code", "code", "code", "code", "fence",
        "comment", "blank", "prose", "blank"]
    assert [line.number for line in lines if line.embedded] == list(range(4, 11))
    assert scan(page).unclosed_fence == 0 and scan(page).unclosed_embed == 0


def test_a_line_that_lazily_continues_a_paragraph_stays_in_the_admonition() -> None:
    page = '???+ question "Q"\n\n    Why\n   ?\n\n    ```\n    1\n    ```\n'
    assert kinds(page) == ["prose", "blank", "prose", "prose", "blank", "fence", "code", "fence",
                           "blank"]


def test_a_comment_in_a_markdown_html_element_is_a_comment() -> None:
    # md_in_html reads `<figure markdown>` as Markdown: a waiver inside it is a comment.
    page = '<figure markdown>\n  <!-- claims: waive 1 "r" -->\n  ![alt](a.png)\n</figure>\n'
    assert kinds(page) == ["prose", "comment", "prose", "prose", "blank"]


def test_a_comment_after_a_list_marker_or_before_text_is_inline() -> None:
    # Python-Markdown reads both inline, as the claim check's prose; CommonMark makes them blocks.
    assert kinds("- <!-- c -->\n- <!-- c --> text\n\n<!-- c --> text\n\n<!-- c -->\n") == [
        "prose", "prose", "blank", "prose", "blank", "comment", "blank"]


def test_an_indented_block_after_a_blank_line_is_code() -> None:
    # Python-Markdown renders it as code; the line scanner before markdown-it called it prose.
    assert kinds("Text\n\n    x = 12\n\nMore\n    lazy\n") == [
        "prose", "blank", "code", "blank", "prose", "prose", "blank"]


def test_a_fence_left_open_in_an_admonition_is_reported() -> None:
    assert scan('!!! note "N"\n\n    ```\n    x\n\nAfter\n').unclosed_fence == 3


def test_the_claim_check_reads_the_structure_of_the_page_as_written() -> None:
    # Glue references are blanked before the prose is split; the blanks are no indentation.
    written = "Intro.\n\n{glue}`ch01_a.py:x` bits, and 5 more.\n"
    blanked = written.replace("{glue}`ch01_a.py:x`", " " * len("{glue}`ch01_a.py:x`"))
    elements = page_elements(blanked, 0, "p.md", [], written)
    assert [element.text.strip() for element in elements] == ["Intro.", "bits, and 5 more."]
