"""`regenerate` and `check`: run the chapter scripts, keep their outputs and figures, embed outputs
and sources into the Markdown pages, execute the companion notebooks.

regenerate
    1. Find the chapter scripts (`explainer_code/ch*.py`) whose stamp
       (`outputs/.stamps/<script>.json`) is stale: the script, a repository file it imported or
       read, a folder it listed, `requirements.lock`, the run environment or the runner's code
       changed, or a product
       (output, figure, sidecar of glued values) no longer matches.
    2. Run them (runner.py: each a child of a warm fork parent that contains itself in the
       kernel's sandbox (zygote.py), else under bubblewrap, else with audit hooks only where
       neither works (sandbox_report says which); `--jobs` at a time, each with limits and a
       scratch figure folder; the runner records what each read), the longest first by
       `outputs/run_seconds.json` (run_costs.py).
       A failure stops everything: its traceback is printed, the exit code is non-zero, and no
       file in the tree is touched. Two scripts drawing the same figure name stop it too; so do
       a write the runner refused, a CPU-time or wall-clock limit, a process of the run left
       stopped (SIGSTOP), an exit that skipped the end of the script (os._exit: no inputs
       recorded, so no stamp), an output over 2 MiB or holding control characters, a figure
       folder entry that is not a regular PNG file, and a script whose source or inputs changed
       while it ran (its output is of the old files: no stamp). In the kernel's sandbox the
       scripts cannot write the tree; outside it, files of the tree that change while they run
       are named (`TreeGuard`).
    3. Re-embed every marker in `docs/**/*.md`. Any marker error stops everything, again before
       anything is written.
    4. Check that every file to write can be written, then write what changed, each file
       atomically; remove outputs and stamps of scripts that no longer exist, with the figures
       their stamps name, and figures no script draws any more. A failure mid-way says what
       was written and how to recover.
    5. Execute the companion notebooks (`notebooks/*.py` -> `docs/notebooks/*.ipynb`) whose
       stamp is stale (inputs: `notebooks.notebook_inputs`). A failing notebook leaves the
       notebook and its stamp untouched.

check
    Runs every script into a scratch folder (stamps ignored), embeds into copies of the pages, and
    compares outputs, figures, stamps and pages with the committed ones: a unified diff per text
    difference, a description per figure difference, advice per kind of difference. Beside
    the scripts, re-executes each notebook in memory and compares its deterministic text
    (`notebooks.comparable_text`) and stamp. Writes nothing into the tree (its lock file lies in
    the ignored `.cache/`): in the kernel's sandbox scripts cannot write it; outside it, and
    around every notebook run (sandboxed or not), a file of the tree that changed meanwhile fails
    the check by name (`TreeGuard`), and is left as it is: it may be an author's edit.
    (`python -m explainer_tools check` adds the claim and errata checks: see
    `explainer_tools.__main__.check_everything`.)

Both take a lock (`pipeline_lock`): a second regenerate or check in the same repository says
which run holds it and waits. The pipeline reads only regular files of the tree and of the
figure folders (`tree_io.read_regular`): a link, FIFO or socket is an error naming it.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from explainer_tools import glue
from explainer_tools.layout import DEFAULT, FIG_DIR_ENV, Layout, sha256
from explainer_tools.scripts import cpu_paths, notebooks, numerics, run_costs, runner
from explainer_tools.scripts.marker_fill import MarkerError, embed, resolver
from explainer_tools.scripts.notebooks import stop_executions  # `check`'s flag is named notebooks
from explainer_tools.scripts.other_kernels import (
    machine_kernels,
    other_kernels,
    settle_other_kernels,
)
from explainer_tools.scripts.run_products import (
    changed_during_run,
    collect_figures,
    figure_diff,
    limits,
    normalise_output,
    output_too_long,
    run_error,
    sandboxed,
    text_diff,
)
from explainer_tools.scripts.stamps import (
    is_fresh,
    read_stamp,
    render_stamp,
    same_stamp,
    stamp_environment,
    stamped_figures,
)
from explainer_tools.tree_io import (
    CommandError,
    TreeGuard,
    apply,
    pipeline_lock,
    read_regular,
    refuse_irregular_files,
)


@dataclass
class ScriptRun:
    """What one run of a chapter script produced."""

    script: str  # file name, e.g. "ch05_param_count.py"
    output: str
    figures: dict[str, bytes]
    inputs: list[str]  # repository-relative paths it read
    seconds: float = 0.0  # wall time of its child process
    script_seconds: float = 0.0  # the script's own run time (runner.Result.script_seconds)
    kernels: dict[str, str] | None = None  # the machine's (numerics.Fingerprint.kernels)
    names: str = ""  # its values glued to names: the sidecar's text ("" when none, glue.py)

    def stamp(self, layout: Layout) -> str:
        return render_stamp(self.script, self.inputs, self.output, self.figures, layout,
                            kernels=self.kernels, names=self.names)


@dataclass
class Plan:
    """Every file the pipeline wants in the tree: path -> bytes."""

    files: dict[Path, bytes] = field(default_factory=dict)
    remove: list[Path] = field(default_factory=list)  # products nothing makes any more
    ran: list[str] = field(default_factory=list)
    runs: dict[str, ScriptRun] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)  # scripts made on other kernels
    beyond: list[str] = field(default_factory=list)  # ... whose products differ too much


# --------------------------------------------------------------------------- running scripts


def run_scripts(scripts: list[str], scratch: Path, jobs: int,
                layout: Layout) -> dict[str, ScriptRun]:
    """Run the layout's scripts through the runner; every failure is collected, then raised
    together. Each sees this machine's kernel id in `$EXPLAINER_KERNELS` (ch22_wordnet.py)."""
    if not scripts:
        return {}
    timeout, cpu_limit = limits()
    kernels = machine_kernels(layout)
    extra = {numerics.KERNELS_ENV: kernels["id"]} if kernels else {}
    requests = []
    for script in scripts:
        stem = Path(script).stem
        fig_dir = scratch / "fig" / stem
        fig_dir.mkdir(parents=True)
        requests.append(runner.Request(
            script=str(layout.code_dir / script), cwd=str(scratch), stem=stem,
            env={FIG_DIR_ENV: str(fig_dir), glue.GLUE_ENV: "1",  # glued values marked
                 **extra,  # torch._dynamo's caches: its own folder
                 "TORCHINDUCTOR_CACHE_DIR": str(scratch / f"{stem}.tmp" / "torchinductor")},
            timeout=timeout, cpu_limit=cpu_limit,
            writable=(str(fig_dir), str(scratch / f"{stem}.tmp")), root=str(layout.root)))
    by_script = dict(zip(scripts, requests, strict=True))
    order = run_costs.start_order(scripts, run_costs.read_costs(layout))  # the longest first
    sources = {}
    for script in scripts:  # a source that changes while its script runs is not stamped
        try:
            sources[script] = sha256(read_regular(layout.code_dir / script,
                                                  f"explainer_code/{script}"))
        except FileNotFoundError:
            sources[script] = ""
    began_ns = time.time_ns()
    results = runner.run_scripts([by_script[s] for s in order], jobs, sandbox=sandboxed())
    runs: dict[str, ScriptRun] = {}
    errors: list[str] = []
    for script, request in zip(scripts, requests, strict=True):
        result = results[request.stem]
        error = output_too_long(script, result) or run_error(script, request, result)
        if error:
            errors.append(error)
            continue
        try:
            stdout, glued = glue.split_output(result.stdout, script)
            output = normalise_output(stdout, script)
            figures = collect_figures(scratch / "fig" / request.stem, script)
        except (CommandError, glue.GlueError) as error:
            errors.append(str(error))
            continue
        error = changed_during_run(script, sources[script], result.inputs, began_ns, layout)
        if error:
            errors.append(error)
            continue
        runs[script] = ScriptRun(script, output, figures, result.inputs, result.seconds,
                                 result.script_seconds, kernels,
                                 glue.render_names(script, glued))
    if errors:
        raise CommandError("regenerate: " + "\n".join(errors))
    return runs


