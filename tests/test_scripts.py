"""Every chapter script, checked generically from its source and its committed products; no script
is run here (`make check` runs each once and compares, test_determinism.py re-runs a sample).

A new chapter needs no test file of its own: `explainer_code/chNN_*.py` is found and checked.
"""

from __future__ import annotations

import ast
import functools
import re

import pytest

from explainer_tools.blocks import parse_blocks
from explainer_tools.layout import DEFAULT
from explainer_tools.markdown import split_front_matter
from explainer_tools.scripts import pipeline

SCRIPTS = DEFAULT.discover_scripts()
CLAIM_LINE = re.compile(r"\[(\d+)\]")


def source(script: str) -> str:
    return (DEFAULT.code_dir / script).read_text(encoding="utf-8")


def test_there_are_chapter_scripts() -> None:
    assert SCRIPTS


@pytest.mark.parametrize("script", SCRIPTS)
def test_output_and_stamp_are_committed_and_fresh(script: str) -> None:
    """A fresh stamp means the committed output came from a run (exit 0: every assert held) of
    the script as it is now, with its current inputs and run environment."""
    assert DEFAULT.output_path(script).is_file() and DEFAULT.stamp_path(script).is_file()
    assert pipeline.is_fresh(script, DEFAULT), f"{script}: stale stamp; run make regenerate"


@pytest.mark.parametrize("script", SCRIPTS)
def test_output_has_a_title_line_and_numbered_blocks(script: str) -> None:
    output = DEFAULT.output_path(script).read_text(encoding="utf-8")
    lines = output.splitlines()
    assert lines and not lines[0].startswith("["), "the first line is a title line"
    blocks = parse_blocks(output, script)
    assert blocks and sorted(blocks) == list(range(1, len(blocks) + 1)), "blocks [1]..[n]"


@pytest.mark.parametrize("script", SCRIPTS)
def test_docstring_lists_the_claims_of_every_block(script: str) -> None:
    tree = ast.parse(source(script))
    docstring = ast.get_docstring(tree) or ""
    claimed = {int(n) for n in CLAIM_LINE.findall(docstring)}
    printed = set(parse_blocks(DEFAULT.output_path(script).read_text(encoding="utf-8"), script))
    assert printed <= claimed, f"docstring lacks claims {sorted(printed - claimed)}"


def reachable_asserts(tree: ast.Module) -> list[ast.Assert]:
    """The assert statements of `main` and of the module's functions it calls, directly or
    through others (an assert in a function nothing calls, or `assert True`, asserts nothing)."""
    functions = {node.name: node for node in tree.body if isinstance(node, ast.FunctionDef)}
    seen, queue = set(), ["main"]
    while queue:
        name = queue.pop()
        if name in seen or name not in functions:
            continue
        seen.add(name)
        for node in ast.walk(functions[name]):
            if isinstance(node, ast.Name) and node.id in functions:
                queue.append(node.id)  # called, or passed on to be called
    return [node for name in sorted(seen) for node in ast.walk(functions[name])
            if isinstance(node, ast.Assert) and not isinstance(node.test, ast.Constant)]


def test_reachable_asserts_ignores_dead_and_constant_asserts() -> None:
    tree = ast.parse("def dead():\n    assert x > 0\n"
                     "def helper():\n    assert y > 0\n"
                     "def main():\n    assert True\n    helper()\n")
    assert [ast.unparse(node.test) for node in reachable_asserts(tree)] == ["y > 0"]


@pytest.mark.parametrize("script", SCRIPTS)
def test_script_asserts_and_has_a_main_guard(script: str) -> None:
    tree = ast.parse(source(script))
    assert any(isinstance(node, ast.FunctionDef) and node.name == "main" for node in tree.body)
    assert reachable_asserts(tree), "main (or what it calls) asserts the script's claims"
    assert 'if __name__ == "__main__":' in source(script)


@pytest.mark.parametrize("script", SCRIPTS)
def test_figures_go_through_save_figure(script: str) -> None:
    text = source(script)
    assert ".savefig(" not in text, "use script_io.save_figure (fixed dpi, no metadata)"
    for name in re.findall(r"save_figure\([^,]+,\s*[\"']([^\"']+)[\"']", text):
        assert name.startswith(script[:5]), f"figure {name} should start with {script[:5]}"


@pytest.mark.parametrize("script", SCRIPTS)
def test_torch_scripts_pin_one_thread_when_they_train(script: str) -> None:
    text = source(script)
    trains = re.search(r"\.backward\(|optim\.", text)
    if trains:
        assert "torch.set_num_threads(1)" in text


@functools.cache
def page_texts() -> dict[str, str]:
    """Every page's text, read once for the whole module (the pages do not change under it)."""
    return {page.name: page.read_text(encoding="utf-8") for page in DEFAULT.markdown_pages()}


@functools.cache
def pages_declaring() -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for name, text in page_texts().items():
        front, _ = split_front_matter(text)
        for script in front.get("scripts") or []:
            found.setdefault(str(script).rsplit("/", 1)[-1], []).append(name)
    return found


@pytest.mark.parametrize("script", SCRIPTS)
def test_pages_embed_the_output_and_a_declaring_page_the_source(script: str) -> None:
    """Some page embeds the script's output (or a block of it); a chapter page that lists the
    script in its front matter `scripts:` also embeds its source. (An erratum's script may be
    named only by its evidence items.)"""
    texts = page_texts()
    assert any(re.search(rf"<!-- embed: output {re.escape(script)}( \[\d+\])? -->", text)
               for text in texts.values()), f"no page embeds the output of {script}"
    for name in pages_declaring().get(script, []):
        assert f"<!-- embed: source {script} -->" in texts[name], f"{name} lists {script}"
