"""Rules that read what prose says about two numbers' order, against numbers swapped in
a sentence: a change written with its direction, "the loss falls from 2.824 to 2.445", must go
that way; a comparison, "0.9433, below the nominal 0.95", must hold; a part, "3,773 of 4,000",
is at most its whole. A swap of the two numbers turns each round: the words alone say so,
whatever the block prints."""

from __future__ import annotations

import itertools
import re

from explainer_tools.claims.context import _report_once
from explainer_tools.claims.model import PageReport
from explainer_tools.claims.outputs import Outputs
from explainer_tools.claims.page import _Unit

# verbs of a change with its direction, in the forms prose uses
UP = frozenset((
    "grow", "grows", "grew", "grown", "growing", "rise", "rises", "rose", "risen", "rising",
    "increase", "increases", "increased", "increasing", "raise", "raises", "raised", "raising",
    "climb", "climbs", "climbed", "climbing", "jump", "jumps", "jumped", "jumping",
    "lengthen", "lengthens", "lengthened", "lengthening", "widen", "widens", "widened"))
DOWN = frozenset((
    "fall", "falls", "fell", "fallen", "falling", "drop", "drops", "dropped", "dropping",
    "decrease", "decreases", "decreased", "decreasing", "lower", "lowers", "lowered",
    "lowering", "shrink", "shrinks", "shrank", "shrunk", "shrinking", "shorten", "shortens",
    "shortened", "shortening", "decline", "declines", "declined", "sink", "sinks", "sank"))
# words that start another clause or turn the change round: the verb before them is not the
# change's ("the error falls when N goes from 10 to 100", "does not grow")
BREAKS = frozenset(("when", "while", "whereas", "where", "as", "if", "and", "but", "than",
                    "not", "never", "nor", "which", "that", "because", "since", "so", "until"))
NEGATIONS = frozenset(("not", "never", "nor", "hardly", "cannot"))
VERB_GAP = 3  # words between the verb and "from" ("lowers the loss from", "raises its argument")
# what may stand between one change and the next that shares its verb: the first's noun, "and",
# the second's subject ("106,240 weights and the LoRA entries from 768 to 2,432")
ELIDED = re.compile(r"\s*(?:[A-Za-z%]+\s*)?,?\s*and(?:\s+[A-Za-z'-]+){1,4}\s*")
FROM = re.compile(r"(?:\s|\\[()]|[{}$])*\bfrom(?:\s|\\[()]|[{}$])*$", re.I)
TO = re.compile(r"\bto(?:\s|\\[()]|[{}$])*$", re.I)


def _direction(before: str) -> tuple[str, str]:
    """The direction ("up", "down" or "") of the verb right before a "from" whose text precedes
    it (at most VERB_GAP words between them, no clause mark but a comma or a colon right before
    "from"), and the verb."""
    text = re.sub(r"[,:]\s*$", " ", before)
    text = re.sub(r"\bby\b[^,;:]*$", " ", text)  # its amount: "shrinks by a factor of 4, from"
    clause = re.split(r"[,;:()\[\]=0-9]|\.\s|\\\(|\\\)", text)[-1]
    words = [w.lower() for w in re.findall(r"[A-Za-z]+(?:'[a-z]+)?", clause)]
    for index in range(len(words) - 1, max(-1, len(words) - VERB_GAP - 2), -1):
        word = words[index]
        if word in BREAKS:
            return "", ""
        if word in UP or word in DOWN:
            if any(w in NEGATIONS or w.endswith("n't") for w in words[max(0, index - 2):index]):
                return "", ""  # "does not fall"
            return ("up" if word in UP else "down"), word
    return "", ""


def check_direction(units: list[_Unit], page: str, outputs: Outputs, report: PageReport) -> None:
    """The direction rule: two neighbouring numbers of a sentence written "from a to b" right
    after a verb of change with its direction (`UP`: grows, rises, lengthens, ...; `DOWN`:
    falls, drops, lowers, ...; at most VERB_GAP words between, "lowers the loss from") must go
    that way: b above a after a verb of `UP`, below it after one of `DOWN`. A change joined to
    the one before by "and" and its subject alone shares that one's verb (`ELIDED`). An error
    on the second, unless a rule before has reported it."""
    flagged = {(e.line, e.number) for e in report.errors}
    for unit in units:
        element = unit.element
        if element.kind == "row" or not unit.citations:
            continue
        text = element.text
        carried = ("", "", unit.end)  # the last change's direction, verb and end
        for first, second in itertools.pairwise(unit.numbers):
            if first.value is None or second.value is None or first.value == second.value:
                continue
            before = text[unit.start:first.start]
            match = FROM.search(before)
            if match is None or not TO.search(text[first.end:second.start]) or re.search(
                    r"[,;:()\[\]=]|\.\s", text[first.end:second.start]):
                continue
            way, verb = _direction(before[:match.start()])
            if not way and ELIDED.fullmatch(text, carried[2], unit.start + match.start()):
                way, verb = carried[:2]  # "grows from a to b and the entries from c to d"
            if not way:
                continue
            carried = (way, verb, second.end)
            if (second.value > first.value) == (way == "up"):
                continue
            line = element.line + text.count("\n", 0, second.start)
            _report_once(report, flagged, page, line, second.text, (
                f"'{verb} from {first.text} to {second.text}' goes the other way: "
                f"{second.text} is {'below' if way == 'up' else 'above'} {first.text} "
                "(swapped numbers?)"))


