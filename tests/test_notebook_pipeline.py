"""How the pipeline executes, stores and compares the companion notebooks
(`explainer_tools.scripts.notebooks`, `pipeline.notebook_differences`). (The notebook's own toolkit:
test_gpt_lab.py.)

Executing the companion notebook takes minutes, so one test here does it
(`test_fresh_execution_matches_the_committed_notebook`), and it skips under `make test`, whose
`make check` has just executed every notebook and compared it with the committed copy. Every
other test uses a small notebook built here, or the committed one with execution stubbed; the
staleness, drift and failure paths on a two-cell notebook are in test_pipeline.py.
"""

from __future__ import annotations

import copy
import os
import re
import struct
from pathlib import Path

import nbformat
import pytest

from explainer_tools.layout import DEFAULT, Layout
from explainer_tools.scripts import cpu_paths, notebooks, pipeline
from explainer_tools.scripts.settings import CPU_PINNING_ENV

REPO_ROOT = DEFAULT.root

COMMITTED = REPO_ROOT / "docs" / "notebooks" / "gpt2-under-the-hood.ipynb"
SOURCE = REPO_ROOT / "notebooks" / "gpt2_under_the_hood.py"


# ---- comparable_text and check ---------------------------------------------------------------


def png(width: int, height: int, payload: bytes = b"") -> str:
    import base64

    ihdr = struct.pack(">II", width, height) + b"\x08\x06\x00\x00\x00"
    data = b"\x89PNG\r\n\x1a\n" + struct.pack(">I", 13) + b"IHDR" + ihdr + b"\0" * 4 + payload
    return base64.b64encode(data).decode()


def small_notebook() -> nbformat.NotebookNode:
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell("# Title"),
        nbformat.v4.new_code_cell("print(1)", outputs=[
            nbformat.v4.new_output("stream", name="stdout", text="loss 3.262\n")]),
        nbformat.v4.new_code_cell("figure()", outputs=[
            nbformat.v4.new_output("display_data", data={
                "image/png": png(100, 50, b"pixels"), "text/plain": "<Figure>"})]),
        nbformat.v4.new_code_cell("time()", metadata={"tags": ["nondeterministic"]}, outputs=[
            nbformat.v4.new_output("stream", name="stdout", text="1.23 s\n")]),
        nbformat.v4.new_code_cell("html()", outputs=[
            nbformat.v4.new_output("execute_result", execution_count=4,
                                   data={"text/html": "<b>465</b>", "text/plain": "HTML"})]),
    ]
    return notebooks.normalise(nb)


def as_bytes(nb: nbformat.NotebookNode) -> bytes:
    return nbformat.writes(nb).encode()


def test_comparable_text_excludes_tagged_cells_and_nothing_else() -> None:
    nb = small_notebook()
    text = notebooks.comparable_text(as_bytes(nb))
    for expected in ["loss 3.262", "<b>465</b>", "[image/png 100x50: pixels not compared]",
                     "(excluded: the cell is tagged 'nondeterministic')", "time()", "# Title"]:
        assert expected in text
    assert "1.23 s" not in text

    def changed(edit) -> bool:
        other = copy.deepcopy(nb)
        edit(other)
        return notebooks.comparable_text(as_bytes(other)) != text

    def set_text(i: int, value: str):
        return lambda n: n.cells[i].outputs[0].__setitem__("text", value)

    assert changed(set_text(1, "loss 3.263\n"))  # deterministic output
    assert not changed(set_text(3, "9.99 s\n"))  # the tagged cell
    assert changed(lambda n: n.cells[4].outputs[0].data.__setitem__("text/html", "<b>466</b>"))
    assert changed(lambda n: n.cells[0].__setitem__("source", "# Other title"))
    assert changed(lambda n: n.cells[3].__setitem__("source", "time2()"))  # tagged: source counts
    assert changed(lambda n: n.cells[1].outputs.append(
        nbformat.v4.new_output("stream", name="stderr", text="Warning\n")))
    assert changed(lambda n: n.cells[2].outputs[0].data.__setitem__("image/png", png(100, 60)))
    assert not changed(  # same size, other pixels: by the documented rule, not compared
        lambda n: n.cells[2].outputs[0].data.__setitem__("image/png", png(100, 50, b"other"))
    )


