"""`make chapter N=9 SLUG=generalization TITLE="Generalization"`: a new chapter, ready to fill in.

Writes `docs/chapters/09-generalization.md` (front matter and every section of the chapter
anatomy, BOOK.md, in order), `explainer_code/ch09_generalization.py` (a script that prints a
title line and one block and asserts its claim) and the nav line in `mkdocs.yml`, in chapter
order. Nothing else needs wiring: the pipeline discovers `explainer_code/ch*.py`, and the generic
tests (tests/test_scripts.py, tests/test_determinism.py) cover every script. Then run
`make regenerate` and `make check`. Refuses to overwrite anything.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from explainer_tools.layout import DEFAULT, Layout

SLUG = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
NAV_CHAPTER = re.compile(r'^(?P<indent>\s+)- "(?P<number>\d+)\. ')

PAGE = '''---
scripts: [{script}]
---

# Chapter {n}: {title}

## Where this fits

Which earlier chapters this one builds on, and which later ones use it.

## The problem this chapter solves

The question the paper needs answered here, stated before any machinery.

## Intuition, and where the analogy breaks

A picture that carries the idea, and the exact point where it stops being true.

## Precise definitions

Every symbol and term, defined once. Inline math \\( x \\), display math

\\[
y = x^2
\\]

## Worked example with real numbers

Each step cites the output block that prints its numbers: squaring
{example} gives {result} (output [1] of {script}).

## Paper errata concerning this chapter

Links to the erratum pages that concern this chapter, or "none".

## Going deeper

??? note "A proof, or the details"

    Derivations that the main text can do without.

## Common misconceptions

**Misconception.** What people get wrong, and why.

## Self-test

??? question "A question about this chapter"

    Something the reader can answer from the page.

    ??? success "Answer"

        The answer, with the output block it comes from.

## Summary

The chapter in a few sentences.

## Code for this chapter

Run it with `.venv/bin/python explainer_code/{script}`, or `make regenerate`, which embeds the
source and output below.

??? example "explainer_code/{script}"

    <!-- embed: source {script} -->
    <!-- /embed -->

<!-- embed: output {script} -->
<!-- /embed -->
'''

SCRIPT = '''"""Chapter {n}: {title}.

