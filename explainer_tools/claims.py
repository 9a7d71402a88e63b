"""Claim check: every number quoted in prose is a number the cited script printed.

Embedding keeps script outputs fresh; nothing else notices when a sentence that *quotes* an output
goes stale. This module reads every Markdown page under `docs/`, finds the citations of output
blocks, and checks that each number in a citation's scope is printed in the cited block(s).

Citations (case-insensitive "output"/"outputs"; the script may be in backticks or a link):

    (output [3] of ch05_param_count.py)     output [3] of ch05_param_count.py
    output [3] (ch05_param_count.py)        outputs [1] and [3] of ch05_attention.py
    (output [3])    (outputs [1], [2] and [3])    outputs [2]-[4]

A short citation names no script: it means the script of the nearest explicit citation earlier on
the page, else the single script of the front matter's `scripts:`; anything else is an error.

Scope. A citation covers the sentence it stands in (paragraphs are split into sentences), the
whole list item, the whole table row, or a heading / admonition title. A table or a list whose
introducing sentence (the last sentence of the paragraph right before it, for a list one that ends
with ":") cites blocks is checked cell by cell / item by item against them, unless a row or item
carries its own citation; so is a table followed by a caption paragraph ("Table: ...") that cites.
Numbers outside every scope are *uncited*: reported with their lines, and an error inside the
sections every chapter must fully cite: "Worked example...", "Common misconceptions", "Self-test".

Matching is by value after normalising how people write numbers: thousands separators (`,` in
prose; thin, narrow and no-break spaces; LaTeX `{,}` and `\\,`), unicode minus, a leading `+`,
suffixes (`%`, `ppm`, `M`, `k`, `B`), scientific forms (`1.8e-07`, `1.8\\times10^{-7}`, `10^{-5}`).
Values compare exactly as decimals: 0.0000 matches 0, but 15.67 does not match 15.666 (it is
reported as a near miss: rounded, sign only, one digit off, or within 1 %). A signed number must
carry the same sign as the block prints. Inside math a plain comma separates list entries
(`(1,2,3,6)` is four numbers); in prose `1,2,3,6` is too, because its groups are not thousands.

What is not prose: front matter, fenced code blocks (embedded outputs and sources), everything
between `<!-- embed: ... -->` and `<!-- /embed -->`, HTML comments, HTML tags, link targets and
URLs. Inline code (`n_embd = 768`) is code, not prose: its numbers are skipped and counted as such.
Inline and display math (`\\( \\)`, `\\[ \\]`, `$ $`, `$$ $$`) IS prose and is checked:
`\\(47\\times768=36{,}096\\)` yields 47, 768 and 36096.

Skip rules (counted as "skipped by rule" in the report, listed with `-v`):

- reference: a number after Chapter/Ch., Section/Sec./§, Figure/Fig., Table/Tab., Equation/Eq.,
  Appendix/App., page/p./pp., Step, Part, Question, Exercise, Footnote, Line, Theorem, Lemma,
  Definition, Example, Algorithm, arXiv ("Chapter 7", "§6.4", "App. E, p. 16", "pp. 16-17");
  plural words take lists ("Chapters 19 and 20"); a leading heading number ("## 5.2 Heads").
- block marker: `[3]`, in citations and anywhere else in prose.
- year: 1900-2099 written without separators, in a date context ("in 2019,", "since 2020.",
  "July 2024") or next to a publication ("Radford et al. 2019", "(Radford, 2019)", "ICML 2024").
- exponent / index: an integer inside a superscript or subscript (`d^2`, `768^{2}`, `x_1`,
  `W_{12}`, `y_i^{(0)}`). A decimal exponent (`e^{1.414}`) is a quantity and is checked; so is
  the whole of `1.8\\times10^{-7}` and `10^{-5}`.
- provenance tag: the contents of `[PAPER App. E, p. 16]`, `[SOURCE: nanoGPT model.py]`.
- identifier: digits glued to a name: a letter or `_` before them (`log2`, `E24`, `W_1`,
  `c606ea6`, `ch05_param_count.py`), a letter-hyphen before them (`GPT-2`, `rank-4`), a letter
  after them other than a unit suffix (`3adf61e`, `2nd`, `4d` outside math), or a dotted
  version-like token (`2.13.0`). In math a letter after a number is a product (`12n^2`): checked.
- inline code.

Waivers cover what the rules do not, invisibly to the reader and always with a reason:

    <!-- claims: waive 1024 "context length, stated by nanoGPT's config, not printed" -->
    <!-- claims: waive 8 16 "head counts chosen for the question" -->

A waiver covers the numbers with those values in the paragraph, list item, table row or heading
it is written in; on a line of its own, the element that follows. A waiver without a reason, a
malformed `claims:` comment, and a waiver that matches no number are errors.

Errors (exit status 1) name the file and line: a number missing from the cited block(s), with the
closest number found there; a citation of an unknown script or block; an ambiguous short citation;
an uncited number in a fully-cited section; a bad waiver. The report lists per page the numbers
checked, skipped by rule, waived and uncited (with lines), then the blocks that no page cites.

Pages: every `docs/**/*.md` except those under a `fixtures/` folder (test pages of other
tools); notebooks (`.ipynb`) are not read. An erratum's prose lives in its front matter
(`title`, `paper_says` or `code_does`, `problem`, `consequences`, `correction`, and each evidence
item's `shows`, which cites the item's `output`/`block`), and is checked like the body.

    python -m explainer_tools.claims [-v] [--root DIR] [PAGE ...]
"""

from __future__ import annotations

import argparse
import functools
import itertools
import re
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal, InvalidOperation
from pathlib import Path

import yaml

from explainer_tools.blocks import Block, BlockError, parse_blocks
from explainer_tools.provenance import TAG_PATTERN

REPO_ROOT = Path(__file__).resolve().parent.parent

# Sections in which every number must be cited, skipped by rule or waived (BOOK.md's anatomy).
STRICT_SECTION = re.compile(r"worked example|misconception|self[- ]test", re.I)

# ---------------------------------------------------------------------------------------------
# Numbers
# ---------------------------------------------------------------------------------------------

SEPARATORS = (",", "\u2009", "\u202f", "\u00a0", "{,}", "\\,")
_SEP = r"(?:,|\u2009|\u202f|\u00a0|\{,\}|\\,)"
NUM_RUN = re.compile(r"[0-9]+(?:\.[0-9]+)*(?:" + _SEP + r"[0-9]+(?:\.[0-9]+)*)*")
SEP_SPLIT = re.compile(r"(" + _SEP + r")")
# 1.8e-07, 1.8\times10^{-7}, 1.8 × 10^-7, 1.8\cdot 10^{7}
SCI = re.compile(
    r"(?<![0-9.])(?P<mant>[0-9]+(?:\.[0-9]+)?)"
    r"(?:[eE](?P<e>[-−+]?[0-9]+)(?![0-9A-Za-z])"
    r"|\s*(?:\\times|\\cdot|×)\s*10\^(?:\{\s*(?P<b>[-−+]?[0-9]+)\s*\}|(?P<c>[-−+]?[0-9]+)))"
)
POW10 = re.compile(r"(?<![0-9.])10\^(?:\{\s*(?P<b>[-−+]?[0-9]+)\s*\}|(?P<c>[0-9]))")
LATEX_COMMAND = re.compile(r"\\[A-Za-z]+")
UNIT_SUFFIXES = frozenset({"M", "k", "K", "B", "ppm"})
MINUS_SIGNS = "-−"
OPERAND_BEFORE = re.compile(r"[0-9A-Za-z)\]}|!']")