def test_an_inline_png_in_html_counts_by_its_size_and_its_alt_text_is_compared() -> None:
    """The notebook shows its figures as <img alt=...> in HTML: the pixels are not compared
    (as for image/png outputs), the size and every other character of the HTML are."""

    def figure(width: int, height: int, pixels: bytes, alt: str) -> bytes:
        nb = nbformat.v4.new_notebook()
        img = f'<img src="data:image/png;base64,{png(width, height, pixels)}" alt="{alt}">'
        nb.cells = [nbformat.v4.new_code_cell("show_figure(fig, alt)", outputs=[
            nbformat.v4.new_output("display_data", data={"text/html": img,
                                                         "text/plain": "<HTML>"})])]
        return as_bytes(notebooks.normalise(nb))

    text = notebooks.comparable_text(figure(640, 480, b"a", "loss falls"))
    assert '<img src="[image/png 640x480: pixels not compared]" alt="loss falls">' in text
    assert "base64" not in text
    assert notebooks.comparable_text(figure(640, 480, b"other pixels", "loss falls")) == text
    assert notebooks.comparable_text(figure(640, 481, b"a", "loss falls")) != text
    assert notebooks.comparable_text(figure(640, 480, b"a", "loss rises")) != text


def test_committed_figures_have_alt_texts() -> None:
    """Every figure of the stored notebook is an <img> with a real text alternative."""
    nb = nbformat.reads(COMMITTED.read_text(encoding="utf-8"), as_version=4)
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])]
    assert not any("image/png" in o.get("data", {}) for o in outputs)  # no alt-less images
    images = [h for o in outputs for h in [o.get("data", {}).get("text/html", "")]
              if "data:image/png;base64," in h]
    assert len(images) >= 5
    for image in images:
        alt = re.search(r'alt="([^"]*)"', image)
        assert alt and len(alt.group(1)) > 80 and "No description" not in alt.group(1)


def test_normalise_fixes_ids_and_metadata() -> None:
    nb = small_notebook()
    nb.cells[1].metadata["execution"] = {"iopub.status.busy": "2026-01-01T00:00:00"}
    nb.metadata["language_info"] = {"name": "python", "version": "3.11.9"}
    out = notebooks.normalise(nb)
    assert [c.id for c in out.cells] == [f"cell-{i:03d}" for i in range(5)]
    assert out.cells[1].metadata == {} and out.cells[3].metadata == {"tags": ["nondeterministic"]}
    assert out.metadata == notebooks.NOTEBOOK_METADATA


def edit_first_deterministic_stdout(data: bytes) -> tuple[bytes, str]:
    """A copy of a stored notebook with one character of a deterministic output changed."""
    nb = nbformat.reads(data.decode(), as_version=4)
    for cell in nb.cells:
        tags = cell.get("metadata", {}).get("tags", [])
        if cell.cell_type != "code" or "nondeterministic" in tags:
            continue
        for output in cell.outputs:
            if output.output_type == "stream" and "50257" in output.text:
                output.text = output.text.replace("50257", "50258")
                return nbformat.writes(nb).encode(), "50258"
    raise AssertionError("no deterministic output mentions 50257")


def test_check_fails_on_a_changed_stored_output(tmp_path, monkeypatch) -> None:
    """`check` against a re-execution (stubbed here with the committed notebook itself: the
    slow test below executes for real) passes on an unchanged copy, fails with a diff on an
    edited deterministic output, ignores edits of the timing cell, and writes nothing."""
    committed = COMMITTED.read_bytes()
    source, target, stamp = tmp_path / "source.py", tmp_path / "copy.ipynb", tmp_path / "s.json"
    monkeypatch.setattr(notebooks, "execute_notebook", lambda source, layout: committed)
    monkeypatch.setattr(Layout, "notebook_targets", lambda self: {source: target})
    monkeypatch.setattr(Layout, "notebook_stamp_path", lambda self, target: stamp)
    monkeypatch.setattr(pipeline, "render_notebook_stamp", lambda *args: "stamp\n")
    monkeypatch.setattr(pipeline, "machine_kernels", lambda layout: None)  # byte for byte
    stamp.write_text("stamp\n")

    target.write_bytes(committed)
    assert pipeline.notebook_differences(DEFAULT) == []

    edited, marker = edit_first_deterministic_stdout(committed)
    target.write_bytes(edited)
    found = pipeline.notebook_differences(DEFAULT)
    assert len(found) == 1
    assert marker in found[0].report and "differs from a fresh execution" in found[0].report
    assert target.read_bytes() == edited  # check writes nothing

    nb = nbformat.reads(committed.decode(), as_version=4)
    timed = [c for c in nb.cells if "nondeterministic" in c.get("metadata", {}).get("tags", [])]
    assert timed and timed[0].outputs
    timed[0].outputs[0]["text"] = "40 new tokens: 0.01 s with the cache, 99.99 s without\n"
    target.write_bytes(nbformat.writes(nb).encode())
    assert pipeline.notebook_differences(DEFAULT) == []


