"""The order in which regenerate and check start the chapter scripts: the longest first.

Two workers that take scripts in name order finish badly: the three longest scripts (Chapters
20, 22 and 25) come last, and one worker runs the last of them alone. Started longest first
(the longest-processing-time rule), the two workers end within a short script of each other.

How long a script takes is read from `outputs/run_seconds.json` (`COSTS_PATH`), written on
purpose only, by `python -m explainer_tools costs` (`make costs`): one run of every script, its
wall seconds rounded to whole seconds. The record decides the order and nothing else (no output
depends on the order: every script runs in a child of its own), so a stale record costs minutes,
never a wrong file; a script with no record (a new chapter) starts before all recorded ones,
since it may be long.

>>> start_order(["ch01_a.py", "ch02_b.py", "ch03_c.py"], {"ch01_a.py": 3, "ch02_b.py": 90})
['ch03_c.py', 'ch02_b.py', 'ch01_a.py']
"""

from __future__ import annotations

import json
from pathlib import Path

from explainer_tools.layout import DEFAULT, OUTPUT_DIR, Layout
from explainer_tools.tree_io import CommandError

COSTS_PATH = (OUTPUT_DIR / "run_seconds.json").as_posix()


def costs_path(layout: Layout) -> Path:
    return layout.root / COSTS_PATH


def start_order(scripts: list[str], seconds: dict[str, int]) -> list[str]:
    """`scripts` in the order to start them: those without a record first (by name), then the
    recorded ones by falling cost, ties by name."""
    unknown = sorted(s for s in scripts if s not in seconds)
    known = sorted((s for s in scripts if s in seconds), key=lambda s: (-seconds[s], s))
    return unknown + known


def parse_costs(text: str, name: str) -> dict[str, int]:
    """The record's text -> {script file name: whole seconds}; anything else is an error that
    names the file (and the line, for bad JSON)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise CommandError(f"{name}:{error.lineno}: not JSON ({error.msg}); delete it or run "
                            "`make costs` to write it again") from None
    if not isinstance(data, dict):
        raise CommandError(f"{name}: expected an object of script name -> seconds; delete it "
                            "or run `make costs` to write it again")
    bad = sorted(key for key, value in data.items()
                 if not (isinstance(value, int) and not isinstance(value, bool) and value >= 0))
    if bad:
        raise CommandError(f"{name}: {', '.join(bad)}: the seconds must be whole numbers >= 0; "
                            "delete it or run `make costs` to write it again")
    return data


def read_costs(layout: Layout = DEFAULT) -> dict[str, int]:
    """The recorded seconds per script; empty when there is no record."""
    path = costs_path(layout)
    if not path.is_file():
        return {}
    return parse_costs(path.read_text(encoding="utf-8"), layout.relative(path))


def render_costs(seconds: dict[str, float]) -> str:
    """The record's text: one script a line, by name, whole seconds."""
    return json.dumps({s: round(seconds[s]) for s in sorted(seconds)}, indent=1) + "\n"
