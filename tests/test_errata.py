"""The errata checker, index and page rendering: on a fixture repository, and on the real one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from explainer_tools import glue
from explainer_tools.book import bibliography, crossref, errata
from explainer_tools.claims.check import check_page
from explainer_tools.claims.outputs import Outputs
from explainer_tools.website import errata_pages

REPO_ROOT = Path(__file__).resolve().parent.parent

OUTPUT = """Chapter 1 -- fixture (ch01_demo.py)
[1] first block
    a = 1
[2] second block
    b = 2
All assertions passed.
"""

FRONT = {
    "id": "E7",
    "title": "A fixture erratum",
    "paper_locations": ["§1, p. 1"],
    "paper_says": "[PAPER abstract, v1] The paper says a = 1.",
    "problem": "[MY ANALYSIS] It should say b = 2 (output [2] of ch01_demo.py).",
    "consequences": "[MY ANALYSIS] No bound changes.",
    "correction": "[MY ANALYSIS] Say b = 2.",
    "chapters": ["chapters/01-demo.md"],
    "status": "confirmed",
    "evidence": [
        {"output": "ch01_demo.py", "block": 2, "shows": "b"},
        {
            "repo": "github.com/owner/project",
            "commit": "c606ea664e54fe60cfd870167bf6d1c1183fedf1",
            "file": "pkg/mod.py",
            "where": "f, lines 1-2",
            "shows": "the code",
        },
        {"package": "demo-pkg==1.0", "file": "demo_pkg/data.json", "shows": "the data"},
    ],
}

BODY = """[MY EXPLANATION] See [the chapter](../chapters/01-demo.md#part).

<!-- embed: output ch01_demo.py [2] -->
<!-- /embed -->
"""

CHAPTER = "# Chapter 1: Demo\n\nErratum [E7](../errata/e7.md) concerns this chapter.\n"
INDEX = f"# Errata\n\nIntro.\n\n{errata.INDEX_MARKER}\n"
MKDOCS = {"site_name": "fixture", "nav": [{"Errata": ["errata/index.md", "errata/e7.md"]}]}


def page_text(front: dict, body: str = BODY) -> str:
    return "---\n" + yaml.safe_dump(front, sort_keys=False, allow_unicode=True) + "---\n" + body


def make_repo(root: Path, front: dict | None = None, body: str = BODY) -> Path:
    """A repository with one erratum, one chapter, one output, nav and lock file."""
    (root / "docs" / "errata").mkdir(parents=True)
    (root / "docs" / "chapters").mkdir()
    (root / "outputs").mkdir()
    (root / "docs" / "index.md").write_text("# Home\n", encoding="utf-8")
    (root / "docs" / "errata" / "e7.md").write_text(page_text(front or FRONT, body), "utf-8")
    (root / "docs" / "errata" / "index.md").write_text(INDEX, encoding="utf-8")
    (root / "docs" / "chapters" / "01-demo.md").write_text(CHAPTER, encoding="utf-8")
    (root / "outputs" / "ch01_demo.txt").write_text(OUTPUT, encoding="utf-8")
    (root / "mkdocs.yml").write_text(yaml.safe_dump(MKDOCS), encoding="utf-8")
    (root / "requirements.lock").write_text("demo_pkg==1.0\nother==2\n", encoding="utf-8")
    return root


def with_book_data(root: Path) -> Path:
    """The fixture repository with the data files the plugin's reader features load on every
    build: the book's bibliography, glossary and ledger, a plan of its one chapter, and the
    home page's marker where the list of chapters goes."""
    (root / "docs" / "index.md").write_text("# Home\n\n<!-- book: chapters -->\n", "utf-8")
    (root / "docs" / "_data").mkdir(exist_ok=True)
    for name in ("references.bib", "glossary.yml", "claims_ledger.yml"):
        (root / "docs" / "_data" / name).write_bytes((REPO_ROOT / "docs" / "_data" / name)
                                                     .read_bytes())
    (root / "docs" / "_data" / "chapters.yml").write_text(
        "parts:\n  - part: ''\n    chapters:\n      1: Demo\n", encoding="utf-8")
    return root


def problems_of(root: Path) -> list[str]:
    return errata.check_all(root)[1]


def with_changes(**changes: object) -> dict:
    front = dict(FRONT)
    for key, value in changes.items():
        if value is None:
            front.pop(key)
        else:
            front[key] = value
    return front


def test_fixture_passes(tmp_path: Path) -> None:
    assert problems_of(make_repo(tmp_path)) == []


@pytest.mark.parametrize("field", errata.REQUIRED_FIELDS)
def test_missing_field_fails_naming_the_erratum(tmp_path: Path, field: str) -> None:
    front = with_changes(**{field: None})
    if field == "id":  # without an id the file name names the erratum
        expected = "e7.md: required field 'id' is missing or empty"
    else:
        expected = f"E7: required field '{field}' is missing or empty"
    problems = problems_of(make_repo(tmp_path, front, BODY if field != "evidence" else "x\n"))
    assert expected in problems


@pytest.mark.parametrize("empty", ["", "   ", []])
def test_empty_field_fails(tmp_path: Path, empty: object) -> None:
    problems = problems_of(make_repo(tmp_path, with_changes(correction=empty)))
    assert "E7: required field 'correction' is missing or empty" in problems


def test_main_exits_non_zero_and_names_the_erratum(tmp_path: Path, capsys) -> None:
    root = make_repo(tmp_path, with_changes(title=None))
    assert errata.main(["--check", "--root", str(root)]) == 1
    assert "E7: required field 'title' is missing or empty" in capsys.readouterr().err


def test_main_exits_zero_on_a_good_repository(tmp_path: Path, capsys) -> None:
    assert errata.main(["--check", "--root", str(make_repo(tmp_path))]) == 0
    assert "1 errata OK (E7)" in capsys.readouterr().out


def test_missing_block_fails(tmp_path: Path) -> None:
    evidence = [{"output": "ch01_demo.py", "block": 3, "shows": "nothing"}]
    body = "<!-- embed: output ch01_demo.py [3] -->\n<!-- /embed -->\n"
    problems = problems_of(make_repo(tmp_path, with_changes(evidence=evidence), body))
    assert problems == [
        "E7: evidence item 1 cites block [3] of ch01_demo.py, which has blocks [1, 2]"
    ]


def test_missing_output_file_fails(tmp_path: Path) -> None:
    evidence = [{"output": "ch09_none.py", "block": 1, "shows": "nothing"}]
    body = "<!-- embed: output ch09_none.py [1] -->\n<!-- /embed -->\n"
    problems = problems_of(make_repo(tmp_path, with_changes(evidence=evidence), body))
    assert problems == [
        "E7: evidence item 1 cites ch09_none.py, but outputs/ch09_none.txt does not exist"
    ]


def test_evidence_must_be_embedded_and_embeds_must_be_evidence(tmp_path: Path) -> None:
    body = "<!-- embed: output ch01_demo.py [1] -->\n<!-- /embed -->\n"
    problems = problems_of(make_repo(tmp_path, FRONT, body))
    assert any(p.startswith("E7: evidence ch01_demo.py [2] is not embedded") for p in problems)
    assert "E7: the page embeds ch01_demo.py [1], which its evidence list does not name" in (
        problems
    )


def test_unclosed_marker_is_reported(tmp_path: Path) -> None:
    body = "<!-- embed: output ch01_demo.py [2] -->\n"
    problems = problems_of(make_repo(tmp_path, FRONT, body))
    assert any(p.startswith("E7: ") and "unclosed marker" in p for p in problems)


@pytest.mark.parametrize(
    ("item", "message"),
    [
        ({"output": "ch01_demo.py", "shows": "x"}, "needs an integer 'block'"),
        ({"output": "ch01_demo.py", "block": 2}, "lacks 'shows'"),
        ({"package": "demo-pkg==9.9", "file": "f", "shows": "x"}, "not pinned in requirements"),
        ({"repo": "github.com/o/p", "commit": "main", "file": "f", "where": "w", "shows": "x"},
         "is not a hex commit id"),
        ({"repo": "gitlab.com/o/p", "commit": "abcdef1", "file": "f", "where": "w", "shows": "x"},
         "is not github.com/OWNER/NAME"),
        ({"repo": "github.com/o/p", "commit": "abcdef1", "file": "f", "shows": "x"},
         "lacks 'where'"),
        ({"url": "https://example.org", "shows": "x"}, "is none of"),
    ],
)
def test_malformed_evidence_fails(tmp_path: Path, item: dict, message: str) -> None:
    evidence = [*FRONT["evidence"], item]
    problems = problems_of(make_repo(tmp_path, with_changes(evidence=evidence)))
    assert any(p.startswith("E7: evidence item 4") and message in p for p in problems), problems


def test_package_names_are_normalised() -> None:
    assert errata.pinned_packages("Demo_Pkg==1.0\n") == {"demo-pkg==1.0"}


def test_dead_link_in_body_fails(tmp_path: Path) -> None:
    body = BODY + "\nSee also [E99](e99.md).\n"
    problems = problems_of(make_repo(tmp_path, FRONT, body))
    assert problems == [
        "E7: link to e99.md points to docs/errata/e99.md, which does not exist"
    ]


def test_dead_link_in_a_field_fails(tmp_path: Path) -> None:
    front = with_changes(problem="[MY ANALYSIS] See [Chapter 2](../chapters/02-none.md).")
    problems = problems_of(make_repo(tmp_path, front))
    assert "E7: link to ../chapters/02-none.md points to docs/chapters/02-none.md, which does " \
        "not exist" in problems


def test_links_in_code_and_external_links_are_not_checked(tmp_path: Path) -> None:
    body = BODY + "\n`[x](nowhere.md)` [GitHub](https://github.com/x) [top](#top)\n"
    body += "\n```\n[y](z.md)\n```\n"
    assert problems_of(make_repo(tmp_path, FRONT, body)) == []


def test_missing_chapter_fails(tmp_path: Path) -> None:
    front = with_changes(chapters=["chapters/01-demo.md", "chapters/02-none.md"])
    assert problems_of(make_repo(tmp_path, front)) == [
        "E7: chapter docs/chapters/02-none.md does not exist"
    ]


def test_chapter_must_link_back(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    (root / "docs" / "chapters" / "01-demo.md").write_text("# Chapter 1\n\nNo link.\n", "utf-8")
    assert problems_of(root) == [
        "E7: chapter docs/chapters/01-demo.md does not link back to errata/e7.md"
    ]


def test_chapter_linking_to_an_erratum_must_be_listed(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    (root / "docs" / "chapters" / "02-other.md").write_text("See [E7](../errata/e7.md).\n", "utf-8")
    assert problems_of(root) == [
        "E7: docs/chapters/02-other.md links to it but is not in its 'chapters'"
    ]


def test_erratum_missing_from_nav_fails(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    (root / "mkdocs.yml").write_text(
        "site_name: x\nmarkdown_extensions:\n  - pymdownx.emoji:\n"
        "      emoji_index: !!python/name:material.extensions.emoji.twemoji\n"
        "nav:\n  - Errata:\n      - errata/index.md\n",
        encoding="utf-8",
    )
    assert problems_of(root) == ["E7: errata/e7.md is not in mkdocs.yml's nav"]


def test_index_without_marker_fails(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    (root / "docs" / "errata" / "index.md").write_text("# Errata\n\n| hand | made |\n", "utf-8")
    problems = problems_of(root)
    assert len(problems) == 1
    assert problems[0].startswith("errata index: docs/errata/index.md must contain")


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"status": "likely"}, "E7: status 'likely' is not one of confirmed, inferred"),
        ({"id": "E8"}, "E8: id 'E8' does not match the file name e7.md"),
        ({"problem": "It is wrong."}, "E7: field 'problem' carries no provenance tag"),
        ({"paper_says": "[MY ANALYSIS] It says so."},
         "E7: field 'paper_says' needs a [PAPER <location>] or [SECONDARY: paper <location>] tag"),
        ({"chapters": "chapters/01-demo.md"}, "E7: field 'chapters' must be a list"),
    ],
)
def test_malformed_fields_fail(tmp_path: Path, changes: dict, message: str) -> None:
    assert message in problems_of(make_repo(tmp_path, with_changes(**changes)))


def test_invalid_yaml_names_the_file(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    (root / "docs" / "errata" / "e7.md").write_text("---\nid: [E7\n---\nbody\n", "utf-8")
    problems = problems_of(root)
    assert any(p.startswith("E7: ") and "invalid YAML" in p for p in problems), problems


def test_index_rows_in_numeric_order_with_links(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    second = with_changes(id="E10", title="Second | piped", status="inferred")
    (root / "docs" / "errata" / "e10.md").write_text(page_text(second), "utf-8")
    table = errata_pages.render_index(errata.load_errata(root / "docs" / "errata"), root / "docs")
    rows = table.splitlines()
    assert rows[0] == "| Erratum | Title | Paper locations | Chapters | Status |"
    assert rows[2] == (
        "| [E7](e7.md) | A fixture erratum | §1, p. 1 "
        "| [Chapter 1: Demo](../chapters/01-demo.md) | confirmed |"
    )
    assert rows[3].startswith("| [E10](e10.md) | Second \\| piped |")
    assert rows[3].endswith("| inferred |")


def test_page_renders_every_field_around_the_body(tmp_path: Path) -> None:
    root = make_repo(tmp_path)
    erratum = errata.read_erratum(root / "docs" / "errata" / "e7.md")
    page = errata_pages.render_page(erratum, root / "docs")
    assert page.startswith("# E7: A fixture erratum\n")
    order = [
        "**Paper locations**: §1, p. 1",
        "[Chapter 1: Demo](../chapters/01-demo.md)",
        "## What the paper says\n\n[PAPER abstract, v1] The paper says a = 1.",
        "## What is wrong, missing or ambiguous\n\n[MY ANALYSIS] It should say b = 2",
        "## Evidence",
        "- Output [2] of `ch01_demo.py` (embedded below): b",
        "- [SOURCE: github.com/owner/project @ c606ea6, pkg/mod.py] f, lines 1-2 ([view]("
        "https://github.com/owner/project/blob/c606ea664e54fe60cfd870167bf6d1c1183fedf1/"
        "pkg/mod.py)): the code",
        "- [SOURCE: demo-pkg==1.0, demo_pkg/data.json]",
        "<!-- embed: output ch01_demo.py [2] -->",
        "## What it changes for the paper's results\n\n[MY ANALYSIS] No bound changes.",
        "## Suggested correction\n\n[MY ANALYSIS] Say b = 2.",
    ]
    positions = [page.index(piece) for piece in order]
    assert positions == sorted(positions)
    assert "**Status**: confirmed" in page


def test_mkdocs_build_renders_pages_and_index(tmp_path: Path, caplog) -> None:
    """The plugin inside a real MkDocs build: titles, fields, index rows, and a failing build."""
    from mkdocs.commands.build import build
    from mkdocs.config import load_config
    from mkdocs.exceptions import Abort

    root = with_book_data(make_repo(tmp_path))
    config_file = root / "mkdocs.yml"
    config_file.write_text(
        yaml.safe_dump(
            {
                "site_name": "fixture",
                "theme": {"name": "mkdocs"},
                # the book's plugin, all its features: the errata feature must render an
                # erratum's fields before the provenance feature badges the tags they hold
                "plugins": ["explainer"],
                "nav": [
                    {"Home": "index.md"},
                    {"Chapter": "chapters/01-demo.md"},
                    {"Errata": ["errata/index.md", "errata/e7.md"]},
                ],
            }
        ),
        encoding="utf-8",
    )

    def run_build() -> None:
        config = load_config(config_file=str(config_file), site_dir=str(tmp_path / "site"))
        config["plugins"].run_event("startup", command="build", dirty=False)
        try:
            build(config)
        finally:
            config["plugins"].run_event("shutdown")

    run_build()
    page = (tmp_path / "site" / "errata" / "e7" / "index.html").read_text("utf-8")
    assert "<title>E7: A fixture erratum" in page
    assert "What the paper says" in page and "Suggested correction" in page
    assert '<span class="prov prov--paper">PAPER abstract, v1</span> The paper says a = 1.' in page
    index = (tmp_path / "site" / "errata" / "index.html").read_text("utf-8")
    assert '<a href="e7/">E7</a>' in index
    assert errata.INDEX_MARKER not in index

    (root / "docs" / "errata" / "e7.md").write_text(page_text(with_changes(status=None)), "utf-8")
    with pytest.raises(Abort):
        run_build()
    assert "E7: required field 'status' is missing or empty" in caplog.text


def test_real_errata_pass() -> None:
    outputs = [REPO_ROOT / "outputs" / name for name in ("ch05_param_count.txt",
                                                         "ch05_attention.txt")]
    if not all(path.is_file() for path in outputs):
        pytest.skip("outputs/ch05_*.txt are not generated yet (run `make regenerate`)")
    found, problems = errata.check_all(REPO_ROOT)
    assert problems == []
    ids = [e.meta["id"] for e in found]
    assert ids[:5] == ["E24", "E36", "E43", "E44", "E45"]
    # code errata follow the paper errata, in numeric order (C10 after C9, not after C1)
    assert ids[5:15] == ["C1", "C2", "C3", "C4", "C5", "C6", "C7", "C8", "C9", "C10"]
    assert all(e.is_code for e in found[5:]) and not any(e.is_code for e in found[:5])


# ---------------------------------------------------------------- errata of the released code

CODE_FRONT = {
    "id": "C3",
    "title": "A fixture code erratum",
    "concerns": "code",
    "code_locations": ["pkg/mod.py:1-2 @c606ea6"],
    "code_does": "[SOURCE: github.com/owner/project pkg/mod.py:1 @c606ea6] It sets a = 1.",
    "problem": "[MY ANALYSIS] It should set b = 2 (output [2] of ch01_demo.py).",
    "consequences": "[MY ANALYSIS] No bound changes.",
    "correction": "[MY ANALYSIS] Set b = 2.",
    "chapters": ["chapters/01-demo.md"],
    "status": "confirmed",
    "evidence": [{"output": "ch01_demo.py", "block": 2, "shows": "b"}],
}
CODE_NAV = {
    "site_name": "fixture",
    "nav": [{"Errata": ["errata/index.md", "errata/e7.md", "errata/c3.md"]}],
}


def make_code_repo(root: Path, front: dict | None = None) -> Path:
    """The fixture repository plus one code erratum, c3.md, linked from the chapter."""
    make_repo(root)
    (root / "docs" / "errata" / "c3.md").write_text(page_text(front or CODE_FRONT), "utf-8")
    (root / "docs" / "chapters" / "01-demo.md").write_text(
        CHAPTER + "Code erratum [C3](../errata/c3.md) too.\n", encoding="utf-8"
    )
    (root / "mkdocs.yml").write_text(yaml.safe_dump(CODE_NAV), encoding="utf-8")
    return root


def code_changes(**changes: object) -> dict:
    front = dict(CODE_FRONT)
    for key, value in changes.items():
        if value is None:
            front.pop(key)
        else:
            front[key] = value
    return front


def test_code_fixture_passes_and_loads_after_paper_errata(tmp_path: Path) -> None:
    root = make_code_repo(tmp_path)
    found, problems = errata.check_all(root)
    assert problems == []
    assert [e.meta["id"] for e in found] == ["E7", "C3"]
    assert [e.concerns for e in found] == ["paper", "code"]
    assert [e.meta["id"] for e in errata.load_errata(root / "docs" / "errata")] == ["E7", "C3"]


@pytest.mark.parametrize("field", errata.CODE_REQUIRED_FIELDS)
def test_code_erratum_missing_field_fails(tmp_path: Path, field: str) -> None:
    problems = problems_of(make_code_repo(tmp_path, code_changes(**{field: None})))
    label = "c3.md" if field == "id" else "C3"
    assert f"{label}: required field '{field}' is missing or empty" in problems


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"concerns": "slides"}, "C3: concerns 'slides' is not one of paper, code"),
        ({"paper_says": "[PAPER §1, p. 1] x"},
         "C3: field 'paper_says' does not belong to an erratum that concerns the code"),
        ({"code_does": "[MY ANALYSIS] It sets a = 1."},
         "C3: field 'code_does' needs a [SOURCE: ...] tag"),
        ({"code_locations": "pkg/mod.py:1"}, "C3: field 'code_locations' must be a list"),
        ({"concerns": None},  # then it is a paper erratum with a C id and code fields
         "C3: an erratum that concerns the paper has an id starting with E"),
    ],
)
def test_malformed_code_erratum_fails(tmp_path: Path, changes: dict, message: str) -> None:
    assert message in problems_of(make_code_repo(tmp_path, code_changes(**changes)))


