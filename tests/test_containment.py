"""Containment of chapter scripts: one probe test per finding, named after the probe.

Runner-level probes run small scripts through `runner.run_scripts` in both modes (warm fork
parent and plain subprocess); pipeline-level probes run the real command line on a scratch copy
of the pipeline, as tests/test_pipeline.py does.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from processes import marker, running_with

from explainer_tools import layout
from explainer_tools.layout import DEFAULT
from explainer_tools.scripts import pipeline, process_tree, runner, settings, stamps

REPO_ROOT = DEFAULT.root

# warm: the fork parent (True); plain: a process per script (False); sandbox: a process per
# script in bubblewrap (None); warm-sandbox: the fork parent's children in the kernel's sandbox
# ("zygote", the default where it works). Outside the sandbox the audit hooks alone contain the
# script.
MODES = pytest.mark.parametrize("warm", [True, False, None, "zygote"],
                                ids=["warm", "plain", "sandbox", "warm-sandbox"])
SANDBOXED = (None, "zygote")



def run_one(tmp_path: Path, text: str, warm: bool, **fields: object) -> runner.Result:
    """Run `text` as a script in its own scratch folder; writable: that folder's `ok/`."""
    script = tmp_path / "probe.py"
    script.write_text(textwrap.dedent(text))
    cwd = tmp_path / "cwd"
    cwd.mkdir(exist_ok=True)
    (cwd / "ok").mkdir(exist_ok=True)
    fields.setdefault("writable", (str(cwd / "ok"), str(cwd / "probe.tmp")))
    request = runner.Request(str(script), str(cwd), "probe", {}, **fields)  # type: ignore[arg-type]
    results = runner.run_scripts([request], jobs=1, warm=bool(warm), sandbox=warm in SANDBOXED)
    return results["probe"]


# --------------------------------------------------------------------------- A15: writes refused


@MODES
def test_probe_A15_writes_outside_the_writable_folders_are_refused(tmp_path: Path,
                                                                   warm: bool) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("before\n")
    (tmp_path / "keep").mkdir()
    result = run_one(tmp_path, f"""
        import os, pathlib, shutil, tempfile
        pathlib.Path("ok/fine.txt").write_text("allowed")
        with tempfile.NamedTemporaryFile("w") as handle:  # the temporary folder is allowed
            handle.write("x")
        for attempt in (
            lambda: open({str(outside)!r}, "a").write("appended"),
            lambda: pathlib.Path({str(tmp_path / "new.txt")!r}).write_text("created"),
            lambda: os.remove({str(outside)!r}),
            lambda: os.rename("ok/fine.txt", {str(tmp_path / "moved.txt")!r}),
            lambda: os.mkdir({str(tmp_path / "folder")!r}),
            lambda: shutil.rmtree({str(tmp_path / "keep")!r}),
        ):
            try:
                attempt()
                print("not refused")
            except PermissionError:
                print("refused")
    """, warm)
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode().split() == ["refused"] * 6
    assert outside.read_text() == "before\n"
    assert not (tmp_path / "new.txt").exists() and not (tmp_path / "moved.txt").exists()
    assert not (tmp_path / "folder").exists() and (tmp_path / "keep").is_dir()
    assert (tmp_path / "cwd" / "ok" / "fine.txt").exists()
    assert [line.split()[0] for line in result.refused] == [
        "open", "open", "os.remove", "os.rename", "os.mkdir", "shutil.rmtree"]
    assert str(outside) in result.refused[0]


def test_probe_A15_a_refused_write_is_an_error_naming_script_and_path(tmp_path: Path) -> None:
    request = runner.Request("/x/ch99_probe.py", str(tmp_path), "ch99_probe")
    result = runner.Result("ch99_probe.py", 0, b"", b"", [], 0.0, 0.0,
                           refused=["open /repo/docs/zz.md"])
    message = pipeline.run_error("ch99_probe.py", request, result)
    assert "explainer_code/ch99_probe.py tried to write" in message
    assert "open /repo/docs/zz.md" in message


# --------------------------------------------------------------------------- A11: process trees


