"""The glossary: terms defined once in `docs/_data/glossary.yml`, shown wherever they occur.

Each entry names a term, the forms it is written in, a one-sentence definition (no numbers: the
glossary is not a script output) and, optionally, the page that teaches it:

    - term: Occam bound
      forms: [Occam bound, Occam's bound]
      definition: A generalization bound that charges each hypothesis the length of its code.
      page: chapters/11-prefix-codes-occam-bound.md

On every page the first occurrence of each form in prose (not in code, formulas, links,
headings or a collapsible block's summary) becomes a link to the term's entry on the Glossary
page, `<a class="gloss" href="glossary/#term-..." title="definition" tabindex="-1">`: Material
shows the definition as a tooltip on hover, a screen reader reads it as the link's description,
and the link stays out of the tab order (a chapter holds dozens). The generated Glossary page
gives each entry the id `Term.anchor` and a link to the page that teaches it.

    >>> terms = [Term("LoRA", ("LoRA",), "Low-rank adaptation.", "")]
    >>> mark_first_uses("LoRA and LoRA", terms, set(), "../../glossary/")
    '<a class="gloss" href="../../glossary/#term-lora" title="Low-rank adaptation." \
tabindex="-1">LoRA</a> and LoRA'
"""

from __future__ import annotations

import functools
import html
import re
from dataclasses import dataclass
from pathlib import Path

from explainer_tools.layout import DATA_DIR
from explainer_tools.markdown import read_utf8
from explainer_tools.yaml_input import check_fields, load_yaml

# The fields of an entry and their kinds (yaml_input.check_fields): `term` and `definition` are
# required
FIELDS = {"term": str, "forms": [str], "definition": str, "page": str}

GLOSSARY_PATH = DATA_DIR / "glossary.yml"


class GlossaryError(ValueError):
    """A malformed glossary entry, naming the file and the entry."""


@dataclass(frozen=True)
class Term:
    term: str
    forms: tuple[str, ...]
    definition: str
    page: str  # path under docs/, or ""

    @property
    def anchor(self) -> str:
        return "term-" + re.sub(r"[^a-z0-9]+", "-", self.term.lower()).strip("-")


def parse_glossary(text: str, source: str = str(GLOSSARY_PATH)) -> list[Term]:
    data, root = load_yaml(text, source, GlossaryError)
    data = data or []
    if not isinstance(data, list):
        raise GlossaryError(f"{source}:1: expected a list of entries")
    terms: list[Term] = []
    seen: set[str] = set()
    for position, item in enumerate(data, start=1):
        node = root.value[position - 1]
        where = f"{source}:{node.start_mark.line + 1}: entry {position}"
        if not isinstance(item, dict) or not item.get("term") or not item.get("definition"):
            raise GlossaryError(f"{where}: needs 'term' and 'definition'")
        check_fields(item, node, FIELDS, source, f"entry {position} ({item['term']})",
                     GlossaryError)
        definition = " ".join(str(item["definition"]).split())
        if re.search(r"\d", definition):
            raise GlossaryError(f"{where} ({item['term']}): a definition holds no numbers "
                                "(numbers come from script outputs)")
        forms = tuple(item.get("forms") or [item["term"]])
        for form in forms:
            if form in seen:
                raise GlossaryError(f"{where}: form {form!r} belongs to two entries")
            seen.add(form)
        terms.append(Term(str(item["term"]), forms, definition, str(item.get("page", ""))))
    return terms


def load_glossary(root: Path) -> list[Term]:
    text = read_utf8(root / GLOSSARY_PATH, str(GLOSSARY_PATH), GlossaryError)
    return parse_glossary(text)


@functools.cache
def _escaped(form: str) -> str:
    return html.escape(form, quote=False)


@functools.cache
def _pattern(form: str) -> re.Pattern[str]:
    """One compiled pattern per form for the whole build (a page has hundreds of prose runs and
    the glossary dozens of forms: more than `re`'s own cache holds)."""
    return re.compile(r"(?<![\w-])" + re.escape(_escaped(form)) + r"(?![\w-])")


def mark_first_uses(text: str, terms: list[Term], used: set[str], glossary_url: str = "") -> str:
    """Mark, in one run of prose HTML, the first use on the page of each term not yet `used`,
    as a link to its entry at `glossary_url` (the Glossary page's URL relative to this page;
    "" on the Glossary page itself)."""
    for term in terms:
        if term.term in used:
            continue
        # a substring test first: most runs hold none of a term's forms
        matches = [m for form in term.forms
                   if _escaped(form) in text and (m := _pattern(form).search(text))]
        if not matches:
            continue
        first = min(matches, key=lambda m: m.start())
        title = html.escape(term.definition, quote=True)
        href = html.escape(f"{glossary_url}#{term.anchor}", quote=True)
        marked = (f'<a class="gloss" href="{href}" title="{title}" tabindex="-1">'
                  f"{first.group(0)}</a>")
        text = text[: first.start()] + marked + text[first.end() :]
        used.add(term.term)
    return text


def glossary_markdown(terms: list[Term], existing_pages: set[str]) -> str:
    """The generated Glossary page."""
    lines = [
        "# Glossary",
        "",
        "[MY EXPLANATION] Each term the book uses in a special sense, defined once. On the "
        "chapter pages the first use of a term is underlined with dots: hover over it to see "
        "the definition, or follow it to its entry here.",
        "",
    ]
    for term in sorted(terms, key=lambda t: t.term.lower()):
        taught = ""
        if term.page and term.page in existing_pages:
            taught = f" [Where the book teaches it.]({term.page})"
        # user-written text: escaped, so that it reads as text and never runs as HTML
        heading, definition = html.escape(term.term), html.escape(term.definition)
        lines += [f"## {heading} {{#{term.anchor}}}", "", f"{definition}{taught}", ""]
    return "\n".join(lines)
