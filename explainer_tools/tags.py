"""The provenance tag vocabulary, in one place: the site's badges (provenance.py), the claim
check (which skips numbers inside tags) and the notebook's training text (gpt_lab/corpus.py,
which strips tags) all use these patterns.

    [PAPER abstract, v3]       a part of the paper the book has read: its abstracts and its
                               introduction's opening (`READ_PARTS`); a bare [PAPER] is an error
    [SECONDARY: paper App. E, p. 16]  a part of the paper the book has not read, as a secondary
                               account reports it (the paper's full text was not available)
    [SOURCE: <repo> <file>:<line> @<commit>]
    [MY EXPLANATION]  [MY ANALYSIS]  [INFERRED]  (and the combined [MY ANALYSIS / INFERRED])
    [SECTION: MY EXPLANATION]  on a line of its own: the default kind of what follows

>>> TAG_PATTERN.search("as stated [PAPER §6, p. 8].").group("tag")
'PAPER §6, p. 8'
>>> kind_of("SOURCE: nanoGPT model.py:42")
'SOURCE'
"""

from __future__ import annotations

import re

# Badge kind -> CSS class. The order matters for kind_of: the first prefix that matches wins.
KIND_CLASSES = {
    "PAPER": "prov--paper",
    "SECONDARY": "prov--secondary",
    "SOURCE": "prov--source",
    "MY EXPLANATION": "prov--explanation",
    "MY ANALYSIS": "prov--analysis",
    "INFERRED": "prov--analysis",
}
# `[SECTION: MY EXPLANATION]` on a line of its own sets the kind of a run of paragraphs
# (provenance.py); the optional `scope` group is that prefix.
TAG_PATTERN = re.compile(
    r"\[(?P<scope>SECTION:\s*)?(?P<tag>PAPER(?:\s+(?P<paper_loc>[^\]\n]+))?"
    r"|SOURCE:\s*(?P<source>[^\]\n]+)"
    r"|SECONDARY:\s*(?P<secondary>[^\]\n]+)"
    r"|MY EXPLANATION|MY ANALYSIS(?:\s*/\s*INFERRED)?|INFERRED(?:\s*\(MY ANALYSIS\))?)\]"
    r"(?![(\[:])"
)
# The parts of the paper the book has read; a [PAPER <location>] must name one of them.
READ_PARTS = ("abstract", "introduction")


def paper_tag_problem(tag_text: str) -> str | None:
    """What is wrong with a PAPER tag's text, or None (None for any other tag).

    >>> paper_tag_problem("PAPER abstract, v3") is None
    True
    >>> paper_tag_problem("PAPER App. E, p. 16")[:46]
    '[PAPER App. E, p. 16] names a part of the pape'
    """
    if tag_text == "PAPER":
        return "[PAPER] needs a location, e.g. [PAPER abstract, v3]"
    if tag_text.startswith("PAPER ") and not any(
            part in tag_text.lower() for part in READ_PARTS):
        location = tag_text.removeprefix("PAPER ")
        return (f"[{tag_text}] names a part of the paper the book has not read (it has read "
                f"the abstracts and the introduction's opening): write [SECONDARY: paper "
                f"{location}] for what a secondary account reports there")
    return None


# The same grammar without named groups, to embed in larger patterns.
TAG_PATTERN_UNNAMED = re.sub(r"\(\?P<\w+>", "(?:", TAG_PATTERN.pattern)


def kind_of(tag_text: str) -> str:
    """The badge kind of a tag's text (`'MY ANALYSIS / INFERRED'` -> `'MY ANALYSIS'`)."""
    for kind in KIND_CLASSES:
        if tag_text.startswith(kind):
            return kind
    raise ValueError(f"not a provenance tag: {tag_text!r}")


def strip_tags(text: str) -> str:
    """`text` without its provenance tags (and the space after each).

    >>> strip_tags("[MY EXPLANATION] A head reads.")
    'A head reads.'
    """
    return re.sub(TAG_PATTERN.pattern + " ?", "", text)
