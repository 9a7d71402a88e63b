"""The number lexer of the claim check: every number in a piece of prose, math or script output,
with its value and where it is, and the skip rules (references, years, identifiers, exponents).
See the package docstring for the rules."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from decimal import ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal

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

# Words that also begin ordinary phrases ("the table 69", "Occam part 1.0285", "at step 301,000"):
# a reference only with a capital (Table 2, Part 1, Step 3, Chapter 7). ("line 629"
# stays a reference in either case: the book cites source lines in lower case.)
_REF_SINGULAR = (
    r"ch\.|section|sec\.|§|fig\.|eq\.|appendix|app\.|"
    r"page|p\.|question|exercise|footnote|line|theorem|lemma|definition|proposition|"
    r"corollary|example|algorithm|arxiv|version|python|pytorch|torch|numpy|"
    r"(?-i:Chapter|Figure|Equation|Step|Table|Tab\.|Part)"
)
_REF_PLURAL = (
    r"sections|§§|figs\.|eqs\.|appendices|pages|pp\.|"
    r"questions|exercises|footnotes|lines|theorems|lemmas|examples|"
    r"(?-i:Chapters|Figures|Equations|Steps|Tables|Parts)"
)
_REF_ITEM = r"(?:[A-Z]?[0-9]+(?:\.[0-9]+)*[a-z]?|[A-Z])"
_REF_LINK = r"(?:\s*,\s*|\s+and\s+|\s+or\s+|\s*&\s*|\s*[–-]\s*|\s+to\s+)"
REFERENCE_BEFORE = re.compile(
    r"(?:(?<![A-Za-z])(?:" + _REF_PLURAL + r")\s*(?:" + _REF_ITEM + _REF_LINK + r")*"
    r"|(?<![A-Za-z])(?:" + _REF_SINGULAR + r")\s*(?:" + _REF_ITEM + r"\s*[–-]\s*)?)$",
    re.I,
)
REFERENCE_HINT = re.compile(r"(?i:chap|ch\.|sec|§|fig|tab|eq|app|p\.|page|step|part|quest|exerc|"
                            r"footn|line|theor|lemma|defin|propos|corol|exampl|algor|arxiv|versi|"
                            r"python|torch|numpy)")
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
    >>> parse_number("10^6")
    Decimal('1E+6')
    """
    mode = "math" if "^" in text or "\\times" in text else "block"  # 10^6, 1.8\times10^{-7}
    values = [t.value for t in scan_numbers(text, mode) if t.value is not None]
    if len(values) != 1:
        raise ValueError(f"not one number: {text!r}")
    return values[0]


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
