"""The companion notebook as a reader meets it: the frozen corpus, the author-facing
claim checks that the pipeline runs, the CPU rule of `make check`, what a reader meets when
running the notebook (`make notebook`, outside the repository), the download link."""

from __future__ import annotations

import json
import re
from pathlib import Path
from types import SimpleNamespace

import jupytext
import nbformat
import pytest
import torch
from gpt_lab import checks, corpus
from gpt_lab.model import GPT, GPTConfig

from explainer_tools.layout import DEFAULT, Layout
from explainer_tools.scripts import cpu_paths, notebooks, pipeline

REPO = Path(__file__).resolve().parent.parent
SOURCE = REPO / "notebooks" / "gpt2_under_the_hood.py"
COMMITTED = REPO / "docs" / "notebooks" / "gpt2-under-the-hood.ipynb"


# ---- the frozen corpus ------------------------------------------------------------------------

PAGE = """---
id: E9
title: A title
problem: >-
  [MY ANALYSIS] The front matter holds prose too, and this sentence is long enough.
status: confirmed
---
# Heading

[MY EXPLANATION] Prose stays.
<!-- embed: output ch05_x.py [1] -->
```text
[1] 124,439,808
```
<!-- /embed -->



[PAPER App. E, p. 16] More prose <!-- a comment -->here.
"""


def test_clean_page_keeps_prose_and_drops_annotations_and_embedded_outputs() -> None:
    text = corpus.clean_page(PAGE)
    assert text == (
        "A title\n\nThe front matter holds prose too, and this sentence is long enough.\n\n"
        "# Heading\n\nProse stays.\n\nMore prose here."
    )
    for gone in ("E9", "confirmed", "124,439,808", "embed", "[MY", "[PAPER", "comment", "---"):
        assert gone not in text


def test_front_matter_prose_takes_the_title_and_long_strings_in_order() -> None:
    meta = {"id": "C1", "title": "T", "paper_says": "one two three four five six seven eight",
            "evidence": [{"shows": "a b c d e f g h i"}, {"block": 4}], "status": "open"}
    assert corpus.front_matter_prose(meta) == [
        "T", "one two three four five six seven eight", "a b c d e f g h i"]


def test_build_snapshot_records_provenance_and_skips_fixtures(tmp_path: Path) -> None:
    (tmp_path / "chapters").mkdir()
    (tmp_path / "fixtures").mkdir()
    (tmp_path / "index.md").write_text("Home page.\n", encoding="utf-8")
    (tmp_path / "chapters" / "01-a.md").write_text(PAGE, encoding="utf-8")
    (tmp_path / "fixtures" / "x.md").write_text("not a page\n", encoding="utf-8")
    snap = corpus.build_snapshot(tmp_path)
    assert [d["page"] for d in snap["documents"]] == ["chapters/01-a.md", "index.md"]
    assert snap["documents"][1]["text"] == "Home page."
    prov = snap["provenance"]
    assert set(prov["page_sha256"]) == {"chapters/01-a.md", "index.md"}
    assert re.fullmatch(r"[0-9a-f]{40}|unknown", prov["commit"])
    assert "make corpus" in prov["rebuild"] and prov["cleaning"] == list(corpus.CLEANING_RULES)


def test_committed_snapshot_is_what_the_notebook_reads() -> None:
    snap = json.loads(corpus.SNAPSHOT_PATH.read_text(encoding="utf-8"))
    assert re.fullmatch(r"[0-9a-f]{40}", snap["provenance"]["commit"])
    docs = corpus.load_documents()
    assert len(docs) == len(snap["documents"]) == len(snap["provenance"]["page_sha256"]) >= 5
    assert all(d.strip() and "[MY EXPLANATION]" not in d and "<!--" not in d for d in docs)
    assert sum(map(len, docs)) > 50_000  # enough text for the overfitting demonstration


