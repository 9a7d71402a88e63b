"""Probe tests of the claim check's rules against wrong units and swapped numbers: units, rows in
tables, row labels in sentences, lower-case reference words (D5). Each test
builds a small page and its output in memory and fails when its rule breaks; the last ones
mutate real pages of the book."""

from __future__ import annotations

import textwrap

import pytest

from explainer_tools.claims import Outputs, PageReport, check_page, scan_numbers
from explainer_tools.claims.arithmetic import check_arithmetic
from explainer_tools.claims.units import kinds_named, unit_after
from explainer_tools.layout import DEFAULT

REPO_ROOT = DEFAULT.root

OUTPUT = """\
Probe (probe.py)
[1] untrained: surprisal 15.666 bits/token; gap +5.3 ppm; share 31.23 %; took 0.9 s
[2] population loss (bits), by levels:
    levels   H (bits)   loss
         3    0.7486    4.228
        11    2.4704    2.827
        31    3.9036    2.478
        63    4.8835    2.433
[3] population loss on B: unmerged 3.850 bits, merged 5.479 bits
    N = 100,000 documents, n = 10,000 scored, L = 5,120 bits
[4] counts 17 and 42
[5] storage:
    float32, 32 bits per weight   3,983,228,928 bits
    float16, 16 bits per weight   1,991,614,464 bits
All assertions passed.
"""


@pytest.fixture()
def outputs() -> Outputs:
    return Outputs({"probe.py": OUTPUT})


def check(markdown: str, outputs: Outputs) -> PageReport:
    page = "---\nscripts: [probe.py]\n---\n" + textwrap.dedent(markdown)
    return check_page(page, "docs/chapters/x.md", outputs)


def errors(markdown: str, outputs: Outputs) -> list[str]:
    return [error.number for error in check(markdown, outputs).errors]


# --- units ----------------------------------------------------------------------------------


def test_unit_lexer_reads_units_after_numbers() -> None:
    assert unit_after(" bits per token")[0] == "bits"
    assert unit_after("-bit message")[0] == "bits"
    assert unit_after(r"\,\text{nats}")[0] == "nats"
    assert unit_after(r"\%")[0] == "%"
    assert unit_after(" ms")[0] == "ms"
    assert unit_after(" MB")[0] == "MB"
    assert unit_after(" layers") is None
    assert unit_after(" seeds") is None


def test_kinds_named_tells_labels_from_units_of_other_numbers() -> None:
    labels, attached, logs = kinds_named("loss (bits): 2.4; share 2.2 %; -ln(P)/N 0.02")
    assert labels == {"bits"} and attached == {"%"} and logs == {"nats"}
    assert kinds_named("the second is not a bound")[0] == set()  # "second" is an ordinal


@pytest.mark.parametrize(("sentence", "wrong"), [
    ("The untrained model pays 15.666 bits (output [1]).", False),
    ("The untrained model pays 15.666 nats (output [1]).", True),
    ("The gap is +5.3 ppm (output [1]).", False),
    ("The gap is +5.3 % (output [1]).", True),
    ("It holds 31.23 % of them (output [1]).", False),
    ("It holds 31.23 ppm of them (output [1]).", True),
    ("It took 0.9 s (output [1]).", False),
    ("It took 0.9 ms (output [1]).", True),
    ("It took 0.9 (output [1]).", False),  # no unit in prose: nothing to compare
])
def test_probe_units_a_unit_must_match_the_printed_one(sentence: str, wrong: bool,
                                                       outputs: Outputs) -> None:
    found = errors(sentence, outputs)
    assert bool(found) == wrong, found


def test_probe_units_an_unlabelled_number_takes_its_block_label(outputs: Outputs) -> None:
    """'2.827' is printed with no unit, in a block whose title says '(bits)'."""
    assert errors("At 11 levels the loss is 2.827 bits (output [2]).", outputs) == []
    report = check("At 11 levels the loss is 2.827 nats (output [2]).", outputs)
    assert [e.number for e in report.errors] == ["2.827"]
    assert "labels its numbers bits" in report.errors[0].message


def test_probe_units_nothing_in_the_output_names_the_unit(outputs: Outputs) -> None:
    report = check("It counts 17 bits (output [4]).", Outputs({"probe.py": OUTPUT.replace(
        "(bits)", "").replace("bits", "").replace("H ()", "H")}))
    assert [e.number for e in report.errors] == ["17"]
    assert "nothing in the script's output is in bits" in report.errors[0].message