def test_paper_erratum_with_code_fields_fails(tmp_path: Path) -> None:
    problems = problems_of(make_repo(tmp_path, with_changes(code_does="[SOURCE: x] y")))
    assert problems == [
        "E7: field 'code_does' does not belong to an erratum that concerns the paper"
    ]


def test_code_erratum_page_renders_code_fields(tmp_path: Path) -> None:
    root = make_code_repo(tmp_path)
    erratum = errata.read_erratum(root / "docs" / "errata" / "c3.md")
    page = errata_pages.render_page(erratum, root / "docs")
    order = [
        "# C3: A fixture code erratum\n",
        "**Code locations**: pkg/mod.py:1-2 @c606ea6",
        "## What the code does\n\n[SOURCE: github.com/owner/project pkg/mod.py:1 @c606ea6]",
        "## What is wrong, and what the code should do\n\n[MY ANALYSIS] It should set b = 2",
        "## Evidence",
        "## What it changes for the paper's results",
        "## Suggested correction\n\n[MY ANALYSIS] Set b = 2.",
    ]
    positions = [page.index(piece) for piece in order]
    assert positions == sorted(positions)
    assert "Paper locations" not in page and "What the paper says" not in page


def test_index_lists_code_errata_in_their_own_section(tmp_path: Path) -> None:
    root = make_code_repo(tmp_path)
    text = errata_pages.render_index(errata.load_errata(root / "docs" / "errata"), root / "docs")
    paper_at = text.index("## Errata of the paper")
    code_at = text.index("## Errata of the authors' released code")
    assert paper_at < text.index("| [E7](e7.md) |") < code_at < text.index("| [C3](c3.md) |")
    assert "| Erratum | Title | Code locations | Chapters | Status |" in text[code_at:]
    assert "| Erratum | Title | Paper locations | Chapters | Status |" in text[:code_at]
    assert "| [C3](c3.md) | A fixture code erratum | pkg/mod.py:1-2 @c606ea6 |" in text


