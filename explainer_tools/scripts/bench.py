"""`make bench`: what a clean regenerate costs against the scripts' own compute, and what a no-op
regenerate costs. A measurement to read, not a test: it writes nothing into the tree.
(`make costs`, `record_costs`, is the exception: it writes the record of each script's run time
that starts the longest first, `outputs/run_seconds.json`; see run_costs.py.)

- clean regenerate: every script run through the runner (as `regenerate --force` does, warm
  parent included) and every page embedded, into memory, with `--jobs` scripts at a time;
- the scripts' own compute: the sum over scripts of the time each spends in its child after the
  fork, i.e. without the numpy, torch and Matplotlib imports a fresh process would pay;
- for comparison, the same scripts as plain fresh processes (`EXPLAINER_RUNNER=subprocess`);
- no-op regenerate: `python -m explainer_tools regenerate` when everything is fresh.

`make bench-miniature` (`python -m explainer_tools.scripts.bench --miniature`): the default tier of
the miniature (Chapters 21-22's scripts, the ones `make regenerate` runs), one script at a time as a
plain fresh process, each with its wall time and CPU time (its process tree's, from
`resource.getrusage(RUSAGE_CHILDREN)`) against the budget BOOK.md sets for it, the totals
against the two-core machine the budget is stated for, and whether each output still equals its
committed copy. Also writes nothing into the tree (scripts run in a temporary folder).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from explainer_tools.layout import DEFAULT, Layout, write_atomic
from explainer_tools.scripts import pipeline, run_costs, runner
from explainer_tools.scripts.containment import SANDBOX_ENV

MINIATURE_PREFIXES = ("ch21_", "ch22_")
# BOOK.md, "Time budget per script, on an unloaded two-core machine": chapter 22 at most 150 s;
# Chapter 21 is not listed there, and its script is held to the same 150 s here.
MINIATURE_BUDGET_S = 150.0


def _clean(scripts: list[str], jobs: int, warm: bool,
           layout: Layout) -> tuple[float, pipeline.Plan]:
    previous = os.environ.get(runner.RUNNER_ENV)
    os.environ[runner.RUNNER_ENV] = "" if warm else "subprocess"
    try:
        began = time.perf_counter()
        result = pipeline.plan(scripts, scripts, jobs, layout)
        return time.perf_counter() - began, result
    finally:
        if previous is None:
            os.environ.pop(runner.RUNNER_ENV, None)
        else:
            os.environ[runner.RUNNER_ENV] = previous


def time_regenerate(jobs: int, layout: Layout = DEFAULT) -> int:
    """`make bench`: a clean regenerate and a no-op regenerate, timed."""
    scripts = layout.discover_scripts()
    print(f"bench: {len(scripts)} script(s), jobs={jobs}, {os.cpu_count()} CPU(s)")
    for jobs_now in sorted({1, jobs}):
        warm_s, result = _clean(scripts, jobs_now, True, layout)
        plain_s, _ = _clean(scripts, jobs_now, False, layout)
        compute = sum(run.script_seconds for run in result.runs.values())
        per_core = compute / min(jobs_now, max(1, len(scripts)))
        print(f"  jobs={jobs_now}: clean regenerate (warm runner) {warm_s:.2f} s; "
              f"plain subprocesses {plain_s:.2f} s")
        print(f"    scripts' own compute, summed: {compute:.2f} s "
              f"(ideal wall with {jobs_now} job(s): {per_core:.2f} s); "
              f"warm/ideal = {warm_s / per_core:.2f}x, plain/ideal = {plain_s / per_core:.2f}x")
        for script, run in sorted(result.runs.items()):
            print(f"    {script}: {run.script_seconds:.2f} s in its child, "
                  f"{run.seconds:.2f} s fork to exit")
    fresh = all(pipeline.is_fresh(s, layout) for s in scripts)
    if fresh:
        began = time.perf_counter()
        subprocess.run([sys.executable, "-m", "explainer_tools", "regenerate"], cwd=layout.root,
                       check=True, capture_output=True)
        print(f"  no-op regenerate (all fresh, notebooks included): "
              f"{time.perf_counter() - began:.2f} s")
    else:
        print("  no-op regenerate: not measured (some stamps are stale; run make regenerate)")
    return 0


def miniature_scripts(scripts: list[str]) -> list[str]:
    """The default tier of Chapters 21-22: the chapter scripts `make regenerate` runs for them."""
    return [s for s in scripts if s.startswith(MINIATURE_PREFIXES)]


def children_cpu() -> float:
    """User + system CPU seconds of every finished child process (and theirs) so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_script(script: str, scratch: Path,
                layout: Layout = DEFAULT) -> tuple[float, float, bool]:
    """(wall s, CPU s, output equals the committed copy) of one plain run of `script`."""
    cpu0, began = children_cpu(), time.perf_counter()
    run = pipeline.run_script(script, scratch, layout)
    wall, cpu = time.perf_counter() - began, children_cpu() - cpu0
    return wall, cpu, run.output == pipeline.committed_output(script, layout)