def test_a_glued_s_is_a_plural_not_seconds(outputs: Outputs) -> None:
    assert errors("Counts of 17s and 42s (output [4]).", outputs) == []


# --- rows in tables -------------------------------------------------------------------------

TABLE = """\
Rows of output [2]:

| levels | H (bits) | loss |
| --- | --- | --- |
| 3 | 0.7486 | 4.228 |
| 11 | 2.4704 | 2.827 |
| 31 | 3.9036 | 2.478 |
| 63 | 4.8835 | 2.433 |
"""


def test_probe_rows_the_committed_table_passes(outputs: Outputs) -> None:
    assert errors(TABLE, outputs) == []


def test_probe_rows_a_cell_from_another_row_is_caught(outputs: Outputs) -> None:
    """Between rows: 2.827 and 2.478 exchanged in the loss column."""
    swapped = TABLE.replace("| 2.4704 | 2.827 |", "| 2.4704 | 2.478 |").replace(
        "| 3.9036 | 2.478 |", "| 3.9036 | 2.827 |")
    assert errors(swapped, outputs)


def test_probe_rows_cells_swapped_within_a_row_are_caught(outputs: Outputs) -> None:
    swapped = TABLE.replace("| 11 | 2.4704 | 2.827 |", "| 11 | 2.827 | 2.4704 |")
    assert errors(swapped, outputs)


def test_probe_rows_a_labelled_row_must_print_its_numbers(outputs: Outputs) -> None:
    table = textwrap.dedent("""\
        Sizes (output [5]):

        | format | bits |
        | --- | --- |
        | float32 | 3,983,228,928 |
        | float16 | 1,991,614,464 |
        """)
    assert errors(table, outputs) == []
    swapped = table.replace("| float32 | 3,983,228,928 |", "| float32 | 1,991,614,464 |").replace(
        "| float16 | 1,991,614,464 |", "| float16 | 3,983,228,928 |")
    assert errors(swapped, outputs) == ["3,983,228,928"]  # the second row of the swap


def test_probe_rows_chapter_17_float32_and_float16_swapped() -> None:
    """The issue's example: Chapter 17's table of message lengths, float32 and float16 bit
    counts exchanged, must fail (it once passed)."""
    page = "docs/chapters/17-message-length.md"
    text = (REPO_ROOT / page).read_text(encoding="utf-8")
    real = Outputs.from_dir(REPO_ROOT / "outputs")
    row32 = "| GPT-2 small, float32 | 3,983,228,928 |"
    row16 = "| GPT-2 small, float16 | 1,991,614,464 |"
    assert text.count(row32) == 1 and text.count(row16) == 1, "update the probe"
    assert check_page(text, page, real).errors == []
    swapped = text.replace(row32, "| GPT-2 small, float32 | 1,991,614,464 |").replace(
        row16, "| GPT-2 small, float16 | 3,983,228,928 |")
    line16 = text[:text.index(row16)].count("\n") + 1
    caught = [(e.line, e.number) for e in check_page(swapped, page, real).errors]
    assert caught == [(line16, "3,983,228,928")]


# --- row labels in sentences ----------------------------------------------------------------


def test_probe_sentences_numbers_after_each_others_labels(outputs: Outputs) -> None:
    right = "Its loss is unmerged 3.850 bits and merged 5.479 bits (output [3])."
    assert errors(right, outputs) == []
    swapped = "Its loss is unmerged 5.479 bits and merged 3.850 bits (output [3])."
    assert set(errors(swapped, outputs)) == {"5.479", "3.850"}


def test_probe_sentences_numbers_swapped_between_symbols(outputs: Outputs) -> None:
    right = r"With \(N=100{,}000\) documents and \(L=5{,}120\) bits (output [3])."
    assert errors(right, outputs) == []
    swapped = r"With \(N=5{,}120\) documents and \(L=100{,}000\) bits (output [3])."
    assert set(errors(swapped, outputs)) == {"5{,}120", "100{,}000"}


def test_probe_sentences_a_list_in_another_order(outputs: Outputs) -> None:
    listed = Outputs({"probe.py": OUTPUT.replace("[4] counts 17 and 42",
                                                 "[4] logits (2, 1, 0.1, -1)")})
    assert errors("The logits (2, 1, 0.1, -1) (output [4]).", listed) == []
    assert errors("The logits (2, 0.1, 1, -1) (output [4]).", listed)


