"""explainer_tools at the edges a mutation run (`make mutate`) found untested. Each test is
named for the behaviour it pins; all are fast and in-process."""

from __future__ import annotations

import os
import signal
import threading
from pathlib import Path

import pytest

from explainer_tools import blocks, layout, markdown, tags, tree_io
from explainer_tools.book import (
    book_checks,
    chapters,
    errata,
    ledger,
    provenance,
    scaffold,
)
from explainer_tools.scripts import (
    bench,
    containment,
    marker_fill,
    notebooks,
    pipeline,
    settings,
    stamps,
)
from explainer_tools.website import errata_pages, last_verified
from explainer_tools.website.html_text import map_prose

# ------------------------------------------------------------------ blocks, tags, HTML prose


def test_a_missing_output_file_is_none_not_empty(tmp_path: Path) -> None:
    assert blocks.read_output_blocks(tmp_path / "missing.txt") is None
    (tmp_path / "empty.txt").write_text("", encoding="utf-8")
    assert blocks.read_output_blocks(tmp_path / "empty.txt") == {}


def test_an_unknown_tag_kind_is_an_error() -> None:
    with pytest.raises(ValueError, match="not a provenance tag"):
        tags.kind_of("FOOTNOTE 3")


def test_a_void_element_with_a_skipped_class_does_not_hide_what_follows() -> None:
    page = '<p><img class="prov" alt=""> LoRA <br class="num"> LoRA</p>'
    assert map_prose(page, str.upper) == page.replace("LoRA", "LORA")


def test_the_last_verified_line_escapes_script_names() -> None:
    facts = last_verified.Verified("abc1234", "2026-12-01", False)
    line = last_verified.verified_html(facts, ["<b>.py"])
    assert "<code>&lt;b&gt;.py</code>" in line and "<b>" not in line


def test_notebook_html_text_stays_escaped_around_badges() -> None:
    out, found = provenance.render_tags_in_html("<p>a &lt;b&gt; [MY ANALYSIS] c</p>")
    assert "a &lt;b&gt; " in out and "<b>" not in out and len(found) == 1


# ------------------------------------------------------------------ the Markdown scanner, markers


def test_a_fence_line_with_an_info_string_does_not_close_a_fence() -> None:
    kinds = [line.kind for line in markdown.scan("```\nx\n```python\ny\n```\n").lines]
    assert kinds == ["fence", "code", "code", "code", "fence", "blank"]


def test_a_comment_runs_to_its_closing_line() -> None:
    kinds = [line.kind for line in markdown.scan("<!--\n[1] 5\n-->\ntext\n").lines]
    assert kinds == ["comment", "comment", "comment", "prose", "blank"]


def test_invalid_front_matter_yaml_is_an_error() -> None:
    with pytest.raises(markdown.MarkdownError, match="invalid YAML front matter"):
        markdown.split_front_matter("---\na: [\n---\nbody\n")
    assert markdown.scan("---\na: [\n---\nbody\n").front_error


def _marker(kind: str, target: str, block: int | None = None) -> markdown.Marker:
    return markdown.Marker(kind, target, block, "", 3, 4)


def test_a_source_marker_cannot_reach_outside_the_code_folder(tmp_path: Path) -> None:
    code = tmp_path / "explainer_code"
    code.mkdir()
    (tmp_path / "secret.py").write_text("x = 1\n", encoding="utf-8")
    resolve = marker_fill.resolver({}, code)
    with pytest.raises(markdown.MarkerError, match=r"p.md:3: unknown source file '../secret.py'"):
        resolve(_marker("source", "../secret.py"), "p.md")


def test_an_unknown_block_is_an_error_naming_the_blocks_there(tmp_path: Path) -> None:
    resolve = marker_fill.resolver({"ch01_a.py": "T\n[1] a = 1\n[2] b\n"}, tmp_path)
    with pytest.raises(markdown.MarkerError, match=r"unknown block \[7\] of ch01_a.py \(it has "
                                                  r"\[1\], \[2\]\)"):
        resolve(_marker("output", "ch01_a.py", 7), "p.md")
    assert resolve(_marker("output", "ch01_a.py", 2), "p.md")[0] == "[2] b"


