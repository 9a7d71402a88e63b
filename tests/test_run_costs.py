"""The order in which the pipeline starts scripts (run_costs.py: the longest first, by the record
`make costs` writes), and the notebook re-executed beside the scripts in check."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from explainer_tools.layout import DEFAULT, Layout
from explainer_tools.scripts import bench, pipeline, run_costs, runner
from explainer_tools.scripts.process_tree import descendants
from explainer_tools.tree_io import CommandError


def test_unrecorded_scripts_start_first_then_the_longest() -> None:
    scripts = ["ch01_a.py", "ch02_b.py", "ch03_c.py", "ch04_d.py", "ch05_e.py"]
    seconds = {"ch01_a.py": 5, "ch02_b.py": 190, "ch04_d.py": 5, "ch06_gone.py": 999}
    assert run_costs.start_order(scripts, seconds) == [
        "ch03_c.py", "ch05_e.py",  # no record: may be long; by name
        "ch02_b.py", "ch01_a.py", "ch04_d.py"]  # by falling cost, ties by name
    assert run_costs.start_order(scripts, {}) == scripts


@pytest.mark.parametrize(("text", "message"), [
    ('{\n "ch01_a.py": 3,\n "ch02_b.py" 4\n}\n', "outputs/run_seconds.json:3: not JSON"),
    ('["ch01_a.py"]', "expected an object of script name -> seconds"),
    ('{"ch01_a.py": 2.5, "ch02_b.py": -1, "ch03_c.py": true, "ch04_d.py": 7}',
     "ch01_a.py, ch02_b.py, ch03_c.py: the seconds must be whole numbers >= 0"),
])
def test_a_malformed_record_is_an_error_naming_the_file(text: str, message: str) -> None:
    with pytest.raises(CommandError, match="make costs") as caught:
        run_costs.parse_costs(text, "outputs/run_seconds.json")
    assert message in str(caught.value)


def test_the_record_round_trips_in_whole_seconds() -> None:
    text = run_costs.render_costs({"ch02_b.py": 129.6, "ch01_a.py": 0.4})
    assert text == '{\n "ch01_a.py": 0,\n "ch02_b.py": 130\n}\n'
    assert run_costs.parse_costs(text, "x") == {"ch01_a.py": 0, "ch02_b.py": 130}


def test_the_committed_record_parses_and_covers_the_longest_scripts() -> None:
    """The committed record is read by every regenerate and check; its longest entries are the
    scripts of the miniature and Chapter 25, each over a minute."""
    seconds = run_costs.read_costs(DEFAULT)
    assert seconds, "outputs/run_seconds.json is missing: run `make costs`"
    first = run_costs.start_order(DEFAULT.discover_scripts(), seconds)[:3]
    assert all(seconds.get(script, 0) > 60 for script in first), first


SCRIPT = "print('{name}')\n"


def fixture_layout(root: Path, names: list[str], seconds: dict[str, int] | None) -> Layout:
    (root / "explainer_code").mkdir(parents=True)
    for name in names:
        (root / "explainer_code" / name).write_text(SCRIPT.format(name=name))
    if seconds is not None:
        (root / "outputs").mkdir()
        (root / "outputs" / "run_seconds.json").write_text(run_costs.render_costs(seconds))
    return Layout(root)


def test_run_scripts_hands_the_runner_the_longest_first(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    names = ["ch01_short.py", "ch02_long.py", "ch03_new.py"]
    layout = fixture_layout(tmp_path / "repo", names, {"ch01_short.py": 1, "ch02_long.py": 90})
    started: list[str] = []
    real = runner.run_scripts

    def recording(requests: list[runner.Request], jobs: int, warm: bool | None = None,
                  sandbox: bool | None = None):
        started.extend(Path(r.script).name for r in requests)
        return real(requests, jobs, warm=False, sandbox=sandbox)

    monkeypatch.setattr(runner, "run_scripts", recording)
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    runs = pipeline.run_scripts(names, scratch, 1, layout)
    assert started == ["ch03_new.py", "ch02_long.py", "ch01_short.py"]
    assert list(runs) == names  # results in name order, whatever the order they ran in
    assert [runs[n].output for n in names] == [f"{n}\n" for n in names]


def test_record_costs_writes_each_scripts_seconds_over_a_malformed_record(
        tmp_path: Path) -> None:
    names = ["ch01_a.py", "ch02_b.py"]
    layout = fixture_layout(tmp_path / "repo", names, None)
    (tmp_path / "repo" / "outputs").mkdir()
    (tmp_path / "repo" / "outputs" / "run_seconds.json").write_text('{"ch01_a.py": "long"}')
    with pytest.raises(CommandError, match="delete it or run `make costs`"):
        run_costs.read_costs(layout)
    assert bench.record_costs(1, layout) == 0
    recorded = json.loads((tmp_path / "repo" / "outputs" / "run_seconds.json").read_text())
    assert sorted(recorded) == names
    assert all(isinstance(value, int) and 0 <= value < 60 for value in recorded.values())


def test_check_runs_the_notebooks_beside_the_scripts(monkeypatch: pytest.MonkeyPatch,
                                                     tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """The scripts' part waits for the notebooks' part to have started: run one after the
    other, it would wait in vain and the check would fail."""
    notebook_started = threading.Event()

    def notebooks(layout: Layout) -> list[pipeline.Difference]:
        notebook_started.set()
        return [pipeline.Difference("docs/notebooks/x.ipynb: differs\n", "regenerate")]

    def scripts(scripts: list[str], jobs: int, layout: Layout):
        assert notebook_started.wait(timeout=10), "the notebooks did not start beside the scripts"
        return [pipeline.Difference("--- outputs/ch01_a.txt\n", "regenerate")], 2

    monkeypatch.setattr(pipeline, "notebook_differences", notebooks)
    monkeypatch.setattr(pipeline, "script_differences", scripts)
    layout = fixture_layout(tmp_path / "repo", ["ch01_a.py"], None)
    assert pipeline.check(1, notebooks=True, layout=layout) == 1
    printed = capsys.readouterr().out
    assert printed.index("--- outputs/ch01_a.txt") < printed.index("x.ipynb: differs")
    notebook_started.clear()
    monkeypatch.setattr(pipeline, "script_differences", lambda *args: ([], 2))
    assert pipeline.check(1, notebooks=False, layout=layout) == 0
    assert not notebook_started.is_set()  # --skip-notebooks: not run at all


SLOW_NOTEBOOK = "# %%\nimport time\ntime.sleep(300)\n"


@pytest.mark.timeout(120)  # waiting for the notebook instead would take 300 s
def test_a_check_that_fails_ends_the_notebook_beside_it(monkeypatch: pytest.MonkeyPatch,
                                                        tmp_path: Path) -> None:
    from explainer_tools.scripts import notebooks

    layout = fixture_layout(tmp_path / "repo", ["ch01_a.py"], None)
    (layout.root / "notebooks").mkdir()
    (layout.root / "notebooks" / "slow_book.py").write_text(SLOW_NOTEBOOK)
    (layout.root / "docs" / "notebooks").mkdir(parents=True)
    (layout.root / "docs" / "notebooks" / "slow-book.ipynb").write_text("{}")
    started: list[int] = []

    def scripts(scripts: list[str], jobs: int, layout: Layout):
        for _ in range(600):  # until the notebook's child has started its kernel
            children = [pid for proc in list(notebooks.RUNNING) for pid in descendants(proc.pid)]
            if children:
                started.extend([*(proc.pid for proc in notebooks.RUNNING), *children])
                break
            threading.Event().wait(0.1)
        raise CommandError("regenerate: a script failed")

    monkeypatch.setattr(pipeline, "script_differences", scripts)
    with pytest.raises(CommandError, match="a script failed"):
        pipeline.check(1, notebooks=True, layout=layout)
    assert started, "the notebook never started"
    assert not notebooks.RUNNING
    left = [pid for pid in started if Path(f"/proc/{pid}").exists()
            and Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] not in "ZX"]
    assert left == []  # the child and its kernel ended
