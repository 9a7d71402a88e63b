"""Units of numbers, for the unit rule of the claim check (check.py) and its mutation harness.

A unit is what stands right after a number: `15.6 bits`, `31.23 %`, `5.3 ppm`, `0.9 s`,
`548 MB`, `4 bytes`, `16-bit`, in math `0.05\\%` or `3\\,\\text{nats}`. Units of one *kind* are
compatible: "bits", "bit", "bits per token", "bits/token" and "16-bit" are all bits. Kinds that
differ by a scale (s and ms, MB and GB) are different kinds: "0.9 s" is not "0.9 ms".

>>> unit_after(" bits per token, which")
('bits', 1, 5)
>>> unit_after("\\\\,\\\\text{nats}")
('nats', 8, 12)
>>> unit_after(" layers") is None
True
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# written form -> kind; longer forms first where one is a prefix of another
_FORMS: tuple[tuple[str, str], ...] = (
    (r"bits?", "bits"),
    (r"nats?", "nats"),
    (r"percent|per\s+cent|\\?%", "%"),
    (r"ppm", "ppm"),
    (r"seconds?|secs?|s", "s"),
    (r"milliseconds?|ms", "ms"),
    (r"minutes?|min", "min"),
    (r"hours?|h", "h"),
    (r"bytes?", "bytes"),
    (r"[kK]B", "KB"),
    (r"KiB", "KiB"),
    (r"MB", "MB"),
    (r"MiB", "MiB"),
    (r"GB", "GB"),
    (r"GiB", "GiB"),
    (r"TB", "TB"),
)
KINDS = tuple(dict.fromkeys(kind for _form, kind in _FORMS))
_ALTERNATIVES = "|".join(f"(?P<u{index}>{form})" for index, (form, _kind) in enumerate(_FORMS))
_GAP = r"(?:[ \t~\u00a0\u2009\u202f]|\\[,;:! ]|\\(?:q?quad|thinspace)\b)*"
_OPEN = r"(?:\\(?:text|mathrm|textrm|operatorname|mbox)\s*\{\s*)?"
# a unit ends where a word ends; '%' ends itself
_HYPHEN = r"(?:-(?=(?:bit|nat|byte)s?(?![A-Za-z])))?"  # 16-bit, 2-nat
UNIT_AFTER = re.compile(r"^" + _GAP + _HYPHEN + _OPEN + r"(?:" + _ALTERNATIVES + r")"
                        r"(?:(?<=%)|(?![A-Za-z0-9_]))")
# a word anywhere on an output line that says what unit its numbers are in ("(bits per token)")
UNIT_WORD = re.compile(r"(?<![A-Za-z_])(?:bits?|nats?|percent|ppm|bytes?|seconds|"
                       r"KB|KiB|MB|MiB|GB|GiB|TB)(?![A-Za-z_])|%")
# a time word is a unit only right after a number ("s" and "h" are letters everywhere else,
# "second" is an ordinal), except "seconds"
_WORD_KIND = {"bit": "bits", "bits": "bits", "nat": "nats", "nats": "nats", "percent": "%",
              "%": "%", "ppm": "ppm", "byte": "bytes", "bytes": "bytes",
              "seconds": "s", "KB": "KB", "KiB": "KiB", "MB": "MB", "MiB": "MiB", "GB": "GB",
              "GiB": "GiB", "TB": "TB"}

# a unit change of each kind, for the mutation harness: a plausible wrong unit
WRONG_UNIT = {"bits": "nats", "nats": "bits", "%": "ppm", "ppm": "%", "s": "ms", "ms": "s",
              "min": "s", "h": "min", "bytes": "bits", "KB": "MB", "KiB": "MiB", "MB": "GB",
              "MiB": "GiB", "GB": "MB", "GiB": "MiB", "TB": "GB"}


# what each kind measures: a line that writes bits after its other numbers is in information
DIMENSION = {"bits": "information", "nats": "information", "%": "fraction", "ppm": "fraction",
             "s": "time", "ms": "time", "min": "time", "h": "time", "bytes": "size", "KB": "size",
             "KiB": "size", "MB": "size", "MiB": "size", "GB": "size", "GiB": "size",
             "TB": "size"}


def unit_after(text: str) -> tuple[str, int, int] | None:
    """The unit at the start of `text` (what follows a number): (kind, start, end of the unit as
    written, offsets into `text`), or None.

    A gap of spaces, LaTeX spacing (`\\,`) and a `\\text{...}` wrapper may stand before it;
    "16-bit" counts as bits.
    """
    match = UNIT_AFTER.match(text)
    if not match:
        return None
    for index, (_form, kind) in enumerate(_FORMS):
        if match.group(f"u{index}") is not None:
            return kind, match.start(f"u{index}"), match.end(f"u{index}")
    return None  # pragma: no cover - one alternative always matched


def kinds_named(text: str) -> tuple[set[str], set[str], set[str]]:
    """The unit kinds a piece of output names: (as labels, after numbers, by a logarithm).

    A label is a unit word that does not stand right after a number ("(bits per token)", "loss
    (bits)", "in nats"): it says what the numbers near it are in. A unit after a number belongs
    to that number. A logarithm implies a unit: `ln` nats, `log2` bits; `ln 2`, the factor
    between them, either.

    >>> labels, attached, logs = kinds_named("bound (bits per token): 3.21; time 0.9 s; -ln(P)")
    >>> sorted(labels), sorted(attached), sorted(logs)
    (['bits'], ['s'], ['nats'])
    """
    labels: set[str] = set()
    attached: set[str] = set()
    logs: set[str] = set()
    for word in UNIT_WORD.finditer(text):
        key = word.group() if word.group() in _WORD_KIND else word.group().lower()
        before = text[max(0, word.start() - 12):word.start()]
        if key in _WORD_KIND and not re.search(r"[0-9][ \t\u00a0\u2009\u202f-]*$", before):
            labels.add(_WORD_KIND[key])
    for number in re.finditer(r"[0-9](?![0-9.,])", text):
        after = unit_after(text[number.end():])
        if after:
            attached.add(after[0])
    if re.search(r"(?<![A-Za-z_])ln(?![A-Za-z_])", text):
        logs.add("nats")
    if re.search(r"(?<![A-Za-z_])ln\s*\(?2(?![0-9.])", text):
        logs.add("bits")  # ln 2 converts between bits and nats: either may be meant
    if re.search(r"(?<![A-Za-z_])log2(?![A-Za-z_0-9])", text):
        logs.add("bits")
    return labels, attached, logs


_DATA = ("information", "size")  # bits and bytes: amounts of data, easily mixed up


def unit_named(kind: str, scopes: Iterable[tuple[set[str], set[str], set[str]]]) -> str:
    """Whether a number printed with no unit may be in `kind`, from what its scopes (its line,
    its block, the script's whole output; each as `kinds_named`) say, nearest first: a scope
    that writes `kind` as a label or after a number says yes, and so does a logarithm on the
    number's own line (`ln`: nats); a scope whose labels name other kinds only says no, and so
    does its line when it writes its other numbers in another unit of the same dimension (bits
    beside the prose's nats), or when it takes a logarithm of the dimension and names no unit
    (`ln` on a line: not bits); a block that writes units of data (bits, bytes, MB) after its
    numbers but never `kind` says no; when no scope uses `kind`, no. Returns "" for yes, else
    why not."""
    names = ("line", "block", "script's output")
    for index, ((labels, attached, logs), name) in enumerate(zip(scopes, names, strict=True)):
        alike = sorted(k for k in attached if DIMENSION[k] == DIMENSION[kind] and k != kind)
        if kind in labels | attached or (index == 0 and kind in logs and not alike):
            return ""
        if labels:
            return f"its {name} labels its numbers {', '.join(sorted(labels))}"
        if index == 0 and alike:
            return f"its line writes its other numbers in {', '.join(alike)}"
        logged = sorted(k for k in logs if DIMENSION[k] == DIMENSION[kind])
        if index == 0 and logged and not attached:
            return f"its line takes a logarithm in {', '.join(logged)}"
        data = sorted(k for k in attached if DIMENSION[k] in _DATA and DIMENSION[kind] in _DATA)
        if index == 1 and data:
            return f"its block writes {', '.join(data)} after its numbers, never {kind}"
    return f"nothing in the script's output is in {kind}"
