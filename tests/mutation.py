"""Mutation testing of explainer_tools and pacbound with cosmic-ray: does some test fail when the
code is broken? (`make mutate`, long; not part of `make test`.)

For each module in tests/mutation.toml, cosmic-ray generates its mutants and applies them one at
a time to a scratch copy of the repository (the working tree is never changed), running the
module's tests there after each: files on disk are mutated, so tests that start subprocesses or
import the package by path test the mutant too. A mutant is killed when the tests fail or time
out, survives when they pass. Per module, the score (killed / run) and every survivor with its
diff are printed; a module whose tests fail unmutated stops the run.

    make mutate                               # every module (hours)
    make mutate MODULE=explainer_tools.glue   # one module, or a package: MODULE=pacbound
    .venv/bin/python tests/mutation.py explainer_tools.website --keep build/mutation
"""

from __future__ import annotations

import argparse
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Iterable
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
CONFIG = REPO_ROOT / "tests" / "mutation.toml"
NOT_COPIED = shutil.ignore_patterns(".git", ".venv", ".venv-lock", "site", "site-offline",
                                    ".cache", "build", "__pycache__", ".pytest_cache",
                                    ".ruff_cache", "node_modules")
PACKAGES = {"explainer_tools": "explainer_tools", "pacbound": "explainer_code/pacbound"}


def module_name(path: str) -> str:
    """`explainer_tools/claims/page.py` -> `explainer_tools.claims.page`,
    `explainer_code/pacbound/__init__.py` -> `pacbound`.

    >>> module_name("explainer_code/pacbound/occam.py"), module_name("explainer_tools/__init__.py")
    ('pacbound.occam', 'explainer_tools')
    """
    for package, folder in PACKAGES.items():
        if path.startswith(folder + "/"):
            parts = Path(path[len(folder) + 1:]).with_suffix("").parts
            return ".".join([package, *(p for p in parts if p != "__init__")])
    raise ValueError(f"{path}: not in {' or '.join(PACKAGES.values())}")


def package_files(root: Path = REPO_ROOT) -> list[str]:
    """Every module file of the packages, repository-relative."""
    return sorted(p.relative_to(root).as_posix() for folder in PACKAGES.values()
                  for p in (root / folder).rglob("*.py") if "__pycache__" not in p.parts)


def load_config(path: Path = CONFIG) -> dict:
    """The list, checked: a module's tests are a list of strings, a reason is a string."""
    text = path.read_text(encoding="utf-8")
    try:
        config = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:  # its message names the line
        raise SystemExit(f"{path}: {error}") from None
    for table, kind, what in (("modules", list, "a list of pytest arguments"),
                              ("not-mutated", str, "a reason")):
        for key, value in config.get(table, {}).items():
            if not isinstance(value, kind) or (kind is list and not all(
                    isinstance(v, str) for v in value)):
                line = next((n for n, row in enumerate(text.splitlines(), 1)
                             if row.startswith(f'"{key}"')), "?")
                raise SystemExit(f"{path}:{line}: [{table}] {key}: expected {what}")
    return config


def selected(modules: Iterable[str], wanted: list[str]) -> list[str]:
    """The files whose module is one of `wanted` or inside it (all when none is named)."""
    chosen = [path for path in modules if not wanted or any(
        module_name(path) == w or module_name(path).startswith(w + ".") for w in wanted)]
    if not chosen:
        raise SystemExit(f"{CONFIG}: no module is {' or '.join(wanted)} or inside it")
    return chosen


def cosmic_ray_config(path: str, tests: list[str], run: dict, timeout_s: float) -> str:
    """One module's cosmic-ray session config (TOML). The test command runs in the copy."""
    command = shlex.join([sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider",
                          f"--timeout={run['per-test-timeout']}", *tests])
    excluded = ", ".join(f"'{pattern}'" for pattern in run["exclude-operators"])
    return (f"[cosmic-ray]\nmodule-path = '{path}'\ntimeout = {timeout_s:.0f}.0\n"
            f"excluded-modules = []\ntest-command = '''{command}'''\n"
            f"[cosmic-ray.distributor]\nname = 'local'\n"
            f"[cosmic-ray.filters.operators-filter]\nexclude-operators = [{excluded}]\n")


