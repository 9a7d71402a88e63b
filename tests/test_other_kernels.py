"""Products made on other kernels (another CPU vendor's vector math): `check` compares them within
a stated tolerance where the script's inputs are unchanged, byte for byte everywhere else
(explainer_tools/numerics.py, pipeline.other_kernels).

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

import pytest

from explainer_tools import __main__ as cli
from explainer_tools import numerics, pipeline
from explainer_tools.layout import RUNNER_CODE, Layout

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
    for name in ("requirements.lock", *RUNNER_CODE):
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
