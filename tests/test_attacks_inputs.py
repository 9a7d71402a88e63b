"""Attacks by a data file or a page on the tools that read them, each performed against the real
command on a scratch copy of the book: the site build, the claim check, the ledger check, the
table of contents, regenerate's embedding.

- a YAML alias bomb ("billion laughs") in a data file or front matter fails fast, one error
  naming the file and line (before, every reader walked the expanded data for ever);
- a value of the wrong kind (glossary `forms: 5`, ledger `output: [a]`), an unclosed `[` in front
  matter, an embedded source that is not UTF-8: one error naming file and line, no traceback and
  no knock-on noise;
- two chapter pages with one number are refused, naming both;
- text from the data files and front matter (titles, glossary entries, ledger fields, references)
  is escaped wherever the site writes it: the built site, parsed, holds no injected element;
- a number written in fullwidth or Arabic-Indic digits is not skipped by the claim check.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest

from explainer_tools.layout import Layout

REPO = Path(__file__).resolve().parent.parent
NOT_COPIED = shutil.ignore_patterns(".git", ".venv", ".cache", "site", "site-offline", "build",
                                    "bench-tools", "__pycache__", ".pytest_cache", ".ruff_cache",
                                    "node_modules")
FAST = 20  # seconds: each command here takes a few; a hang is what the limit catches


@pytest.fixture
def book(tmp_path: Path) -> Path:
    """A scratch copy of the book (its tools included: the commands run the copy's code)."""
    project = tmp_path / "book"
    shutil.copytree(REPO, project, ignore=NOT_COPIED, symlinks=True)
    (tmp_path / "tmp").mkdir()
    return project


def run(project: Path, *args: str, timeout: float = FAST) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "OMP_NUM_THREADS": "1",
           "TMPDIR": str(project.parent / "tmp"), "SOURCE_DATE_EPOCH": "1767225600"}
    return subprocess.run([sys.executable, *args], cwd=project, env=env, capture_output=True,
                          text=True, stdin=subprocess.DEVNULL, timeout=timeout, check=False)


def build(project: Path, timeout: float = FAST) -> subprocess.CompletedProcess[str]:
    return run(project, "-m", "mkdocs", "build", "--strict", "-q", "-d",
               str(project.parent / "site"), timeout=timeout)


def claims(project: Path, page: str) -> subprocess.CompletedProcess[str]:
    return run(project, "-m", "explainer_tools", "claims", "-q", page)


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{path.name} no longer holds {old!r}: update the attack"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def append(path: Path, text: str) -> None:
    with path.open("a", encoding="utf-8") as handle:
        handle.write(text)


