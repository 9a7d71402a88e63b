"""The site plugin's errata feature: render each erratum page from its front matter, and fill the
errata index (the page it owns).

The logic lives in `errata.py` and `errata_pages.py`; this module connects it to MkDocs' page
events (plugin.py calls it with the build's `State`). It runs before the provenance and reader
features (higher priority), so the tags in the rendered fields become badges too, and an unknown
citation key or label in a field is reported here, at the line of the erratum's file it is
written on (the reader hook, which sees only the rendered page, would count the lines of that
page).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mkdocs.exceptions import PluginError
from mkdocs.structure.files import Files

from explainer_tools import glue
from explainer_tools.book import bibliography, crossref, errata, errata_pages
from explainer_tools.website import number_links


@dataclass
class State:
    """What the page checks need, loaded once per build by the reader feature (the plugin hands
    it over); None where it is not loaded."""

    entries: dict[str, bibliography.Entry] | None = None
    index: crossref.Index | None = None
    pages: dict[str, str] = field(default_factory=dict)
    names: dict[str, dict[str, glue.Glued]] = field(default_factory=dict)  # script -> values
    outputs: dict[str, str] = field(default_factory=dict)  # script -> its golden output

UNKNOWN_LABEL = re.compile(r"^docs/[^:]+:(?P<line>\d+): unknown label '(?P<label>[^']+)'$")


FIELD_NAMED = re.compile(r"field '(?P<a>[^']+)'|^[^:]+: (?P<b>id|status|concerns) ")


def located(problems: list[str], erratum: errata.Erratum) -> str:
    """The problems of one erratum, each as `docs/errata/<file>:<line>: ...`: the line of the
    field it names (the front matter's first line for a missing field)."""
    source = erratum.path.read_bytes().decode("utf-8", "replace").replace("\r\n", "\n")
    spans = errata_pages.field_spans(source)
    where = f"docs/errata/{erratum.path.name}"
    lines = []
    for problem in problems:
        match = FIELD_NAMED.search(problem)
        name = (match["a"] or match["b"]) if match else ""
        lines.append(f"{where}:{spans[name][0] if name in spans else 1}: {problem}")
    return "; ".join(lines)


def check_rendered(rendered: errata_pages.RenderedPage, source: str, src: str,
                   state: State) -> None:
    """Unknown citation keys and labels in a rendered erratum page, reported at the line of
    its source file."""
    if state.entries is not None:
        for key, line in bibliography.cited_keys(rendered.text):
            if key not in state.entries:
                number = rendered.source_line(line, source, f"@{key}")
                raise PluginError(f"docs/{src}:{number}: unknown citation key {key!r} "
                                  f"(add it to {bibliography.BIB_PATH})")
    if state.index is not None:
        try:
            crossref.check_references(rendered.text, src, state.index)
        except crossref.CrossRefError as error:
            match = UNKNOWN_LABEL.match(str(error))
            if not match:
                raise PluginError(str(error)) from None
            number = rendered.source_line(int(match["line"]), source, f"@{match['label']}")
            raise PluginError(f"docs/{src}:{number}: unknown label {match['label']!r}") from None


def on_page_markdown(state: State, markdown: str, page: Any, config: Any, files: Files) -> str:
    src_uri = page.file.src_uri
    docs_dir = Path(config["docs_dir"])
    if src_uri == errata.INDEX_PATH:
        return _render_index(markdown, docs_dir)
    folder, _, name = src_uri.rpartition("/")
    if folder != "errata" or not errata.is_erratum_file(name):
        return markdown
    try:
        erratum = errata.read_erratum(Path(page.file.abs_src_path))
    except errata.ErratumError as error:
        raise PluginError(str(error)) from None
    erratum = errata.Erratum(erratum.path, erratum.meta, markdown)
    problems = errata.check_fields(erratum)
    if problems:
        raise PluginError(located(problems, erratum))
    page.meta["title"] = f"{erratum.meta['id']}: {erratum.meta['title']}"
    # Material reads `status` as its own page status (new/deprecated); ours is shown in the page.
    page.meta.pop("status", None)
    source = Path(page.file.abs_src_path).read_bytes().decode("utf-8", "replace")
    source = source.replace("\r\n", "\n")
    rendered = errata_pages.rendered_page(erratum, docs_dir, source)
    check_rendered(rendered, source, src_uri, state)
    return link_glued(rendered, source, src_uri, erratum, state)


def link_glued(rendered: errata_pages.RenderedPage, source: str, src: str,
               erratum: errata.Erratum, state: State) -> str:
    """The rendered page with each value quoted by name (glue.py, in a field or the body)
    shown as its printed text, linked to its output line as on a chapter; a name no script of
    the evidence prints is an error at the line of the erratum's file it is written on."""
    found = glue.references(rendered.text)
    if not found:
        return rendered.text
    scripts = glue.quoted_scripts(erratum.meta)
    links = []
    for reference in found:
        try:
            script, value = glue.resolve(reference, scripts, state.names, f"docs/{src}")
        except glue.GlueError as error:
            written = rendered.text[reference.start:reference.end]
            line = rendered.source_line(reference.line, source, written)
            raise PluginError(f"docs/{src}:{line}: " + str(error).removeprefix(
                f"docs/{src}:{reference.line}: ")) from None
        printed = state.outputs.get(script, "").split("\n")
        links.append(number_links.NumberLink(
            reference.start, reference.end, rendered.text[reference.start:reference.end], script,
            value.block, value.line, printed[value.line - 1] if value.line <= len(printed) else "",
            glue.display(value.text, reference.styles)))
    embedded = number_links.embedded_lines(rendered.text, state.outputs)
    return number_links.link_numbers(rendered.text, links, embedded)


def _render_index(markdown: str, docs_dir: Path) -> str:
    if markdown.count(errata.INDEX_MARKER) != 1:
        raise PluginError(f"docs/{errata.INDEX_PATH}:1: must contain {errata.INDEX_MARKER} once")
    try:
        all_errata = errata.load_errata(docs_dir / "errata")
    except errata.ErratumError as error:
        raise PluginError(str(error)) from None
    problems = [located(errata.check_fields(e), e) for e in all_errata if errata.check_fields(e)]
    if problems:
        raise PluginError("; ".join(problems))
    return markdown.replace(errata.INDEX_MARKER, errata_pages.render_index(all_errata, docs_dir))
