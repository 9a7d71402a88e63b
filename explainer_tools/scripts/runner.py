"""Run chapter scripts as `python script.py` would, recording the repository files they read.

Four modes, one child code (`_run_in_this_process`):

- Warm sandbox (the default where `containment.sandbox_status` says the kernel's sandbox works
  and a probe of the warm parent's, forked once per run, says the kernel lets it contain a
  forked child): the warm parent below, whose every child contains itself before any script
  code (`zygote.contain`): the file system read-only but the script's figure and temporary
  folders, Matplotlib's folders and the runner's files for it; its own user, mount, PID,
  network and IPC namespaces, a new session, no capabilities; the script runs as the child of
  the namespace's PID 1, and killing the child outside ends the whole namespace. Where the
  probe fails, one line says so and the next mode runs.
- Sandbox (`EXPLAINER_RUNNER=subprocess`, or the warm sandbox's fallback): one fresh
  `python -m explainer_tools.scripts.runner one REQUEST` per script inside bubblewrap
  (`containment.sandbox_command`), with the same folders writable and the same namespaces.
  Killing bwrap ends the whole namespace.
- Warm (outside the sandbox, where `os.fork` exists): one parent, `runner serve`, started in
  the pinned run environment (`settings.run_environment`: the CPU code paths are read when torch
  loads), imports numpy, torch and Matplotlib (Agg) -- running no torch operation, so no thread
  pool has started -- then forks one child per script, at most `jobs` at a time.
- Plain (`EXPLAINER_RUNNER=subprocess`, or no fork): the sandbox's processes without bwrap.

Each child: gets its own process group and dies with its parent (PR_SET_PDEATHSIG); is a
subreaper, so what the script starts stays in its tree even after setsid or a double fork, and
is killed when the script ends or hits a limit (`kill_tree`, through /proc); refuses, from an
audit hook, every Python write outside the request's `writable` folders (figure folder and
temporary folder, which TMPDIR names), logging each to `<stem>.refused` (an error even if the
script catches it); runs under a CPU-time limit (RLIMIT_CPU: CPU seconds do not grow on a busy
machine), the resource limits of `containment.apply_limits` and a wall-clock backstop; reads
stdin from /dev/null and writes stdout and stderr to files of the scratch folder; sets its
working folder and variables (`EXPLAINER_FIG_DIR`, ...); runs the script with `runpy` as
`__main__`, its folder first on `sys.path`, modules it imports imported fresh (hash seed 0
inherited), then the atexit handlers, as the interpreter would. It records, with an audit hook,
every repository file the script opens for reading and every repository folder it lists
(`os.listdir`, `os.scandir`, hence `glob` and `pathlib`; recorded as `folder/`), the repository
modules it imported (outputs, figures, `.venv`, caches and the runner's own modules excluded),
and every repository file whose metadata it reads (os.stat and os.lstat are wrapped), into
`<stem>.deps.json` with the script's run time -- only when the script returned: one that ends
with os._exit gets no inputs file, and no stamp. Reads it cannot see: files read by a
subprocess, the network, the clock, environment variables.

The caller's own watchdog (`process_tree.Watchdog`) ends a run whose tree stays stopped
(SIGSTOP), and the warm parent's reports are read with a timeout, so that no stopped process
blocks the pipeline. Threads: the environment is the caller's, so OMP_NUM_THREADS and friends
reach numpy, torch, MKL and OpenMP as in a fresh process. Per-script limits
(`settings.script_cpu_limit`, `settings.script_timeout`) are reported by script name.
"""

from __future__ import annotations

import atexit
import contextlib
import functools
import json
import os
import re
import runpy
import select
import signal
import stat
import subprocess
import sys
import time
from dataclasses import dataclass, field, replace
from pathlib import Path

if __package__ in (None, ""):  # run by path: make the package importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from explainer_tools.layout import DEFAULT
from explainer_tools.scripts import zygote
from explainer_tools.scripts.containment import (
    Containment,
    ProcessCap,
    apply_limits,
    is_read,
    repo_relative,
    repo_relative_dir,
    sandbox_command,
    sandbox_status,
    writable_paths,
)
from explainer_tools.scripts.process_tree import (
    Watchdog,
    become_subreaper,
    children,
    descendants,
    end_descendants,
    kill_tree,
    set_death_signal,
)
from explainer_tools.scripts.settings import (
    FILE_SIZE_LIMIT_BYTES,
    OPEN_FILES_LIMIT,
    PROCESS_LIMIT,
    run_environment,
    script_memory_limit,
)

