"""Values by name: a chapter script glues a printed value to a name; a page refers to the name.

Four parts:

- The script prints `script_glue.glue("slack_100", value, ".4f")`, which returns the text to
  print. When the pipeline runs it, it sets `GLUE_ENV`, and the text comes wrapped in control
  characters (`START name SEP text END`, which no output may otherwise hold). `split_output`
  strips them, so the golden output is the text a reader sees, byte for byte, and returns each
  name with its printed text, output line and block. A name printed twice, a marker left
  unclosed or an ill-formed name is one error naming the script and the output line.
- The pipeline writes them beside the output, `outputs/<stem>.names.json` (`render_names`),
  compared by `make check` like every product and hashed into the stamp.
- A page writes `` {glue}`name` `` in text and `\\glue{name}` inside math (`references`); the
  name is looked up in the sidecars of the scripts of its front matter, or of one script with
  `chNN_topic.py:name`. The site shows the printed text as the link a number verified by value
  gets (number_links.py); the claim check counts it as verified (it is, by construction). An
  unknown name is one error: `docs/...md:LINE: no value named 'x' printed by chNN.py (names it
  prints: ...)`, in the build and in `make check` (`resolve`). An erratum quotes names in its
  body and in its prose fields (`field_references`), from the scripts its evidence names
  (`quoted_scripts`).
- A reference may ask for a style after `|`, to show the printed value as the sentence writes
  it without changing a digit (`STYLES`): `` {glue}`shift|unsigned` `` drops a printed `+`,
  `|minus` writes a typographic minus, `|comma` groups thousands, `|trim` drops trailing
  zeros; several join with commas (`|trim,minus`). An unknown style is an error at its line.

>>> split_output(b"[1] a = \\x02a\\x1f0.5\\x03\\n", "ch01_x.py")
(b'[1] a = 0.5\\n', [Glued(name='a', text='0.5', line=1, block=1)])
>>> [(r.name, r.math) for r in references("x {glue}`a` and \\\\(\\\\glue{ch01_x.py:b}\\\\)")]
[('a', False), ('ch01_x.py:b', True)]
>>> display("+1024.500", ("unsigned", "comma", "trim"))
'1,024.5'
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from pathlib import Path

from explainer_tools.blocks import parse_blocks
from explainer_tools.markdown import scan

GLUE_ENV = "EXPLAINER_GLUE"  # the pipeline sets it to "1": print markers around glued values
START, SEP, END = "\x02", "\x1f", "\x03"  # the same characters as explainer_code/script_glue.py
NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
SUFFIX = ".names.json"

# `{glue}`name`` in text; `\glue{name}` in math. A name may carry its script: `chNN_x.py:name`.
REFERENCE = re.compile(r"\{glue\}`(?P<role>[^`\n]+)`|\\glue\{(?P<math>[^{}\n]+)\}")


class GlueError(ValueError):
    """A script's markers that cannot be read, or a page's reference that names no value."""


@dataclass(frozen=True)
class Glued:
    """A value a script printed under a name."""

    name: str
    text: str  # exactly as printed
    line: int  # 1-based line of the output
    block: int  # the block that line belongs to (0: none)


def names_path(output_dir: Path, script: str) -> Path:
    """`ch10_x.py` -> `<output_dir>/ch10_x.names.json`."""
    return output_dir / (Path(script).stem + SUFFIX)


def split_output(data: bytes, script: str) -> tuple[bytes, list[Glued]]:
    """The output without its markers, and the values glued in it (in printed order)."""
    if START.encode() not in data and END.encode() not in data and SEP.encode() not in data:
        return data, []
    clean = bytearray()
    found: list[tuple[str, int, str]] = []  # name, offset in clean, text
    position = 0
    where = f"explainer_code/{script}"

    def line_at(offset: int) -> int:
        return bytes(clean[:offset]).replace(b"\r\n", b"\n").replace(b"\r", b"\n").count(b"\n") + 1

    while True:
        start = data.find(START.encode(), position)
        stray = [data.find(c.encode(), position, start if start >= 0 else len(data))
                 for c in (SEP, END)]
        if any(s >= 0 for s in stray):
            offset = len(clean) + min(s for s in stray if s >= 0) - position
            clean += data[position:]
            raise GlueError(f"{where}: output line {line_at(offset)}: a glue marker outside a "
                            "glued value (print what script_glue.glue returns, whole)")
        if start < 0:
            clean += data[position:]
            break
        clean += data[position:start]
        line_end = data.find(b"\n", start)
        line_end = len(data) if line_end < 0 else line_end
        sep = data.find(SEP.encode(), start, line_end)
        end = data.find(END.encode(), start, line_end)
        again = data.find(START.encode(), start + 1, line_end)
        if sep < 0 or end < sep or 0 <= again < end:
            raise GlueError(f"{where}: output line {line_at(len(clean))}: a glued value is not "
                            "closed on its line (print what script_glue.glue returns, whole)")
        name = data[start + 1:sep].decode("utf-8", "replace")
        if not NAME.match(name):
            raise GlueError(f"{where}: output line {line_at(len(clean))}: {name!r} is not a "
                            "name (letters, digits and _, not first a digit)")
        found.append((name, len(clean), data[sep + 1:end].decode("utf-8", "replace")))
        clean += data[sep + 1:end]
        position = end + 1
    result = bytes(clean)
    text = result.decode("utf-8", "replace").replace("\r\n", "\n").replace("\r", "\n")
    block_of = {}
    for number, block in parse_blocks(text).items():
        block_of.update({block.first_line + i: number for i in range(len(block.lines))})
    glued: list[Glued] = []
    first: dict[str, int] = {}
    for name, offset, value in found:
        line = line_at(offset)
        if name in first:
            raise GlueError(f"{where}: output line {line}: the value named {name!r} is printed "
                            f"twice (first on line {first[name]}); glue each name once")
        first[name] = line
        glued.append(Glued(name, value, line, block_of.get(line, 0)))
    return result, glued


def render_names(script: str, glued: list[Glued]) -> str:
    """The sidecar file's text ("" when the script glued nothing)."""
    if not glued:
        return ""
    rows = [f"  {json.dumps(g.name)}: " + json.dumps(
        {"text": g.text, "line": g.line, "block": g.block}, ensure_ascii=False)
        for g in sorted(glued, key=lambda g: g.name)]  # one name a line: diffs read by name
    return (f'{{\n "script": {json.dumps(script)},\n "names": {{\n' + ",\n".join(rows)
            + "\n }\n}\n")


