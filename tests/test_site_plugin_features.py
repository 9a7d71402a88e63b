"""The site plugin's reader features, each test written where a mutation run found them
untested: the glossary, cross-references, number links, the reader hook, the errata hook and the
plugin itself. Each names the behaviour a reader or a maintainer relies on; no site is built."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest
from mkdocs.exceptions import PluginError

from explainer_tools import glue
from explainer_tools.book import crossref, errata, glossary
from explainer_tools.layout import Layout
from explainer_tools.website import (
    build_cache,
    errata_pages,
    last_verified,
    load_fixes,
    number_links,
    reader_features,
    source_pages,
)
from explainer_tools.website.plugin import BookPlugin

REPO = Path(__file__).resolve().parent.parent

# ------------------------------------------------------------------------------------- glossary


def test_the_first_use_is_the_earliest_form_whatever_the_forms_order() -> None:
    terms = glossary.parse_glossary("- term: Occam bound\n  forms: [Occam bound, Occam's bound]\n"
                                    "  definition: Charges each model its code length.\n")
    marked = glossary.mark_first_uses("An Occam's bound, then an Occam bound.", terms, set())
    assert marked.startswith('An <a class="gloss"') and marked.endswith("an Occam bound.")


def test_the_glossary_page_lists_terms_alphabetically_ignoring_case() -> None:
    terms = glossary.parse_glossary("- term: union bound\n  definition: A.\n"
                                    "- term: KL divergence\n  definition: B.\n"
                                    "- term: arithmetic coding\n  definition: C.\n")
    headings = [line for line in glossary.glossary_markdown(terms, set()).split("\n")
                if line.startswith("## ")]
    assert [h.split(" {")[0] for h in headings] == [
        "## arithmetic coding", "## KL divergence", "## union bound"]


def test_a_definition_reads_as_one_line_in_its_tooltip() -> None:
    terms = glossary.parse_glossary("- term: LoRA\n  definition: |\n    Low-rank\n"
                                    "    adaptation.\n")
    assert terms[0].definition == "Low-rank adaptation."
    assert 'title="Low-rank adaptation."' in glossary.mark_first_uses("LoRA", terms, set())


def test_a_form_with_an_ampersand_is_found_in_the_escaped_prose() -> None:
    terms = glossary.parse_glossary("- term: Q&A\n  definition: Questions and answers.\n")
    marked = glossary.mark_first_uses("a Q&amp;A session", terms, set())
    assert 'class="gloss"' in marked and ">Q&amp;A</a>" in marked


# ----------------------------------------------------------------------------- cross-references


def test_a_numbered_formula_outside_a_chapter_fails_naming_page_and_line() -> None:
    with pytest.raises(crossref.CrossRefError, match=r"docs/index\.md:2: numbered formulas "
                                                     r"belong in chapters"):
        crossref.build_index({"index.md": "Intro\n\\[ a \\label{eq:x} \\]\n"})


def test_figures_outside_chapters_are_not_numbered() -> None:
    index = crossref.build_index({"about.md": '<figure markdown id="fig-a">\n![a](a.png)\n'
                                              "</figure>\n"})
    assert index.labels == {} and index.figures["about.md"] == []


def test_a_figure_preview_is_the_image_inside_the_figure_not_one_before_it() -> None:
    page = ("![before](../assets/fig/before.png)\n\n<figure markdown id=\"fig-b\">\n"
            "![inside](../assets/fig/inside.png)\n</figure>\n")
    index = crossref.build_index({"chapters/09-x.md": page})
    assert index.labels["fig:b"].preview == "../assets/fig/inside.png"


def test_a_formula_preview_is_escaped_into_its_attribute() -> None:
    index = crossref.build_index({"chapters/09-x.md": '\\[ a < b \\text{"} \\label{eq:lt} \\]\n'})
    out = crossref.render_references("[@eq:lt]", "index.md", index)
    assert 'data-tex="a &lt; b \\text{&quot;}"' in out


def test_references_link_across_pages_in_the_offline_copy() -> None:
    index = crossref.build_index({"chapters/09-x.md": "\\[ a \\label{eq:a} \\]\n"})
    out = crossref.render_references("[@eq:a]", "chapters/10-y.md", index, directory_urls=False)
    assert 'href="../chapters/09-x.html#eq-a"' in out


# --------------------------------------------------------------------------------- number links

OUTPUT = "Title 3\n[1] total = 1,536\n    second 7\n"


def _link(markdown: str, text: str, line: int = 2, printed: str = "[1] total = 1,536"
          ) -> number_links.NumberLink:
    start = markdown.index(text)
    return number_links.NumberLink(start, start + len(text), text, "s.py", 1, line, printed)


def test_a_number_the_body_no_longer_holds_there_is_left_alone() -> None:
    markdown = "The total is 1,536.\n"
    moved = number_links.NumberLink(4, 9, "1,536", "s.py", 1, 2, "[1] total")
    assert number_links.link_numbers(markdown, [moved], {("s.py", 2)}) == markdown


def test_a_number_in_a_formula_whose_line_is_not_on_the_page_stays_plain_tex() -> None:
    markdown = "Here \\(x = 7\\).\n"
    out = number_links.link_numbers(markdown, [_link(markdown, "7", 3)], set())
    assert out == markdown, "no card markup inside TeX, no link to a line the page lacks"


def test_a_number_inside_dollar_math_is_linked_as_tex() -> None:
    markdown = "Here $x = 7$.\n"
    out = number_links.link_numbers(markdown, [_link(markdown, "7", 3)], {("s.py", 3)})
    assert out == "Here $x = {\\href{#out-s-L3}{7}}$.\n"


def test_the_printed_line_is_escaped_into_the_cards_attribute() -> None:
    markdown = "It is 7.\n"
    link = _link(markdown, "7", 3, printed='    second "7" <b>')
    out = number_links.link_numbers(markdown, [link], set())
    assert 'data-printed="    second &quot;7&quot; &lt;b&gt;"' in out
    assert number_links.attribute('a"b<c>&') == "a&quot;b&lt;c&gt;&amp;"


def test_a_whole_embedded_output_embeds_every_line() -> None:
    markdown = ("<!-- embed: output s.py -->\n<!-- /embed -->\n"
                "<!-- embed: output missing.py -->\n<!-- /embed -->\n")
    embedded = number_links.embedded_lines(markdown, {"s.py": OUTPUT}, "p.md")
    assert {("s.py", 1), ("s.py", 2), ("s.py", 3)} <= embedded
    assert {script for script, _ in embedded} == {"s.py"}


def test_two_numbers_on_one_line_are_both_linked() -> None:
    markdown = "Totals 1,536 and 7 here.\n"
    links = [_link(markdown, "1,536"), _link(markdown, "7", 3)]
    out = number_links.link_numbers(markdown, links, {("s.py", 2), ("s.py", 3)})
    assert out == ('Totals <a class="num" href="#out-s-L2" data-block="1">1,536</a> and '
                   '<a class="num" href="#out-s-L3" data-block="1">7</a> here.\n')


# ---------------------------------------------------------------------------------- reader hook


def test_a_page_with_a_byte_order_mark_or_old_mac_newlines_reads_as_mkdocs_reads_it(
        tmp_path: Path) -> None:
    page = tmp_path / "p.md"
    page.write_bytes(b"\xef\xbb\xbf# Title\r\rText\r\n")
    assert reader_features.read_source(page, "p.md") == "# Title\n\nText\n"


class _Page:
    def __init__(self, src: str, path: Path | None = None, meta: dict | None = None) -> None:
        self.file = SimpleNamespace(src_uri=src, abs_src_path=str(path) if path else None)
        self.meta = meta or {}
        self.html = ""


@pytest.fixture
def state() -> reader_features.ReaderState:
    return reader_features.ReaderState()


def test_an_unknown_label_is_reported_at_its_line_in_the_file(tmp_path: Path) -> None:
    from mkdocs.structure.files import File, Files

    (tmp_path / "chapters").mkdir()
    (tmp_path / "chapters" / "09-x.md").write_text(
        "---\ntitle: T\n---\n\n# T\n\nSee [@eq:nowhere].\n", encoding="utf-8")
    files = Files([File("chapters/09-x.md", str(tmp_path), str(tmp_path / "site"), True)])
    config = {"config_file_path": str(REPO / "mkdocs.yml"), "nav": [], "use_directory_urls": True}
    with pytest.raises(PluginError, match=r"^docs/chapters/09-x\.md:7: unknown label 'eq:nowhere'"):
        reader_features.on_files(reader_features.ReaderState(), files, config)


def test_a_generated_page_s_unknown_label_is_reported_when_it_is_rendered(
        state: reader_features.ReaderState) -> None:
    page = SimpleNamespace(file=SimpleNamespace(src_uri="made.md", abs_src_path=None))
    with pytest.raises(PluginError, match=r"^docs/made\.md:3: unknown label 'eq:nowhere'"):
        reader_features.on_page_markdown(state, "# T\n\nSee [@eq:nowhere].\n", page, {}, None)


def test_a_page_that_cites_gets_its_references_section(tmp_path: Path,
                                                       state: reader_features.ReaderState) -> None:
    from explainer_tools.book import bibliography

    state.entries = bibliography.load_bibliography(REPO)
    path = tmp_path / "p.md"
    path.write_text("# T\n\nAs shown [@lotfi2024].\n", encoding="utf-8")
    out = reader_features.on_page_markdown(state, "# T\n\nAs shown [@lotfi2024].\n",
                                       _Page("chapters/09-x.md", path), {}, None)
    assert out.startswith("# T\n\nAs shown [@lotfi2024].\n") and 'id="ref-lotfi2024"' in out


def test_the_finished_page_marks_terms_and_carries_the_stamps_table(
        state: reader_features.ReaderState) -> None:
    state.terms = glossary.parse_glossary("- term: LoRA\n  definition: Low-rank adaptation.\n")
    state.checked_at = {"s.py": "script ab, lock cd"}
    page = _Page("chapters/09-x.md")
    html_in = '<p>LoRA is <a class="num" href="#out-s-L2">7</a>.</p>'
    out = reader_features.on_page_content(state, html_in, page, {}, None)
    assert 'href="../../glossary/#term-lora"' in out
    assert out.endswith(number_links.stamps_json(state.checked_at))
    assert page.html == out, "the print-site plugin is handed the final HTML"
    state.directory_urls = False
    offline = reader_features.on_page_content(state, "<p>LoRA</p>", _Page("chapters/09-x.md"),
                                              {}, None)
    assert 'href="../glossary.html#term-lora"' in offline and "number-stamps" not in offline


def test_the_glossary_page_links_its_own_entries_in_place(
        state: reader_features.ReaderState) -> None:
    state.terms = glossary.parse_glossary("- term: LoRA\n  definition: Low-rank adaptation.\n")
    out = reader_features.on_page_content(state, "<p>LoRA</p>", _Page("glossary.md"), {}, None)
    assert 'href="#term-lora"' in out


def _fake_check(calls: list[list[str]]):
    def verified_numbers(root: Path, paths: list[Path]) -> dict:
        calls.append([p.name for p in paths])
        number = SimpleNamespace(span=(0, 1), text="7", script="s.py", block=1, output_line=2,
                                 output_text="[1] 7")
        return {f"docs/{p.relative_to(root / 'docs').as_posix()}":
                SimpleNamespace(verified=[number]) for p in paths}
    return verified_numbers


def test_a_page_is_checked_again_only_when_it_its_outputs_or_the_tools_change(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        state: reader_features.ReaderState) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("7\n", encoding="utf-8")
    calls: list[list[str]] = []
    state.layout = Layout(tmp_path)
    monkeypatch.setattr(reader_features, "verified_numbers", _fake_check(calls))
    monkeypatch.setattr(build_cache, "CACHE_ROOT", tmp_path / "cache")
    monkeypatch.setattr(build_cache, "_MEMOS", {})
    state.tools_digest, state.outputs = "tools v1", {"s.py": "[1] 7\n"}
    first = reader_features._verified_links(state, {"a.md": "7\n", "generated.md": "7\n"})
    assert calls == [["a.md"]], "a generated page (no file under docs/) is not checked"
    assert first["a.md"][0] == number_links.NumberLink(0, 1, "7", "s.py", 1, 2, "[1] 7")
    assert reader_features._verified_links(state, {"a.md": "7\n"}) == first and len(calls) == 1
    reader_features._verified_links(state, {"a.md": "7 \n"})
    assert len(calls) == 2, "an edited page is checked again"
    state.outputs = {"s.py": "[1] 8\n"}
    reader_features._verified_links(state, {"a.md": "7 \n"})
    assert len(calls) == 3, "a changed output re-checks the page"
    state.tools_digest = "tools v2"
    reader_features._verified_links(state, {"a.md": "7 \n"})
    assert len(calls) == 4, "changed tools re-check the page"


def test_last_verified_is_computed_again_when_a_stamp_or_the_commit_changes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        state: reader_features.ReaderState) -> None:
    calls: list[str] = []

    def fake(root: Path, scripts: list[str]) -> last_verified.Verified:
        calls.append(state.head or "")
        return last_verified.Verified(f"c{len(calls)}", "2026-01-01", False)

    state.layout = Layout(tmp_path)
    monkeypatch.setattr(last_verified, "last_verified", fake)
    monkeypatch.setattr(build_cache, "CACHE_ROOT", tmp_path / "cache")
    monkeypatch.setattr(build_cache, "_MEMOS", {})
    stamp = last_verified.stamp_path(tmp_path, "ch09_x.py")
    stamp.parent.mkdir(parents=True)
    stamp.write_text("{}", encoding="utf-8")
    state.head = "abc"
    assert reader_features._last_verified(state, ["ch09_x.py"]).commit == "c1"
    assert reader_features._last_verified(state, ["ch09_x.py"]).commit == "c1", "memoised"
    stamp.write_text('{"output": "x"}', encoding="utf-8")
    again = reader_features._last_verified(state, ["ch09_x.py"])
    assert again.commit == "c2", "a regenerated stamp"
    state.head = "def"
    assert reader_features._last_verified(state, ["ch09_x.py"]).commit == "c3", "a new commit"


# ---------------------------------------------------------------------------------- errata hook

C9 = REPO / "docs" / "errata" / "c9.md"


def test_an_erratum_page_is_titled_by_its_id_and_drops_materials_status() -> None:
    text = C9.read_text(encoding="utf-8")
    body = errata.split_erratum_front_matter(text)[1].lstrip("\n")
    meta = {"status": "confirmed"}
    page = SimpleNamespace(file=SimpleNamespace(src_uri="errata/c9.md", abs_src_path=str(C9)),
                           meta=meta)
    names = glue.read_names(REPO / "outputs")  # C9 quotes values by name
    out = errata_pages.on_page_markdown(errata_pages.ErrataState(names=names), body, page,
                                        {"docs_dir": str(REPO / "docs")}, None)
    front = errata.read_erratum(C9).meta
    assert meta == {"title": f"{front['id']}: {front['title']}"}
    assert out != body and body.strip().split("\n")[0] in out


def test_a_page_named_like_an_erratum_outside_the_errata_folder_is_left_alone(
        tmp_path: Path) -> None:
    path = tmp_path / "e1.md"
    path.write_text("# Notes\n\nPlain page.\n", encoding="utf-8")
    page = SimpleNamespace(file=SimpleNamespace(src_uri="notes/e1.md", abs_src_path=str(path)),
                           meta={})
    assert errata_pages.on_page_markdown(errata_pages.ErrataState(), "# Notes\n\nPlain page.\n",
                                         page, {"docs_dir": str(tmp_path)}, None) == (
        "# Notes\n\nPlain page.\n")


def test_the_errata_index_without_its_marker_fails_naming_its_file(tmp_path: Path) -> None:
    with pytest.raises(PluginError, match=r"^docs/errata/index\.md:1: must contain"):
        errata_pages._render_index("# Errata\n\nHand-made.\n", tmp_path)


def test_a_field_problem_is_reported_at_the_fields_line(tmp_path: Path) -> None:
    path = tmp_path / "e7.md"
    path.write_text("---\nid: E7\ntitle: T\nstatus: x\nproblem: >-\n  It is wrong.\n---\n"
                    "body\n", "utf-8")
    erratum = errata.Erratum(path, {}, "body\n")
    assert errata_pages.located(["E7: field 'problem' carries no provenance tag",
                                "E7: status 'x' is not one of confirmed",
                                "E7: required field 'chapters' is missing or empty"],
                               erratum) == (
        "docs/errata/e7.md:5: E7: field 'problem' carries no provenance tag; "
        "docs/errata/e7.md:4: E7: status 'x' is not one of confirmed; "
        "docs/errata/e7.md:1: E7: required field 'chapters' is missing or empty")


def test_an_erratum_with_a_bad_field_stops_the_build_at_the_fields_line(tmp_path: Path) -> None:
    lines = C9.read_text(encoding="utf-8").split("\n")
    at = next(n for n, line in enumerate(lines, 1) if line.startswith("status: "))
    lines[at - 1] = "status: likely"
    path = tmp_path / "docs" / "errata" / "c9.md"
    path.parent.mkdir(parents=True)
    path.write_text("\n".join(lines), encoding="utf-8")
    body = errata.split_erratum_front_matter(path.read_text(encoding="utf-8"))[1].lstrip("\n")
    page = SimpleNamespace(file=SimpleNamespace(src_uri="errata/c9.md", abs_src_path=str(path)),
                           meta={})
    with pytest.raises(PluginError, match=rf"^docs/errata/c9\.md:{at}: C9: status 'likely'"):
        errata_pages.on_page_markdown(errata_pages.ErrataState(), body, page,
                                     {"docs_dir": str(tmp_path / "docs")}, None)


# ---------------------------------------------------------------------------------- site plugin


class _Config(dict):
    """What File.generated reads of MkDocs' config, as attributes and as keys."""

    def __init__(self, site: Path) -> None:
        super().__init__(site_dir=str(site), docs_dir=str(site), use_directory_urls=True)
        self.site_dir, self.use_directory_urls = str(site), True
        self.plugins = SimpleNamespace(_current_plugin=None)


