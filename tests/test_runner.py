"""The script runner (explainer_tools/scripts/runner.py): warm fork parent and plain fallback
alike."""

from __future__ import annotations

import os
import textwrap
import time
from pathlib import Path

import pytest
from processes import marker, running_with

from explainer_tools.layout import DEFAULT
from explainer_tools.scripts import runner
from explainer_tools.scripts.settings import CPU_PINNING_ENV

SCRIPTS = {
    "probe_env.py": """
        import os, sys
        import torch
        print(os.environ["ATEN_CPU_CAPABILITY"], torch.backends.cpu.get_cpu_capability())
        print("threads", torch.get_num_threads())
        print("hashseed", os.environ.get("PYTHONHASHSEED"), hash("abc") == hash("abc"))
        print("cwd", os.getcwd() == os.environ["EXPECT_CWD"])
        print("path0", sys.path[0] == os.path.dirname(os.path.abspath(__file__)))
        import helper
        helper.COUNT += 1
        print("count", helper.COUNT)
    """,
    "probe_again.py": """
        import helper
        helper.COUNT += 1
        print("count", helper.COUNT)
    """,
    "probe_stdin.py": """
        try:
            input()
        except EOFError:
            print("stdin is empty")
    """,
    "probe_fail.py": """
        import sys
        print("partial")
        sys.exit(3)
    """,
}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("runner")
    for name, text in SCRIPTS.items():
        (root / name).write_text(textwrap.dedent(text))
    (root / "helper.py").write_text("COUNT = 0\n")
    return root


def requests(folder: Path, names: list[str], timeout: float = 120) -> list[runner.Request]:
    out = []
    for name in names:
        cwd = folder / f"cwd-{name}"
        cwd.mkdir(exist_ok=True)
        out.append(runner.Request(str(folder / name), str(cwd), Path(name).stem,
                                  {"EXPECT_CWD": str(cwd)}, timeout))
    return out


# warm: the fork parent; plain: a process per script; sandbox: a process per script in the
# kernel's sandbox (bwrap; the default where it works). Outside the sandbox, audit hooks alone.
MODES = {"warm": {"warm": True, "sandbox": False}, "plain": {"warm": False, "sandbox": False},
         "sandbox": {"sandbox": True}}


@pytest.mark.parametrize("mode", ["warm", "sandbox"])  # plain: the sandbox's code without bwrap
@pytest.mark.parametrize("threads", ["1", "2"])
def test_environment_threads_state_and_stdin(folder: Path, mode: str, threads: str,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OMP_NUM_THREADS", threads)
    names = ["probe_env.py", "probe_again.py", "probe_stdin.py", "probe_fail.py"]
    results = runner.run_scripts(requests(folder, names), jobs=2, **MODES[mode])
    env = results["probe_env"].stdout.decode()
    assert env.splitlines()[0] == f"{CPU_PINNING_ENV['ATEN_CPU_CAPABILITY']} AVX2"
    assert f"threads {threads}" in env  # the caller controls the thread count per run
    assert "hashseed 0 True" in env and "cwd True" in env and "path0 True" in env
    assert "count 1" in env and results["probe_again"].stdout == b"count 1\n"  # fresh modules
    assert results["probe_stdin"].stdout == b"stdin is empty\n"
    failed = results["probe_fail"]
    assert failed.returncode == 3 and failed.stdout == b"partial\n" and failed.inputs == []


@pytest.mark.parametrize("mode", list(MODES))
def test_timeout_kills_the_script_and_its_process_group(folder: Path, tmp_path: Path,
                                                         mode: str) -> None:
    pid_file = tmp_path / "ok" / "grandchild.pid"
    pid_file.parent.mkdir()
    script = tmp_path / "loops.py"
    seconds = marker()
    script.write_text(textwrap.dedent(f"""
        import subprocess, pathlib, time
        child = subprocess.Popen(["sleep", "{seconds}"])
        pathlib.Path({str(pid_file)!r}).write_text(str(child.pid))
        time.sleep(300)  # a timeout is a wall-clock limit: waiting, the script burns no CPU
    """))
    request = runner.Request(str(script), str(tmp_path), "loops", {}, timeout=3,
                             writable=(str(pid_file.parent),))
    began = time.monotonic()
    result = runner.run_scripts([request], jobs=1, **MODES[mode])["loops"]
    assert result.timed_out and time.monotonic() - began < 60
    assert pid_file.is_file()  # the grandchild started
    time.sleep(0.2)
    assert running_with(seconds) == []



def test_reads_of_repository_files_are_traced() -> None:
    REPO_ROOT = DEFAULT.root

    assert runner.repo_relative(REPO_ROOT / "requirements.lock", REPO_ROOT) == "requirements.lock"
    assert runner.repo_relative(REPO_ROOT / "outputs" / "x.txt", REPO_ROOT) is None
    assert runner.is_read("r", 0) and not runner.is_read("w", 0)
    assert runner.is_read(None, os.O_RDONLY) and not runner.is_read(None, os.O_WRONLY)


def test_heavy_imports_are_chosen_by_what_the_scripts_import(folder: Path) -> None:
    assert runner.warm_modules(requests(folder, ["probe_env.py"])) == ["torch"]
    assert runner.warm_modules(requests(folder, ["probe_stdin.py"])) == []
