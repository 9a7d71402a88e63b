"""The rules against numbers swapped in a sentence and in a table: the words
around each number, the words that join two numbers, plain lists, bracketed lists, rows named
by their cells. Each test builds a small page and its output in memory; the rule's own message
is asserted, so that a test fails when its rule breaks even where another rule would also see
the fault."""

from __future__ import annotations

import textwrap
from decimal import Decimal

import pytest

from explainer_tools.claims import Outputs, PageReport, check_page
from explainer_tools.claims.context import (
    FIELD,
    column_words,
    contexts,
    is_header,
    joiner,
    label,
    noun,
    pointing,
    same_join,
    stem,
    swapped,
)

OUTPUT = """\
Probe (probe.py)
[1] bounded predictor: empirical 3.926  bound 4.541  true risk 3.935
    random guessing costs log2 32 = 5.000 bits per token
[2] Kronecker factors 593 x 223 each; remainder block 95 x 271
    coded bits from 113,352 to 125,896
    train error 5.0000 + Occam part 1.0285 + Hoeffding part 0.1912 = 6.2197
[3] complexity term by shape
    shape      K (bits)   complexity   subsampling
    small        1,702      0.390        0.180
    middle       1,711      0.391        0.181
    large        1,780      0.398        0.182
[4] softmax: (0.6381, 0.2347, 0.0954) and (0.7000, 0.3000)
[5] messages
    float32, 32 bits per weight   3,983,228,928 bits =   34,390 x SubLoRA
    float16, 16 bits per weight   1,991,614,464 bits =   17,195 x SubLoRA
    SubLoRA message                     115,826 bits =        1 x SubLoRA
[6] gap 0.7709 against 3.248; the line also prints 12 and 40
    tokens 4,096 and 8,192 on the population of 3 runs
[7] final ids [11241, 1634]; sizes 124.4M, 354.8M, 774.0M, 1557.6M
"""


@pytest.fixture()
def outputs() -> Outputs:
    return Outputs({"probe.py": OUTPUT})


def check(markdown: str, outputs: Outputs) -> PageReport:
    page = "---\nscripts: [probe.py]\n---\n" + textwrap.dedent(markdown)
    return check_page(page, "docs/chapters/x.md", outputs)


def messages(markdown: str, outputs: Outputs) -> list[tuple[str, str]]:
    return [(e.number, e.message) for e in check(markdown, outputs).errors]


# --- the words of a number --------------------------------------------------------------------


def test_words_are_stemmed_alike_in_prose_and_output() -> None:
    assert [stem(w) for w in ("guessing", "guess", "entries", "loss", "bits")] == [
        "guess", "guess", "entry", "loss", "bit"]


def test_a_number_has_a_label_before_it_and_a_noun_after_it() -> None:
    text = "OpenWebText has 8,013,769 documents; the split holds out 4,007 of them"
    spans = ((16, 25), (57, 62))
    assert [(sorted(a), sorted(b), c) for a, b, c in contexts(text, spans, 0, len(text))] == [
        (["openwebtext"], ["document"], "openwebtext"), (["hold", "split"], [], "hold")]
    assert noun("5 bits per token against", 1, 24) == ([], 1)  # units name no number
    assert label("true risk: ") == "true risk"


def test_a_number_assigned_to_a_symbol_is_labelled_by_it() -> None:
    (before, _after, _nearest), = contexts(r"at \(\alpha=0.1\)", ((12, 15),), 0, 17)
    assert before == {"=alpha", "alpha"}
    (before, _after, _nearest), = contexts("D = 2,384", ((4, 9),), 0, 9)
    assert before == {"=D"}  # symbols keep their case: D is not d


def test_a_number_joined_by_an_operator_shares_the_label_before_it() -> None:
    line = "token embedding  38,633,472 = 31.23 %    attention   28,348,416 = 22.92 %"
    spans = ((17, 27), (30, 35), (54, 64), (67, 72))
    assert [sorted(a) for a, _b, _c in contexts(line, spans, 0, len(line), FIELD)] == [
        ["embedd"], ["embedd"], ["attention"], ["attention"]]  # "token" is a unit: no label


