"""Unit tests of the claim check: number forms, citations, scopes, skip rules, waivers, report."""

from __future__ import annotations

import textwrap
from decimal import Decimal
from pathlib import Path

import pytest

from explainer_tools.claims import (
    Outputs,
    PageReport,
    check_page,
    check_site,
    format_report,
    main,
    parse_number,
    scan_numbers,
)

PARAMS = """\
Chapter 5 -- parameter counts (ch05_param_count.py)
[1] GPT-2 small: n_layer = 12, d = 768, 12 heads x 64 dims, MLP width 4d = 3,072
    token embedding 50,304 x 768 = 38,633,472
    padding: 50,304 - 50,257 = 47 rows -> 36,096 unused numbers
    one block = 12 d^2 + 13 d = 7,087,872; total = 123,689,472 -> rounds to 124M
[2] shares: token embedding 31.23 %, attention 22.92 %, LayerNorms 0.031 %
    gap +5.3 ppm; with biases -0.055 %; row sums err below 1e-6, largest 1.8e-07
[3] untrained: surprisal 15.666 bits/token; log2 50,304 = 15.618
[4] context 1,024 x 768 = 786,432
All assertions passed.
"""
ATTENTION = """\
Chapter 5 -- attention (ch05_attention.py)
[1] GELU(-2) = -0.0455,  GELU(2) = 1.9545
[2] weights (0.198, 0.401, 0.401), scaled 1.414; exp(1.414) = 4.113
All assertions passed.
"""


@pytest.fixture()
def outputs() -> Outputs:
    return Outputs({"ch05_param_count.py": PARAMS, "ch05_attention.py": ATTENTION})


def check(markdown: str, outputs: Outputs, page: str = "docs/chapters/x.md") -> PageReport:
    return check_page(textwrap.dedent(markdown), page, outputs)


def values(text: str, mode: str = "prose") -> list[str]:
    return [str(t.value) for t in scan_numbers(text, mode) if t.value is not None]


def skips(text: str, mode: str = "prose") -> list[tuple[str, str]]:
    return [(t.text, t.skip) for t in scan_numbers(text, mode) if t.value is None]


def error_lines(report: PageReport) -> list[tuple[int, str]]:
    return [(e.line, e.number) for e in report.errors]


# --- normalisation -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "value"),
    [
        ("36,096", "36096"),
        ("123,689,472", "123689472"),
        ("36\u2009096", "36096"),  # thin space
        ("36\u202f096", "36096"),  # narrow no-break space
        ("36\u00a0096", "36096"),  # no-break space
        ("36{,}096", "36096"),  # LaTeX
        ("36\\,096", "36096"),  # LaTeX thin space
        ("−0.0455", "-0.0455"),  # unicode minus
        ("-0.0455", "-0.0455"),
        ("+5.3", "5.3"),
        ("5.3 ppm", "5.3"),
        ("31.23 %", "31.23"),
        ("31.23%", "31.23"),
        ("124M", "124"),
        ("1.8e-07", "1.8E-7"),
    ],
)
def test_parse_number_normalises_written_forms(written: str, value: str) -> None:
    assert parse_number(written) == Decimal(value)


def test_latex_wrapper_yields_every_number() -> None:
    assert values(r"\(47\times768=36{,}096\)", "math") == ["47", "768", "36096"]


def test_scientific_forms_are_one_number() -> None:
    assert values(r"1.8\times10^{-7} and 10^{-5}", "math") == ["1.8E-7", "0.00001"]
    assert values("an error of 1e-6") == ["0.000001"]


def test_commas_that_are_not_thousands_separate_numbers() -> None:
    assert values("(12,12,768) and 1,2,3,6") == ["12", "12", "768", "1", "2", "3", "6"]
    assert values("u=(1,2,3,6), (12,768)", "math") == ["1", "2", "3", "6", "12", "768"]
    assert values("(4, 4, 32)") == ["4", "4", "32"]