def run_script(script: str, scratch: Path, layout: Layout = DEFAULT) -> ScriptRun:
    """Run one chapter script (tests use this); raise CommandError on failure."""
    return run_scripts([script], scratch, 1, layout)[script]


# --------------------------------------------------------------------------- planning


def committed_output(script: str, layout: Layout = DEFAULT) -> str:
    path = layout.output_path(script)
    return path.read_bytes().decode("utf-8", "replace") if path.is_file() else ""


def read_page(page: Path, layout: Layout) -> str:
    data = read_regular(page, layout.relative(page))
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data[: error.start].count(b"\n") + 1
        raise CommandError(
            f"{layout.relative(page)}:{line}: not UTF-8 (byte "
            f"{data[error.start:error.start + 1]!r}); save the page as UTF-8"
        ) from None


def plan_pages(outputs: dict[str, str], pages: list[Path], layout: Layout) -> dict[Path, bytes]:
    """The embedded text of every page; all marker errors are collected, then raised together."""
    resolve = resolver(outputs, layout.code_dir)
    planned: dict[Path, bytes] = {}
    errors: list[str] = []
    for page in pages:
        try:
            text = read_page(page, layout)
            planned[page] = embed(text, layout.relative(page), resolve).encode("utf-8")
        except (MarkerError, CommandError, ValueError) as error:
            errors.append(str(error))
    if errors:
        raise CommandError(
            "regenerate: marker errors; no file was rewritten:\n  " + "\n  ".join(errors)
        )
    return planned