def test_arithmetic_in_math_must_hold() -> None:
    assert check_arithmetic("5.0000+1.0285+0.1912=6.2197") == ""
    assert check_arithmetic(r"47\times768=36{,}096") == ""
    assert check_arithmetic(r"\frac{32}{4}=8") == ""
    assert "does not hold" in check_arithmetic("5.0000+1.0285+6.2197=0.1912")
    assert check_arithmetic(r"x = 2 \approx 2.1") == ""  # approximations are not checked
    assert check_arithmetic("K = 2") == ""  # a symbol is not arithmetic


# --- lower-case reference words (D5) --------------------------------------------------------


@pytest.mark.parametrize(("text", "skipped"), [
    ("Occam part 1.0285", False),
    ("the table 69", False),
    ("at step 301,000", False),
    ("as chapter 7 says", False),
    ("Part 1", True),
    ("Table 3", True),
    ("Step 2", True),
    ("Chapter 7", True),
    ("Figure 3", True),
    ("Equation 2", True),
    ("Eq. 2", True),
    ("§6.4", True),
    ("line 629", True),  # a source line, as the book cites them
])
def test_probe_D5_only_real_references_are_skipped(text: str, skipped: bool) -> None:
    token = [t for t in scan_numbers(text) if t.text][-1]
    assert (token.skip == "reference") == skipped, (text, token)


def test_probe_D5_a_lower_case_step_is_checked(outputs: Outputs) -> None:
    assert errors("Counts of 17 at step 42 (output [4]).", outputs) == []
    assert errors("Counts of 17 at step 43 (output [4]).", outputs) == ["43"]


def test_probe_rows_cells_in_the_other_order_on_the_rows_line(outputs: Outputs) -> None:
    """Two rows only (too few for the column rule): the row named by its first cell (11) must
    keep its line's order."""
    table = textwrap.dedent("""\
        Rows of output [2]:

        | levels | H (bits) | loss |
        | --- | --- | --- |
        | 3 | 0.7486 | 4.228 |
        | 11 | 2.4704 | 2.827 |
        """)
    assert errors(table, outputs) == []
    assert errors(table.replace("| 11 | 2.4704 | 2.827 |", "| 11 | 2.827 | 2.4704 |"),
                  outputs) == ["2.4704"]


def test_probe_sentences_arithmetic_on_a_page(outputs: Outputs) -> None:
    parts = Outputs({"probe.py": OUTPUT.replace("[4] counts 17 and 42",
                                                "[4] 5.0000 + 1.0285 + 0.1912 = 6.2197")})
    assert errors(r"The parts \(5.0000+1.0285+0.1912=6.2197\) (output [4]).", parts) == []
    report = check(r"The parts \(5.0000+1.0285+6.2197=0.1912\) (output [4]).", parts)
    assert any("does not hold" in e.message for e in report.errors)


def test_probe_units_a_line_that_writes_its_other_numbers_in_bits(outputs: Outputs) -> None:
    """On '... 3.850 bits, merged 5.479 bits' an unlabelled number next to them is in bits too."""
    line = Outputs({"probe.py": OUTPUT.replace("[4] counts 17 and 42",
                                               "[4] code 3,552 bits, difference +2.0")})
    assert errors("The code is +2.0 bits longer (output [4]).", line) == []
    assert errors("The code is +2.0 nats longer (output [4]).", line) == ["+2.0"]
    assert unit_after("-nat message")[0] == "nats"


def test_probe_units_a_line_that_takes_ln_is_in_nats(outputs: Outputs) -> None:
    """'-ln(P)/N tends to 0.02258': a logarithm and no unit on the line, so nats, not bits (the
    script's output writes bits elsewhere; Chapter 1's unit miss)."""
    line = Outputs({"probe.py": OUTPUT.replace("[4] counts 17 and 42",
                                               "[4] -ln(P)/N tends to 0.02258")})
    assert errors("The rate is 0.02258 nats (output [4]).", line) == []
    report = check("The rate is 0.02258 bits (output [4]).", line)
    assert [e.number for e in report.errors] == ["0.02258"]
    assert "takes a logarithm in nats" in report.errors[0].message