def test_signs_minus_hyphen_and_ranges() -> None:
    assert values("(−1.069, -0.535) between −0.514 and 0.477") == [
        "-1.069", "-0.535", "-0.514", "0.477"]
    assert values("positions 1–8 and 9-12; 50,304 - 50,257") == ["1", "8", "9", "12", "50304",
                                                                 "50257"]
    assert values(r"50{,}304-50{,}257=47", "math") == ["50304", "50257", "47"]


def test_same_digits_required(outputs: Outputs) -> None:
    report = check("The surprisal is 15.67 bits (output [3] of ch05_param_count.py).\n",
                   outputs)
    assert error_lines(report) == [(1, "15.67")]
    assert "closest there: 15.666 in [3] of ch05_param_count.py" in report.errors[0].message
    assert "near miss: rounded" in report.errors[0].message
    same = check("The surprisal is 15.666 bits (output [3] of ch05_param_count.py).\n", outputs)
    assert same.errors == []


def test_trailing_zeros_match_by_value(outputs: Outputs) -> None:
    report = check("Scaled, 1.4140 and \\(e^{1.414}=4.113\\) (output [2] of ch05_attention.py).\n",
                   outputs)
    assert report.errors == []
    assert [o.text for o in report.checked] == ["1.4140", "1.414", "4.113"]


def test_near_miss_kinds(outputs: Outputs) -> None:
    report = check(
        "Values 38,633,473 and 0.0455 and 38,400,001 (output [1] of ch05_param_count.py).\n"
        "\n"
        "Sign: GELU(−2) = 0.0455 (output [1] of ch05_attention.py).\n",
        outputs,
    )
    messages = {e.number: e.message for e in report.errors}
    assert "near miss: one digit differs" in messages["38,633,473"]
    assert "closest there: 38,633,472" in messages["38,633,473"]
    assert "near miss: within 1 %" in messages["38,400,001"]
    assert "differs only in sign" in next(e for e in report.errors if e.line == 3).message


# --- citations -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "sentence",
    [
        "It holds 38,633,472 numbers (output [1] of ch05_param_count.py).",
        "As output [1] of ch05_param_count.py prints, it holds 38,633,472 numbers.",
        "Output [1] of `ch05_param_count.py` says 38,633,472.",
        "It holds 38,633,472 numbers, output [1] (ch05_param_count.py).",
        "It holds 38,633,472 numbers (see output [1] of explainer_code/ch05_param_count.py).",
    ],
)
def test_explicit_citation_forms(sentence: str, outputs: Outputs) -> None:
    report = check(sentence + "\n", outputs)
    assert report.errors == []
    assert [o.text for o in report.checked] == ["38,633,472"]
    assert report.cited == {("ch05_param_count.py", 1)}
    wrong = check(sentence.replace("38,633,472", "38,633,427") + "\n", outputs)
    assert error_lines(wrong) == [(1, "38,633,427")]


def test_short_citation_uses_the_single_declared_script(outputs: Outputs) -> None:
    report = check(
        """\
        ---
        scripts: [ch05_attention.py]
        ---

        GELU(2) is 1.9545 (output [1]).
        """,
        outputs,
    )
    assert report.errors == [] and report.cited == {("ch05_attention.py", 1)}


def test_short_citation_uses_the_nearest_explicit_citation(outputs: Outputs) -> None:
    report = check(
        """\
        ---
        scripts: [ch05_param_count.py, ch05_attention.py]
        ---

        GELU(2) is 1.9545 (output [1] of ch05_attention.py).

        The weights are (0.198, 0.401, 0.401) (output [2]).

        The table has 38,633,472 numbers (output [1] of ch05_param_count.py); the head adds
        nothing. The context is 1,024 (output [4]).
        """,
        outputs,
    )
    assert report.errors == []
    assert report.cited == {("ch05_attention.py", 1), ("ch05_attention.py", 2),
                            ("ch05_param_count.py", 1), ("ch05_param_count.py", 4)}


def test_short_citation_without_a_script_is_an_error(outputs: Outputs) -> None:
    report = check("It is 1,024 (output [4]).\n", outputs)
    assert len(report.errors) == 1 and "names no script" in report.errors[0].message


