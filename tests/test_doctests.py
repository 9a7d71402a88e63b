"""The docstring examples of explainer_tools run and hold."""

from __future__ import annotations

import doctest
import importlib
from pathlib import Path

import pytest

import explainer_tools

TOOLS = Path(explainer_tools.__file__).resolve().parent
MODULES = sorted(
    "explainer_tools." + ".".join(p.relative_to(TOOLS).with_suffix("").parts).removesuffix(
        ".__init__")
    for p in TOOLS.rglob("*.py")
    if "__pycache__" not in p.parts and p.name != "__main__.py"
)




def source_of(name: str) -> str:
    relative = Path(*name.split(".")[1:])
    path = TOOLS / relative.with_suffix(".py")
    return (path if path.is_file() else TOOLS / relative / "__init__.py").read_text("utf-8")


# Only modules whose source holds an example: for the others testmod tries nothing and "0 failed"
# would prove nothing.
WITH_EXAMPLES = [name for name in MODULES if ">>> " in source_of(name)]


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_docstring_examples(name: str) -> None:
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0, f"{name} shows examples that doctest does not find"
    assert result.failed == 0


def test_the_modules_with_examples_are_found() -> None:
    assert {"explainer_tools.layout", "explainer_tools.markdown", "explainer_tools.claims",
            "explainer_tools.blocks", "explainer_tools.book.scaffold"} <= set(WITH_EXAMPLES)