try:
    import resource
except ImportError:  # not on Windows
    resource = None  # type: ignore[assignment]

WARM_MODULES = ("numpy", "torch", "matplotlib", "matplotlib.pyplot")
LISTING_EVENTS = ("os.listdir", "os.scandir")  # pathlib and glob list folders through these
RUNNER_ENV = "EXPLAINER_RUNNER"  # "subprocess" forces plain mode
POLL_S = 0.01
WATCH_S = 0.25  # how long the warm parent's reports are waited for between watchdog looks
RUNNER_FILES = (".out", ".err", ".refused", ".deps.json")  # what the runner writes, per script
CPU_EXIT = 128 + getattr(signal, "SIGXCPU", 24)  # how a child reports its CPU limit
_said: list[str] = []  # the warm sandbox's fallback, said once


@dataclass(frozen=True)
class Request:
    """One script to run: where it is, where it runs, what it gets, for how long."""

    script: str  # absolute path of the script
    cwd: str  # its working folder (a scratch folder)
    stem: str  # names its files in `cwd`: <stem>.out, <stem>.err, <stem>.deps.json
    env: dict[str, str] = field(default_factory=dict)  # set on top of the environment
    timeout: float = 600.0  # wall-clock backstop, seconds
    cpu_limit: float = 0.0  # CPU seconds (RLIMIT_CPU of the child); 0: none
    writable: tuple[str, ...] = ()  # folders the script may write into; empty: its cwd
    root: str = str(DEFAULT.root)  # the repository whose files its inputs are recorded from
    processes: int = 0  # RLIMIT_NPROC in the sandbox's user namespace (apply_limits); 0: none

    def path(self, suffix: str) -> Path:
        return Path(self.cwd) / f"{self.stem}{suffix}"


@dataclass
class Result:
    script: str
    returncode: int
    stdout: bytes
    stderr: bytes
    inputs: list[str]  # repository-relative files it read (empty when it failed)
    seconds: float  # wall time of the child, fork to exit
    script_seconds: float  # the script's own run time inside the child (imports it made included)
    timed_out: bool = False
    cpu_exceeded: bool = False  # killed at its CPU-time limit
    refused: list[str] = field(default_factory=list)  # writes refused (outside `writable`)
    unfinished: bool = False  # exit 0 without returning (os._exit): no inputs recorded
    stopped: bool = False  # killed by the watchdog: a process of its tree was stopped (SIGSTOP)
    sandboxed: bool = False  # it ran in the kernel's sandbox (containment.sandbox_command)
    process_limit: int = 0  # the cap on its processes that refused a fork (ProcessCap); 0: none


# --------------------------------------------------------------------------- tracing (child side)


def _by_import_system() -> bool:
    """Whether the listing being audited is the import system looking for modules (their files
    are inputs already), not the script."""
    frame = sys._getframe(2)  # 0: this function, 1: the hook, 2: who called os.listdir
    return "importlib" in frame.f_code.co_filename if frame else False


def _limit_cpu(seconds: float) -> None:
    """RLIMIT_CPU: SIGXCPU at `seconds` of CPU time (reported, exit CPU_EXIT), SIGKILL 5 s
    later. CPU time, unlike wall time, does not grow when the machine is busy."""
    if resource is None or seconds <= 0:
        return
    soft = max(1, int(seconds + 0.999))

    def exceeded(signum: int, frame: object) -> None:
        os.write(2, f"\nrunner: CPU-time limit of {soft} s reached\n".encode())
        with contextlib.suppress(Exception):
            end_descendants()
        os._exit(CPU_EXIT)

    signal.signal(signal.SIGXCPU, exceeded)
    used = resource.getrusage(resource.RUSAGE_SELF)
    spent = int(used.ru_utime + used.ru_stime)  # a forked child inherits the parent's count
    resource.setrlimit(resource.RLIMIT_CPU, (spent + soft, spent + soft + 5))


def _trace_stats(read: set[str], containment: Containment, root: Path) -> None:
    """Record the repository files whose metadata the script reads (`os.path.getsize`,
    `Path.stat`, `exists`, ...: no audit event covers them) by wrapping os.stat and os.lstat."""
    busy = [False]

    def traced(original):  # type: ignore[no-untyped-def]
        def stat(path, *args, **kwargs):  # type: ignore[no-untyped-def]
            result = original(path, *args, **kwargs)
            if containment.active and not busy[0]:
                busy[0] = True
                try:
                    relative = repo_relative(path, root)
                    if relative is not None:
                        read.add(relative)
                finally:
                    busy[0] = False
            return result

        stat.__wrapped__ = original  # type: ignore[attr-defined]
        return stat

    os.stat = traced(os.stat)  # type: ignore[assignment]
    os.lstat = traced(os.lstat)  # type: ignore[assignment]


