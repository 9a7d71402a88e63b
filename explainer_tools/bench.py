"""`make bench`: what a clean regenerate costs against the scripts' own compute, and what a no-op
regenerate costs. A measurement to read, not a test: it writes nothing into the tree.

- clean regenerate: every script run through the runner (as `regenerate --force` does, warm
  parent included) and every page embedded, into memory, with `--jobs` scripts at a time;
- the scripts' own compute: the sum over scripts of the time each spends in its child after the
  fork, i.e. without the numpy, torch and Matplotlib imports a fresh process would pay;
- for comparison, the same scripts as plain fresh processes (`EXPLAINER_RUNNER=subprocess`);
- no-op regenerate: `python -m explainer_tools regenerate` when everything is fresh.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

from explainer_tools import pipeline, runner
from explainer_tools.layout import REPO_ROOT, discover_scripts


def _clean(scripts: list[str], jobs: int, warm: bool) -> tuple[float, pipeline.Plan]:
    previous = os.environ.get(runner.RUNNER_ENV)
    os.environ[runner.RUNNER_ENV] = "" if warm else "subprocess"
    try:
        began = time.perf_counter()
        result = pipeline.plan(scripts, scripts, jobs)
        return time.perf_counter() - began, result
    finally:
        if previous is None:
            os.environ.pop(runner.RUNNER_ENV, None)
        else:
            os.environ[runner.RUNNER_ENV] = previous


def main(jobs: int) -> int:
    scripts = discover_scripts()
    print(f"bench: {len(scripts)} script(s), jobs={jobs}, {os.cpu_count()} CPU(s)")
    for jobs_now in sorted({1, jobs}):
        warm_s, result = _clean(scripts, jobs_now, warm=True)
        plain_s, _ = _clean(scripts, jobs_now, warm=False)
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
    fresh = all(pipeline.is_fresh(s) for s in scripts)
    if fresh:
        began = time.perf_counter()
        subprocess.run([sys.executable, "-m", "explainer_tools", "regenerate"], cwd=REPO_ROOT,
                       check=True, capture_output=True)
        print(f"  no-op regenerate (all fresh, notebooks included): "
              f"{time.perf_counter() - began:.2f} s")
    else:
        print("  no-op regenerate: not measured (some stamps are stale; run make regenerate)")
    return 0
