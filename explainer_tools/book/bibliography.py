"""The book's bibliography: one BibTeX file, author-year citations, a references list per page.

Write `[@lotfi2024]` in a page; several at once `[@li2018; @aghajanyan2021]`; with a locator
`[@lotfi2024, §4]`; after the authors' names, `Li et al. [-@li2018]` shows only the year. The
site shows "(Lotfi et al., 2024)" (or "(2018)") as a link to the page's References section, with
the full reference as a hover card. An unknown key fails the build, naming the page
and the line.

The file is `docs/_data/references.bib`. The parser reads the BibTeX this book writes: entries
`@type{key, field = {value}, field = "value", field = 2024}` with nested braces; no `@string`
macros, no `#` concatenation (an error says so). LaTeX in values is reduced to text: braces that
protect capitals are dropped, `\\&` becomes `&`, `--` an en dash.

Why not a library (measured on this file with one fault each): bibtexparser 2.0.0b9
accepts a missing comma after `year = {2024}` and silently drops the next field (`eprint`), and
reports a deleted closing brace on a 0-based line; pybtex 0.25.1 refuses the intact file (the
`[@key]` in its comment header starts an entry for it) and puts the missing comma at the next
field's line as "'}' expected". This reader names file, line, entry and field in both cases,
which is what the site build needs.

    >>> entries = parse_bibtex('@misc{k1, author = {Ada Lovelace and Alan Turing}, title = {Notes},'
    ...                        ' year = 1843}')
    >>> cite_label(entries["k1"])
    'Lovelace and Turing, 1843'
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from pathlib import Path

from explainer_tools.layout import DATA_DIR
from explainer_tools.markdown import read_utf8, scan

BIB_PATH = DATA_DIR / "references.bib"
ENTRY_START = re.compile(r"@([A-Za-z]+)\s*\{\s*([^,\s]+)\s*,")
FIELD_NAME = re.compile(r"\s*([A-Za-z][A-Za-z0-9_-]*)\s*=\s*")
# [@key], [@a; @b], [@key, locator]; keys of cross-references (eq:, fig:) are not citations.
CITATION = re.compile(
    r"\[(?P<bare>-?)@(?!eq:|fig:)(?P<key>[A-Za-z][\w-]*)"
    r"(?P<more>(?:\s*;\s*@[A-Za-z][\w-]*)*)(?:,\s*(?P<locator>[^\]]+))?\]"
)
REQUIRED = ("author", "title", "year")


class BibliographyError(ValueError):
    """A malformed BibTeX file or an unknown citation key, with file and line."""


@dataclass(frozen=True)
class Entry:
    key: str
    kind: str
    fields: dict[str, str] = field(default_factory=dict)
    line: int = 0

    def get(self, name: str) -> str:
        return self.fields.get(name, "")


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _read_value(text: str, pos: int, source: str) -> tuple[str, int]:
    """A braced, quoted or bare value starting at `pos`; returns (raw value, position after it)."""
    opening = text[pos : pos + 1]
    if opening in "{\"":
        closing = "}" if opening == "{" else '"'
        depth, i = 0, pos
        while i < len(text):
            char = text[i]
            if char == "{":
                depth += 1
            elif char == "}":
                depth -= 1
            if (closing == "}" and depth == 0) or (closing == '"' and char == '"' and i > pos
                                                   and depth == 0):
                return text[pos + 1 : i], i + 1
            i += 1
        raise BibliographyError(f"{source}:{_line_of(text, pos)}: unclosed value")
    bare = re.match(r"[A-Za-z0-9_.-]+", text[pos:])
    if not bare:
        raise BibliographyError(f"{source}:{_line_of(text, pos)}: expected a value")
    if not bare.group(0).isdigit():
        raise BibliographyError(
            f"{source}:{_line_of(text, pos)}: bare value {bare.group(0)!r}: @string macros are "
            "not supported; write the value in braces"
        )
    return bare.group(0), pos + bare.end()


def clean_latex(value: str) -> str:
    """BibTeX value -> plain text: `{GPT}-2 \\& {LoRA} --` -> `GPT-2 & LoRA –`."""
    text = value.replace("\\&", "&").replace("---", "—").replace("--", "–")
    text = re.sub(r"\\[a-zA-Z]+\s*", "", text)  # accents and commands: keep their argument
    text = text.replace("{", "").replace("}", "")
    return re.sub(r"\s+", " ", text).strip()


def parse_bibtex(text: str, source: str = str(BIB_PATH)) -> dict[str, Entry]:
    """All entries of a BibTeX text, by key. Duplicate keys and missing fields are errors."""
    entries: dict[str, Entry] = {}
    for start in re.finditer(r"@([A-Za-z]+)\s*\{", text):
        line = _line_of(text, start.start())
        if start.group(1).lower() in ("comment", "preamble", "string"):
            kind = start.group(1).lower()
            raise BibliographyError(f"{source}:{line}: @{kind} is not supported")
        if not ENTRY_START.match(text, start.start()):
            raise BibliographyError(f"{source}:{line}: malformed entry "
                                    "(expected @type{key, field = {value}, ...})")
    for match in ENTRY_START.finditer(text):
        kind, key = match.group(1).lower(), match.group(2)
        line = _line_of(text, match.start())
        if key in entries:
            raise BibliographyError(f"{source}:{line}: duplicate key {key!r}")
        fields: dict[str, str] = {}
        pos = match.end()
        while True:
            name = FIELD_NAME.match(text, pos)
            if not name:  # after a trailing comma: the entry must close here
                if not re.match(r"\s*\}", text[pos:]):
                    raise BibliographyError(f"{source}:{_line_of(text, pos)}: entry {key!r} is "
                                            "not closed (expected a field or '}')")
                break
            raw, pos = _read_value(text, name.end(), source)
            after = re.match(r"\s*([,#}])", text[pos:])
            if not after:
                raise BibliographyError(
                    f"{source}:{_line_of(text, pos)}: entry {key!r}: expected ',' or '}}' after "
                    f"field {name.group(1)!r} (a missing comma, or an entry not closed)")
            if after.group(1) == "#":
                raise BibliographyError(f"{source}:{_line_of(text, pos)}: '#' concatenation "
                                        "is not supported")
            fields[name.group(1).lower()] = clean_latex(raw)
            pos += after.end() if after.group(1) == "," else 0
            if after.group(1) == "}":
                break
        missing = [name for name in REQUIRED if not fields.get(name)]
        if missing:
            raise BibliographyError(f"{source}:{line}: entry {key!r} lacks {', '.join(missing)}")
        entries[key] = Entry(key=key, kind=kind, fields=fields, line=line)
    return entries


def load_bibliography(root: Path) -> dict[str, Entry]:
    path = root / BIB_PATH
    return parse_bibtex(read_utf8(path, str(BIB_PATH), BibliographyError), source=str(BIB_PATH))


def surnames(entry: Entry) -> list[str]:
    """Family names of the authors: `Lotfi, Sanae and Marc Finzi` -> ['Lotfi', 'Finzi']."""
    names = []
    for author in re.split(r"\s+and\s+", entry.get("author")):
        author = author.strip()
        names.append(author.split(",")[0].strip() if "," in author else author.split()[-1])
    return names


def cite_label(entry: Entry) -> str:
    """'Lotfi et al., 2024', 'Li and Liang, 2021', 'Hoeffding, 1963'."""
    names = surnames(entry)
    if len(names) == 1:
        who = names[0]
    elif len(names) == 2:
        who = f"{names[0]} and {names[1]}"
    else:
        who = f"{names[0]} et al."
    return f"{who}, {entry.get('year')}"


def format_reference(entry: Entry) -> str:
    """The full reference as plain text, e.g. for a hover card or the References list."""
    venue = entry.get("journal") or entry.get("booktitle") or entry.get("publisher") or ""
    if entry.get("eprint") and not venue:
        venue = f"arXiv:{entry.get('eprint')}"
    parts = [entry.get("author").replace(" and ", ", "), f"({entry.get('year')})",
             entry.get("title") + "."]
    if venue:
        parts.append(venue + ".")
    if entry.get("note"):
        parts.append(entry.get("note") + ".")
    return " ".join(parts)


def cited_keys(markdown: str) -> list[tuple[str, int]]:
    """(key, line) of each citation in Markdown source, in order, outside fenced code."""
    found: list[tuple[str, int]] = []
    # Prose lines only (the shared scanner), joined so that a citation may span two lines; code
    # and embedded outputs become empty lines, which keeps the line numbers.
    lines = [line.text if line.kind == "prose" and not line.embedded else ""
             for line in scan(markdown).lines]
    text = re.sub(r"(`+).+?\1", lambda m: re.sub(r"[^\n]", " ", m.group(0)), "\n".join(lines))
    for number, prose in [(text.count("\n", 0, m.start()) + 1, m.group(0))
                          for m in CITATION.finditer(text)]:
        for match in CITATION.finditer(prose):
            keys = [match["key"], *re.findall(r"@([A-Za-z][\w-]*)", match["more"])]
            found.extend((key, number) for key in keys)
    return found


def render_citations(text: str, entries: dict[str, Entry], page: str) -> str:
    """Replace `[@key ...]` in one run of prose text (HTML-escaped) by linked labels."""

    def one(key: str, year_only: bool) -> str:
        entry = entries.get(key)
        if entry is None:
            raise BibliographyError(f"{page}: unknown citation key {key!r} "
                                    f"(not in {BIB_PATH})")
        card = html.escape(format_reference(entry), quote=True)
        label = cite_label(entry)
        _, comma, year = label.rpartition(", ")
        if year_only and comma and re.fullmatch(r"\d{4}[a-z]?", year):
            label = year
        return f'<a class="cite" href="#ref-{key}" title="{card}">{html.escape(label)}</a>'

    def replace(match: re.Match[str]) -> str:
        keys = [match["key"], *re.findall(r"@([A-Za-z][\w-]*)", match["more"])]
        # `Li et al. [-@li2018]`: the year only
        inner = "; ".join(one(key, bool(match.group("bare"))) for key in keys)
        locator = f", {match['locator'].strip()}" if match["locator"] else ""
        return f'<span class="citation">({inner}{locator})</span>'

    return CITATION.sub(replace, text)


def references_markdown(keys: list[str], entries: dict[str, Entry]) -> str:
    """The References section appended to a page: one item per cited key, in citation order."""
    seen: list[str] = []
    for key in keys:
        if key not in seen and key in entries:
            seen.append(key)
    if not seen:
        return ""
    items = "\n".join(
        f'<li id="ref-{key}">{html.escape(format_reference(entries[key]))}</li>' for key in seen
    )
    return f'\n\n## References {{#references}}\n\n<ol class="references">\n{items}\n</ol>\n'


def bibliography_markdown(entries: dict[str, Entry]) -> str:
    """The generated Bibliography page: every entry, in the order of its citation label."""
    lines = ["# Bibliography", "",
             "[MY EXPLANATION] Every work the book cites, in alphabetical order. Chapters cite "
             "them as (Author, year); hover over a citation to see the full reference.", "",
             '<ol class="references">']
    for key, entry in sorted(entries.items(), key=lambda kv: cite_label(kv[1])):
        # the entry's text, escaped: a title is text, never HTML (the References lists and
        # the hover cards escape it too)
        text = html.escape(format_reference(entry))
        lines.append(f'<li id="ref-{html.escape(key, quote=True)}">{text}</li>')
    lines.append("</ol>")
    return "\n".join(lines)