def _redirect_streams(request: Request) -> None:
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    for fd, suffix in ((1, ".out"), (2, ".err")):
        handle = os.open(request.path(suffix), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(handle, fd)
        os.close(handle)


def _run_script(script: Path) -> int:
    """runpy as `python script.py` would, then the atexit handlers (also under the warm runner,
    whose child ends with os._exit): the exit status."""
    status = 0
    try:
        runpy.run_path(str(script), run_name="__main__")
    except SystemExit as exit_:
        code = exit_.code
        status = code if isinstance(code, int) else (0 if code is None else 1)
        if code is not None and not isinstance(code, int):
            print(code, file=sys.stderr)
    except BaseException:
        import traceback

        traceback.print_exc()
        status = 1
    atexit._run_exitfuncs()  # as the interpreter does on exit
    with contextlib.suppress(Exception):
        sys.stdout.flush()
        sys.stderr.flush()
    return status


def _run_in_this_process(request: Request, base_path: list[str], preloaded: set[str]) -> int:
    """The child: run the script here, contained, and record what it read. Returns the exit
    status; the inputs file (`.deps.json`) is written only when the script returned normally,
    so a script that ends with os._exit gets no stamp."""
    become_subreaper()
    script = Path(request.script).resolve()
    root = Path(request.root).resolve()
    _redirect_streams(request)
    os.chdir(request.cwd)
    os.environ.update(request.env)
    temporary = request.path(".tmp")
    temporary.mkdir(exist_ok=True)
    os.environ["TMPDIR"] = str(temporary)
    import tempfile

    tempfile.tempdir = str(temporary)
    log_fd = os.open(request.path(".refused"), os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    me = os.getpid()
    containment = Containment(request.writable or (request.cwd,), script.name, log_fd,
                              lambda: {me, *descendants(me)})
    read: set[str] = set()

    def hook(event: str, args: tuple[object, ...]) -> None:
        containment.check(event, args)
        if not containment.active:
            return
        if event == "open" and len(args) >= 3 and is_read(args[1], args[2]):
            relative = repo_relative(args[0], root)  # type: ignore[arg-type]
            if relative is not None:
                read.add(relative)
        elif event in LISTING_EVENTS and args and not _by_import_system():
            folder = repo_relative_dir(args[0], root)  # type: ignore[arg-type]
            if folder is not None:
                read.add(folder + "/")  # a listing: its names become an input

    sys.argv = [str(script)]
    sys.path[:] = [str(script.parent), *base_path]
    _limit_cpu(request.cpu_limit)
    apply_limits(script_memory_limit(), FILE_SIZE_LIMIT_BYTES, OPEN_FILES_LIMIT,
                 request.processes)
    _trace_stats(read, containment, root)
    sys.addaudithook(hook)
    began = time.perf_counter()
    status = _run_script(script)
    elapsed = time.perf_counter() - began
    containment.active = False
    end_descendants()
    if status == 0:
        for name, module in list(sys.modules.items()):
            if name in preloaded:
                continue
            relative = repo_relative(getattr(module, "__file__", None) or "", root)
            if relative is not None:
                read.add(relative)
        # The runner's own modules (loaded before the script in both modes; every stamp hashes
        # them as the runner's code) are not the script's inputs, however it reached them.
        read -= {repo_relative(getattr(sys.modules.get(name), "__file__", None) or "", root)
                 for name in preloaded}
        if script.is_relative_to(root):
            read.add(script.relative_to(root).as_posix())
        request.path(".deps.json").write_text(
            json.dumps({"inputs": sorted(read), "seconds": elapsed}, indent=1) + "\n",
            encoding="utf-8",
        )
    return status


def _read_file(path: Path) -> bytes:
    """A file the runner wrote for a script: a regular file, never followed through a link
    (the script could have replaced it with a FIFO, which would block the reader); b"" if
    absent or anything else."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return b""
    with os.fdopen(fd, "rb") as handle:
        return handle.read() if stat.S_ISREG(os.fstat(fd).st_mode) else b""


def _collect(request: Request, returncode: int, seconds: float, timed_out: bool,
             stopped_: bool = False, sandboxed: bool = False) -> Result:
    def read(suffix: str) -> bytes:
        return _read_file(request.path(suffix))

    deps = read(".deps.json")
    inputs, script_seconds = [], 0.0
    unfinished = False
    if returncode == 0 and deps:
        data = json.loads(deps.decode("utf-8"))
        inputs, script_seconds = data["inputs"], data["seconds"]
    elif returncode == 0:
        unfinished = True  # it ended before returning: os._exit, or the runner was killed
    refused = list(dict.fromkeys(read(".refused").decode("utf-8", "replace").splitlines()))
    cpu_exceeded = returncode in (CPU_EXIT, -getattr(signal, "SIGXCPU", 24))
    return Result(Path(request.script).name, returncode, read(".out"), read(".err"), inputs,
                  seconds, script_seconds, timed_out, cpu_exceeded, refused, unfinished,
                  stopped_, sandboxed)


# --------------------------------------------------------------------------- warm parent


def _forked_child(request: Request, base_path: list[str], preloaded: set[str], sandboxed: bool,
                  cap: ProcessCap | None) -> None:
    """A forked child of the warm parent: its own group, dying with the parent; in the warm
    sandbox contained before any script code, then run from the namespace's PID 1. Never
    returns."""
    code = 1
    try:
        os.setpgid(0, 0)
        set_death_signal(signal.SIGKILL)
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(sig, signal.SIG_DFL)
        if sandboxed:
            if cap is not None:
                cap.join()
            zygote.contain(writable_paths(*_sandbox_paths(request)))
            zygote.run_as_init(functools.partial(
                _run_in_this_process, request, base_path, preloaded))
        code = _run_in_this_process(request, base_path, preloaded)
    except BaseException:
        import traceback

        traceback.print_exc()  # into the script's .err: the runner failed
    finally:
        os._exit(code)


def _serve(stdin: bytes) -> int:
    """The warm parent: import the heavy modules, then fork a child per request; in the warm
    sandbox (`sandbox` in the job), once a forked probe says the kernel lets it (else the one
    report is why not)."""
    set_death_signal(signal.SIGTERM)
    job = json.loads(stdin)
    sandboxed = bool(job.get("sandbox"))
    if sandboxed:
        reason = zygote.probe()
        if reason:
            print(json.dumps({"unavailable": reason}), flush=True)
            return 0
    for name in job.get("warm", WARM_MODULES):
        with contextlib.suppress(ImportError):
            __import__(name)
    preloaded = set(sys.modules)
    base_path = list(sys.path[1:])
    pending = [Request(**r) for r in job["requests"]]
    running: dict[int, tuple[Request, float]] = {}
    caps: dict[int, ProcessCap] = {}  # a root pipeline's cgroup per sandboxed script
    jobs = max(1, int(job["jobs"]))

    become_subreaper()  # what a killed child leaves behind comes here, to be ended

    def stop(signum: int, frame: object) -> None:
        for pid in running:
            kill_tree(pid)
        _end_orphans(set())
        for cap in caps.values():
            cap.close()
        os._exit(128 + signum)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGHUP, stop)
    signal.signal(signal.SIGINT, stop)
    while pending or running:
        while pending and len(running) < jobs:
            request = pending.pop(0)
            cap = ProcessCap.make(f"explainer-{os.getpid()}-{request.stem}",
                                  PROCESS_LIMIT) if sandboxed else None
            pid = os.fork()
            if pid == 0:  # the child
                _forked_child(request, base_path, preloaded, sandboxed, cap)
            with contextlib.suppress(PermissionError, ProcessLookupError):
                os.setpgid(pid, pid)  # also from the parent: no race with an early kill
            running[pid] = (request, time.monotonic())
            if cap is not None:
                caps[pid] = cap
        finished = False
        for pid, (request, began) in list(running.items()):
            done, status = os.waitpid(pid, os.WNOHANG)
            elapsed = time.monotonic() - began
            timed_out = False
            if not done and elapsed > request.timeout:
                kill_tree(pid)
                os.waitpid(pid, 0)
                status, timed_out = 9, True
            elif not done:
                continue
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(pid, signal.SIGKILL)  # anything the script left in its group
            del running[pid]
            _end_orphans(set(running))  # and what left the group, re-parented to us
            code = os.waitstatus_to_exitcode(status) if not timed_out else -9
            capped = pid in caps and caps.pop(pid).close()
            print(json.dumps({"stem": request.stem, "returncode": code, "seconds": elapsed,
                              "timed_out": timed_out, "capped": capped}), flush=True)
            finished = True
        if not finished:
            time.sleep(POLL_S)
    return 0


def _end_orphans(scripts: set[int]) -> None:
    """Kill and reap every child of this process that is not a running script's child: the
    orphans of scripts that ended, re-parented here because this process is a subreaper."""
    for pid in children(os.getpid()):
        if pid not in scripts:
            kill_tree(pid)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)


def warm_modules(requests: list[Request]) -> list[str]:
    """The heavy modules worth importing in the parent: those some script imports directly, or
    through a repository module it names (a cheap textual look, not a trace; a module missed here
    is simply imported in the child)."""
    wanted: set[str] = set()
    for request in requests:
        try:
            text = Path(request.script).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for name in ("numpy", "torch", "matplotlib"):
            if re.search(rf"^\s*(?:import|from)\s+{name}\b", text, re.M):
                wanted.add(name)
        if re.search(r"^\s*(?:import|from)\s+pacbound\b", text, re.M):
            wanted.add("numpy")
    if "matplotlib" in wanted:
        wanted.add("matplotlib.pyplot")
    return [name for name in WARM_MODULES if name in wanted]


def warm_available() -> bool:
    return hasattr(os, "fork") and os.environ.get(RUNNER_ENV, "") != "subprocess"


def _base_env() -> dict[str, str]:
    return {**os.environ, **run_environment()}


def _run_warm(requests: list[Request], jobs: int,
              sandboxed: bool = False) -> dict[str, Result] | None:
    """The warm parent's runs; None when `sandboxed` and its probe found the kernel refusing
    the warm sandbox (said once, in one line)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "explainer_tools.scripts.runner", "serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        cwd=DEFAULT.root,  # where explainer_tools is importable: the tools' own repository
        env=_base_env(),
        start_new_session=True,
    )
    by_stem = {r.stem: r for r in requests}
    results: dict[str, Result] = {}
    watchdog = Watchdog()
    halted = ""  # why the watchdog ended the parent
    unavailable = ""  # why the warm sandbox cannot be used (its probe)
    try:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(json.dumps({"jobs": jobs, "warm": warm_modules(requests),
                                     "sandbox": sandboxed,
                                     "requests": [r.__dict__ for r in requests]}).encode("utf-8"))
        proc.stdin.close()
        # Read the parent's reports with a timeout, never blocking on it: a script that stops
        # its parent (SIGSTOP) is seen by the watchdog, which ends the parent and its children.
        pending = b""
        fd = proc.stdout.fileno()
        while True:
            ready, _, _ = select.select([fd], [], [], WATCH_S)
            if ready:
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                pending += chunk
                *lines, pending = pending.split(b"\n")
                for line in lines:
                    report = json.loads(line)
                    if "unavailable" in report:
                        unavailable = report["unavailable"]
                        continue
                    request = by_stem[report["stem"]]
                    results[request.stem] = _collect(request, report["returncode"],
                                                     report["seconds"], report["timed_out"],
                                                     sandboxed=sandboxed)
                    if report["capped"]:
                        results[request.stem].process_limit = PROCESS_LIMIT
            elif watchdog.stopped_roots([proc.pid]):
                halted = "a process of the runner was stopped (SIGSTOP) and the runner was ended"
                kill_tree(proc.pid)
                break
        proc.wait()
    finally:
        if proc.poll() is None:
            proc.terminate()  # its SIGTERM handler kills every child's process group
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                kill_tree(proc.pid)
                proc.wait()
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                stream.close()
    if unavailable:
        if not _said:
            _said.append(unavailable)
            print(f"note: the warm sandbox is unavailable ({unavailable}); each chapter script "
                  "runs in a fresh bubblewrap sandbox", file=sys.stderr)
        return None
    for request in requests:
        if request.stem not in results:
            why = halted or f"the runner ended (exit {proc.returncode})"
            results[request.stem] = Result(Path(request.script).name, -1, b"",
                                           f"{why} before this script finished\n".encode(),
                                           [], 0.0, 0.0, stopped=bool(halted))
    return results


# --------------------------------------------------------------------------- plain subprocesses


def _sandbox_paths(request: Request) -> tuple[list[str], list[str]]:
    """The folders and the runner's files a sandboxed script may write."""
    folders = [*(request.writable or (request.cwd,)), str(request.path(".tmp"))]
    return list(dict.fromkeys(folders)), [str(request.path(s)) for s in RUNNER_FILES]


def _sandbox_prefix(request: Request) -> list[str]:
    """The command prefix that runs the script in bubblewrap, its writable folders and the
    runner's files for it made first."""
    return sandbox_command(*_sandbox_paths(request), str(DEFAULT.root))


def _run_plain(requests: list[Request], jobs: int, sandboxed: bool = False) -> dict[str, Result]:
    """One process per script (`runner one REQUEST`), in the kernel's sandbox if `sandboxed`."""
    pending = list(requests)
    running: dict[str, tuple[Request, subprocess.Popen[bytes], float]] = {}
    caps: dict[str, ProcessCap] = {}  # a root pipeline's cgroup per sandboxed script
    results: dict[str, Result] = {}
    watchdog = Watchdog()
    try:
        while pending or running:
            while pending and len(running) < max(1, jobs):
                request = pending.pop(0)
                prefix, join = [], None
                if sandboxed:
                    prefix = _sandbox_prefix(request)
                    request = replace(request, processes=PROCESS_LIMIT)
                    cap = ProcessCap.make(f"explainer-{os.getpid()}-{request.stem}",
                                          PROCESS_LIMIT)
                    if cap is not None:
                        caps[request.stem], join = cap, cap.join
                proc = subprocess.Popen(
                    [*prefix, sys.executable, "-m", "explainer_tools.scripts.runner", "one",
                     json.dumps(request.__dict__)],
                    stdin=subprocess.DEVNULL,
                    cwd=DEFAULT.root,  # where explainer_tools is importable
                    env=_base_env(),
                    start_new_session=True,
                    preexec_fn=join,
                )
                running[request.stem] = (request, proc, time.monotonic())
            finished = False
            hung = watchdog.stopped_roots([proc.pid for _r, proc, _b in running.values()])
            for stem, (request, proc, began) in list(running.items()):
                elapsed = time.monotonic() - began
                code = proc.poll()
                timed_out = code is None and elapsed > request.timeout
                was_stopped = code is None and proc.pid in hung
                if code is None and not (timed_out or was_stopped):
                    continue
                if code is None:
                    kill_tree(proc.pid)  # its whole tree, while it is alive to be searched
                else:  # it ended its own descendants (end_descendants); its group, to be sure
                    with contextlib.suppress(ProcessLookupError, PermissionError):
                        os.killpg(proc.pid, signal.SIGKILL)
                code = proc.wait()
                del running[stem]
                results[stem] = _collect(request, -9 if timed_out or was_stopped else code,
                                         elapsed, timed_out, was_stopped, sandboxed)
                if stem in caps and caps.pop(stem).close():
                    results[stem].process_limit = PROCESS_LIMIT
                finished = True
            if not finished:
                time.sleep(POLL_S)
    finally:
        for _request, proc, _began in running.values():
            kill_tree(proc.pid)
            proc.wait()
        for cap in caps.values():
            cap.close()
    return results


def run_scripts(requests: list[Request], jobs: int, warm: bool | None = None,
                sandbox: bool | None = None) -> dict[str, Result]:
    """Run every request, at most `jobs` at a time; results by request stem. `sandbox`: in the
    kernel's sandbox (None: where this machine can, containment.sandbox_status); `warm`: with
    the warm parent, in the sandbox the warm sandbox where its probe passes (None: where fork
    exists and EXPLAINER_RUNNER is not "subprocess"; otherwise bwrap per script there)."""
    if not requests:
        return {}
    if sandbox is None:
        sandbox = sandbox_status()
    use_warm = warm_available() if warm is None else warm and hasattr(os, "fork")
    if sandbox:
        if use_warm:
            capped = [replace(r, processes=PROCESS_LIMIT) for r in requests]
            results = _run_warm(capped, jobs, sandboxed=True)
            if results is not None:
                return results
        return _run_plain(requests, jobs, sandboxed=True)
    results = _run_warm(requests, jobs) if use_warm else _run_plain(requests, jobs)
    assert results is not None
    return results


def main(argv: list[str]) -> int:
    if argv[:1] == ["serve"]:
        return _serve(sys.stdin.buffer.read())
    if argv[:1] == ["one"] and len(argv) == 2:
        set_death_signal(signal.SIGKILL)
        preloaded = set(sys.modules)
        return _run_in_this_process(Request(**json.loads(argv[1])), list(sys.path[1:]),
                                    preloaded)
    print("internal entry point of the pipeline: runner.py serve | one REQUEST", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