def test_mkdocs_build_renders_a_code_erratum(tmp_path: Path) -> None:
    from mkdocs.commands.build import build
    from mkdocs.config import load_config

    root = with_book_data(make_code_repo(tmp_path))
    config_file = root / "mkdocs.yml"
    config_file.write_text(
        yaml.safe_dump(
            {
                "site_name": "fixture",
                "theme": {"name": "mkdocs"},
                "plugins": ["explainer"],
                "nav": [
                    {"Home": "index.md"},
                    {"Chapter": "chapters/01-demo.md"},
                    {"Errata": ["errata/index.md", "errata/e7.md", "errata/c3.md"]},
                ],
            }
        ),
        encoding="utf-8",
    )
    config = load_config(config_file=str(config_file), site_dir=str(tmp_path / "site"))
    config["plugins"].run_event("startup", command="build", dirty=False)
    try:
        build(config)
    finally:
        config["plugins"].run_event("shutdown")
    page = (tmp_path / "site" / "errata" / "c3" / "index.html").read_text("utf-8")
    assert "<title>C3: A fixture code erratum" in page
    assert "What the code does" in page and "Code locations" in page
    index = (tmp_path / "site" / "errata" / "index.html").read_text("utf-8")
    assert '<a href="c3/">C3</a>' in index and '<a href="e7/">E7</a>' in index
    assert "Errata of the authors" in index