def figure_owners(scripts: list[str], runs: dict[str, ScriptRun],
                  layout: Layout) -> dict[str, str]:
    """Figure name -> the script that draws it; two scripts drawing one name is an error."""
    owners: dict[str, str] = {}
    clashes: list[str] = []
    for script in scripts:
        names = list(runs[script].figures) if script in runs else stamped_figures(script, layout)
        for name in names:
            if name in owners and owners[name] != script:
                clashes.append(f"docs/assets/fig/{name} is drawn by both explainer_code/"
                               f"{owners[name]} and explainer_code/{script}")
            owners.setdefault(name, script)
    if clashes:
        raise CommandError(
            "regenerate: two scripts write the same figure; nothing was written. Give each "
            "figure a name that starts with its script's chapter and topic:\n  "
            + "\n  ".join(clashes)
        )
    return owners


def orphaned_figures(scripts: list[str], owners: dict[str, str], layout: Layout) -> list[Path]:
    """Figures whose stamp belongs to a script that no longer exists, drawn by no script now
   ."""
    live = {layout.stamp_path(s) for s in scripts}
    found = []
    for stamp in sorted(layout.stamp_dir.glob("ch*.json")):
        if stamp in live:
            continue
        fields = read_stamp(stamp)
        for name in sorted(fields["figures"]) if fields else []:
            if name not in owners and (layout.fig_dir / name).is_file():
                found.append(layout.fig_dir / name)
    return found


def orphans(scripts: list[str], layout: Layout) -> list[Path]:
    """Outputs and stamps of scripts that no longer exist (e.g. after a rename)."""
    wanted = {layout.output_path(s) for s in scripts} | {layout.stamp_path(s) for s in scripts}
    wanted |= {layout.notebook_stamp_path(target) for target in layout.notebook_targets().values()}
    wanted |= {glue.names_path(layout.output_dir, s) for s in scripts}
    return sorted(p for p in [*layout.output_dir.glob("*.txt"), *layout.stamp_dir.glob("*.json"),
                              *layout.output_dir.glob("*" + glue.SUFFIX)] if p not in wanted)


def plan(scripts: list[str], to_run: list[str], jobs: int, layout: Layout,
         checking: bool = False) -> Plan:
    """Run `to_run` and compute every file the layout's tree should hold for `scripts`
    (`checking`: for check, which puts back whatever changed in the tree meanwhile); products
    made on other kernels stand where within the tolerance (`other_kernels`: `Plan.notes`)."""
    result = Plan(ran=list(to_run))
    recorded = other_kernels(to_run, layout)
    # In the kernel's sandbox the scripts cannot write the tree; outside it, what changed in the
    # tree meanwhile is named (and fails check), never put back.
    guard = (contextlib.nullcontext() if not to_run or sandboxed()
             else TreeGuard(layout.root, failing=checking))
    with guard, tempfile.TemporaryDirectory(prefix="regenerate-") as scratch:
        runs = run_scripts(to_run, Path(scratch), jobs, layout)
    result.notes = settle_other_kernels(runs, recorded, layout)
    result.beyond = [s for s in recorded if s in runs and runs[s].kernels != recorded[s]]
    result.runs = runs
    owners = figure_owners(scripts, runs, layout)
    outputs = {script: committed_output(script, layout) for script in scripts}
    fig_dir = layout.fig_dir
    for script, run in runs.items():
        outputs[script] = run.output
        result.files[layout.output_path(script)] = run.output.encode("utf-8")
        result.files[layout.stamp_path(script)] = run.stamp(layout).encode("utf-8")
        names = glue.names_path(layout.output_dir, script)
        if run.names:
            result.files[names] = run.names.encode("utf-8")
        elif names.is_file():
            result.remove.append(names)
        for name, data in run.figures.items():
            result.files[fig_dir / name] = data
        dropped = set(stamped_figures(script, layout)) - set(run.figures) - set(owners)
        result.remove += [fig_dir / name for name in sorted(dropped) if (fig_dir / name).is_file()]
    result.files.update(plan_pages(outputs, layout.markdown_pages(), layout))
    result.remove += orphaned_figures(scripts, owners, layout) + orphans(scripts, layout)
    return result


