"""Two rules that need no output line: plain arithmetic in math must hold up to rounding, and a
bracketed list must not be printed only in another order."""

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
TUPLE = re.compile(r"\(\s*" + _NUMBER_TEXT + r"(?:\s*,\s*" + _NUMBER_TEXT + r"){2,}\s*\)")


def _tuples(text: str, tokens: Iterable[Token]) -> list[tuple[int, list[Decimal]]]:
    """The parenthesised lists of three or more numbers in `text` ("(2, 1, 0.1, -1)"): where
    each starts, and its values in order (from `tokens`, the numbers scanned in `text`)."""
    found = []
    tokens = [t for t in tokens if t.value is not None]
    for match in TUPLE.finditer(text):
        inside = [t.value for t in tokens if match.start() < t.start < match.end()]
        if len(inside) >= 3:
            found.append((match.start(), inside))
    return found


def check_tuples(unit: _Unit, page: str, outputs: Outputs, report: PageReport) -> None:
    """The tuple rule, against numbers swapped inside a list (issue 31): a parenthesised list
    of numbers in prose that the cited block(s) print only in another order, as a list of the
    same numbers, has two of them swapped."""
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
        if reordered:
            line = unit.element.line + text.count("\n", 0, start)
            report.errors.append(ClaimError(page, line, (
                f"the list ({', '.join(map(str, values))}) is printed only in another order: "
                f"{reordered[0].strip()!r} (swapped numbers?)")))