# ------------------------------------------------------------------ errata


def _erratum(meta: dict) -> errata.Erratum:
    return errata.Erratum(Path("e1.md"), {"id": "E1", **meta}, "")


def test_a_boolean_evidence_block_is_not_an_integer(tmp_path: Path) -> None:
    item = {"output": "ch01_a.py", "block": True, "shows": "it"}
    problems = errata.check_evidence(_erratum({"evidence": [item]}), layout.Layout(tmp_path),
                                     set())
    assert [p for p in problems if "needs an integer 'block'" in p] != []


def test_a_link_above_docs_is_never_a_page() -> None:
    assert errata.linked_page("errata/e1.md", "../../index.md").startswith("../")
    assert errata.linked_page("errata/e1.md", "../index.md") == "index.md"


def test_the_index_marker_must_occur_exactly_once(tmp_path: Path) -> None:
    (tmp_path / "mkdocs.yml").write_text("nav:\n  - errata/index.md\n", encoding="utf-8")
    index = tmp_path / "docs" / errata.INDEX_PATH
    index.parent.mkdir(parents=True)
    index.write_text(f"{errata.INDEX_MARKER}\n\n{errata.INDEX_MARKER}\n", encoding="utf-8")
    problems = errata.check_nav_and_index([], tmp_path / "mkdocs.yml", tmp_path / "docs")
    assert len(problems) == 1 and "exactly once (found 2)" in problems[0]


def test_front_matter_that_is_not_a_mapping_is_an_error() -> None:
    with pytest.raises(errata.ErratumError, match=r"x\.md: the front matter is not a mapping"):
        errata.split_erratum_front_matter("---\n- a\n---\nbody\n", "x.md")


def test_two_errata_with_one_id_are_an_error(tmp_path: Path) -> None:
    (tmp_path / "mkdocs.yml").write_text("nav: []\n", encoding="utf-8")
    folder = tmp_path / "docs" / "errata"
    folder.mkdir(parents=True)
    for name in ("e1.md", "e2.md"):
        (folder / name).write_text("---\nid: E1\n---\nbody\n", encoding="utf-8")
    _, problems = errata.check_all(tmp_path)
    assert any("E1: defined twice, in e1.md and e2.md" in p for p in problems)


def test_index_cells_escape_pipes_and_chapter_titles_come_from_front_matter(
        tmp_path: Path) -> None:
    assert errata_pages._cell("a|b\nc") == "a\\|b c"
    page = tmp_path / "chapters" / "x.md"
    page.parent.mkdir()
    page.write_text("---\ntitle: From the front matter\n---\n# A heading\n", encoding="utf-8")
    assert errata_pages.chapter_title(tmp_path, "chapters/x.md") == "From the front matter"


# ------------------------------------------------------------------ ledger


def test_ledger_evidence_must_list_what_it_expects_and_cells_escape_pipes() -> None:
    block = blocks.parse_blocks("[1] a = 1\n")
    entry = {"id": "L1", "claim": "c", "paper": "p", "status": "reproduced",
             "evidence": [{"output": "ch01_a.py", "block": 1}]}
    problems = list(ledger.entry_problems(entry, {"ch01_a.py": block}, set()))
    assert problems == ["L1: evidence ch01_a.py [1] lists nothing it expects"]
    assert ledger._cell("a | b\n c") == "a \\| b c"


def test_duplicate_ledger_ids_are_an_error(tmp_path: Path) -> None:
    path = tmp_path / ledger.LEDGER_PATH
    path.parent.mkdir(parents=True)
    entry = "- id: L1\n  claim: c\n  paper: p\n  status: cannot-check\n  note: n\n"
    path.write_text(entry + entry, encoding="utf-8")
    assert "L1: duplicate id" in ledger.check_ledger(tmp_path)


