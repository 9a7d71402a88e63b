"""The claim check's stable parts at their edges, where a mutation run found them untested:
thousands groups, table cells with escaped pipes, sentence ends after abbreviations, an unclosed
fence, citation descriptions."""

from __future__ import annotations

from decimal import Decimal

import pytest

from explainer_tools.blocks import BlockError
from explainer_tools.claims import Outputs, check_page, scan_numbers
from explainer_tools.claims.model import Citation, ClaimError
from explainer_tools.claims.page import _cells, inline_segments, sentence_spans


def values(text: str) -> list[Decimal]:
    return [t.value for t in scan_numbers(text) if t.value is not None]


def test_a_first_group_of_four_digits_is_no_thousands_number() -> None:
    assert values("we had 1234,567 of them") == [Decimal(1234), Decimal(567)]
    assert values("we had 1,234,567 of them") == [Decimal(1234567)]


def test_an_escaped_pipe_stays_inside_its_cell() -> None:
    assert _cells("| a \\| b | 3 |") == [" a \\| b ", " 3 "]
    assert _cells("| a | b | 3 |") == [" a ", " b ", " 3 "]


def test_an_abbreviation_does_not_end_a_sentence() -> None:
    text = "We use e.g. 5 of them. Next one."
    assert [text[a:b].strip() for a, b in sentence_spans(text, inline_segments(text))] == [
        "We use e.g. 5 of them.", "Next one."]


def test_an_unclosed_fence_is_an_error_on_its_line() -> None:
    page = "# T\n\nSome prose.\n\n```\nx = 5\n"
    errors = check_page(page, "p.md", Outputs({})).errors
    assert [(e.line, "never closed" in e.message) for e in errors] == [(5, True)]


def test_citations_describe_one_block_or_several() -> None:
    assert Citation("a.py", (3,), 1, "").describe() == "output [3] of a.py"
    assert Citation("a.py", (1, 2), 1, "").describe() == "outputs [1] and [2] of a.py"
    assert Citation("a.py", (1, 2, 4), 1, "").describe() == "outputs [1], [2] and [4] of a.py"
    assert str(ClaimError("p.md", 7, "wrong")) == "p.md:7: wrong"


def test_an_output_with_a_repeated_block_number_is_an_error_not_an_empty_output() -> None:
    outputs = Outputs({"ch01_a.py": "T\n[1] a = 1\n[1] b = 2\n"})
    with pytest.raises(BlockError, match=r"block \[1\] appears twice"):
        outputs.blocks("ch01_a.py")