def test_table_headers_label_the_columns_of_an_output() -> None:
    assert is_header("    shape      K (bits)   complexity   subsampling")
    assert not is_header("    small        1,702      0.390        0.180")
    assert not is_header("    one field only")
    header = "    shape      K (bits)   complexity   subsampling"
    assert column_words(header, 30, 35) == ["complexity"]
    assert column_words(header, 42, 47) == ["subsampl"]


def test_pointing_words_stand_next_to_one_value_only() -> None:
    at = ({"bound"}, set(), {"bound", "true", "risk"})
    away = ({"true", "risk"}, set(), {"bound", "true", "risk"})
    near, lines = pointing((frozenset({"true", "bound"}), frozenset()), at, away)
    assert near == {"bound"} and lines == set()  # "true" stands next to the other's printing
    near, _lines = pointing((frozenset(), frozenset({"bound"})), at, away)
    assert near == set()  # a noun is compared with nouns, a label with labels


# --- the word rule --------------------------------------------------------------------------


def _printings(*rows: tuple[str, set[str], set[str]]) -> list:
    return [(Decimal(v), frozenset(b), frozenset(a), frozenset({"x"})) for v, b, a in rows]


def words(*label: str, nearest: str = "") -> tuple[frozenset[str], frozenset[str], str]:
    """A number's words in prose: its label (the nearest word given apart) and no noun."""
    return frozenset(label), frozenset(), nearest


def test_swapped_when_each_one_s_words_point_at_the_other() -> None:
    printings = _printings(("4.541", {"bound"}, set()), ("3.935", {"true", "risk"}, set()))
    values = (Decimal("3.935"), Decimal("4.541"))
    bound = words("bound")
    risk = words("risk")
    assert swapped(bound, risk, values, printings, False)
    assert not swapped(risk, bound, values, printings, False)
    # a word pointing at its own number clears the pair
    assert not swapped(words("bound", "true"), risk, values, printings, True)


def test_one_side_needs_two_words_or_one_word_and_the_line_s_order() -> None:
    printings = _printings(("5.0", {"random", "guess"}, set()), ("2.5", set(), set()),
                           ("2.5", {"other"}, set()))
    values = (Decimal("5.0"), Decimal("2.5"))
    nothing = words()
    # the second number (2.5 as written) stands after "random guess": two words point at 5.0
    assert swapped(nothing, words("random", "guess"), values, printings, False)
    one = words("random")
    assert not swapped(nothing, one, values, printings, False)  # one word, no order
    assert swapped(nothing, one, values, printings, True)  # one word, and the line's order
    # one word that stands next to only one of the two printings of 2.5 is not enough
    swapped_back = (Decimal("2.5"), Decimal("5.0"))
    assert not swapped(nothing, words("other"), swapped_back, printings, True)


def test_one_word_counts_when_it_is_the_nearest_and_both_numbers_have_words() -> None:
    printings = _printings(("5.0", {"random", "guess"}, set()), ("2.5", {"best"}, set()))
    values = (Decimal("5.0"), Decimal("2.5"))
    assert swapped(words(), words("random", nearest="random"), values, printings, False)
    assert not swapped(words(), words("random", "cost", nearest="cost"), values, printings,
                       False)  # "random" is not the nearest word of the label
    unlabelled = _printings(("5.0", {"random", "guess"}, set()), ("2.5", set(), set()))
    assert not swapped(words(), words("random", nearest="random"), values, unlabelled, False)


def test_the_nearest_word_and_the_line_s_order_together_suffice() -> None:
    # 2.5 has no words of its own, so the nearest word alone is not enough, and "random"
    # stands next to one printing of 5.0 only; with a line that prints the two only in the
    # other order, the two signs agree
    unlabelled = _printings(("5.0", {"random", "guess"}, set()), ("5.0", {"uniform"}, set()),
                            ("2.5", set(), set()))
    values = (Decimal("5.0"), Decimal("2.5"))
    nearest = words("random", "cost", nearest="random")
    assert not swapped(words(), nearest, values, unlabelled, False)
    assert swapped(words(), nearest, values, unlabelled, True)
    # a word of the label that is not the nearest does not count, even with the order
    far = words("random", "cost", nearest="cost")
    assert not swapped(words(), far, values, unlabelled, True)


def test_the_word_rule_on_a_page(outputs: Outputs) -> None:
    good = "The bound is 4.541 and the predictor's true risk is 3.935 (output [1]).\n"
    assert messages(good, outputs) == []
    bad = good.replace("4.541", "@").replace("3.935", "4.541").replace("@", "3.935")
    found = messages(bad, outputs)
    assert [number for number, _m in found] == ["4.541"]
    assert "look swapped" in found[0][1]


