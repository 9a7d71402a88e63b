"""The build's helper process (explainer_tools/build_helper.py), on scratch copies of the book
built from nothing, as a fresh clone builds: the site it helps write is the site a build without
it writes, byte for byte, and so are the next builds' from the cache it leaves, with and without
it; a page's warning and error are reported once, as without it; nothing is left behind. Then
its rules, unit by unit: what crosses between the processes, and when."""

from __future__ import annotations

import mmap
import os
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path
from types import SimpleNamespace

import pytest

from explainer_tools import build_cache, build_helper, math_render, site_plugin

HELPED = re.compile(r"A helper process read (\d+) of the (\d+) pages")


def _build(project: Path, helper: str, scratch_tmp: Path) -> subprocess.CompletedProcess[str]:
    """`mkdocs build --strict` of `project` into its site/, the helper set to `helper`, the
    helper's files under `scratch_tmp`."""
    shutil.rmtree(project / "site", ignore_errors=True)
    env = {**os.environ, build_helper.HELPER_ENV: helper, "TMPDIR": str(scratch_tmp),
           "NO_MKDOCS_2_WARNING": "1", "SOURCE_DATE_EPOCH": "1767225600"}  # one date for all
    return subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict"], cwd=project,
                          env=env, capture_output=True, text=True, stdin=subprocess.DEVNULL,
                          timeout=600, check=False)


def _tree(site: Path) -> dict[str, bytes]:
    return {p.relative_to(site).as_posix(): p.read_bytes()
            for p in sorted(site.rglob("*")) if p.is_file()}


def _differences(one: dict[str, bytes], other: dict[str, bytes]) -> list[str]:
    return sorted(name for name in set(one) | set(other) if one.get(name) != other.get(name))


def _no_helper_left(project: Path, scratch_tmp: Path) -> None:
    assert not list(scratch_tmp.iterdir()), "the helper's folder is removed"
    running = subprocess.run(["pgrep", "-f", "mkdocs build"], capture_output=True, text=True,
                             check=False).stdout.split()
    for pid in running:
        cwd = Path(f"/proc/{pid}/cwd")
        try:
            assert cwd.resolve() != project.resolve(), f"a helper process ({pid}) is still running"
        except OSError:
            continue  # ended meanwhile


REPO = Path(__file__).resolve().parent.parent
NOT_COPIED = shutil.ignore_patterns(".git", ".venv", ".cache", "site", "site-offline", "build",
                                    "bench-tools", "__pycache__", ".pytest_cache", ".ruff_cache")


@pytest.fixture
def fresh_clone(tmp_path: Path) -> tuple[Path, Path]:
    """The project's files without `.cache/` (and without git: `make mutate`'s copies have
    none), and a folder for the helper's files."""
    project, scratch_tmp = tmp_path / "project", tmp_path / "tmp"
    scratch_tmp.mkdir()
    shutil.copytree(REPO, project, ignore=NOT_COPIED, symlinks=True)
    return project, scratch_tmp


def test_a_cold_build_with_the_helper_writes_the_site_a_build_without_it_writes(
        fresh_clone: tuple[Path, Path]) -> None:
    project, scratch_tmp = fresh_clone
    helped = _build(project, "1", scratch_tmp)
    assert helped.returncode == 0, helped.stderr[-3000:]
    read = HELPED.search(helped.stderr)
    assert read and 0 < int(read.group(1)) <= int(read.group(2)), (
        "the helper read pages ahead of the build:\n" + helped.stderr[-2000:])
    _no_helper_left(project, scratch_tmp)
    with_helper = _tree(project / "site")
    for helper in ("1", "0"):  # from the cache the helped build left, as every build after it
        warm = _build(project, helper, scratch_tmp)
        assert warm.returncode == 0, warm.stderr[-3000:]
        assert _differences(with_helper, _tree(project / "site")) == [], (
            f"the cache a helped build leaves builds the same site (helper {helper})")
    shutil.rmtree(project / ".cache")
    alone = _build(project, "0", scratch_tmp)
    assert alone.returncode == 0, alone.stderr[-3000:]
    assert not HELPED.search(alone.stderr)
    assert _differences(with_helper, _tree(project / "site")) == [], (
        "a cold build without the helper writes the same site")


def test_a_page_the_helper_reads_has_its_warning_and_error_reported_once(
        fresh_clone: tuple[Path, Path]) -> None:
    project, scratch_tmp = fresh_clone
    # Errata pages: after the chapters, so the helper, reading from the end, reads them first.
    warned = project / "docs" / "errata" / "e44.md"
    warned.write_text(warned.read_text(encoding="utf-8") + "\nSee [a page](no-such-page.md).\n",
                      encoding="utf-8")
    failing = project / "docs" / "errata" / "e45.md"
    text = failing.read_text(encoding="utf-8") + "\nAs shown by [@nosuchkey2026].\n"
    failing.write_text(text, encoding="utf-8")
    line = text.count("\n")  # the appended line, 1-based
    result = _build(project, "1", scratch_tmp)
    assert result.returncode != 0
    assert result.stderr.count("'errata/e44.md' contains a link 'no-such-page.md'") == 1, (
        result.stderr[-3000:])
    assert f"docs/errata/e45.md:{line}: unknown citation key 'nosuchkey2026'" in result.stderr, (
        result.stderr[-3000:])
    assert result.stderr.count("Error reading page 'errata/e45.md'") == 1
    _no_helper_left(project, scratch_tmp)