# ------------------------------------------------------------------ book, book checks, scaffold


def test_a_chapter_planned_in_two_parts_is_an_error(tmp_path: Path) -> None:
    plan = tmp_path / chapters.PLAN_PATH
    plan.parent.mkdir(parents=True)
    plan.write_text("parts:\n  - part: A\n    chapters: {3: x}\n"
                    "  - part: B\n    chapters: {3: y}\n", encoding="utf-8")
    with pytest.raises(chapters.BookError, match="chapter 3 is planned twice"):
        chapters.load_plan(tmp_path)


def test_embedded_output_is_not_counted_as_words() -> None:
    """Content between markers is generated, fenced or not (before the first regenerate it may
    be a bare placeholder line): it is not the author's prose."""
    fenced = "```text\nmany many many words here\n```\n"
    for content in (fenced, "a placeholder of six words here\n"):
        page = f"# T\n\nfour words of prose\n\n<!-- embed: output ch01_a.py -->\n{content}" \
               "<!-- /embed -->\n"
        assert book_checks.badge_count(page).words == 1 + 4


def test_a_malformed_pending_line_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / book_checks.PENDING_PATH
    path.parent.mkdir(parents=True)
    path.write_text("# comment\nnosuchcheck docs/x.md  # why\n", encoding="utf-8")
    with pytest.raises(ValueError, match=":2: write `CHECK PATH"):
        book_checks.load_pending(tmp_path)


@pytest.fixture
def scratch_book(tmp_path: Path) -> Path:
    """The scaffold's folders and nav, in a scratch tree."""
    (tmp_path / "docs" / "chapters").mkdir(parents=True)
    (tmp_path / "explainer_code").mkdir()
    (tmp_path / "mkdocs.yml").write_text(
        'nav:\n  - "Part I. Foundations":\n      - "1. A": chapters/01-a.md\n', encoding="utf-8")
    return tmp_path


def test_scaffold_never_overwrites_and_refuses_bad_slugs(scratch_book: Path) -> None:
    page = scratch_book / "docs" / "chapters" / "07-x.md"
    page.write_text("mine\n", encoding="utf-8")
    with pytest.raises(ValueError, match="exists already"):
        scaffold.scaffold(7, "x", "T", layout.Layout(scratch_book))
    assert page.read_text(encoding="utf-8") == "mine\n"
    with pytest.raises(ValueError, match="SLUG"):
        scaffold.scaffold(8, "Bad_Slug", "T", layout.Layout(scratch_book))
    assert sorted(p.name for p in (scratch_book / "explainer_code").iterdir()) == []


def test_scaffold_names_and_a_chapter_already_in_the_nav(scratch_book: Path) -> None:
    assert scaffold.script_name(7, "a-b") == "ch07_a_b.py"
    yml = (scratch_book / "mkdocs.yml").read_text(encoding="utf-8")
    with pytest.raises(ValueError, match="already lists chapter 1"):
        scaffold.nav_with_chapter(yml, 1, "B", "chapters/01-b.md")


# ------------------------------------------------------------------ notebooks, bench, command line


def test_an_error_output_is_compared_by_name_and_value() -> None:
    output = {"output_type": "error", "ename": "ValueError", "evalue": "bad"}
    assert notebooks._output_text(output) == ["[error] ValueError: bad"]


def test_a_script_at_exactly_the_budget_is_within_it() -> None:
    assert bench.over_budget([("a.py", 9.0, 150.0, True)], 150.0) == []


def test_check_fails_when_only_the_claim_check_fails(monkeypatch: pytest.MonkeyPatch) -> None:
    from explainer_tools import __main__ as cli
    from explainer_tools.claims import cli as claims_cli

    monkeypatch.setattr(pipeline, "check", lambda jobs, notebooks, layout: 0)
    monkeypatch.setattr(claims_cli, "main", lambda argv: 1)
    for module in (errata, ledger, chapters, book_checks):
        monkeypatch.setattr(module, "main", lambda argv=None, **_: 0)
    assert cli.check_everything(1, False) == 1


