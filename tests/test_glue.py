"""Values by name (explainer_tools/glue.py, explainer_code/script_glue.py): a script glues a
printed value to a name, the pipeline strips its markers and writes the sidecar, a page quotes
the name, the site shows the printed text as a linked number, and glue_migrate rewrites a page's
numbers into names without changing what it shows.

The pipeline tests build a small fixture repository (test_pipeline.py's `build_tree`) and run
`regenerate` / `check` on it in this process; the glued script runs in the runner's child, as
every chapter script does.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from types import SimpleNamespace

import pytest
from test_pipeline import FIXTURE, build_tree, run

from explainer_tools import glue, glue_migrate
from explainer_tools.claims.check import check_page
from explainer_tools.claims.outputs import Outputs
from explainer_tools.website import number_links, reader_features

REPO = Path(__file__).resolve().parent.parent

GLUED_SCRIPT = textwrap.dedent(
    '''\
    """Fixture chapter script that glues its values."""
    from script_glue import glue

    print("Fixture -- glued values")
    print(f"[1] total = {glue('total', 1536, ',')}, mean = {glue('mean', 0.12345, '.4f')}")
    print(f"    count = {glue('count', 7, '>5')}|")
    print("All assertions passed.")
    '''
)
CLEAN = ("Fixture -- glued values\n[1] total = 1,536, mean = 0.1235\n    count =     7|\n"
         "All assertions passed.\n")


@pytest.fixture
def glued_repo(tmp_path: Path) -> Path:
    files = {**FIXTURE, "explainer_code/ch02_glued.py": GLUED_SCRIPT}
    root = build_tree(tmp_path / "repo", files)
    shutil.copy(REPO / "explainer_code" / "script_glue.py", root / "explainer_code")
    result = run(root, "regenerate")
    assert result.returncode == 0, result.stdout + result.stderr
    return root


def test_markers_are_stripped_and_the_sidecar_written(glued_repo: Path) -> None:
    output = (glued_repo / "outputs" / "ch02_glued.txt").read_bytes()
    assert output.decode() == CLEAN  # no marker reaches the golden output
    sidecar = json.loads((glued_repo / "outputs" / "ch02_glued.names.json").read_text())
    assert sidecar == {"script": "ch02_glued.py", "names": {
        "count": {"text": "7", "line": 3, "block": 1},  # the padding stays outside the name
        "mean": {"text": "0.1235", "line": 2, "block": 1},
        "total": {"text": "1,536", "line": 2, "block": 1}}}
    stamp = json.loads((glued_repo / "outputs" / ".stamps" / "ch02_glued.json").read_text())
    assert "names" in stamp and "explainer_code/script_glue.py" in stamp["inputs"]
    by_hand = subprocess.run([sys.executable, "ch02_glued.py"], cwd=glued_repo / "explainer_code",
                             capture_output=True, text=True, check=True,
                             env={k: v for k, v in os.environ.items() if k != glue.GLUE_ENV})
    assert by_hand.stdout == CLEAN
    again = run(glued_repo, "check", "--skip-notebooks")
    assert again.returncode == 0, again.stdout


def test_a_stale_or_stray_sidecar_fails_check(glued_repo: Path) -> None:
    sidecar = glued_repo / "outputs" / "ch02_glued.names.json"
    sidecar.write_text(sidecar.read_text().replace('"0.1235"', '"0.1234"'))
    stale = run(glued_repo, "check", "--skip-notebooks")
    assert stale.returncode == 1
    assert "outputs/ch02_glued.names.json (committed)" in stale.stdout
    assert '+  "mean": {"text": "0.1235"' in stale.stdout
    script = glued_repo / "explainer_code" / "ch02_glued.py"
    script.write_text(script.read_text().replace("from script_glue import glue",
                                                 "def glue(name, value, spec=''):\n"
                                                 "    return format(value, spec)"))
    stray = run(glued_repo, "check", "--skip-notebooks")
    assert stray.returncode == 1
    assert "outputs/ch02_glued.names.json: ch02_glued.py glues no value any more" in stray.stdout
    assert run(glued_repo, "regenerate").returncode == 0
    assert not sidecar.exists()


def test_a_name_printed_twice_is_one_error_naming_script_and_line(glued_repo: Path) -> None:
    script = glued_repo / "explainer_code" / "ch02_glued.py"
    script.write_text(script.read_text().replace(
        'print("All assertions passed.")',
        'print(f"    again {glue(\'total\', 1536, \',\')}")\nprint("All assertions passed.")'))
    before = (glued_repo / "outputs" / "ch02_glued.names.json").read_bytes()
    result = run(glued_repo, "regenerate")
    assert result.returncode != 0
    message = result.stdout + result.stderr
    assert ("explainer_code/ch02_glued.py: output line 4: the value named 'total' is printed "
            "twice (first on line 2)") in message
    assert (glued_repo / "outputs" / "ch02_glued.names.json").read_bytes() == before


@pytest.mark.parametrize(("data", "message"), [
    (b"a\n[1] x = \x02x\x1f1\n\x03\n", "output line 2: a glued value is not closed on its line"),
    (b"[1] \x02x\x1f1\x03 \x02x\x1f2\x03\n", "output line 1: the value named 'x' is printed twice"),
    (b"[1] \x021x\x1f1\x03\n", "output line 1: '1x' is not a name"),
    (b"ok\n[1] 1\x03\n", "output line 2: a glue marker outside a glued value"),
])
def test_broken_markers_are_one_error_naming_script_and_line(data: bytes, message: str) -> None:
    with pytest.raises(glue.GlueError, match=rf"^explainer_code/ch09_x\.py: {message}"):
        glue.split_output(data, "ch09_x.py")


# --------------------------------------------------------------------------- the page side

OUTPUT = "T\n[1] total = 1,536 and 12\n    mean 0.1235\n"
NAMES = {"s.py": {"total": glue.Glued("total", "1,536", 2, 1),
                  "n_p50_t5": glue.Glued("n_p50_t5", "12", 2, 1),  # digits in a name
                  "mean": glue.Glued("mean", "0.1235", 3, 1)}}
PAGE = ("---\nscripts: [s.py]\n---\n\n# Title\n\n## Worked example with real numbers\n\n"
        "The total is {glue}`total` and \\(N=\\glue{n_p50_t5}\\), the mean {glue}`mean` "
        "(output [1]).\n\n<!-- embed: output s.py [1] -->\n<!-- /embed -->\n")


def _links(page: str, names: dict) -> list[number_links.NumberLink]:
    links = []
    for reference in glue.references(page):
        script, value = glue.resolve(reference, ["s.py"], names, "docs/p.md")
        links.append(number_links.NumberLink(
            reference.start, reference.end, page[reference.start:reference.end], script,
            value.block, value.line, OUTPUT.split("\n")[value.line - 1], value.text))
    return links


def test_the_page_shows_the_printed_text_as_the_number_link() -> None:
    embedded = number_links.embedded_lines(PAGE, {"s.py": OUTPUT}, "p.md")
    out = number_links.link_numbers(PAGE, _links(PAGE, NAMES), embedded)
    assert 'The total is <a class="num" href="#out-s-L2" data-block="1">1,536</a>' in out
    assert "\\(N={\\href{#out-s-L2}{12}}\\)" in out
    assert 'the mean <a class="num" href="#out-s-L3" data-block="1">0.1235</a>' in out
    alone = PAGE.replace("<!-- embed: output s.py [1] -->\n", "")  # no line to point at
    out = number_links.link_numbers(alone, _links(alone, NAMES), set())
    assert 'data-line="2" data-printed="&#91;1&#93; total = 1,536 and 12">1,536</span>' in out
    assert "\\(N={12}\\)" in out  # in math, the text alone
    heading = "## At {glue}`total` tokens\n"
    out = number_links.link_numbers(heading, _links(heading, NAMES), set())
    assert out == "## At 1,536 tokens\n"
    commas = "\\(\\glue{total}\\)"
    assert number_links.link_numbers(commas, _links(commas, NAMES), {("s.py", 2)}) == (
        "\\({\\href{#out-s-L2}{1{,}536}}\\)")


def test_the_claim_check_counts_glued_values_and_refuses_bare_numbers() -> None:
    outputs = Outputs({"s.py": OUTPUT}, names=NAMES)
    report = check_page(PAGE, "docs/p.md", outputs)
    assert report.errors == [] and len(report.glued) == 3 and report.checked == []
    assert [o.note for o in report.skipped] == ["block marker"]  # a name's digits: no number
    assert "3 glued, 0 bare in the fully cited sections" in report.summary()
    bare = PAGE.replace("the mean {glue}`mean`", "the mean 0.1235")
    report = check_page(bare, "docs/p.md", outputs)
    assert [str(e) for e in report.errors] == [
        "docs/p.md:9: 0.1235 is a bare number in the section 'Worked example with real numbers' "
        "of a page that quotes values by name: write {glue}`name` (python -m "
        "explainer_tools.glue_migrate PAGE) or waive it"]
    assert "2 glued, 1 bare in the fully cited sections" in report.summary()


def test_a_name_from_a_block_the_sentence_does_not_cite_is_an_error() -> None:
    output = OUTPUT + "[2] other 7.5\n"
    names = {"s.py": {**NAMES["s.py"], "other": glue.Glued("other", "7.5", 4, 2)}}
    page = PAGE.replace("the mean {glue}`mean`", "the mean {glue}`other`")
    report = check_page(page, "docs/p.md", Outputs({"s.py": output}, names=names))
    assert [str(e) for e in report.errors] == [
        "docs/p.md:9: 'other' is printed in output [2] of s.py, which this sentence does not "
        "cite (output [1] of s.py)"]
    cited = page.replace("(output [1])", "(outputs [1] and [2])")
    assert check_page(cited, "docs/p.md", Outputs({"s.py": output}, names=names)).errors == []


UNKNOWN = ("docs/p.md:9: no value named 'totl' printed by s.py (names it prints: total, mean, "
           "n_p50_t5)")


def test_an_unknown_name_fails_the_check_with_file_and_line() -> None:
    report = check_page(PAGE.replace("`total`", "`totl`"), "docs/p.md",
                        Outputs({"s.py": OUTPUT}, names=NAMES))
    assert [str(e) for e in report.errors] == [UNKNOWN]


def test_an_unknown_name_fails_the_build_with_file_and_line(tmp_path: Path) -> None:
    from mkdocs.exceptions import PluginError
    from mkdocs.utils.meta import get_data

    source = PAGE.replace("`total`", "`totl`")
    path = tmp_path / "p.md"
    path.write_text(source)
    state = reader_features.ReaderState(names=NAMES, outputs={"s.py": OUTPUT})
    page = SimpleNamespace(file=SimpleNamespace(src_uri="p.md", abs_src_path=str(path)), meta={})
    markdown, _ = get_data(source)
    with pytest.raises(PluginError, match=f"^{re.escape(UNKNOWN)}$"):
        reader_features._link_numbers(state, markdown, page)
    path.write_text(PAGE)
    markdown, _ = get_data(PAGE)
    assert '<a class="num" href="#out-s-L2" data-block="1">1,536</a>' in (
        reader_features._link_numbers(state, markdown, page))
    styled = PAGE.replace("the mean {glue}`mean`", "the mean {glue}`mean|trim`")
    path.write_text(styled)  # the site shows the styled text, linked to the same line
    markdown, _ = get_data(styled)
    state.names = {"s.py": {**NAMES["s.py"], "mean": glue.Glued("mean", "0.1230", 3, 1)}}
    assert 'the mean <a class="num" href="#out-s-L3" data-block="1">0.123</a>' in (
        reader_features._link_numbers(state, markdown, page))


def test_an_ambiguous_name_asks_for_its_script() -> None:
    names = {"a.py": {"x": glue.Glued("x", "1", 1, 0)}, "b.py": {"x": glue.Glued("x", "2", 1, 0)}}
    reference = glue.references("see {glue}`x`")[0]
    with pytest.raises(glue.GlueError, match=r"printed by a\.py and b\.py; write a\.py:x"):
        glue.resolve(reference, ["a.py", "b.py"], names, "docs/p.md")
    reference = glue.references("see {glue}`b.py:x`")[0]
    assert glue.resolve(reference, ["a.py", "b.py"], names, "docs/p.md")[1].text == "2"


# --------------------------------------------------------------------------- the migration

MIGRATE_OUTPUT = ("T\n[1] total = 1,536, mean 0.1235, and 0.1235 again\n    N = 1,000\n"
                  "    row a: 0.5 11.1\n    row b: 0.5 22.2\n")
MIGRATE_NAMES = {"names": {"total": {"text": "1,536", "line": 2, "block": 1},
                           "mean": {"text": "0.1235", "line": 2, "block": 1},
                           "again": {"text": "0.1235", "line": 2, "block": 1},
                           "n": {"text": "1,000", "line": 3, "block": 1},
                           "a_p": {"text": "0.5", "line": 4, "block": 1},
                           "a_v": {"text": "11.1", "line": 4, "block": 1},
                           "b_p": {"text": "0.5", "line": 5, "block": 1},
                           "b_v": {"text": "22.2", "line": 5, "block": 1}}}
MIGRATE_PAGE = ("---\nscripts: [ch01_m.py]\n---\n\n# Title\n\n"
                "The total is 1,536 at \\(N=1{,}000\\) and the mean 0.1235 (output [1]).\n\n"
                "The rows (output [1]):\n\n| row | p | value |\n| --- | --- | --- |\n"
                "| a | 0.5 | 11.1 |\n| b | 0.5 | 22.2 |\n\n"
                "Alone, 0.5 could be either row's (output [1]).\n\n"
                "<!-- embed: output ch01_m.py [1] -->\n```text\n" + MIGRATE_OUTPUT.split("\n", 1)[1]
                + "```\n<!-- /embed -->\n")


def test_the_migration_rewrites_numbers_and_the_page_shows_the_same(tmp_path: Path) -> None:
    (tmp_path / "outputs").mkdir()
    (tmp_path / "docs").mkdir()
    (tmp_path / "outputs" / "ch01_m.txt").write_text(MIGRATE_OUTPUT)
    (tmp_path / "outputs" / "ch01_m.names.json").write_text(
        json.dumps({"script": "ch01_m.py", **MIGRATE_NAMES}))
    page = tmp_path / "docs" / "p.md"
    page.write_text(MIGRATE_PAGE)
    result = glue_migrate.migrate(tmp_path, page)
    assert "{glue}`total` at \\(N=\\glue{n}\\) and the mean 0.1235" in result.text
    # The check names 0.5's first printing for both rows; each row's other value says which.
    assert "| b | {glue}`b_p` | {glue}`b_v` |" in result.text
    assert "| a | {glue}`a_p` | {glue}`a_v` |" in result.text
    assert result.rewritten == 6 and len(result.missed) == 2
    assert "docs/p.md:7: 0.1235 (output line 2 of ch01_m.py): glued as again, mean" in (
        result.missed[0])
    # Nothing on its page line says which row a lone 0.5 means: a person names it, the tool
    # does not pick the check's (first) printing.
    assert "docs/p.md:16: 0.5 (output line 4 of ch01_m.py): glued as a_p, b_p" in result.missed[1]
    assert "Alone, 0.5 could" in result.text
    outputs = {"ch01_m.py": MIGRATE_OUTPUT}
    embedded = number_links.embedded_lines(MIGRATE_PAGE, outputs, "p.md")
    from explainer_tools.claims.api import verified_numbers
    before = [number_links.NumberLink(v.span[0], v.span[1], v.text, v.script, v.block,
                                      v.output_line, v.output_text)
              for v in verified_numbers(tmp_path, [page])["docs/p.md"].verified]
    shown_before = number_links.link_numbers(MIGRATE_PAGE, before, embedded)
    page.write_text(result.text)
    names = glue.read_names(tmp_path / "outputs")
    after = [number_links.NumberLink(v.span[0], v.span[1], v.text, v.script, v.block,
                                     v.output_line, v.output_text)
             for v in verified_numbers(tmp_path, [page])["docs/p.md"].verified]
    for reference in glue.references(result.text):
        script, value = glue.resolve(reference, ["ch01_m.py"], names, "docs/p.md")
        after.append(number_links.NumberLink(
            reference.start, reference.end, result.text[reference.start:reference.end], script,
            value.block, value.line, "", value.text))
    shown_after = number_links.link_numbers(result.text, after, embedded)
    assert '| b | <a class="num" href="#out-ch01_m-L5" data-block="1">0.5</a> |' in shown_after
    assert '| b | <a class="num" href="#out-ch01_m-L4" data-block="1">0.5</a> |' in shown_before
    line = re.compile(r"#out-ch01_m-L[0-9]+")  # the same text and links, some to a closer line
    assert line.sub("#", shown_after) == line.sub("#", shown_before)
    assert glue_migrate.main(["--root", str(tmp_path), str(page)]) == 0
    assert page.read_text() == result.text  # a second run finds nothing more to rewrite


def test_references_in_code_comments_and_embedded_outputs_are_not_read() -> None:
    text = ("```text\n{glue}`a`\n```\n<!-- {glue}`b` -->\n<!-- embed: output s.py -->\n"
            "{glue}`c`\n<!-- /embed -->\nProse {glue}`d` and \\(\\glue{e}\\).\n")
    assert [(r.name, r.line, r.math) for r in glue.references(text)] == [
        ("d", 8, False), ("e", 8, True)]


def test_a_style_shows_the_printed_value_as_the_sentence_writes_it_without_a_new_digit() -> None:
    assert glue.display("+0.0580", ("unsigned",)) == "0.0580"
    assert glue.display("-1.20", ("minus",)) == "\u22121.20"
    assert glue.display("1024", ("comma",)) == "1,024"
    assert glue.display("-1234567.50", ("comma",)) == "-1,234,567.50"
    assert glue.display("1.7500", ("trim",)) == "1.75"
    assert glue.display("1.0000", ("trim",)) == "1"
    assert glue.display("1e-06", ("trim", "comma")) == "1e-06"  # not a plain decimal: as printed
    [reference] = glue.references("Rises by {glue}`ch01_m.py:shift|unsigned, trim` here.")
    assert (reference.name, reference.styles) == ("ch01_m.py:shift", ("unsigned", "trim"))
    names = {"ch01_m.py": {"shift": glue.Glued("shift", "+0.50", 2, 1)}}
    assert glue.resolve(reference, [], names, "docs/p.md")[1].text == "+0.50"
    [bad] = glue.references("x\n{glue}`shift|bold`")
    with pytest.raises(glue.GlueError, match=r"docs/p\.md:2: no style 'bold'"):
        glue.resolve(bad, ["ch01_m.py"], names, "docs/p.md")


def test_the_migration_writes_the_style_that_shows_a_number_as_the_page_wrote_it(
        tmp_path: Path) -> None:
    (tmp_path / "outputs").mkdir()
    (tmp_path / "docs").mkdir()
    output = "Fixture\n[1] size 1024, shift +0.50\nAll assertions passed.\n"
    (tmp_path / "outputs" / "ch01_m.txt").write_text(output)
    (tmp_path / "outputs" / "ch01_m.names.json").write_text(json.dumps(
        {"script": "ch01_m.py", "names": {"size": {"text": "1024", "line": 2, "block": 1},
                                           "shift": {"text": "+0.50", "line": 2, "block": 1}}}))
    page = tmp_path / "docs" / "p.md"
    page.write_text("---\nscripts: [ch01_m.py]\n---\n\n# T\n\n"
                    "A size of 1,024 moves it by 0.50 (output [1]).\n")
    result = glue_migrate.migrate(tmp_path, page)
    assert "A size of {glue}`size|comma` moves it by {glue}`shift|unsigned`" in result.text
