"""The site build's features and helpers, each test written where a mutation run found them
untested: build-time math, the build hooks, the build cache, the notebook page, the mkdocs.yml
reader, the speed-ups, the site bench's budgets and the PDF's page numbers. No site is built, no
browser runs: the browser's and Chromium's parts are stood in for by small fakes."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from explainer_tools.book import mkdocs_yml
from explainer_tools.website import (
    build_cache,
    build_features,
    load_fixes,
    math_render,
    notebook_page,
    pdf,
    print_site_anchors,
    site_bench,
)

REPO = Path(__file__).resolve().parent.parent

# ----------------------------------------------------------------------------- build-time math


def test_a_failing_formula_spread_over_lines_is_found_by_its_first_line() -> None:
    source = "# T\n\ntext\n\\[\na = b\n\\nosuch \\label{eq:x}\n\\]\n"
    error = math_render.MathError("Undefined control sequence", "a = b\n\\nosuch \\tag{9.1}")
    assert math_render.locate(error, "chapters/09-x.md", source).startswith(
        "docs/chapters/09-x.md:5: formula not rendered at build time: Undefined")


@pytest.fixture
def formula_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(math_render, "CACHE_DIR", tmp_path / "katex")
    monkeypatch.setattr(math_render, "_MEMO", {})
    monkeypatch.setattr(math_render, "_disk_loaded", True)
    monkeypatch.setattr(math_render, "_disk_dirty", False)
    return tmp_path / "katex"


def test_the_formula_cache_is_named_after_katex_itself(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    katex = tmp_path / "katex.min.js"
    shutil.copyfile(math_render.KATEX_JS, katex)
    monkeypatch.setattr(math_render, "KATEX_JS", katex)
    before = math_render._cache_file()
    katex.write_bytes(katex.read_bytes() + b"\n// a new release\n")
    assert math_render._cache_file() != before, "another KaTeX starts a fresh cache"


def test_rendered_formulas_are_kept_for_the_next_build(formula_cache: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    math_render.render_formulas([("y_{kept}", False)])
    math_render.save_cache()
    stored = json.loads(math_render._cache_file().read_text(encoding="utf-8"))
    assert [row[:2] for row in stored] == [["y_{kept}", False]]
    monkeypatch.setattr(math_render, "_MEMO", {})  # the next build, in a new process
    monkeypatch.setattr(math_render, "_disk_loaded", False)
    math_render._load_disk_cache()
    assert dict(math_render._MEMO) == {("y_{kept}", False): stored[0][2]}


# --------------------------------------------------------------------------------- build hooks


def test_a_notebook_page_loses_mathjax_and_gets_badges() -> None:
    page = SimpleNamespace(file=SimpleNamespace(src_uri="notebooks/n.ipynb"), html="")
    html_in = ("<!-- Load mathjax --><script src=''></script><!-- End of mathjax configuration -->"
               "<p>[MY EXPLANATION] A cell.</p>")
    out = build_features.on_page_content(html_in, page, {}, None)
    assert "mathjax" not in out.lower() and 'class="prov' in out and page.html == out
    chapter = SimpleNamespace(file=SimpleNamespace(src_uri="chapters/09-x.md"), html="")
    assert build_features.on_page_content(html_in, chapter, {}, None) == html_in


def test_the_whole_book_page_is_rendered_and_the_caches_saved(
        tmp_path: Path, formula_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(build_cache, "CACHE_ROOT", tmp_path / "cache")
    monkeypatch.setattr(build_cache, "_MEMOS", {})
    build_cache.memo("m", "v1").put(["k"], 1)
    for directory_urls, name in ((True, "print_page/index.html"), (False, "print_page.html")):
        config = {"site_dir": str(tmp_path / "site"), "use_directory_urls": directory_urls}
        assert build_features.print_page_file(config) == tmp_path / "site" / name
        printed = tmp_path / "site" / name
        printed.parent.mkdir(parents=True, exist_ok=True)
        printed.write_text('<span class="arithmatex">\\(z_{printed}\\)</span>', encoding="utf-8")
        build_features.on_post_build(config)
        assert 'class="katex"' in printed.read_text(encoding="utf-8")
    assert math_render._cache_file().is_file(), "the formula cache is written after a build"
    assert list((tmp_path / "cache" / "m").glob("m-*.json")), "so is every build memo"


def _committed(folder: Path, epoch: int) -> Path:
    """A git repository under `folder` with one commit dated `epoch`, and its mkdocs.yml."""
    folder.mkdir()
    (folder / "mkdocs.yml").write_text("site_name: x\n", encoding="utf-8")
    date = f"{epoch} +0000"
    env = {**os.environ, "GIT_COMMITTER_DATE": date, "GIT_AUTHOR_DATE": date}
    for args in (["init", "-q"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@x",
                                                 "commit", "-qm", "one"]):
        subprocess.run(["git", *args], cwd=folder, env=env, check=True, capture_output=True)
    return folder / "mkdocs.yml"


def test_the_build_is_dated_by_the_commit_unless_the_caller_chose(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    config_file = _committed(tmp_path / "repo", 1_700_000_000)
    (tmp_path / "plain").mkdir()
    assert build_features.source_date_epoch(tmp_path / "plain") is None, "outside git: no date"
    assert build_features.source_date_epoch(tmp_path / "repo") == "1700000000"
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "unset below")  # restored after the test
    monkeypatch.delenv("SOURCE_DATE_EPOCH")
    build_features.on_config({"config_file_path": str(config_file)})
    assert os.environ["SOURCE_DATE_EPOCH"] == "1700000000"
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")
    build_features.on_config({"config_file_path": str(config_file)})
    assert os.environ["SOURCE_DATE_EPOCH"] == "0", "the caller's date wins"


# --------------------------------------------------------------------------------- build cache


def test_a_key_is_the_same_whatever_the_order_of_its_mappings() -> None:
    assert build_cache.digest({"a": 1, "b": [2]}) == build_cache.digest({"b": [2], "a": 1})
    assert build_cache.digest(b"x") == build_cache.digest(b"x") != build_cache.digest(b"y")


def test_a_saved_memo_keeps_only_what_this_build_used(tmp_path: Path) -> None:
    first = build_cache.Memo("m", "v1", tmp_path)
    first.put(["old"], 1)
    first.put(["kept"], 2)
    first.save()
    second = build_cache.Memo("m", "v1", tmp_path)
    assert second.get(["kept"]) == 2
    second.put(["new"], 3)
    second.save()
    third = build_cache.Memo("m", "v1", tmp_path)
    assert third.get(["old"]) is None and third.get(["kept"]) == 2 and third.get(["new"]) == 3


def test_a_damaged_memo_file_is_a_cold_cache_not_an_error(tmp_path: Path) -> None:
    memo = build_cache.Memo("m", "v1", tmp_path)
    memo.file.parent.mkdir(parents=True)
    memo.file.write_text("{not json", encoding="utf-8")
    assert memo.get(["a"]) is None


def test_one_memo_per_name_and_version_in_a_process(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(build_cache, "_MEMOS", {})
    assert build_cache.memo("a", "v1") is build_cache.memo("a", "v1")
    assert build_cache.memo("a", "v1") is not build_cache.memo("a", "v2")


# ------------------------------------------------------------------------------ notebook page


@pytest.fixture
def notebook(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(notebook_page, "CACHE_DIR", tmp_path / "cache")
    path = tmp_path / "n.ipynb"
    path.write_text('{"cells": []}', encoding="utf-8")
    return path


def test_a_cached_notebook_page_is_read_without_converting(
        notebook: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    page = {"content": "<p>cached</p>", "toc_tokens": [], "title": "N"}
    cache = notebook_page.CACHE_DIR / f"{notebook_page.cache_key(notebook.read_bytes())}.json"
    cache.parent.mkdir(parents=True)
    cache.write_text(json.dumps(page), encoding="utf-8")

    def convert(path: str) -> dict:
        raise AssertionError("converted although the cache held the page")

    monkeypatch.setattr(notebook_page, "_convert", convert)
    assert notebook_page.Notebooks().rendered(str(notebook)) == page


def test_a_missing_or_damaged_cache_converts_once_and_fills_it(
        notebook: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    page = {"content": "<p>new</p>", "toc_tokens": [], "title": None}
    monkeypatch.setattr(notebook_page, "_convert", lambda path: calls.append(path) or page)
    cache = notebook_page.CACHE_DIR / f"{notebook_page.cache_key(notebook.read_bytes())}.json"
    cache.parent.mkdir(parents=True)
    cache.write_text("{damaged", encoding="utf-8")
    notebooks = notebook_page.Notebooks()
    assert notebooks.rendered(str(notebook)) == page
    assert notebooks.rendered(str(notebook)) == page
    assert len(calls) == 1 and json.loads(cache.read_text(encoding="utf-8")) == page


def test_a_notebook_is_a_page_rendered_from_the_cache(notebook: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    from mkdocs.structure.files import File, Files

    notebooks = notebook_page.Notebooks()
    files = notebooks.as_pages(Files([
        File("n.ipynb", str(notebook.parent), str(notebook.parent / "site"), True),
        File("a.png", str(notebook.parent), str(notebook.parent / "site"), True)]))
    assert [f.is_documentation_page() for f in files] == [True, False]
    data = {"content": "<p>x</p>", "toc_tokens": [{"level": 2, "id": "h", "name": "H",
                                                    "children": []}], "title": "The notebook"}
    monkeypatch.setattr(notebooks, "rendered", lambda path: data)
    page = SimpleNamespace(file=files.get_file_from_path("n.ipynb"), title=None)
    notebooks.prepare(page)
    page.render({}, files)
    assert page.content == "<p>x</p>" and page.title == "The notebook"
    assert [item.title for item in page.toc] == ["H"]


def test_the_notebooks_setting_chooses_which_notebooks_are_pages(notebook: Path) -> None:
    from mkdocs.structure.files import File, Files

    def pages(notebooks: notebook_page.Notebooks) -> list[str]:
        files = Files([File(name, str(notebook.parent), str(notebook.parent / "site"), True)
                       for name in ("notebooks/a.ipynb", "drafts/b.ipynb", "c.md")])
        return [f.src_uri for f in notebooks.as_pages(files) if f.is_documentation_page()]

    assert pages(notebook_page.Notebooks()) == ["notebooks/a.ipynb", "drafts/b.ipynb", "c.md"]
    assert pages(notebook_page.Notebooks("notebooks/*.ipynb")) == ["notebooks/a.ipynb", "c.md"]


# ---------------------------------------------------------------------------- mkdocs.yml reader


def test_an_inherited_mapping_is_merged_and_the_child_wins(tmp_path: Path) -> None:
    (tmp_path / "base.yml").write_text("theme:\n  name: material\n  palette: a\nx: 1\n")
    (tmp_path / "child.yml").write_text("INHERIT: base.yml\ntheme:\n  palette: b\n"
                                        "y: !!python/name:os.path\n")
    assert mkdocs_yml.read_mkdocs_yml(tmp_path / "child.yml") == {
        "theme": {"name": "material", "palette": "b"}, "x": 1, "y": None}


@pytest.mark.parametrize(("text", "message"), [
    (None, "cannot read it"), ("a: [\n", "cannot read it"), ("- a\n- b\n", "not a mapping")])
def test_an_unreadable_mkdocs_yml_is_an_error_naming_it(tmp_path: Path, text: str | None,
                                                         message: str) -> None:
    path = tmp_path / "mkdocs.yml"
    if text is not None:
        path.write_text(text, encoding="utf-8")
    with pytest.raises(mkdocs_yml.ConfigError, match=f"mkdocs.yml: {message}"):
        mkdocs_yml.read_mkdocs_yml(path)


# ---------------------------------------------------------------------------------- speed-ups


def test_the_whole_book_page_keeps_links_to_data_urls() -> None:
    keeps = print_site_anchors._keeping_data_urls(lambda url: url.startswith("https:"))
    assert keeps("data:image/png;base64,AAAA") and keeps("https://x.org")
    assert not keeps("../chapters/09-x/")


def _png(folder: Path, name: str, width: int, height: int) -> None:
    (folder / name).write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + width.to_bytes(4, "big")
                                + height.to_bytes(4, "big"))


def test_a_figure_already_lazy_or_missing_is_left_as_it_is(tmp_path: Path) -> None:
    _png(tmp_path, "ch01_a.png", 10, 20)
    done = '<img src="../assets/fig/ch01_a.png" loading="lazy">'
    missing = '<img src="../assets/fig/ch01_gone.png">'
    assert load_fixes.lazy_figures(done + missing, tmp_path) == done + missing


def test_a_page_part_of_the_book_page_is_rewritten_once_and_again_after_an_edit() -> None:
    calls: list[tuple] = []

    def rewrite(page_html: str, page_url: str, directory_urls: bool, number: object) -> str:
        calls.append((page_html, page_url))
        return f"{page_url}|{directory_urls}|{number}|{page_html}"

    part = print_site_anchors.memoised_page_part(rewrite, build_cache.Memo("p", "", directory=None))
    first = part("<p>a</p>", "a/", True, "1")
    assert part("<p>a</p>", "a/", True, "1") == first and len(calls) == 1
    assert part("<p>b</p>", "a/", True, "1") == "a/|True|1|<p>b</p>", "an edited page rewritten"
    assert part("<p>a</p>", "b/", True, "1") == "b/|True|1|<p>a</p>"
    assert part("<p>a</p>", "a/", False, "1") == "a/|False|1|<p>a</p>"
    assert part("<p>a</p>", "a/", True, "2") == "a/|True|2|<p>a</p>"
    assert len(calls) == 5


# ----------------------------------------------------------------------------- the site bench


def _rows(home: tuple[float, int] = (0.2, 500_000),
          chapter: tuple[float, int] = (0.3, 400_000)) -> dict[str, tuple[float, int]]:
    """(seconds, bytes) of the home page, the named chapters and one more chapter."""
    rows = dict.fromkeys(site_bench.NAMED, (0.2, 500_000))
    rows[""], rows["chapters/01-a/"] = home, chapter
    return rows


def _budget_lines(capsys: pytest.CaptureFixture[str]) -> list[str]:
    return [line for line in capsys.readouterr().out.splitlines() if line.startswith("budget")]


def test_the_page_budgets_count_chapters_for_time_and_every_page_for_bytes(
        capsys: pytest.CaptureFixture[str]) -> None:
    site_bench.print_pages(_rows(home=(0.9, 500_000)), 3)
    assert [line.split(": ", 2)[2] for line in _budget_lines(capsys)] == [
        "met (0 of 4 over)", "met (0 of 6 over: none)"], "the home page has no time budget"
    site_bench.print_pages(_rows(chapter=(0.5, 400_000)), 3)
    assert "NOT met (1 of 4 over)" in _budget_lines(capsys)[0], "0.5 s is not under 0.5 s"
    site_bench.print_pages(_rows(home=(0.2, 1_000_001)), 3)
    assert _budget_lines(capsys)[1].endswith("NOT met (1 of 6 over: home)")


class _FakeBrowser:
    """Each page load serves the page and the search index; render times come from a list."""

    def __init__(self, served: list, times: list[float], sizes: list[int]) -> None:
        self.served, self.times, self.sizes = served, iter(times), iter(sizes)
        self.visited: list[str] = []

    def new_context(self, viewport: dict) -> SimpleNamespace:
        size = next(self.sizes)

        def goto(url: str, wait_until: str) -> None:
            self.visited.append(re.sub(r":\d+/", "/", url, count=1))
            self.served += [("/chapters/01-a/", size), ("/search/search_index.json", 900_000)]

        page = SimpleNamespace(goto=goto, wait_for_load_state=lambda state: None,
                               evaluate=lambda script: next(self.times))
        return SimpleNamespace(add_init_script=lambda script: None, new_page=lambda: page,
                               close=lambda: None)


def test_the_bench_measures_the_home_page_and_every_chapter_and_states_the_build_budget(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    import contextlib
    import types

    pages = ["", *site_bench.NAMED, "chapters/01-a/"]
    for page in pages:
        (tmp_path / page).mkdir(parents=True, exist_ok=True)
        (tmp_path / page / "index.html").write_text("<html></html>", encoding="utf-8")
    browser = _FakeBrowser([], [0.1] * len(pages), [1] * len(pages))
    browser.close = lambda: None

    @contextlib.contextmanager
    def sync_playwright():
        yield SimpleNamespace(chromium=SimpleNamespace(launch=lambda **options: browser))

    module = types.ModuleType("playwright.sync_api")
    module.sync_playwright = sync_playwright
    monkeypatch.setitem(sys.modules, "playwright.sync_api", module)
    monkeypatch.setattr(site_bench, "build", lambda site: (5.0, 3.0))
    monkeypatch.setattr(site_bench, "cold_build", lambda: (20.0, 9.0))
    assert site_bench.main(["--site", str(tmp_path), "--runs", "1", "--no-serve",
                            "--no-lighthouse"]) == 0
    out = capsys.readouterr().out
    assert "mkdocs build --strict: 5.0 s wall, 3.0 s CPU; budget 5 s: NOT met" in out
    assert ("mkdocs build --strict of a fresh clone (no .cache/): 20.0 s wall, 9.0 s CPU; "
            "budget 20 s: NOT met") in out
    assert sorted(browser.visited) == sorted(f"http://127.0.0.1/{page}" for page in set(pages))


def test_a_page_is_measured_by_its_median_time_and_its_bytes_without_the_search_index() -> None:
    served: list = [("/before/", 10)]
    browser = _FakeBrowser(served, [0.3, 0.9, 0.2], [500_000, 700_000, 600_000])
    assert site_bench.measure(browser, "http://h/", served, "chapters/01-a/", 3) == (0.3, 700_000)


def test_lighthouse_scores_are_medians_and_an_unscored_page_misses_the_budget(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    runs = iter([{"performance": 90}, {"performance": 99, "accessibility": 80},
                 {"performance": 95}])
    monkeypatch.setattr(site_bench, "_lighthouse_once", lambda url, desktop: next(runs))
    assert site_bench.lighthouse("http://h/", False, 3) == {"performance": 95,
                                                             "accessibility": 80}
    tool = tmp_path / "lighthouse"
    tool.write_text("")
    monkeypatch.setattr(site_bench, "LIGHTHOUSE", tool)
    monkeypatch.setattr(site_bench, "lighthouse", lambda url, desktop, runs: (
        {} if url.endswith("22-miniature/") else {"performance": 99}))
    site_bench.print_lighthouse("http://h/", 1)
    assert capsys.readouterr().out.splitlines()[-1].endswith(": NOT met")


def test_the_serve_budget_is_under_two_seconds_and_a_timeout_is_shown(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(site_bench, "serve_rerender",
                        lambda runs, dirty: [(2.0, 1.0), (1.0, 0.5), (3.0, 1.5), None])
    site_bench.print_serve(4)
    plain, dirty = capsys.readouterr().out.splitlines()
    assert plain.endswith("in 2.0 s wall, 1.0 s CPU (medians; wall 2.0, 1.0, 3.0, timeout); "
                          "budget 2 s: NOT met")
    assert dirty.startswith("mkdocs serve --no-strict --dirtyreload") and "budget" not in dirty


def test_the_servers_cpu_time_counts_user_and_system_seconds() -> None:
    for _ in range(5):
        os.urandom(20_000_000)  # system CPU time (the kernel's random bytes)
    times = os.times()
    assert times.system > 0.1
    assert abs(site_bench._cpu_seconds(os.getpid()) - (times.user + times.system)) < 0.05


# ------------------------------------------------------------------------ the PDF's page numbers


def _pdf_bytes(dests: dict[str, int]) -> bytes:
    """A PDF as Chromium writes it: a catalogue, a /Pages tree with a nested node (pages 2-3),
    and a /Dests dictionary naming the page object of each id (names PDF-escaped)."""
    page_objects = {1: 3, 2: 4, 3: 5}
    names = " ".join(f"/{name.replace('-', '#2D')} [{page_objects[page]} 0 R /XYZ 0 0 0]"
                     for name, page in dests.items())
    objects = {
        10: "<</Type /Pages /Count 2 /Kids [4 0 R 5 0 R]>>",
        1: "<</Type /Catalog /Pages 2 0 R /Dests 6 0 R>>",
        2: "<</Type /Pages /Count 3 /Kids [3 0 R 10 0 R]>>",
        3: "<</Type /Page /Parent 2 0 R>>", 4: "<</Type /Page /Parent 10 0 R>>",
        5: "<</Type /Page /Parent 10 0 R>>", 6: f"<<{names}>>",
    }
    return "".join(f"{n} 0 obj\n{body}\nendobj\n" for n, body in objects.items()).encode()


def test_heading_pages_follow_the_page_tree_in_order() -> None:
    data = _pdf_bytes({"ch-intro": 1, "ch-b": 2, "c": 3})
    assert pdf.heading_pages(data) == {"ch-intro": 1, "ch-b": 2, "c": 3}
    assert pdf._pdf_pages(data) == 3
    with pytest.raises(ValueError, match="no /Catalog"):
        pdf.heading_pages(b"%PDF-1.7 compressed")


GOOD = {"formulas": 10, "zero_width_formulas": 0, "raw_tex": 0, "raw_tex_commands": [],
        "broken_images": [], "contents_lists": 1, "contents_entries": 3, "contents_numbered": 3,
        "contents_passes": pdf.MAX_PASSES, "contents_in_order": True, "internal_links": 5,
        "dangling_links": []}


@pytest.mark.parametrize(("change", "problem"), [
    ({"formulas": 0}, "no formula was rendered"),
    ({"contents_numbered": 2}, "1 contents entries have no page"),
    ({"contents_passes": pdf.MAX_PASSES + 1}, "did not settle"),
    ({"internal_links": 0}, "no in-book link found"),
    ({"dangling_links": ["x"]}, "in-book links to missing anchors: ['x']"),
    ({"contents_in_order": False}, "not in book order"),
])
def test_what_makes_a_printed_book_unfit(change: dict, problem: str) -> None:
    assert pdf.problems_of(GOOD) == []
    assert [p for p in pdf.problems_of({**GOOD, **change}) if problem in p]


class _PrintedBook:
    """A page whose contents push the headings one page on once they carry numbers."""

    def __init__(self, wanted: list[str]) -> None:
        self.wanted, self.numbered = wanted, False

    def evaluate(self, script: str, pages: dict | None = None) -> list[str] | None:
        if script == pdf.CONTENTS_LINKS_JS:
            return self.wanted
        self.numbered = True
        return None

    def pdf(self, path: str, **options: object) -> None:
        shift = 1 if self.numbered else 0
        Path(path).write_bytes(_pdf_bytes({"a": 1 + shift, "b": 2, "z": 1}))


def test_the_contents_are_printed_until_their_page_numbers_settle(tmp_path: Path) -> None:
    found = pdf.number_contents(_PrintedBook(["a", "b"]), tmp_path / "book.pdf")
    assert found == {"contents_entries": 2, "contents_numbered": 2, "contents_passes": 3,
                     "contents_in_order": True, "pdf_pages": 3}
    unordered = pdf.number_contents(_PrintedBook(["b", "z"]), tmp_path / "book.pdf")
    assert not unordered["contents_in_order"]