# --------------------------------------------------------------------------- differences


@dataclass(frozen=True)
class Difference:
    report: str  # the diff or description
    advice: str  # what fixes it


REGENERATE = "run `make regenerate` and commit the result"


def differences(files: dict[Path, bytes], scripts: list[str], layout: Layout) -> list[Difference]:
    found = []
    relative = layout.relative
    for path, data in sorted(files.items()):
        if path.is_file() and path.read_bytes() == data:
            continue
        if path.suffix == ".png":
            found.append(Difference(figure_diff(path, data, layout), REGENERATE))
        else:
            found.append(Difference(text_diff(path, data, layout) or f"{relative(path)}: differs\n",
                                    REGENERATE))
    expected = {path for path in files if path.parent == layout.fig_dir}
    for stray in sorted(layout.fig_dir.glob("*.png")):
        if stray not in expected:
            found.append(Difference(
                f"{relative(stray)}: no chapter script draws this figure\n",
                f"delete it (`git rm {relative(stray)}`) or restore the script that draws it"))
    for script in scripts:  # a script that glues no value any more (check runs every one)
        names = glue.names_path(layout.output_dir, script)
        if layout.output_path(script) in files and names not in files and names.is_file():
            found.append(Difference(f"{relative(names)}: {script} glues no value any more\n",
                                    REGENERATE))
    for stray in orphans(scripts, layout):
        found.append(Difference(
            f"{relative(stray)}: no chapter script of that name\n",
            "run `make regenerate`, which removes the products of renamed or deleted scripts, "
            "and commit the removal"))
    return found


def nondeterminism(first: dict[Path, bytes], second: dict[Path, bytes],
                   layout: Layout) -> list[str]:
    """Files that two runs of the same scripts made differently."""
    return [layout.relative(p) for p in sorted(first) if second.get(p) != first[p]]


# --------------------------------------------------------------------------- notebooks


def render_notebook_stamp(source: Path, notebook: bytes, layout: Layout,
                          kernels: dict[str, str] | None = None) -> str:
    return render_stamp(
        layout.relative(source),
        notebooks.notebook_inputs(source, layout),
        notebooks.comparable_text(notebook),  # the stamp's "output": what check compares
        {},
        layout,
        environment=stamp_environment(notebooks.KERNEL_ENV),
        runner_code=notebooks.NOTEBOOK_RUNNER_CODE,
        kernels=kernels,
    )


def notebook_kernels(target: Path, layout: Layout) -> dict[str, str] | None:
    """The kernels the committed stamp of the notebook `target` records (None: none)."""
    stamp = read_stamp(layout.notebook_stamp_path(target))
    return stamp.get("kernels") if stamp else None


def notebook_is_fresh(source: Path, target: Path, layout: Layout, ignoring: str = "") -> bool:
    """`same_stamp` for the notebook `target` (`ignoring`: `explainer_tools/`, what runs it)."""
    stamp = layout.notebook_stamp_path(target)
    return target.is_file() and same_stamp(stamp, render_notebook_stamp(
        source, target.read_bytes(), layout, notebook_kernels(target, layout)), ignoring)


def notebook_other_kernels(source: Path, target: Path, layout: Layout) -> dict[str, str] | None:
    """Its kernels, where the committed notebook is one `other_kernels` would name; else None."""
    recorded = numerics.elsewhere(notebook_kernels(target, layout), machine_kernels(layout), layout)
    fresh = recorded and notebook_is_fresh(source, target, layout, "explainer_tools/")
    return recorded if fresh else None


