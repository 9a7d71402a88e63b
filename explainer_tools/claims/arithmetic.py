"""Three rules on how numbers stand together: plain arithmetic in math must hold up to rounding,
a bracketed list must be printed as a list (not in another order, not mixed with another), and
two numbers joined by a bare connective ("4.541 against 3.935") must stand in the order their
output line prints them."""

from __future__ import annotations

import ast
import itertools
import re
from collections.abc import Iterable
from decimal import Decimal

from explainer_tools.claims.model import ClaimError, PageReport
from explainer_tools.claims.numbers import (
    Token,
)
from explainer_tools.claims.outputs import Outputs
from explainer_tools.claims.page import (
    _Unit,
)

# ---------------------------------------------------------------------------------------------
# The arithmetic rule
# ---------------------------------------------------------------------------------------------

_LATEX_OPERATORS = ((r"\times", "*"), (r"\cdot", "*"), ("×", "*"), ("−", "-"), ("{,}", ""),
                    (r"\,", ""), (r"\left", ""), (r"\right", ""), ("{", "("), ("}", ")"))
_FRAC = re.compile(r"\\frac\s*\{([^{}]*)\}\s*\{([^{}]*)\}")
_EXPRESSION = re.compile(r"^[0-9.+\-*/() ]+$")


def _evaluate(side: str) -> tuple[float, float] | None:
    """The value of one side of an equation written with numbers and + - × / (LaTeX or
    plain), and how far rounding of its written numbers may move it; None when it holds
    anything else (a symbol, a function, a power)."""
    side = _FRAC.sub(r"(\1)/(\2)", side)
    for latex, python in _LATEX_OPERATORS:
        side = side.replace(latex, python)
    side = side.strip()
    if not side or not _EXPRESSION.match(side) or not re.search(r"[0-9]", side):
        return None
    numbers = re.findall(r"[0-9]+(?:\.[0-9]+)?", side)
    try:
        tree = ast.parse(side, mode="eval")
    except SyntaxError:
        return None
    try:
        value = _arithmetic(tree.body)
    except (ValueError, ZeroDivisionError, OverflowError):
        return None
    half_units = [0.5 * 10 ** -len(n.split(".")[1]) if "." in n else 0.0 for n in numbers]
    magnitude = max(abs(float(n)) for n in numbers) or 1.0
    slack = sum(half_units) * (magnitude if "*" in side or "/" in side else 1.0)
    return value, slack


_OPERATIONS = {ast.Add: float.__add__, ast.Sub: float.__sub__, ast.Mult: float.__mul__,
               ast.Div: float.__truediv__}


def _arithmetic(node: ast.expr) -> float:
    """The value of a parsed expression of numbers and + - * /; ValueError for anything else."""
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return float(node.value)
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub | ast.UAdd):
        value = _arithmetic(node.operand)
        return -value if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp) and type(node.op) in _OPERATIONS:
        return _OPERATIONS[type(node.op)](_arithmetic(node.left), _arithmetic(node.right))
    raise ValueError(ast.dump(node))


def check_arithmetic(math: str) -> str:
    """An equation in math whose sides are plain arithmetic must hold, up to the rounding of
    its written numbers (`5.0000+1.0285+0.1912=6.2197`); swapping a term with the result
    breaks it. Returns the message, or "" when it holds or is not plain arithmetic.

    >>> check_arithmetic("5.0000+1.0285+0.1912=6.2197")
    ''
    >>> check_arithmetic("5.0000+1.0285+6.2197=0.1912")[:40]
    '5.0000+1.0285+6.2197 = 0.1912 does not h'
    """
    if re.search(r"\\(?:approx|sim|simeq|leq?|geq?|lt|gt)\b|[<>≈]", math):
        return ""
    sides = math.split("=")
    for left, right in itertools.pairwise(sides):
        a, b = _evaluate(left), _evaluate(right)
        if a is None or b is None:
            continue
        (x, slack_x), (y, slack_y) = a, b
        if abs(x - y) > slack_x + slack_y + 1e-9 * max(abs(x), abs(y), 1.0):
            return (f"{left.strip()} = {right.strip()} does not hold: the left side is "
                    f"{x:.6g}, the right {y:.6g} (swapped numbers?)")
    return ""


# ---------------------------------------------------------------------------------------------
# The tuple rule
# ---------------------------------------------------------------------------------------------

_NUMBER_TEXT = r"[-−+]?[0-9][0-9.]*(?:\{,\}[0-9]+)*"
TUPLE = re.compile(r"\(\s*" + _NUMBER_TEXT + r"(?:\s*,\s*" + _NUMBER_TEXT + r")+\s*\)")


def _tuples(text: str, tokens: Iterable[Token]) -> list[tuple[int, list[Decimal]]]:
    """The parenthesised lists of two or more numbers in `text` ("(2, 1, 0.1, -1)"): where
    each starts, and its values in order (from `tokens`, the numbers scanned in `text`)."""
    found = []
    tokens = [t for t in tokens if t.value is not None]
    for match in TUPLE.finditer(text):
        inside = [t.value for t in tokens if match.start() < t.start < match.end()]
        if len(inside) >= 2:
            found.append((match.start(), inside))
    return found


