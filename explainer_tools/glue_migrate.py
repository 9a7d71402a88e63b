"""Rewrite a page's numbers as references to the values its scripts glue (glue.py).

    python -m explainer_tools.glue_migrate docs/chapters/10-hoeffding-union-bound.md
    python -m explainer_tools.glue_migrate --dry-run PAGE   # say what it would do, write nothing

For each number the claim check verifies (`claims.api.verified_numbers`: the output line that
prints it), the tool looks for the one glued value with the same text on that line (in a
formula, a comma written `{,}`) and writes `` {glue}`name` `` (in math `\\glue{name}`;
`script.py:name` where the page's scripts do not decide). The site shows the printed text where
the number stood, so the page reads the same; only the markup differs. What it cannot rewrite it
lists, one line each, with why: no glued value of that text on that line (a constant of a
formula that the check matched to some printing, or a value printed elsewhere too: the check
names the first printing in the block), or several (say which by hand).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path

from explainer_tools import glue, number_links
from explainer_tools.claims.api import verified_numbers
from explainer_tools.layout import DEFAULT
from explainer_tools.markdown import read_front_matter


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
    names = glue.read_names(root / "outputs")
    scripts = glue.declared_scripts(read_front_matter(text).mapping)
    maths = number_links.math_ranges(text)
    result = Migration(text)
    edits: list[tuple[int, int, str]] = []
    for number in claims.verified if claims else []:
        in_math = any(start < number.span[0] < end for start, end in maths)
        glued = names.get(number.script, {}).values()

        def same(value: glue.Glued, in_math: bool = in_math, written: str = number.text) -> bool:
            return (number_links.math_text(value.text) if in_math else value.text) == written
        where = (f"{relative}:{number.line}: {number.text} (output line {number.output_line} of "
                 f"{number.script})")
        found = [g for g in glued if g.line == number.output_line and same(g)]
        if len(found) != 1:
            why = (f"glued as {', '.join(sorted(g.name for g in found))}: say which by hand"
                   if found else "no glued value with this text on that line")
            result.missed.append(f"{where}: {why}")
            continue
        name = found[0].name
        printed_by = [s for s in scripts if name in names.get(s, {})]
        reference = name if printed_by == [number.script] else f"{number.script}:{name}"
        edits.append((number.span[0], number.span[1],
                      f"\\glue{{{reference}}}" if in_math else f"{{glue}}`{reference}`"))
    for start, end, reference in sorted(edits, reverse=True):
        result.text = result.text[:start] + reference + result.text[end:]
    result.rewritten = len(edits)
    return result


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