_REF_SINGULAR = (
    r"chapter|ch\.|section|sec\.|§|figure|fig\.|table|tab\.|equation|eq\.|appendix|app\.|"
    r"page|p\.|step|part|question|exercise|footnote|line|theorem|lemma|definition|proposition|"
    r"corollary|example|algorithm|arxiv|version"
)
_REF_PLURAL = (
    r"chapters|sections|§§|figures|figs\.|tables|equations|eqs\.|appendices|pages|pp\.|steps|"
    r"parts|questions|exercises|footnotes|lines|theorems|lemmas|examples"
)
_REF_ITEM = r"(?:[A-Z]?[0-9]+(?:\.[0-9]+)*[a-z]?|[A-Z])"
_REF_LINK = r"(?:\s*,\s*|\s+and\s+|\s+or\s+|\s*&\s*|\s*[–-]\s*|\s+to\s+)"
REFERENCE_BEFORE = re.compile(
    r"(?:(?<![A-Za-z])(?:" + _REF_PLURAL + r")\s*(?:" + _REF_ITEM + _REF_LINK + r")*"
    r"|(?<![A-Za-z])(?:" + _REF_SINGULAR + r")\s*(?:" + _REF_ITEM + r"\s*[–-]\s*)?)$",
    re.I,
)
REFERENCE_HINT = re.compile(r"(?i:chap|ch\.|sec|§|fig|tab|eq|app|p\.|page|step|part|quest|exerc|"
                            r"footn|line|theor|lemma|defin|propos|corol|exampl|algor|arxiv|versi)")
HEADING_NUMBER = re.compile(r"^\s*#{1,6}\s+$")
_VENUES = (
    r"ICML|NeurIPS|NIPS|ICLR|COLT|ACL|EMNLP|NAACL|AISTATS|UAI|JMLR|TMLR|CVPR|ICCV|ECCV|AAAI|"
    r"IJCAI|arXiv|Proc\.|Proceedings"
)
_MONTHS = (
    r"Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|"
    r"Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?"
)
YEAR_PUBLICATION_BEFORE = re.compile(
    r"(?:et\s+al\.?,?\s*\(?|(?:" + _VENUES + r")\s*'?,?\s*"
    r"|(?:" + _MONTHS + r")\.?\s+(?:[0-9]{1,2},?\s+)?"
    r"|\(\s*[A-Z][\w'-]+(?:\s+(?:and|&)\s+[A-Z][\w'-]+)?,\s*|[A-Z][a-z][\w'-]*\s+\(|©\s*)$"
)
YEAR_DATE_BEFORE = re.compile(r"(?<![A-Za-z])(?:in|since|until|circa|c\.|from|during)\s+$", re.I)
YEAR_RANGE_BEFORE = re.compile(r"(?<![A-Za-z])(?:in|from|between|during|since)\s+(?:19|20)[0-9]{2}"
                               r"\s*(?:[–-]|to|and)\s*$", re.I)
YEAR_DATE_AFTER = re.compile(r"^(?:\s*$|\s*[.,;:!?)\]—–]|\s+(?:and|to|or|onwards)\b|[–-][0-9])")


@dataclass(frozen=True)
class Token:
    """One number as written: its text, value, and where it is (offsets into the scanned text)."""

    text: str
    value: Decimal | None  # None when skipped
    start: int
    end: int
    skip: str = ""  # the skip rule, empty for a claim

    @property
    def decimals(self) -> int:
        mantissa = re.split(r"[eE^]|\\times|\\cdot|×", self.text)[0]
        return len(mantissa.split(".")[1]) if "." in mantissa else 0


def _decimal(digits: str, sign: str = "", exponent: str = "") -> Decimal:
    text = ("-" if sign and sign in MINUS_SIGNS else "") + digits
    if exponent:
        text += "e" + exponent.replace("−", "-")
    return Decimal(text)


def _valid_thousands(groups: list[str]) -> bool:
    if not re.fullmatch(r"[0-9]{1,3}", groups[0]):
        return False
    if any(not re.fullmatch(r"[0-9]{3}", g) for g in groups[1:-1]):
        return False
    return re.fullmatch(r"[0-9]{3}(?:\.[0-9]+)?", groups[-1]) is not None


def _run_pieces(run: str, start: int, plain_comma_joins: bool) -> list[tuple[str, int, int, str]]:
    """Split a run like '50,304' or '12,12,768' into numbers: (digits, start, end, written)."""
    pieces: list[tuple[str, int, int, str]] = []
    chunks: list[tuple[str, int]] = []  # (chunk text, offset) split at separators that cannot join
    # First split at plain commas when they cannot join (math), then validate each chunk.
    parts = SEP_SPLIT.split(run)
    # parts alternates: group, sep, group, sep, ...
    offset = start
    current = ""
    current_start = start
    for index, part in enumerate(parts):
        if index % 2 == 1 and part == "," and not plain_comma_joins:
            chunks.append((current, current_start))
            current, current_start = "", offset + len(part)
        else:
            current += part
        offset += len(part)
    chunks.append((current, current_start))
    for chunk, chunk_start in chunks:
        parts = SEP_SPLIT.split(chunk)
        groups = parts[0::2]
        if len(groups) > 1 and _valid_thousands(groups):
            pieces.append(("".join(groups), chunk_start, chunk_start + len(chunk), chunk))
            continue
        offset = chunk_start
        for index, part in enumerate(parts):
            if index % 2 == 0:
                pieces.append((part, offset, offset + len(part), part))
            offset += len(part)
    return pieces


def _skip_group_end(text: str, index: int) -> int:
    """End of the `^...`/`_...` group starting at text[index] (the character after ^ or _)."""
    if index >= len(text):
        return index
    if text[index] == "{":
        depth = 0
        for position in range(index, len(text)):
            if text[position] == "{":
                depth += 1
            elif text[position] == "}":
                depth -= 1
                if depth == 0:
                    return position + 1
        return len(text)
    command = LATEX_COMMAND.match(text, index)
    if command:
        return command.end()
    if text[index].isdigit():
        return index + 1
    return index + 1