def test_the_word_rule_reads_table_headers_of_the_output(outputs: Outputs) -> None:
    good = "For the middle shape the complexity is 0.391 and the subsampling 0.181 (output [3]).\n"
    assert messages(good, outputs) == []
    bad = good.replace("0.391", "@").replace("0.181", "0.391").replace("@", "0.181")
    assert any("look swapped" in m for _n, m in messages(bad, outputs))


def test_the_word_rule_reaches_the_noun_after_a_number() -> None:
    outputs = Outputs({"probe.py": "P (probe.py)\n[1] data: 8,013,769 documents; test_size "
                                   "0.0005 holds out 4,007; N = 8,009,762 training documents\n"})
    good = "It has 8,013,769 documents; the split holds out 4,007 of them (output [1]).\n"
    assert messages(good, outputs) == []
    bad = good.replace("8,013,769", "@").replace("4,007", "8,013,769").replace("@", "4,007")
    assert any("look swapped" in m for _n, m in messages(bad, outputs))


# --- the joiner rule -------------------------------------------------------------------------


def test_joiners_are_normalised() -> None:
    assert joiner(r"\times") == joiner(" × ") == joiner(" x ") == "x"
    assert joiner(" -> ") == joiner(r" \to ") == joiner(" to ") == "to"
    assert joiner(" bits per token to ") == "to"
    assert joiner(r" \pm ") == joiner(" +- ") == "±"
    assert same_join("+ occam part", "+") and not same_join("+ occam part", "to")
    assert same_join("", "and") and same_join("", ",") and not same_join("", "x")
    assert not same_join("of", "to")
    assert joiner(" by ") == "x" and joiner(" rows by ") != "x"  # "95 by 271" is "95 x 271"
    assert joiner("M and ") == joiner(" and ") == "and"  # a glued magnitude is no joiner
    assert same_join(",", "and") and same_join(",", "against") and not same_join(",", "x")


@pytest.mark.parametrize(("sentence", "flagged"), [
    (r"Factors of \(593\times223\) (output [2]).", None),
    (r"Factors of \(223\times593\) (output [2]).", "593"),
    ("The coded part stayed between 113,352 and 125,896 bits (output [2]).", None),
    ("The coded part stayed between 125,896 and 113,352 bits (output [2]).", "113,352"),
    (r"The parts are \(5.0000+1.0285+0.1912=6.2197\) (output [2]).", None),
    (r"The parts are \(5.0000+0.1912+1.0285=6.2197\) (output [2]).", "1.0285"),
    ("The term runs 1,711 to 1,702 bits (output [3]).", None),  # other lines: no order
    ("The table prints 0.390 against 0.180 (output [3]).", None),
    ("The table prints 0.180 against 0.390 (output [3]).", "0.390"),
    ("A block of 95 by 271 (output [2]).", None),
    ("A block of 271 by 95 (output [2]).", "95"),
    ("The ids are 11241 and 1634 (output [7]).", None),
    ("The ids are 1634 and 11241 (output [7]).", "11241"),
    ("The sizes are 774.0M and 1557.6M (output [7]).", None),
    ("The sizes are 1557.6M and 774.0M (output [7]).", "774.0"),
])
def test_the_joiner_rule(sentence: str, flagged: str | None, outputs: Outputs) -> None:
    found = [(n, m) for n, m in messages(sentence + "\n", outputs) if "are joined by" in m]
    assert [n for n, _m in found] == ([flagged] if flagged else [])


# --- lists -----------------------------------------------------------------------------------


def test_a_plain_list_follows_the_block_s_order(outputs: Outputs) -> None:
    good = "The complexity term is 0.390, 0.391 and 0.398 (output [3]).\n"
    assert messages(good, outputs) == []
    found = messages(good.replace("0.390, 0.391", "0.391, 0.390"), outputs)
    assert any(n == "0.390" and "stand in a list" in m for n, m in found)
    two = "The complexity term is 0.391 and 0.390 (output [3]).\n"  # two: no list
    assert not any("stand in a list" in m for _n, m in messages(two, outputs))