@MODES
def test_probe_A11_a_child_in_a_new_session_ends_with_the_script(tmp_path: Path,
                                                                  warm: bool) -> None:
    pids = tmp_path / "cwd" / "ok" / "pids"
    seconds = marker()
    result = run_one(tmp_path, f"""
        import os, subprocess, pathlib
        session = subprocess.Popen(["sleep", "{seconds}"], start_new_session=True)
        middle = os.fork()
        if middle == 0:  # a double fork: the grandchild is orphaned at once
            os.setsid()
            if os.fork() == 0:
                pathlib.Path({str(pids)!r} + ".orphan").write_text(str(os.getpid()))
                os.execvp("sleep", ["sleep", "{seconds}"])
            os._exit(0)
        os.waitpid(middle, 0)
        while not pathlib.Path({str(pids)!r} + ".orphan").exists():
            pass
        pathlib.Path({str(pids)!r}).write_text(str(session.pid))
    """, warm)
    assert result.returncode == 0, result.stderr
    assert pids.is_file() and Path(f"{pids}.orphan").is_file()  # both started
    time.sleep(0.2)
    assert running_with(seconds) == []


# The race of the previous round (a setsid child re-parented away when the script was killed
# before its descendants were scanned) is closed in runner.kill_tree: the script is stopped
# first, its descendants killed, then the script.
@MODES
def test_probe_A11_a_timeout_ends_children_in_new_sessions(tmp_path: Path, warm: bool) -> None:
    pids = tmp_path / "cwd" / "ok" / "pid"
    seconds = marker()
    text = f"""
        import subprocess, pathlib, time
        child = subprocess.Popen(["setsid", "sleep", "{seconds}"])
        pathlib.Path({str(pids)!r}).write_text(str(child.pid))
        time.sleep(300)  # waits (a timeout is a wall-clock limit): no CPU burnt meanwhile
    """
    # 3 s is enough to start the child on an idle machine; on a loaded one, where the script may
    # not have reached it in time, once more with 15 s (a backstop, not a claim about speed).
    for timeout in (3, 15):
        result = run_one(tmp_path, text, warm, timeout=timeout)
        if pids.is_file():
            break
    assert result.timed_out and pids.is_file(), result.stderr
    time.sleep(0.2)
    assert running_with(seconds) == []