def scan_numbers(text: str, mode: str = "prose", context: str | None = None,
                 offset: int = 0) -> list[Token]:
    """Every number in `text`, claims and skipped ones, with offsets relative to `context`.

    mode: "prose" (a plain comma joins thousands; references, years and identifiers are skipped),
    "math" (a plain comma separates; integer exponents and indices are skipped; a letter after a
    number is a product), or "block" (script output: only names like log2 or GPT-2 are left out).
    `context` is the whole text around `text` (for references before it); `offset` is where `text`
    starts in it.

    >>> [(t.text, str(t.value)) for t in scan_numbers(r"47\\times768=36{,}096", "math")]
    [('47', '47'), ('768', '768'), ('36{,}096', '36096')]
    """
    if context is None:
        context, offset = text, 0
    work = list(text)  # consumed spans are blanked so that later rules do not see them
    tokens: list[Token] = []

    def blank(start: int, end: int) -> None:
        for position in range(start, end):
            if work[position] != "\n":
                work[position] = " "

    def sign_before(start: int) -> str:
        if start > 0 and text[start - 1] in "-−+":
            before = "".join(work[:start - 1]).rstrip(" ") if mode == "math" else text[:start - 1]
            if not before or not OPERAND_BEFORE.match(before[-1]):
                if mode != "math" and start > 1 and not text[start - 2].isspace() and \
                        text[start - 2] not in "([=:,/<>≈~":
                    return ""
                return text[start - 1]
        return ""

    for match in SCI.finditer(text):
        exponent = match.group("e") or match.group("b") or match.group("c")
        sign = sign_before(match.start())
        tokens.append(Token(text[match.start() - len(sign):match.end()],
                            _decimal(match.group("mant"), sign, exponent),
                            match.start() - len(sign), match.end()))
        blank(match.start() - len(sign), match.end())
    if mode == "math":
        for match in POW10.finditer("".join(work)):
            exponent = match.group("b") or match.group("c")
            tokens.append(Token(text[match.start():match.end()], Decimal("1e" + exponent.replace(
                "−", "-")), match.start(), match.end()))
            blank(match.start(), match.end())
    # Superscripts and subscripts: integers are powers and indices; a decimal power is a quantity.
    position = 0
    joined = "".join(work)
    while True:
        found = re.compile(r"[\^_]").search(joined, position)
        if not found:
            break
        caret = found.start()
        glued = caret > 0 and joined[caret - 1].isalnum()
        if joined[caret] == "_" and mode != "math" and not glued:
            position = caret + 1  # Markdown emphasis (_12 layers_), not an index
            continue
        end = _skip_group_end(joined, caret + 1)
        inner = joined[caret + 1:end].strip("{}")
        decimal_power = re.fullmatch(r"\s*([-−+]?)([0-9]+\.[0-9]+)\s*", inner)
        if joined[caret] == "^" and decimal_power:
            inner_start = joined.index(decimal_power.group(2), caret)
            sign = decimal_power.group(1)
            tokens.append(Token(text[inner_start - len(sign):inner_start + len(
                decimal_power.group(2))], _decimal(decimal_power.group(2), sign),
                inner_start - len(sign), inner_start + len(decimal_power.group(2))))
        else:
            reason = "exponent" if joined[caret] == "^" else "index"
            for digits in re.finditer(r"[0-9]+", joined[caret + 1:end]):
                begin = caret + 1 + digits.start()
                tokens.append(Token(digits.group(), None, begin, begin + len(digits.group()),
                                    reason))
        blank(caret, end)
        joined = "".join(work)
        position = end
    if mode == "math":
        for command in LATEX_COMMAND.finditer("".join(work)):
            blank(command.start(), command.end())
    joined = "".join(work)
    for run in NUM_RUN.finditer(joined):
        for digits, start, end, written in _run_pieces(run.group(), run.start(), mode != "math"):
            tokens.append(_classify(text, joined, digits, start, end, written, mode, context,
                                    offset, sign_before))
    tokens.sort(key=lambda token: token.start)
    return [Token(t.text, t.value, t.start + offset, t.end + offset, t.skip) for t in tokens]


def _classify(text: str, joined: str, digits: str, start: int, end: int, written: str, mode: str,
              context: str, offset: int, sign_before: Callable[[int], str]) -> Token:
    before = joined[start - 1] if start > 0 else " "
    before2 = joined[start - 2] if start > 1 else " "
    after = joined[end] if end < len(joined) else " "
    rest = joined[end:]

    def skipped(reason: str) -> Token:
        return Token(written, None, start, end, reason)

    if digits.count(".") > 1:
        return skipped("reference" if _is_reference(context, offset + start) else "identifier")
    if mode != "math" and before == "[" and after == "]":
        return skipped("block marker")
    letter_before = before.isalpha() or before == "_" or (
        before in "-." and before2.isalpha() and mode != "math")
    if letter_before:
        return skipped("index" if mode == "math" else "identifier")
    if mode == "block":
        sign = sign_before(start)
        return Token(text[start - len(sign):end], _decimal(_plain(digits), sign),
                     start - len(sign), end)
    if mode == "prose":
        letters = re.match(r"[A-Za-z]+", rest)
        if letters:
            after_letters = rest[len(letters.group()):len(letters.group()) + 1]
            if letters.group() not in UNIT_SUFFIXES or after_letters.isalnum():
                return skipped("identifier")
        if rest[:1] == "_" and rest[1:2].isalnum():
            return skipped("identifier")
        if re.match(r"\.[A-Za-z]", rest):
            return skipped("identifier")
        if _is_reference(context, offset + start):
            return skipped("reference")
        if _is_year(digits, context, offset + start, offset + end):
            return skipped("year")
    sign = sign_before(start)
    return Token(text[start - len(sign):end], _decimal(_plain(digits), sign), start - len(sign),
                 end)


def _plain(digits: str) -> str:
    for separator in SEPARATORS:
        digits = digits.replace(separator, "")
    return digits


def _is_reference(context: str, start: int) -> bool:
    before = context[max(0, start - 80):start]
    if not REFERENCE_HINT.search(before):
        return HEADING_NUMBER.match(context[context.rfind("\n", 0, start) + 1:start]) is not None
    return REFERENCE_BEFORE.search(before) is not None or (
        HEADING_NUMBER.match(context[context.rfind("\n", 0, start) + 1:start]) is not None)


def _is_year(digits: str, context: str, start: int, end: int) -> bool:
    if not re.fullmatch(r"(19|20)[0-9]{2}", digits):
        return False
    if start > 0 and context[start - 1] in MINUS_SIGNS + "+":
        return False
    before = context[max(0, start - 60):start]
    after = context[end:end + 20]
    if YEAR_PUBLICATION_BEFORE.search(before) or YEAR_RANGE_BEFORE.search(before):
        return True
    return YEAR_DATE_BEFORE.search(before) is not None and YEAR_DATE_AFTER.match(after) is not None


def parse_number(text: str) -> Decimal:
    """The value of one number as a person writes it: '1,024', '−0.5', '36{,}096', '5.3 ppm'.

    >>> parse_number("−1{,}024 %")
    Decimal('-1024')
    """
    values = [t.value for t in scan_numbers(text, "block") if t.value is not None]
    if len(values) != 1:
        raise ValueError(f"not one number: {text!r}")
    return values[0]


# ---------------------------------------------------------------------------------------------
# Outputs
# ---------------------------------------------------------------------------------------------