# --------------------------------------------------------------------------- C9: field lines


class _File:
    def __init__(self, path: Path) -> None:
        self.src_uri, self.abs_src_path = f"errata/{path.name}", str(path)


class _Page:
    def __init__(self, path: Path) -> None:
        self.file, self.meta = _File(path), {}


def _hook_error(tmp_path: Path, find: str, below: int, inserted: str) -> tuple[str, int]:
    """Append `inserted` to the line `below` lines under the first line starting with `find`
    in the real C9 page, copied; run the errata hook on it; return its error and that line."""
    lines = (REPO_ROOT / "docs" / "errata" / "c9.md").read_text("utf-8").split("\n")
    target = next(n for n, text in enumerate(lines, 1) if text.startswith(find)) + below
    lines[target - 1] += f" {inserted}"
    path = tmp_path / "docs" / "errata" / "c9.md"
    path.parent.mkdir(parents=True)
    text = "\n".join(lines)
    path.write_text(text, encoding="utf-8")
    outputs = path.parent.parent.parent / "outputs"
    state = errata_pages.ErrataState(entries=bibliography.load_bibliography(REPO_ROOT),
                              index=crossref.build_index({}), names=glue.read_names(outputs),
                              outputs={"ch01_demo.py": OUTPUT})
    body = errata.split_erratum_front_matter(text)[1].lstrip("\n")  # as MkDocs hands it over
    with pytest.raises(errata_pages.PluginError) as raised:
        errata_pages.on_page_markdown(state, body, _Page(path),
                                     {"docs_dir": str(tmp_path / "docs")}, None)
    return str(raised.value), target