def tool(name: str) -> str:
    """A command of the cosmic-ray installed beside this Python."""
    return str(Path(sys.executable).parent / name)


def mutate_module(copy: Path, path: str, tests: list[str], run: dict, out: Path) -> list[str]:
    """Run one module's session in `copy`; return its report lines."""
    name = module_name(path)
    began = time.monotonic()
    baseline = subprocess.run([sys.executable, "-m", "pytest", "-x", "-q", "-p",
                               "no:cacheprovider", *tests], cwd=copy, capture_output=True,
                              text=True, check=False)
    seconds = time.monotonic() - began
    if baseline.returncode != 0:
        tail = "\n".join((baseline.stdout + baseline.stderr).splitlines()[-15:])
        raise SystemExit(f"{name}: its tests fail before any mutation ({' '.join(tests)}):\n{tail}")
    config, session = out / f"{name}.toml", out / f"{name}.sqlite"
    # A mutant may slow the tests down a little; one that makes them hang is killed.
    config.write_text(cosmic_ray_config(path, tests, run, 30 + 4 * seconds), encoding="utf-8")
    session.unlink(missing_ok=True)
    for command in (["cosmic-ray", "init", config, session],
                    ["cr-filter-operators", session, config],
                    ["cosmic-ray", "exec", config, session]):
        subprocess.run([tool(command[0]), *map(str, command[1:])], cwd=copy, check=True)
    return summary(name, session)


def diff_body(diff: str | None) -> list[str]:
    """A mutant's diff without its file header (the survivor's line names the file)."""
    return [line for line in (diff or "").splitlines()
            if line.strip() and not line.startswith(("--- ", "+++ "))]


def summary(name: str, session: Path) -> list[str]:
    """The module's score and its survivors, with their diffs."""
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import TestOutcome, WorkerOutcome

    killed, survivors = 0, []
    with use_db(str(session), WorkDB.Mode.open) as db:
        for item, result in db.completed_work_items:
            if result.worker_outcome == WorkerOutcome.SKIPPED:
                continue
            if result.test_outcome == TestOutcome.SURVIVED:
                mutation = item.mutations[0]
                survivors.append(f"  survivor: {mutation.module_path}:{mutation.start_pos[0]} "
                                 f"{mutation.operator_name.removeprefix('core/')}\n"
                                 + "\n".join(f"    {line}" for line in diff_body(result.diff)))
            else:
                killed += 1
    total = killed + len(survivors)
    score = f"{100 * killed / total:.0f}%" if total else "-"
    return [f"{name}: {killed} of {total} mutants killed ({score})", *sorted(survivors)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("module", nargs="*", help="dotted module or package name (default: all)")
    parser.add_argument("--keep", type=Path, help="a folder to keep the sessions in (sqlite; "
                                                  "cr-report and cr-html read them)")
    args = parser.parse_args(argv)
    config = load_config()
    chosen = selected(config["modules"], args.module)
    report: list[str] = []
    with tempfile.TemporaryDirectory(prefix="mutation-") as scratch:
        copy, out = Path(scratch) / "repo", (args.keep or Path(scratch) / "sessions").resolve()
        shutil.copytree(REPO_ROOT, copy, ignore=NOT_COPIED, symlinks=True)
        out.mkdir(parents=True, exist_ok=True)
        for path in chosen:
            print(f"== {module_name(path)} ({path})", flush=True)
            lines = mutate_module(copy, path, config["modules"][path], config["run"], out)
            print("\n".join(lines), flush=True)
            report += lines[:1]
    print("\n".join(["mutation scores:", *report]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