@pytest.mark.parametrize(
    "citation",
    [
        "(outputs [1] and [4] of ch05_param_count.py)",
        "(outputs [1], [2] and [4] of ch05_param_count.py)",
        "(outputs [1]-[4] of ch05_param_count.py)",
    ],
)
def test_several_blocks(citation: str, outputs: Outputs) -> None:
    report = check(f"The head is 38,633,472 and the context 786,432 {citation}.\n", outputs)
    assert report.errors == []
    assert ("ch05_param_count.py", 4) in report.cited
    only_first = check("The head is 38,633,472 and the context 786,432 "
                       "(output [1] of ch05_param_count.py).\n", outputs)
    assert error_lines(only_first) == [(1, "786,432")]


def test_outputs_list_with_short_form(outputs: Outputs) -> None:
    report = check(
        """\
        ---
        scripts: [ch05_param_count.py]
        ---

        Shares 31.23 % and 15.666 bits (outputs [1], [2] and [3]); also 1,024 (output [4]).
        """,
        outputs,
    )
    assert report.errors == []


def test_unknown_script_and_unknown_block_are_errors(outputs: Outputs) -> None:
    report = check(
        "It is 7 (output [1] of ch99_missing.py).\n\nIt is 7 (output [9] of ch05_attention.py).\n",
        outputs,
    )
    assert [e.line for e in report.errors] == [1, 3]
    assert "unknown script ch99_missing.py" in report.errors[0].message
    assert "block [9] of ch05_attention.py, which prints blocks [1], [2]" in \
        report.errors[1].message


def test_front_matter_with_unknown_script_is_an_error(outputs: Outputs) -> None:
    report = check("---\nscripts: [ch99_missing.py]\n---\n\nText.\n", outputs)
    assert "ch99_missing.py" in report.errors[0].message


# --- scope ---------------------------------------------------------------------------------


def test_scope_runs_from_a_citation_to_the_end_of_its_paragraph(outputs: Outputs) -> None:
    """A citation covers its sentence and the uncited sentences after it in its paragraph (cite a
    block once per paragraph); a sentence before the first citation stays uncited."""
    report = check(
        """\
        It has 47 friends. The model has 12 layers (output [1] of ch05_param_count.py). Its width
        is 768. It was released with 769 friends.

        A new paragraph with 12 more.
        """,
        outputs,
    )
    assert [o.text for o in report.checked] == ["12", "768", "769"]
    assert [e.number for e in report.errors] == ["769"]
    assert [(o.line, o.text) for o in report.uncited] == [(1, "47"), (4, "12")]


def test_a_later_citation_takes_over_the_scope(outputs: Outputs) -> None:
    report = check(
        "Width 768 (output [1] of ch05_param_count.py). Its surprisal is 15.666 (output [3] of "
        "ch05_param_count.py). The log is 15.618. The MLP width is 3,072.\n",
        outputs,
    )
    assert [o.text for o in report.checked] == ["768", "15.666", "15.618", "3,072"]
    assert [e.number for e in report.errors] == ["3,072"]
    assert "output [3]" in report.errors[0].message


def test_abbreviations_do_not_end_a_sentence(outputs: Outputs) -> None:
    report = check("Radford et al. wrote it, e.g. with 768 dims (output [1] of "
                   "ch05_param_count.py).\n", outputs)
    assert [o.text for o in report.checked] == ["768"]


def test_scope_is_the_whole_list_item(outputs: Outputs) -> None:
    report = check(
        """\
        Facts.

        - The width is 768. It has 12 layers and 64-dim heads
          (output [1] of ch05_param_count.py).
        - Not cited: 47.
        """,
        outputs,
    )
    assert report.errors == []
    assert [o.text for o in report.checked] == ["768", "12", "64"]
    assert [(o.line, o.text) for o in report.uncited] == [(5, "47")]