def test_the_notebook_never_reads_the_live_pages() -> None:
    """A prose edit must not change the notebook: its text comes from the snapshot only."""
    source = SOURCE.read_text(encoding="utf-8")
    assert "corpus.load_documents()" in source
    for live in ("markdown_files", "docs/**", '"docs"', "rglob"):
        assert live not in source


# ---- GPT.forward(last_only=True) ---------------------------------------------------------------


@torch.no_grad()
def test_last_only_gives_the_last_row_of_the_full_logits() -> None:
    torch.manual_seed(0)
    net = GPT(GPTConfig(block_size=16, vocab_size=30, n_layer=2, n_head=2, n_embd=8)).eval()
    ids = torch.tensor([[1, 2, 3, 4, 5, 6]])
    full = net(ids).logits
    last = net(ids, last_only=True).logits
    assert last.shape == (1, 1, 30)
    torch.testing.assert_close(last, full[:, -1:], rtol=1e-6, atol=1e-6)


# ---- the notebook's claims (gpt_lab.checks) -------------------------------------------------


def passing_namespace() -> dict:
    """A namespace in which every claim of the notebook holds (shaped like the real one)."""
    small = object()
    history = [
        {"step": 0, "train": 7.6, "validation": 7.6},
        {"step": 50, "train": 5.4, "validation": 5.5},
        {"step": 100, "train": 4.0, "validation": 4.3},
        {"step": 150, "train": 3.0, "validation": 4.5},
        {"step": 200, "train": 2.0, "validation": 4.7},
    ]
    gaps = {1.0: 0.3, 0.1: 0.9, 0.01: 1.6}
    return {
        "facts": {"'Hello world'": [15496, 995], "n_vocab": 50257, "<|endoftext|>": [50256]},
        "pieces": {"strawberry": ["st", "raw", "berry"], " strawberry": [" strawberry"],
                   "12345678": ["123", "45", "678"], " 12345678": [" 123", "45", "678"]},
        "bpe_agrees": True,
        "bigram_loss": lambda counts, alpha, ids: 4.0 + (gaps[alpha] if ids == "val" else 0.0),
        "counts": None, "train_ids": "train", "val_ids": "val",
        "history": history, "best": history[2], "bigram_val": 4.5,
        "train_curve": [r["train"] for r in history],
        "val_curve": [r["validation"] for r in history],
        "final_val": 4.7, "gap": 2.8,
        "first_copy_loss": 4.8, "second_copy_loss": 0.3,
        "prev_score": torch.tensor([[0.6, 0.1], [0.05, 0.04]]),
        "induction_score": torch.tensor([[0.03, 0.04], [0.8, 0.7]]),
        "toy_log": [{"step": 0, "second copy": 4.5}, {"step": 100, "second copy": 4.1},
                    {"step": 700, "second copy": 0.3}],
        "lm": SimpleNamespace(net=small), "small": small, "echo": 1.0,
        "kv_tokens_match": True, "kv_bytes_per_token": 73_728,
        "positions_cached": 207, "positions_uncached": 21_500, "unembed_share": 0.31,
        "small_count_agrees": True, "gpt2_count_ties": True, "edit_count_agrees": True,
        "chapter5_small": 123_689_472,
        "entropy_by_tau": {0.1: 0.2, 0.5: 2.0, 1.0: 5.0, 4.0: 10.0}, "entropy_rises": True,
        "max_entropy": 11.0,
        "mask_rows": {"with the mask": {"all": 4.4, "last": 4.0, "moved": 0.0},
                      "without the mask": {"all": 4.0, "last": 4.3, "moved": 0.5}},
        "order_rows": {"positions and mask": 0.5, "mask only": 0.3,
                       "neither (untrained)": 1e-7},
        "no_positions_loss": 4.3, "V": 2032,
    }


def test_every_claim_holds_in_the_passing_namespace() -> None:
    assert checks.notebook_claim_failures(passing_namespace()) == []
    checks.assert_notebook_claims(passing_namespace())