def over_budget(rows: list[tuple[str, float, float, bool]], budget: float) -> list[str]:
    """The scripts whose CPU time exceeds `budget` (CPU time, not wall: a busy machine stretches
    wall time, not CPU time)."""
    return [script for script, _, cpu, _ in rows if cpu > budget]


def miniature(budget: float = MINIATURE_BUDGET_S, layout: Layout = DEFAULT) -> int:
    """Time the miniature's default tier; 1 when a script is over budget or its output changed."""
    scripts = miniature_scripts(layout.discover_scripts())
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"bench --miniature: {len(scripts)} script(s) of the default tier, one at a time, "
          f"plain processes; {os.cpu_count()} CPU(s), load average {load:.2f} at the start")
    print(f"  budget: {budget:g} s per script on an unloaded two-core machine (BOOK.md), "
          f"compared with CPU time")
    previous = {name: os.environ.get(name) for name in (runner.RUNNER_ENV, SANDBOX_ENV)}
    # Plain child processes: a sandboxed script is a child of bubblewrap or of the warm parent,
    # whose CPU time never reaches this process's RUSAGE_CHILDREN (it would read 0.0 s).
    os.environ[runner.RUNNER_ENV], os.environ[SANDBOX_ENV] = "subprocess", "off"
    mpl_previous = os.environ.get("MPLCONFIGDIR")
    mpl_dir = tempfile.TemporaryDirectory(prefix="bench-miniature-mpl-")
    os.environ["MPLCONFIGDIR"] = mpl_dir.name  # Matplotlib's cache: the runner allows this one
    rows = []
    try:
        for script in scripts:
            with tempfile.TemporaryDirectory(prefix="bench-miniature-") as scratch:
                wall, cpu, same = time_script(script, Path(scratch), layout)
            rows.append((script, wall, cpu, same))
            print(f"    {script:<20} wall {wall:7.1f} s  CPU {cpu:7.1f} s  "
                  f"{'within' if cpu <= budget else 'OVER'} budget  output "
                  f"{'equals the committed copy' if same else 'DIFFERS from outputs/'}",
                  flush=True)
    finally:
        for name, value in (*previous.items(), ("MPLCONFIGDIR", mpl_previous)):
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
        mpl_dir.cleanup()
    wall = sum(r[1] for r in rows)
    cpu = sum(r[2] for r in rows)
    print(f"  total: wall {wall:.1f} s one at a time, CPU {cpu:.1f} s; on two cores at best "
          f"{cpu / 2:.1f} s of wall time for the tier (CPU / 2)")
    over = over_budget(rows, budget)
    changed = [r[0] for r in rows if not r[3]]
    if over:
        print(f"  over budget: {', '.join(over)}")
    if changed:
        print(f"  output changed (run make regenerate, or find why): {', '.join(changed)}")
    return 1 if over or changed else 0


def record_costs(jobs: int, layout: Layout = DEFAULT) -> int:
    """`make costs`: run every script once (into scratch, as check does, `jobs` at a time) and
    write each one's wall seconds to `outputs/run_seconds.json`."""
    scripts = layout.discover_scripts()
    path = run_costs.costs_path(layout)
    path.unlink(missing_ok=True)  # the old record, malformed or not, must not stop the new one
    with tempfile.TemporaryDirectory(prefix="costs-") as scratch:
        runs = pipeline.run_scripts(scripts, Path(scratch), jobs, layout)
    seconds = {script: run.seconds for script, run in runs.items()}
    write_atomic(path, run_costs.render_costs(seconds).encode("utf-8"))
    longest = run_costs.start_order(scripts, {s: round(t) for s, t in seconds.items()})[:3]
    print(f"costs: {len(runs)} script(s) timed, {jobs} at a time; wrote {layout.relative(path)} "
          f"(the longest: {', '.join(longest)})")
    return 0


def main(argv: list[str] | None = None) -> int:
    """`python -m explainer_tools.scripts.bench --miniature` (`make bench-miniature`); without
    `--miniature`, the same as `python -m explainer_tools bench`."""
    parser = argparse.ArgumentParser(prog="python -m explainer_tools.scripts.bench")
    parser.add_argument("--miniature", action="store_true",
                        help="time Chapters 21-22's default tier against its budget")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--budget", type=float, default=MINIATURE_BUDGET_S,
                        help="seconds of CPU time per script (default: BOOK.md's 150)")
    args = parser.parse_args(argv)
    return miniature(args.budget) if args.miniature else time_regenerate(args.jobs)


if __name__ == "__main__":
    sys.exit(main())