def test_table_rows_with_their_own_citation(outputs: Outputs) -> None:
    report = check(
        """\
        Pieces.

        | piece | count | source |
        | --- | --- | --- |
        | embedding | 38,633,472 | output [1] of ch05_param_count.py |
        | block | 7,087,872 | (output [1] of ch05_param_count.py) |
        | other | 47 | none |
        """,
        outputs,
    )
    assert report.errors == []
    assert [(o.line, o.text) for o in report.uncited] == [(7, "47")]


def test_table_introduced_by_a_citing_sentence_is_checked_cell_by_cell(outputs: Outputs) -> None:
    report = check(
        """\
        Piece by piece it holds (output [1] of ch05_param_count.py):

        | Piece | Shape | Parameters |
        | --- | --- | --- |
        | Token embedding | \\(50{,}304\\times768\\) | 38,633,472 |
        | One block | \\(12\\cdot768^2+13\\cdot768\\) | 7,087,872 |
        | Total | | 123,689,473 |
        """,
        outputs,
    )
    assert error_lines(report) == [(7, "123,689,473")]
    assert "(table column 'Parameters')" in report.errors[0].message
    assert len(report.checked) == 9  # 50304, 768, 38633472, 12, 768, 13, 768, 7087872, wrong
    assert ("768^2"[-1], "exponent") in [(o.text, o.note) for o in report.skipped]


def test_table_caption_that_cites(outputs: Outputs) -> None:
    report = check(
        """\
        | share | value |
        | --- | --- |
        | attention | 22.92 % |

        Table: where the parameters live (output [2] of ch05_param_count.py).
        """,
        outputs,
    )
    assert report.errors == [] and [o.text for o in report.checked] == ["22.92"]


def test_list_introduced_by_a_citing_sentence_ending_in_a_colon(outputs: Outputs) -> None:
    report = check(
        """\
        The script prints (output [2] of ch05_attention.py):

        - weights 0.198 and 0.401;
        - the scaled score 1.414 and 7.5.

        Unrelated (output [1] of ch05_attention.py).

        - 0.198 here is uncited.
        """,
        outputs,
    )
    assert error_lines(report) == [(4, "7.5")]
    assert [(o.line, o.text) for o in report.uncited] == [(8, "0.198")]


def test_admonition_titles_and_bodies(outputs: Outputs) -> None:
    report = check(
        """\
        ??? question "Why 768 (output [1] of ch05_param_count.py)?"

            Because 12 heads of 64 make 768 (output [1] of ch05_param_count.py).

            ??? success "Answer"

                It has 99 (output [1] of ch05_param_count.py).
        """,
        outputs,
    )
    assert error_lines(report) == [(7, "99")]
    assert [o.text for o in report.checked] == ["768", "12", "64", "768", "99"]


# --- what is not prose, and the skip rules -------------------------------------------------


def test_code_comments_front_matter_and_embeds_are_not_prose(outputs: Outputs) -> None:
    report = check(
        """\
        ---
        hide: 555
        scripts: [ch05_param_count.py]
        ---

        ```python
        x = 12345
        ```

        <!-- a comment with 777 -->
        <!-- embed: output ch05_param_count.py [1] -->
            [1] 888 lines
        <!-- /embed -->

        Inline code `n_embd = 768` is code.
        """,
        outputs,
    )
    assert report.uncited == [] and report.checked == [] and report.errors == []
    assert [(o.text, o.note) for o in report.skipped] == [("768", "inline code")]


@pytest.mark.parametrize(
    "text",
    [
        "Chapter 7", "Chapters 19 and 20", "§6.4", "Section 3.2", "Figure 3", "Fig. 3",
        "Table 3", "App. E, p. 16", "pp. 16–17", "Eq. 2", "Appendix E, page 17", "Step 1",
        "arXiv 2312.17173",
    ],
)
def test_references_are_skipped(text: str) -> None:
    assert all(reason == "reference" for _, reason in skips(text)) and skips(text)
    assert values(text) == []


def test_a_singular_reference_does_not_swallow_the_next_number() -> None:
    assert values("In Chapter 5, 12 layers") == ["12"]
    assert values("Table 3 and 7 rows") == ["7"]


def test_block_markers_are_skipped() -> None:
    assert skips("see [3] and [12]") == [("3", "block marker"), ("12", "block marker")]