# a comparison of two numbers: "0.9433, below the nominal 0.95", "0.812 is below the
# majority-class error of 0.928", "1.5, exceeds 1"
_LINK = (r"(?:,|\s|\\[()]|[{}$]|"
         r"\b(?:is|are|was|were|stays|stay|lies|lie|still|far|well|just|all)\b)*")
COMPARED = re.compile(
    r"(?:\s*(?:(?:bits?|nats?)(?:\s+per\s+[A-Za-z]+)?|\\?%|ppm)(?![A-Za-z]))?" + _LINK
    + r"\b(?P<way>below|under|above|exceeds|exceed|"
    r"(?:less|more|greater|larger|smaller|higher|lower)"
    r"\s+than)\b(?P<rest>(?:[\s,]+[A-Za-z][A-Za-z'-]*){0,4})[\s,]*(?:\\\()?\s*$", re.I)
# words that make the second number a multiple or a count of the first, not its rival
_SCALE = frozenset(("twice", "thrice", "half", "times", "double", "triple"))
_ABOVE = ("above", "exceeds", "exceed", "more", "greater", "larger", "higher")


def check_comparison(units: list[_Unit], page: str, outputs: Outputs,
                     report: PageReport) -> None:
    """The comparison rule: two neighbouring numbers of a sentence joined by a comparison alone
    (`COMPARED`: "0.9433, below the nominal 0.95"; a unit, a comma, "is" or "still" may stand
    before it, and up to four words after it that name the second number) must compare that
    way; an error on the second when they do not. "more than twice 5" is left out."""
    flagged = {(e.line, e.number) for e in report.errors}
    for unit in units:
        element = unit.element
        if element.kind == "row" or not unit.citations:
            continue
        text = element.text
        for first, second in itertools.pairwise(unit.numbers):
            if first.value is None or second.value is None or first.value == second.value:
                continue
            match = COMPARED.match(text, first.end, second.start)
            if match is None or match.end() != second.start or any(
                    w.lower() in _SCALE for w in re.findall(r"[A-Za-z]+", match.group("rest"))):
                continue
            above = match.group("way").split()[0].lower() in _ABOVE
            if (first.value > second.value) == above:
                continue
            way = " ".join(match.group("way").split())
            line = element.line + text.count("\n", 0, second.start)
            _report_once(report, flagged, page, line, second.text, (
                f"{first.text} stands '{way}' {second.text}, but it is "
                f"{'below' if above else 'above'} it (swapped numbers?)"))


# a count and its whole: "3,773 of 4,000 experiments", "1 out of 8", "95 of its 271 columns"
PART_OF = re.compile(r"(?:\s|\\[()]|[{}$])*(?:out\s+)?of(?:\s+(?:the|all|its|their))?"
                     r"(?:\s|\\[()]|[{}$])*")


def _count(text: str) -> bool:
    """Whether a written number is a plain count: digits and thousands marks, no sign, no point,
    no exponent."""
    return re.fullmatch(r"[0-9]+(?:(?:,|\{,\}|\s)[0-9]{3})*", text) is not None


def check_parts(units: list[_Unit], page: str, outputs: Outputs, report: PageReport) -> None:
    """The part rule: two neighbouring counts of a sentence joined by "of" alone ("17 of 9,999
    documents", "1 out of 8", "95 of its 271 columns") are a part and its whole, so the first
    is at most the second; an error on the second when it is below the first."""
    flagged = {(e.line, e.number) for e in report.errors}
    for unit in units:
        element = unit.element
        if element.kind == "row" or not unit.citations:
            continue
        text = element.text
        for first, second in itertools.pairwise(unit.numbers):
            if first.value is None or second.value is None or first.value <= second.value or not (
                    _count(first.text) and _count(second.text)) or not PART_OF.fullmatch(
                    text, first.end, second.start):
                continue
            line = element.line + text.count("\n", 0, second.start)
            _report_once(report, flagged, page, line, second.text, (
                f"'{first.text} of {second.text}' counts a part of a whole, but {first.text} is "
                f"more than {second.text} (swapped numbers?)"))
