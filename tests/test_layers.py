"""explainer_tools is layered: a module imports only modules of lower layers (no circles).

The layers are `explainer_tools.LAYERS`; inside the `claims` package, the order of
`CLAIMS_ORDER`. Every import counts, including those inside functions.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import explainer_tools

TOOLS = Path(explainer_tools.__file__).resolve().parent
CLAIMS_ORDER = ["numbers", "units", "outputs", "model", "page", "pairing", "swaps", "context",
                "direction", "arithmetic", "check", "api", "cli", "mutate", "__init__", "__main__"]


def imported(path: Path) -> set[str]:
    """Dotted names of explainer_tools modules that `path` imports."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names if a.name.startswith("explainer_tools"))
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "explainer_tools":
                names.update(f"explainer_tools.{a.name}" for a in node.names)
            elif node.module.startswith("explainer_tools."):
                names.add(node.module)
    return names


def top(name: str) -> str:
    return name.split(".")[1] if name.count(".") else ""


MODULES = sorted(p for p in TOOLS.rglob("*.py") if "__pycache__" not in p.parts)


def test_every_module_has_a_layer() -> None:
    tops = {p.relative_to(TOOLS).parts[0].removesuffix(".py") for p in MODULES} - {"__init__"}
    assert tops == set(explainer_tools.LAYERS)


def violations(path: Path, parts: tuple[str, ...]) -> list[str]:
    """The layer rule applied to the file at `path`, placed at `parts` inside explainer_tools."""
    here = parts[0].removesuffix(".py")
    if here == "__init__":
        return [f"the package's __init__ imports {n}" for n in sorted(imported(path))]
    found = []
    for name in sorted(imported(path)):
        other = top(name)
        if other == here:  # inside a package: its own order
            inner_here = parts[-1].removesuffix(".py")
            inner_other = name.split(".")[2] if name.count(".") >= 2 else "__init__"
            if CLAIMS_ORDER.index(inner_other) >= CLAIMS_ORDER.index(inner_here):
                found.append(f"{path.name} imports {name}, which comes later in the package")
        elif other not in explainer_tools.LAYERS:
            found.append(f"{name} has no layer")
        elif explainer_tools.LAYERS[other] >= explainer_tools.LAYERS[here]:
            found.append(f"{here} (layer {explainer_tools.LAYERS[here]}) imports {other} "
                         f"(layer {explainer_tools.LAYERS[other]})")
    return found


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.relative_to(TOOLS).as_posix())
def test_imports_only_lower_layers(path: Path) -> None:
    assert violations(path, path.relative_to(TOOLS).parts) == []


@pytest.mark.parametrize(("parts", "text"), [
    (("layout.py",), "from explainer_tools.pipeline import plan\n"),
    (("layout.py",), "def f():\n    import explainer_tools.runner\n"),  # inside a function
    (("runner.py",), "from explainer_tools import notebooks\n"),  # the same layer
    (("claims", "numbers.py"), "from explainer_tools.claims.page import x\n"),
    (("__init__.py",), "import explainer_tools.layout\n"),
])
def test_the_check_catches_an_upward_import(tmp_path: Path, parts: tuple[str, ...],
                                            text: str) -> None:
    bad = tmp_path / parts[-1]
    bad.write_text(text)
    assert len(violations(bad, parts)) == 1


def test_scripts_and_tools_agree_on_the_figure_folder() -> None:
    """explainer_code/script_io.py cannot import explainer_tools (scripts run standalone), so
    the one duplicated name is checked here."""
    import script_io

    from explainer_tools import layout

    assert script_io.FIG_DIR_ENV == layout.FIG_DIR_ENV
    assert layout.DEFAULT.fig_dir == script_io.DEFAULT_FIG_DIR