def execute_notebooks(force: bool, layout: Layout) -> list[Path]:
    """Execute stale notebooks, then write each with its stamp; return the files written."""
    written = []
    relative = layout.relative
    for source, target in layout.notebook_targets().items():
        if not force and notebook_is_fresh(source, target, layout):
            continue
        other = notebook_other_kernels(source, target, layout)
        print(f"regenerate: executing {relative(source)} (about 90 s)" + (
            "; made on other kernels, it is kept and restamped" if other else ""), flush=True)
        try:
            with TreeGuard(layout.root, failing=False):
                notebook = notebooks.execute_notebook(source, layout)
        except CommandError:
            raise
        except Exception as error:
            raise CommandError(
                f"regenerate: {relative(source)} failed; {relative(target)} left as it was.\n"
                f"{error}"
            ) from None
        notebook = target.read_bytes() if other else notebook  # other kernels: it stands
        stamp = render_notebook_stamp(source, notebook, layout,
                                      other or machine_kernels(layout)).encode("utf-8")
        written += apply({target: notebook, layout.notebook_stamp_path(target): stamp}, layout)
    return written


def notebook_differences(layout: Layout) -> list[Difference]:
    """Re-execute every notebook in memory and report drift from the committed copies (a fresh
    one made on other kernels: executed and its claims checked, its outputs not compared)."""
    found = []
    relative = layout.relative
    unavailable = cpu_paths.pinned_paths_unavailable()  # '' on x86-64 with AVX2
    here = machine_kernels(layout)
    for source, target in layout.notebook_targets().items():
        if not target.is_file():
            found.append(Difference(f"{relative(target)}: missing\n", REGENERATE))
            continue
        recorded = notebook_other_kernels(source, target, layout)
        try:
            with TreeGuard(layout.root):
                fresh = notebooks.execute_notebook(source, layout)
        except notebooks.NotebookError as error:
            found.append(Difference(f"{relative(target)}: {error}\n",
                                    f"fix the failing cell in {relative(source)}"))
            continue
        if unavailable:  # an ARM laptop: it ran and its claims hold; outputs not comparable
            print(cpu_paths.not_compared_message(relative(target), unavailable))
            continue
        committed = target.read_bytes()
        kernels = here
        if recorded:  # training carries the other last bits into other losses and sampled text
            if notebooks.comparable_text(committed) != notebooks.comparable_text(fresh):
                print(cpu_paths.not_compared_message(relative(target), (
                    f"it was made on {recorded.get('cpu', '?')} (kernels {recorded.get('id')}), "
                    "whose vector math computes other bits than this machine's")))
            fresh, kernels = committed, recorded
        diff = notebooks.diff_notebooks(committed, fresh, relative(target))
        if diff:
            found.append(Difference(
                diff + f"{relative(target)}: differs from a fresh execution\n", REGENERATE))
        stamp = layout.notebook_stamp_path(target)
        expected = render_notebook_stamp(source, fresh, layout, kernels).encode("utf-8")
        if not stamp.is_file() or stamp.read_bytes() != expected:
            found.append(Difference(
                text_diff(stamp, expected, layout) or f"{relative(stamp)}: differs\n",
                REGENERATE))
    return found


# --------------------------------------------------------------------------- entry points

def select_scripts(scripts: list[str], names: list[str]) -> list[str]:
    """The scripts `names` picks out (`ch05_attention`, `ch05_attention.py`, or a path to it),
    in `scripts`' order; every script when `names` is empty. An unknown name is an error."""
    if not names:
        return list(scripts)
    wanted = {Path(name).name if name.endswith(".py") else Path(name).name + ".py"
              for name in names}
    unknown = sorted(wanted - set(scripts))
    if unknown:
        raise CommandError(f"regenerate: no chapter script {', '.join(unknown)} in "
                            f"explainer_code/ (the scripts are named like {scripts[0]})")
    return [s for s in scripts if s in wanted]


def regenerate(jobs: int, force: bool = False, notebooks: bool = True,
               only: list[str] | None = None, layout: Layout = DEFAULT) -> int:
    """Run the stale scripts (every one with `force`; of `only`, when scripts are named) and
    write what they make. Naming scripts leaves the notebooks out."""
    with pipeline_lock(layout, "regenerate"):
        refuse_irregular_files(layout.root, "regenerate")
        return _regenerate(jobs, force, notebooks, only, layout)