def test_probe_units_ln_2_converts_so_either_unit_may_be_meant() -> None:
    """'K ln 2' on a line multiplies bits into nats: K may be in bits (Chapter 22's 115,860)."""
    assert kinds_named("sqrt(K ln 2 / 2N): K = 115,860")[2] == {"nats", "bits"}
    assert kinds_named("-ln(P)/N tends to 0.02258")[2] == {"nats"}


def test_probe_units_a_line_in_bits_with_ln_2_is_not_in_nats(outputs: Outputs) -> None:
    """'loss at p = 1 is 1.0000 bits (a / ln 2 = 0.7213)': the line writes bits after its
    numbers, so its 1 is not in nats although it takes ln 2 (Chapter 12's unit miss)."""
    line = Outputs({"probe.py": OUTPUT.replace(
        "[4] counts 17 and 42", "[4] loss at p = 1 is 1.0000 bits (a / ln 2 = 0.7213)")})
    assert errors("A sure prediction costs 1 bit (output [4]).", line) == []
    assert errors("A sure prediction costs 1 nat (output [4]).", line) == ["1"]


def test_probe_units_a_block_that_writes_bytes_is_not_in_bits(outputs: Outputs) -> None:
    """'256 bytes' on one line of a block and '256 + j' on the next: the block writes units of
    data after its numbers, bytes only, so 256 bits is wrong (Chapter 4's unit miss)."""
    block = Outputs({"probe.py": OUTPUT.replace(
        "[4] counts 17 and 42", "[4] V = 50,257 = 256 bytes + 50,000 merges\n    id 256 + j")})
    assert errors("After the 256 nats come the merges (output [4]).", block) == ["256"]
    assert errors("After the 256 bytes come the merges (output [4]).", block) == []
    assert errors("After the 256 bits come the merges (output [4]).", block) == ["256"]


# --- the connective order rule --------------------------------------------------------------


@pytest.mark.parametrize(("sentence", "wrong"), [
    ("The loss is 3.850 against 5.479 (output [3]).", False),
    ("The loss is 5.479 against 3.850 (output [3]).", True),
    ("The losses are 3.850 bits and 5.479 bits (output [3]).", False),
    ("The losses are 5.479 bits and 3.850 bits (output [3]).", True),
    ("The losses are 5.479 merged and 3.850 unmerged (output [3]).", False),  # words say which
    ("The loss lies between 5.479 and 3.850 (output [3]).", False),  # a range: its own order
    ("The loss went from 5.479 to 3.850 (output [3]).", False),  # a change
    ("It holds 2.827 against 4.228 (output [2]).", False),  # two lines: no order between them
    ("The message is 5,120 bits at 100,000 documents (output [3]).", False),  # value at setting
    ("The message is 100,000 bits at 5,120 documents (output [3]).", True),
])
def test_probe_sentences_bare_connective_in_the_printed_order(sentence: str, wrong: bool,
                                                              outputs: Outputs) -> None:
    found = errors(sentence, outputs)
    assert bool(found) == wrong, found
    if wrong:
        report = check(sentence, outputs)
        assert "prints them in" in report.errors[0].message


def test_probe_sentences_a_value_at_its_setting_as_the_output_writes_it() -> None:
    """'0.3744 at eps = 0.05': when the output writes "at" between them itself, that order is
    right (Chapter 9's median training error)."""
    line = Outputs({"probe.py": OUTPUT.replace("[4] counts 17 and 42",
                                               "[4] median 0.3744, at eps = 0.05: bound 1.0810")})
    assert errors(r"It is 0.3744, at \(\varepsilon=0.05\) (output [4]).", line) == []


def test_probe_sentences_a_swap_on_a_real_page_is_caught() -> None:
    """Chapter 19's question quotes the unmerged and the merged loss in the printed order;
    swapped, the connective order rule reports it (a sentence-swap mutant of the harness)."""
    page = REPO_ROOT / "docs/chapters/19-lora.md"
    text = page.read_text(encoding="utf-8")
    right = "the model's loss is 3.850 bits unmerged against 5.479 merged"
    assert right in text
    outputs = Outputs.from_dir(REPO_ROOT / "outputs")
    bare = text.replace(right, "the model's losses are 3.850 bits against 5.479")
    assert check_page(bare, "docs/chapters/19-lora.md", outputs).errors == []
    swapped = bare.replace("3.850 bits against 5.479", "5.479 bits against 3.850")
    found = check_page(swapped, "docs/chapters/19-lora.md", outputs).errors
    assert [e.number for e in found] == ["3.850"]