def check_tuples(unit: _Unit, page: str, outputs: Outputs, report: PageReport) -> None:
    """The tuple rule, against numbers swapped inside a list: a parenthesised list
    of two numbers or more in prose that the cited block(s) print as no list, while they print
    the same numbers as a list in another order, or lists as long holding some of its numbers,
    has numbers swapped (from another place of it or another list)."""
    text = unit.element.text
    mine = [(start, values) for start, values in _tuples(text, unit.numbers)
            if unit.start <= start < unit.end]
    if not mine:
        return
    printed: list[tuple[list[Decimal], str]] = []
    for key in dict.fromkeys((c.script, n) for c in unit.citations for n in c.blocks):
        for line_text, _words, numbers in outputs.line_words(*key):
            printed.extend((values, line_text) for _s, values in _tuples(line_text, numbers))
    for start, values in mine:
        if any(other == values for other, _line in printed):
            continue
        reordered = [line for other, line in printed if sorted(other) == sorted(values)]
        alike = [line for other, line in printed if len(other) == len(values) and set(
            other) & set(values)]
        if reordered or alike:
            line = unit.element.line + text.count("\n", 0, start)
            how = "only in another order" if reordered else "as no list; lists like it"
            report.errors.append(ClaimError(page, line, (
                f"the list ({', '.join(map(str, values))}) is printed {how}: "
                f"{(reordered or alike)[0].strip()!r} (swapped numbers?)")))


# what may stand between two numbers that the words around them do not tell apart: a unit,
# punctuation, math delimiters and one connective ("4.927 against 4.228", "3.850 bits and
# 5.479", "4.775 ± 0.008", "10 to 100"); a clause mark (";", ":") or any other word ends the pair
_GAP = r"(?:\s|\\[()]|[{}])*"
_UNIT = r"(?:(?:bits?|nats?|\\?%)" + _GAP + ")?"
CONNECTIVE = re.compile(_GAP + _UNIT + r",?" + _GAP + r"(?:(?:and|against|versus|vs\.|or|to|±|"
                        r"\\pm|\+-|/|=|\+)" + _GAP + ")?")
# "0.0612 at N = 400": a value, then the setting it was found at, which the output prints first
AT_SETTING = re.compile(_GAP + _UNIT + r"at" + _GAP + r"(?:\\?[A-Za-z]+"
                        r"(?:_\{?[A-Za-z0-9]+\}?)?" + _GAP + "=" + _GAP + ")?")
# ranges and changes: "between 2 and 3", "from 6.5606 to 6.5585" read in their own order
_RANGE_BEFORE = re.compile(r"(?:\bbetween|\bfrom)" + _GAP + "$")


def _expected_order(between: str, before: str) -> int:
    """How two numbers joined by `between` must stand on their output line: 1 in the line's
    order (a bare connective), -1 in the other (a value "at" its setting), 0 either."""
    if _RANGE_BEFORE.search(before):
        return 0
    if CONNECTIVE.fullmatch(between):
        return 1
    return -1 if AT_SETTING.fullmatch(between) else 0


def check_connected_order(unit: _Unit, page: str, outputs: Outputs, report: PageReport) -> None:
    """The connective order rule, against numbers swapped in a sentence. Two
    neighbouring numbers of one sentence or list item, joined by nothing but a bare connective
    (`CONNECTIVE`), must stand in the order of a line of their cited block(s) that prints them
    both (`_against_order`): the words do not say which is which, so the reader can only take
    them in the output's order. A value "at" its setting ("0.0612 at N = 400") stands in the
    other order, as outputs print the setting first (unless the output writes "at" between them
    too). A range or change ("between a and b", "from a to b") is exempt."""
    element = unit.element
    if element.kind == "row":
        return
    text = element.text
    flagged = {(e.line, e.number) for e in report.errors}
    numbers = [t for t in unit.numbers if unit.start <= t.start < unit.end]
    for a, b in itertools.pairwise(numbers):
        if a.value is None or b.value is None or a.value == b.value or any(
                t.value in w.values for w in element.waivers for t in (a, b)):
            continue
        order = _expected_order(text[a.end:b.start], text[max(0, a.start - 12):a.start])
        if not order:
            continue
        # a word or '±' joins quoted numbers; an operator or a comma may join parts of a
        # formula or a list of fractions, so there only numbers printed once count
        once = not re.search(r"[A-Za-z±]|\\pm|\+-", text[a.end:b.start].replace("bit", ""))
        printed = _against_order(unit, a, b, order, outputs, once)
        line = element.line + text.count("\n", 0, b.start)
        if printed is None or (line, b.text) in flagged:
            continue
        script, number, printed = printed
        joined = text[a.end:b.start].strip()
        report.errors.append(ClaimError(page, line, (
            f"{a.text} and {b.text} are joined by {joined!r} alone, so only their order says "
            f"which is which, and [{number}] of {script} prints them "
            f"{'in the other order' if order > 0 else 'in this order, the setting last'}: "
            f"{printed.strip()!r} (swapped numbers? if not, say which is which)"), b.text))


def _against_order(unit: _Unit, a: Token, b: Token, order: int, outputs: Outputs,
                   once: bool) -> tuple[str, int, str] | None:
    """Where the cited block(s) print `a` and `b` against `order` (1: b after a; -1: b before
    a, unless the line writes "at" between them), on a line that prints each once: (script,
    block, that line); None when some line prints them in that order, or none prints both,
    and with `once`, unless the cited block(s) print each of them exactly once."""
    against = None
    keys = list(dict.fromkeys((c.script, n) for c in unit.citations for n in c.blocks))
    if once and any(sum(1 for key in keys for t in outputs.values(*key) if t.value == v) != 1
                    for v in (a.value, b.value)):
        return None
    for key in keys:
        for line_text, _words, printed in outputs.line_words(*key):
            starts = [t.start for t in printed if t.value == a.value]
            ends = [t.start for t in printed if t.value == b.value]
            for p, q in itertools.product(starts, ends):
                if (q - p) * order > 0 or (order < 0 and re.search(
                        r"\bat\b", line_text[min(p, q):max(p, q)])):
                    return None
            if len(starts) == 1 and len(ends) == 1:
                against = against or (key[0], key[1], line_text)
    return against