@pytest.mark.parametrize(("find", "below", "inserted", "message"), [
    ("correction: >-", 2, "[@nosuchkey]", "unknown citation key 'nosuchkey'"),
    ("problem: >-", 3, "[@eq:nosuch]", "unknown label 'eq:nosuch'"),
    ("[MY EXPLANATION]", 2, "[@lotfi2024; @nosuchkey]", "unknown citation key 'nosuchkey'"),
    ("  - output: ch17_prefix_code.py", 4, "[@fig:nosuch]", "unknown label 'fig:nosuch'"),
], ids=["correction", "problem", "body", "evidence"])
def test_probe_C9_an_error_in_an_erratum_names_its_line_in_the_file(
        tmp_path: Path, find: str, below: int, inserted: str, message: str) -> None:
    error, line = _hook_error(tmp_path, find, below, inserted)
    assert error.startswith(f"docs/errata/c9.md:{line}: {message}"), error


def test_rendered_lines_point_at_their_source() -> None:
    """Every body line of every real erratum, as rendered, maps to the line of its file that
    holds it; every other line to the field it comes from, or to none."""
    docs = REPO_ROOT / "docs"
    for erratum in errata.load_errata(docs / "errata"):
        source = erratum.path.read_text(encoding="utf-8")
        lines = source.split("\n")
        page = errata_pages.rendered_page(erratum, docs, source)
        body = set(erratum.body.strip("\n").split("\n")) - {""}
        for text, (first, last) in zip(page.text.split("\n"), page.origins, strict=True):
            if text in body:
                assert first == last and lines[first - 1] == text, (erratum.label, text)
            elif first:
                assert 1 < first <= last < lines.index("---", 1) + 1, (erratum.label, text)


