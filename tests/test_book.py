"""The book-wide mechanisms: chapter status from the nav (chapters.py), the checks of make check
(book_checks.py) and the raw-TeX rule (raw_tex.py). Each test breaks a mechanism on purpose and
expects the failure, naming file and line."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from explainer_tools.book import book_checks, chapters
from explainer_tools.layout import DEFAULT
from explainer_tools.website import raw_tex

REPO_ROOT = DEFAULT.root

PART = "Part II. Bounds"
PLAN = [chapters.Planned(9, "Generalization", PART), chapters.Planned(10, "Hoeffding", PART)]
NAV = [{"Home": "index.md"}, {PART: [{"9. Generalization, written": "chapters/09-gen.md"}]}]


# --------------------------------------------------------------------------- status from the nav


def test_status_comes_from_the_nav() -> None:
    status = chapters.chapter_status(PLAN, NAV)
    assert [(c.number, c.written, c.title) for c in status] == [
        (9, True, "Generalization, written"), (10, False, "Hoeffding")]
    # Taking a page out of the nav makes its chapter planned, everywhere.
    assert not any(c.written for c in chapters.chapter_status(PLAN, [{"Home": "index.md"}]))


def test_nav_chapter_missing_from_the_plan_or_in_another_part_is_an_error() -> None:
    with pytest.raises(chapters.BookError, match="chapter 11, which"):
        chapters.chapter_status(PLAN, [{PART: [{"11. X": "chapters/11-x.md"}]}])
    with pytest.raises(chapters.BookError, match="sits under 'Part III"):
        chapters.chapter_status(PLAN, [{"Part III. Compression": [{"9. G": "chapters/09-gen.md"}]}])


def test_home_list_links_written_and_marks_planned() -> None:
    home = chapters.fill_home("# Home\n\n" + chapters.HOME_MARKER + "\n",
                              chapters.chapter_status(PLAN, NAV), NAV)
    # a page of the part that is not a chapter: after its chapter, with text before its link
    extra = [NAV[0], {PART: [*NAV[1][PART], {"A notebook": "notebooks/n.ipynb"}]}]
    listed = chapters.fill_home(chapters.HOME_MARKER + "\n", chapters.chapter_status(PLAN, extra),
                                extra)
    assert "- Beside Chapter 9: [A notebook](notebooks/n.ipynb)" in listed
    assert "- 9\\. [Generalization, written](chapters/09-gen.md)" in home
    assert f"- 10\\. Hoeffding {chapters.PLANNED_MARK}" in home
    assert "](chapters/10" not in home  # a planned chapter is never linked
    with pytest.raises(chapters.BookError, match=r"docs/index\.md"):
        chapters.fill_home("# Home without the marker\n", [], NAV)


def test_chapter_mentions_link_written_and_mark_planned() -> None:
    status = {c.number: c for c in chapters.chapter_status(PLAN, NAV)}
    html = chapters.render_chapter_mentions("Chapter 9, Chapter 10, Chapter 30", "index.md", status)
    assert '<a class="chapter-link" href="chapters/09-gen/">Chapter 9</a>' in html
    assert '<span class="chapter-planned"' in html and "Chapter 10 " + chapters.PLANNED_MARK in html
    assert html.endswith("Chapter 30")  # not in the plan: plain text
    own = chapters.render_chapter_mentions("Chapter 9", "chapters/09-gen.md", status)
    assert own == "Chapter 9"


def _repo_copy(tmp_path: Path) -> Path:
    """The files chapters.py and book_checks.py read, in a scratch folder."""
    root = tmp_path / "repo"
    root.mkdir()
    for name in ("mkdocs.yml", "BOOK.md", "CONTRIBUTING.md", "README.md"):
        shutil.copy(REPO_ROOT / name, root / name)
    shutil.copytree(REPO_ROOT / "docs", root / "docs",
                    ignore=shutil.ignore_patterns("assets", "notebooks"))
    return root


def test_book_md_table_agrees_with_the_nav(tmp_path: Path) -> None:
    root = _repo_copy(tmp_path)
    assert chapters.toc_problems(root) == []
    text = (root / "BOOK.md").read_text(encoding="utf-8")
    stale = text.replace("| 9 | Generalization", "| 9 | Generalisation", 1)
    assert stale != text
    (root / "BOOK.md").write_text(stale, encoding="utf-8")
    problems = chapters.toc_problems(root)
    assert problems and re.match(r"BOOK\.md:\d+: the table of contents disagrees", problems[0])
    assert chapters.write_toc(root) and chapters.toc_problems(root) == []


def test_the_repository_table_is_current() -> None:
    assert chapters.toc_problems(REPO_ROOT) == []


# --------------------------------------------------------------------------- status phrases


# Built from pieces, so this test file does not trip the check it tests.
STATUS = ["is still being" + " written", "are being" + " written", "is not yet" + " written",
          "not written" + " yet", "coming" + " soon"]


@pytest.mark.parametrize("phrase", STATUS)
def test_hand_written_status_fails_with_file_and_line(phrase: str) -> None:
    found = book_checks.status_problems("docs/x.md", f"Intro.\nChapter 23 {phrase}.\n")
    assert len(found) == 1 and found[0].startswith("docs/x.md:2: ")


def test_ordinary_uses_of_written_pass() -> None:
    assert book_checks.status_problems("x.md", "The output is written to a file.\n") == []


# --------------------------------------------------------------------------- outside references


# Built from pieces, so this test file does not trip the check it tests.
OUTSIDE = ["../" + "sha" + "red/design", "/wo" + "rk/main/x", "see /t" + "mp/notes.txt",
           "the fact" + " sheet", "the find" + "ings' numbers", "a sizing" + " study",
           "the design" + " file", "FACTS" + "_ROUND3.md", "FIND" + "INGS_CH05.md",
           "ENVIRON" + "MENT.md", "STY" + "LE.md"]


@pytest.mark.parametrize("text", OUTSIDE)
def test_outside_reference_fails_with_file_and_line(text: str) -> None:
    found = book_checks.outside_problems("tests/x.py", f"ok\n# {text}\n")
    assert found and found[0].startswith("tests/x.py:2: ")


def test_repository_paths_pass() -> None:
    inside = "outputs/ch05_param_count.txt, docs/_data/references.bib, pathlib's tmp_path"
    assert book_checks.outside_problems("x.md", inside) == []


def test_the_check_module_does_not_match_itself() -> None:
    source = Path(book_checks.__file__).read_text(encoding="utf-8")
    assert book_checks.outside_problems("book_checks.py", source) == []


# --------------------------------------------------------------------------- badges

PROSE = " ".join(["word"] * 495)


def test_word_count_leaves_out_tags_code_and_comments() -> None:
    page = ("---\ntitle: x y z\n---\n# Title\n\n[MY EXPLANATION] One two `three`.\n\n"
            "```\nnot counted at all\n```\n<!-- not counted -->\n")
    assert book_checks.badge_count(page).words == 4  # Title, One, two, `three`.


def test_over_budget_fails_and_within_budget_passes() -> None:
    # 500 words allow ceil(6 * 0.5) = 3 badges.
    ok = f"# A\n\n[MY EXPLANATION] {PROSE}\n\n## B\n\n[MY ANALYSIS] x\n\n## C\n\n[INFERRED] y\n"
    problems, report = book_checks.badge_problems("docs/p.md", ok)
    assert problems == [] and "3 badges, 500 words" in report
    over = ok.replace("[INFERRED] y", "[INFERRED] y. [MY ANALYSIS] y. [MY EXPLANATION] y")
    problems, _ = book_checks.badge_problems("docs/p.md", over)
    assert [p.check for p in problems] == ["badges"]
    assert "5 in 502; 4 allowed" in problems[0].message


def test_identical_badges_in_a_row_fail_unless_a_heading_separates_them() -> None:
    twice = f"# A\n\n[SECTION: MY EXPLANATION]\n\n{PROSE}\n\n[MY EXPLANATION] again.\n"
    problems, _ = book_checks.badge_problems("docs/p.md", twice)
    assert [(p.line, p.check) for p in problems] == [(7, "badges")]
    separated = twice.replace("[MY EXPLANATION] again.", "## B\n\n[MY EXPLANATION] again.")
    assert book_checks.badge_problems("docs/p.md", separated)[0] == []
    in_code = twice.replace("[MY EXPLANATION] again.", "`[MY EXPLANATION]` again.")
    assert book_checks.badge_problems("docs/p.md", in_code)[0] == []


# --------------------------------------------------------------------------- structure

CHAPTER = "docs/chapters/09-gen.md"
GOOD_CHAPTER = """# Chapter 9

