"""Unit tests of numbered output blocks (explainer_tools/blocks.py)."""

from __future__ import annotations

import pytest

from explainer_tools.blocks import BlockError, parse_blocks


def test_blocks_with_continuation_lines_and_a_closing_line() -> None:
    blocks = parse_blocks("Title\n[1] a\n    b\n\n[2] c\nAll assertions passed.\n")
    assert sorted(blocks) == [1, 2]
    assert blocks[1].lines == ("[1] a", "    b") and blocks[1].first_line == 2
    assert blocks[2].text == "[2] c" and blocks[2].first_line == 5


def test_a_line_at_column_zero_ends_a_block() -> None:
    blocks = parse_blocks("[1] a\nnot in a block\n  nor this\n[3] b\n")
    assert blocks[1].text == "[1] a" and blocks[3].text == "[3] b"


def test_duplicate_block_number_names_source_and_line() -> None:
    with pytest.raises(BlockError, match=r"outputs/x.txt:3: block \[1\] appears twice"):
        parse_blocks("[1] a\n[2] b\n[1] c\n", "outputs/x.txt")


def test_no_blocks() -> None:
    assert parse_blocks("just a title\n") == {}
