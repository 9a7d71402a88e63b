"""explainer_tools is layered: a package or module imports only those of lower layers (no circles),
and of the packages beside its own only what `explainer_tools.IMPORTS` lists.

The top level's layers are `explainer_tools.LAYERS` (the shared modules, the packages, the
commands); inside a package, the package's own `LAYERS`. Every import counts, including those
inside functions.
"""

from __future__ import annotations

import ast
import importlib
import re
from pathlib import Path

import pytest

import explainer_tools

TOOLS = Path(explainer_tools.__file__).resolve().parent
PACKAGES = sorted(p.name for p in TOOLS.iterdir() if (p / "__init__.py").is_file())


def inner_layers(package: str) -> dict[str, int]:
    """A package's order of its modules, from its `LAYERS`; `__init__` below all (it imports
    nothing), except in `claims`, whose `__init__` gathers the public names and so sits above
    them all. No package has a `__main__`: a command is a subcommand or a module's `main`."""
    layers = importlib.import_module(f"explainer_tools.{package}").LAYERS
    return {**layers, "__init__": max(layers.values()) + 1 if package == "claims" else -1}


def imported(path: Path, parts: tuple[str, ...]) -> set[str]:
    """Dotted names (after `explainer_tools.`) of the explainer_tools modules `path`, placed at
    `parts` inside explainer_tools, imports: `from explainer_tools.scripts import runner` and, in
    a module of `website`, `from ..scripts import runner` name `scripts.runner`."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(a.name.removeprefix("explainer_tools.") for a in node.names
                         if a.name.startswith("explainer_tools."))
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: from the module's package, one folder up per extra dot
                package = ("explainer_tools", *parts[:-1])
                if node.level > len(package):
                    continue
                module = ".".join(package[:len(package) - node.level + 1]
                                  + ((node.module,) if node.module else ()))
            else:
                module = node.module or ""
            if module != "explainer_tools" and not module.startswith("explainer_tools."):
                continue
            base = module.removeprefix("explainer_tools").lstrip(".")
            for alias in node.names:
                full = f"{base}.{alias.name}".lstrip(".")
                is_module = ((TOOLS / f"{full.replace('.', '/')}.py").is_file()
                             or (TOOLS / full.replace(".", "/") / "__init__.py").is_file())
                names.add(full if is_module else base)
    return names


MODULES = sorted(p for p in TOOLS.rglob("*.py") if "__pycache__" not in p.parts)


def test_every_module_has_a_layer() -> None:
    tops = {p.relative_to(TOOLS).parts[0].removesuffix(".py") for p in MODULES} - {"__init__"}
    assert tops == set(explainer_tools.LAYERS)
    above_shared = {name for name, layer in explainer_tools.LAYERS.items() if layer >= 2}
    assert set(explainer_tools.IMPORTS) == above_shared  # each package and command has its list
    for package in PACKAGES:
        inside = {p.stem for p in (TOOLS / package).glob("*.py")} - {"__init__"}
        assert inside == set(inner_layers(package)) - {"__init__"}, package


def violations(path: Path, parts: tuple[str, ...]) -> list[str]:
    """The layer rule applied to the file at `path`, placed at `parts` inside explainer_tools."""
    here = parts[0].removesuffix(".py")
    names = sorted(imported(path, parts))
    found = []
    if parts[-1] == "__init__.py":  # no __init__ imports anything
        if parts != ("claims", "__init__.py"):
            return [f"{'/'.join(parts)} imports {name}" for name in names]
        # but the claim check's, which gathers the public names of its own modules
        found = [f"claims/__init__.py imports {name}, not a module of claims"
                 for name in names if not name.startswith("claims.")]
        names = [name for name in names if name.startswith("claims.")]
    for name in names:
        other = name.split(".")[0]
        if other == here:  # inside a package: its own order
            inner = inner_layers(here)
            inner_here = parts[-1].removesuffix(".py")
            inner_other = name.split(".")[1] if "." in name else "__init__"
            if inner_other not in inner:
                found.append(f"{name} has no layer in {here}")
            elif inner[inner_other] >= inner[inner_here]:
                found.append(f"{path.name} imports {name}, which comes later in the package")
        elif other not in explainer_tools.LAYERS:
            found.append(f"{name} has no layer")
        elif explainer_tools.LAYERS[other] >= explainer_tools.LAYERS[here]:
            found.append(f"{here} (layer {explainer_tools.LAYERS[here]}) imports {other} "
                         f"(layer {explainer_tools.LAYERS[other]})")
        elif other in PACKAGES and not any(
                name == allowed or name.startswith(f"{allowed}.")
                for allowed in explainer_tools.IMPORTS.get(here, ())):
            found.append(f"{here} imports {name}, which IMPORTS[{here!r}] does not list")
    return found


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.relative_to(TOOLS).as_posix())
def test_imports_only_lower_layers(path: Path) -> None:
    assert violations(path, path.relative_to(TOOLS).parts) == []


@pytest.mark.parametrize(("parts", "text"), [
    (("layout.py",), "from explainer_tools.scripts.pipeline import plan\n"),
    (("layout.py",), "def f():\n    import explainer_tools.scripts.runner\n"),  # in a function
    (("markdown.py",), "from explainer_tools import layout\n"),  # the same layer
    (("scripts", "runner.py"), "from explainer_tools.scripts import notebooks\n"),  # the same
    (("scripts", "pipeline.py"), "from explainer_tools.book import errata\n"),  # a higher package
    (("book", "errata.py"), "from explainer_tools.claims.api import verified_numbers\n"),  # beside
    (("website", "build_cache.py"),
     "from explainer_tools.website.reader_features import ReaderState\n"),
    (("claims", "numbers.py"), "from explainer_tools.claims.page import x\n"),
    (("__init__.py",), "import explainer_tools.layout\n"),
    (("scripts", "__init__.py"), "from explainer_tools.scripts import runner\n"),
    # a lower package's module that IMPORTS does not list
    (("claims", "check.py"), "from explainer_tools.scripts.runner import run\n"),
    (("book", "errata.py"), "from explainer_tools.scripts import stamps\n"),
    (("website", "plugin.py"), "from explainer_tools.claims.page import x\n"),
    (("glue_migrate.py",), "from explainer_tools.book import errata\n"),
    # relative imports, resolved from the module's place
    (("website", "plugin.py"), "from ..claims import page\n"),
    (("website", "plugin.py"), "from ..claims.page import x\n"),
    (("claims", "numbers.py"), "from . import page\n"),
    (("claims", "numbers.py"), "from .page import x\n"),
    (("layout.py",), "from .scripts import runner\n"),
    # a package's __init__ imports nothing, not even a shared module or a listed package
    (("book", "__init__.py"), "from explainer_tools import layout\n"),
    (("website", "__init__.py"), "from ..book import crossref\n"),
    (("claims", "__init__.py"), "from explainer_tools.layout import DEFAULT\n"),
])
def test_the_check_catches_an_upward_import(tmp_path: Path, parts: tuple[str, ...],
                                            text: str) -> None:
    bad = tmp_path / parts[-1]
    bad.write_text(text)
    assert len(violations(bad, parts)) == 1


@pytest.mark.parametrize(("parts", "text"), [
    (("website", "last_verified.py"), "from explainer_tools.scripts.stamps import read_stamp\n"),
    (("website", "plugin.py"), "from explainer_tools.book.crossref import x\n"),  # all of book
    (("__main__.py",), "from explainer_tools.scripts import pipeline\n"),
    (("claims", "check.py"), "from explainer_tools import tree_io\n"),  # a shared module
    (("claims", "check.py"), "from .. import tree_io\n"),
    (("website", "plugin.py"), "from ..claims.api import verified_numbers\n"),
    (("claims", "check.py"), "from .page import x\n"),
    (("claims", "__init__.py"), "from .check import check_site\n"),  # it gathers its names
])
def test_what_imports_lists_passes(tmp_path: Path, parts: tuple[str, ...], text: str) -> None:
    good = tmp_path / parts[-1]
    good.write_text(text)
    assert violations(good, parts) == []


def test_a_module_two_packages_import_is_a_shared_one() -> None:
    """A module inside a package that modules of two other packages import belongs at the top
    level, among the shared modules (the commands, which compose everything, aside)."""
    importers: dict[str, set[str]] = {}
    for path in MODULES:
        here = path.relative_to(TOOLS).parts[0].removesuffix(".py")
        if here in PACKAGES:
            for name in imported(path, path.relative_to(TOOLS).parts):
                if "." in name and name.split(".")[0] != here:
                    importers.setdefault(name, set()).add(here)
    assert {name: sorted(by) for name, by in importers.items() if len(by) > 1} == {}


def runs_only_main(text: str) -> bool:
    """Whether a module's `if __name__ == "__main__":` runs its `main` and nothing else:
    `main()`, `sys.exit(main())` or `raise SystemExit(main())`."""
    def calls_main(node: ast.expr | None) -> bool:
        return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                and node.func.id == "main" and not node.args and not node.keywords)

    def exits_with_main(node: ast.expr | None) -> bool:
        return (isinstance(node, ast.Call) and len(node.args) == 1 and not node.keywords
                and ast.unparse(node.func) in {"sys.exit", "SystemExit"}
                and calls_main(node.args[0]))

    blocks = [node.body for node in ast.parse(text).body if isinstance(node, ast.If)
              and ast.unparse(node.test) in {"__name__ == '__main__'", "'__main__' == __name__"}]
    if len(blocks) != 1 or len(blocks[0]) != 1:
        return False
    (statement,) = blocks[0]
    if isinstance(statement, ast.Expr):
        return calls_main(statement.value) or exits_with_main(statement.value)
    return isinstance(statement, ast.Raise) and exits_with_main(statement.exc)


@pytest.mark.parametrize(("text", "expected"), [
    ("def main(): ...\nif __name__ == '__main__':\n    sys.exit(main())\n", True),
    ("def main(): ...\nif __name__ == '__main__':\n    raise SystemExit(main())\n", True),
    ("def main(): ...\nif __name__ == '__main__':\n    main()\n", True),
    ("def main(): ...\nif __name__ == '__main__':\n    sys.exit(other())\n", False),
    ("def main(j): ...\nif __name__ == '__main__':\n    args = parse()\n    main(args.j)\n",
     False),  # the command line parsed outside main
    ("def main(): ...\n", False),
])
def test_the_check_sees_whether_a_module_runs_its_main(text: str, expected: bool) -> None:
    assert runs_only_main(text) is expected


def test_every_command_the_makefile_runs_is_the_command_line_or_a_modules_main() -> None:
    """Where a command goes (explainer_tools/__init__.py): `python -m explainer_tools SUBCOMMAND`,
    or `python -m explainer_tools.PACKAGE.MODULE` for a module whose `main` is what runs."""
    makefile = (TOOLS.parent / "Makefile").read_text(encoding="utf-8")
    modules = re.findall(r"-m (explainer_tools(?:\.\w+)*)", makefile)
    assert "explainer_tools" in modules
    for module in set(modules) - {"explainer_tools"}:
        path = TOOLS.parent / f"{module.replace('.', '/')}.py"
        assert runs_only_main(path.read_text(encoding="utf-8")), (
            f"the Makefile runs {module}, whose `if __name__` runs more than its main()")


def test_scripts_and_tools_agree_on_the_figure_folder() -> None:
    """explainer_code/script_io.py cannot import explainer_tools (scripts run standalone), so
    the one duplicated name is checked here."""
    import script_io

    from explainer_tools import layout

    assert script_io.FIG_DIR_ENV == layout.FIG_DIR_ENV
    assert layout.DEFAULT.fig_dir == script_io.DEFAULT_FIG_DIR
