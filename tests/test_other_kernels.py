"""Products made on other kernels (another CPU vendor's vector math): `check` compares them within
a stated tolerance where the script's inputs are unchanged, byte for byte everywhere else
(explainer_tools/scripts/numerics.py, pipeline.other_kernels).

The fixture's script stands in for a training script: it prints what the machine's kernels make
of it, read from `$EXPLAINER_KERNELS` (which the pipeline sets), as training amplifies last bits
into last digits. Which machine this is is set by replacing `numerics.this_machine`."""

from __future__ import annotations

import contextlib
import io
import json
import shutil
import textwrap
from pathlib import Path

import nbformat
import pytest

from explainer_tools import __main__ as cli
from explainer_tools.layout import Layout
from explainer_tools.scripts import notebooks, numerics, pipeline
from explainer_tools.scripts.notebooks import NOTEBOOK_RUNNER_CODE
from explainer_tools.scripts.settings import RUNNER_CODE

REPO_ROOT = Path(__file__).resolve().parent.parent
MACHINE_A = numerics.Fingerprint("Intel X, GenuineIntel, AVX-512", "2.13.0+cpu", "2.4.6",
                                 {"torch AdamW": "aa", "torch matmul": "01"})
MACHINE_B = numerics.Fingerprint("AMD Y, AuthenticAMD, AVX2", "2.13.0+cpu", "2.4.6",
                                 {"torch AdamW": "bb", "torch matmul": "01"})

SCRIPT = textwrap.dedent(
    '''\
    """Fixture: a number whose last digits depend on the machine's kernels."""
    import json
    import os
    from pathlib import Path

    here = os.environ.get("EXPLAINER_KERNELS", "none")
    values = json.loads((Path(__file__).parent / "data" / "values.json").read_text())
    print("Fixture -- title line")
    print(f"[1] bound {values.get(here, values['default'])} bits per token, verdict tie")
    print("All assertions passed.")
    '''
)
PAGE = "# Page\n\n<!-- embed: output ch01_fixture.py [1] -->\n<!-- /embed -->\n"


def build(root: Path, values: dict[str, str]) -> Path:
    for name in dict.fromkeys(("requirements.lock", *RUNNER_CODE, *NOTEBOOK_RUNNER_CODE,
                               "explainer_tools/tags.py")):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(REPO_ROOT / name, root / name)
    files = {"explainer_code/ch01_fixture.py": SCRIPT, "docs/page.md": PAGE,
             "explainer_code/data/values.json": json.dumps(values),
             numerics.REFERENCE_PATH: MACHINE_A.to_json()}
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    (root / "docs" / "assets" / "fig").mkdir(parents=True)
    return root


def run(repo: Path, machine: numerics.Fingerprint, *args: str,
        monkeypatch: pytest.MonkeyPatch) -> tuple[int, str]:
    monkeypatch.setattr(numerics, "this_machine", lambda: machine)
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        code = cli.main(list(args), layout=Layout(repo))
    return code, out.getvalue()


def made_on_a(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, here_b: str) -> Path:
    """A repository regenerated on machine A (bound 4.541); on B the script prints `here_b`."""
    ids = {m.kernels["id"]: m for m in (MACHINE_A, MACHINE_B)}
    a, b = (m.kernels["id"] for m in (MACHINE_A, MACHINE_B))
    assert len(ids) == 2
    repo = build(tmp_path / "repo", {"default": "9.999", a: "4.541", b: here_b})
    code, out = run(repo, MACHINE_A, "regenerate", "--skip-notebooks", monkeypatch=monkeypatch)
    assert code == 0, out
    return repo


def test_the_stamp_records_the_kernels_and_the_script_sees_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = made_on_a(tmp_path, monkeypatch, "4.566")
    stamp = json.loads((repo / "outputs/.stamps/ch01_fixture.json").read_text())
    assert stamp["kernels"] == MACHINE_A.kernels
    assert "[1] bound 4.541 bits per token" in (repo / "outputs/ch01_fixture.txt").read_text()
    code, out = run(repo, MACHINE_A, "check", "--skip-notebooks", monkeypatch=monkeypatch)
    assert code == 0, out
    assert "tolerance" not in out