def test_a_notebook_made_on_other_kernels_is_executed_but_not_compared(
        tmp_path, monkeypatch, capsys) -> None:
    """Where the committed notebook's stamp is fresh but names other kernels, `check` executes
    it (its claims are checked there) and compares the stamp, not the outputs, and says so;
    once its inputs change, it is compared byte for byte again."""
    committed = COMMITTED.read_bytes()
    source, target, stamp = tmp_path / "source.py", tmp_path / "copy.ipynb", tmp_path / "s.json"
    monkeypatch.setattr(notebooks, "execute_notebook", lambda source, layout: committed)
    monkeypatch.setattr(Layout, "notebook_targets", lambda self: {source: target})
    monkeypatch.setattr(Layout, "notebook_stamp_path", lambda self, target: stamp)
    monkeypatch.setattr(pipeline, "machine_kernels", lambda layout: {"id": "b", "cpu": "AMD Y"})
    fresh_stamp = ('{"environment": {}, "inputs": {}, "output": "", "figures": {}, '
                   '"kernels": {"id": "a", "cpu": "Intel X"}}\n')
    monkeypatch.setattr(pipeline, "render_notebook_stamp", lambda *args: fresh_stamp)
    stamp.write_text(fresh_stamp)
    edited, marker = edit_first_deterministic_stdout(committed)
    target.write_bytes(edited)
    assert pipeline.notebook_differences(DEFAULT) == []
    out = capsys.readouterr().out
    assert ("copy.ipynb: executed, claims checked, outputs NOT compared: it was made on "
            "Intel X") in out
    stamp.write_text("stale\n")  # an input changed: byte for byte, the edit is found
    found = pipeline.notebook_differences(DEFAULT)
    assert any(marker in d.report for d in found)


def test_notebook_inputs_are_its_code_and_data_and_pages_only_when_it_reads_them(
        tmp_path: Path) -> None:
    inputs = notebooks.notebook_inputs(SOURCE)
    assert "notebooks/gpt2_under_the_hood.py" in inputs
    assert "explainer_code/gpt_lab/model.py" in inputs and "requirements.lock" in inputs
    # the chapters' figure rule the notebook imports (its PNG encoding is in the stored notebook)
    assert "explainer_code/script_io.py" in inputs
    reads_pages = bool(notebooks.READS_PAGES.search(SOURCE.read_text(encoding="utf-8")))
    assert ("docs/chapters/05-transformers-gpt2.md" in inputs) is reads_pages
    frozen = tmp_path / "frozen.py"
    frozen.write_text("# %%\ntext = open(ROOT / 'explainer_code' / 'data' / 'corpus.txt')\n")
    assert not [i for i in notebooks.notebook_inputs(frozen) if i.startswith("docs/")]


def test_there_is_no_separate_notebook_command_line() -> None:
    assert not hasattr(notebooks, "main")
    assert "explainer_tools.scripts.notebooks execute" not in SOURCE.read_text(encoding="utf-8")


def test_committed_notebook_is_normalised_and_has_outputs() -> None:
    data = COMMITTED.read_bytes()
    nb = nbformat.reads(data.decode(), as_version=4)
    assert nbformat.writes(notebooks.normalise(copy.deepcopy(nb))).encode() + b"\n" == data
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert all(c.outputs for c in code), "every code cell of the stored notebook has outputs"
    assert any("data:image/png;base64," in o.get("data", {}).get("text/html", "")
               for c in code for o in c.outputs)  # figures, with alt text (test below)
    assert not any(o.output_type == "error" for c in code for o in c.outputs)
    headings = [c.source.splitlines()[0] for c in nb.cells if c.cell_type == "markdown"]
    for n in range(1, 9):
        assert any(h.startswith(f"## {n}. ") for h in headings), f"section {n} missing"
    assert any(h.startswith("## Exercises") for h in headings)


@pytest.mark.slow
@pytest.mark.skipif(os.environ.get("EXPLAINER_CHECK_PASSED") == "1",
                    reason="make check has just re-executed and compared every notebook")
def test_fresh_execution_matches_the_committed_notebook() -> None:
    """The real `make check` path: execute the source offline and compare with the committed
    notebook; then a copy with one deterministic output edited must not match. (Where the
    committed notebook was made on other kernels, the execution, which checks its claims, is
    all that can be asserted: its training samples other text there.)"""
    fresh = notebooks.execute_notebook(SOURCE)
    committed = COMMITTED.read_bytes()
    here = pipeline.machine_kernels(DEFAULT)
    recorded = pipeline.notebook_kernels(COMMITTED, DEFAULT)
    if here and recorded and here["id"] != recorded["id"]:
        pytest.skip(f"executed, claims checked; outputs made on {recorded['cpu']}, not comparable "
                    f"on {here['cpu']}")
    assert notebooks.diff_notebooks(committed, fresh, "notebook") == ""
    edited, marker = edit_first_deterministic_stdout(committed)
    diff = notebooks.diff_notebooks(edited, fresh, "notebook")
    assert diff and marker in diff


