"""Unit tests of embed markers (explainer_tools/scripts/marker_fill.py) and the shared scanner."""

from __future__ import annotations

import pytest

from explainer_tools.markdown import MarkerError, find_markers, scan, split_front_matter
from explainer_tools.scripts.marker_fill import embed, fenced

OUTPUTS = {"ch01_a.py": "T\n[1] one = 1\n[2] two = 2\n"}


def resolve(marker, path):
    if marker.kind == "source":
        return "def f():\n    return 1\n", "python", f"explainer_code/{marker.target}"
    text = OUTPUTS[marker.target]
    return text, "text", f"outputs/{marker.target}"


def page(body: str) -> str:
    return f"# P\n\n<!-- embed: output ch01_a.py -->\n{body}<!-- /embed -->\nafter\n"


def test_embed_replaces_content_and_is_idempotent() -> None:
    once = embed(page("stale\n"), "p.md", resolve)
    assert "stale" not in once and "[1] one = 1" in once
    assert embed(once, "p.md", resolve) == once


def test_markers_in_fenced_code_are_examples() -> None:
    text = "```\n<!-- embed: output x.py -->\n```\n"
    assert find_markers(text, "p.md") == []


@pytest.mark.parametrize("content", [
    "<!-- /embed -->\n",  # probe 1: a script prints an end marker
    "<!-- embed: output ch01_a.py -->\n<!-- /embed -->\n",  # or a whole marker pair
    "```\n<!-- /embed -->\n````\n",  # and backtick runs around it
])
def test_a_marker_line_in_embedded_content_can_never_close_the_marker(content: str) -> None:
    OUTPUTS["ch01_b.py"] = "T\n" + content
    text = "a\n<!-- embed: output ch01_b.py -->\n<!-- /embed -->\nend\n"
    runs = [text]
    for _ in range(3):
        runs.append(embed(runs[-1], "p.md", resolve))
    assert runs[1] == runs[2] == runs[3]  # stable: no leftovers, no "without an open marker"
    assert runs[3].endswith("<!-- /embed -->\nend\n")
    assert len(find_markers(runs[3], "p.md")) == 1


def test_fence_is_longer_than_any_backtick_run_in_the_content() -> None:
    lines = fenced("a ```` b\n", "text", "t", "")
    assert lines[0].startswith("`````text") and lines[-1] == "`````"


def test_unclosed_fence_is_reported_with_its_line() -> None:
    text = "a\n```python\nx = 1\n<!-- embed: output ch01_a.py -->\n<!-- /embed -->\n"
    with pytest.raises(MarkerError, match=r"p.md:2: code fence never closed"):
        find_markers(text, "p.md")


def test_crlf_page_keeps_its_line_endings() -> None:
    text = page("old\n").replace("\n", "\r\n")
    out = embed(text, "p.md", resolve)
    assert "\r\n" in out and "\n" not in out.replace("\r\n", "")
    assert "[2] two = 2" in out


def test_indented_marker_indents_the_content() -> None:
    text = "??? note\n\n    <!-- embed: output ch01_a.py -->\n    <!-- /embed -->\n"
    out = embed(text, "p.md", resolve)
    assert "    [1] one = 1" in out


@pytest.mark.parametrize(("text", "message"), [
    ("<!-- embed: output a.py -->\n", "p.md:1: unclosed marker"),
    ("<!-- /embed -->\n", "p.md:1: <!-- /embed --> without an open marker"),
    ("x <!-- embed: output a.py -->\n", "p.md:1: malformed marker"),
    ("<!-- embed: source a.py [2] -->\n<!-- /embed -->\n", "takes no block number"),
])
def test_marker_errors_name_the_line(text: str, message: str) -> None:
    with pytest.raises(MarkerError, match=message.replace("[", r"\[")):
        find_markers(text, "p.md")


def test_scanner_front_matter_comments_and_quotes() -> None:
    result = scan("---\n---\n<!-- a\nb -->\n> ```\n> code\n> ```\ntext <!-- c -->\n")
    kinds = [line.kind for line in result.lines]
    assert kinds == ["front", "front", "comment", "comment", "fence", "code", "fence", "prose",
                     "blank"]
    assert result.lines[4].quote == 2
    assert split_front_matter("---\nscripts: [a.py]\n---\nx") == ({"scripts": ["a.py"]}, 24)
    assert split_front_matter("no front matter") == ({}, 0)
