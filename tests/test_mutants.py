"""The mutation harness's lists stay in step with the code (fast: no mutant is run).

`make mutate` (tests/mutate.py) replaces exact snippets; a refactor that moves or rewrites one
would otherwise drop its mutant silently. Here every snippet must occur exactly once in its file,
every test a mutant names must exist, and every module of explainer_tools and pacbound must have
mutants or a stated reason in `mutate.NOT_COVERED`.
"""

from __future__ import annotations

import ast
import functools
import re
from collections import Counter
from pathlib import Path

import mutate
import pytest

MUTANTS = mutate.load_mutants()
ROOT = mutate.REPO_ROOT


@functools.cache
def _text(path: str) -> str:
    return (ROOT / path).read_text(encoding="utf-8")


def _code_only(snippet: str) -> str:
    return "".join(re.sub(r"#[^\n]*", "", snippet).split())


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m.name for m in MUTANTS])
def test_each_snippet_occurs_exactly_once_and_changes_the_code(mutant: mutate.Mutant) -> None:
    text = _text(mutant.path)
    assert text.count(mutant.old) == 1, f"{mutant.path}: snippet of {mutant.name!r}"
    assert _code_only(mutant.old) != _code_only(mutant.new), (
        f"{mutant.name!r} changes only comments or layout")
    compile(text.replace(mutant.old, mutant.new), mutant.path, "exec")  # else it proves nothing


@functools.cache
def _test_names(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)}


@pytest.mark.parametrize("mutant", MUTANTS, ids=[m.name for m in MUTANTS])
def test_each_named_test_exists(mutant: mutate.Mutant) -> None:
    options = {"-k", "-m"}
    args = list(mutant.tests)
    targets = [a for i, a in enumerate(args) if a not in options and (i == 0 or args[i - 1]
                                                                       not in options)]
    assert targets, f"{mutant.name!r} names no test"
    expression = args[args.index("-k") + 1] if "-k" in args else ""
    if expression and not expression.startswith("not "):  # it selects in every file named
        assert not [t for t in targets if t.endswith("_mutants.py")], (
            f"{mutant.name!r}: -k {expression!r} would deselect the tests written for it")
    for target in targets:
        file, _, node = target.partition("::")
        assert (ROOT / file).is_file(), f"{mutant.name!r}: no {file}"
        if node:
            name = node.split("::")[-1].split("[")[0]
            assert name in _test_names(ROOT / file), f"{mutant.name!r}: no {target}"


def test_every_module_has_mutants_or_a_reason() -> None:
    counts = Counter(m.module for m in MUTANTS)
    modules = mutate.package_modules()
    thin = {m: counts[m] for m in modules
            if m not in mutate.NOT_COVERED and counts[m] < mutate.MIN_MUTANTS}
    assert not thin, f"modules with fewer than {mutate.MIN_MUTANTS} mutants: {thin}"
    stale = set(mutate.NOT_COVERED) - set(modules)
    assert not stale, f"NOT_COVERED names modules that do not exist: {stale}"
    assert all(m.path.endswith(".py") and (ROOT / m.path).is_file() for m in MUTANTS)


def test_the_module_names_follow_the_packages() -> None:
    assert mutate.module_of("explainer_tools/claims/page.py") == "explainer_tools.claims.page"
    assert mutate.module_of("explainer_tools/claims/__init__.py") == "explainer_tools.claims"
    assert mutate.module_of("explainer_code/pacbound/occam.py") == "pacbound.occam"
    assert "pacbound" in mutate.package_modules()


def test_selection_by_name_and_module() -> None:
    chosen = mutate.selected(MUTANTS, [], ["pacbound"])
    assert chosen and all(m.module.startswith("pacbound") for m in chosen)
    blocks = mutate.selected(MUTANTS, [], ["blocks"])
    assert blocks and {m.module for m in blocks} == {"explainer_tools.blocks"}
    claims = mutate.selected(MUTANTS, [], ["claims"])
    assert claims and all(m.module.startswith("explainer_tools.claims.") for m in claims)
    page = mutate.selected(MUTANTS, [], ["claims.page"])
    assert page and {m.module for m in page} == {"explainer_tools.claims.page"}
    assert mutate.selected(MUTANTS, ["no such mutant name"], []) == []


def test_the_score_table_names_every_module_and_the_total(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(mutate.NOT_COVERED, "explainer_tools.website.pdf", "a stated reason")
    results = [(m, i % 2 == 0) for i, m in enumerate(mutate.selected(MUTANTS, [], ["blocks"]))]
    table = mutate.score_table(results, ["explainer_tools.blocks", "explainer_tools.website.pdf"])
    assert "explainer_tools.blocks" in table
    assert "explainer_tools.website.pdf" in table and "a stated reason" in table
    killed = sum(k for _, k in results)
    assert table.splitlines()[-1].split()[:3] == ["overall", str(killed), str(len(results))]