@pytest.mark.parametrize(
    "text",
    ["released in 2019.", "in 2019, OpenAI", "since 2020", "July 2024", "Radford et al. 2019",
     "Radford et al., 2019", "(Radford, 2019)", "Lotfi (2024)", "ICML 2024", "from 2019 to 2023"],
)
def test_years_in_date_or_publication_context_are_skipped(text: str) -> None:
    assert values(text) == []
    assert {reason for _, reason in skips(text)} == {"year"}


def test_year_like_numbers_elsewhere_are_checked() -> None:
    assert values("in 2048 dimensions") == ["2048"]
    assert values("a width of 2019") == ["2019"]
    assert values("1,999 rows") == ["1999"]
    assert values("widths 2048 and 2049") == ["2048", "2049"]


def test_exponents_and_indices_in_formulas() -> None:
    assert values(r"12\cdot768^2+13 d^{2} x_1 W_{12} y_i^{(0)} \log_2 V", "math") == [
        "12", "768", "13"]
    assert {reason for _, reason in skips(r"768^2 x_1 W_{12}", "math")} == {"exponent", "index"}
    assert values(r"e^{1.414}=4.113", "math") == ["1.414", "4.113"]  # a decimal power is a value
    assert values(r"12n^2+13n", "math") == ["12", "13"]  # a product, not a name


def test_provenance_tag_contents_are_skipped(outputs: Outputs) -> None:
    report = check("[PAPER App. E, p. 16] It has 12 layers (output [1] of ch05_param_count.py). "
                   "[SOURCE: nanoGPT model.py, commit 3adf61e] Fine.\n", outputs)
    assert report.errors == [] and [o.text for o in report.checked] == ["12"]
    assert ("16", "provenance tag") in [(o.text, o.note) for o in report.skipped]


@pytest.mark.parametrize(
    "text", ["ch05_param_count.py", "c606ea6", "GPT-2", "log2", "E24", "rank-4", "3adf61e",
             "2nd", "x_1", "version 2.13.0", "W_1"],
)
def test_numbers_inside_identifiers_are_skipped(text: str) -> None:
    assert values(text) == []


def test_suffixes_and_compounds_are_still_numbers() -> None:
    assert values("124M and 5.3ppm and a 768-wide layer") == ["124", "5.3", "768"]


def test_links_urls_and_html_are_not_prose(outputs: Outputs) -> None:
    report = check('See [the step](#step-3) and <span class="c2">x</span> at '
                   "https://example.org/v2/page-9 {#id-4}.\n", outputs)
    assert report.uncited == [] and report.skipped == []


# --- waivers and fully-cited sections ------------------------------------------------------


def test_waiver_covers_its_element(outputs: Outputs) -> None:
    report = check(
        """\
        The context is 1024 tokens <!-- claims: waive 1024 "context length, defined in the text" -->
        and 7 more (output [1] of ch05_param_count.py).

        <!-- claims: waive 8 16 "head counts chosen for the question" -->
        With 8 or 16 heads?

        Again 12.
        """,
        outputs,
    )
    assert error_lines(report) == [(2, "7")]
    assert [(o.text, o.note) for o in report.waived] == [
        ("1024", "context length, defined in the text"),
        ("8", "head counts chosen for the question"),
        ("16", "head counts chosen for the question")]
    assert [(o.line, o.text) for o in report.uncited] == [(7, "12")]


@pytest.mark.parametrize(
    ("comment", "message"),
    [
        ("<!-- claims: waive 1024 -->", "has no reason"),
        ('<!-- claims: waive 1024 "" -->', "has no reason"),
        ('<!-- claims: skip 1024 "why" -->', "malformed claims comment"),
        ('<!-- claims: waive 999 "not there" -->', "waiver of 999 matches no number"),
    ],
)
def test_bad_waivers_are_errors(comment: str, message: str, outputs: Outputs) -> None:
    report = check(f"The context is 1024 tokens {comment}.\n", outputs)
    assert any(message in e.message and e.line == 1 for e in report.errors), report.errors