def test_a_pipeline_error_is_a_message_and_exit_1(monkeypatch: pytest.MonkeyPatch,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from explainer_tools import __main__ as cli

    def fail(jobs: int, notebooks: bool, layout: object) -> int:
        raise pipeline.CommandError("regenerate: boom")

    monkeypatch.setattr(cli, "check_everything", fail)
    handlers = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGHUP)
    try:
        assert cli.main(["check", "--jobs", "1"]) == 1
    finally:
        signal.signal(signal.SIGTERM, handlers[0])
        signal.signal(signal.SIGHUP, handlers[1])
    assert "regenerate: boom" in capsys.readouterr().err


@pytest.mark.skipif(threading.current_thread() is not threading.main_thread(),
                    reason="signal handlers are set from the main thread only")
def test_a_command_unwinds_on_sigterm_and_puts_the_handlers_back(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from explainer_tools import __main__ as cli

    during = []

    def record(jobs: int, notebooks: bool, layout: object) -> int:
        during.append((signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGHUP)))
        return 0

    monkeypatch.setattr(cli, "check_everything", record)
    before = signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGHUP)
    assert cli.main(["check", "--jobs", "1"]) == 0
    assert during == [(cli._stop_on_signal, cli._stop_on_signal)]
    assert (signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGHUP)) == before