def _plugin(state: reader_features.ReaderState | None = None, **settings: object) -> BookPlugin:
    """The plugin with mkdocs.yml's `settings` (none: this book's defaults), its build's reader
    state `state`."""
    plugin = BookPlugin()
    assert plugin.load_config(settings) == ([], [])
    plugin.on_config({"config_file_path": str(REPO / "mkdocs.yml")})
    if state is not None:
        plugin.reader = state
    return plugin


def test_the_book_files_add_the_generated_pages_and_share_the_state_with_errata(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        state: reader_features.ReaderState) -> None:
    from mkdocs.structure.files import Files

    from explainer_tools.book import bibliography

    state.entries = bibliography.load_bibliography(REPO)
    state.index = crossref.build_index({"chapters/09-x.md": "\\[ a \\label{eq:a} \\]\n"})
    state.sources = {"index.md": "# Home\n"}
    monkeypatch.setattr(reader_features, "on_files", lambda state, files, config: files)
    plugin = _plugin(state)
    files = plugin._book_files(Files([]), _Config(tmp_path))
    assert {f.src_uri for f in files} == {"glossary.md", "bibliography.md", "claims-ledger.md"}
    assert plugin.errata.entries is state.entries and plugin.errata.index is state.index
    assert plugin.errata.pages is state.sources
    moved = _plugin(glossary_page="reference/terms.md", ledger_page="ledger.md")
    files = moved._book_files(Files([]), _Config(tmp_path))
    assert {f.src_uri for f in files} == {"reference/terms.md", "bibliography.md", "ledger.md"}
    assert files.get_file_from_path("reference/terms.md").content_string.startswith("# Glossary")
    assert files.get_file_from_path("ledger.md").content_string.startswith("# Claims ledger")
    assert moved.reader.glossary_page == "reference/terms.md"