def test_uncited_numbers_are_errors_in_fully_cited_sections(outputs: Outputs) -> None:
    report = check(
        """\
        ## Intuition

        About 99 friends.

        ## Worked example with real numbers

        ### Step 1

        It has 12 layers (output [1] of ch05_param_count.py) and 99 friends.

        Another 98.

        ## Common misconceptions

        - Wrong: 97.

        ## Going deeper

        And 96.
        """,
        outputs,
    )
    assert [(o.line, o.text) for o in report.uncited] == [(3, "99"), (11, "98"), (15, "97"),
                                                          (19, "96")]
    # in a fully cited section every uncited number is an error; elsewhere one that no output
    # of the page's scripts prints (all of these)
    assert error_lines(report) == [(3, "99"), (9, "99"), (11, "98"), (15, "97"), (19, "96")]
    assert "uncited in the section 'Worked example with real numbers'" in \
        report.errors[2].message


def test_erratum_front_matter_prose_is_checked(outputs: Outputs) -> None:
    report = check(
        """\
        ---
        id: E43
        title: Sizes counted two ways
        problem: >-
          [MY ANALYSIS] The total is 123,689,472 (output [1] of ch05_param_count.py), and
          the head 38,633,471 (output [1] of ch05_param_count.py).
        evidence:
          - output: ch05_param_count.py
            block: 2
            shows: >-
              the attention share, 22.92 %, and 22.93 %
          - repo: github.com/x/y
            where: "lines 140-178"
            shows: "the shapes (20, 20, 1280)"
        ---

        Body.
        """,
        outputs,
    )
    assert error_lines(report) == [(6, "38,633,471"), (11, "22.93"), (14, "20"), (14, "20"),
                                   (14, "1280")]
    assert [o.text for o in report.uncited] == ["20", "20", "1280"]


def test_a_front_matter_field_is_checked_at_the_lines_its_value_stands_on(
        outputs: Outputs) -> None:
    """A plain value that starts on the line after its key and runs on: each number is reported
    at its own line; a field no erratum has (`notes`) is not prose."""
    report = check(
        """\
        ---
        id: E43
        notes: 38,633,471
        consequences:
          The total is 123,689,471 (output [1] of ch05_param_count.py),
          and the head 38,633,471.
        ---

        Body.
        """,
        outputs,
    )
    assert error_lines(report) == [(5, "123,689,471"), (6, "38,633,471")]


# --- the whole site, the report and the command line ---------------------------------------


def make_site(root: Path, chapter: str) -> None:
    (root / "outputs").mkdir()
    (root / "outputs" / "ch05_param_count.txt").write_text(PARAMS, encoding="utf-8")
    (root / "outputs" / "ch05_attention.txt").write_text(ATTENTION, encoding="utf-8")
    (root / "docs" / "chapters").mkdir(parents=True)
    (root / "docs" / "chapters" / "05-x.md").write_text(textwrap.dedent(chapter), encoding="utf-8")
    (root / "docs" / "index.md").write_text(
        'Home, 3 things. <!-- claims: waive 3 "a count in words" -->\n', encoding="utf-8")


def test_site_report_lists_counts_uncited_and_uncited_blocks(tmp_path: Path) -> None:
    make_site(tmp_path, """\
        ---
        scripts: [ch05_param_count.py]
        ---

        It has 12 layers (output [1]) in Chapter 5. [PAPER App. E, p. 16]

        See <!-- claims: waive 1024 "a reason" --> 1024 and 47.
        """)
    site = check_site(tmp_path)
    text = format_report(site)
    assert "docs/chapters/05-x.md: 1 checked, 3 skipped by rule, 1 waived, 1 uncited, 0 errors" \
        in text
    assert "uncited, line 7: 47" in text
    assert "docs/index.md: 0 checked, 0 skipped by rule, 1 waived, 0 uncited" in text
    assert ("blocks no page cites: ch05_attention.py [1] [2]; ch05_param_count.py [2] [3] [4]"
            in text)
    assert site.errors == [] and site.seconds < 2


