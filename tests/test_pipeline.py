"""End-to-end tests of `regenerate` / `check` on small fixture repositories.

A fixture repository is built from a dict {relative path: text} (`build_tree`): a chapter script,
a helper it imports, a data file it reads, a page that embeds it, and the few files of the real
repository its stamps hash (requirements.lock, the runner's code) or it imports (script_io.py).
The tests call the command line's `main(argv, layout)` in this process on that repository and
read what it printed (`run`); the chapter scripts still run in child processes, through the
runner, as they do for `make regenerate`. Nothing in the working tree is read or written except
the files copied into the fixture. Two tests run the real `python -m explainer_tools` in a
subprocess, on a fixture that holds a copy of the tools: its exit codes end to end, and that
killing it kills the scripts it started.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from explainer_tools import __main__ as cli
from explainer_tools.layout import Layout
from explainer_tools.scripts.notebooks import NOTEBOOK_RUNNER_CODE
from explainer_tools.scripts.settings import RUNNER_CODE

REPO_ROOT = Path(__file__).resolve().parent.parent

SCRIPT = textwrap.dedent(
    '''\
    """Fixture chapter script: two blocks and a figure."""
    from helper import double
    from script_io import save_figure
    from tinyfig import TinyFigure

    from pathlib import Path

    FACTOR = float((Path(__file__).parent / "data" / "factor.txt").read_text())

    print("Fixture -- title line")
    print(f"[1] double(21) = {double(21)}")
    print(f"    factor = {FACTOR}")
    print("[2] <script>alert(1)</script> & <b>bold</b>")
    save_figure(TinyFigure(FACTOR), "ch01_fixture.png", dpi=50)
    print("All assertions passed.")
    '''
)

# A stand-in for a Matplotlib figure: `savefig` writes a valid 8x8 RGB PNG whose pixels depend on
# one number. The pipeline sees the same thing as with Matplotlib (a PNG through
# script_io.save_figure), and each script run costs a fraction of a second instead of the
# seconds Matplotlib's import takes. The real chapter scripts, Matplotlib included, are run and
# compared byte for byte by `make check` (and a sample again by test_determinism.py).
TINYFIG = textwrap.dedent(
    '''\
    """A PNG-writing stand-in for a Matplotlib figure (test fixture)."""
    import struct
    import zlib


    def _chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))


    class TinyFigure:
        def __init__(self, value: float) -> None:
            self.shade = int(value * 40) % 256

        def get_size_inches(self) -> tuple[float, float]:
            return (8 / 50, 8 / 50)  # 8 pixels at the dpi the fixture script saves with

        def drawn_texts(self) -> list:
            return []  # the stand-in draws no text

        def savefig(self, buffer, format: str, dpi: int, metadata: dict) -> None:
            assert format == "png"
            rows = b"".join(b"\\0" + bytes([self.shade, 0, 255 - self.shade]) * 8 for _ in range(8))
            buffer.write(b"\\x89PNG\\r\\n\\x1a\\n"
                         + _chunk(b"IHDR", struct.pack(">IIBBBBB", 8, 8, 8, 2, 0, 0, 0))
                         + _chunk(b"IDAT", zlib.compress(rows, 9)) + _chunk(b"IEND", b""))
    '''
)

PAGE = textwrap.dedent(
    """\
    # Fixture page

    The whole output:

    <!-- embed: output ch01_fixture.py -->
    <!-- /embed -->

    Block two, inside a collapsible block:

    ??? note "Block [2]"

        <!-- embed: output ch01_fixture.py [2] -->
        <!-- /embed -->

    ```markdown
    <!-- embed: output not_a_marker_inside_code.py -->
    ```

    The helper:

    <!-- embed: source helper.py -->
    <!-- /embed -->
    """
)


# What a fixture repository takes from the real one: the files every stamp hashes (the lock, the
# code that runs scripts and notebooks, the tag grammar a notebook's inputs name) and the module
# through which scripts save figures.
FROM_THE_REPOSITORY = ("requirements.lock", "explainer_code/script_io.py", *RUNNER_CODE,
                       *NOTEBOOK_RUNNER_CODE, "explainer_tools/tags.py")

FIXTURE = {
    "explainer_code/helper.py": "def double(x: int) -> int:\n    return 2 * x\n",
    "explainer_code/data/factor.txt": "1.5\n",
    "explainer_code/tinyfig.py": TINYFIG,
    "explainer_code/ch01_fixture.py": SCRIPT,
    "docs/page.md": PAGE,
}


def build_tree(root: Path, files: dict[str, str]) -> Path:
    """A fixture repository at `root`: `files` ({relative path: text}), the files it takes from
    the real repository, and the figure folder."""
    for name in dict.fromkeys(FROM_THE_REPOSITORY):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO_ROOT / name, root / name)
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    (root / "docs" / "assets" / "fig").mkdir(parents=True, exist_ok=True)
    return root


@dataclass(frozen=True)
class Run:
    """What one command printed, and its exit status."""

    returncode: int
    stdout: str
    stderr: str


def run(repo: Path, *args: str) -> Run:
    """`python -m explainer_tools ARGS` on the fixture repository `repo`, in this process."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        returncode = cli.main(list(args), layout=Layout(repo))
    return Run(returncode, out.getvalue(), err.getvalue())