# ------------------------------------------------------------------------------ unit by unit


def test_what_one_process_adds_to_a_memo_the_other_takes(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(build_cache, "CACHE_ROOT", tmp_path / "cache")
    monkeypatch.setattr(build_cache, "_MEMOS", {})
    build_cache.memo("m", "v1").put(["old"], 1)
    build_cache.forget_added()
    build_cache.memo("m", "v1").put(["new"], 2)
    build_cache.memo("kept-not", "build", keep=False).put(["k"], 3)
    added = build_cache.added_entries()
    assert sorted(row[0] for row in added) == ["kept-not", "m"]
    assert [len(row[2]) for row in sorted(added)] == [1, 1], "only what is new"
    monkeypatch.setattr(build_cache, "_MEMOS", {})  # the other process
    build_cache.merge(added)
    assert build_cache.memo("m", "v1").get(["new"]) == 2
    assert build_cache.memo("m", "v1").get(["old"]) is None
    build_cache.save_all()
    assert [p.parent.name for p in (tmp_path / "cache").rglob("*.json")] == ["m"], (
        "a memo of one build only is never saved")
    build_cache.drop_memos("build")
    assert build_cache.memo("kept-not", "build", keep=False).get(["k"]) is None


def test_shared_computes_once_per_build_and_only_while_a_helper_runs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(build_cache, "_MEMOS", {})
    calls: list[int] = []

    def compute() -> str:
        calls.append(1)
        return "html"

    monkeypatch.setattr(build_helper, "_PREFILLING", False)
    build_helper.shared("content", ["a"], compute)
    build_helper.shared("content", ["a"], compute)
    assert len(calls) == 2 and not build_cache._MEMOS, "no helper: no memo"
    monkeypatch.setattr(build_helper, "_PREFILLING", True)
    monkeypatch.setattr(build_helper, "_BUILD", ["token"])
    assert build_helper.shared("content", ["a"], compute) == "html"
    assert build_helper.shared("content", ["a"], compute) == "html" and len(calls) == 3
    build_helper._forget_build()
    assert not build_cache._MEMOS and build_helper._BUILD == []


def test_the_shared_results_are_the_pages_own(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(build_cache, "_MEMOS", {})
    monkeypatch.setattr(build_helper, "_PREFILLING", True)
    monkeypatch.setattr(build_helper, "_BUILD", ["token"])
    monkeypatch.setattr(site_plugin, "_page_content",
                        lambda html, page, config, files: f"{page.file.src_uri}: {html}")

    def page(src: str) -> SimpleNamespace:
        return SimpleNamespace(file=SimpleNamespace(src_uri=src), meta={}, html="", content="")

    one, other = page("a.md"), page("b.md")
    config = {"plugins": {}}
    assert site_plugin.on_page_content("<p>same</p>", one, config, None) == "a.md: <p>same</p>"
    assert site_plugin.on_page_content("<p>same</p>", other, config, None) == "b.md: <p>same</p>"
    again = page("a.md")
    assert site_plugin.on_page_content("<p>same</p>", again, config, None) == "a.md: <p>same</p>"
    assert again.html == "a.md: <p>same</p>", "the print page gets the shared HTML too"


@pytest.fixture
def running(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> build_helper.Helper:
    """A helper as the parent sees it (its child stood in for by files the test writes)."""
    monkeypatch.setattr(build_cache, "_MEMOS", {})
    monkeypatch.setattr(math_render, "_MEMO", {})
    monkeypatch.setattr(math_render, "_disk_loaded", True)
    monkeypatch.setattr(math_render, "_disk_dirty", False)
    helper = build_helper.Helper(pid=-1, folder=tmp_path, index={"a.md": 3, "b.md": 4},
                                 shared=mmap.mmap(-1, 16), exited=True)
    monkeypatch.setattr(build_helper, "_RUNNING", helper)
    return helper


PAYLOAD = '{"memos": [["m", "v", {"d": 7}, false]], "formulas": [["x^2", false, "<k>"]]}'


def test_the_parent_takes_the_childs_page_or_reads_it_alone(
        running: build_helper.Helper) -> None:
    shared, folder = running.shared, running.folder
    build_helper._write(shared, build_helper._CHILD, 4)
    (folder / "4.json").write_text(PAYLOAD, encoding="utf-8")
    build_helper.join_before("a.md")  # not there: the parent reads it alone, at once
    assert build_helper._read(shared, build_helper._PARENT) == 3 and running.merged == set()
    build_helper.join_before("b.md")
    assert running.merged == {4} and build_cache.memo("m", "v")._used == {"d": 7}
    assert math_render._MEMO == {("x^2", False): "<k>"}, "and the formulas it rendered"
    build_helper.join_before("elsewhere.md")  # not one of the child's pages
    assert build_helper._read(shared, build_helper._PARENT) == 4


def test_the_parent_waits_for_the_page_the_child_is_reading(
        running: build_helper.Helper) -> None:
    child = subprocess.Popen(["sleep", "30"])  # stands in for the child, still running
    try:
        running.pid, running.exited = child.pid, False
        build_helper._write(running.shared, build_helper._CHILD, 4)
        partial = running.folder / "4.json.partial"
        partial.write_text(PAYLOAD, encoding="utf-8")
        threading.Timer(0.2, partial.replace, [running.folder / "4.json"]).start()
        build_helper.join_before("b.md")
        assert running.merged == {4}, "the child's work on the page is taken, not done again"
    finally:
        child.kill()
        child.wait()