def read_names(output_dir: Path) -> dict[str, dict[str, Glued]]:
    """Every sidecar under `output_dir`: script -> name -> Glued. A sidecar that does not read
    as one is an error naming it."""
    found: dict[str, dict[str, Glued]] = {}
    for path in sorted(output_dir.glob("*" + SUFFIX)):
        script = path.name.removesuffix(SUFFIX) + ".py"
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            found[script] = {name: Glued(name, str(v["text"]), int(v["line"]), int(v["block"]))
                             for name, v in data["names"].items()}
        except (ValueError, KeyError, TypeError, AttributeError) as error:
            raise GlueError(f"outputs/{path.name}: not a names file ({error}); run `make "
                            "regenerate`") from None
    return found


@dataclass(frozen=True)
class Reference:
    """A page's reference to a glued value."""

    name: str  # as written: `name` or `script.py:name`
    start: int  # offsets of the whole reference in the page text
    end: int
    line: int
    math: bool  # written `\\glue{...}` (inside math)
    styles: tuple[str, ...] = ()  # after `|`: how to show the printed text (STYLES)


def references(text: str) -> list[Reference]:
    """The glue references of a page, outside front matter, code, comments and embedded
    outputs."""
    found = []
    for line in scan(text).lines:
        if line.kind != "prose" or line.embedded:
            continue
        for match in REFERENCE.finditer(line.text):
            name, _, styles = (match.group("role") or match.group("math")).partition("|")
            found.append(Reference(name.strip(), line.start + match.start(),
                                   line.start + match.end(), line.number,
                                   match.group("math") is not None,
                                   tuple(s.strip() for s in styles.split(",") if s.strip())))
    return found