def test_main_exit_status_and_error_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]
                                          ) -> None:
    make_site(tmp_path, "It has 11 layers (output [1] of ch05_param_count.py).\n")
    assert main(["--root", str(tmp_path)]) == 1
    out = capsys.readouterr().out
    assert ("error: docs/chapters/05-x.md:1: 11 is not printed in output [1] of "
            "ch05_param_count.py; closest there: 12 in [1] of ch05_param_count.py") in out
    (tmp_path / "docs" / "chapters" / "05-x.md").write_text(
        "It has 12 layers (output [1] of ch05_param_count.py).\n", encoding="utf-8")
    assert main(["--root", str(tmp_path), "-v"]) == 0
    assert "claims: 2 pages, 1 numbers checked, 0 uncited, 0 errors" in capsys.readouterr().out


def test_an_uncited_number_no_output_prints_is_an_error_anywhere(outputs: Outputs) -> None:
    """Probe 9: a wrong number in an ordinary section used to pass unnoticed."""
    report = check("## Where this fits\n\nGPT-2 small has 987,654,321 parameters.\n\n"
                   "It has 12 layers, as output [1] of ch05_param_count.py shows.\n\nAnd 768.\n",
                   outputs)
    assert error_lines(report) == [(3, "987,654,321")]
    assert "no output of the page's scripts (ch05_param_count.py) prints it" in \
        report.errors[0].message
    assert [(o.line, o.text) for o in report.uncited] == [(3, "987,654,321"), (7, "768")]


def test_quiet_summary_counts_uncited_numbers(tmp_path: Path) -> None:
    make_site(tmp_path, "It has 12 layers (output [1] of ch05_param_count.py).\n\nAnd 768.\n")
    text = format_report(check_site(tmp_path), quiet=True)
    assert "1 uncited" in text.splitlines()[-1]
    assert "uncited, line" not in text


def test_verified_numbers_api_gives_source_span_and_output_line(tmp_path: Path) -> None:
    """The API a build-time hook uses to link each verified number to the line that printed it."""
    from explainer_tools.claims import verified_numbers

    make_site(tmp_path, "It has 12 layers and 768 dims (output [1] of ch05_param_count.py). "
                        "\n\nAlso 47.\n")
    claims = verified_numbers(tmp_path)["docs/chapters/05-x.md"]
    text = (tmp_path / "docs" / "chapters" / "05-x.md").read_text(encoding="utf-8")
    first = claims.verified[0]
    assert (first.text, first.line, first.column) == ("12", 1, 8)
    assert text[first.span[0]:first.span[1]] == "12"
    assert (first.script, first.block, first.output_line) == ("ch05_param_count.py", 1, 2)
    assert "n_layer = 12" in first.output_text
    assert [v.text for v in claims.verified] == ["12", "768"]
    assert [o.text for o in claims.uncited] == ["47"] and claims.errors == []


def test_verified_numbers_leave_out_a_number_in_error(tmp_path: Path) -> None:
    """A bare number in a fully cited section of a page that quotes by name is printed in its
    block (so the check finds its output line) and an error: the API must not link it."""
    from explainer_tools.claims import verified_numbers
    from explainer_tools.glue import Glued, render_names

    (tmp_path / "outputs").mkdir()
    (tmp_path / "outputs" / "s.txt").write_text("T\n[1] total = 1,536 and 12\n")
    (tmp_path / "outputs" / "s.names.json").write_text(
        render_names("s.py", [Glued("total", "1,536", 2, 1)]))
    (tmp_path / "docs").mkdir()
    page = ("---\nscripts: [s.py]\n---\n\n## Worked example\n\nThe total is {glue}`total` "
            "over 12 rows (output [1]).\n\n## Aside\n\nAgain 12 rows (output [1]).\n")
    (tmp_path / "docs" / "p.md").write_text(page)
    claims = verified_numbers(tmp_path)["docs/p.md"]
    assert [(e.line, e.number) for e in claims.errors] == [(7, "12")]
    assert [(v.text, v.line) for v in claims.verified] == [("12", 11)]