class Outputs:
    """Script outputs, by script name (`ch05_param_count.py`), parsed into blocks on first use."""

    def __init__(self, texts: Mapping[str, str], origin: str = "outputs") -> None:
        self._texts = dict(texts)
        self._origin = origin
        self._blocks: dict[str, dict[int, Block]] = {}
        self._values: dict[tuple[str, int], list[Token]] = {}

    @classmethod
    def from_dir(cls, directory: Path) -> Outputs:
        texts = {path.stem + ".py": path.read_text(encoding="utf-8")
                 for path in sorted(directory.glob("*.txt"))}
        return cls(texts, origin=str(directory))

    @property
    def scripts(self) -> list[str]:
        return sorted(self._texts)

    def blocks(self, script: str) -> dict[int, Block] | None:
        if script not in self._texts:
            return None
        if script not in self._blocks:
            stem = script.removesuffix(".py")
            self._blocks[script] = parse_blocks(self._texts[script], f"outputs/{stem}.txt")
        return self._blocks[script]

    def values(self, script: str, number: int) -> list[Token]:
        """The numbers printed in block [number] of the script's output (block marker left out)."""
        key = (script, number)
        if key not in self._values:
            blocks = self.blocks(script) or {}
            text = blocks[number].text
            marker = re.match(r"\[[0-9]+\] ", text)
            if marker:
                text = " " * marker.end() + text[marker.end():]
            self._values[key] = [t for t in scan_numbers(text, "block") if t.value is not None]
        return self._values[key]


# ---------------------------------------------------------------------------------------------
# Pages: front matter, block-level elements, inline segments
# ---------------------------------------------------------------------------------------------

FRONT_MATTER = re.compile(r"\A---[ \t]*\n(?P<yaml>.*?\n)?---[ \t]*(?:\n|\Z)", re.S)
FENCE = re.compile(r"^\s*(?:>\s*)*(?P<fence>`{3,}|~{3,})")
EMBED_START = re.compile(r"<!--\s*embed:")
EMBED_END = re.compile(r"<!--\s*/embed\s*-->")
HEADING = re.compile(r"^(?P<indent>\s*)(?P<marks>#{1,6})\s+")
ADMONITION = re.compile(
    r"^(?P<indent>\s*)(?:!!!|\?\?\?\+?|===)\s*[^\"\n]*?(?:\"(?P<title>[^\"]*)\")?\s*$")
LIST_ITEM = re.compile(r"^(?P<indent>\s*)(?P<marker>[-*+]|[0-9]+\.)\s+")
TABLE_SEPARATOR = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")
BLOCKQUOTE = re.compile(r"^\s*(?:>\s?)+")
FOOTNOTE_DEF = re.compile(r"^\s*\[\^[^\]]+\]:\s*")
CAPTION_START = re.compile(r"^\s*[*_]*(?:Table|Caption)\b[^:\n]*:")

INLINE = re.compile(
    r"(?P<code>(?P<ticks>`+).+?(?P=ticks))"
    r"|(?P<comment><!--.*?-->)"
    r"|(?P<math>\\\(.+?\\\)|\\\[.+?\\\]|\$\$.+?\$\$|(?<![\\$])\$(?!\s).+?(?<![\s\\])\$(?![0-9])"
    r"|\\begin\{(?P<env>[A-Za-z*]+)\}.*?\\end\{(?P=env)\})"
    r"|(?P<tag>" + re.sub(r"\(\?P<\w+>", "(?:", TAG_PATTERN.pattern) + r")"
    r"|(?P<target>\]\([^)\s]*(?:\s+\"[^\"]*\")?\)|\]\[[^\]\n]*\])"
    r"|(?P<url><https?://[^>\s]+>|https?://[^\s)\]]+)"
    r"|(?P<footnote>\[\^[^\]\n]+\])"
    r"|(?P<html></?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>)"
    r"|(?P<attr>\{\s*[:#.][^}\n]*\}|\{\s*[A-Za-z-]+=[^}\n]*\})",
    re.S,
)
_SCRIPT_NAME = r"`?(?P<{0}>[\w./-]+\.py)`?"
_SCRIPT_REF = (
    r"(?:\s+(?:of|in|from)\s+\[?" + _SCRIPT_NAME.format("script") + r"\]?(?:\([^)\s]*\))?"
    r"|\s*\(\[?" + _SCRIPT_NAME.format("script2") + r"\]?(?:\([^)\s]*\))?\))?"
)
CITATION = re.compile(
    r"(?<![\w-])outputs?\s+(?P<blocks>\[[0-9]+\](?:(?:\s*,\s*|\s*,?\s+and\s+|\s*&\s*|\s*[–-]\s*"
    r"|\s+to\s+)\[[0-9]+\])*)" + _SCRIPT_REF,
    re.I,
)
WAIVER_COMMENT = re.compile(r"<!--\s*claims:(?P<body>.*?)-->", re.S)
WAIVER_BODY = re.compile(
    r"^\s*waive\s+(?P<numbers>[^\"]+?)\s*(?:\"(?P<reason>[^\"]*)\")?\s*$", re.S)
SENTENCE_END = re.compile(r"[.!?][\"'”’)]*\s+(?=[A-Z0-9\\(\[“\"*_§$])")
ABBREVIATIONS = frozenset({
    "e.g", "i.e", "al", "app", "fig", "figs", "eq", "eqs", "p", "pp", "sec", "ch", "vs", "cf",
    "no", "approx", "resp", "ca", "tab", "ref", "refs", "vol", "ed", "eds", "etc", "incl",
})


@dataclass(frozen=True)
class Citation:
    script: str
    blocks: tuple[int, ...]
    line: int
    text: str

    def describe(self) -> str:
        if len(self.blocks) == 1:
            return f"output [{self.blocks[0]}] of {self.script}"
        listed = ", ".join(f"[{b}]" for b in self.blocks[:-1]) + f" and [{self.blocks[-1]}]"
        return f"outputs {listed} of {self.script}"


@dataclass(frozen=True)
class Occurrence:
    """A number found in prose, with its line and its absolute offset in the page text."""

    text: str
    value: Decimal | None
    line: int
    offset: int
    note: str = ""  # the skip rule, the waiver's reason, or the cited blocks


@dataclass(frozen=True)
class ClaimError:
    page: str
    line: int
    message: str
    number: str = ""

    def __str__(self) -> str:
        return f"{self.page}:{self.line}: {self.message}"


@dataclass
class PageReport:
    page: str
    checked: list[Occurrence] = field(default_factory=list)
    skipped: list[Occurrence] = field(default_factory=list)
    waived: list[Occurrence] = field(default_factory=list)
    uncited: list[Occurrence] = field(default_factory=list)
    errors: list[ClaimError] = field(default_factory=list)
    cited: set[tuple[str, int]] = field(default_factory=set)

    def summary(self) -> str:
        return (f"{self.page}: {len(self.checked)} checked, {len(self.skipped)} skipped by rule, "
                f"{len(self.waived)} waived, {len(self.uncited)} uncited, "
                f"{len(self.errors)} error{'s' if len(self.errors) != 1 else ''}")