def field_references(text: str, fields: list[tuple[int, int]]) -> list[Reference]:
    """The glue references inside `fields`, ranges of `text` that hold an erratum's front-matter
    prose (YAML scalars, rendered on its page: read as they stand, not as Markdown lines)."""
    found = []
    for start, end in fields:
        for match in REFERENCE.finditer(text, start, end):
            name, _, styles = (match.group("role") or match.group("math")).partition("|")
            found.append(Reference(name.strip(), match.start(), match.end(),
                                   text.count("\n", 0, match.start()) + 1,
                                   match.group("math") is not None,
                                   tuple(s.strip() for s in styles.split(",") if s.strip())))
    return found


def _comma(text: str) -> str:
    sign = text[:1] if text[:1] in "+-\u2212" else ""
    whole, point, fraction = text[len(sign):].partition(".")
    if not whole.isdigit():
        return text
    return f"{sign}{int(whole):,}{point}{fraction}"


def _trim(text: str) -> str:
    whole, point, fraction = text.partition(".")
    if not point or not fraction.isdigit():
        return text
    fraction = fraction.rstrip("0")
    return f"{whole}.{fraction}" if fraction else whole


# How a page may show a printed value; none changes a digit of it.
STYLES = {
    "unsigned": lambda text: text.removeprefix("+"),  # the sentence says "rises by 0.05"
    "minus": lambda text: "\u2212" + text[1:] if text.startswith("-") else text,
    "comma": _comma,  # 1024 -> 1,024
    "trim": _trim,  # 1.7500 -> 1.75, 1.0000 -> 1
}


def display(text: str, styles: tuple[str, ...]) -> str:
    """The printed text as a reference with `styles` shows it (styles known: see `resolve`)."""
    for style in styles:
        text = STYLES[style](text)
    return text


def declared_scripts(front: dict) -> list[str]:
    """The scripts of a page's front matter, by file name."""
    declared = front.get("scripts") or []
    return [str(s).rsplit("/", 1)[-1] for s in ([declared] if isinstance(declared, str)
                                                  else declared)]


def quoted_scripts(front: dict) -> list[str]:
    """The scripts whose names a page may quote without `script.py:`: a chapter's `scripts:`,
    an erratum's evidence `output:` scripts (in the order written)."""
    found = declared_scripts(front)
    for item in front.get("evidence") or []:
        output = item.get("output") if isinstance(item, dict) else None
        if output and str(output).rsplit("/", 1)[-1] not in found:
            found.append(str(output).rsplit("/", 1)[-1])
    return found


def resolve(reference: Reference, scripts: list[str], names: dict[str, dict[str, Glued]],
            page: str) -> tuple[str, Glued]:
    """(script, value) that a reference names; else a GlueError `page:line: ...`."""
    where = f"{page}:{reference.line}"
    unknown = [style for style in reference.styles if style not in STYLES]
    if unknown:
        raise GlueError(f"{where}: no style {unknown[0]!r} for a glued value (styles: "
                        f"{', '.join(STYLES)})")
    script, sep, name = reference.name.rpartition(":")
    if sep:
        script = script.removesuffix(".py") + ".py"
        candidates = [script]
    else:
        candidates = scripts
        if not scripts:
            raise GlueError(f"{where}: the value named {name!r} names no script, and the page's "
                            "front matter declares none (write chNN_topic.py:name)")
    printed_by = [s for s in candidates if name in names.get(s, {})]
    if len(printed_by) == 1:
        return printed_by[0], names[printed_by[0]][name]
    if printed_by:
        raise GlueError(f"{where}: the value named {name!r} is printed by "
                        f"{' and '.join(printed_by)}; write {printed_by[0]}:{name}")
    listed = sorted(n for s in candidates for n in names.get(s, {}))
    close = difflib.get_close_matches(name, listed, n=3)  # a typo's intended name first
    listed = close + [n for n in listed if n not in close]
    shown = ", ".join(listed[:12]) + (f", ... ({len(listed)} in all)" if len(listed) > 12 else "")
    raise GlueError(f"{where}: no value named {name!r} printed by {' or '.join(candidates)} "
                    f"(names it prints: {shown or 'none'})")