@pytest.mark.parametrize(
    ("claim", "edit"),
    [
        ("strawberry", lambda ns: ns["pieces"].__setitem__(" strawberry", [" straw", "berry"])),
        ("bpe", lambda ns: ns.__setitem__("bpe_agrees", False)),
        ("beats bigram", lambda ns: ns.__setitem__("bigram_val", 4.0)),
        # a final loss back at the best is also no longer above the bigram's: two claims break
        ("final model+turns up", lambda ns: ns.__setitem__("final_val", ns["best"]["validation"])),
        ("final model", lambda ns: ns.__setitem__("final_val", ns["bigram_val"])),
        ("gap", lambda ns: ns.__setitem__("gap", 0.2)),
        ("copying", lambda ns: ns.__setitem__("second_copy_loss", 2.0)),
        ("heads", lambda ns: ns.__setitem__("induction_score", torch.zeros(2, 2))),
        ("phase change", lambda ns: ns["toy_log"][1].__setitem__("second copy", 1.0)),
        ("logit lens", lambda ns: ns.__setitem__("echo", 0.2)),
        ("kv cache", lambda ns: ns.__setitem__("kv_tokens_match", False)),
        ("architecture", lambda ns: ns.__setitem__("gpt2_count_ties", False)),
        ("temperature", lambda ns: ns["entropy_by_tau"].__setitem__(4.0, 12.0)),
        ("mask", lambda ns: ns["mask_rows"]["with the mask"].__setitem__("moved", 1e-9)),
        ("mask", lambda ns: ns["mask_rows"]["without the mask"].__setitem__("last", 4.1)),
        ("mask", lambda ns: ns["mask_rows"]["with the mask"].__setitem__("last", 4.5)),
        ("order", lambda ns: ns["order_rows"].__setitem__("neither (untrained)", 0.01)),
        ("order", lambda ns: ns["order_rows"].__setitem__("mask only", 0.0)),
        ("no positions", lambda ns: ns.__setitem__("no_positions_loss", 7.0)),
        ("no positions", lambda ns: ns.__setitem__("no_positions_loss", 4.8)),
    ],
)
def test_a_broken_claim_is_reported_by_name(claim: str, edit) -> None:
    ns = passing_namespace()
    edit(ns)
    failures = checks.notebook_claim_failures(ns)
    assert [f.split(":")[0] for f in failures] == claim.split("+")
    with pytest.raises(checks.NotebookClaimsError, match=claim.split("+")[0]):
        checks.assert_notebook_claims(ns)


def test_a_renamed_variable_fails_instead_of_passing() -> None:
    ns = passing_namespace()
    del ns["kv_tokens_match"]
    (failure,) = checks.notebook_claim_failures(ns)
    assert failure.startswith("kv cache:") and "could not be checked" in failure


def test_logit_lens_claim_is_only_about_the_small_model() -> None:
    ns = passing_namespace()
    ns["lm"] = SimpleNamespace(net=object())  # GPT-2 weights were found
    ns["echo"] = 0.0
    assert checks.notebook_claim_failures(ns) == []


def test_pipeline_appends_exactly_the_documented_check_cell() -> None:
    assert notebooks.NOTEBOOK_CLAIMS_CELL == checks.CHECK_CELL


def test_no_assert_left_in_the_notebook() -> None:
    """Students who change a cell must not be stopped by author-facing asserts."""
    source = SOURCE.read_text(encoding="utf-8")
    assert not re.search(r"^\s*assert\b", source, re.M)


# ---- what make check compares, on which CPUs ---------------------------------------------------


@pytest.mark.parametrize(
    ("machine", "flags", "reason"),
    [
        ("x86_64", {"sse2", "avx", "avx2", "avx512f"}, ""),
        ("x86_64", {"sse2", "avx2"}, ""),
        ("AMD64", None, ""),  # Windows: flags unknown, every recent x86-64 CPU has AVX2
        ("x86_64", {"sse2", "avx"}, "this x86-64 CPU has no AVX2"),
        ("arm64", None, "this machine is arm64, not x86-64"),
        ("aarch64", {"fp", "asimd"}, "this machine is aarch64, not x86-64"),
    ],
)
def test_which_cpus_take_the_pinned_paths(machine, flags, reason) -> None:
    assert cpu_paths.pinned_paths_unavailable(machine, flags) == reason