# ------------------------------------------------------------------ values by name in an erratum

GLUED_NAMES = {"script": "ch01_demo.py",
               "names": {"b_value": {"text": "2", "line": 5, "block": 2}}}


def _glued_erratum(tmp_path: Path, name: str, body_name: str = "b_value") -> tuple[Path, int]:
    """The fixture erratum quoting output [2]'s value by `name` in its `problem:` field (a
    folded scalar, line 2 of the value) and by `body_name` in the body; the field's line."""
    problem = ("[MY ANALYSIS] It should say\n  b = {glue}`" + name + "` (output [2] of "
               "ch01_demo.py).")
    body = BODY.replace("See", "It is {glue}`" + body_name + "` (output [2]). See")
    root = make_repo(tmp_path, with_changes(problem="@PROBLEM@"), body)
    path = root / "docs" / "errata" / "e7.md"
    text = path.read_text(encoding="utf-8").replace("problem: '@PROBLEM@'",
                                                    "problem: >-\n  " + problem)
    path.write_text(text, encoding="utf-8")
    (root / "outputs" / "ch01_demo.names.json").write_text(json.dumps(GLUED_NAMES), "utf-8")
    return path, next(n for n, line in enumerate(text.split("\n"), 1) if "b = {glue}" in line)


def _hook(path: Path) -> str:
    text = path.read_text(encoding="utf-8")
    outputs = path.parent.parent.parent / "outputs"
    state = errata_pages.ErrataState(entries=bibliography.load_bibliography(REPO_ROOT),
                              index=crossref.build_index({}), names=glue.read_names(outputs),
                              outputs={"ch01_demo.py": OUTPUT})
    body = errata.split_erratum_front_matter(text)[1].lstrip("\n")  # as MkDocs hands it over
    return errata_pages.on_page_markdown(state, body, _Page(path),
                                        {"docs_dir": str(path.parent.parent)}, None)


