"""Attacks on the runner and the pipeline, each performed against the real pipeline.

Every test plays an attacker who controls one chapter script (or, for the author's side, the
tree while a run is under way) on a scratch repository: a copy of the tools, one script that
draws a figure, one page, a `.git/config`, `.git/hooks/` and a built `site/`. The numbers in the
names are those of the fault-injection list the tests answer:

1-4. writes into the tree or outside it through a hard link, a program the script starts, a
     folder descriptor after `chdir`, ctypes: the kernel's sandbox refuses them (the file system
     is read-only there but for the script's own folders);
5.   writes into `.git` and `site/` during `check`;
6.   a link or a non-PNG in the figure folder, a socket bound in docs/;
7.   FIFOs in the figure folder or docs/ (every read would block);
8.   SIGSTOP sent to the pipeline, to the runner, or by a script to itself;
10.  an author's edit during `check`, `check` beside `regenerate`, a source edited while its
     script runs;
14.  an output flood, control characters in an output, a large allocation, a fork bomb.

The tests that could hang on a pipeline without these defences run it as a subprocess with a
timeout; the others call the command line in this process, as tests/test_pipeline.py does.
"""

from __future__ import annotations

import contextlib
import fcntl
import io
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest

from explainer_tools import __main__ as cli
from explainer_tools.layout import Layout

REPO_ROOT = Path(__file__).resolve().parent.parent
PNG = (  # a valid 1x1 PNG, written without Matplotlib to keep the attacks fast
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00"
    b"\x1f\x15\xc4\x89\x00\x00\x00\rIDATx\x9cc\xf8\x0f\x00\x00\x01\x01\x00\x05\x18\xd8N\x00\x00"
    b"\x00\x00IEND\xaeB`\x82"
)
DRAWS = f"""\
import os, pathlib, signal, subprocess, sys, tempfile, time
from script_io import figure_dir, write_bytes_atomic
ROOT = pathlib.Path(__file__).resolve().parent.parent
write_bytes_atomic(figure_dir() / "ch01_probe.png", {PNG!r})
print("[1] drew one figure")
"""
PAGE = "# Page\n\n<!-- embed: output ch01_probe.py -->\n<!-- /embed -->\n"
GIT_CONFIG = "[core]\n\trepositoryformatversion = 0\n"
HANG_S = 90  # a run that takes longer hangs (each of these takes seconds)


@dataclass(frozen=True)
class Run:
    returncode: int
    stdout: str
    stderr: str

    @property
    def text(self) -> str:
        return self.stdout + self.stderr


def regenerate(repo: Path, *args: str) -> Run:
    """`python -m explainer_tools ARGS` on `repo`, in this process (scripts run in children)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli.main(list(args or ("regenerate", "--skip-notebooks")), layout=Layout(repo))
    return Run(code, out.getvalue(), err.getvalue())


def start(repo: Path, *args: str, **env: str) -> subprocess.Popen[str]:
    """The real command line on `repo` (which holds a copy of the tools), in a new session."""
    return subprocess.Popen([sys.executable, "-m", "explainer_tools", *args], cwd=repo,
                            env={**os.environ, **env}, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)


def finish(proc: subprocess.Popen[str], timeout: float = HANG_S) -> Run:
    """Its result; a run still going after `timeout` is killed and fails the test (a hang)."""
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        for pid in stopped_leftovers():
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail(f"the pipeline hung (still running after {timeout:g} s)")
    return Run(proc.returncode, out, err)


def stopped_leftovers() -> list[int]:
    """Stopped processes of this test's scratch runs (a hang's debris), to be killed."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError):
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
                if state == "T" and b"explainer_tools" in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
    return found


def tree(repo: Path) -> dict[str, bytes]:
    """Every file of the repository, `.git` and `site` included (links and FIFOs by kind),
    but the lock file (empty between runs)."""
    found = {}
    for path in sorted(repo.rglob("*")):
        relative = path.relative_to(repo).as_posix()
        if relative.startswith(".cache/"):
            continue
        if path.is_symlink() or not (path.is_file() or path.is_dir()):
            found[relative] = b"<not a regular file>"
        elif path.is_file():
            found[relative] = path.read_bytes()
    return found