def test_cpu_flags_are_read_from_cpuinfo(tmp_path: Path) -> None:
    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nflags\t\t: fpu sse2 avx2 fma\n\nprocessor\t: 1\n")
    assert cpu_paths.cpu_flags(info) == {"fpu", "sse2", "avx2", "fma"}
    assert cpu_paths.cpu_flags(tmp_path / "missing") is None


def _stub_notebook_run(monkeypatch, tmp_path: Path, fresh: bytes, committed: bytes) -> Path:
    source, target = tmp_path / "nb.py", tmp_path / "nb.ipynb"
    source.write_text("# %%\n", encoding="utf-8")
    target.write_bytes(committed)
    monkeypatch.setattr(Layout, "notebook_targets", lambda self: {source: target})
    monkeypatch.setattr(notebooks, "execute_notebook", lambda path, layout: fresh)
    return target


def _edited(data: bytes) -> bytes:
    nb = nbformat.reads(data.decode(), as_version=4)
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            if output.get("output_type") == "stream" and "50257" in output["text"]:
                output["text"] = output["text"].replace("50257", "50258")
                return nbformat.writes(nb).encode()
    raise AssertionError("no output mentions 50257")


def test_arm_laptop_gets_one_message_instead_of_a_wall_of_diffs(
    monkeypatch, tmp_path: Path, capsys
) -> None:
    committed = COMMITTED.read_bytes()
    _stub_notebook_run(monkeypatch, tmp_path, fresh=_edited(committed), committed=committed)
    monkeypatch.setattr(cpu_paths, "pinned_paths_unavailable", lambda: "this machine is arm64")
    assert pipeline.notebook_differences(DEFAULT) == []
    out = capsys.readouterr().out
    assert "executed, claims checked, outputs NOT compared: this machine is arm64" in out
    assert "50258" not in out and out.count("\n") < 10


def test_x86_machine_compares_and_reports_the_difference(monkeypatch, tmp_path: Path) -> None:
    committed = COMMITTED.read_bytes()
    _stub_notebook_run(monkeypatch, tmp_path, fresh=_edited(committed), committed=committed)
    monkeypatch.setattr(cpu_paths, "pinned_paths_unavailable", lambda: "")
    reports = pipeline.notebook_differences(DEFAULT)
    assert any("50258" in r.report and "differs from a fresh execution" in r.report
               for r in reports)


def test_a_failing_claim_fails_on_every_cpu(monkeypatch, tmp_path: Path) -> None:
    committed = COMMITTED.read_bytes()
    _stub_notebook_run(monkeypatch, tmp_path, fresh=committed, committed=committed)

    def failing(path, layout):
        raise notebooks.NotebookError("NotebookClaimsError: 1 claim(s) ... fail")

    monkeypatch.setattr(notebooks, "execute_notebook", failing)
    monkeypatch.setattr(cpu_paths, "pinned_paths_unavailable", lambda: "this machine is arm64")
    (difference,) = pipeline.notebook_differences(DEFAULT)
    assert "NotebookClaimsError" in difference.report


# ---- running the notebook as a reader ---------------------------------------------------------


def first_code_cell() -> str:
    nb = jupytext.read(SOURCE, fmt="py:percent")
    return next(c.source for c in nb.cells if c.cell_type == "code")


def test_outside_the_repository_the_first_cell_says_what_to_do(monkeypatch, tmp_path) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(FileNotFoundError) as error:
        exec(compile(first_code_cell(), "first cell", "exec"), {"__name__": "__main__"})
    message = str(error.value)
    assert "needs the repository" in message and "make notebook" in message
    assert str(tmp_path) in message