@dataclass
class _Element:
    kind: str  # paragraph, item, row, heading, title
    start: int  # absolute offset of the element's first character
    text: str  # page text from start, with Markdown markers blanked (same length)
    line: int  # line of the first character
    strict: str  # heading of the fully-cited section it sits in, or ""
    group: int = -1  # list or table it belongs to
    header: tuple[str, ...] = ()  # a table row's column names
    waivers: list[_Waiver] = field(default_factory=list)
    cites: tuple[str, int] | None = None  # an erratum's evidence item: (script, block)


@dataclass
class _Waiver:
    values: list[Decimal]
    reason: str
    line: int
    used: set[Decimal] = field(default_factory=set)


def _blank_prefix(line: str, end: int) -> str:
    return " " * end + line[end:]


def _split_front_matter(text: str) -> tuple[dict, int]:
    """The front matter as a dict and the offset where the body starts."""
    match = FRONT_MATTER.match(text)
    if not match:
        return {}, 0
    try:
        data = yaml.safe_load(match.group("yaml") or "") or {}
    except yaml.YAMLError:
        data = {}
    return (data if isinstance(data, dict) else {}), match.end()


def _elements(text: str, body_start: int, page: str, errors: list[ClaimError]) -> list[_Element]:
    """Split the page body into paragraphs, list items, table rows, headings, admonition titles."""
    lines = text.split("\n")
    starts = []
    position = 0
    for line in lines:
        starts.append(position)
        position += len(line) + 1
    first_line = text.count("\n", 0, body_start)
    elements: list[_Element] = []
    current: _Element | None = None
    pending_waivers: list[_Waiver] = []
    open_fence = ""
    in_embed = False
    comment_open = -1  # line where a multi-line comment started
    strict_level, strict_title = 0, ""
    group = 0
    header: tuple[str, ...] = ()
    in_table = False

    def close() -> None:
        nonlocal current
        if current is not None:
            current.text = current.text.rstrip("\n")
            elements.append(current)
        current = None

    def start(kind: str, index: int, line: str, new_group: bool = False) -> _Element:
        nonlocal current, group, pending_waivers
        close()
        if new_group:
            group += 1
        current = _Element(kind, starts[index], line, index + 1, strict_title, group)
        current.waivers.extend(pending_waivers)
        pending_waivers = []
        return current

    index = first_line
    while index < len(lines):
        line = lines[index]
        stripped = line.strip()
        if comment_open >= 0:
            if "-->" in line:
                comment_text = "\n".join(lines[comment_open:index + 1])
                pending_waivers.extend(_parse_waivers(comment_text, comment_open + 1, page, errors))
                comment_open = -1
            index += 1
            continue
        if open_fence:
            fence = FENCE.match(line)
            if fence and fence.group("fence")[0] == open_fence[0] and len(
                    fence.group("fence")) >= len(open_fence) and not line.strip().strip(
                    open_fence[0]).strip():
                open_fence = ""
            index += 1
            continue
        if in_embed:
            if EMBED_END.search(line):
                in_embed = False
            index += 1
            continue
        if EMBED_START.search(line) and not EMBED_END.search(line):
            close()
            in_embed = True
            index += 1
            continue
        fence = FENCE.match(line)
        if fence:
            close()
            in_table = False
            open_fence = fence.group("fence")
            index += 1
            continue
        if not stripped:
            close()
            in_table = False
            index += 1
            continue
        if stripped.startswith("<!--"):
            if "-->" not in stripped:
                close()
                comment_open = index
                index += 1
                continue
            if stripped.endswith("-->") and stripped.index("-->") == len(stripped) - 3:
                close()
                pending_waivers.extend(_parse_waivers(stripped, index + 1, page, errors))
                index += 1
                continue
        quote = BLOCKQUOTE.match(line)
        if quote:
            line = _blank_prefix(line, quote.end())
        heading = HEADING.match(line)
        if heading:
            level = len(heading.group("marks"))
            if strict_level and level <= strict_level:
                strict_level, strict_title = 0, ""
            title = line[heading.end():].strip().rstrip("#").strip()
            if not strict_level and STRICT_SECTION.search(title):
                strict_level, strict_title = level, title
            start("heading", index, _blank_prefix(line, heading.end()))
            close()
            in_table = False
            index += 1
            continue
        admonition = ADMONITION.match(line)
        if admonition:
            title_text = admonition.group("title") or ""
            title_start = line.find('"' + title_text + '"') + 1 if admonition.group("title") \
                is not None else len(line)
            blanked = " " * title_start + title_text + " " * (len(line) - title_start - len(
                title_text))
            start("title", index, blanked)
            close()
            in_table = False
            index += 1
            continue
        next_line = lines[index + 1] if index + 1 < len(lines) else ""
        # As in Python-Markdown, a table or a list starts a block: after a blank line (or, for a
        # list item, inside a list); a line that only looks like one continues the paragraph.
        if "|" in line and TABLE_SEPARATOR.match(next_line) and not in_table and current is None:
            header = tuple(cell.strip() for cell in _cells(line))
            start("row", index, line, new_group=True)
            current.header = header
            close()
            in_table = True
            index += 2  # the separator row holds no prose
            continue
        if in_table and "|" in line:
            start("row", index, line)
            current.header = header
            close()
            index += 1
            continue
        in_table = False
        item = LIST_ITEM.match(line)
        if item and (current is None or current.kind == "item"):
            new_list = not (elements and elements[-1].kind == "item" and current is None
                            and elements[-1].group == group) and not (
                current is not None and current.kind == "item")
            start("item", index, _blank_prefix(line, item.end()), new_group=new_list)
            index += 1
            continue
        footnote = FOOTNOTE_DEF.match(line)
        if footnote:
            start("paragraph", index, _blank_prefix(line, footnote.end()))
            index += 1
            continue
        if current is None:
            start("paragraph", index, line)
        else:
            current.text += "\n" + line
        index += 1
    close()
    if pending_waivers:
        for waiver in pending_waivers:
            errors.append(ClaimError(page, waiver.line, "waiver is followed by no prose"))
    return elements


FRONT_MATTER_PROSE = ("title", "paper_says", "code_does", "problem", "consequences", "correction")
YAML_KEY = re.compile(r"^(?P<indent> *)(?P<dash>- +)?(?P<key>[A-Za-z_]+):(?: +(?P<rest>.*))?$")


