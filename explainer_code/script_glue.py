"""Printed values with names, for pages to quote by name (explainer_tools/glue.py).

    from script_glue import glue
    print(f"    N = 100: {glue('slack_100', slack, '.4f')}")

`glue(name, value, spec)` returns the text to print: `format(value, spec)` (a string value as it
is), padding included; the name holds the text without its padding. Put a width in `spec`, never
in the f-string around the result (`{glue(...):>8}` would count the markers). Run by hand, that
is all it does. When the pipeline runs the script it sets
`EXPLAINER_GLUE=1`; the text then comes wrapped in control characters that the pipeline strips
from the output (the golden `outputs/<stem>.txt` is what a reader sees) and records, with the
output line, in `outputs/<stem>.names.json`. A page writes `` {glue}`slack_100` `` (in math
`\\glue{slack_100}`) and shows the printed text, linked to its line. Print each name once.

It is a module of its own, not a function of script_io.py: every script that imports a module
has it among the inputs of its stamp, and only the scripts that glue should be re-run when it
changes.
"""

from __future__ import annotations

import os
import re

GLUE_ENV = "EXPLAINER_GLUE"
START, SEP, END = "\x02", "\x1f", "\x03"  # explainer_tools/glue.py reads the same
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


def glue(name: str, value: object, spec: str = "") -> str:
    """The text to print for `value`, named `name` for the pages.

    >>> glue("eps", 0.05)
    '0.05'
    >>> glue("slack", 0.12238, ".4f")
    '0.1224'
    >>> glue("n", 1000, ">7,")
    '  1,000'
    """
    if not NAME.match(name):
        raise ValueError(f"glue: {name!r} is not a name (letters, digits and _)")
    text = value if isinstance(value, str) and not spec else format(value, spec)
    if "\n" in text or any(c in text for c in (START, SEP, END)):
        raise ValueError(f"glue: the text of {name!r} holds a line break or a marker: {text!r}")
    if os.environ.get(GLUE_ENV) != "1":
        return text
    core = text.strip()
    lead, trail = text[:len(text) - len(text.lstrip())], text[len(text.rstrip()):]
    return f"{lead}{START}{name}{SEP}{core}{END}{trail}"