def test_inside_the_repository_the_first_cell_finds_it(monkeypatch) -> None:
    monkeypatch.chdir(REPO / "docs" / "notebooks")  # where a downloaded copy might sit
    namespace = {"__name__": "__main__"}
    grad, threads = torch.is_grad_enabled(), torch.get_num_threads()
    try:
        exec(compile(first_code_cell(), "first cell", "exec"), namespace)
    finally:  # the cell sets global torch state for the notebook; give it back
        torch.set_grad_enabled(grad)
        torch.set_num_threads(threads)
    assert namespace["ROOT"] == REPO


def test_make_notebook_opens_the_source_from_the_pinned_environment() -> None:
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    rule = makefile[makefile.index("\nnotebook:") :].split("\n\n")[0]
    assert "$(NOTEBOOK_INSTALLED)" in rule.splitlines()[1]
    assert "$(VENV)/bin/jupyter notebook" in rule
    opened = re.search(r"default_url=/notebooks/(\S+)", rule).group(1)
    assert (REPO / opened) == SOURCE
    lock = (REPO / "requirements.lock").read_text(encoding="utf-8").splitlines()
    notebook_lock = (REPO / "requirements-notebook.lock").read_text(encoding="utf-8").splitlines()
    assert "torch==2.13.0+cpu \\" in lock
    for package in ("jupytext", "ipykernel"):
        assert any(line.startswith(f"{package}==") for line in lock), package
    # Jupyter itself only in the notebook's lock, which `make notebook` installs on demand
    assert not any(line.startswith("notebook==") for line in lock)
    assert any(line.startswith("notebook==") for line in notebook_lock)


def test_page_offers_the_notebook_for_download(tmp_path: Path) -> None:
    # The site plugin's notebook feature copies the .ipynb beside the page (its download link).
    from types import SimpleNamespace

    from explainer_tools.website import notebook_page

    notebook = next((REPO / "docs" / "notebooks").glob("*.ipynb"))
    dest = tmp_path / "notebooks" / notebook.stem / "index.html"
    file = SimpleNamespace(src_uri=f"notebooks/{notebook.name}", abs_src_path=str(notebook),
                           abs_dest_path=str(dest))
    notebooks = notebook_page.Notebooks()
    assert notebooks.is_notebook(file)
    notebooks.copy_source(SimpleNamespace(file=file))
    assert (dest.parent / notebook.name).read_bytes() == notebook.read_bytes()
    intro = jupytext.read(SOURCE, fmt="py:percent").cells[0].source
    assert "(gpt2-under-the-hood.ipynb)" in intro and "make notebook" in intro



def test_a_notebook_page_not_cached_is_converted_meanwhile_in_a_process_of_its_own(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A fresh clone's build converts the notebook beside the rest of the book: the conversion
    started with the build's files fills the cache, and the page waits for it; the page is the
    one converted in the build's own process."""
    from explainer_tools.website import notebook_page

    monkeypatch.setattr(notebook_page, "CACHE_DIR", tmp_path / "cache")
    notebook = tmp_path / "tiny.ipynb"
    notebook.write_text(json.dumps({
        "nbformat": 4, "nbformat_minor": 5, "metadata": {},
        "cells": [{"cell_type": "markdown", "id": "a", "metadata": {}, "source": "# Tiny\n"},
                  {"cell_type": "code", "id": "b", "metadata": {}, "execution_count": None,
                   "outputs": [], "source": "print(1)"}]}), encoding="utf-8")
    files = [SimpleNamespace(src_uri="notebooks/tiny.ipynb", abs_src_path=str(notebook)),
             SimpleNamespace(src_uri="index.md", abs_src_path=str(tmp_path / "index.md"))]
    notebooks = notebook_page.Notebooks()
    notebooks.start_conversions(files)
    cache = notebook_page._cache_file(str(notebook))
    assert list(notebooks.pending) == [cache]
    page = notebooks.rendered(str(notebook))
    assert notebooks.pending == {} and cache.is_file()
    assert page == json.loads(json.dumps(notebook_page._convert(str(notebook))))
    assert page["title"] == "Tiny" and "print" in page["content"]
    notebooks.start_conversions(files)  # cached now: nothing to start
    assert notebooks.pending == {}
