"""Probe tests of the claim check's rules against wrong units and swapped numbers: units, rows in
tables, row labels in sentences, lower-case reference words (D5). Each test
builds a small page and its output in memory and fails when its rule breaks; the last ones
mutate real pages of the book."""

from __future__ import annotations

import textwrap

import pytest

from explainer_tools.claims import Outputs, PageReport, check_page, scan_numbers
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
