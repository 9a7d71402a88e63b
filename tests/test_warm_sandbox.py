"""The warm sandbox (explainer_tools/scripts/zygote.py): a child forked from the warm parent
contains itself with the kernel before any script code runs. Each test runs a script through
`runner.run_scripts` in that mode and checks what the kernel, not the audit hooks, refuses:
ctypes and programs the script starts are out of the hooks' sight.
"""

from __future__ import annotations

import hashlib
import os
import textwrap
from pathlib import Path

import pytest

from explainer_tools.layout import DEFAULT, FIG_DIR_ENV
from explainer_tools.scripts import runner, zygote
from explainer_tools.scripts.containment import sandbox_status

REPO_ROOT = DEFAULT.root
GIT = REPO_ROOT / ".git"  # a file in a git worktree
TARGETS = (REPO_ROOT / "docs" / "index.md", GIT / "config" if GIT.is_dir() else GIT)

pytestmark = pytest.mark.skipif(
    not sandbox_status() or zygote.probe() != "",
    reason="the kernel refuses the warm sandbox's namespaces here")


def digests() -> dict[Path, str]:
    return {path: hashlib.sha256(path.read_bytes()).hexdigest() for path in TARGETS
            if path.is_file()}


def run(tmp_path: Path, text: str, warm: bool = True, stem: str = "probe",
        script: Path | None = None, **env: str) -> runner.Result:
    """Run `text` (or `script`) in the kernel's sandbox: warm (the zygote) or, with
    warm=False, one bubblewrap per script; writable: the scratch folder's `fig/`."""
    if script is None:
        script = tmp_path / f"{stem}.py"
        script.write_text(textwrap.dedent(text))
    cwd = tmp_path / "cwd"
    (cwd / "fig").mkdir(parents=True, exist_ok=True)
    request = runner.Request(str(script), str(cwd), stem, {FIG_DIR_ENV: str(cwd / "fig"), **env},
                             timeout=300,
                             writable=(str(cwd / "fig"), str(cwd / f"{stem}.tmp")))
    return runner.run_scripts([request], jobs=1, warm=warm, sandbox=True)[stem]