def _front_matter_elements(text: str, body_start: int) -> list[_Element]:
    """The prose fields of an erratum's front matter, and each evidence item's `shows:`.

    Errata keep their prose in YAML (see explainer_tools/errata.py); it is rendered on the page,
    so it is checked like the body. An evidence item `{output: X.py, block: N, shows: ...}`
    written in block style cites block [N] of X.py for its `shows:` text.
    """
    lines = text[:body_start].split("\n")
    starts, position = [], 0
    for line in lines:
        starts.append(position)
        position += len(line) + 1
    elements: list[_Element] = []
    item: dict[str, str] = {}
    index = 1
    while index < len(lines) - 1:
        match = YAML_KEY.match(lines[index])
        if not match:
            index += 1
            continue
        indent = len(match.group("indent")) + len(match.group("dash") or "")
        if match.group("dash"):
            item = {}
        key, rest = match.group("key"), match.group("rest") or ""
        if key in ("output", "block"):
            item[key] = rest.strip().strip("'\"")
        prose = (key in FRONT_MATTER_PROSE and indent == 0) or key == "shows"
        end = index + 1
        while end < len(lines) - 1 and (not lines[end].strip() or len(lines[end]) - len(
                lines[end].lstrip(" ")) > indent):
            end += 1
        if prose:
            value_start = starts[index] + match.start("rest") if match.group("rest") else starts[
                index] + len(lines[index])
            if rest.strip() in (">", ">-", ">+", "|", "|-", "|+"):
                value_start = starts[index] + len(lines[index]) + 1
            value_end = starts[end - 1] + len(lines[end - 1])
            if value_end > value_start:
                element = _Element("paragraph", value_start, text[value_start:value_end],
                                   index + 1 + (1 if value_start > starts[index] + len(
                                       lines[index]) else 0), "")
                if key == "shows" and item.get("output") and item.get("block", "").isdigit():
                    element.cites = (item["output"].rsplit("/", 1)[-1], int(item["block"]))
                elements.append(element)
        index = end if prose else index + 1
    return elements


def _cells(row: str) -> list[str]:
    """The cells of a table row, splitting at pipes outside code and math."""
    masked = INLINE.sub(lambda m: " " * len(m.group()), row).replace("\\|", "  ")
    inner = masked.strip()
    lead = len(masked) - len(masked.lstrip())
    if inner.startswith("|"):
        lead += 1
        inner = inner[1:]
    if inner.endswith("|"):
        inner = inner[:-1]
    cells, position = [], lead
    for piece in inner.split("|"):
        cells.append(row[position:position + len(piece)])
        position += len(piece) + 1
    return cells


def _parse_waivers(comment: str, line: int, page: str, errors: list[ClaimError]) -> list[_Waiver]:
    waivers = []
    for match in WAIVER_COMMENT.finditer(comment):
        here = line + comment.count("\n", 0, match.start())
        body = WAIVER_BODY.match(match.group("body"))
        if not body:
            errors.append(ClaimError(page, here, f"malformed claims comment {match.group()!r}; "
                                     'write <!-- claims: waive NUMBER... "reason" -->'))
            continue
        reason = (body.group("reason") or "").strip()
        if not reason:
            errors.append(ClaimError(page, here, f"waiver of {body.group('numbers').strip()} has "
                                     'no reason; write <!-- claims: waive NUMBER "reason" -->'))
            continue
        try:
            values = [parse_number(word) for word in body.group("numbers").split()]
        except (ValueError, InvalidOperation):
            errors.append(ClaimError(page, here, f"waiver lists something that is not a number: "
                                     f"{body.group('numbers').strip()!r}"))
            continue
        waivers.append(_Waiver(values, reason, here))
    return waivers


def _segments(text: str) -> list[tuple[str, int, int]]:
    """Inline pieces of an element: (kind, start, end); kind is prose, math, code, tag, ..."""
    pieces: list[tuple[str, int, int]] = []
    position = 0
    for match in INLINE.finditer(text):
        if match.start() > position:
            pieces.append(("prose", position, match.start()))
        kind = next(name for name in ("code", "comment", "math", "tag", "target", "url",
                                      "footnote", "html", "attr") if match.group(name) is not None)
        pieces.append((kind, match.start(), match.end()))
        position = match.end()
    if position < len(text):
        pieces.append(("prose", position, len(text)))
    return pieces


def _math_body(text: str, start: int, end: int) -> tuple[int, int]:
    """The inside of a math piece, without its delimiters."""
    for opening, closing in (("\\(", "\\)"), ("\\[", "\\]"), ("$$", "$$"), ("$", "$")):
        if text.startswith(opening, start) and text.endswith(closing, start, end):
            return start + len(opening), end - len(closing)
    return start, end


def _sentences(text: str, pieces: list[tuple[str, int, int]]) -> list[tuple[int, int]]:
    """Sentence spans of a paragraph; a boundary must lie in prose, not in math or code."""
    prose = [(s, e) for kind, s, e in pieces if kind == "prose"]
    cuts = [0]
    for match in SENTENCE_END.finditer(text):
        stop = match.start()
        if not any(s <= stop < e for s, e in prose):
            continue
        word = re.search(r"([\w.]+)$", text[:stop])
        if word and (word.group(1).lower().rstrip(".") in ABBREVIATIONS
                     or re.fullmatch(r"[A-Z]", word.group(1))):
            continue
        cuts.append(match.end())
    cuts.append(len(text))
    return [(a, b) for a, b in itertools.pairwise(cuts) if text[a:b].strip()]


# ---------------------------------------------------------------------------------------------
# Checking a page
# ---------------------------------------------------------------------------------------------


@dataclass
class _Unit:
    element: _Element
    start: int  # relative to the element
    end: int
    numbers: list[Token]  # offsets relative to the element
    citations: list[Citation]


def _closest(value: Decimal, candidates: list[tuple[Token, int]]) -> tuple[Token, int]:
    def distance(item: tuple[Token, int]) -> float:
        other = item[0].value
        assert other is not None
        scale = max(abs(float(value)), abs(float(other)), 1e-300)
        return abs(float(value) - float(other)) / scale

    return min(candidates, key=distance)


def near_miss(token: Token, candidates: list[Token]) -> tuple[Token, str] | None:
    """The closest printed number and how close it is ('' when it is not a near miss).

    >>> t = scan_numbers("15.67")[0]
    >>> closest, kind = near_miss(t, scan_numbers("15.666 and 3", "block"))
    >>> closest.text, kind
    ('15.666', 'rounded: the block prints 15.666, quote its digits')
    """
    value = token.value
    assert value is not None
    if not candidates:
        return None
    for candidate in candidates:
        other = candidate.value
        assert other is not None
        if other != value and other.as_tuple().exponent < value.as_tuple().exponent:
            quantum = Decimal(1).scaleb(value.as_tuple().exponent)
            if value in (other.quantize(quantum, ROUND_HALF_UP),
                         other.quantize(quantum, ROUND_HALF_EVEN)):
                return candidate, f"rounded: the block prints {candidate.text}, quote its digits"
    for candidate in candidates:
        if candidate.value == -value:
            return candidate, "differs only in sign"
    closest, _ = _closest(value, [(c, 0) for c in candidates])
    other = closest.value
    assert other is not None
    a, b = _plain_digits(token.text), _plain_digits(closest.text)
    if len(a) == len(b) and sum(x != y for x, y in zip(a, b, strict=True)) == 1:
        return closest, "one digit differs"
    if abs(float(value) - float(other)) <= 0.01 * max(abs(float(value)), abs(float(other))):
        return closest, "within 1 %"
    return closest, ""


def _plain_digits(text: str) -> str:
    return re.sub(r"[^0-9.]", "", text.replace("{,}", ""))