def test_a_setting_of_the_wrong_kind_is_refused_naming_it() -> None:
    for settings, name in (({"glossary_page": "glossary.html"}, "glossary_page"),
                           ({"ledger_page": "../ledger.md"}, "ledger_page"),
                           ({"theme_color": "red"}, "theme_color"),
                           ({"notebooks": 5}, "notebooks"),
                           ({"glosary_page": "g.md"}, "glosary_page")):
        errors, warnings = BookPlugin().load_config(settings)
        assert [key for key, _ in errors + warnings] == [name], settings


def test_the_plugin_runs_after_every_other_plugin_of_the_same_priority() -> None:
    """As the hooks file did, wherever mkdocs.yml lists it (before print-site, which warns unless
    it is last): print-site is handed each page's final HTML, and the whole-book page print-site
    writes after the build is then finished by the plugin."""
    from mkdocs.config import load_config

    config = load_config(str(REPO / "mkdocs.yml"))
    ours = [name for name, plugin in config.plugins.items() if isinstance(plugin, BookPlugin)]
    assert ours == ["explainer"] and list(config.plugins)[-1] == "print-site"
    shared = set()  # the events where another plugin's handler has one of ours' priorities
    for event, handlers in config.plugins.events.items():
        for index, handler in enumerate(handlers):
            if not isinstance(getattr(handler, "__self__", None), BookPlugin):
                continue
            nominal = round(getattr(handler, "mkdocs_priority", 0))
            later = [other for other in handlers[index + 1:]
                     if not isinstance(getattr(other, "__self__", None), BookPlugin)
                     and getattr(other, "mkdocs_priority", 0) >= nominal]
            assert later == [], (event, handler, later)
            if any(getattr(other, "mkdocs_priority", 0) == nominal for other in handlers[:index]):
                shared.add(event)
    assert {"config", "page_content", "post_build"} <= shared