# --- row labels with numbers, repeated values, numbers swapped into a label -----------------

BIGRAMS = OUTPUT.replace("[4] counts 17 and 42", """[4] bigram tables:
    bigram counted from 10 documents     2.8219   KL gap 0.2568
    bigram counted from 100 documents    2.5955   KL gap 0.0305""")


def test_probe_rows_a_label_of_words_and_numbers_names_its_line() -> None:
    """'bigram counted from 10 documents' names the line holding its words and printing 10 (not
    the one printing 100); a swap within that row breaks the line's order (Chapter 3's table)."""
    table = textwrap.dedent("""\
        The tables of output [4]:

        | predictor | bits per token | KL gap |
        | --- | --- | --- |
        | bigram counted from 10 documents | 2.8219 | 0.2568 |
        | bigram counted from 100 documents | 2.5955 | 0.0305 |
        """)
    outputs = Outputs({"probe.py": BIGRAMS})
    assert errors(table, outputs) == []
    swapped = table.replace("| 2.8219 | 0.2568 |", "| 0.2568 | 2.8219 |")
    assert errors(swapped, outputs) == ["2.8219"]


def test_probe_rows_a_value_printed_twice_on_the_line_keeps_its_place() -> None:
    """'0.0001 15 28.9046 7.2569 7.2569 7.3635': 7.2569 is printed twice, so the cells are
    matched to the line in order, each to its first printing after the cell before (Chapter
    14's table of weights)."""
    grid = Outputs({"probe.py": OUTPUT.replace("[4] counts 17 and 42", """[4] by weight:
    0.0001   15   28.9046   7.2569   7.2569   7.3635
    0.001    23   25.5814   6.9975   6.9975   7.0918""")})
    table = textwrap.dedent("""\
        Output [4]:

        | alpha | extra bits | range | code | valid code | union |
        | --- | --- | --- | --- | --- | --- |
        | 0.0001 | 15 | 28.9046 | 7.2569 | 7.2569 | 7.3635 |
        | 0.001 | 23 | 25.5814 | 6.9975 | 6.9975 | 7.0918 |
        """)
    assert errors(table, grid) == []
    swapped = table.replace("| 28.9046 | 7.2569 | 7.2569 |", "| 7.2569 | 28.9046 | 7.2569 |")
    assert errors(swapped, grid) == ["28.9046"]


def test_probe_rows_a_number_swapped_into_the_label(outputs: Outputs) -> None:
    """When the table's other rows name their lines, a label that names none is an error (the
    label rule of tables), even when the row's other cells name its line: a number from another
    row ('0.7486') in the label. Swapped with a cell of its own row ('2.4704' and 11), the row
    still copies its line, in another order: the column rule catches it."""
    table = textwrap.dedent("""\
        Rows of output [2]:

        | levels | H (bits) | loss |
        | --- | --- | --- |
        | 3 | 0.7486 | 4.228 |
        | 11 | 2.4704 | 2.827 |
        | 31 | 3.9036 | 2.478 |
        """)
    assert errors(table, outputs) == []
    report = check(table.replace("| 11 | 2.4704 |", "| 0.7486 | 2.4704 |"), outputs)
    assert {(e.line, e.number) for e in report.errors} == {(9, "0.7486")}
    assert any("names no line" in e.message for e in report.errors)
    report = check(table.replace("| 11 | 2.4704 |", "| 2.4704 | 11 |"), outputs)
    assert {e.line for e in report.errors} == {9}
    assert all("table column" in e.message for e in report.errors)


def test_probe_sentences_a_pair_printed_twice_keeps_the_printed_order() -> None:
    """Values printed more than once still have an order when a word joins them: some line
    must print them in the sentence's order; with only an operator or a comma between them
    (parts of a formula, a list of fractions), only values printed once each count."""
    twice = Outputs({"probe.py": OUTPUT.replace("[4] counts 17 and 42", """[4] merged:
    unmerged 3.850 bits, merged 5.479 bits
    again: unmerged 3.850 bits, merged 5.479 bits""")})
    assert errors("The losses are 3.850 against 5.479 (output [4]).", twice) == []
    assert errors("The losses are 5.479 against 3.850 (output [4]).", twice) == ["3.850"]
    assert errors(r"The sum \(5.479+3.850\) (output [4]).", twice) == []