def test_stream_chunking_does_not_change_the_comparison_or_the_stored_notebook() -> None:
    """The kernel splits printed text into chunks by timing; one chunk or two is the same."""

    def notebook_with(outputs: list[dict]) -> bytes:
        nb = nbformat.v4.new_notebook()
        cell = nbformat.v4.new_code_cell("print('a'); print('b')")
        cell["outputs"] = [nbformat.from_dict(o) for o in outputs]
        nb.cells = [cell]
        return nbformat.writes(notebooks.normalise(nb)).encode("utf-8")

    one = [{"output_type": "stream", "name": "stdout", "text": "a\nb\n"}]
    two = [
        {"output_type": "stream", "name": "stdout", "text": "a\n"},
        {"output_type": "stream", "name": "stdout", "text": ["b\n"]},
    ]
    interleaved = [*two[:1], {"output_type": "stream", "name": "stderr", "text": "w\n"}, two[1]]
    assert notebook_with(one) == notebook_with(two)
    assert notebooks.comparable_text(notebook_with(one)) == notebooks.comparable_text(
        notebook_with(two)
    )
    # different streams stay apart, in order
    assert notebooks.comparable_text(notebook_with(interleaved)).count("[stdout]") == 2


def test_kernel_runs_with_the_cpu_code_paths_pinned() -> None:
    """Training amplifies last-bit differences: the kernel must use the same code paths on
    every machine, or the stored notebook only matches on CPUs like the last one that ran it."""
    assert CPU_PINNING_ENV == {
        "ATEN_CPU_CAPABILITY": "avx2",
        "MKL_CBWR": "COMPATIBLE",
        "ONEDNN_MAX_CPU_ISA": "AVX2",
        "OPENBLAS_CORETYPE": "Haswell",
        "NPY_DISABLE_CPU_FEATURES": "X86_V4 AVX512_ICL AVX512_SPR",
    }
    assert CPU_PINNING_ENV.items() <= notebooks.KERNEL_ENV.items()


# A QR factor from NumPy's LAPACK (the projector of Chapter 22 is built from them) and a norm.
OPENBLAS_PROBE = """
import hashlib, numpy as np
rng = np.random.default_rng(0)
q, _ = np.linalg.qr(rng.standard_normal((300, 40)), mode="reduced")
print(hashlib.sha256(q.tobytes() + np.linalg.norm(rng.standard_normal(10_000)).tobytes())
      .hexdigest())
"""


@pytest.mark.skipif(bool(cpu_paths.pinned_paths_unavailable()), reason="no x86-64 AVX2 CPU")
def test_numpy_s_openblas_takes_the_pinned_kernels() -> None:
    """NumPy's OpenBLAS picks its kernels by the CPU at load (an AVX-512 Intel machine takes
    others than an AVX2 AMD one, and their QR factors differ in the last bits). Under the run
    environment it takes the AVX2 ("Haswell") kernels, and computes what they compute, which
    differs from what another core type's kernels compute (so the probe can tell)."""
    import subprocess
    import sys

    def run(extra: dict[str, str]) -> subprocess.CompletedProcess:
        env = {**os.environ, **CPU_PINNING_ENV, **extra, "OPENBLAS_VERBOSE": "2"}
        return subprocess.run([sys.executable, "-c", OPENBLAS_PROBE], env=env,
                              capture_output=True, text=True, check=True)

    pinned = run({})
    assert "Core: Haswell" in pinned.stderr, pinned.stderr
    other = run({"OPENBLAS_CORETYPE": "Sandybridge"})
    assert "Core: Sandybridge" in other.stderr and other.stdout != pinned.stdout


CONTAINED = """\
# %%
import os, pathlib
print("pid namespace of its own:", os.getpid() < 100)
try:
    pathlib.Path("written.txt").write_text("a notebook's write into the tree")
    print("wrote into the tree")
except OSError as error:
    print("refused:", error.strerror)
"""


@pytest.mark.skipif(not notebooks.sandbox_status(), reason="no kernel sandbox on this machine")
def test_a_notebook_runs_in_the_sandbox_kernel_included(tmp_path: Path) -> None:
    """Where chapter scripts run in bubblewrap, the notebook's kernel does too: the tree is
    read-only to it, and it sees its own PID namespace."""
    (tmp_path / "notebooks").mkdir()
    source = tmp_path / "notebooks" / "contained.py"
    source.write_text(CONTAINED, encoding="utf-8")
    executed = nbformat.reads(notebooks.execute_notebook(source, Layout(tmp_path)).decode(),
                              as_version=4)
    text = "".join(output.get("text", "") for cell in executed.cells
                   for output in cell.get("outputs", []))
    assert "refused: Read-only file system" in text, text
    assert "pid namespace of its own: True" in text, text
    assert not (tmp_path / "written.txt").exists()
