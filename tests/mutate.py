"""Targeted mutation testing of explainer_tools and pacbound: does some test fail when the code
is broken? (`make mutate`, minutes; not part of `make test`.)

Each mutant replaces one exact snippet of one file (it must occur exactly once, else the harness
stops naming the file) in a scratch copy of the repository, then runs the tests named for it
there, with a per-test timeout so that a mutant that hangs counts as caught instead of hanging.
A mutant is *killed* when those tests fail, *survives* when they pass. The score is killed /
all, per module and overall; every survivor is printed with what it breaks, to be killed by a
new test or explained.

The mutants live in `tests/mutants_*.py`, by area, each file a list `MUTANTS` of `Mutant`s, so
that whoever changes a module adds its mutants without touching this file. Every module of
explainer_tools and pacbound has mutants or a reason in `NOT_COVERED`;
tests/test_mutants.py checks that (and that every snippet still occurs exactly once, so that a
refactor that moves code fails loudly instead of silently dropping a mutant).

    .venv/bin/python tests/mutate.py                    # every mutant
    .venv/bin/python tests/mutate.py -k runner          # names containing "runner"
    .venv/bin/python tests/mutate.py --module pacbound  # pacbound.* (or one module: blocks)
    .venv/bin/python tests/mutate.py --list             # names only, by module
    make mutate                                         # the same as the first line
"""

from __future__ import annotations

import argparse
import importlib.util
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

if __name__ == "__main__":  # the mutant files import `Mutant` from here: one class, not two
    sys.modules.setdefault("mutate", sys.modules[__name__])

REPO_ROOT = Path(__file__).resolve().parent.parent
TESTS_DIR = REPO_ROOT / "tests"
SKIPPED = shutil.ignore_patterns(".git", ".venv", "site", ".cache", "build", "__pycache__",
                                 ".pytest_cache", ".ruff_cache")
TEST_TIMEOUT_S = 120
# The packages whose modules must each have mutants: (import prefix, folder).
PACKAGES = (("explainer_tools", "explainer_tools"), ("pacbound", "explainer_code/pacbound"))
MIN_MUTANTS = 2  # per covered module
# Modules without mutants of their own, and why (tests/test_mutants.py holds the list exact).
NOT_COVERED = {
    "explainer_tools.claims.__main__": "two lines: calls cli.main",
    "explainer_tools.claims": "re-exports only (its one example is skipped)",
    "explainer_tools.scripts.sandbox_report": "make sandbox's one line: prints "
                                              "containment.sandbox_status and zygote.probe, "
                                              "each tested where it is defined",
}


@dataclass(frozen=True)
class Mutant:
    name: str
    path: str  # repository-relative file
    old: str  # exact snippet, occurring once
    new: str
    tests: tuple[str, ...]  # pytest node ids or files, run in the copy (a -k applies to all)
    timeout: int = TEST_TIMEOUT_S  # per test; lower for a mutant known to make its test hang

    @property
    def module(self) -> str:
        """`explainer_tools/claims/page.py` -> `explainer_tools.claims.page`,
        `explainer_code/pacbound/occam.py` -> `pacbound.occam`."""
        return module_of(self.path)


def module_of(path: str) -> str:
    for package, folder in PACKAGES:
        if path.startswith(folder + "/"):
            rest = Path(path[len(folder) + 1:]).with_suffix("")
            parts = [p for p in rest.parts if p != "__init__"]
            return ".".join([package, *parts])
    return Path(path).with_suffix("").as_posix().replace("/", ".")


def package_modules(root: Path = REPO_ROOT) -> list[str]:
    """Every module of explainer_tools and pacbound, by dotted name."""
    found = []
    for _package, folder in PACKAGES:
        for path in sorted((root / folder).rglob("*.py")):
            if "__pycache__" not in path.parts:
                found.append(module_of(path.relative_to(root).as_posix()))
    return sorted(found)


def mutant_files(tests_dir: Path = TESTS_DIR) -> list[Path]:
    return sorted(tests_dir.glob("mutants_*.py"))


