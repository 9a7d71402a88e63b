"""Rewrite a page's numbers as references to the values its scripts glue (glue.py).

    python -m explainer_tools.glue_migrate docs/chapters/10-hoeffding-union-bound.md
    python -m explainer_tools.glue_migrate --dry-run PAGE   # say what it would do, write nothing

For each number the claim check verifies (`claims.api.verified_numbers`: the block and the output
line that print it), the tool picks the glued value of its block with the same text (in a
formula, a comma written `{,}`) and writes `` {glue}`name` `` (in math `\\glue{name}`;
`script.py:name` where the page's scripts do not decide). Which one: the value of that text if
the block glues only one; where it glues several (0.5 in every row of a table), the one on the
line that the unambiguous numbers of the same page line (a table row, a sentence) print on, if
exactly one is there. It never guesses by value: a name is what the number means, so a number
two values could stand for is left for a person. A number the page writes otherwise than the
script printed it (1,024 for 1024, 0.05 for +0.05) gets the styles that show it so
(`{glue}`name|comma``; glue.STYLES), never a changed digit. The site shows the printed text
where the number stood, so the page reads the same; only the markup differs. What it cannot
rewrite it lists, one line each, with why: no glued value of that text in its block (a constant of a
formula that the check matched to some printing), or several (say which by hand).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path

from explainer_tools import glue
from explainer_tools.claims.api import VerifiedNumber, verified_numbers
from explainer_tools.layout import DEFAULT, Layout
from explainer_tools.markdown import math_ranges, math_text, read_front_matter

# The styles tried, fewest first: a number is shown as printed where it can be.
STYLINGS: list[tuple[str, ...]] = [(), *[(s,) for s in glue.STYLES], ("unsigned", "comma"),
                                   ("comma", "trim"), ("unsigned", "trim"), ("minus", "comma"),
                                   ("minus", "trim")]


@dataclass
class Migration:
    text: str  # the page as rewritten
    rewritten: int = 0
    missed: list[str] = field(default_factory=list)  # not rewritten, with why


def migrate(root: Path, page: Path) -> Migration:
    """The page with every number it can rewrite as a reference to a glued value."""
    text = page.read_bytes().decode("utf-8")  # as the claim check reads it: its offsets
    relative = page.resolve().relative_to(root.resolve()).as_posix()
    claims = verified_numbers(root, [root / relative]).get(relative)
    names = glue.read_names(Layout(root).output_dir)
    scripts = glue.quoted_scripts(read_front_matter(text).mapping)
    maths = math_ranges(text)
    result = Migration(text)
    edits: list[tuple[int, int, str]] = []
    numbers = claims.verified if claims else []

    styled: dict[tuple, tuple[str, ...]] = {}  # (script, name, span) -> the styles it needs

    def same_text(number: VerifiedNumber) -> list[glue.Glued]:
        """The values its block glues with its text (in a formula, `{,}` for a comma), as
        printed or in the fewest styles that show it so (`glue.STYLES`: no digit changes)."""
        in_math = any(start < number.span[0] < end for start, end in maths)
        found = []
        for g in names.get(number.script, {}).values():
            for styles in STYLINGS if g.block == number.block else ():
                shown = glue.display(g.text, styles)
                if (math_text(shown) if in_math else shown) == number.text:
                    found.append(g)
                    styled[(number.script, g.name, number.span)] = styles
                    break
        return found
    found_in_block = [same_text(number) for number in numbers]
    pinned: dict[int, set[int]] = {}  # page line -> output lines its unambiguous values print on
    for number, found in zip(numbers, found_in_block, strict=True):
        if len(found) == 1 and found[0].line == number.output_line:
            pinned.setdefault(number.line, set()).add(found[0].line)
    for number, in_block in zip(numbers, found_in_block, strict=True):
        found = [g for g in in_block if g.line in pinned.get(number.line, set())]
        if len(found) != 1:  # the row or sentence does not decide: only a unique text does
            found = in_block if len(in_block) == 1 else []
        if not found:
            why = (f"glued as {', '.join(sorted(g.name for g in in_block))}: say which by hand"
                   if in_block else "no glued value with this text in its block")
            result.missed.append(f"{relative}:{number.line}: {number.text} (output line "
                                 f"{number.output_line} of {number.script}): {why}")
            continue
        name = found[0].name
        printed_by = [s for s in scripts if name in names.get(s, {})]
        reference = name if printed_by == [number.script] else f"{number.script}:{name}"
        styles = styled[(number.script, name, number.span)]
        reference += f"|{','.join(styles)}" if styles else ""
        math = any(start < number.span[0] < end for start, end in maths)
        edits.append((number.span[0], number.span[1],
                      f"\\glue{{{reference}}}" if math else f"{{glue}}`{reference}`"))
    body_start = read_front_matter(text).body_start
    in_fields = [edit for edit in edits if edit[0] < body_start]
    kept = [edit for edit in in_fields if _reads_the_same(text, [edit], body_start)]
    for start, end, _ in sorted(set(in_fields) - set(kept)):
        line = text.count("\n", 0, start) + 1
        result.missed.append(f"{relative}:{line}: {text[start:end]}: in the front matter, the "
                             "reference would not read as the same YAML text: name it by hand")
    if not _reads_the_same(text, kept, body_start):  # each alone reads the same, not all at once
        raise ValueError(f"{relative}: the front matter would not read the same after the "
                         "rewrite; nothing written")
    edits = [edit for edit in edits if edit[0] >= body_start] + kept
    for start, end, reference in sorted(edits, reverse=True):
        result.text = result.text[:start] + reference + result.text[end:]
    result.rewritten = len(edits)
    return result


def _reads_the_same(text: str, edits: list[tuple[int, int, str]], body_start: int) -> bool:
    """Whether the front matter with `edits` made still parses, to the same values once each
    reference is read back as the number it replaced (an erratum's prose is YAML: a reference
    must not end a plain scalar, start a flow mapping or hold a double-quoted escape)."""
    changed = text[:body_start]
    back: dict[str, str] = {}
    for start, end, reference in sorted(edits, reverse=True):
        changed = changed[:start] + reference + changed[end:]
        back[reference] = text[start:end]
    front = read_front_matter(changed + text[body_start:])
    if front.error:
        return False

    def restored(value: object) -> object:
        if isinstance(value, str):
            for reference, number in back.items():
                value = value.replace(reference, number)
            return value
        if isinstance(value, list):
            return [restored(item) for item in value]
        if isinstance(value, dict):
            return {key: restored(item) for key, item in value.items()}
        return value
    return restored(front.mapping) == read_front_matter(text).mapping


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m explainer_tools.glue_migrate",
                                     description=__doc__.split("\n")[0])
    parser.add_argument("page", type=Path)
    parser.add_argument("--root", type=Path, default=DEFAULT.root)
    parser.add_argument("--dry-run", action="store_true", help="write nothing")
    args = parser.parse_args(argv)
    try:
        result = migrate(args.root, args.page)
    except (glue.GlueError, OSError, ValueError) as error:
        print(f"glue_migrate: {error}", file=sys.stderr)
        return 2
    for line in result.missed:
        print(f"not rewritten: {line}")
    if not args.dry_run and result.rewritten:
        args.page.write_bytes(result.text.encode("utf-8"))
    print(f"glue_migrate: {args.page}: {result.rewritten} number(s) "
          f"{'would be ' if args.dry_run else ''}rewritten, {len(result.missed)} not rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main())