def test_the_script_runs_forked_from_the_warm_parent(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    """numpy is already imported when the script starts (the warm parent's), the script is its
    PID namespace's second process, and no fallback is said."""
    result = run(tmp_path, """
        import os, sys
        print("preloaded", "numpy" in sys.modules, os.getpid(), os.getppid())
        import numpy
    """)
    assert result.returncode == 0 and result.sandboxed, result.stderr
    assert result.stdout == b"preloaded True 2 1\n"
    assert "warm sandbox is unavailable" not in capsys.readouterr().err


def test_the_repository_is_read_only_whatever_writes(tmp_path: Path) -> None:
    """os.open (past the audit hook, which refuses it first), libc's open and write through
    ctypes, and a shell the script starts: every write into the repository fails; the figure
    folder takes one."""
    before = digests()
    result = run(tmp_path, f"""
        import ctypes, os, subprocess
        libc = ctypes.CDLL(None, use_errno=True)
        for path in {[str(p) for p in TARGETS]!r}:
            try:
                os.open(path, os.O_WRONLY | os.O_APPEND)
                print("python wrote", path)
            except OSError as error:
                print("python refused", error.errno)
            fd = libc.open(path.encode(), os.O_WRONLY | os.O_APPEND)
            print("libc open", fd, ctypes.get_errno())
            if fd >= 0:
                print("libc wrote", libc.write(fd, b"x", 1))
            done = subprocess.run(["sh", "-c", f"echo attack >> {{path}}"], capture_output=True)
            print("shell", "failed" if done.returncode else "wrote")
        fd = libc.open(b"fig/drawn.txt", os.O_WRONLY | os.O_CREAT, 0o644)
        print("figure", libc.write(fd, b"drawn", 5))
    """)
    assert digests() == before
    lines = result.stdout.decode().splitlines()
    assert lines.count("python refused 13") == 2, lines  # EACCES: the audit hook
    assert lines.count("libc open -1 30") == 2, lines  # EROFS: the kernel
    assert lines.count("shell failed") == 2, lines
    assert "figure 5" in lines
    assert (tmp_path / "cwd" / "fig" / "drawn.txt").read_bytes() == b"drawn"


def test_the_pipeline_is_out_of_sight_and_reach(tmp_path: Path) -> None:
    """The test's own process (the pipeline here) is no process the script can see or signal:
    /proc shows its namespace alone (init, the script, its children)."""
    result = run(tmp_path, f"""
        import os, signal, subprocess
        child = subprocess.Popen(["sleep", "5"])
        print(sorted(int(n) for n in os.listdir("/proc") if n.isdigit()))
        for pid in ({os.getpid()}, {os.getppid()}):
            try:
                os.kill(pid, 0)
                print("seen", pid)
            except ProcessLookupError:
                print("not seen")
        child.kill()
    """)
    assert result.stdout.decode().splitlines() == ["[1, 2, 3]", "not seen", "not seen"], \
        result.stderr


def test_no_network_and_stdout_captured(tmp_path: Path) -> None:
    result = run(tmp_path, """
        import socket, sys
        print("to stdout")
        print("to stderr", file=sys.stderr)
        for family, address in ((socket.AF_INET, ("127.0.0.1", 22)),
                                (socket.AF_INET, ("1.1.1.1", 53))):
            with socket.socket(family) as sock:
                sock.settimeout(5)
                try:
                    sock.connect(address)
                    print("connected", address)
                except OSError as error:
                    print("refused", error.errno)
    """)
    assert result.stdout == b"to stdout\nrefused 101\nrefused 101\n", result.stderr  # unreachable
    assert result.stderr == b"to stderr\n"


def test_no_capabilities_and_no_new_privileges(tmp_path: Path) -> None:
    result = run(tmp_path, """
        status = open("/proc/self/status").read()
        print([line.split()[1] for line in status.splitlines()
               if line.startswith(("CapEff", "CapPrm", "CapBnd", "NoNewPrivs"))])
    """)
    assert result.stdout == b"['0000000000000000', '0000000000000000', " \
                            b"'0000000000000000', '1']\n", result.stderr


def test_a_chapter_script_prints_the_same_in_both_sandboxes(tmp_path: Path) -> None:
    script = REPO_ROOT / "explainer_code" / "ch01_probability.py"
    warm = run(tmp_path / "warm", "", script=script, stem="ch01_probability")
    cold = run(tmp_path / "bwrap", "", warm=False, script=script, stem="ch01_probability")
    assert warm.returncode == cold.returncode == 0, warm.stderr + cold.stderr
    assert warm.stdout == cold.stdout and b"\n[1] " in warm.stdout
    assert warm.inputs == cold.inputs
    figures = [sorted(p.name for p in (tmp_path / mode / "cwd" / "fig").iterdir())
               for mode in ("warm", "bwrap")]
    assert figures[0] == figures[1] == ["ch01_concentration.png"]


def test_where_the_kernel_refuses_it_one_line_says_so_and_bubblewrap_runs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """The warm parent's probe fails (made to, through a sitecustomize that only the warm
    parent's Python imports first): the run says why in one line, once, and each script runs in
    its own bubblewrap sandbox instead, its writes to the tree refused as before."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(
        f"import sys\nsys.path.insert(0, {str(REPO_ROOT)!r})\n"
        "import explainer_tools.scripts.zygote as z\nz.probe = lambda: 'refused here by a test'\n"
        "sys.path.pop(0)\n")
    monkeypatch.setenv("PYTHONPATH", str(site))
    monkeypatch.setattr(runner, "_said", [])
    before = digests()
    first = run(tmp_path, f"open({str(TARGETS[0])!r}, 'a').write('x')", stem="one")
    second = run(tmp_path, "print('ran')", stem="two")
    err = capsys.readouterr().err
    assert err.count("the warm sandbox is unavailable (refused here by a test)") == 1, err
    assert first.sandboxed and first.returncode != 0 and digests() == before
    assert second.sandboxed and second.returncode == 0 and second.stdout == b"ran\n"