def _resolve(match: re.Match[str], line: int, page: str, scripts: list[str], last: list[str],
             outputs: Outputs, errors: list[ClaimError]) -> Citation | None:
    numbers: list[int] = []
    block_list = match.group("blocks")
    for part in re.finditer(r"\[([0-9]+)\](?:\s*(?:[–-]|to)\s*\[([0-9]+)\])?", block_list):
        low = int(part.group(1))
        high = int(part.group(2)) if part.group(2) else low
        numbers.extend(range(low, high + 1))
    named = match.group("script") or match.group("script2")
    if named:
        script = named.rsplit("/", 1)[-1]
        last[:] = [script]
    elif last:
        script = last[0]
    elif len(scripts) == 1:
        script = scripts[0]
    else:
        errors.append(ClaimError(page, line, f"{match.group().strip()!r} names no script: write "
                                 "'output [N] of script.py' once earlier on the page, or declare "
                                 "exactly one script in the front matter (scripts: [...])"))
        return None
    blocks = outputs.blocks(script)
    if blocks is None:
        errors.append(ClaimError(page, line, f"{match.group().strip()!r} cites an unknown script "
                                 f"{script}: there is no outputs/{script.removesuffix('.py')}.txt"))
        return None
    missing = [n for n in numbers if n not in blocks]
    if missing:
        known = ", ".join(f"[{n}]" for n in sorted(blocks)) or "none"
        errors.append(ClaimError(page, line, f"{match.group().strip()!r} cites block "
                                 f"[{missing[0]}] of {script}, which prints blocks {known}"))
        return None
    return Citation(script, tuple(numbers), line, match.group().strip())


def check_page(text: str, page: str, outputs: Outputs) -> PageReport:
    """Check one page's prose against the outputs; pure apart from reading `outputs`."""
    report = PageReport(page)
    errors = report.errors
    front, body_start = _split_front_matter(text)
    declared = front.get("scripts") or []
    if isinstance(declared, str):
        declared = [declared]
    scripts = [str(s).rsplit("/", 1)[-1] for s in declared]
    for script in scripts:
        if outputs.blocks(script) is None:
            errors.append(ClaimError(page, 1, f"front matter declares {script}, which has no "
                                     f"outputs/{script.removesuffix('.py')}.txt"))
    elements = _front_matter_elements(text, body_start) + _elements(text, body_start, page,
                                                                     errors)
    last_script: list[str] = []
    units: list[_Unit] = []
    for element in elements:
        pieces, tokens, matches, spans = _analyse(element.text, element.kind == "paragraph"
                                                  and element.cites is None)
        for kind, s, e in pieces:
            if kind == "comment":
                line = element.line + element.text.count("\n", 0, s)
                element.waivers.extend(_parse_waivers(element.text[s:e], line, page, errors))
        citations: list[tuple[int, Citation]] = []
        for match in matches:
            line = element.line + element.text.count("\n", 0, match.start())
            citation = _resolve(match, line, page, scripts, last_script, outputs, errors)
            if citation is not None:
                citations.append((match.start(), citation))
                report.cited.update((citation.script, b) for b in citation.blocks)
        if element.cites is not None:
            script, number = element.cites
            blocks = outputs.blocks(script)
            if blocks is None or number not in blocks:
                errors.append(ClaimError(page, element.line, f"evidence cites block [{number}] of "
                                         f"{script}, which does not exist"))
            else:
                citation = Citation(script, (number,), element.line, "evidence item")
                citations.insert(0, (0, citation))
                report.cited.add((script, number))
        for a, b in spans:
            cited_here = [c for position, c in citations if a <= position < b]
            unique = list({(c.script, c.blocks): c for c in cited_here}.values())
            units.append(_Unit(element, a, b, [t for t in tokens if a <= t.start < b], unique))
    _inherit_citations(elements, units)
    for unit in units:
        _check_unit(unit, page, outputs, report)
    for element in elements:
        for waiver in element.waivers:
            for value in waiver.values:
                if value not in waiver.used:
                    errors.append(ClaimError(page, waiver.line, f"waiver of {value} matches no "
                                             "number in the prose it covers"))
    report.errors.sort(key=lambda error: error.line)
    return report


@functools.lru_cache(maxsize=8192)
def _analyse(text: str, paragraph: bool) -> tuple[
        tuple[tuple[str, int, int], ...], tuple[Token, ...], tuple[re.Match[str], ...],
        tuple[tuple[int, int], ...]]:
    """What an element's text holds: inline pieces, numbers, citations, sentence spans.

    Depends on the text alone, so it is cached: a page checked again after a one-character edit
    (the mutation test) re-analyses only the element that changed.
    """
    pieces = _segments(text)
    tokens: list[Token] = []
    for kind, s, e in pieces:
        if kind == "prose":
            tokens += scan_numbers(text[s:e], "prose", text, s)
        elif kind == "math":
            inner_start, inner_end = _math_body(text, s, e)
            tokens += scan_numbers(text[inner_start:inner_end], "math", text, inner_start)
        elif kind in ("code", "tag"):
            reason = "inline code" if kind == "code" else "provenance tag"
            for digits in re.finditer(r"[0-9]+(?:[.,][0-9]+)*", text[s:e]):
                tokens.append(Token(digits.group(), None, s + digits.start(), s + digits.end(),
                                    reason))
    matches = tuple(match for match in CITATION.finditer(text)
                    if any(kind == "prose" and s <= match.start() < e for kind, s, e in pieces))
    if paragraph:
        spans = _merge_citation_only(text, _sentences(text, pieces),
                                     [match.start() for match in matches])
    else:
        spans = [(0, len(text))]
    return tuple(pieces), tuple(tokens), matches, tuple(spans)


def _merge_citation_only(text: str, spans: list[tuple[int, int]],
                         citations: list[int]) -> list[tuple[int, int]]:
    """A 'sentence' that is nothing but a citation, "(Output [3].)", belongs to the one before."""
    merged: list[tuple[int, int]] = []
    for a, b in spans:
        rest = CITATION.sub("", text[a:b])
        if merged and any(a <= p < b for p in citations) and not re.search(r"[A-Za-z0-9]", rest):
            merged[-1] = (merged[-1][0], b)
        else:
            merged.append((a, b))
    return merged


def _inherit_citations(elements: list[_Element], units: list[_Unit]) -> None:
    """Rows and items take the citations of their table's or list's introducing sentence."""
    by_element: dict[int, list[_Unit]] = {}
    for unit in units:
        by_element.setdefault(id(unit.element), []).append(unit)
    previous: _Element | None = None
    inherited: dict[int, list[Citation]] = {}
    for position, element in enumerate(elements):
        first_of_group = element.kind in ("row", "item") and (
            previous is None or previous.kind != element.kind or previous.group != element.group)
        if first_of_group and previous is not None and previous.kind == "paragraph":
            intro = by_element[id(previous)][-1]
            ends_with_colon = element.kind == "row" or previous.text.rstrip().endswith(":")
            if intro.citations and ends_with_colon:
                inherited[element.group] = intro.citations
        if element.kind == "row" and (
                position + 1 == len(elements) or elements[position + 1].kind != "row"
                or elements[position + 1].group != element.group) and position + 1 < len(elements):
            caption = elements[position + 1]
            if caption.kind == "paragraph" and CAPTION_START.match(caption.text):
                cited = [c for u in by_element[id(caption)] for c in u.citations]
                if cited:
                    inherited.setdefault(element.group, cited)
        previous = element
    for unit in units:
        if unit.element.kind in ("row", "item") and not unit.citations:
            unit.citations = list(inherited.get(unit.element.group, []))


