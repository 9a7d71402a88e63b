"""Marker fill: the generated parts of the Markdown pages (outputs and sources), written between
their markers (read by `markdown.find_markers`).

A marker names what goes between it and the next `<!-- /embed -->`:

    <!-- embed: output ch05_param_count.py -->        the whole output
    <!-- embed: output ch05_param_count.py [3] -->    one numbered block
    <!-- embed: source ch05_param_count.py -->        a file under explainer_code/

`make regenerate` rewrites everything between a marker and its end marker; what is there is
never read, so a hand edit there is overwritten (and `make check` reports it as a difference).
Markers may be indented, e.g. inside a `??? "collapsible"` block; the embedded lines get the
marker's indentation. Markers inside fenced code are examples, not markers, and are left alone.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from explainer_tools.blocks import parse_blocks
from explainer_tools.layout import output_name
from explainer_tools.markdown import Marker, MarkerError, find_markers


def fenced(content: str, language: str, title: str, indent: str) -> list[str]:
    """A fenced code block holding `content` verbatim, its fence longer than any backtick run."""
    longest = max((len(run) for run in re.findall(r"`+", content)), default=0)
    fence = "`" * max(3, longest + 1)
    body = content.rstrip("\n").split("\n")
    lines = [f'{fence}{language} title="{title}"', *body, fence]
    return [f"{indent}{line}" if line else "" for line in lines]


def embed(
    text: str,
    path: str,
    resolve: Callable[[Marker, str], tuple[str, str, str]],
) -> str:
    """Return `text` with the content of every marker pair regenerated.

    `resolve(marker, path)` returns (content, language, title) or raises MarkerError.
    """
    crlf = "\r\n" in text  # a CRLF page keeps its line endings
    if crlf:
        text = text.replace("\r\n", "\n")
    markers = find_markers(text, path)
    lines = text.split("\n")
    out: list[str] = []
    previous_end = 0  # index into lines just after the previous end marker
    for marker in markers:
        content, language, title = resolve(marker, path)
        out.extend(lines[previous_end : marker.start_line])  # up to and including the start
        out.append("")
        out.extend(fenced(content, language, title, marker.indent))
        out.append("")
        out.append(lines[marker.end_line - 1])
        previous_end = marker.end_line
    out.extend(lines[previous_end:])
    result = "\n".join(out)
    return result.replace("\n", "\r\n") if crlf else result


def resolver(
    outputs: dict[str, str], code_dir: Path
) -> Callable[[Marker, str], tuple[str, str, str]]:
    """A `resolve` function over script outputs (name -> text) and files under `code_dir`."""
    def resolve(marker: Marker, path: str) -> tuple[str, str, str]:
        where = f"{path}:{marker.start_line}"
        if marker.kind == "source":
            source = (code_dir / marker.target).resolve()
            if not source.is_relative_to(code_dir.resolve()) or not source.is_file():
                raise MarkerError(
                    f"{where}: unknown source file {marker.target!r} (looked in explainer_code/)"
                )
            language = "python" if source.suffix == ".py" else "text"
            data = source.read_bytes()
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError as error:
                line = data[: error.start].count(b"\n") + 1
                byte = data[error.start:error.start + 1]
                raise MarkerError(f"{where}: explainer_code/{marker.target}:{line} is not UTF-8 "
                                  f"(byte {byte!r}); save it as UTF-8") from None
            return text, language, f"explainer_code/{marker.target}"
        if marker.target not in outputs:
            known = ", ".join(sorted(outputs)) or "none"
            raise MarkerError(f"{where}: unknown script {marker.target!r} (known: {known})")
        output = outputs[marker.target]
        out_name = output_name(marker.target)
        if marker.block is None:
            return output, "text", out_name
        blocks = parse_blocks(output, out_name)
        if marker.block not in blocks:
            known = ", ".join(f"[{n}]" for n in sorted(blocks)) or "none"
            raise MarkerError(
                f"{where}: unknown block [{marker.block}] of {marker.target} (it has {known})"
            )
        return blocks[marker.block].text, "text", f"{out_name}, block [{marker.block}]"

    return resolve
