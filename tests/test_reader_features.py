"""Unit tests of the reader features: bibliography, cross-references, glossary, prose rewriting,
the claims ledger, "last verified" and number links. The browser suite checks them on the site."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path
from types import SimpleNamespace

import pytest

from explainer_tools.book import bibliography, crossref, glossary, ledger
from explainer_tools.website import last_verified, number_links, reader_features
from explainer_tools.website.html_text import map_prose

REPO = Path(__file__).resolve().parent.parent

# ------------------------------------------------------------------------------ prose rewriting


def test_map_prose_leaves_code_math_links_headings_and_badges_alone() -> None:
    page = ('<h2>LoRA</h2><p>LoRA <code>LoRA</code> <a href="#">LoRA</a> '
            '<span class="arithmatex">\\(LoRA\\)</span> <span class="prov">LoRA</span> LoRA</p>'
            "<pre><code>LoRA</code></pre><p>LoRA<br>LoRA</p>")
    out = map_prose(page, lambda text: text.replace("LoRA", "X"))
    assert out == ('<h2>LoRA</h2><p>X <code>LoRA</code> <a href="#">LoRA</a> '
                   '<span class="arithmatex">\\(LoRA\\)</span> <span class="prov">LoRA</span> X</p>'
                   "<pre><code>LoRA</code></pre><p>X<br>X</p>")


def test_map_prose_keeps_comments_and_nested_skips() -> None:
    page = "<!-- LoRA --><p><a><span>LoRA</span></a> LoRA</p>"
    assert map_prose(page, lambda t: t.replace("LoRA", "X")) == (
        "<!-- LoRA --><p><a><span>LoRA</span></a> X</p>")


def test_map_prose_reads_a_tag_whole_whatever_its_attribute_values_hold() -> None:
    page = ("<p><span data-x='a>b' class=prov>LoRA</span> LoRA <!-- <code> --> LoRA"
            '<script>if (a < b) { s = "<p>LoRA"; }</script> LoRA</p>')
    assert map_prose(page, lambda t: t.replace("LoRA", "X")) == (
        "<p><span data-x='a>b' class=prov>LoRA</span> X <!-- <code> --> X"
        '<script>if (a < b) { s = "<p>LoRA"; }</script> X</p>')


# --------------------------------------------------------------------------------- bibliography

BIB = """\
@article{one, author = {Hoeffding, Wassily}, title = {Sums of {B}ounded Variables}, year = 1963,
  journal = {JASA}}
@book{two, author = {Cover, Thomas M. and Thomas, Joy A.}, title = "Elements", year = {2006},
  publisher = {Wiley}}
@inproceedings{three, author = {Lotfi, Sanae and Finzi, Marc and Kuang, Yilun}, title = {Bounds},
  booktitle = {ICML}, year = {2024}}