def anchors(indent: str) -> str:
    """Ten anchors, each a list of nine aliases of the one before: `*a9` stands for 9^9 values."""
    lines = [f'{indent}a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"{indent}a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 9)}]" for i in range(1, 10)]
    return "\n".join(lines) + "\n"


def one_error(result: subprocess.CompletedProcess[str], where: str) -> str:
    """The command failed with an error naming `where` (file:line), and no traceback."""
    output = result.stdout + result.stderr
    assert result.returncode != 0, output[-2000:]
    assert "Traceback" not in output, output[-3000:]
    assert where in output, output[-2000:]
    return output


# ------------------------------------------------------------------ aliases: nothing hangs


def test_an_alias_bomb_in_the_glossary_fails_the_build_fast(book: Path) -> None:
    glossary = book / "docs" / "_data" / "glossary.yml"
    line = glossary.read_text(encoding="utf-8").count("\n") + 1
    append(glossary, "- term: laughs\n  extra:\n" + anchors("    ") + "  definition: *a9\n")
    output = one_error(build(book), f"docs/_data/glossary.yml:{line + 2}:")
    assert "anchors and aliases are not allowed" in output


def test_an_alias_bomb_in_the_ledger_fails_its_check_fast(book: Path) -> None:
    ledger = book / "docs" / "_data" / "claims_ledger.yml"
    line = ledger.read_text(encoding="utf-8").count("\n") + 1
    append(ledger, "- id: L99\n  claim: c\n  paper: p. 1\n  status: reproduced\n  note:\n"
           + anchors("    ") + "  evidence:\n    - output: ch05_param_count.py\n      block: 1\n"
           "      expects: *a9\n")
    result = run(book, "-m", "explainer_tools.book.ledger", "--check", "--root", ".")
    output = one_error(result, f"docs/_data/claims_ledger.yml:{line + 5}:")
    assert "anchors and aliases are not allowed" in output


def test_an_alias_bomb_in_the_plan_fails_the_table_of_contents_fast(book: Path) -> None:
    plan = book / "docs" / "_data" / "chapters.yml"
    line = plan.read_text(encoding="utf-8").count("\n") + 1
    append(plan, "laughs:\n" + anchors("  ") + "  title: *a9\n")
    one_error(run(book, "-m", "explainer_tools.book.chapters", "--check"),
              f"docs/_data/chapters.yml:{line + 1}:")


def test_an_alias_bomb_in_front_matter_fails_the_claim_check_fast(book: Path) -> None:
    page = book / "docs" / "chapters" / "09-generalization.md"
    edit(page, "---\nscripts: [ch09_generalization.py]\n---\n",
         "---\nlaughs:\n" + anchors("  ") + "scripts: *a9\n---\n")
    result = claims(book, "docs/chapters/09-generalization.md")
    output = one_error(result, "docs/chapters/09-generalization.md:3:")
    assert "anchors and aliases are not allowed" in output


# ------------------------------------------------------------------ one error per bad input


def test_glossary_forms_of_the_wrong_kind_are_one_error_at_their_line(book: Path) -> None:
    glossary = book / "docs" / "_data" / "glossary.yml"
    edit(glossary, "  forms: [population risk, true risk]\n", "  forms: 5\n")
    line = glossary.read_text(encoding="utf-8").split("\n").index("  forms: 5") + 1
    output = one_error(build(book), f"docs/_data/glossary.yml:{line}:")
    assert "forms: expected a list of texts, not the number 5" in output


def test_a_ledger_output_of_the_wrong_kind_is_one_error_at_its_line(book: Path) -> None:
    ledger = book / "docs" / "_data" / "claims_ledger.yml"
    edit(ledger, "    - output: ch05_param_count.py\n      block: 1\n",
         "    - output: [a]\n      block: 1\n")
    line = ledger.read_text(encoding="utf-8").split("\n").index("    - output: [a]") + 1
    result = run(book, "-m", "explainer_tools.book.ledger", "--check", "--root", ".")
    output = one_error(result, f"docs/_data/claims_ledger.yml:{line}:")
    assert "output: expected a text, not a list" in output
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_an_unclosed_bracket_in_front_matter_is_one_error_naming_the_yaml(book: Path) -> None:
    page = book / "docs" / "chapters" / "09-generalization.md"
    edit(page, "scripts: [ch09_generalization.py]\n", "scripts: [ch09_generalization.py\n")
    result = claims(book, "docs/chapters/09-generalization.md")
    output = one_error(result, "docs/chapters/09-generalization.md:3: invalid YAML front matter")
    assert re.search(r"\b1 errors?\b", output) and "from line 2" in output, output[-2000:]
    output = one_error(build(book), "docs/chapters/09-generalization.md:3: invalid YAML front")


@pytest.mark.parametrize(("name", "command"), [
    ("_data/glossary.yml", ("build",)),
    ("_data/references.bib", ("build",)),
    ("_data/claims_ledger.yml", ("-m", "explainer_tools.book.ledger", "--check", "--root", ".")),
    ("_data/chapters.yml", ("-m", "explainer_tools.book.chapters", "--check")),
    ("errata/e24.md", ("-m", "explainer_tools", "errata")),
])
def test_a_data_file_that_is_not_utf8_is_one_error_naming_file_and_line(
        book: Path, name: str, command: tuple[str, ...]) -> None:
    path = book / "docs" / name
    lines = path.read_bytes().split(b"\n")
    lines[1] += b" caf\xe9"  # a Latin-1 byte at the end of line 2
    path.write_bytes(b"\n".join(lines))
    result = build(book) if command == ("build",) else run(book, *command)
    one_error(result, f"docs/{name}:2: not UTF-8")


def test_an_embedded_source_that_is_not_utf8_is_one_error_naming_file_and_line(
        book: Path) -> None:
    from explainer_tools.scripts.pipeline import CommandError, plan_pages

    layout = Layout(book)
    (layout.code_dir / "latin1_helper.py").write_bytes(b'"""A helper."""\nx = "caf\xe9"\n')
    page = layout.docs_dir / "chapters" / "09-generalization.md"
    line = page.read_text(encoding="utf-8").count("\n") + 2
    append(page, "\n<!-- embed: source latin1_helper.py -->\n<!-- /embed -->\n")
    outputs = {path.stem + ".py": path.read_text(encoding="utf-8")
               for path in layout.output_dir.glob("*.txt")}
    with pytest.raises(CommandError) as error:
        plan_pages(outputs, [page], layout)
    assert (f"docs/chapters/09-generalization.md:{line}: explainer_code/latin1_helper.py:2 "
            "is not UTF-8") in str(error.value)


# ------------------------------------------------------------------ duplicate chapter numbers


def test_two_chapter_pages_numbered_10_are_refused_naming_both(book: Path) -> None:
    shutil.copy(book / "docs" / "chapters" / "10-hoeffding-union-bound.md",
                book / "docs" / "chapters" / "10-a-duplicate.md")
    edit(book / "mkdocs.yml", "chapters/10-hoeffding-union-bound.md\n",
         "chapters/10-hoeffding-union-bound.md\n      - \"10. A duplicate\": "
         "chapters/10-a-duplicate.md\n")
    before = (book / "BOOK.md").read_bytes()
    output = one_error(run(book, "-m", "explainer_tools.book.chapters"), "chapter 10")
    assert "docs/chapters/10-hoeffding-union-bound.md" in output
    assert "docs/chapters/10-a-duplicate.md" in output
    assert (book / "BOOK.md").read_bytes() == before


def test_a_second_chapter_10_under_docs_fails_the_build_naming_both(book: Path) -> None:
    """Not in the nav (MkDocs builds it anyway, with a note): its figures and formulas would be
    numbered 10.x beside the real chapter's."""
    (book / "docs" / "chapters" / "10-b-duplicate.md").write_text(
        "# Chapter 10: A duplicate\n\nA page of its own.\n", encoding="utf-8")
    output = one_error(build(book), "chapter 10")
    assert "docs/chapters/10-b-duplicate.md" in output
    assert "docs/chapters/10-hoeffding-union-bound.md" in output


# ------------------------------------------------------------------ escaping, in the built site

SCRIPT = "<script>alert(document.domain)</script>"
IMAGE = "<img src=x onerror=alert(document.cookie)>"


class Injected(HTMLParser):
    """Every element an attack could have injected: a script whose text calls alert, and any
    element with an event handler attribute."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []
        self._script = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        handlers = [name for name, _ in attrs if name.startswith("on")]
        if handlers:
            self.found.append(f"<{tag} {' '.join(handlers)}>")
        self._script = tag == "script"

    def handle_endtag(self, tag: str) -> None:
        self._script = False

    def handle_data(self, data: str) -> None:
        if self._script and "alert(document" in data:
            self.found.append("<script>alert(...)</script>")


def test_text_injected_into_every_field_reaches_the_site_as_text(book: Path) -> None:
    docs = book / "docs"
    # an erratum's title (its H1, the navigation of every page, the errata index, <title>)
    erratum = docs / "errata" / "e24.md"
    text = erratum.read_text(encoding="utf-8")
    title = re.search(r"^title: (.*)$", text, re.M)
    assert title, "e24.md has a title line"
    edit(erratum, title.group(0), f"title: 'Axis {SCRIPT} {IMAGE}'")
    # an erratum's locations and evidence fields (names and places: text)
    code_erratum = docs / "errata" / "c4.md"
    edit(code_erratum, "  - sublora/utils.py:121-137\n",
         f"  - 'sublora/utils.py:121-137 {IMAGE}'\n")
    edit(code_erratum, '    where: "sample_nonoverlapping_sequences, lines 121-137"',
         f'    where: "sample_nonoverlapping_sequences, lines 121-137 {SCRIPT}"')
    # glossary: a term, its forms, its definition
    edit(docs / "_data" / "glossary.yml", "- term: population risk\n  forms: "
         "[population risk, true risk]\n",
         f"- term: 'population risk {IMAGE}'\n  forms: [population risk, true risk, "
         f"'{SCRIPT}']\n")
    edit(docs / "_data" / "glossary.yml", "  definition: The average loss of a model",
         f"  definition: {IMAGE} The average loss of a model")
    # the claims ledger: claim, paper, note, expects
    ledger = docs / "_data" / "claims_ledger.yml"
    edit(ledger, "  claim: The smallest model has", f"  claim: {SCRIPT} The smallest model has")
    edit(ledger, '  paper: "App. E, p. 16"', f"  paper: \"App. E, p. 16 {IMAGE}\"")
    edit(ledger, "  note: >-\n", f"  note: >-\n    {IMAGE}\n")
    # a reference's title (the Bibliography page, the print page, References lists)
    bib = docs / "_data" / "references.bib"
    edit(bib, "title = {", "title = {" + SCRIPT.replace("{", "").replace("}", "") + " " + IMAGE
         + " ")
    # the plan's title of a planned chapter (the home page's list)
    plan = docs / "_data" / "chapters.yml"
    planned = [line for line in plan.read_text(encoding="utf-8").splitlines()
               if re.match(r"\s+2[3-9]: ", line)]
    if planned:
        number = planned[-1].split(":")[0]
        edit(plan, planned[-1], f"{number}: \"Planned {IMAGE}\"")
    # a figure's alt text and title in a page
    append(docs / "chapters" / "09-generalization.md",
           f"\n![{IMAGE}](../assets/fig/ch01_concentration.png \"{SCRIPT}\")\n")
    if (REPO / ".cache").is_dir():  # the pages not attacked are built from the cache
        shutil.copytree(REPO / ".cache", book / ".cache")
    result = build(book, timeout=600)
    assert result.returncode == 0, result.stderr[-3000:]
    site = book.parent / "site"
    found: dict[str, list[str]] = {}
    for page in sorted(site.rglob("*.html")):
        parser = Injected()
        parser.feed(page.read_text(encoding="utf-8"))
        if parser.found:
            found[page.relative_to(site).as_posix()] = sorted(set(parser.found))
    assert not found, found
    # and the injected text is there, as text (the attack reached the pages)
    shown = (site / "claims-ledger" / "index.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(document.domain)&lt;/script&gt;" in shown
    for page in ("errata/e24", "errata/c4", "bibliography"):
        shown = (site / page / "index.html").read_text(encoding="utf-8")
        assert "&lt;img src=x onerror" in shown, page


# ------------------------------------------------------------------ non-ASCII digits


@pytest.mark.parametrize("digits", ["０.９９９", "٠.٩٩٩", "۰.۹۹۹"])
def test_a_wrong_number_in_other_digits_is_an_error(book: Path, digits: str) -> None:
    page = book / "docs" / "chapters" / "09-generalization.md"
    line = page.read_text(encoding="utf-8").count("\n") + 2
    append(page, f"\nThe best possible top-1 error is {digits} (output [1]).\n")
    result = claims(book, "docs/chapters/09-generalization.md")
    one_error(result, f"docs/chapters/09-generalization.md:{line}:")