def test_each_build_starts_from_an_empty_state() -> None:
    plugin = _plugin()
    plugin.reader.sources["index.md"] = "# Home\n"
    plugin.sources["ch09_x.py"] = source_pages.SourcePage("ch09_x.py", "", [])
    plugin.on_config({"config_file_path": str(REPO / "mkdocs.yml")})  # a rebuild of make serve
    assert plugin.reader.sources == {} and plugin.sources == {}
    assert plugin.reader is not BookPlugin().reader, "no state shared between plugins"


def test_a_broken_source_marker_stops_the_build_as_a_plugin_error(
        tmp_path: Path, state: reader_features.ReaderState) -> None:
    from mkdocs.structure.files import Files

    state.sources = {"chapters/09-x.md": "<!-- embed: source ch09_x.py -->\ntext\n"}
    with pytest.raises(PluginError, match=r"docs/chapters/09-x\.md:1: unclosed marker"):
        _plugin(state)._source_files(Files([]), _Config(tmp_path))


def test_the_whole_book_page_of_the_offline_copy_links_sources_from_its_folder(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from explainer_tools.website import build_features

    monkeypatch.setattr(build_features, "on_post_build", lambda config: None)
    link = '<a href="#code-ch09_x" data-site-path="code/ch09_x.html">'
    for directory_urls, name, up in ((True, "print_page/index.html", "../"),
                                     (False, "print_page.html", "")):
        printed = tmp_path / name
        printed.parent.mkdir(parents=True, exist_ok=True)
        printed.write_text(link, encoding="utf-8")
        _plugin().on_post_build({"site_dir": str(tmp_path), "use_directory_urls": directory_urls})
        assert printed.read_text(encoding="utf-8").startswith(f'<a href="{up}code/ch09_x.html"')


COLLAPSED = """<details class="example">
<summary>Source: ch09_x.py</summary>
<!-- embed: source ch09_x.py -->
<div class="highlight"><pre><code>print(1)</code></pre></div>
<!-- /embed -->
</details>"""


@pytest.mark.parametrize(("directory_urls", "href", "site_path"), [
    (True, "../../code/ch09_x/", "code/ch09_x/"),
    (False, "../code/ch09_x.html", "code/ch09_x.html"),
])
def test_a_chapter_links_its_source_page_from_where_it_is_served(
        state: reader_features.ReaderState, directory_urls: bool, href: str,
        site_path: str) -> None:
    plugin = _plugin(state)
    plugin.sources = {"ch09_x.py": source_pages.SourcePage("ch09_x.py",
                                                           "```python\nprint(1)\n```\n", ["x"])}
    state.directory_urls = directory_urls
    out = plugin.on_page_content(COLLAPSED, _Page("chapters/09-x.md"),
                                 {"use_directory_urls": directory_urls}, None)
    assert f'<a href="{href}" data-site-path="{site_path}">Source: ch09_x.py</a>' in out


def test_a_finished_page_gets_its_figures_sizes(tmp_path: Path) -> None:
    figures = tmp_path / "assets" / "fig"
    figures.mkdir(parents=True)
    (figures / "ch01_a.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR"
                                         + (825).to_bytes(4, "big") + (1110).to_bytes(4, "big"))
    out = _plugin().on_post_page('<img src="../assets/fig/ch01_a.png">',
                                 _Page("chapters/09-x.md"), {"docs_dir": str(tmp_path)})
    assert 'width="825" height="1110"' in out


def test_a_finished_page_is_ready_for_the_browser_as_built(tmp_path: Path) -> None:
    """What the page's start-up would otherwise do, written by the build: number links out of
    the tab order (those inside formulas too, rendered by then), the head's links made absolute
    before the first style, the palette switch handed to the reader's script, and the browser's
    colour for the first palette (the `theme_color` setting) after the charset."""
    page = ('<head><meta charset="utf-8"><link rel="stylesheet" href="a.css"></head><body>'
            '<form class="md-header__option" data-md-component="palette"></form>'
            '<p><a class="num" href="#out-a-L1">2</a> <span class="arithmatex">'
            '\\(x = {\\href{#out-a-L2}{3}}\\)</span></p></body>')
    out = _plugin().on_post_page(page, _Page("chapters/09-x.md"), {"docs_dir": str(tmp_path)})
    assert out.count('tabindex="-1"') == 2, out
    assert load_fixes.RESOLVE_HEAD_LINKS + load_fixes.SEARCH_INDEX_AFTER_LOAD + "</head>" in out
    assert 'data-reader-palette' in out and 'data-md-component="palette"' not in out
    assert '<meta charset="utf-8"><meta name="color-scheme" content="light"><meta ' \
           'name="theme-color" content="#4051b5">' in out
    teal = _plugin(theme_color="#009485").on_post_page(page, _Page("chapters/09-x.md"),
                                                       {"docs_dir": str(tmp_path)})
    assert '<meta name="theme-color" content="#009485">' in teal and "#4051b5" not in teal