Prose.

## Paper errata concerning this chapter

None.

## Going deeper

??? note "A proof"

    Text.

## Summary
"""


def _checks(path: str, text: str) -> list[tuple[str, int]]:
    return [(p.check, p.line) for p in book_checks.structure_problems(path, text)]


def test_a_well_formed_chapter_passes() -> None:
    assert _checks(CHAPTER, GOOD_CHAPTER) == []


@pytest.mark.parametrize(("change", "expected"), [
    (("Prose.", "Prose.\n\nTable: the counts."), ("table-caption", 5)),
    (("Prose.", "Prose.\n\n*Figure: a plot.*"), ("figure-caption", 5)),
    (("## Paper errata concerning this chapter", "## Paper errata in this chapter"),
     ("errata-heading", 5)),
    (('??? note "A proof"\n\n    Text.', "### A proof\n\nText."), ("going-deeper", 11)),
    (("Prose.", "Prose, then a display:\n\\[ a = b \\]"), ("tex-after-prose", 4)),
    (("Prose.", "\\[ a = b \\]\ntext right after it."), ("tex-after-prose", 4)),
    (("    Text.", "    <!-- claims: waive 2 \"x\" -->\n    \\[ 2 \\]"), ("tex-after-prose", 14)),
])
def test_each_structure_rule_fails_with_file_and_line(change: tuple[str, str],
                                                      expected: tuple[str, int]) -> None:
    broken = GOOD_CHAPTER.replace(*change)
    assert broken != GOOD_CHAPTER
    assert expected in _checks(CHAPTER, broken)


def test_a_display_as_its_own_paragraph_passes() -> None:
    fixed = GOOD_CHAPTER.replace("Prose.", "Prose, then a display:\n\n\\[ a = b \\]\n\nMore.")
    assert _checks(CHAPTER, fixed) == []
    # A comment at the margin is a block of its own, so a display may follow it directly.
    margin = GOOD_CHAPTER.replace("Prose.", "Prose.\n\n<!-- claims: waive 2 \"x\" -->\n\\[ 2 \\]")
    assert _checks(CHAPTER, margin) == []


# --------------------------------------------------------------------------- bibliography


def test_uncited_entry_and_uncited_paper_fail(tmp_path: Path) -> None:
    root = _repo_copy(tmp_path)
    pages, unreadable = book_checks.doc_pages(root)
    assert unreadable == []
    assert book_checks.bibliography_problems(root, pages) == []
    pages["docs/index.md"] = pages["docs/index.md"].replace("[@lotfi2024]", "")
    pages["docs/chapters/05-transformers-gpt2.md"] = pages[
        "docs/chapters/05-transformers-gpt2.md"].replace("[@ba2016]", "")
    messages = [str(p) for p in book_checks.bibliography_problems(root, pages)]
    assert any("'ba2016' is cited on no page" in m and m.startswith("docs/_data/references.bib:")
               for m in messages)
    assert "docs/index.md:1: the paper [@lotfi2024] is not cited on this page" in messages


# --------------------------------------------------------------------------- pending list


def _small_repo(tmp_path: Path) -> Path:
    """A repository of two clean pages and a one-entry bibliography."""
    root = tmp_path / "small"
    (root / "docs" / "_data").mkdir(parents=True)
    (root / "explainer_tools" / "book").mkdir(parents=True)
    bib = (REPO_ROOT / "docs/_data/references.bib").read_text(encoding="utf-8")
    entry = re.search(r"@inproceedings\{lotfi2024,.*?\n\}\n", bib, re.S).group(0)
    (root / "docs/_data/references.bib").write_text(entry, encoding="utf-8")
    for name in ("index.md", "notation.md"):
        (root / "docs" / name).write_text("# Page\n\nThe paper [@lotfi2024].\n", encoding="utf-8")
    return root


def test_pending_pages_report_but_do_not_fail_and_stale_lines_fail(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = _small_repo(tmp_path)
    assert book_checks.main(["--quiet"], root=root) == 0
    pending = root / book_checks.PENDING_PATH
    page = root / "docs" / "extra.md"
    page.write_text("# Extra\n\nTable: a caption.\n", encoding="utf-8")
    assert book_checks.main(["--quiet"], root=root) == 1
    assert "table-caption: docs/extra.md:3:" in capsys.readouterr().err
    pending.write_text("table-caption docs/extra.md  # its owner fixes it\n", encoding="utf-8")
    assert book_checks.main(["--quiet"], root=root) == 0
    assert "pending (table-caption): docs/extra.md:3" in capsys.readouterr().out
    page.write_text("# Extra\n\nFixed.\n", encoding="utf-8")
    assert book_checks.main(["--quiet"], root=root) == 1
    assert "has no problem any more" in capsys.readouterr().err
    pending.write_text("no-such-check docs/extra.md\n", encoding="utf-8")
    assert book_checks.main(["--quiet"], root=root) == 1


def test_the_repository_passes_the_book_checks() -> None:
    assert book_checks.main(["--quiet"]) == 0


# --------------------------------------------------------------------------- raw TeX


@pytest.mark.parametrize("text", ["\\begin{aligned}", "\\frac{1}{2}", "\\href{#x}{1}", "\\[ x",
                                  "\\mathrm{GELU}", "\\left(", "a \\) b"])
def test_raw_tex_is_found(text: str) -> None:
    assert raw_tex.raw_tex_snippets(f"prose {text} prose")


def test_plain_text_has_no_raw_tex() -> None:
    assert raw_tex.raw_tex_snippets("a backslash alone \\ or \\, is no command; C:/x") == []


def test_browser_rule_is_the_python_rule() -> None:
    js = re.search(r"const command = /(.+?)/g;", raw_tex.RAW_TEX_JS).group(1)
    assert js == raw_tex.TEX_COMMAND.pattern


def test_a_page_that_is_not_utf8_is_a_problem_with_its_line(tmp_path: Path) -> None:
    root = _repo_copy(tmp_path)
    (root / "docs" / "latin1.md").write_bytes(b"# Title\n\ncaf\xe9\n")
    pages, unreadable = book_checks.doc_pages(root)
    assert "docs/latin1.md" not in pages
    assert [str(p) for p in unreadable] == [
        "docs/latin1.md:3: not UTF-8 (byte b'\\xe9'); save it as UTF-8"]
