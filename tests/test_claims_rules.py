"""Probe tests of the claim check's skip rules: lower-case reference words (D5). "part", "table",
"step" and "chapter" in lower case begin ordinary phrases, not references: the number after them
is checked. Each test fails when its rule breaks."""

from __future__ import annotations

import textwrap

import pytest

from explainer_tools.claims import Outputs, check_page, scan_numbers

OUTPUT = """\
Probe (probe.py)
[1] counts 17 and 42
All assertions passed.
"""


def errors(markdown: str) -> list[str]:
    page = "---\nscripts: [probe.py]\n---\n" + textwrap.dedent(markdown)
    report = check_page(page, "docs/chapters/x.md", Outputs({"probe.py": OUTPUT}))
    return [error.number for error in report.errors]


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


def test_probe_D5_a_lower_case_step_is_checked() -> None:
    assert errors("Counts of 17 at step 42 (output [1]).") == []
    assert errors("Counts of 17 at step 43 (output [1]).") == ["43"]