def test_probe_A11_kill_tree_stops_the_root_before_it_kills_descendants(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The order that closes the race, checked on a fake tree: root 10 is stopped first and
    killed last, after its descendants (11, then 12, which a killed 11 left to it)."""
    calls: list[tuple[str, int, int]] = []
    trees = iter([[11], [12], []])
    monkeypatch.setattr(process_tree, "descendants", lambda root: next(trees))
    monkeypatch.setattr(process_tree, "send_signal",
                        lambda pid, sig: calls.append(("kill", pid, sig)))
    monkeypatch.setattr(process_tree.os, "killpg",
                        lambda pid, sig: calls.append(("killpg", pid, sig)))
    process_tree.kill_tree(10)
    stop, kill = signal.SIGSTOP, signal.SIGKILL
    assert calls == [("kill", 10, stop), ("kill", 11, kill), ("kill", 12, kill),
                     ("killpg", 10, kill), ("kill", 10, kill)]


# --------------------------------------------------------------------------- A22, A23: exits


@MODES
def test_probe_A22_a_script_ending_in_os_exit_gets_no_stamp(tmp_path: Path, warm: bool) -> None:
    result = run_one(tmp_path, """
        import os, sys
        print("[1] x = 1")
        sys.stdout.flush()
        os._exit(0)
    """, warm)
    assert result.returncode == 0 and result.unfinished and result.inputs == []
    request = runner.Request("/x/ch99_exit.py", str(tmp_path), "ch99_exit")
    assert "exited without returning" in pipeline.run_error("ch99_exit.py", request, result)


def test_probe_A23_atexit_output_is_the_same_under_both_runners(tmp_path: Path) -> None:
    text = """
        import atexit
        atexit.register(lambda: print("[2] printed at exit"))
        print("[1] printed first")
    """
    (tmp_path / "w").mkdir()
    (tmp_path / "p").mkdir()
    warm, plain = run_one(tmp_path / "w", text, True), run_one(tmp_path / "p", text, False)
    assert warm.stdout == plain.stdout == b"[1] printed first\n[2] printed at exit\n"
    assert warm.returncode == plain.returncode == 0 and not warm.unfinished


# --------------------------------------------------------------------------- A24: metadata reads


@MODES
def test_probe_A24_file_metadata_reads_are_inputs(tmp_path: Path, warm: bool) -> None:
    result = run_one(tmp_path, f"""
        import os, pathlib
        print(os.path.getsize({str(REPO_ROOT / "requirements.lock")!r}) > 0)
        print(pathlib.Path({str(REPO_ROOT / "Makefile")!r}).stat().st_size > 0)
        print(pathlib.Path({str(REPO_ROOT / "pyproject.toml")!r}).exists())
    """, warm)
    assert result.stdout == b"True\nTrue\nTrue\n", result.stderr
    assert {"requirements.lock", "Makefile", "pyproject.toml"} <= set(result.inputs)


# --------------------------------------------------------------------------- B2, A10b: limits


@MODES
def test_probe_B2_the_cpu_limit_stops_computing_not_waiting(tmp_path: Path, warm: bool) -> None:
    requests = []  # side by side in one run: the waiting one sleeps while the busy one computes
    for stem, text, timeout in (("busy", "while True:\n    pass\n", 90),
                                ("waiting", "import time\ntime.sleep(2.5)\nprint('done')\n", 600)):
        script, cwd = tmp_path / f"{stem}.py", tmp_path / f"cwd-{stem}"
        script.write_text(text)
        cwd.mkdir()
        requests.append(runner.Request(str(script), str(cwd), stem, {}, timeout=timeout,
                                       cpu_limit=1))
    results = runner.run_scripts(requests, jobs=2, warm=bool(warm), sandbox=warm in SANDBOXED)
    busy, waiting = results["busy"], results["waiting"]
    assert busy.cpu_exceeded and not busy.timed_out
    assert waiting.returncode == 0 and waiting.stdout == b"done\n"
    request = runner.Request("/x/ch99_busy.py", str(tmp_path), "ch99_busy", cpu_limit=1)
    assert "more than 1 s of CPU time" in pipeline.run_error("ch99_busy.py", request, busy)


@pytest.mark.parametrize("value", ["5s", "0", "-3", "nan", "inf", "ten"])
def test_probe_A10b_a_malformed_time_limit_is_an_error(value: str,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (settings.TIMEOUT_ENV, settings.CPU_LIMIT_ENV):
        monkeypatch.setenv(name, value)
        with pytest.raises(pipeline.CommandError, match=f"{name}='{value}' is not a positive"):
            pipeline.run_scripts(["ch99_never_runs.py"], Path("/nonexistent"), 1,
                                  layout.DEFAULT)
        monkeypatch.delenv(name)
    monkeypatch.setenv(settings.TIMEOUT_ENV, " 900 ")
    assert settings.script_timeout() == 900.0


def test_probe_A10b_defaults_when_unset(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(settings.TIMEOUT_ENV, raising=False)
    monkeypatch.delenv(settings.CPU_LIMIT_ENV, raising=False)
    assert settings.script_timeout() == settings.DEFAULT_SCRIPT_TIMEOUT_S
    assert settings.script_cpu_limit() == settings.DEFAULT_SCRIPT_CPU_LIMIT_S


# --------------------------------------------------------------------------- pipeline level

PNG = (  # a valid 1x1 PNG, written without Matplotlib to keep the probes fast
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"
    b"\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00"
    b"\x00\x00IEND\xaeB`\x82"
)
DRAWS = f"""
from script_io import figure_dir, write_bytes_atomic
write_bytes_atomic(figure_dir() / "ch01_probe.png", {PNG!r})
print("[1] drew one figure")
"""
PAGE = "# Page\n\n<!-- embed: output ch01_probe.py -->\n<!-- /embed -->\n"


def cli(repo: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | extra
    return subprocess.run([sys.executable, "-m", "explainer_tools", *args], cwd=repo, env=env,
                          capture_output=True, text=True, check=False, timeout=300)


def tree(repo: Path) -> dict[str, bytes]:
    return {p.relative_to(repo).as_posix(): p.read_bytes()
            for p in sorted(repo.rglob("*")) if p.is_file()}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A scratch repository: the pipeline, one script that draws a figure, one page."""
    root = tmp_path / "repo"
    shutil.copytree(REPO_ROOT / "explainer_tools", root / "explainer_tools",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO_ROOT / "requirements.lock", root / "requirements.lock")
    (root / "explainer_code").mkdir()
    shutil.copy(REPO_ROOT / "explainer_code" / "script_io.py", root / "explainer_code")
    (root / "explainer_code" / "ch01_probe.py").write_text(DRAWS)
    (root / "docs" / "assets" / "fig").mkdir(parents=True)
    (root / "docs" / "index.md").write_text(PAGE)
    result = cli(root, "regenerate", "--skip-notebooks")
    assert result.returncode == 0, result.stdout + result.stderr
    return root


@pytest.mark.parametrize("sandbox", ["", "off"], ids=["default", "audit-hooks-only"])
def test_probe_A15_B3_B4_check_leaves_the_tree_as_it_was(repo: Path, sandbox: str) -> None:
    """A script that writes into the tree from Python (refused in both layers) and from a
    program it starts (refused by the kernel's sandbox; without it, named and left as it is:
    check never writes); check run without PYTHONDONTWRITEBYTECODE writes no bytecode."""
    script = repo / "explainer_code" / "ch01_probe.py"
    script.write_text(DRAWS + textwrap.dedent("""
        import subprocess
        from pathlib import Path
        docs = Path(__file__).resolve().parent.parent / "docs"
        subprocess.run(["sh", "-c", f"echo appended >> {docs}/index.md; echo x > {docs}/zz.md"])
        try:
            (docs / "index.md").open("a").write("appended from Python")
        except PermissionError:
            print("refused")
    """))
    before = tree(repo)
    result = cli(repo, "check", "--skip-notebooks", EXPLAINER_SANDBOX=sandbox)
    assert result.returncode == 1
    message = result.stdout + result.stderr
    assert "explainer_code/ch01_probe.py tried to write" in message and "index.md" in message
    after = tree(repo)
    assert "appended from Python" not in after["docs/index.md"].decode()
    if sandbox:  # audit hooks only: the program's writes happened; named, not put back
        assert "docs/index.md (changed)" in message and "docs/zz.md (created)" in message
        assert after["docs/zz.md"] == b"x\n"
        assert not [p for p in after if "__pycache__" in p]
    else:
        assert after == before  # no page, no new file, no __pycache__


def test_probe_A18b_a_deleted_scripts_figure_is_removed_with_it(repo: Path) -> None:
    figure = repo / "docs" / "assets" / "fig" / "ch01_probe.png"
    assert figure.read_bytes() == PNG
    (repo / "explainer_code" / "ch01_probe.py").unlink()
    (repo / "docs" / "index.md").write_text("# Page\n")
    result = cli(repo, "regenerate", "--skip-notebooks")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "removed docs/assets/fig/ch01_probe.png" in result.stdout
    assert not figure.exists() and not (repo / "outputs" / "ch01_probe.txt").exists()
    assert cli(repo, "check", "--skip-notebooks").returncode == 0


def test_probe_A22_os_exit_fails_regenerate_and_writes_no_stamp(repo: Path) -> None:
    script = repo / "explainer_code" / "ch01_probe.py"
    stamp = repo / "outputs" / ".stamps" / "ch01_probe.json"
    committed = stamp.read_bytes()
    script.write_text(DRAWS + "import os, sys\nsys.stdout.flush()\nos._exit(0)\n")
    result = cli(repo, "regenerate", "--skip-notebooks")
    assert result.returncode == 1 and "exited without returning" in result.stderr
    assert stamp.read_bytes() == committed


def test_probe_B4_this_environment_writes_no_bytecode() -> None:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    flag = subprocess.run([sys.executable, "-c", "import sys; print(sys.dont_write_bytecode)"],
                          env=env, capture_output=True, text=True, check=True).stdout
    assert flag.strip() == "True", "make venv writes .venv/.../explainer_no_bytecode.pth"


@MODES
def test_reads_of_repository_files_are_inputs(tmp_path: Path, warm: bool) -> None:
    result = run_one(tmp_path, f"""
        with open({str(REPO_ROOT / "pyproject.toml")!r}, encoding="utf-8") as handle:
            print(len(handle.read()) > 0)
    """, warm)
    assert result.stdout == b"True\n" and "pyproject.toml" in result.inputs


def test_write_atomic_replaces_the_file_and_never_rewrites_it(tmp_path: Path) -> None:
    """Readers (and other links to the old file) see the old bytes or the new, never a mix."""
    path = tmp_path / "product.txt"
    path.write_bytes(b"old")
    other_link = tmp_path / "reader.txt"
    os.link(path, other_link)
    layout.write_atomic(path, b"new")
    assert path.read_bytes() == b"new" and other_link.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["product.txt", "reader.txt"]


# --------------------------------------------------------------------------- freshness


def test_a_stamp_is_stale_when_the_run_environment_changes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    script = next(s for s in layout.DEFAULT.discover_scripts()
                  if pipeline.is_fresh(s, layout.DEFAULT))
    changed = {**settings.run_environment(), "PYTHONHASHSEED": "1"}
    monkeypatch.setattr(stamps, "run_environment", lambda: changed)
    assert not pipeline.is_fresh(script, layout.DEFAULT)