def _check_unit(unit: _Unit, page: str, outputs: Outputs, report: PageReport) -> None:
    element = unit.element
    candidates: list[tuple[Token, Citation, int]] = []
    for citation in unit.citations:
        for number in citation.blocks:
            printed_here = outputs.values(citation.script, number)
            candidates.extend((t, citation, number) for t in printed_here)
    printed = {t.value for t, _, _ in candidates}
    for token in unit.numbers:
        line = element.line + element.text.count("\n", 0, token.start)
        occurrence = Occurrence(token.text, token.value, line, element.start + token.start,
                                token.skip)
        if token.value is None:
            report.skipped.append(occurrence)
            continue
        waiver = next((w for w in element.waivers if token.value in w.values), None)
        if waiver is not None:
            waiver.used.add(token.value)
            report.waived.append(Occurrence(token.text, token.value, line, occurrence.offset,
                                            waiver.reason))
            continue
        if not unit.citations:
            report.uncited.append(occurrence)
            if element.strict:
                report.errors.append(ClaimError(
                    page, line, f"{token.text} is uncited in the section {element.strict!r}, where "
                    "every number must cite the output block that prints it (or carry a waiver "
                    "<!-- claims: waive N \"reason\" -->)", token.text))
            continue
        cited = "; ".join(c.describe() for c in unit.citations)
        report.checked.append(Occurrence(token.text, token.value, line, occurrence.offset, cited))
        if token.value in printed:
            continue
        message = f"{token.text} is not printed in {cited}"
        if element.kind == "row" and element.header:
            column = _column_of(element, token.start)
            if column:
                message += f" (table column {column!r})"
        miss = near_miss(token, [t for t, _, _ in candidates])
        if miss is not None:
            closest, kind = miss
            where = next(f"[{n}] of {c.script}" for t, c, n in candidates if t is closest)
            message += f"; closest there: {closest.text} in {where}"
            message += f" (near miss: {kind})" if kind else ""
        report.errors.append(ClaimError(page, line, message, token.text))


def _column_of(element: _Element, position: int) -> str:
    line_start = element.text.rfind("\n", 0, position) + 1
    offset = 0
    row = element.text[line_start:].split("\n", 1)[0]
    for index, cell in enumerate(_cells(row)):
        offset = row.find(cell, offset)
        if offset <= position - line_start < offset + len(cell):
            return element.header[index] if index < len(element.header) else ""
        offset += len(cell)
    return ""


# ---------------------------------------------------------------------------------------------
# The whole site
# ---------------------------------------------------------------------------------------------


@dataclass
class SiteReport:
    pages: list[PageReport]
    uncited_blocks: list[tuple[str, int]]
    errors: list[ClaimError]
    seconds: float


def pages_under(docs: Path) -> list[Path]:
    return sorted(path for path in docs.rglob("*.md") if "fixtures" not in path.relative_to(
        docs).parts)


def _display_name(path: Path, root: Path) -> str:
    for candidate, base in ((path, root), (path.absolute(), root.absolute()),
                            (path.resolve(), root.resolve())):
        if candidate.is_relative_to(base):
            return candidate.relative_to(base).as_posix()
    return str(path)


def check_site(root: Path = REPO_ROOT, pages: Iterable[Path] | None = None) -> SiteReport:
    began = time.perf_counter()
    outputs = Outputs.from_dir(root / "outputs")
    errors: list[ClaimError] = []
    for script in outputs.scripts:
        try:
            outputs.blocks(script)
        except BlockError as error:
            errors.append(ClaimError(f"outputs/{script.removesuffix('.py')}.txt", 0, str(error)))
    reports = []
    for path in pages if pages is not None else pages_under(root / "docs"):
        name = _display_name(path, root)
        report = check_page(path.read_text(encoding="utf-8"), name, outputs)
        reports.append(report)
        errors.extend(report.errors)
    cited = set().union(*(r.cited for r in reports)) if reports else set()
    uncited_blocks = []
    for script in outputs.scripts:
        try:
            numbers = sorted(outputs.blocks(script) or {})
        except BlockError:
            continue
        uncited_blocks.extend((script, n) for n in numbers if (script, n) not in cited)
    return SiteReport(reports, uncited_blocks, errors, time.perf_counter() - began)


def _by_line(occurrences: list[Occurrence], with_note: bool = False) -> Iterator[str]:
    lines: dict[int, list[str]] = {}
    for occurrence in occurrences:
        shown = occurrence.text + (f" ({occurrence.note})" if with_note else "")
        lines.setdefault(occurrence.line, []).append(shown)
    for line, shown in sorted(lines.items()):
        yield f"line {line}: {', '.join(shown)}"


def format_report(site: SiteReport, verbose: bool = False, quiet: bool = False) -> str:
    """The per-page report; `quiet` keeps the page summaries, errors and totals only."""
    out: list[str] = []
    for report in site.pages:
        out.append(report.summary())
        if report.uncited and not quiet:
            out.extend("    uncited, " + text for text in _by_line(report.uncited))
        if verbose:
            out.extend("    skipped, " + text for text in _by_line(report.skipped, True))
            out.extend("    waived, " + text for text in _by_line(report.waived, True))
    by_script: dict[str, list[int]] = {}
    for script, number in site.uncited_blocks:
        by_script.setdefault(script, []).append(number)
    if by_script:
        out.append("blocks no page cites: " + "; ".join(
            f"{script} " + " ".join(f"[{n}]" for n in numbers)
            for script, numbers in sorted(by_script.items())))
    else:
        out.append("blocks no page cites: none")
    if site.errors:
        out.append("")
        out.extend(f"error: {error}" for error in site.errors)
    checked = sum(len(r.checked) for r in site.pages)
    out.append(f"claims: {len(site.pages)} pages, {checked} numbers checked, "
               f"{len(site.errors)} error{'s' if len(site.errors) != 1 else ''} "
               f"({site.seconds:.2f} s)")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m explainer_tools.claims",
                                     description=__doc__.split("\n", 1)[0])
    parser.add_argument("pages", nargs="*", type=Path, help="pages to check (default: all)")
    parser.add_argument("--root", type=Path, default=REPO_ROOT, help="repository root")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="also list skipped and waived numbers with their rule or reason")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="only page summaries, errors and totals (used by make check)")
    args = parser.parse_args(argv)
    site = check_site(args.root, args.pages or None)
    print(format_report(site, args.verbose, args.quiet))
    return 1 if site.errors else 0


if __name__ == "__main__":
    sys.exit(main())