def test_a_bracketed_list_must_be_printed_as_a_list(outputs: Outputs) -> None:
    assert messages("The weights are (0.6381, 0.2347, 0.0954) (output [4]).\n", outputs) == []
    assert messages("The pair is (0.7000, 0.3000) (output [4]).\n", outputs) == []
    mixed = messages("The pair is (0.7000, 0.2347) (output [4]).\n", outputs)
    assert [m.split(":")[0] for _n, m in mixed if m.startswith("the list")] == [
        "the list (0.7000, 0.2347) is printed as no list; lists like it"]
    turned = messages("The pair is (0.3000, 0.7000) (output [4]).\n", outputs)
    assert any("only in another order" in m for _n, m in turned)


# --- rows named by their cells ---------------------------------------------------------------


def test_a_row_whose_cells_name_its_line_keeps_the_line_s_order(outputs: Outputs) -> None:
    table = textwrap.dedent("""\
        The messages (output [5]):

        | message | bits | times SubLoRA |
        | --- | --- | --- |
        | GPT-2 small in float32 | 3,983,228,928 | 34,390 |
        | GPT-2 small in float16 | 1,991,614,464 | 17,195 |
        | the message | 115,826 | 1 |
        """)
    assert messages(table, outputs) == []
    bad = table.replace("| 3,983,228,928 | 34,390 |", "| 34,390 | 3,983,228,928 |")
    assert [n for n, m in messages(bad, outputs) if "other order" in m] == ["3,983,228,928"]


# --- edges the mutation run found untested (tests/mutants_claims.py) ---------------------------


def test_the_verified_numbers_leave_out_a_number_in_error(tmp_path) -> None:
    from explainer_tools.claims import verified_numbers

    (tmp_path / "outputs").mkdir()
    (tmp_path / "outputs" / "probe.txt").write_text(OUTPUT, encoding="utf-8")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "x.md").write_text(
        "---\nscripts: [probe.py]\n---\nThe bound is 3.935 and the predictor's true risk is "
        "4.541 (output [1]).\n", encoding="utf-8")
    claims = verified_numbers(tmp_path)["docs/x.md"]
    assert [e.number for e in claims.errors] == ["4.541"]
    assert [v.text for v in claims.verified] == ["3.935"]


def test_the_symbol_rule_reads_n_as_n() -> None:
    outputs = Outputs({"probe.py": "P (probe.py)\n[1] sizes: n = 100, k = 7\n"})
    assert messages(r"With \(N=100\) and \(K=7\) (output [1]).\n", outputs) == []
    found = messages(r"With \(N=7\) and \(K=100\) (output [1]).\n", outputs)
    assert any("only as k = 7" in m for _n, m in found)


def test_a_glued_s_is_no_unit_where_no_output_writes_seconds() -> None:
    outputs = Outputs({"probe.py": "P (probe.py)\n[1] counts 17 and 42\n"})
    assert messages("Counts of 17s and 42s (output [1]).\n", outputs) == []
    assert [n for n, _m in messages("Took 17 s and 42 s (output [1]).\n", outputs)] == [
        "17", "42"]


def test_a_line_that_writes_its_numbers_in_bits_is_not_in_nats() -> None:
    """Only the line says no here: another line of its block writes nats."""
    outputs = Outputs({"probe.py": "P (probe.py)\n[1] code 3,552 bits, difference +2.0\n"
                                   "    other 0.5 nats\n"})
    assert messages("The code is +2.0 bits longer (output [1]).\n", outputs) == []
    found = messages("The code is +2.0 nats longer (output [1]).\n", outputs)
    assert [n for n, _m in found] == ["+2.0"]
    assert "its line writes its other numbers in bits" in found[0][1]


def test_subtraction_in_math_must_hold() -> None:
    from explainer_tools.claims.arithmetic import check_arithmetic

    assert check_arithmetic("10-3=7") == ""
    assert "does not hold" in check_arithmetic("10-3=13")


def test_a_cell_from_another_row_is_caught_by_its_digits() -> None:
    """The row '11' names its line (11 is the first number it prints), which does not print
    the cell's 31 but prints 11 written alike (two digits, no decimals): a number of another
    row."""
    outputs = Outputs({"probe.py": "P (probe.py)\n[1] levels, entropy, loss:\n"
                                   "         3    0.7486    4.228\n"
                                   "        11    2.4704    2.827\n"
                                   "        31    3.9036    2.478\n"})
    table = textwrap.dedent("""\
        Rows of output [1]:

        | levels | H (bits) | loss |
        | --- | --- | --- |
        | 3 | 0.7486 | 4.228 |
        | 11 | 2.4704 | 2.827 |
        """)
    assert messages(table, outputs) == []
    found = messages(table.replace("| 11 | 2.4704 |", "| 11 | 31 |"), outputs)
    assert any(n == "31" and "not on the line its row's label names" in m for n, m in found)


