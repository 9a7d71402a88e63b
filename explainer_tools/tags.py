"""The provenance tag vocabulary, in one place: the site's badges (provenance.py), the claim
check (which skips numbers inside tags) and the notebook's training text (gpt_lab/corpus.py,
which strips tags) all use these patterns.

    [PAPER App. E, p. 16]      a location the paper states; a bare [PAPER] is an error
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
    r"|MY EXPLANATION|MY ANALYSIS(?:\s*/\s*INFERRED)?|INFERRED(?:\s*\(MY ANALYSIS\))?)\]"
    r"(?![(\[:])"
)
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
