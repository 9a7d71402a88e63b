"""The pairing rule against swapped numbers: two numbers joined by a connector alone
state one fact, which an output prints on one line. With `_printed_once`, where a cited block
prints a value when it prints it exactly once, which the swap rules share."""

from __future__ import annotations

import itertools
import re

from explainer_tools.claims.numbers import Token
from explainer_tools.claims.outputs import Outputs
from explainer_tools.claims.page import _Unit


def _printed_once(unit: _Unit, token: Token, outputs: Outputs) -> tuple[str, int, int, int] | None:
    """Where the cited block(s) print `token`'s value, when they print it exactly once:
    (script, block, line index in the block, offset in the block), else None."""
    found = []
    for citation in unit.citations:
        for number in citation.blocks:
            for printed in outputs.values(citation.script, number):
                if printed.value == token.value:
                    found.append((citation.script, number, printed))
    if len(found) != 1:
        return None
    script, number, printed = found[0]
    text = (outputs.blocks(script) or {})[number].text
    return script, number, text.count("\n", 0, printed.start), printed.start


def _lines_printing(unit: _Unit, token: Token, outputs: Outputs) -> set[tuple[str, int, int]]:
    """The lines of the cited block(s) that print `token`'s value: (script, block, line index)
    each."""
    return {(citation.script, number, index) for citation in unit.citations
            for number in citation.blocks
            for index, (_text, _words, printed) in enumerate(
                outputs.line_words(citation.script, number))
            if any(t.value == token.value for t in printed)}


_PAIR_GAP = r"(?:\s|\\[()]|[{}])*"
# a connector that makes two numbers one fact ("0.04583 at 100", "3 bits for 1/8", "costs",
# "N = 8"), optionally followed by the symbol the second is assigned to ("at \(N\) = 100")
PAIRING = re.compile(_PAIR_GAP + r"(?:at|for|with|of|costs|=|is|gives|in|on|over|per|holds|has|"
                     r"by|from|needs|takes|pays|becomes|reaches|scores|are|was|means)"
                     + _PAIR_GAP + r"(?:\\?[A-Za-z][A-Za-z0-9]*(?:_\{?[A-Za-z0-9]+\}?)?"
                     + _PAIR_GAP + "=" + _PAIR_GAP + ")?")


# an operator right before a number: it ends an expression ("1.000 / 5.113 = 0.196"), whose
# result is no fact about it alone
OPERAND = re.compile(r"(?:[/*×+−-]|\\times|\\cdot)\s*$")


def _paired_apart(unit: _Unit, outputs: Outputs, flagged: set[tuple[int, str]]
                  ) -> list[tuple[int, Token, str]]:
    """The pairing rule, against numbers swapped in a sentence. Two neighbouring
    numbers joined by a connector alone (`PAIRING`: "0.04583 at 100", "1/8 costs 3") state one
    fact, which an output prints on one line; when the cited block(s) print each exactly once,
    on two lines, one of them was swapped in from elsewhere: (its page line, the second
    number, the message) each. A block's first line is left out: it prints the settings every
    other line shares ("13 of 1,500 cases" pairs a line's count with the title's)."""
    element = unit.element
    text = element.text
    numbers = [t for t in unit.numbers if t.value is not None and not any(
        t.value in w.values for w in element.waivers)]
    errors = []
    for a, b in itertools.pairwise(numbers):
        line = element.line + text.count("\n", 0, b.start)
        if a.value == b.value or (line, b.text) in flagged or not PAIRING.fullmatch(
                text[a.end:b.start]) or OPERAND.search(text[unit.start:a.start]):
            continue
        lines_a, lines_b = _lines_printing(unit, a, outputs), _lines_printing(unit, b, outputs)
        if not lines_a or not lines_b or lines_a & lines_b or any(
                index == 0 for _s, _n, index in lines_a | lines_b):
            continue
        joined = " ".join(text[a.end:b.start].split())
        where_a, where_b = min(lines_a), min(lines_b)
        errors.append((line, b, (
            f"{a.text} {joined} {b.text} states one fact, but no line of the cited block(s) "
            f"prints both: [{where_a[1]}] of {where_a[0]} prints {a.text} on its line "
            f"{where_a[2] + 1} and [{where_b[1]}] of {where_b[0]} prints {b.text} on its line "
            f"{where_b[2] + 1} (swapped numbers?)")))
    return errors