def load_mutants(tests_dir: Path = TESTS_DIR) -> list[Mutant]:
    """The `MUTANTS` of every tests/mutants_*.py, in file order; names are unique."""
    found: list[Mutant] = []
    for path in mutant_files(tests_dir):
        spec = importlib.util.spec_from_file_location(f"_mutants_{path.stem}", path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        listed = getattr(module, "MUTANTS", None)
        if not isinstance(listed, list):
            raise SystemExit(f"{path}: defines no list MUTANTS")
        found += listed
    repeated = [name for name, count in Counter(m.name for m in found).items() if count > 1]
    if repeated:
        raise SystemExit(f"mutant names used twice: {', '.join(repeated)}")
    return found


def source(root: Path, mutant: Mutant) -> str:
    """The file's text; the harness stops when the snippet does not occur exactly once."""
    text = (root / mutant.path).read_text(encoding="utf-8")
    count = text.count(mutant.old)
    if count != 1:
        raise SystemExit(f"{mutant.path}: the snippet of mutant {mutant.name!r} occurs {count} "
                         "times (expected once); update its tests/mutants_*.py")
    return text


def apply(root: Path, mutant: Mutant) -> None:
    text = source(root, mutant)
    (root / mutant.path).write_text(text.replace(mutant.old, mutant.new), encoding="utf-8")


def run(mutant: Mutant, template: Path) -> tuple[bool, float, str]:
    """(killed, seconds, last lines of pytest's report)."""
    with tempfile.TemporaryDirectory(prefix="mutant-") as scratch:
        root = Path(scratch) / "repo"
        shutil.copytree(template, root, symlinks=True)
        apply(root, mutant)
        began = time.monotonic()
        result = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
             f"--timeout={mutant.timeout}", *mutant.tests],
            cwd=root, capture_output=True, text=True, check=False)
        lines = [line for line in (result.stdout + result.stderr).splitlines()
                 if line.strip() and "durations" not in line]  # the suite's --durations=15
        tail = "\n".join(lines[-3:])
        if result.returncode not in (0, 1):  # 2-5: the run itself failed (collection, usage)
            raise SystemExit(f"mutant {mutant.name!r}: pytest exit {result.returncode}\n{tail}")
        return result.returncode == 1, time.monotonic() - began, tail


def selected(mutants: list[Mutant], names: list[str], modules: list[str]) -> list[Mutant]:
    """Those whose name contains one of `names` and whose module is one of `modules` (a dotted
    name or any run of its parts: `pacbound`, `blocks`, `claims`, `claims.page`)."""
    def in_module(mutant: Mutant) -> bool:
        return any(f".{m}." in f".{mutant.module}." for m in modules)
    return [m for m in mutants
            if (not names or any(k in m.name for k in names)) and (not modules or in_module(m))]


def score_table(results: list[tuple[Mutant, bool]], modules: list[str]) -> str:
    """Killed / mutants per module (every module of the packages when `modules` says so), and
    the overall score."""
    per: dict[str, list[bool]] = {}
    for mutant, killed in results:
        per.setdefault(mutant.module, []).append(killed)
    rows = [f"{'module':<36} {'killed':>6} {'of':>4} {'score':>6}"]
    for module in sorted({*modules, *per}):
        kills = per.get(module)
        if kills:
            note = f"  ({NOT_COVERED[module]})" if module in NOT_COVERED else ""
            rows.append(f"{module:<36} {sum(kills):>6} {len(kills):>4} "
                        f"{100 * sum(kills) / len(kills):>5.0f}%{note}")
        else:
            rows.append(f"{module:<36} {'-':>6} {'-':>4} {'-':>6}  "
                        f"{NOT_COVERED.get(module, 'NO MUTANTS')}")
    killed = sum(k for _, k in results)
    rows.append(f"{'overall':<36} {killed:>6} {len(results):>4} "
                f"{100 * killed / max(1, len(results)):>5.0f}%")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("-k", action="append", default=[],
                        help="only mutants whose name contains this (repeatable: any of them)")
    parser.add_argument("--module", action="append", default=[],
                        help="only mutants of this module or package (repeatable)")
    parser.add_argument("--list", action="store_true", help="print the mutants' names, run none")
    args = parser.parse_args(argv)
    chosen = selected(load_mutants(), args.k, args.module)
    if args.list:
        for mutant in sorted(chosen, key=lambda m: m.module):
            print(f"{mutant.module:<36} {mutant.name}")
        print(f"{len(chosen)} mutants")
        return 0
    began = time.monotonic()
    results: list[tuple[Mutant, bool]] = []
    survivors = []
    with tempfile.TemporaryDirectory(prefix="mutate-") as scratch:
        template = Path(scratch) / "repo"
        shutil.copytree(REPO_ROOT, template, ignore=SKIPPED, symlinks=True)
        for mutant in chosen:
            source(template, mutant)  # every snippet exists before the first run
        for mutant in chosen:
            killed, seconds, tail = run(mutant, template)
            print(f"{'killed  ' if killed else 'SURVIVED'} {seconds:6.1f} s  {mutant.module}: "
                  f"{mutant.name}", flush=True)
            results.append((mutant, killed))
            if not killed:
                survivors.append((mutant, tail))
    whole = not args.k and not args.module
    print(score_table(results, package_modules() if whole else []))
    print(f"mutation score: {len(results) - len(survivors)}/{len(results)} killed "
          f"in {time.monotonic() - began:.0f} s")
    for mutant, tail in survivors:
        print(f"  survivor: {mutant.name} ({mutant.path}); tests {', '.join(mutant.tests)}\n"
              f"    {tail}")
    return 0 if not survivors else 1


if __name__ == "__main__":
    sys.exit(main())
