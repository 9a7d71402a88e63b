"""YAML inputs of the reader features (glossary, claims ledger, the plan of chapters) and pages'
front matter: parsed with the book's one strict loader (`markdown.YAML_LOADER`: no anchors or
aliases, no key written twice), with the line of every entry, and each field's type checked, so
that a bad input is one error naming the file and line instead of a traceback or a hang. Where
each value of a page's front matter stands (`front_matter_fields`) is found here too, from the
same nodes: the erratum pages and the claim check read it.

>>> data, node = load_yaml("- a: 1\\n- b: 2\\n", "x.yml", ValueError)
>>> data, [item.start_mark.line + 1 for item in node.value]
([{'a': 1}, {'b': 2}], [1, 2])

The fields of an entry are declared as a schema, `{name: kind}`, where a kind is a Python type,
`[kind]` (a list of that kind), `{name: kind}` (a nested mapping) or `Map(key kind, value kind)`;
`check_fields` checks a mapping against it and names the first field that does not fit, at its
own line. (A JSON Schema validator would do the same work; the ones installed come with the
notebook tools, and importing one costs about 0.4 s of every build.)

>>> data, node = load_yaml("- term: LoRA\\n  forms: 5\\n", "g.yml", ValueError)
>>> check_fields(data[0], node.value[0], {"term": str, "forms": [str]}, "g.yml", "entry 1",
...              ValueError)
Traceback (most recent call last):
...
ValueError: g.yml:2: entry 1: forms: expected a list of texts, not the number 5
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

from explainer_tools.markdown import YAML_LOADER, FrontMatter, read_front_matter, yaml_problem

# An erratum's prose fields: Markdown in its front matter, rendered on its page and checked by the
# claim check like its body (book/errata.py reads the other fields). A code erratum has its own
# names for two fields of a paper erratum's.
ERRATUM_PROSE_FIELDS = ("paper_says", "problem", "consequences", "correction")
ERRATUM_CODE_FIELDS = {"paper_locations": "code_locations", "paper_says": "code_does"}
ERRATUM_CODE_PROSE_FIELDS = tuple(ERRATUM_CODE_FIELDS.get(f, f) for f in ERRATUM_PROSE_FIELDS)


@dataclass(frozen=True)
class Map:
    """A mapping of any keys of one kind to values of another (the plan's `{N: TITLE}`)."""

    key: Any
    value: Any


NAMES = {str: "a text", int: "a whole number", float: "a number", bool: "true or false",
         dict: "a mapping", list: "a list"}


def kind_name(kind: Any) -> str:
    """`[str]` -> "a list of texts" (for the messages)."""
    if isinstance(kind, list):
        inner = kind_name(kind[0]).removeprefix("a ").removeprefix("an ")
        return f"a list of {inner.replace('text', 'texts').replace('mapping', 'mappings')}"
    if isinstance(kind, (dict, Map)):
        return "a mapping"
    if isinstance(kind, tuple):
        return " or ".join(kind_name(k) for k in kind)
    return NAMES.get(kind, kind.__name__)


def value_name(value: Any) -> str:
    """What a value is, for the messages: "the number 5", "a list", "the text 'x'"."""
    if isinstance(value, bool):
        return f"the value {str(value).lower()}"
    if isinstance(value, (int, float)):
        return f"the number {value}"
    if isinstance(value, str):
        shown = value if len(value) <= 30 else value[:27] + "..."
        return f"the text {shown!r}"
    if value is None:
        return "nothing"
    return {dict: "a mapping", list: "a list"}.get(type(value), type(value).__name__)


def load_yaml(text: str, source: str, error: type[Exception],
              first_line: int = 1) -> tuple[Any, yaml.Node | None]:
    """The YAML document of `text` and its node tree (composed once); a YAML error, an anchor or
    an alias is raised as `error` naming `source` and the line (the text's first line is
    `first_line` of the file)."""
    try:
        loader = YAML_LOADER(text)
        try:
            node = loader.get_single_node()
            data = loader.construct_document(node) if node is not None else None
        finally:
            loader.dispose()
    except yaml.YAMLError as problem:
        line, reason = yaml_problem(problem, first_line)
        raise error(f"{source}:{line}: not valid YAML ({reason})") from None
    return data, node


def _child(node: yaml.Node | None, key: Any) -> yaml.Node | None:
    """The node of `key`'s value in a mapping node, or of item `key` in a sequence node."""
    if isinstance(node, yaml.MappingNode):
        return next((value for name, value in node.value if name.value == str(key)), None)
    if isinstance(node, yaml.SequenceNode) and isinstance(key, int) and key < len(node.value):
        return node.value[key]
    return None


def _line(node: yaml.Node | None, fallback: int, first_line: int) -> int:
    return node_lines(node, first_line).first if node is not None else fallback


@dataclass(frozen=True)
class NodeLines:
    """Where a value stands in its file: its YAML node, its first and last line (1-based)."""

    node: yaml.Node
    first: int
    last: int


def node_lines(node: yaml.Node, first_line: int = 1) -> NodeLines:
    """The lines of `node`'s text (the text's first line is `first_line` of the file); a block
    scalar (`>-`, `|`) starts at its indicator and ends with the blank lines after it."""
    first = node.start_mark.line + first_line
    last = node.end_mark.line + first_line - (1 if node.end_mark.column == 0 else 0)
    return NodeLines(node, first, max(first, last))


def front_matter_fields(text: str) -> dict[str, NodeLines]:
    """Where each value of a page's front matter stands in the page, by field name; for a list
    field also each item, `name[i]`, and each field of an item that is a mapping,
    `name[i].key`. {} when the front matter is absent, not valid YAML or not a mapping (that
    is `front_matter_problem`'s to report).

    >>> page = "---\\nid: E1\\nproblem: >-\\n  one\\n  two\\nevidence:\\n  - output: a.py\\n---\\n"
    >>> [(name, at.first, at.last) for name, at in front_matter_fields(page).items()][1:]
    [('problem', 3, 5), ('evidence', 7, 7), ('evidence[0]', 7, 7), ('evidence[0].output', 7, 7)]
    """
    front = read_front_matter(text)
    root = _front_matter_node(front)
    if not isinstance(root, yaml.MappingNode):
        return {}
    fields: dict[str, NodeLines] = {}
    for key, value in root.value:
        fields[str(key.value)] = node_lines(value, front.yaml_line)
        if isinstance(value, yaml.SequenceNode):
            for number, item in enumerate(value.value):
                fields[f"{key.value}[{number}]"] = node_lines(item, front.yaml_line)
                if isinstance(item, yaml.MappingNode):
                    for name, part in item.value:
                        fields[f"{key.value}[{number}].{name.value}"] = node_lines(
                            part, front.yaml_line)
    return fields


def _front_matter_node(front: FrontMatter) -> yaml.Node | None:
    """The node tree of valid front matter (None when absent, empty or invalid)."""
    if front.error or not front.present:
        return None
    return yaml.compose(front.yaml_text, Loader=YAML_LOADER)


def check_value(value: Any, node: yaml.Node | None, kind: Any, source: str, where: str,
                error: type[Exception], first_line: int = 1, line: int = 0) -> None:
    """Raise `error` (`source:line: where: ...`) at the first part of `value` that is not of
    `kind`; `node` is its YAML node (for the lines)."""
    line = _line(node, line, first_line)
    if isinstance(kind, dict):
        if not isinstance(value, dict):
            raise error(f"{source}:{line}: {where}: expected a mapping, not {value_name(value)}")
        check_fields(value, node, kind, source, where, error, first_line, line)
    elif isinstance(kind, Map):
        if not isinstance(value, dict):
            raise error(f"{source}:{line}: {where}: expected a mapping, not {value_name(value)}")
        for key, item in value.items():
            here = _child(node, key)
            check_value(key, here, kind.key, source, f"{where}: key {key!r}", error, first_line,
                        line)
            check_value(item, here, kind.value, source, f"{where}: {key}", error, first_line,
                        line)
    elif isinstance(kind, list):
        if not isinstance(value, list):
            raise error(f"{source}:{line}: {where}: expected {kind_name(kind)}, not "
                        f"{value_name(value)}")
        for index, item in enumerate(value):
            check_value(item, _child(node, index), kind[0], source, f"{where}[{index + 1}]",
                        error, first_line, line)
    else:
        kinds = kind if isinstance(kind, tuple) else (kind,)
        fits = isinstance(value, kinds) and not (isinstance(value, bool) and bool not in kinds)
        if not fits:
            raise error(f"{source}:{line}: {where}: expected {kind_name(kind)}, not "
                        f"{value_name(value)}")


def check_fields(mapping: dict[str, Any], node: yaml.Node | None, schema: dict[str, Any],
                 source: str, where: str, error: type[Exception], first_line: int = 1,
                 line: int = 0) -> None:
    """Every field of `mapping` is one the schema names, of its kind (missing fields are the
    caller's to judge); else `error` at the field's line."""
    line = _line(node, line, first_line)
    for name, value in mapping.items():
        here = _child(node, name)
        if name not in schema:
            known = ", ".join(schema)
            raise error(f"{source}:{_line(here, line, first_line)}: {where}: unknown field "
                        f"{name!r} (known: {known})")
        check_value(value, here, schema[name], source, f"{where}: {name}", error, first_line,
                    line)


# The fields any page's front matter may hold, where the tools read them as text (an erratum's
# own fields are `errata.erratum_field_problems`' to check)
FRONT_MATTER_FIELDS = {"title": str, "scripts": [str]}


def front_matter_problem(text: str, source: str) -> str:
    """The one error of a page's front matter, as `source:line: ...`, "" when there is none:
    not valid YAML (an unclosed `[`), an anchor or alias, or a `title` or `scripts` of another
    kind than text (`scripts` may be one name or a list).

    >>> front_matter_problem("---\\nscripts: 5\\n---\\nBody", "docs/x.md")
    'docs/x.md:2: front matter: scripts: expected a list of texts, not the number 5'
    """
    front = read_front_matter(text)
    if front.error:
        return front.problem(source)
    if not front.present or front.data is None:
        return ""
    if not isinstance(front.data, dict):
        return f"{source}:{front.yaml_line}: the front matter is not a mapping of fields"
    fields = {name: value for name, value in front.data.items() if name in FRONT_MATTER_FIELDS}
    if isinstance(fields.get("scripts"), str):
        fields["scripts"] = [fields["scripts"]]
    if not fields:
        return ""
    node = _front_matter_node(front)
    try:
        check_fields(fields, node, FRONT_MATTER_FIELDS, source, "front matter", ValueError,
                     first_line=front.yaml_line)
    except ValueError as error:
        return str(error)
    return ""