def test_a_layout_root_is_absolute_and_resolved(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """The runner compares resolved paths with the root: a relative root would match none."""
    monkeypatch.chdir(tmp_path)
    assert layout.Layout(Path("book")).root == tmp_path.resolve() / "book"


# ------------------------------------------------------------------ the runner's side


def test_appends_removals_and_dir_fd_paths_outside_are_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    inside, outside = tmp_path / "inside", tmp_path / "outside"
    inside.mkdir()
    outside.mkdir()
    monkeypatch.chdir(inside)  # a relative name must not be taken relative to the cwd
    read, write = os.pipe()
    try:
        guard = containment.Containment([str(inside)], "ch01_a.py", write)
        guard.check("open", (str(inside / "ok.txt"), "a", 0))  # inside: allowed
        folder = os.open(outside, os.O_RDONLY)
        try:
            for event, args in [("open", (str(outside / "x.txt"), "a", 0)),
                                ("os.remove", (str(outside / "x.txt"), None)),
                                ("os.remove", ("x.txt", folder))]:
                with pytest.raises(PermissionError):
                    guard.check(event, args)
        finally:
            os.close(folder)
        assert os.read(read, 4096).decode().count(str(outside / "x.txt")) == 3
    finally:
        os.close(read)
        os.close(write)


def test_write_atomic_makes_readable_files_and_leaves_no_temporary_file(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    layout.write_atomic(target, b"data")
    assert target.stat().st_mode & 0o777 == 0o644
    (tmp_path / "folder").mkdir()
    with pytest.raises(OSError):
        layout.write_atomic(tmp_path / "folder", b"data")  # a folder cannot be replaced
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder", "out.txt"]


def test_a_stamp_of_the_wrong_shape_reads_as_none(tmp_path: Path) -> None:
    good = {"inputs": {}, "figures": {}, "environment": {}, "output": "ab"}
    path = tmp_path / "s.json"
    path.write_text(__import__("json").dumps(good), encoding="utf-8")
    assert stamps.read_stamp(path) == good
    path.write_text(__import__("json").dumps({**good, "inputs": []}), encoding="utf-8")
    assert stamps.read_stamp(path) is None


def test_a_changed_output_makes_its_stamp_stale(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    script = "ch05_param_count.py"
    if not stamps.is_fresh(script, layout.DEFAULT):
        pytest.skip(f"{script} is not fresh in this tree (regenerate first)")
    copy = tmp_path / "out.txt"
    copy.write_bytes(layout.DEFAULT.output_path(script).read_bytes() + b"edited\n")
    monkeypatch.setattr(layout.Layout, "output_path", lambda self, _script: copy)
    assert not stamps.is_fresh(script, layout.DEFAULT)


def test_a_listed_folder_hashes_its_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    tree = layout.Layout(tmp_path)
    (tmp_path / "data").mkdir()
    empty = stamps.input_hash("data/", tree)
    (tmp_path / "data" / "a.txt").write_text("", encoding="utf-8")
    assert stamps.input_hash("data/", tree) != empty
    assert stamps.input_hash("missing/", tree) is None


def test_apply_leaves_unchanged_files_alone(tmp_path: Path) -> None:
    same, other = tmp_path / "same.txt", tmp_path / "other.txt"
    same.write_bytes(b"a")
    other.write_bytes(b"a")
    before = same.stat().st_ino
    assert tree_io.apply({same: b"a", other: b"b"}, layout.Layout(tmp_path)) == [other]
    assert same.stat().st_ino == before and other.read_bytes() == b"b"


def test_output_that_is_not_utf8_is_an_error_naming_script_and_line() -> None:
    with pytest.raises(pipeline.CommandError, match=r"ch01_a.py: its output is not UTF-8 "
                                                     r"\(line 2, byte 2"):
        pipeline.normalise_output(b"a\n\xff\n", "ch01_a.py")


def test_a_marker_inside_an_open_marker_is_an_error_on_its_line() -> None:
    page = ("<!-- embed: output a.py -->\n<!-- embed: output b.py -->\n<!-- /embed -->\n"
            "<!-- /embed -->\n")
    with pytest.raises(markdown.MarkerError, match=r"p\.md:2: nested marker: the marker on line 1"):
        markdown.find_markers(page, "p.md")


def test_field_spans_are_the_lines_of_each_value_in_the_file() -> None:
    source = ("---\nid: E1\ntitle: T\nproblem: >\n  line one\n  line two\nevidence:\n"
              "  - output: a.py\n    block: 1\n---\nbody\n")
    assert errata_pages.field_spans(source) == {
        "id": (2, 2), "title": (3, 3), "problem": (4, 6), "evidence": (8, 9),
        "evidence[0]": (8, 9)}


def test_a_backslash_and_one_letter_is_no_tex_command() -> None:
    """Only a control word (two or more letters) or a math delimiter is raw TeX: a path such as
    C:\\d or an escape such as \\x in prose is not."""
    from explainer_tools.website.raw_tex import raw_tex_snippets

    assert raw_tex_snippets("a path C:\\d or \\x here") == []
    assert raw_tex_snippets("\\frac{1}{2}") == ["\\frac{1}{2}"]


def test_surnames_in_both_name_orders_and_latex_commands_dropped() -> None:
    from explainer_tools.book import bibliography

    entries = bibliography.parse_bibtex(
        "@article{k,\n  author = {Sanae Lotfi and Finzi, Marc},\n  title = {T},\n"
        "  year = {2024}\n}\n", "x.bib")
    assert bibliography.surnames(entries["k"]) == ["Lotfi", "Finzi"]
    assert bibliography.cite_label(entries["k"]) == "Lotfi and Finzi, 2024"
    assert bibliography.clean_latex("{GPT}-2 \\& {LoRA} -- \\emph{x}") == "GPT-2 & LoRA – x"


def test_scripts_run_with_bytecode_writing_off_and_hash_seed_0() -> None:
    """The venv's .pth turns bytecode off for its own Python (test_containment's B4 probe); the
    run environment does it for every script whatever Python runs the pipeline."""
    environment = settings.run_environment()
    assert environment["PYTHONDONTWRITEBYTECODE"] == "1"
    assert environment["PYTHONHASHSEED"] == "0" and environment["MPLBACKEND"] == "Agg"