"""


def test_parse_bibtex_and_labels() -> None:
    entries = bibliography.parse_bibtex(BIB)
    assert [bibliography.cite_label(entries[k]) for k in ("one", "two", "three")] == [
        "Hoeffding, 1963", "Cover and Thomas, 2006", "Lotfi et al., 2024"]
    assert entries["one"].get("title") == "Sums of Bounded Variables"
    assert entries["three"].line == 5
    assert "ICML" in bibliography.format_reference(entries["three"])


@pytest.mark.parametrize(("text", "message"), [
    ("@article{k, author = {A}, title = {T}, year = {1}}\n@article{k, author = {A}, "
     "title = {T}, year = {1}}", ":2: duplicate key 'k'"),
    ("@article{k, author = {A}, year = {1}}", ":1: entry 'k' lacks title"),
    ("@string{x = {y}}", ":1: @string is not supported"),
    ("@article{k, author = {A}, title = jasa, year = {1}}", "@string macros are not supported"),
    ("@article{k, author = {A}, title = {T}, year = {1} # {2}}", "concatenation"),
    ("@article{k, title = {T}, year = {1}, author = {A", "unclosed value"),
])
def test_bibtex_errors_name_the_line(text: str, message: str) -> None:
    with pytest.raises(bibliography.BibliographyError, match=message.replace("(", r"\(")):
        bibliography.parse_bibtex(text, source="refs.bib")


def test_the_book_bibliography_parses() -> None:
    entries = bibliography.load_bibliography(REPO)
    assert "lotfi2024" in entries
    assert bibliography.cite_label(entries["lotfi2024"]) == "Lotfi et al., 2024"


def test_citations_render_and_unknown_keys_fail() -> None:
    entries = bibliography.parse_bibtex(BIB)
    out = bibliography.render_citations("see [@three, §4] and [@one; @two].", entries, "p.md")
    assert '(<a class="cite" href="#ref-three"' in out and "Lotfi et al., 2024</a>, §4)" in out
    assert out.count('class="cite"') == 3
    with pytest.raises(bibliography.BibliographyError, match="unknown citation key 'nope'"):
        bibliography.render_citations("[@nope]", entries, "p.md")


def test_cited_keys_skip_code_and_the_references_list_follows_citation_order() -> None:
    markdown = "[@two]\n```\n[@one]\n```\n`[@one]` and [@three; @two]\n"
    assert bibliography.cited_keys(markdown) == [("two", 1), ("three", 5), ("two", 5)]
    entries = bibliography.parse_bibtex(BIB)
    section = bibliography.references_markdown(["two", "three", "two"], entries)
    assert section.index('id="ref-two"') < section.index('id="ref-three"')
    assert section.count("<li") == 2
    assert bibliography.references_markdown([], entries) == ""


def test_the_hook_reports_an_unknown_key_with_the_file_line(tmp_path: Path) -> None:
    page_file = tmp_path / "p.md"
    page_file.write_text("---\nscripts: []\n---\n\nText [@nobody2099].\n", encoding="utf-8")
    page = SimpleNamespace(file=SimpleNamespace(src_uri="chapters/99-x.md",
                                                abs_src_path=str(page_file)))
    state = reader_features.ReaderState(entries=bibliography.parse_bibtex(BIB))
    from mkdocs.exceptions import PluginError

    with pytest.raises(PluginError, match=r"docs/chapters/99-x.md:5: unknown citation key"):
        reader_features.on_page_markdown(state, "\nText [@nobody2099].\n", page, None, None)


# ----------------------------------------------------------------------------- cross-references

PAGES = {
    "chapters/09-gen.md": "Intro\n\\[ a \\label{eq:first} \\]\n```\n\\label{eq:fake}\n```\n"
                          "\\[ b \\label{eq:second} \\]\n<figure markdown id=\"fig-curve\">\n"
                          "![a curve](../assets/fig/c.png)\n<figcaption>C.</figcaption>\n"
                          "</figure>\n",
    "chapters/10-hoef.md": "<figure markdown>\n![x](../assets/fig/x.png)\n</figure>\n"
                           "\\[ c \\label{eq:third} \\]\nSee [@eq:first] and [@fig:curve].\n",
}


def test_labels_are_numbered_per_chapter_in_order() -> None:
    index = crossref.build_index(PAGES)
    assert {k: v.number for k, v in index.labels.items()} == {
        "eq:first": "9.1", "eq:second": "9.2", "fig:curve": "9.1", "eq:third": "10.1"}
    assert index.labels["eq:first"].preview == "a"
    assert index.figures["chapters/10-hoef.md"] == ["10.1"]


def test_duplicate_and_unknown_labels_fail_with_page_and_line() -> None:
    with pytest.raises(crossref.CrossRefError, match=r"docs/chapters/10-b.md:1: label 'eq:a' is "
                                                     r"already defined at docs/chapters/09-a.md:1"):
        crossref.build_index({"chapters/09-a.md": "\\[x \\label{eq:a}\\]",
                              "chapters/10-b.md": "\\[y \\label{eq:a}\\]"})
    index = crossref.build_index(PAGES)
    with pytest.raises(crossref.CrossRefError, match=r"docs/index.md:2: unknown label 'eq:nope'"):
        crossref.check_references("ok\n[@eq:nope]\n", "index.md", index)
    crossref.check_references("`[@eq:nope]`\n", "index.md", index)  # code is not a reference


def test_references_render_with_links_and_previews() -> None:
    index = crossref.build_index(PAGES)
    out = crossref.render_references("See [@eq:first] and [@fig:curve].", "chapters/10-hoef.md",
                                     index)
    link = '<a class="xref" href="../../chapters/09-gen/#eq-first" data-tex="a">Eq. (9.1)</a>'
    assert link in out
    assert 'data-img="../../assets/fig/c.png">Figure 9.1</a>' in out
    same = crossref.render_references("[@eq:second]", "chapters/09-gen.md", index)
    assert 'href="#eq-second"' in same
    assert crossref.relative_url("index.md", "chapters/09-gen.md", "x") == "chapters/09-gen/#x"


def test_equations_get_tags_and_anchors_and_figures_numbers() -> None:
    index = crossref.build_index(PAGES)
    html_in = ('<div class="arithmatex">\\[ a \\label{eq:first} \\]</div>'
               '<div class="arithmatex">\\[ z \\]</div>')
    out = crossref.number_equations(html_in, "chapters/09-gen.md", index)
    assert '<div class="arithmatex" id="eq-first">\\[ a \\tag{9.1} \\]</div>' in out
    assert '<div class="arithmatex">\\[ z \\]</div>' in out
    figures = crossref.number_figures('<figure id="fig-curve"><img><figcaption>C.</figcaption>'
                                      "</figure>", "chapters/09-gen.md", index)
    assert '<figcaption><span class="fig-number">Figure 9.1.</span> C.</figcaption>' in figures


# ------------------------------------------------------------------------------------- glossary


def test_glossary_marks_only_the_first_use_on_a_page() -> None:
    terms = glossary.parse_glossary("- term: LoRA\n  definition: Low-rank adaptation.\n"
                                    "- term: Occam bound\n  forms: [Occam bound, Occam's bound]\n"
                                    "  definition: Charges each model its code length.\n")
    used: set[str] = set()
    first = glossary.mark_first_uses("SubLoRA is not LoRA; an Occam&#x27;s bound", terms, used)
    second = glossary.mark_first_uses("LoRA again", terms, used)
    assert first.count('class="gloss"') == 1 and ">LoRA</a>" in first
    assert "SubLoRA" in first and "<a " not in first.split("LoRA")[0]
    assert second == "LoRA again"


def test_a_glossary_term_links_to_its_entry_on_the_glossary_page() -> None:
    terms = glossary.parse_glossary("- term: Occam bound\n  forms: [Occam bound]\n"
                                    "  definition: Charges each model its code length.\n")
    marked = glossary.mark_first_uses("an Occam bound", terms, set(), "../../glossary/")
    assert 'href="../../glossary/#term-occam-bound"' in marked and 'tabindex="-1"' in marked
    page = glossary.glossary_markdown(terms, set())
    assert "## Occam bound {#term-occam-bound}" in page


@pytest.mark.parametrize(("text", "message"), [
    ("- term: X\n  definition: It has 3 parts.\n", "holds no numbers"),
    ("- term: X\n", "needs 'term' and 'definition'"),
    ("- term: X\n  definition: a\n- term: Y\n  forms: [X]\n  definition: b\n", "two entries"),
])
def test_glossary_errors(text: str, message: str) -> None:
    with pytest.raises(glossary.GlossaryError, match=message):
        glossary.parse_glossary(text)


@pytest.mark.parametrize(("text", "where"), [
    ("- term: X\n  definition: a\n- term: Y\n", "glossary.yml:3: entry 2"),
    ("- term: X\n  definition: [unclosed\n", "glossary.yml:3: not valid YAML"),
    ("- term: X\n  definition: a\n\tbad: tab\n", "glossary.yml:3: not valid YAML"),
    ("term: X\n", "glossary.yml:1: expected a list"),
])
def test_probe_C10_glossary_errors_name_file_and_line(text: str, where: str) -> None:
    with pytest.raises(glossary.GlossaryError, match=re.escape(where)):
        glossary.parse_glossary(text, "docs/_data/glossary.yml")


@pytest.mark.parametrize(("field", "text"), [
    ("term", "- term: union <img src=x onerror=alert(x)> bound\n  definition: A bound.\n"),
    ("definition", "- term: X\n  definition: A <script>alert(x)</script> bound.\n"),
])
def test_probe_C4_the_glossary_page_escapes_user_text(field: str, text: str) -> None:
    page = glossary.glossary_markdown(glossary.parse_glossary(text), set())
    assert "<img" not in page and "<script" not in page, field
    assert "&lt;img src=x onerror=alert(x)&gt;" in page or "&lt;script&gt;" in page


def test_the_book_glossary_loads_and_its_page_links_only_existing_chapters() -> None:
    terms = glossary.load_glossary(REPO)
    assert len(terms) >= 15
    page = glossary.glossary_markdown(terms, {"chapters/05-transformers-gpt2.md"})
    assert "(chapters/05-transformers-gpt2.md)" in page
    assert "(chapters/19-lora.md)" not in page


# --------------------------------------------------------------------------------------- ledger


def test_the_ledger_holds_on_the_committed_outputs() -> None:
    assert ledger.check_ledger(REPO) == []


def test_a_changed_output_flags_its_ledger_claims(tmp_path: Path) -> None:
    shutil.copytree(REPO / "docs", tmp_path / "docs")
    shutil.copytree(REPO / "outputs", tmp_path / "outputs")
    output = tmp_path / "outputs" / "ch05_param_count.txt"
    output.write_text(output.read_text(encoding="utf-8").replace("123,689,472", "123,689,473"),
                      encoding="utf-8")
    problems = ledger.check_ledger(tmp_path)
    assert any("L1: output [1] of ch05_param_count.py no longer prints '123,689,472'" in p
               for p in problems), problems


def test_ledger_entry_rules() -> None:
    base = {"id": "L9", "claim": "c", "paper": "p. 1", "chapters": ["x.md"]}
    assert list(ledger.entry_problems({**base, "status": "cannot-check", "note": "n"}, {},
                                      {"x.md"})) == []
    problems = list(ledger.entry_problems({**base, "status": "caveat"}, {}, set()))
    assert "L9: chapter page docs/x.md does not exist" in problems
    assert any("needs a note" in p for p in problems)
    assert any("needs evidence" in p for p in problems)


# ------------------------------------------------------------------------------- last verified


def test_last_verified_is_the_last_commit_that_changed_the_stamps(tmp_path: Path) -> None:
    def git(*args: str) -> None:
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)

    stamps = tmp_path / "outputs" / ".stamps"
    stamps.mkdir(parents=True)
    git("init", "-q")
    git("config", "user.email", "t@example.com")
    git("config", "user.name", "t")
    (stamps / "ch01_x.json").write_text('{"inputs": {"explainer_code/ch01_x.py": "abcdef0123"}, '
                                        '"figures": {}, "environment": {}, "output": "0"}')
    git("add", ".")
    git("commit", "-qm", "stamp", "--date", "2026-01-02T00:00:00")
    first = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=tmp_path,
                           capture_output=True, text=True, check=True).stdout.strip()
    (tmp_path / "other.txt").write_text("later commit that touches no stamp")
    git("add", ".")
    git("commit", "-qm", "other")
    result = last_verified.last_verified(tmp_path, ["ch01_x.py"])
    assert result.commit == first and not result.dirty
    assert last_verified.read_stamp(tmp_path, "ch01_x.py").script_hash == "abcdef0123"
    (stamps / "ch01_y.json").write_text('{"inputs": {}}')  # not a stamp: the one reader says so
    assert last_verified.read_stamp(tmp_path, "ch01_y.py") is None
    (stamps / "ch01_x.json").write_text("{}")
    assert last_verified.last_verified(tmp_path, ["ch01_x.py"]).dirty
    assert "unknown" in last_verified.verified_html(last_verified.Verified("", "", False), ["a.py"])


# -------------------------------------------------------------------------------- number links

OUTPUT = "Title\n[1] total = 1,536 and 12\n    second 7\n[2] other 99\n"


def test_numbers_link_to_their_output_line_in_prose_and_math() -> None:
    markdown = ("## Step 12\n\nThe total is 1,536 (output [1] of s.py), and \\(12\\) too.\n"
                "Later 99 (output [2]).\n\n<!-- embed: output s.py [1] -->\n<!-- /embed -->\n")
    links = [
        number_links.NumberLink(markdown.index("1,536"), markdown.index("1,536") + 5, "1,536",
                                "s.py", 1, 2, "[1] total = 1,536 and 12"),
        number_links.NumberLink(markdown.index("12\\)"), markdown.index("12\\)") + 2, "12",
                                "s.py", 1, 2, "[1] total = 1,536 and 12"),
        number_links.NumberLink(markdown.index("99"), markdown.index("99") + 2, "99", "s.py", 2,
                                4, "[2] other 99"),
        number_links.NumberLink(markdown.index("12"), markdown.index("12") + 2, "12", "s.py", 1,
                                2, "[1] total"),  # in a heading: left alone
    ]
    embedded = number_links.embedded_lines(markdown, {"s.py": OUTPUT}, "p.md")
    assert embedded == {("s.py", 2), ("s.py", 3)}
    out = number_links.link_numbers(markdown, links, embedded)
    assert out.startswith("## Step 12\n")
    assert '<a class="num" href="#out-s-L2" data-block="1">1,536</a>' in out
    assert "\\({\\href{#out-s-L2}{12}}\\)" in out
    assert ('<span class="num" tabindex="0" data-script="s.py" data-block="2" data-line="4" '
            'data-printed="&#91;2&#93; other 99">99</span>') in out
    assert number_links.card_text("s.py", 2, 4, " [2]  other 99", "script ab, lock cd") == (
        "Printed by s.py, output [2], line 4: [2] other 99 (checked at script ab, lock cd)")
    assert number_links.stamps_json({"s.py": "x<b>"}) == (
        '<div class="number-stamps" hidden data-stamps="{&quot;s.py&quot;: &quot;x&lt;b&gt;'
        '&quot;}"></div>')


def test_a_number_after_a_bare_macro_keeps_its_argument() -> None:
    markdown = "Here \\(\\sqrt2\\) (output [1] of s.py).\n<!-- embed: output s.py -->\n"
    start = markdown.index("2\\)")
    link = number_links.NumberLink(start, start + 1, "2", "s.py", 1, 2, "[1] total")
    out = number_links.link_numbers(markdown, [link], {("s.py", 2)})
    assert "\\(\\sqrt{\\href{#out-s-L2}{2}}\\)" in out


def test_embedded_output_lines_get_anchors_once() -> None:
    html_in = ('<!-- embed: output s.py -->\n<div class="highlight"><span class="filename">'
               "outputs/s.txt</span><pre><span></span><code>Title\n[1] total = 1,536 and 12\n"
               "</code></pre></div>\n<!-- embed: output s.py [1] -->\n<div class=\"highlight\">"
               "<pre><span></span><code>[1] total = 1,536 and 12\n    second 7\n</code></pre>"
               "</div>")
    out = number_links.anchor_output_lines(html_in, {"s.py": OUTPUT})
    assert out.count('id="out-s-L2"') == 1
    assert '<span class="out-line" id="out-s-L1">Title</span>' in out
    assert '<span class="out-line" id="out-s-L3">    second 7</span>' in out


def test_a_citation_after_the_authors_names_shows_the_year_only() -> None:
    entries = bibliography.parse_bibtex(BIB)
    out = bibliography.render_citations("Lotfi et al. [-@three] showed", entries, "p.md")
    assert out.startswith('Lotfi et al. <span class="citation">(<a class="cite" href="#ref-three"')
    assert out.endswith(">2024</a>)</span> showed")
    assert bibliography.cited_keys("Lotfi et al. [-@three]\n") == [("three", 1)]


def test_a_citation_may_span_two_lines() -> None:
    assert bibliography.cited_keys("See [@one;\n@two, Lemma 4.5] and `[@three]`.\n") == [
        ("one", 1), ("two", 1)]


# ------------------------------------------------------------------- the site build's page reads
# Real pages, read and split the way MkDocs does (mkdocs.utils.meta.get_data), through the hook.

CHAPTER = "chapters/10-hoeffding-union-bound.md"


class _FakeFile:
    def __init__(self, src: str, path: Path) -> None:
        self.src_uri, self.abs_src_path = src, str(path)


class _FakePage:
    def __init__(self, src: str, path: Path) -> None:
        self.file, self.meta = _FakeFile(src, path), {}


def _hook_state(src: str, text: str) -> reader_features.ReaderState:
    return reader_features.ReaderState(entries=bibliography.load_bibliography(REPO),
                             index=crossref.build_index({src: text}))


@pytest.mark.parametrize("blank_lines", [0, 1, 3])
def test_probe_C1_C2_an_unknown_key_is_reported_on_its_own_line(tmp_path: Path,
                                                                 blank_lines: int) -> None:
    from mkdocs.exceptions import PluginError
    from mkdocs.utils.meta import get_data

    real = (REPO / "docs" / CHAPTER).read_text(encoding="utf-8")
    front, body = real.split("\n---\n", 1)
    lines = (front + "\n---\n" + "\n" * blank_lines + body.lstrip("\n")).split("\n")
    target = next(i for i, line in enumerate(lines) if line.startswith("## "))  # prose follows
    lines[target:target] = ["A sentence citing [@nosuchkey] here.", ""]
    text = "\n".join(lines)
    page = tmp_path / "page.md"
    page.write_text(text, encoding="utf-8")
    state = _hook_state(CHAPTER, text)
    markdown, _meta = get_data(text)
    with pytest.raises(PluginError, match=rf"docs/{CHAPTER}:{target + 1}: unknown citation"):
        reader_features.on_page_markdown(state, markdown, _FakePage(CHAPTER, page), {}, None)


def test_probe_A7_a_non_utf8_page_names_file_and_line(tmp_path: Path) -> None:
    from mkdocs.exceptions import PluginError


    page = tmp_path / "page.md"
    page.write_bytes(b"# Title\n\ncaf\xe9\n")
    with pytest.raises(PluginError, match=r"docs/chapters/x\.md:3: not UTF-8"):
        reader_features.read_source(page, "chapters/x.md")


def test_probe_A6b_a_crlf_page_keeps_its_number_links(tmp_path: Path) -> None:
    from mkdocs.utils.meta import get_data

    from explainer_tools import glue
    from explainer_tools.claims.check import check_page
    from explainer_tools.claims.outputs import Outputs

    texts = {p.stem + ".py": p.read_text(encoding="utf-8")
             for p in sorted((REPO / "outputs").glob("*.txt"))}
    lf = (REPO / "docs" / CHAPTER).read_text(encoding="utf-8")
    counts = []
    for name, text in (("lf.md", lf), ("crlf.md", lf.replace("\n", "\r\n"))):
        page = tmp_path / name
        page.write_bytes(text.encode("utf-8"))
        report = check_page(text, f"docs/{CHAPTER}", Outputs(texts))
        state = reader_features.ReaderState()
        state.outputs = texts
        state.names = glue.read_names(REPO / "outputs")  # the chapter quotes values by name
        state.numbers = {CHAPTER: [
            number_links.NumberLink(o.offset, o.end, o.text, o.script, o.block, o.output_line,
                                    o.output_text)
            for o in report.checked if o.script]}
        markdown, _ = get_data(text.replace("\r\n", "\n"))  # MkDocs reads universal newlines
        counts.append(reader_features._link_numbers(state, markdown, _FakePage(CHAPTER, page))
                      .count('class="num"'))
    assert counts[0] > 100 and counts[1] == counts[0]


BIB_GOOD = ("@article{a1,\n  author = {Ada Lovelace},\n  title = {Notes},\n  year = {1843},\n}\n"
            "@article{b2,\n  author = {Alan Turing},\n  title = {Numbers},\n  year = 1936\n}\n")


@pytest.mark.parametrize(("broken", "where"), [
    (BIB_GOOD.replace("  year = {1843},\n}\n", "  year = {1843},\n"), "references.bib:4: entry "
     "'a1' is not closed"),
    (BIB_GOOD.replace("{Notes},", "{Notes}"), "references.bib:3: entry 'a1': expected ','"),
    (BIB_GOOD.replace("year = 1936\n}", "year = 1936\n"), "references.bib:9: entry 'b2': "
     "expected ','"),
])
def test_probe_C6_bibtex_structure_errors_name_file_and_line(broken: str, where: str) -> None:
    assert len(bibliography.parse_bibtex(BIB_GOOD)) == 2
    with pytest.raises(bibliography.BibliographyError, match=re.escape(where)):
        bibliography.parse_bibtex(broken, "docs/_data/references.bib")


@pytest.mark.parametrize(("text", "where"), [
    ("- id: C1\n  claim: x\n- just a string\n", "claims_ledger.yml:3: entry 2 is not a mapping"),
    ("- id: C1\n  claim: x\n- claim: y\n", "claims_ledger.yml:3: entry 2 has no 'id'"),
    ("- id: C1\n  claim: [x\n", "claims_ledger.yml:3: not valid YAML"),
])
def test_probe_C7_ledger_errors_name_file_and_line(text: str, where: str) -> None:
    with pytest.raises(ledger.LedgerError, match=re.escape(where)):
        ledger.parse_ledger(text, "docs/_data/claims_ledger.yml")


def test_probe_C4_the_glossary_tooltip_escapes_its_definition() -> None:
    terms = glossary.parse_glossary('- term: LoRA\n  definition: A "low-rank" <b>update</b>.\n')
    marked = glossary.mark_first_uses("LoRA here", terms, set())
    assert 'title="A &quot;low-rank&quot; &lt;b&gt;update&lt;/b&gt;."' in marked


def test_map_prose_jumps_over_code_and_leaves_white_space_alone() -> None:
    from explainer_tools.website.html_text import map_prose

    seen: list[str] = []

    def upper(text: str) -> str:
        seen.append(text)
        return text.upper()

    page = ('<p>a</p>\n<pre><code><span class="k">def</span> f</code></pre>\n<p>b <code>c'
            '</code> d</p><pre>never closed <span>e</span>')
    assert map_prose(page, upper) == (
        '<p>A</p>\n<pre><code><span class="k">def</span> f</code></pre>\n<p>B <code>c</code> D'
        '</p><pre>never closed <span>e</span>')
    assert seen == ["a", "b ", " d"], "no run inside code, none of white space alone"