def snapshot(repo: Path) -> dict[str, bytes]:
    """Every file of the fixture repository."""
    return {
        path.relative_to(repo).as_posix(): path.read_bytes()
        for path in sorted(repo.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fixture repository with one script, a helper, data and a page, regenerated once per
    module; each test works on its own copy."""
    root = build_tree(tmp_path_factory.mktemp("template") / "repo", FIXTURE)
    result = run(root, "regenerate")
    assert result.returncode == 0, result.stderr
    return root


@pytest.fixture
def repo(template: Path, tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(template, root)
    return root


def command_line(repo: Path, *args: str, **popen: object) -> subprocess.Popen[str]:
    """The real `python -m explainer_tools ARGS`, started in `repo` (which must hold a copy of
    the tools: `with_tools`)."""
    return subprocess.Popen([sys.executable, "-m", "explainer_tools", *args], cwd=repo,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            **popen)  # type: ignore[call-overload]


def with_tools(repo: Path) -> Path:
    """`repo` with a copy of explainer_tools, so that `python -m explainer_tools` started there
    works on it (the tools' default layout is the repository they lie in)."""
    shutil.rmtree(repo / "explainer_tools")
    shutil.copytree(REPO_ROOT / "explainer_tools", repo / "explainer_tools",
                    ignore=shutil.ignore_patterns("__pycache__"))
    return repo


def finished(proc: subprocess.Popen[str]) -> Run:
    out, err = proc.communicate(timeout=300)
    return Run(proc.returncode, out, err)


def test_the_command_line_end_to_end(repo: Path) -> None:
    """`python -m explainer_tools` as `make` runs it: exit 0 on a fresh tree, 1 with the
    difference on stdout after a hand edit, 1 with the message on stderr for an unknown
    script."""
    with_tools(repo)
    regenerate = finished(command_line(repo, "regenerate"))
    assert regenerate.returncode == 0, regenerate.stderr
    assert "ran none (all fresh); 0 file(s) written" in regenerate.stdout
    check = finished(command_line(repo, "check"))
    assert check.returncode == 0, check.stdout + check.stderr
    assert "all up to date" in check.stdout
    output = repo / "outputs" / "ch01_fixture.txt"
    output.write_text(output.read_text().replace("= 42", "= 43"))
    check = finished(command_line(repo, "check", "--skip-notebooks"))
    assert check.returncode == 1
    assert "-[1] double(21) = 43" in check.stdout and "+[1] double(21) = 42" in check.stdout
    unknown = finished(command_line(repo, "regenerate", "ch02_nosuch"))
    assert unknown.returncode == 1
    assert "regenerate: no chapter script ch02_nosuch.py in explainer_code/" in unknown.stderr


def test_regenerate_embeds_output_block_and_source(repo: Path) -> None:
    page = (repo / "docs" / "page.md").read_text()
    output = (repo / "outputs" / "ch01_fixture.txt").read_text()
    assert output.startswith("Fixture -- title line\n[1] double(21) = 42\n    factor = 1.5\n")
    assert '```text title="outputs/ch01_fixture.txt"\nFixture -- title line\n' in page
    # the block, indented like its marker inside the collapsible block
    assert (
        '    ```text title="outputs/ch01_fixture.txt, block [2]"\n'
        "    [2] <script>alert(1)</script> & <b>bold</b>\n    ```\n"
    ) in page
    assert "def double(x: int) -> int:\n    return 2 * x" in page
    # a marker shown inside a code fence is an example, not a marker
    assert "<!-- embed: output not_a_marker_inside_code.py -->\n```" in page
    assert (repo / "docs" / "assets" / "fig" / "ch01_fixture.png").read_bytes()[:4] == b"\x89PNG"


def test_embed_round_trip_and_idempotence(repo: Path) -> None:
    before = snapshot(repo)
    second = run(repo, "regenerate")
    assert second.returncode == 0, second.stderr
    assert "ran none (all fresh); 0 file(s) written" in second.stdout
    assert snapshot(repo) == before
    forced = run(repo, "regenerate", "--force")
    assert forced.returncode == 0, forced.stderr
    assert "0 file(s) written" in forced.stdout
    assert snapshot(repo) == before
    check = run(repo, "check")
    assert check.returncode == 0
    # the claim check and the book checks read the fixture's one page, not the book's pages
    assert "claims: 1 pages" in check.stdout and "docs/page.md: 0 badges" in check.stdout


@pytest.mark.parametrize(
    ("changed", "expect_rerun"),
    [
        ("explainer_code/ch01_fixture.py", True),
        ("explainer_code/helper.py", True),  # a local module the script imports
        ("explainer_code/data/factor.txt", True),  # a data file the script reads
        ("requirements.lock", True),  # the pinned environment
        ("docs/page.md", False),  # prose is not an input of the script
    ],
)
def test_regenerate_reruns_exactly_when_an_input_changes(
    repo: Path, changed: str, expect_rerun: bool
) -> None:
    path = repo / changed
    suffix = {".py": "\n# touched\n", ".txt": "\n", ".md": "\nMore prose.\n"}.get(path.suffix, "\n")
    path.write_text(path.read_text() + suffix)
    result = run(repo, "regenerate")
    assert result.returncode == 0, result.stderr
    assert ("ran ch01_fixture.py" in result.stdout) is expect_rerun, result.stdout


def test_regenerate_runs_only_the_scripts_it_is_given(repo: Path) -> None:
    script = repo / "explainer_code" / "ch01_fixture.py"
    script.write_text(script.read_text() + "\n# touched\n")
    unknown = run(repo, "regenerate", "ch02_nosuch")
    assert unknown.returncode == 1
    assert "regenerate: no chapter script ch02_nosuch.py in explainer_code/" in unknown.stderr
    assert "ran ch01_fixture.py" in run(repo, "regenerate", "ch01_fixture").stdout
    assert "ran none" in run(repo, "regenerate", "explainer_code/ch01_fixture.py").stdout


def test_select_scripts_keeps_the_order_and_takes_names_with_or_without_py() -> None:
    from explainer_tools.scripts.pipeline import select_scripts

    scripts = ["ch01_a.py", "ch02_b.py", "ch03_c.py"]
    assert select_scripts(scripts, []) == scripts
    assert select_scripts(scripts, ["ch03_c", "explainer_code/ch01_a.py"]) == ["ch01_a.py",
                                                                               "ch03_c.py"]


def test_changed_output_in_data_reaches_output_figure_and_page(repo: Path) -> None:
    (repo / "explainer_code" / "data" / "factor.txt").write_text("2.5\n")
    check = run(repo, "check")
    assert check.returncode == 1
    assert "-    factor = 1.5" in check.stdout and "+    factor = 2.5" in check.stdout
    assert "docs/assets/fig/ch01_fixture.png: figure differs" in check.stdout
    assert "pixels differ" in check.stdout
    assert run(repo, "regenerate").returncode == 0
    assert "factor = 2.5" in (repo / "docs" / "page.md").read_text()
    assert run(repo, "check").returncode == 0


def test_check_detects_a_hand_edited_output_and_writes_nothing(repo: Path) -> None:
    output = repo / "outputs" / "ch01_fixture.txt"
    output.write_text(output.read_text().replace("= 42", "= 43"))
    before = snapshot(repo)
    result = run(repo, "check")
    assert result.returncode == 1
    assert "outputs/ch01_fixture.txt (committed)" in result.stdout
    assert "-[1] double(21) = 43" in result.stdout and "+[1] double(21) = 42" in result.stdout
    assert snapshot(repo) == before


def test_check_detects_a_changed_figure(repo: Path) -> None:
    figure = repo / "docs" / "assets" / "fig" / "ch01_fixture.png"
    figure.write_bytes(b"not a png")
    result = run(repo, "check")
    assert result.returncode == 1
    assert "docs/assets/fig/ch01_fixture.png: figure differs" in result.stdout
    assert "not a readable PNG" in result.stdout


def test_check_detects_a_hand_edit_inside_an_embedded_block(repo: Path) -> None:
    page = repo / "docs" / "page.md"
    page.write_text(page.read_text().replace("double(21) = 42", "double(21) = 44", 1))
    result = run(repo, "check")
    assert result.returncode == 1
    assert "docs/page.md (committed)" in result.stdout
    assert "-[1] double(21) = 44" in result.stdout


def test_check_reports_a_stray_figure(repo: Path) -> None:
    (repo / "docs" / "assets" / "fig" / "orphan.png").write_bytes(b"x")
    result = run(repo, "check")
    assert result.returncode == 1
    assert "docs/assets/fig/orphan.png: no chapter script draws this figure" in result.stdout


@pytest.mark.parametrize(
    ("page", "message"),
    [
        (
            "a\n<!-- embed: output ch99_missing.py -->\n<!-- /embed -->\n",
            "docs/bad.md:2: unknown script 'ch99_missing.py'",
        ),
        (
            "a\nb\n<!-- embed: output ch01_fixture.py [7] -->\n<!-- /embed -->\n",
            "docs/bad.md:3: unknown block [7] of ch01_fixture.py (it has [1], [2])",
        ),
        ("<!-- embed: output ch01_fixture.py -->\ntext\n", "docs/bad.md:1: unclosed marker"),
        (
            "<!-- embed: output ch01_fixture.py -->\n<!-- embed: source helper.py -->\n"
            "<!-- /embed -->\n<!-- /embed -->\n",
            "docs/bad.md:2: nested marker",
        ),
        ("x\n<!-- /embed -->\n", "docs/bad.md:2: <!-- /embed --> without an open marker"),
        ("<!-- embed: outptu ch01_fixture.py -->\n<!-- /embed -->\n", "docs/bad.md:1: malformed"),
        (
            "<!-- embed: source ../requirements.lock -->\n<!-- /embed -->\n",
            "docs/bad.md:1: unknown source file",
        ),
    ],
)
def test_marker_errors_name_file_and_line_and_rewrite_nothing(
    repo: Path, page: str, message: str
) -> None:
    (repo / "docs" / "bad.md").write_text(page)
    # a pending change elsewhere must not be written either
    helper = repo / "explainer_code" / "helper.py"
    helper.write_text("def double(x: int) -> int:\n    return 3 * x\n")
    before = snapshot(repo)
    for command in ("regenerate", "check"):
        result = run(repo, command)
        assert result.returncode == 1
        assert message in result.stderr, result.stderr
        assert snapshot(repo) == before


def test_a_crashing_script_stops_regeneration_and_leaves_everything_untouched(repo: Path) -> None:
    script = repo / "explainer_code" / "ch01_fixture.py"
    script.write_text(script.read_text().replace("FACTOR = float", "FACTOR = 1 / 0 + float"))
    before = snapshot(repo)
    result = run(repo, "regenerate")
    assert result.returncode == 1
    assert "explainer_code/ch01_fixture.py failed (exit 1)" in result.stderr
    assert "ZeroDivisionError" in result.stderr and "Traceback" in result.stderr
    assert snapshot(repo) == before


def test_output_does_not_depend_on_the_working_folder(repo: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = subprocess.run(
        [sys.executable, str(repo / "explainer_code" / "ch01_fixture.py")],
        cwd=elsewhere,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout == (repo / "outputs" / "ch01_fixture.txt").read_text()


def test_a_figure_the_script_stops_drawing_is_removed(repo: Path) -> None:
    script = repo / "explainer_code" / "ch01_fixture.py"
    script.write_text(script.read_text().replace('"ch01_fixture.png"', '"ch01_renamed.png"'))
    result = run(repo, "regenerate")
    assert result.returncode == 0, result.stderr
    figures = sorted(p.name for p in (repo / "docs" / "assets" / "fig").iterdir())
    assert figures == ["ch01_renamed.png"]
    assert "removed docs/assets/fig/ch01_fixture.png" in result.stdout
    assert run(repo, "check").returncode == 0


NOTEBOOK = '# %% [markdown]\n# A fixture notebook.\n\n# %%\nprint(6 * 7)\n'


@pytest.mark.slow
def test_notebooks_execute_when_stale_check_catches_drift_and_a_failure_writes_nothing(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One test for the notebook path, as each execution starts a kernel (seconds): four
    executions prove staleness, drift and failure, and that an execution, passing or failing,
    leaves nothing in TMPDIR (the kernel's connection file holds its key). That `check` passes
    on an unchanged notebook is proved by `make check` on the committed companion notebook and,
    with execution stubbed, by test_notebook_pipeline.py."""
    (repo / "notebooks").mkdir()
    source = repo / "notebooks" / "tiny_book.py"
    source.write_text(NOTEBOOK)
    target = repo / "docs" / "notebooks" / "tiny-book.ipynb"
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch))
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))  # gettempdir() has read it already
    first = run(repo, "regenerate")  # execution 1
    assert first.returncode == 0, first.stderr
    assert list(scratch.iterdir()) == []
    assert "wrote docs/notebooks/tiny-book.ipynb" in first.stdout
    stored = '"text": [\n      "42\\n"'
    assert stored in target.read_text()
    assert "0 file(s) written" in run(repo, "regenerate").stdout  # fresh: not executed again
    # pages are not inputs of the notebook; its source is
    page = repo / "docs" / "page.md"
    page.write_text(page.read_text() + "\nA new sentence.\n")
    assert "executing" not in run(repo, "regenerate").stdout
    # a hand edit of a stored output is drift
    target.write_text(target.read_text().replace(stored, stored.replace("42", "43")))
    check = run(repo, "check")  # execution 2
    assert check.returncode == 1
    assert "-43" in check.stdout and "+42" in check.stdout
    assert "docs/notebooks/tiny-book.ipynb: differs from a fresh execution" in check.stdout
    source.write_text(NOTEBOOK + "\n# %%\nprint(7)\n")
    again = run(repo, "regenerate")  # execution 3
    assert "executing notebooks/tiny_book.py" in again.stdout
    assert stored in target.read_text() and '"7\\n"' in target.read_text()
    # a failing cell stops regeneration and leaves the stored notebook as it was
    before = snapshot(repo)
    source.write_text(NOTEBOOK + "\n# %%\nraise ValueError('broken cell')\n")
    result = run(repo, "regenerate")  # execution 4
    assert result.returncode == 1
    assert list(scratch.iterdir()) == []
    assert "notebooks/tiny_book.py failed; docs/notebooks/tiny-book.ipynb left as it was" in (
        result.stderr
    )
    assert "ValueError" in result.stderr and "broken cell" in result.stderr
    after = snapshot(repo)
    after.pop("notebooks/tiny_book.py")
    before.pop("notebooks/tiny_book.py")
    assert after == before


# ---- fault injection: one test per probe ------------------------------------------


def add_script(repo: Path, name: str, body: str) -> Path:
    path = repo / "explainer_code" / name
    path.write_text(textwrap.dedent(body))
    return path


def add_page(repo: Path, name: str, text: str) -> Path:
    path = repo / "docs" / name
    path.write_text(text)
    return path


def test_probe01_a_marker_printed_by_a_script_never_breaks_the_page(repo: Path) -> None:
    add_script(repo, "ch02_markers.py", '''\
        print("Markers -- ch02_markers.py")
        print("[1] <!-- /embed -->")
        print("<!-- embed: output ch01_fixture.py -->")
        print("<!-- /embed -->")
        ''')
    page = add_page(repo, "markers.md", "# M\n\n<!-- embed: output ch02_markers.py -->\n"
                    "<!-- /embed -->\n\n<!-- embed: source ch02_markers.py -->\n"
                    "<!-- /embed -->\n\nend\n")
    texts = []
    for _ in range(3):
        result = run(repo, "regenerate")
        assert result.returncode == 0, result.stderr
        texts.append(page.read_text())
    assert texts[0] == texts[1] == texts[2]
    assert texts[0].endswith("<!-- /embed -->\n\nend\n")
    assert run(repo, "check").returncode == 0


def test_probe02_a_hanging_script_times_out_by_name_and_leaves_nothing(
        repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    add_script(repo, "ch02_hangs.py", "import time\nprint('Hangs -- ch02_hangs.py')\ntry:\n"
               "    input()\nexcept EOFError:  # stdin is /dev/null: input() cannot wait\n"
               "    pass\ntime.sleep(600)  # hangs without burning the CPU the suite shares\n")
    before = snapshot(repo)
    monkeypatch.setenv("EXPLAINER_SCRIPT_TIMEOUT", "2")
    began = time.monotonic()
    result = run(repo, "regenerate")
    assert result.returncode == 1 and time.monotonic() - began < 120
    assert "explainer_code/ch02_hangs.py timed out after 2 s" in result.stderr
    assert "EXPLAINER_SCRIPT_TIMEOUT" in result.stderr
    assert snapshot(repo) == before


def test_probe02_killing_regenerate_kills_the_script_and_removes_scratch(repo: Path,
                                                                          tmp_path: Path) -> None:
    add_script(repo, "ch02_sleeps.py", '''\
        import os, pathlib, tempfile, time
        # the script's temporary folder: the one place besides its figures it may write
        pathlib.Path(tempfile.gettempdir(), "script.pid").write_text(str(os.getpid()))
        time.sleep(300)
        ''')
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    proc = command_line(with_tools(repo), "regenerate", env={**os.environ, "TMPDIR": str(scratch)})
    deadline = time.monotonic() + 120
    pid_files: list[Path] = []
    while not pid_files and time.monotonic() < deadline:
        pid_files = list(scratch.glob("regenerate-*/ch02_sleeps.tmp/script.pid"))
        time.sleep(0.1)
    time.sleep(0.3)
    script_pid = int(pid_files[0].read_text()) if pid_files else 0
    proc.terminate()
    proc.communicate(timeout=60)
    assert pid_files, "the script never started"
    assert proc.returncode != 0
    time.sleep(0.5)
    assert script_pid  # its own pid, in a PID namespace of its own where the sandbox runs it
    assert not [pid for pid in process_ids() if b"ch02_sleeps" in command_of(pid)]
    assert not list(scratch.glob("regenerate-*"))


def process_ids() -> list[int]:
    return [int(entry.name) for entry in Path("/proc").iterdir() if entry.name.isdigit()]


def command_of(pid: int) -> bytes:
    """The command line of a live process (b"" for a zombie or a process gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        return b"" if state in ("Z", "X") else Path(f"/proc/{pid}/cmdline").read_bytes()
    except (OSError, IndexError):
        return b""


def test_probe03_two_scripts_drawing_one_figure_name_fail_naming_both(repo: Path) -> None:
    add_script(repo, "ch02_clash.py", '''\
        from script_io import save_figure
        from tinyfig import TinyFigure
        print("Clash -- ch02_clash.py")
        save_figure(TinyFigure(3.0), "ch01_fixture.png", dpi=50)
        ''')
    before = snapshot(repo)
    for command in ("regenerate", "check"):
        result = run(repo, command)
        assert result.returncode == 1
        assert "ch01_fixture.png is drawn by both explainer_code/ch01_fixture.py and " \
               "explainer_code/ch02_clash.py" in result.stderr
    assert snapshot(repo) == before


def test_probe04_nothing_is_written_when_a_folder_is_not_writable(tmp_path: Path) -> None:
    from explainer_tools.scripts import pipeline

    (tmp_path / "blocker").write_text("a file where a folder should be")
    files = {tmp_path / "a.txt": b"a", tmp_path / "blocker" / "b.txt": b"b"}
    with pytest.raises(pipeline.CommandError, match="nothing was written"):
        pipeline.apply(files, Layout(tmp_path))
    assert not (tmp_path / "a.txt").exists()


def test_probe04_a_failure_mid_way_says_what_was_written(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    from explainer_tools import tree_io
    from explainer_tools.scripts import pipeline

    real = tree_io.write_atomic

    def flaky(path: Path, data: bytes) -> None:
        if path.name == "b.txt":
            raise OSError(28, "No space left on device", str(path))
        real(path, data)

    monkeypatch.setattr(tree_io, "write_atomic", flaky)
    with pytest.raises(pipeline.CommandError) as error:
        pipeline.apply({tmp_path / "a.txt": b"a", tmp_path / "b.txt": b"b"}, Layout(tmp_path))
    message = str(error.value)
    assert "No space left on device" in message and "a.txt" in message
    assert "make regenerate" in message and "git checkout" in message


def test_probe05_stamps_hold_the_run_environment_and_the_runner(repo: Path) -> None:
    stamp = json.loads((repo / "outputs" / ".stamps" / "ch01_fixture.json").read_text())
    assert stamp["environment"]["ATEN_CPU_CAPABILITY"] == "avx2"
    assert {"explainer_tools/scripts/runner.py",
            "explainer_tools/scripts/settings.py"} <= set(stamp["inputs"])
    assert "explainer_tools/layout.py" not in stamp["inputs"]  # where things are, not how they run
    settings = repo / "explainer_tools" / "scripts" / "settings.py"
    pinned = settings.read_text().replace('"MKL_CBWR": "COMPATIBLE"', '"MKL_CBWR": "AVX2"')
    settings.write_text(pinned)
    result = run(repo, "regenerate")
    assert "ran ch01_fixture.py" in result.stdout, result.stdout
    assert run(repo, "regenerate").stdout.startswith("regenerate: ran none")
    runner_py = repo / "explainer_tools" / "scripts" / "runner.py"
    runner_py.write_text(runner_py.read_text() + "\n# a change in how scripts run\n")
    assert "ran ch01_fixture.py" in run(repo, "regenerate").stdout


def test_probe06_carriage_returns_agree_between_regenerate_and_check(repo: Path) -> None:
    add_script(repo, "ch02_cr.py", "import sys\nsys.stdout.write('CR -- ch02_cr.py\\r\\n"
               "[1] a\\rb\\r\\n')\n")
    assert run(repo, "regenerate").returncode == 0
    assert (repo / "outputs" / "ch02_cr.txt").read_bytes() == b"CR -- ch02_cr.py\n[1] a\nb\n"
    assert "ran none" in run(repo, "regenerate").stdout
    assert run(repo, "check").returncode == 0


@pytest.mark.parametrize("probe", ["page", "output", "stamp", "block", "fence"])
def test_probe07_bad_inputs_give_file_and_line_errors(repo: Path, probe: str) -> None:
    if probe == "page":
        (repo / "docs" / "latin1.md").write_bytes(b"ok\ncaf\xe9\n")
        expect = "docs/latin1.md:2: not UTF-8"
    elif probe == "output":
        add_script(repo, "ch02_bytes.py", "import sys\nsys.stdout.buffer.write(b'T\\n\\xff\\n')\n")
        expect = "explainer_code/ch02_bytes.py: its output is not UTF-8 (line 2"
    elif probe == "stamp":
        (repo / "outputs" / ".stamps" / "ch01_fixture.json").write_text("[1, 2]\n")
        result = run(repo, "regenerate")
        assert result.returncode == 0 and "ran ch01_fixture.py" in result.stdout
        (repo / "outputs" / ".stamps" / "ch01_fixture.json").write_text('{"inputs": 3}\n')
        result = run(repo, "check")
        assert result.returncode == 1 and "Traceback" not in result.stderr
        assert "outputs/.stamps/ch01_fixture.json (committed)" in result.stdout
        return
    elif probe == "block":
        add_script(repo, "ch02_dup.py", "print('T')\nprint('[1] a')\nprint('[1] b')\n")
        add_page(repo, "dup.md", "<!-- embed: output ch02_dup.py [1] -->\n<!-- /embed -->\n")
        expect = "outputs/ch02_dup.txt:3: block [1] appears twice"
    else:
        add_page(repo, "fence.md", "x\n```python\ncode\n")
        expect = "docs/fence.md:2: code fence never closed"
    for command in ("regenerate", "check"):
        result = run(repo, command)
        assert result.returncode == 1, result.stdout
        assert expect in result.stderr + result.stdout, result.stderr + result.stdout
        assert "Traceback" not in result.stderr, result.stderr


def test_probe07_a_crlf_page_keeps_its_line_endings(repo: Path) -> None:
    page = repo / "docs" / "page.md"
    page.write_bytes(page.read_bytes().replace(b"\n", b"\r\n"))
    assert run(repo, "regenerate").returncode == 0
    data = page.read_bytes()
    assert b"\r\n" in data and b"\n" not in data.replace(b"\r\n", b"")
    assert run(repo, "check").returncode == 0


def test_probe08_renamed_script_products_are_removed_by_regenerate(repo: Path) -> None:
    code = repo / "explainer_code"
    (code / "ch01_fixture.py").rename(code / "ch01_renamed.py")
    page = repo / "docs" / "page.md"
    page.write_text(page.read_text().replace("ch01_fixture.py", "ch01_renamed.py"))
    check = run(repo, "check")
    assert check.returncode == 1
    assert "outputs/ch01_fixture.txt: no chapter script of that name" in check.stdout
    assert "removes the products of renamed or deleted scripts" in check.stdout
    result = run(repo, "regenerate")
    assert result.returncode == 0, result.stderr
    assert not (repo / "outputs" / "ch01_fixture.txt").exists()
    assert not (repo / "outputs" / ".stamps" / "ch01_fixture.json").exists()
    assert run(repo, "check").returncode == 0


def test_probe08_advice_for_a_stray_figure_and_a_nondeterministic_script(repo: Path) -> None:
    (repo / "docs" / "assets" / "fig" / "orphan.png").write_bytes(b"x")
    result = run(repo, "check")
    assert "git rm docs/assets/fig/orphan.png" in result.stdout
    (repo / "docs" / "assets" / "fig" / "orphan.png").unlink()
    add_script(repo, "ch02_random.py", "import os\nprint('R -- ch02_random.py')\n"
               "print('[1]', os.urandom(4).hex())\n")
    assert run(repo, "regenerate").returncode == 0
    result = run(repo, "check")
    assert result.returncode == 1
    assert "differ between two runs of the same scripts" in result.stdout
    assert "`make regenerate` cannot fix this" in result.stdout


def test_probe08_a_listed_folder_is_an_input(repo: Path) -> None:
    data = repo / "explainer_code" / "data" / "listed"
    data.mkdir()
    (data / "a.txt").write_text("a")
    add_script(repo, "ch02_lists.py", "import os, pathlib\nprint('L -- ch02_lists.py')\n"
               "d = pathlib.Path(__file__).parent / 'data' / 'listed'\n"
               "print('[1] files:', len(os.listdir(d)), len(list(d.glob('*.txt'))))\n")
    assert run(repo, "regenerate").returncode == 0
    stamp = json.loads((repo / "outputs" / ".stamps" / "ch02_lists.json").read_text())
    assert "explainer_code/data/listed/" in stamp["inputs"]
    (data / "b.txt").write_text("b")
    result = run(repo, "regenerate")
    assert "ran ch02_lists.py" in result.stdout
    assert "[1] files: 2 2" in (repo / "outputs" / "ch02_lists.txt").read_text()
    assert run(repo, "check").returncode == 0


def test_probe08_advice_for_a_read_the_tracer_cannot_see(repo: Path) -> None:
    data = repo / "explainer_code" / "data" / "hidden.txt"
    data.write_text("a")
    add_script(repo, "ch02_hidden.py", "import pathlib, subprocess, sys\n"
               "print('H -- ch02_hidden.py')\n"
               "f = pathlib.Path(__file__).parent / 'data' / 'hidden.txt'\n"
               "print('[1]', subprocess.run(['cat', str(f)], capture_output=True, text=True)"
               ".stdout)\n")
    assert run(repo, "regenerate").returncode == 0
    data.write_text("b")
    assert "ran none" in run(repo, "regenerate").stdout
    result = run(repo, "check")
    assert result.returncode == 1
    assert "its stamp records is unchanged" in result.stdout
    assert "regenerate --force" in result.stdout


def test_a_caller_s_torch_cache_folder_does_not_reach_the_scripts(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Importing torch._dynamo sets TORCHINDUCTOR_CACHE_DIR (the system's temporary folder) in
    the importing process's environment, a test session's included; a script run from there that
    imports it too would write that folder, and be refused. Each script gets its own."""
    monkeypatch.setenv("TORCHINDUCTOR_CACHE_DIR", str(tmp_path / "caller-cache"))
    script = ('import os, tempfile\nprint("Fixture -- title line")\n'
              'print("[1] inside:", os.environ["TORCHINDUCTOR_CACHE_DIR"].startswith('
              'tempfile.gettempdir()))\n')
    root = build_tree(tmp_path / "repo", {"explainer_code/ch01_fixture.py": script})
    result = run(root, "regenerate")
    assert result.returncode == 0, result.stderr
    assert "[1] inside: True" in (root / "outputs" / "ch01_fixture.txt").read_text()