def test_a_value_quoted_by_name_in_an_erratum_is_shown_linked_and_counted(
        tmp_path: Path) -> None:
    path, _ = _glued_erratum(tmp_path, "b_value")
    link = '<a class="num" href="#out-ch01_demo-L5" data-block="2">2</a>'
    markdown = _hook(path)
    assert f"It should say b = {link} (output [2]" in markdown  # the field
    assert f"It is {link} (output [2])" in markdown  # the body
    report = check_page(path.read_text(encoding="utf-8"), "docs/errata/e7.md",
                        Outputs({"ch01_demo.py": OUTPUT}, names=glue.read_names(
                            path.parent.parent.parent / "outputs")))
    assert report.errors == [] and [g.note for g in report.glued] == ["b_value", "b_value"]


@pytest.mark.parametrize("where", ["field", "body"])
def test_a_misspelt_name_in_an_erratum_fails_build_and_check_at_its_line(
        tmp_path: Path, where: str) -> None:
    path, line = _glued_erratum(tmp_path, *(("b_valeu", "b_value") if where == "field"
                                            else ("b_value", "b_valeu")))
    text = path.read_text(encoding="utf-8")
    if where == "body":
        line = next(n for n, written in enumerate(text.split("\n"), 1) if "It is {glue}" in written)
    message = ("no value named 'b_valeu' printed by ch01_demo.py (names it prints: b_value)")
    with pytest.raises(errata_pages.PluginError) as raised:
        _hook(path)
    assert str(raised.value) == f"docs/errata/e7.md:{line}: {message}"
    report = check_page(text, "docs/errata/e7.md", Outputs(
        {"ch01_demo.py": OUTPUT}, names=glue.read_names(path.parent.parent.parent / "outputs")))
    assert [str(error) for error in report.errors] == [f"docs/errata/e7.md:{line}: {message}"]


def test_the_migration_rewrites_an_erratum_field_only_where_the_yaml_reads_the_same(
        tmp_path: Path) -> None:
    from explainer_tools import glue_migrate

    evidence = [{"output": "ch01_demo.py", "block": 2, "shows": "2 is the value of b"},
                *FRONT["evidence"][1:]]
    root = make_repo(tmp_path, with_changes(evidence=evidence))
    (root / "outputs" / "ch01_demo.names.json").write_text(json.dumps(GLUED_NAMES), "utf-8")
    path = root / "docs" / "errata" / "e7.md"
    result = glue_migrate.migrate(root, path)
    front = errata.split_erratum_front_matter(result.text)[0]
    assert front["problem"] == ("[MY ANALYSIS] It should say b = {glue}`b_value` (output [2] of "
                                "ch01_demo.py).")
    # A plain scalar cannot start with `{`: there the number stays, listed for a person.
    assert front["evidence"][0]["shows"] == "2 is the value of b"
    assert result.rewritten == 1 and len(result.missed) == 1
    assert "would not read as the same YAML text" in result.missed[0]