def test_the_harness_swaps_only_numbers_of_one_block() -> None:
    """A sentence swap exchanges two numbers of one block (numbers of two blocks are told
    apart by value already); here the sentence's two numbers come from two blocks."""
    from explainer_tools.claims import mutate

    outputs = Outputs({"probe.py": "P (probe.py)\n[1] a 3.5 and 4.5\n[2] b 7.25\n"})
    page = ("---\nscripts: [probe.py]\n---\nA is 3.5, then 4.5, and B is 7.25 (outputs [1] "
            "and [2]).\n")
    report = check_page(page, "docs/x.md", outputs)
    assert report.errors == []
    made = mutate.page_mutants(page, "docs/x.md", outputs, report, ["sentence swap"], cap=100)
    assert [m.description for m in made] == ["sentence: 3.5 (line 4) <-> 4.5 (line 4)"]


# --- the pairing rule ------------------------------------------------------------------------

PAIRED = """\
Tail (tail.py)
[1] standard deviation of the mean, p = 0.3
    N =    10: independent 0.14491
    N =   100: independent 0.04583
    N = 1,000: independent 0.01449
"""


def test_two_numbers_joined_by_a_connector_stand_on_one_line() -> None:
    outputs = Outputs({"probe.py": PAIRED})
    good = "It is 0.14491 at 10, 0.04583 at 100 and 0.01449 at 1,000 (output [1]).\n"
    assert messages(good, outputs) == []
    bad = good.replace("at 100", "at @").replace("0.01449", "100").replace("@", "0.01449")
    report = check(bad, outputs)
    found = [e for e in report.errors if "states one fact" in e.message]
    assert [e.number for e in found] == ["0.01449", "1,000"]
    assert found[0].page == "docs/chapters/x.md" and found[0].line == 4
    assert "line 3" in found[0].message and "line 4" in found[0].message


def test_the_pairing_rule_takes_the_symbol_after_the_connector() -> None:
    outputs = Outputs({"probe.py": PAIRED})
    bad = r"It is 0.04583 at \(N\) = 1,000 (output [1])." + "\n"
    assert any("states one fact" in m for _n, m in messages(bad, outputs))
    assert not any("states one fact" in m for _n, m in messages(
        bad.replace("1,000", "100"), outputs))


def test_the_pairing_rule_leaves_out_the_block_s_first_line() -> None:
    # 0.3 is printed on the title line, which holds the settings of every line below it
    outputs = Outputs({"probe.py": PAIRED})
    assert not any("states one fact" in m for _n, m in messages(
        "It is 0.04583 at 0.3 (output [1]).\n", outputs))


def test_the_pairing_rule_takes_values_printed_more_than_once() -> None:
    # 0.04583 stands on two lines; neither prints 1,000: no line states "0.04583 at 1,000"
    outputs = Outputs({"probe.py": PAIRED + "    N =   100 again: 0.04583\n"})
    assert messages("It is 0.04583 at 100 (output [1]).\n", outputs) == []
    assert any(n == "1,000" and "no line of the cited block(s) prints both" in m
               for n, m in messages("It is 0.04583 at 1,000 (output [1]).\n", outputs))


def test_the_pairing_rule_leaves_out_the_result_of_an_expression() -> None:
    outputs = Outputs({"probe.py": PAIRED})
    assert any("states one fact" in m for _n, m in messages(
        r"It is \(0.04583 = 1{,}000\) (output [1])." + "\n", outputs))
    assert not any("states one fact" in m for _n, m in messages(
        r"It is \(0.14491 / 0.04583 = 1{,}000\) (output [1])." + "\n", outputs))


def test_the_pairing_rule_needs_a_connector_alone() -> None:
    outputs = Outputs({"probe.py": PAIRED})
    assert not any("states one fact" in m for _n, m in messages(
        "It is 0.04583, and far below it, 1,000 (output [1]).\n", outputs))