@pytest.fixture(scope="module")
def template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("attacks") / "repo"
    shutil.copytree(REPO_ROOT / "explainer_tools", root / "explainer_tools",
                    ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(REPO_ROOT / "requirements.lock", root / "requirements.lock")
    (root / "explainer_code").mkdir()
    shutil.copy(REPO_ROOT / "explainer_code" / "script_io.py", root / "explainer_code")
    (root / "explainer_code" / "ch01_probe.py").write_text(DRAWS)
    (root / "docs" / "assets" / "fig").mkdir(parents=True)
    (root / "docs" / "index.md").write_text(PAGE)
    (root / ".git" / "hooks").mkdir(parents=True)
    (root / ".git" / "config").write_text(GIT_CONFIG)
    (root / "site").mkdir()
    (root / "site" / "index.html").write_text("<p>the built site</p>\n")
    result = regenerate(root)
    assert result.returncode == 0, result.text
    return root


@pytest.fixture
def repo(template: Path, tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    shutil.copytree(template, root, symlinks=True)
    return root


def attack(repo: Path, text: str) -> None:
    """The chapter script becomes the figure-drawing script plus `text`."""
    (repo / "explainer_code" / "ch01_probe.py").write_text(DRAWS + textwrap.dedent(text))


def unchanged_but_the_script(before: dict[str, bytes], repo: Path) -> list[str]:
    """Files that differ from `before`, the attacking script and its stamp excepted."""
    after = tree(repo)
    allowed = {"explainer_code/ch01_probe.py", "outputs/.stamps/ch01_probe.json"}
    return sorted(p for p in {*before, *after} - allowed if before.get(p) != after.get(p))


# --------------------------------------------------------------------------- 1-4: writes


def test_attack01_a_hard_link_to_git_config_carries_no_write(repo: Path) -> None:
    before = tree(repo)
    attack(repo, """
        link = pathlib.Path(tempfile.gettempdir()) / "config"
        try:
            os.link(ROOT / ".git" / "config", link)  # the new name lies in its temporary folder
            with open(link, "a") as handle:
                handle.write("[core]\\n\\tpager = sh -c 'echo owned >&2'\\n")
        except OSError:
            pass
    """)
    regenerate(repo)
    assert (repo / ".git" / "config").read_text() == GIT_CONFIG
    assert unchanged_but_the_script(before, repo) == []


def test_attack02_programs_a_script_starts_write_nothing(repo: Path) -> None:
    outside = Path("/tmp") / f"attack02-{uuid.uuid4().hex}"  # the system temporary folder
    before = tree(repo)
    attack(repo, f"""
        subprocess.run(["sh", "-c", "echo 'echo owned' > {repo}/.git/hooks/pre-commit"])
        subprocess.run(["sh", "-c", "echo owned > {outside}"])
        subprocess.run(["sh", "-c", "echo '<script>alert(1)</script>' >> {repo}/docs/index.md"])
    """)
    try:
        result = regenerate(repo)
        assert not outside.exists()
    finally:
        outside.unlink(missing_ok=True)
    assert not (repo / ".git" / "hooks" / "pre-commit").exists()
    assert "<script>" not in (repo / "docs" / "index.md").read_text()
    assert unchanged_but_the_script(before, repo) == [], result.text


def test_attack03_writes_through_a_folder_descriptor_after_chdir(repo: Path) -> None:
    before = tree(repo)
    attack(repo, """
        docs = os.open(ROOT / "docs", os.O_RDONLY)
        os.chdir(tempfile.gettempdir())  # relative names now look as if they were its own
        try:
            fd = os.open("index.md", os.O_WRONLY | os.O_APPEND, dir_fd=docs)
            os.write(fd, b"<script>alert(3)</script>")
        except OSError:
            pass
        pathlib.Path("zz.md").write_text("# injected page")
        try:
            os.rename("zz.md", "zz.md", dst_dir_fd=docs)
        except OSError:
            pass
    """)
    regenerate(repo)
    assert "<script>" not in (repo / "docs" / "index.md").read_text()
    assert not (repo / "docs" / "zz.md").exists()
    assert unchanged_but_the_script(before, repo) == []


def test_attack04_ctypes_writes_inside_and_outside_the_repository(repo: Path,
                                                                  tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("before\n")
    before = tree(repo)
    attack(repo, f"""
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        for target in (str(ROOT / "docs" / "index.md"), {str(outside)!r}):
            fd = libc.open(target.encode(), os.O_WRONLY | os.O_APPEND)
            if fd >= 0:
                libc.write(fd, b"<script>alert(4)</script>", 25)
                libc.close(fd)
    """)
    regenerate(repo)
    assert outside.read_text() == "before\n"
    assert "<script>" not in (repo / "docs" / "index.md").read_text()
    assert unchanged_but_the_script(before, repo) == []


# --------------------------------------------------------------------------- 5: check writes


def test_attack05_check_leaves_git_and_site_as_they_were(repo: Path) -> None:
    attack(repo, f"""
        subprocess.run(["sh", "-c", "echo '[alias] x = !sh' >> {repo}/.git/config; "
                        "echo 'echo owned' > {repo}/.git/hooks/post-checkout; "
                        "echo '<script>alert(5)</script>' > {repo}/site/index.html"])
    """)
    before = tree(repo)
    regenerate(repo, "check", "--skip-notebooks")
    assert tree(repo) == before


# --------------------------------------------------------------------------- 6: figures, sockets


def test_attack06_a_link_in_the_figure_folder_is_refused(repo: Path) -> None:
    attack(repo, """
        os.symlink("/etc/hostname", figure_dir() / "ch01_leak.png")
    """)
    result = regenerate(repo)
    assert result.returncode == 1
    assert "ch01_leak.png" in result.stderr and "symbolic link" in result.stderr
    assert not (repo / "docs" / "assets" / "fig" / "ch01_leak.png").exists()


def test_attack06_a_figure_that_is_not_a_png_is_refused(repo: Path) -> None:
    attack(repo, """
        write_bytes_atomic(figure_dir() / "ch01_fake.png", b"<svg onload='alert(6)'/>")
    """)
    result = regenerate(repo)
    assert result.returncode == 1
    assert "'ch01_fake.png' is not a PNG" in result.stderr
    assert not (repo / "docs" / "assets" / "fig" / "ch01_fake.png").exists()


def test_attack06_a_socket_bound_in_docs_is_refused(repo: Path) -> None:
    before = tree(repo)
    attack(repo, """
        import socket
        try:
            socket.socket(socket.AF_UNIX).bind(str(ROOT / "docs" / "listen.md"))
        except OSError:
            pass
    """)
    regenerate(repo)
    assert not (repo / "docs" / "listen.md").exists()
    assert unchanged_but_the_script(before, repo) == []


# --------------------------------------------------------------------------- 7: FIFOs


def test_attack07_a_fifo_in_the_figure_folder_is_refused(repo: Path) -> None:
    attack(repo, """
        os.mkfifo(figure_dir() / "ch01_wait.png")
    """)
    result = finish(start(repo, "regenerate", "--skip-notebooks"))
    assert result.returncode == 1
    assert "'ch01_wait.png' is a FIFO" in result.stderr


def test_attack07_a_fifo_made_in_docs_is_refused(repo: Path) -> None:
    attack(repo, """
        try:
            os.mkfifo(ROOT / "docs" / "wait.md")
        except OSError:
            pass
    """)
    result = finish(start(repo, "regenerate", "--skip-notebooks"))
    assert not (repo / "docs" / "wait.md").exists(), result.text


@pytest.mark.parametrize("command", ["regenerate", "check"])
def test_attack07_a_fifo_left_in_docs_is_an_error_not_a_hang(repo: Path, command: str) -> None:
    os.mkfifo(repo / "docs" / "left.md")
    result = finish(start(repo, command, "--skip-notebooks"))
    assert result.returncode == 1
    assert "docs/left.md: a FIFO" in result.stderr


@pytest.mark.parametrize("where", ["docs/left.md", "outputs/left.txt"])
def test_attack07_a_fifo_left_in_the_tree_is_a_claims_error_not_a_hang(repo: Path,
                                                                       where: str) -> None:
    """`make claims` reads every page and every output: a FIFO among them is one error."""
    (repo / where).parent.mkdir(exist_ok=True)
    os.mkfifo(repo / where)
    result = finish(start(repo, "claims"))
    assert result.returncode == 1
    assert f"{where}:0: a FIFO" in result.text


# --------------------------------------------------------------------------- 8: SIGSTOP


@pytest.mark.parametrize("sandbox", ["", "off"], ids=["default", "audit-hooks-only"])
def test_attack08_stopping_the_pipeline_and_the_runner(repo: Path, sandbox: str) -> None:
    """In the sandbox the script cannot see them (its parent is the namespace's init, pid 1);
    with the audit hooks alone, a signal to a process it did not start is refused."""
    attack(repo, """
        parent = os.getppid()
        with open(f"/proc/{parent}/stat") as handle:
            grandparent = int(handle.read().rsplit(")", 1)[1].split()[1])
        for pid in (grandparent, parent):  # the pipeline, then the runner
            if pid > 1:
                os.kill(pid, signal.SIGSTOP)
    """)
    result = finish(start(repo, "regenerate", "--skip-notebooks", EXPLAINER_SANDBOX=sandbox))
    if sandbox == "off":
        assert result.returncode == 1 and "(signal 19)" in result.stderr, result.text


@pytest.mark.parametrize("sandbox", ["", "off"], ids=["default", "audit-hooks-only"])
def test_attack08_a_script_that_stops_itself_is_ended(repo: Path, sandbox: str) -> None:
    attack(repo, """
        os.kill(os.getpid(), signal.SIGSTOP)
    """)
    result = finish(start(repo, "regenerate", "--skip-notebooks", EXPLAINER_SANDBOX=sandbox))
    assert result.returncode == 1
    assert "stopped (SIGSTOP)" in result.stderr


# --------------------------------------------------------------------------- 10: the author's work

WAITS = """
    (pathlib.Path(tempfile.gettempdir()) / "started").write_text("")
    deadline = time.monotonic() + 60
    while not pathlib.Path({go!r}).exists() and time.monotonic() < deadline:
        time.sleep(0.05)
"""


def started(scratch: Path, proc: subprocess.Popen[str]) -> None:
    """Wait until the script of the run `proc` (scratch folders under `scratch`) has started."""
    deadline = time.monotonic() + HANG_S
    while not list(scratch.glob("regenerate-*/ch01_probe.tmp/started")):
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, "the script never started"
        time.sleep(0.05)


@pytest.mark.parametrize("sandbox", ["", "off"], ids=["default", "audit-hooks-only"])
def test_attack10_an_authors_edit_during_check_is_kept(repo: Path, tmp_path: Path,
                                                       sandbox: str) -> None:
    go, scratch = tmp_path / "go", tmp_path / "scratch"
    scratch.mkdir()
    attack(repo, WAITS.format(go=str(go)))
    proc = start(repo, "check", "--skip-notebooks", TMPDIR=str(scratch), EXPLAINER_SANDBOX=sandbox)
    started(scratch, proc)
    page = repo / "docs" / "index.md"
    page.write_text(page.read_text() + "\nThe author's new sentence.\n")
    go.write_text("")
    result = finish(proc)
    assert "The author's new sentence." in page.read_text(), result.text
    assert "restored" not in result.text


def test_attack10_a_second_run_waits_for_the_first_and_names_it(repo: Path) -> None:
    lock = repo / ".cache" / "pipeline.lock"
    lock.parent.mkdir(exist_ok=True)
    with open(lock, "a+") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        handle.truncate(0)
        handle.write("check (pid 4242, started 12:00:00)")
        handle.flush()
        proc = start(repo, "regenerate", "--skip-notebooks")
        assert proc.stderr is not None
        said: list[str] = []
        reader = threading.Thread(target=lambda: said.append(proc.stderr.readline()))
        reader.start()
        reader.join(timeout=HANG_S)
        assert proc.poll() is None, "it ran beside the lock's holder"
        assert said and "waiting for check (pid 4242" in said[0]
    out, err = proc.communicate(timeout=HANG_S)
    assert proc.returncode == 0, out + err
    assert "ran none (all fresh)" in out


def test_attack10_a_source_edited_during_its_run_gets_no_stamp(repo: Path,
                                                               tmp_path: Path) -> None:
    go, scratch = tmp_path / "go", tmp_path / "scratch"
    scratch.mkdir()
    stamp = repo / "outputs" / ".stamps" / "ch01_probe.json"
    stamped = stamp.read_bytes()
    attack(repo, WAITS.format(go=str(go)))
    proc = start(repo, "regenerate", "--skip-notebooks", TMPDIR=str(scratch))
    started(scratch, proc)
    script = repo / "explainer_code" / "ch01_probe.py"
    script.write_text(script.read_text() + "print('[2] a block the run never printed')\n")
    go.write_text("")
    result = finish(proc)
    assert result.returncode == 1
    assert "explainer_code/ch01_probe.py changed while it ran" in result.stderr
    assert stamp.read_bytes() == stamped


def test_attack10_an_input_edited_during_the_run_gets_no_stamp(repo: Path,
                                                               tmp_path: Path) -> None:
    go, scratch = tmp_path / "go", tmp_path / "scratch"
    scratch.mkdir()
    data = repo / "explainer_code" / "factor.txt"
    data.write_text("1.5\n")
    attack(repo, "    print('[2] factor', (ROOT / 'explainer_code' / 'factor.txt').read_text())\n"
           + WAITS.format(go=str(go)))
    proc = start(repo, "regenerate", "--skip-notebooks", TMPDIR=str(scratch))
    started(scratch, proc)
    data.write_text("2.5\n")
    go.write_text("")
    result = finish(proc)
    assert result.returncode == 1
    assert "its inputs explainer_code/factor.txt changed while it ran" in result.stderr


# --------------------------------------------------------------------------- 14: outputs, memory


def test_attack14_an_output_flood_is_capped(repo: Path) -> None:
    output = (repo / "outputs" / "ch01_probe.txt").read_bytes()
    attack(repo, """
        sys.stdout.write("x" * (3 * 1024 * 1024))
    """)
    result = regenerate(repo)
    assert result.returncode == 1
    assert "explainer_code/ch01_probe.py printed more than 2,097,152 bytes" in result.stderr
    assert (repo / "outputs" / "ch01_probe.txt").read_bytes() == output


@pytest.mark.parametrize("character", ["\x00", "\x1b[2J", "\u202e"], ids=["NUL", "ANSI", "RLO"])
def test_attack14_control_characters_in_an_output_are_refused(repo: Path,
                                                              character: str) -> None:
    output = (repo / "outputs" / "ch01_probe.txt").read_bytes()
    attack(repo, f"""
        print("[2] total = 12" + {character!r} + "3")
    """)
    result = regenerate(repo)
    assert result.returncode == 1
    assert f"U+{ord(character[0]):04X} on line 2" in result.stderr
    assert (repo / "outputs" / "ch01_probe.txt").read_bytes() == output


def test_attack14_memory_is_limited(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EXPLAINER_SCRIPT_MEMORY_GB", "0.5")
    attack(repo, """
        hoard = bytearray(1_500_000_000)
    """)
    result = regenerate(repo)
    assert result.returncode == 1
    assert "MemoryError" in result.stderr
    assert "may hold 0.5 GB of writable memory" in result.stderr
    assert "EXPLAINER_SCRIPT_MEMORY_GB" in result.stderr


def _processes_capped() -> bool:
    """Whether a sandboxed script's processes are capped here: a cgroup for root, RLIMIT_NPROC
    in the sandbox's user namespace for anyone else."""
    from explainer_tools.scripts.containment import _pids_hierarchy, sandbox_status

    return sandbox_status() and (os.geteuid() != 0 or _pids_hierarchy() is not None)


@pytest.mark.skipif(not _processes_capped(), reason="no sandbox or no pids cgroup for root here")
def test_attack14_a_fork_bomb_stops_at_the_process_limit(repo: Path) -> None:
    """Children that sleep (so RLIMIT_CPU never fires): forks fail at 256 processes and
    threads, the script fails, and every child ends with it. The bomb stops by itself at 2,000
    children, so a broken cap fails this test instead of the machine."""
    attack(repo, """
        for _ in range(2000):
            if os.fork() == 0:
                time.sleep(120)
                os._exit(0)
    """)
    result = finish(start(repo, "regenerate", "--skip-notebooks"))
    assert result.returncode == 1, result.text
    assert "BlockingIOError" in result.stderr
    if os.geteuid() == 0:
        assert "refused at its limit of 256 processes and threads" in result.stderr
    left = [entry.name for entry in Path("/proc").iterdir() if entry.name.isdigit()
            and str(repo).encode() in _cmdline(entry)]
    assert left == []


def _cmdline(entry: Path) -> bytes:
    try:
        return (entry / "cmdline").read_bytes()
    except OSError:
        return b""


# --------------------------------------------------------------------------- the fallback


def test_without_bubblewrap_one_line_says_so_and_required_refuses(repo: Path) -> None:
    """A machine without bwrap (here: a PATH without it): one line, and the audit hooks; with
    EXPLAINER_SANDBOX=required (CI), an error before any script runs."""
    attack(repo, "print('[2] once')\n")  # the script changed: regenerate runs it
    fallback = finish(start(repo, "regenerate", "--skip-notebooks", PATH="/nonexistent",
                            EXPLAINER_SANDBOX=""))
    assert fallback.returncode == 0, fallback.text
    notes = [line for line in fallback.stderr.splitlines() if "bubblewrap" in line]
    assert notes == ["note: bubblewrap (bwrap) is not installed; chapter scripts are contained "
                     "by audit hooks only (their own Python writes), not by the kernel"]
    attack(repo, "print('[2] twice')\n")
    required = finish(start(repo, "regenerate", "--skip-notebooks", PATH="/nonexistent",
                            EXPLAINER_SANDBOX="required"))
    assert required.returncode == 1
    assert "EXPLAINER_SANDBOX=required, but bubblewrap (bwrap) is not installed" in required.stderr
    assert "ran ch01_probe.py" not in required.stdout