def test_other_kernels_within_the_tolerance_pass_and_say_so(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = made_on_a(tmp_path, monkeypatch, "4.566")
    before = {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()}
    code, out = run(repo, MACHINE_B, "check", "--skip-notebooks", monkeypatch=monkeypatch)
    assert code == 0, out
    assert ("check: ch01_fixture.py: its committed products were made on Intel X, GenuineIntel, "
            "AVX-512") in out
    assert "every number agrees within the tolerance for other kernels (1 %" in out
    assert {p: p.read_bytes() for p in repo.rglob("*") if p.is_file()} == before


@pytest.mark.parametrize("here_b, message", [
    ("4.741", "line 2: 4.541 committed, 4.741 here, beyond the tolerance"),
    ("4.566, verdict lower", "line 2: words differ"),
])
def test_other_kernels_beyond_the_tolerance_fail_naming_the_line(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, here_b: str, message: str) -> None:
    repo = made_on_a(tmp_path, monkeypatch, here_b)
    code, out = run(repo, MACHINE_B, "check", "--skip-notebooks", monkeypatch=monkeypatch)
    assert code == 1
    assert "differ beyond the tolerance for other kernels: " + message in out
    assert "made on other kernels, beyond the tolerance here: ch01_fixture.py" in out
    assert "depends on something the tracer cannot see" not in out


def test_a_changed_input_is_compared_byte_for_byte_on_any_kernels(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The tolerance is for the machine alone: once the script's inputs change, its stamp is
    stale and a difference of one digit fails the check."""
    repo = made_on_a(tmp_path, monkeypatch, "4.566")
    script = repo / "explainer_code/ch01_fixture.py"
    script.write_text(script.read_text() + "# an edit\n")
    code, out = run(repo, MACHINE_B, "check", "--skip-notebooks", monkeypatch=monkeypatch)
    assert code == 1
    assert "-[1] bound 4.541 bits per token" in out and "+[1] bound 4.566 bits per token" in out


def test_a_stamp_without_kernels_was_made_on_the_reference_machine(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = made_on_a(tmp_path, monkeypatch, "4.566")
    path = repo / "outputs/.stamps/ch01_fixture.json"
    stamp = json.loads(path.read_text())
    del stamp["kernels"]
    path.write_text(json.dumps(stamp, indent=1) + "\n")
    assert pipeline.other_kernels(["ch01_fixture.py"], Layout(repo)) == {}  # A is the reference
    monkeypatch.setattr(numerics, "this_machine", lambda: MACHINE_B)
    assert pipeline.other_kernels(["ch01_fixture.py"], Layout(repo)) == {
        "ch01_fixture.py": MACHINE_A.kernels}


def test_figures_within_the_pixel_share_agree() -> None:
    import numpy as np
    from PIL import Image

    def png(array: np.ndarray) -> bytes:
        buffer = io.BytesIO()
        Image.fromarray(array).save(buffer, format="PNG")
        return buffer.getvalue()

    base = np.zeros((100, 100, 3), dtype=np.uint8)
    few, many = base.copy(), base.copy()
    few[0, :50] = 255  # 0.5 % of the pixels
    many[:5, :] = 255  # 5 %
    assert numerics.figure_mismatch(png(base), png(few)) == ""
    assert numerics.figure_mismatch(png(base), png(many)) == (
        "500 of 10,000 pixels differ (5.00 %), within x 0-99, y 0-4 (at most 1 % may differ)")
    assert numerics.figure_mismatch(png(base), png(base[:50])).startswith("size 100x100")


# ---- a change to the runner alone -------------------------------------------------------------


def change_the_runner(repo: Path) -> None:
    """What a branch that changes how scripts run, not what they compute, does to the fixture:
    a runner module edited (every stamp hashes it) and one added (no stamp lists it yet)."""
    module = repo / "explainer_tools" / "scripts" / "settings.py"
    module.write_text(module.read_text() + "# how scripts run changed\n")
    path = repo / "outputs/.stamps/ch01_fixture.json"
    stamp = json.loads(path.read_text())
    del stamp["inputs"]["explainer_tools/scripts/zygote.py"]
    path.write_text(json.dumps(stamp, indent=1) + "\n")


def test_a_runner_change_alone_keeps_products_made_on_other_kernels_within_the_tolerance(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every stamp is stale after a change to the runner; on other kernels the script still
    counts as unchanged: `check` compares its products within the tolerance and finds only the
    stamp out of date, and `regenerate` keeps the committed products and kernels and gives the
    stamp the new hashes, after which `check` passes."""
    repo = made_on_a(tmp_path, monkeypatch, "4.566")
    committed = {name: (repo / name).read_bytes() for name in ("outputs/ch01_fixture.txt",
                                                               "docs/page.md")}
    change_the_runner(repo)
    layout = Layout(repo)
    assert not pipeline.is_fresh("ch01_fixture.py", layout)
    assert pipeline.is_fresh("ch01_fixture.py", layout, ignoring=RUNNER_CODE)
    code, out = run(repo, MACHINE_B, "check", "--skip-notebooks", monkeypatch=monkeypatch)
    assert code == 1
    assert "check: ch01_fixture.py: its committed products were made on Intel X" in out
    assert "every number agrees within the tolerance for other kernels" in out
    assert "4.566" not in out  # the products are not the difference: the stamp is
    assert "+  \"explainer_tools/scripts/zygote.py\"" in out and "check: 1 difference(s)" in out

    code, out = run(repo, MACHINE_B, "regenerate", "--skip-notebooks", monkeypatch=monkeypatch)
    assert code == 0, out
    assert "regenerate: ch01_fixture.py: its committed products were made on Intel X" in out
    assert {name: (repo / name).read_bytes() for name in committed} == committed
    stamp = json.loads((repo / "outputs/.stamps/ch01_fixture.json").read_text())
    assert stamp["kernels"] == MACHINE_A.kernels
    assert "explainer_tools/scripts/zygote.py" in stamp["inputs"]
    assert pipeline.is_fresh("ch01_fixture.py", layout)
    code, out = run(repo, MACHINE_B, "check", "--skip-notebooks", monkeypatch=monkeypatch)
    assert code == 0, out


def test_a_runner_change_beyond_the_tolerance_fails_check_and_regenerate_writes_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = made_on_a(tmp_path, monkeypatch, "4.741")
    change_the_runner(repo)
    code, out = run(repo, MACHINE_B, "check", "--skip-notebooks", monkeypatch=monkeypatch)
    assert code == 1
    assert "made on other kernels, beyond the tolerance here: ch01_fixture.py" in out
    assert "-[1] bound 4.541 bits per token" in out and "+[1] bound 4.741 bits per token" in out
    code, out = run(repo, MACHINE_B, "regenerate", "--skip-notebooks", monkeypatch=monkeypatch)
    assert code == 0, out
    assert "[1] bound 4.741 bits per token" in (repo / "outputs/ch01_fixture.txt").read_text()
    stamp = json.loads((repo / "outputs/.stamps/ch01_fixture.json").read_text())
    assert stamp["kernels"] == MACHINE_B.kernels


def test_a_script_change_beside_a_runner_change_writes_the_new_products(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The runner's code is all that may differ: an edited script is regenerated byte for byte
    where it runs, and its stamp names this machine."""
    repo = made_on_a(tmp_path, monkeypatch, "4.566")
    change_the_runner(repo)
    script = repo / "explainer_code/ch01_fixture.py"
    script.write_text(script.read_text() + "# an edit\n")
    code, out = run(repo, MACHINE_B, "regenerate", "--skip-notebooks", monkeypatch=monkeypatch)
    assert code == 0, out
    assert "tolerance" not in out
    assert "[1] bound 4.566 bits per token" in (repo / "outputs/ch01_fixture.txt").read_text()
    stamp = json.loads((repo / "outputs/.stamps/ch01_fixture.json").read_text())
    assert stamp["kernels"] == MACHINE_B.kernels


def executed_here(source: Path, layout: Layout) -> bytes:
    """Stands in for an execution of the notebook `source`: its training prints what this
    machine's kernels make of it."""
    loss = {MACHINE_A.kernels["id"]: "4.541", MACHINE_B.kernels["id"]: "4.566"}[
        numerics.this_machine().kernels["id"]]
    cell = nbformat.v4.new_code_cell(source.read_text(), outputs=[
        nbformat.v4.new_output("stream", name="stdout", text=f"loss {loss}\n")])
    return nbformat.writes(nbformat.v4.new_notebook(cells=[cell])).encode()


def test_a_runner_change_alone_keeps_a_notebook_made_on_other_kernels(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The notebook's stamp hashes the code that runs it (what it lists from explainer_tools/):
    after a change to that alone, `regenerate` on other kernels executes it, keeps the committed
    notebook and restamps it with its kernels; an edited notebook is written as executed here."""
    monkeypatch.setattr(notebooks, "execute_notebook", executed_here)
    repo = build(tmp_path / "repo", {"default": "4.541"})
    source = repo / "notebooks" / "tiny_book.py"
    source.parent.mkdir()
    source.write_text("# %%\nprint(loss)\n")
    target = repo / "docs" / "notebooks" / "tiny-book.ipynb"
    stamp_path = repo / "outputs/.stamps/notebook-tiny-book.json"
    code, out = run(repo, MACHINE_A, "regenerate", monkeypatch=monkeypatch)
    assert code == 0, out
    committed = target.read_bytes()
    assert b"loss 4.541" in committed
    change_the_runner(repo)
    layout = Layout(repo)
    assert not pipeline.notebook_is_fresh(source, target, layout)
    code, out = run(repo, MACHINE_B, "check", monkeypatch=monkeypatch)
    assert code == 1
    assert "tiny-book.ipynb: executed, claims checked, outputs NOT compared" in out
    assert "4.566" not in out and "notebook-tiny-book.json (regenerated)" in out

    code, out = run(repo, MACHINE_B, "regenerate", monkeypatch=monkeypatch)
    assert code == 0, out
    assert "made on other kernels, it is kept and restamped" in out
    assert target.read_bytes() == committed
    assert json.loads(stamp_path.read_text())["kernels"] == MACHINE_A.kernels
    assert pipeline.notebook_is_fresh(source, target, layout)
    code, out = run(repo, MACHINE_B, "check", monkeypatch=monkeypatch)
    assert code == 0, out

    source.write_text("# %%\nprint(loss)  # an edit\n")
    code, out = run(repo, MACHINE_B, "regenerate", monkeypatch=monkeypatch)
    assert code == 0, out
    assert b"loss 4.566" in target.read_bytes()
    assert json.loads(stamp_path.read_text())["kernels"] == MACHINE_B.kernels
