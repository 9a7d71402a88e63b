"""`make mutate`'s list (tests/mutation.toml) stays in step with the code and the tests (fast: no
mutant is generated or run): every module of explainer_tools and pacbound has tests named there
or a reason it has none, and every test named exists."""

from __future__ import annotations

import ast
import functools
import importlib.util
import tomllib
from pathlib import Path

import mutation
import pytest

CONFIG = mutation.load_config()
MODULES: dict[str, list[str]] = CONFIG["modules"]
ROOT = mutation.REPO_ROOT


def test_every_module_has_tests_or_a_reason_and_no_entry_is_stale() -> None:
    listed, reasons = set(MODULES), set(CONFIG["not-mutated"])
    assert not listed & reasons, f"both mutated and not: {sorted(listed & reasons)}"
    files = set(mutation.package_files())
    assert not files - listed - reasons, f"modules missing from {mutation.CONFIG}: " \
                                         f"{sorted(files - listed - reasons)}"
    assert not (listed | reasons) - files, f"no such module: {sorted((listed | reasons) - files)}"
    assert all(reason.strip() for reason in CONFIG["not-mutated"].values())


@functools.cache
def _functions(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name for node in ast.walk(tree) if isinstance(node, ast.FunctionDef)}


@pytest.mark.parametrize("module", sorted(MODULES))
def test_each_named_test_exists(module: str) -> None:
    arguments = MODULES[module]
    targets = [a for i, a in enumerate(arguments)
               if not a.startswith("-") and (i == 0 or arguments[i - 1] != "-k")]
    assert targets, f"{module}: names no test"
    for target in targets:
        file, _, node = target.partition("::")
        assert (ROOT / file).is_file(), f"{module}: no {file}"
        if node:
            function, _, parameter = node.partition("[")
            assert function in _functions(ROOT / file), f"{module}: no {target}"
            if file == "tests/test_doctests.py":  # its ids are the modules whose examples run
                assert importlib.util.find_spec(parameter.rstrip("]")), f"{module}: no {target}"


def test_module_names_and_selection() -> None:
    assert mutation.module_name("explainer_tools/claims/page.py") == "explainer_tools.claims.page"
    assert mutation.module_name("explainer_code/pacbound/__init__.py") == "pacbound"
    files = ["explainer_tools/glue.py", "explainer_tools/glue_migrate.py",
             "explainer_tools/website/pdf.py", "explainer_code/pacbound/occam.py"]
    assert mutation.selected(files, ["explainer_tools.glue"]) == ["explainer_tools/glue.py"]
    assert mutation.selected(files, ["explainer_tools.website", "pacbound"]) == files[2:]
    assert mutation.selected(files, []) == files
    with pytest.raises(SystemExit, match=r"no module is explainer_tools\.glu or inside it"):
        mutation.selected(files, ["explainer_tools.glu"])


def test_the_session_config_runs_the_modules_tests_with_a_time_limit_per_test() -> None:
    text = mutation.cosmic_ray_config("explainer_tools/glue.py", MODULES["explainer_tools/glue.py"],
                                      CONFIG["run"], 90)
    session = tomllib.loads(text)["cosmic-ray"]
    assert session["module-path"] == "explainer_tools/glue.py"
    assert session["timeout"] == 90
    command = session["test-command"].split()
    assert command[1:3] == ["-m", "pytest"] and "tests/test_glue.py" in command
    assert f"--timeout={CONFIG['run']['per-test-timeout']}" in command
    assert session["filters"]["operators-filter"]["exclude-operators"] == \
        CONFIG["run"]["exclude-operators"]


def test_a_malformed_list_is_one_error_naming_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "mutation.toml"
    bad.write_text('[modules]\n"explainer_tools/glue.py" = tests/test_glue.py\n')
    with pytest.raises(SystemExit, match=r"mutation.toml: .*line 2"):
        mutation.load_config(bad)
    bad.write_text('[modules]\n"explainer_tools/blocks.py" = ["tests/test_blocks.py"]\n'
                   '"explainer_tools/glue.py" = "tests/test_glue.py"\n')
    with pytest.raises(SystemExit, match=r"mutation.toml:3: \[modules\] explainer_tools/glue.py: "
                                         "expected a list of pytest arguments"):
        mutation.load_config(bad)
    bad.write_text('[not-mutated]\n"explainer_tools/claims/__main__.py" = ["no reason"]\n')
    with pytest.raises(SystemExit, match=r"mutation.toml:2: .*expected a reason"):
        mutation.load_config(bad)


def test_cosmic_ray_is_pinned_for_make_mutate_alone() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    rule = makefile[makefile.index("\nmutate:"):].split("\n\n")[0]
    assert rule.splitlines()[1].startswith("mutate: $(MUTATE_INSTALLED) ")
    assert "tests/mutation.py $(MODULE)" in rule
    installs = makefile[makefile.index("\n$(MUTATE_INSTALLED):"):].split("\n\n")[0]
    assert "--require-hashes -r requirements-mutate.lock" in installs

    def pins(lock: str) -> set[str]:
        lines = (ROOT / lock).read_text(encoding="utf-8").splitlines()
        return {line.split("==")[0] for line in lines if "==" in line and line[0].isalpha()}

    assert "cosmic-ray" in pins("requirements-mutate.lock")
    assert "cosmic-ray" not in pins("requirements.lock") | pins("requirements-test.lock")