def _regenerate(jobs: int, force: bool, notebooks: bool, only: list[str] | None,
                layout: Layout) -> int:
    scripts = layout.discover_scripts()
    chosen = select_scripts(scripts, only or [])
    to_run = [s for s in chosen if force or not is_fresh(s, layout)]
    notebooks = notebooks and not only
    result = plan(scripts, to_run, jobs, layout)
    print("".join(f"regenerate: {note}\n" for note in result.notes), end="")
    written = apply(result.files, layout, result.remove)
    for path in result.remove:
        print(f"  removed {layout.relative(path)} (nothing makes it any more)")
    if notebooks:
        written += execute_notebooks(force, layout)
    ran = ", ".join(result.ran) if result.ran else "none (all fresh)"
    print(f"regenerate: ran {ran}; {len(written)} file(s) written")
    for path in written:
        print(f"  wrote {layout.relative(path)}")
    return 0


def script_differences(scripts: list[str], jobs: int,
                       layout: Layout) -> tuple[list[Difference], int]:
    """Run every script into scratch and compare what it makes with the committed files; the
    differences, and how many files were compared."""
    result = plan(scripts, scripts, jobs, layout, checking=True)
    for note in result.notes:
        print(f"check: {note}")
    found = differences(result.files, scripts, layout)
    if result.beyond:
        found.insert(0, Difference(
            f"made on other kernels, beyond the tolerance here: {', '.join(result.beyond)}\n",
            "regenerate those scripts on a machine whose kernels made them (`make numerics` "
            "says whether this one does), or here, and then update every number the claim "
            "check flags"))
    if found:
        # Is it the committed files, or the scripts? Run the differing scripts once more: if the
        # second run differs from the first, no regenerate can fix it.
        # Only scripts whose stamp is fresh: their inputs did not change since the committed
        # run, so a different output means the script (or the machine) is not deterministic.
        suspects = [s for s in scripts if s not in result.beyond and is_fresh(s, layout) and any(
            d.report.startswith(f"--- {layout.relative(layout.output_path(s))}") for d in found)]
        if suspects:
            again = plan(scripts, suspects, jobs, layout, checking=True)
            unstable = nondeterminism(
                {p: d for p, d in result.files.items() if p in again.files}, again.files, layout)
            if unstable:
                found.insert(0, Difference(
                    "these files differ between two runs of the same scripts: "
                    + ", ".join(unstable) + "\n",
                    "make the script deterministic (seed every generator, round floats that "
                    "pass through BLAS or torch reductions to 4 significant digits, print "
                    "platform noise as a bound); `make regenerate` cannot fix this"))
            else:
                found.insert(0, Difference(
                    "the output of " + ", ".join(suspects) + " changed, although every file "
                    "its stamp records is unchanged\n",
                    "the script depends on something the tracer cannot see (a file read by a "
                    "subprocess, an environment variable, the clock, the network): open its "
                    "inputs by name in the script, then run `.venv/bin/python -m "
                    "explainer_tools regenerate --force` and commit"))
    return found, len(result.files)


def check(jobs: int, notebooks: bool = True, layout: Layout = DEFAULT) -> int:
    """Regenerate into memory and compare; 0 when everything matches."""
    with pipeline_lock(layout, "check"):
        refuse_irregular_files(layout.root, "check")
        return _check(jobs, notebooks, layout)


def _check(jobs: int, notebooks: bool, layout: Layout) -> int:
    scripts = layout.discover_scripts()
    # The notebooks re-execute beside the scripts (a process of their own, reading committed
    # files only), so that neither waits for the other.
    with ThreadPoolExecutor(max_workers=1) as beside:
        notebook_run = beside.submit(notebook_differences, layout) if notebooks else None
        try:
            found, compared = script_differences(scripts, jobs, layout)
        except BaseException:  # a failure or an interrupt: end the notebooks, do not wait
            stop_executions()
            raise
        if notebook_run is not None:
            found += notebook_run.result()
    for difference in found:
        sys.stdout.write(difference.report if difference.report.endswith("\n")
                         else difference.report + "\n")
    if found:
        print(f"check: {len(found)} difference(s) between the committed files and a fresh "
              "regeneration. To fix:")
        for advice in dict.fromkeys(d.advice for d in found):
            print(f"  - {advice}")
        return 1
    notebook_count = len(layout.notebook_targets()) if notebooks else 0
    print(
        f"check: {len(scripts)} script(s), {notebook_count} notebook(s), "
        f"{compared} file(s): all up to date"
    )
    return 0


def cpu_count() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (
        os.cpu_count() or 1)