Claims, numbered as the output blocks:
  [1] The square of {example} is {result} (replace with this chapter's first claim).
Deterministic: no randomness yet; seed every generator you add, and state seed, repetitions and
Monte Carlo error for experiments.
"""

from __future__ import annotations

EXAMPLE = {example}  # constants and seeds at the top


def square(x: int) -> int:
    """x squared: a small pure function (replace with the chapter's own)."""
    return x * x


def main() -> None:
    print("Chapter {n} -- {title} ({script})")
    value = square(EXAMPLE)
    print(f"[1] square({{EXAMPLE}}) = {{value}}")
    assert value == {result}
    print("All assertions passed.")


if __name__ == "__main__":
    main()
'''


def page_path(n: int, slug: str, layout: Layout = DEFAULT) -> Path:
    return layout.chapter_dir / f"{n:02d}-{slug}.md"


def script_name(n: int, slug: str) -> str:
    return f"ch{n:02d}_{slug.replace('-', '_')}.py"


# The book's parts (docs/_data/chapters.yml): chapters 1-8, 9-14, 15-20, 21-26.
PARTS = ((8, "Part I. Foundations"), (14, "Part II. Bounds"), (20, "Part III. Compression"),
         (26, "Part IV. The bound, computed"))


def part_of(n: int) -> str:
    """The nav section of chapter `n`: `part_of(9)` -> 'Part II. Bounds'."""
    return next((title for last, title in PARTS if n <= last), PARTS[-1][1])


def nav_with_chapter(yml: str, n: int, title: str, page: str) -> str:
    """mkdocs.yml with `- "N. Title": chapters/...` added under the chapter's Part, in chapter
    order; the Part's section is created (after the Parts before it) when it is new.

    >>> yml = ('nav:\\n  - "Part I. Foundations":\\n      - "5. T": chapters/05-t.md\\n'
    ...        '      - "N": n.ipynb\\n  - "Part II. Bounds":\\n'
    ...        '      - "12. S": chapters/12-s.md\\n  - Reference:\\n      - glossary.md\\n')
    >>> print(nav_with_chapter(yml, 9, "G", "chapters/09-g.md"), end="")
    nav:
      - "Part I. Foundations":
          - "5. T": chapters/05-t.md
          - "N": n.ipynb
      - "Part II. Bounds":
          - "9. G": chapters/09-g.md
          - "12. S": chapters/12-s.md
      - Reference:
          - glossary.md
    >>> print(nav_with_chapter(yml, 21, "P", "chapters/21-p.md"), end="")
    nav:
      - "Part I. Foundations":
          - "5. T": chapters/05-t.md
          - "N": n.ipynb
      - "Part II. Bounds":
          - "12. S": chapters/12-s.md
      - "Part IV. The bound, computed":
          - "21. P": chapters/21-p.md
      - Reference:
          - glossary.md
    """
    lines = yml.split("\n")
    entry = f'"{n}. {title}": {page}'
    part = part_of(n)
    headers = {i: line.strip()[2:].rstrip(":").strip('"') for i, line in enumerate(lines)
               if line.startswith("  - ") and line.rstrip().endswith(":")}
    start = next((i for i, name in headers.items() if name == part), None)
    if start is None:
        if not any(name.startswith("Part ") for name in headers.values()):
            raise ValueError("mkdocs.yml's nav has no 'Part ...' sections for the chapters")
        order = [title for _, title in PARTS]

        def after_part(name: str) -> bool:  # a later Part, or a section that is not a Part
            if not name.startswith("Part "):
                return True
            return name in order and order.index(name) > order.index(part)

        nav_start = next(i for i, line in enumerate(lines) if line.strip() == "nav:")
        later = [i for i, name in headers.items() if i > nav_start and after_part(name)]
        at = min(later) if later else len(lines)
        lines[at:at] = [f'  - "{part}":', f"      - {entry}"]
        return "\n".join(lines)
    insert_at, indent = start + 1, "      "
    index = start + 1
    while index < len(lines) and (lines[index].startswith(indent) or not lines[index].strip()):
        match = NAV_CHAPTER.match(lines[index])
        if match:
            indent = match.group("indent")
            if int(match.group("number")) == n:
                raise ValueError(f"mkdocs.yml already lists chapter {n}: {lines[index].strip()}")
            if int(match.group("number")) < n:
                insert_at = index + 1
        index += 1
    lines.insert(insert_at, f"{indent}- {entry}")
    return "\n".join(lines)


def scaffold(n: int, slug: str, title: str, layout: Layout = DEFAULT) -> list[Path]:
    """Write the page, the script and the nav line; return the files written."""
    if not 1 <= n <= 99 or not SLUG.match(slug):
        raise ValueError("N must be 1-99 and SLUG lowercase words joined by '-'")
    if '"' in title or "\n" in title:
        raise ValueError("TITLE may not contain double quotes or newlines")
    page, script = page_path(n, slug, layout), layout.code_dir / script_name(n, slug)
    for path in (page, script):
        if path.exists():
            raise ValueError(f"{layout.relative(path)} exists already; nothing was written")
    values = {"n": n, "title": title, "script": script.name, "example": 12, "result": 144}
    nav = nav_with_chapter(layout.mkdocs_yml.read_text(encoding="utf-8"), n, title,
                           page.relative_to(layout.docs_dir).as_posix())
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(PAGE.format(**values), encoding="utf-8")
    script.write_text(SCRIPT.format(**values), encoding="utf-8")
    layout.mkdocs_yml.write_text(nav, encoding="utf-8")
    return [page, script, layout.mkdocs_yml]


def main(n: int, slug: str, title: str, layout: Layout = DEFAULT) -> int:
    try:
        written = scaffold(n, slug, title, layout)
    except ValueError as error:
        print(f"chapter: {error}", file=sys.stderr)
        return 1
    for path in written:
        print(f"  wrote {layout.relative(path)}")
    print("Next: `make regenerate` (runs the script, embeds it), then `make check`.")
    return 0
