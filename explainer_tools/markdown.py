"""The one Markdown reader of the tools: front matter, fenced and indented code, HTML comments,
embed regions, blockquotes, admonitions and formulas, as markers, provenance, claims, errata and
the site all need them. (MkDocs renders the site with Python-Markdown; this is what the tools read.)

`scan(text)` classifies every line of a page once, from markdown-it-py's block tokens (CommonMark
with tables; `token.map` gives each block's lines):

- front matter: `---` on the first line, up to the next `---` line (empty YAML allowed);
- a fence (`fence` token, in a list, a blockquote or an admonition as well) is code between its
  two fence lines. A fence that its container or the page ends before it closes is reported
  (`Scan.unclosed_fence`): it would silently hide every later marker and tag;
- a block indented four spaces (`code_block`) is code;
- an HTML comment that starts its line is a block to the line holding `-->` (one followed by text
  on its line, or after a list marker, is inline, as Python-Markdown reads it);
- two rules for Python-Markdown syntax markdown-it lacks: admonitions (`!!! note "Title"`,
  `??? ...`: a small block rule, `_admonition`) and md_in_html (`<figure markdown>`: its lines
  are read as Markdown);
- an embed marker `<!-- embed: ... -->` outside code opens an embed region that the next
  `<!-- /embed -->` outside code closes. Lines in between are flagged `embedded`; as the embedded
  content sits in a fence longer than any backtick run it holds, no line of content can ever close
  the region. `find_markers` reads each marker pair (what it names, its lines) and is the one
  reader of their grammar; scripts/marker_fill.py writes what goes between them.

`math_spans(text)` is the one finder of formulas in Markdown, with the delimiters of
pymdownx.arithmatex, none inside inline code: the number links, glue_migrate, the formula index
and the KaTeX pass of notebook cells call it, and the claim check's inline tokenizer uses its
pattern, `MATH_PATTERN`, as one of its alternatives. (The site's HTML passes read arithmatex's
output instead, and book_checks the lines a display `\\[` opens.)

>>> [line.kind for line in scan("---\\nx: 1\\n---\\nText\\n```\\n<!-- c -->\\n```\\n").lines]
['front', 'front', 'front', 'prose', 'fence', 'code', 'fence', 'blank']
>>> split_front_matter("---\\n---\\nBody")
({}, 8)
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import re
from dataclasses import dataclass, field
from typing import Any

import yaml
from markdown_it import MarkdownIt
from markdown_it.rules_block import StateBlock

# libyaml's parser when PyYAML has it (about 10x faster), with the same constructor and resolver
_BASE_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class YAML_LOADER(_BASE_LOADER):  # a Loader class, under the name of the constant it replaced
    """The one YAML loader of the book's inputs (front matter, `docs/_data/*.yml`; mkdocs.yml,
    with MkDocs' own tags, is book/mkdocs_yml's): PyYAML's safe loader that refuses anchors and
    aliases, and a key written twice in one mapping.

    An alias shares a node, so a file of a few hundred bytes can stand for billions of values
    (a "billion laughs"), which any code that walks the data then walks for ever; nothing in the
    book's data needs one. libyaml composes in C, where no Python subclass can intercept an
    alias, so the events are scanned first (linear in the text, and only when it holds `&` or
    `*`); the error is a YAML error with the position of the anchor or alias, reported like any
    other as `file:line`. A duplicate key, which PyYAML would settle silently for the last one,
    is refused at its line.

    >>> yaml.load("a: &x [1]\\nb: *x\\n", Loader=YAML_LOADER)
    Traceback (most recent call last):
    ...
    yaml.composer.ComposerError: anchors and aliases are not allowed in the book's YAML (anchor &x)
      in "<unicode string>", line 1, column 4
    >>> yaml.load("a: 1\\na: 2\\n", Loader=YAML_LOADER)
    Traceback (most recent call last):
    ...
    yaml.constructor.ConstructorError: the key 'a' is written twice in one mapping
      in "<unicode string>", line 2, column 1
    """

    def __init__(self, stream: Any) -> None:
        super().__init__(stream)
        self._text = stream

    def get_single_node(self) -> Any:
        refuse_aliases(self._text)
        return super().get_single_node()

    def construct_mapping(self, node: Any, deep: bool = False) -> Any:
        if isinstance(node, yaml.MappingNode):
            seen: set[str] = set()
            for key, _ in node.value:
                if isinstance(key, yaml.ScalarNode):
                    if key.value in seen:
                        raise yaml.constructor.ConstructorError(
                            None, None, f"the key {key.value!r} is written twice in one mapping",
                            key.start_mark)
                    seen.add(key.value)
        return super().construct_mapping(node, deep=deep)


def read_utf8(path: Any, source: str, error: type[Exception], encoding: str = "utf-8") -> str:
    """The text of an input file (a page, a data file), or `error` naming `source` and the line
    of its first byte that is not UTF-8 (`encoding`: "utf-8-sig" drops a byte-order mark, as
    MkDocs does for a page)."""
    data = path.read_bytes()
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as problem:
        line = data[: problem.start].count(b"\n") + 1
        byte = data[problem.start:problem.start + 1]
        raise error(f"{source}:{line}: not UTF-8 (byte {byte!r}); save it as UTF-8") from None


def yaml_problem(problem: yaml.YAMLError, first_line: int = 1) -> tuple[int, str]:
    """The line of a YAML error (the text's first line numbered `first_line`) and what is
    wrong, saying where an unclosed construct started.

    >>> try:
    ...     yaml.load("a: 1\\nb: [x\\n", Loader=YAML_LOADER)
    ... except yaml.YAMLError as problem:
    ...     yaml_problem(problem, 10)
    (12, "while parsing a flow sequence (from line 11): did not find expected ',' or ']'")
    """
    mark = getattr(problem, "problem_mark", None)
    context_mark = getattr(problem, "context_mark", None)
    reason = getattr(problem, "problem", None) or str(problem).splitlines()[0]
    context = getattr(problem, "context", None)
    if mark is None:
        mark, context_mark = context_mark, None
    if context:
        if context_mark is not None and mark is not None and context_mark.line != mark.line:
            context += f" (from line {context_mark.line + first_line})"
        reason = f"{context}: {reason}"
    return (mark.line if mark is not None else 0) + first_line, reason


def refuse_aliases(text: Any) -> None:
    """A YAML error at the first anchor or alias of `text` (a str; other streams are let be)."""
    if not isinstance(text, str) or ("&" not in text and "*" not in text):
        return
    for event in yaml.parse(text, Loader=_BASE_LOADER):
        if isinstance(event, yaml.AliasEvent):
            what = f"alias *{event.anchor}"
        elif getattr(event, "anchor", None):
            what = f"anchor &{event.anchor}"
        else:
            continue
        raise yaml.composer.ComposerError(
            None, None, f"anchors and aliases are not allowed in the book's YAML ({what})",
            event.start_mark)

FRONT_MATTER = re.compile(r"\A---[ \t]*\r?\n(?P<yaml>.*?\r?\n)??---[ \t]*(?:\r?\n|\Z)", re.S)
QUOTE_PREFIX = re.compile(r"^[ \t]*(?:>[ \t]?)+")
HEADING = re.compile(r"^(?P<indent>\s*)(?P<marks>#{1,6})\s+")
ADMONITION = re.compile(
    r"^(?P<indent>\s*)(?:!!!|\?\?\?\+?|===)\s*[^\"\n]*?(?:\"(?P<title>[^\"]*)\")?\s*$"
)
EMBED_START = re.compile(r"^[ \t]*<!--\s*embed:")
EMBED_END = re.compile(r"^[ \t]*<!--\s*/embed\s*-->\s*$")
ANY_EMBED = re.compile(r"<!--\s*/?embed\b")
# A whole marker line, and what it names (`find_markers`).
EMBED_MARKER = re.compile(r"^(?P<indent>[ \t]*)<!--\s*embed:\s*(?P<body>.*?)\s*-->\s*$")
EMBED_BODY = re.compile(
    r"^(?P<kind>output|source)\s+(?P<target>[\w./-]+)(?:\s+\[(?P<block>\d+)\])?$")


# Math as pymdownx.arithmatex finds it in Markdown (and Jupyter in a notebook's Markdown cells):
# `\\( \\)` and `$ $` inline; `\\[ \\]`, `$$ $$` and a bare `\\begin{env} ... \\end{env}` display.
# A single `$` opens only before a non-space and closes only after one, not before a digit
# (`$5 and $6` is no formula), and never next to a backslash or another `$`; the formula holds
# no unescaped `$`.
MATH_PATTERN = (
    r"\\\(.+?\\\)|\\\[.+?\\\]|\$\$.+?\$\$|(?<![\\$])\$(?!\s)(?:\\.|[^\\$])+?(?<![\s\\])\$(?![0-9])"
    r"|\\begin\{(?P<math_env>[A-Za-z*]+)\}.*?\\end\{(?P=math_env)\}"
)
CODE_SPAN_PATTERN = r"(?P<ticks>`+).+?(?P=ticks)"
_CODE_OR_MATH = re.compile(rf"(?P<code>{CODE_SPAN_PATTERN})|(?P<math>{MATH_PATTERN})", re.S)
_MATH_DELIMITERS = (("\\(", "\\)", False), ("\\[", "\\]", True), ("$$", "$$", True),
                    ("$", "$", False))


@dataclass(frozen=True)
class MathSpan:
    """One formula of a text: `start`/`end` include its delimiters, `body_start`/`body_end`
    do not (a `\\begin{env}` formula is its own body)."""

    start: int
    end: int
    body_start: int
    body_end: int
    display: bool


def math_body(text: str, start: int, end: int) -> tuple[int, int]:
    """The inside of the formula `text[start:end]`, without its delimiters.

    >>> math_body(r"a \\(x^2\\) b", 2, 9)
    (4, 7)
    """
    for opening, closing, _ in _MATH_DELIMITERS:
        if text.startswith(opening, start) and text.endswith(closing, start, end):
            return start + len(opening), end - len(closing)
    return start, end


def math_spans(text: str) -> list[MathSpan]:
    """Every formula of a piece of Markdown (or of a notebook cell's text), in order; a
    delimiter inside inline code (`` `$x$` ``) opens none.

    >>> [(s.start, s.end, s.display) for s in math_spans(r"`\\(` \\(a\\) and $$b$$, $5 or $6")]
    [(5, 10, False), (15, 20, True)]
    """
    spans = []
    for match in _CODE_OR_MATH.finditer(text):
        if match.group("math") is None:
            continue
        start, end = match.span()
        body_start, body_end = math_body(text, start, end)
        display = next((d for o, c, d in _MATH_DELIMITERS if text.startswith(o, start)), True)
        spans.append(MathSpan(start, end, body_start, body_end, display))
    return spans


def math_ranges(text: str) -> list[tuple[int, int]]:
    """(start, end) of every formula of `text`, delimiters included."""
    return [(span.start, span.end) for span in math_spans(text)]


def math_text(text: str) -> str:
    """Printed text as it stands in a formula: a thousands comma braced, as pages write it.

    >>> math_text("1,000,000")
    '1{,}000{,}000'
    """
    return text.replace(",", "{,}")


class MarkdownError(ValueError):
    """A page that cannot be scanned: reported as `path:line: message`."""


@dataclass(frozen=True)
class Line:
    number: int  # 1-based
    start: int  # offset of the line's first character in the page text
    text: str  # without the line ending
    kind: str  # front, fence, code, comment, blank, prose
    embedded: bool = False  # between an embed marker and its end marker (markers excluded)
    marker: str = ""  # "start" or "end" for an embed marker line outside code

    @property
    def quote(self) -> int:
        """Length of the blockquote prefix (`> `), 0 when the line is not quoted."""
        match = QUOTE_PREFIX.match(self.text)
        return match.end() if match and ">" in match.group() else 0


@dataclass
class Scan:
    lines: list[Line]
    front: dict[str, Any] = field(default_factory=dict)
    body_start: int = 0  # offset where the body starts (after front matter)
    unclosed_fence: int = 0  # line of a fence never closed, 0 when none
    unclosed_embed: int = 0  # line of an embed marker never closed, 0 when none
    front_error: str = ""  # a YAML error in the front matter, empty when none


@dataclass(frozen=True)
class FrontMatter:
    """A page's front matter, with positions: the one reader every tool uses (pages, errata,
    the claim check, the site plugin)."""

    present: bool  # the page opens with `---` ... `---`
    data: Any  # the parsed YAML (None when absent, empty or invalid)
    error: str  # the YAML error, "" when none
    yaml_text: str  # the text between the two `---` lines
    yaml_start: int  # offset of that text in the page
    yaml_line: int  # 1-based line of the page where the YAML text starts (2 when present)
    body_start: int  # offset where the body starts (0 without front matter)
    error_line: int = 0  # 1-based line of the page where the YAML error is, 0 when none

    @property
    def mapping(self) -> dict[str, Any]:
        """The data as a dict: {} when absent, empty, invalid or not a mapping."""
        return self.data if isinstance(self.data, dict) else {}

    def problem(self, source: str) -> str:
        """The one error of invalid front matter, as `source:line: ...` ("" when it is valid):
        every later check of the page would read it as absent and report its knock-on noise.

        >>> read_front_matter("---\\ntitle: [a\\n---\\nBody").problem("docs/x.md")[:60]
        'docs/x.md:3: invalid YAML front matter (while parsing a flow'
        """
        if not self.error:
            return ""
        return f"{source}:{self.error_line}: invalid YAML front matter ({self.error})"


@functools.lru_cache(maxsize=512)
def _parse_front_matter(text: str) -> FrontMatter:
    match = FRONT_MATTER.match(text)
    if not match:
        return FrontMatter(False, None, "", "", 0, 0, 0)
    yaml_text = match.group("yaml") or ""
    error_line = 0
    try:
        data, error = yaml.load(yaml_text, Loader=YAML_LOADER), ""
    except yaml.YAMLError as problem:
        error_line, error = yaml_problem(problem, 2)  # line 1 is the opening ---
        data = None
    start = match.start("yaml") if match.group("yaml") is not None else match.end()
    return FrontMatter(True, data, error, yaml_text, start, 2, match.end(), error_line)


def read_front_matter(text: str) -> FrontMatter:
    """The front matter of `text` (parsed once per text; the data is the caller's own copy).

    >>> front = read_front_matter("---\\nid: E1\\n---\\nBody")
    >>> front.mapping, front.yaml_line, front.body_start
    ({'id': 'E1'}, 2, 15)
    """
    front = _parse_front_matter(text)
    return dataclasses.replace(front, data=copy.deepcopy(front.data)) if front.data else front


def split_front_matter(text: str) -> tuple[dict[str, Any], int]:
    """The front matter as a dict ({} when absent, empty or not a mapping) and the offset where
    the body starts. Invalid YAML raises MarkdownError."""
    front = read_front_matter(text)
    if front.error:
        raise MarkdownError(f"invalid YAML front matter: {front.error}")
    return front.mapping, front.body_start


def has_front_matter(text: str) -> bool:
    return FRONT_MATTER.match(text) is not None


def _admonition(state: StateBlock, start: int, end: int, silent: bool) -> bool:
    """Python-Markdown's admonition (`!!! note "Title"`, `??? note`, `???+ note`), which
    markdown-it lacks: the title line, then every line indented four more than it, blank lines
    included, and a line that lazily continues a paragraph of the body. (mdit-py-plugins' `admon`
    ends the body at two blank lines, which every embedded Python source holds.)"""
    if state.sCount[start] - state.blkIndent >= 4 or not ADMONITION.match(
            state.src[state.bMarks[start]:state.eMarks[start]]):
        return False
    if silent:
        return True
    last, blank, line = start + 1, False, start + 1
    while line < end:
        if state.isEmpty(line):
            blank = True
        elif state.sCount[line] >= state.blkIndent + 4 or not blank:
            blank, last = False, line + 1
        else:
            break
        line += 1
    state.push("admonition_open", "div", 1).map = [start, last]
    saved = state.blkIndent, state.parentType, state.lineMax
    state.blkIndent, state.parentType, state.lineMax = state.blkIndent + 4, "admonition", last
    state.md.block.tokenize(state, start + 1, last)
    state.blkIndent, state.parentType, state.lineMax = saved
    state.push("admonition_close", "div", -1)
    state.line = last
    return True


# The block structure of a page: CommonMark with tables and admonitions; inline parsing is not
# needed (formulas are `math_spans`').
_PARSER = MarkdownIt("commonmark").enable("table").disable("inline")
_PARSER.block.ruler.before("fence", "admonition", _admonition,
                          {"alt": ["paragraph", "reference", "blockquote", "list"]})
# An element that md_in_html reads as Markdown: `<figure markdown id="fig-x">`
_MARKDOWN_IN_HTML = re.compile(r"^\s*<[A-Za-z][A-Za-z0-9-]*\b[^>]*\smarkdown\b")


def _closes(line: str, markup: str) -> bool:
    """Whether `line` (any container prefix aside) is a fence of the same character as `markup`,
    at least as long, and nothing else."""
    line = line.lstrip(" \t>").rstrip()
    return len(line) >= len(markup) and line == markup[0] * len(line)


def _kinds(lines: list[str], first: int, last: int, kinds: list[str]) -> int:
    """Classify lines[first:last] in `kinds` from markdown-it's tokens of that text; the line of
    a fence never closed (0 when none)."""
    unclosed = 0
    for token in _PARSER.parse("\n".join(lines[first:last]).replace("\r", " ")):
        if token.map is None or token.type not in ("fence", "code_block", "html_block"):
            continue
        begin, end = token.map[0] + first, token.map[1] + first
        if token.type == "fence":
            kinds[begin:end] = ["code"] * (end - begin)
            kinds[begin] = "fence"
            if end - 1 > begin and _closes(lines[end - 1], token.markup):
                kinds[end - 1] = "fence"
            elif not unclosed:
                unclosed = begin + 1
        elif token.type == "code_block":
            kinds[begin:end] = ["code"] * (end - begin)
        elif token.content.lstrip().startswith("<!--"):
            # A comment is a block where it starts its line (not after a list marker, where
            # Python-Markdown reads it inline), and only when no text follows it on its last line.
            if lines[begin].lstrip().startswith("<!--") and (
                    end - begin > 1 or not lines[begin].rsplit("-->", 1)[-1].strip()):
                kinds[begin:end] = ["comment"] * (end - begin)
        elif _MARKDOWN_IN_HTML.match(lines[begin]) and end - begin > 1:
            unclosed = _kinds(lines, begin + 1, end, kinds) or unclosed
    return unclosed


@functools.lru_cache(maxsize=256)
def scan(text: str) -> Scan:
    """Classify every line of `text` (split at "\\n"; a trailing "\\r" stays in the line) from
    markdown-it's block tokens (`token.map` gives their lines).

    A page is scanned once per build however many tools read it (the result is shared: read
    it, do not change it)."""
    front = read_front_matter(text)
    front_error = f"invalid YAML front matter: {front.error}" if front.error else ""
    result = Scan([], front.mapping, front.body_start, front_error=front_error)
    raw_lines = text.split("\n")
    lines = [raw.rstrip("\r") for raw in raw_lines]
    front_lines = text.count("\n", 0, front.body_start) if front.body_start else 0
    kinds = ["prose" if line.strip() else "blank" for line in lines]
    kinds[:front_lines] = ["front"] * front_lines
    result.unclosed_fence = _kinds(lines, front_lines, len(lines), kinds)
    embed_line = 0
    position = 0
    for index, (raw, line, kind) in enumerate(zip(raw_lines, lines, kinds, strict=True)):
        number, start = index + 1, position
        position += len(raw) + 1
        embedded = embed_line > 0
        marker = ""
        if kind == "comment" and "-->" in line:  # the last line of a comment
            if EMBED_END.match(line) and embed_line:
                marker, embed_line, embedded = "end", 0, False
            elif EMBED_START.match(line) and not embed_line:
                marker, embed_line, embedded = "start", number, False
        result.lines.append(Line(number, start, line, kind, embedded, marker))
    result.unclosed_embed = embed_line
    return result




class MarkerError(ValueError):
    """A problem with a marker, reported as `path:line: message`."""


@dataclass(frozen=True)
class Marker:
    kind: str  # "output" or "source"
    target: str  # script or file name under explainer_code/
    block: int | None  # the numbered block, for outputs
    indent: str
    start_line: int  # 1-based line of the start marker
    end_line: int  # 1-based line of the end marker

    @property
    def spec(self) -> str:
        block = f" [{self.block}]" if self.block is not None else ""
        return f"{self.kind} {self.target}{block}"


def find_markers(text: str, path: str) -> list[Marker]:
    """Parse every marker pair of a page; raise MarkerError naming path and line on any problem.

    Lines are classified by the shared scanner (`markdown.scan`): markers in fenced code are
    examples, and the content between a marker and its end marker is fenced, so a marker line
    printed by a script (or in an embedded source) is content, never a marker.
    """
    markers: list[Marker] = []
    open_start: tuple[int, re.Match[str], re.Match[str]] | None = None
    scanned = scan(text)
    if scanned.unclosed_fence:
        raise MarkerError(
            f"{path}:{scanned.unclosed_fence}: code fence never closed: it hides every marker, "
            "tag and number after it (close it with the same fence characters)"
        )
    for entry in scanned.lines:
        if entry.kind in ("code", "fence", "front"):
            continue
        line_no, line = entry.number, entry.text
        start, end = EMBED_MARKER.match(line), EMBED_END.match(line)
        if start:
            if open_start is not None:
                raise MarkerError(
                    f"{path}:{line_no}: nested marker: the marker on line {open_start[0]} "
                    "is not closed yet (add <!-- /embed --> before this line)"
                )
            body = EMBED_BODY.match(start.group("body"))
            if body is None:
                raise MarkerError(
                    f"{path}:{line_no}: malformed marker {line.strip()!r}; expected "
                    "'<!-- embed: output NAME.py -->', '<!-- embed: output NAME.py [N] -->' "
                    "or '<!-- embed: source PATH -->'"
                )
            if body.group("kind") == "source" and body.group("block"):
                raise MarkerError(f"{path}:{line_no}: a source marker takes no block number")
            open_start = (line_no, start, body)
        elif end:
            if open_start is None:
                raise MarkerError(f"{path}:{line_no}: <!-- /embed --> without an open marker")
            start_no, start_match, body = open_start
            block = body.group("block")
            markers.append(
                Marker(
                    kind=body.group("kind"),
                    target=body.group("target"),
                    block=int(block) if block else None,
                    indent=start_match.group("indent"),
                    start_line=start_no,
                    end_line=line_no,
                )
            )
            open_start = None
        elif ANY_EMBED.search(line):
            raise MarkerError(
                f"{path}:{line_no}: malformed marker {line.strip()!r} "
                "(a marker must stand alone on its line)"
            )
    if open_start is not None:
        raise MarkerError(
            f"{path}:{open_start[0]}: unclosed marker: no <!-- /embed --> after "
            f"{open_start[1].group(0).strip()!r}"
        )
    return markers
