"""The command line of the pipeline and the checks (where any other command goes:
explainer_tools/__init__.py).

    python -m explainer_tools regenerate [--force] [--jobs N] [--skip-notebooks] [SCRIPT ...]
    python -m explainer_tools check [--jobs N] [--skip-notebooks]   # everything `make check` does
    python -m explainer_tools claims [-v] [-q] [PAGE ...]
    python -m explainer_tools errata [--check]
    python -m explainer_tools chapter N SLUG "TITLE"
    python -m explainer_tools bench [--jobs N]
    python -m explainer_tools costs [--jobs N]   # record each script's run time (make costs)

`main(argv, layout)` runs one of them in this process on the repository `layout` names (the
tools' own by default; the pipeline's tests give it small fixture repositories).
"""

from __future__ import annotations

import argparse
import contextlib
import signal
import sys
import threading
from collections.abc import Iterator

from explainer_tools.layout import DEFAULT, Layout


def _stop_on_signal(signum: int, frame: object) -> None:
    """SIGTERM or SIGHUP: unwind like Ctrl-C, so scratch folders and script processes are cleaned
    up by the `finally` blocks on the way out."""
    raise KeyboardInterrupt(f"signal {signum}")


@contextlib.contextmanager
def _unwinding_on_signals() -> Iterator[None]:
    """SIGTERM and SIGHUP unwind like Ctrl-C while a command runs (main thread only: signal
    handlers cannot be set from other threads); the previous handlers are put back after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {signum: signal.signal(signum, _stop_on_signal)
                for signum in (signal.SIGTERM, signal.SIGHUP)}
    try:
        yield
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _rooted(argv: list[str], layout: Layout) -> list[str]:
    """`argv` for a checker with a `--root` option: the layout's root first (so that a `--root`
    in `argv` still wins), nothing added for the tools' own repository."""
    return argv if layout == DEFAULT else ["--root", str(layout.root), *argv]


def check_everything(jobs: int, notebooks: bool, layout: Layout = DEFAULT) -> int:
    """Outputs, figures, pages, stamps, notebooks (the pipeline); then claims; then errata; then
    the claims ledger; then chapter status and the book-wide checks (chapters, book_checks); then
    the kernels' line (numerics). 0 when all pass."""
    from explainer_tools.book import errata, ledger
    from explainer_tools.claims import cli as claims_cli
    from explainer_tools.scripts import pipeline
    from explainer_tools.tree_io import IrregularFiles

    status = 0
    try:
        status |= pipeline.check(jobs=jobs, notebooks=notebooks, layout=layout)
    except IrregularFiles as error:  # the checks below would read them: stop here
        print(error, file=sys.stderr)
        return 1
    except pipeline.CommandError as error:
        print(error, file=sys.stderr)
        status = 1
    status |= claims_cli.main(_rooted(["--quiet"], layout))
    if layout.errata_dir.is_dir():
        status |= errata.main(_rooted(["--check"], layout))
    if (layout.root / ledger.LEDGER_PATH).is_file():
        status |= ledger.main(_rooted(["--check"], layout))
    from explainer_tools.book import book_checks, chapters

    status |= chapters.main(["--check"], root=layout.root) | book_checks.main([], root=layout.root)
    line = numerics_line(layout)
    if line is not None:
        print(line)
    return 1 if status else 0


def numerics_line(layout: Layout = DEFAULT) -> str | None:
    """Check's last line, for the book's own repository only: whether this machine's kernels
    compute what the reference machine's did (numerics.py), where to look when a training
    script's output differs. None for other repositories (the tests' fixtures have no reference)."""
    if layout != DEFAULT:
        return None
    from explainer_tools.scripts import numerics

    return numerics.check_line(layout)


def main(argv: list[str] | None = None, layout: Layout = DEFAULT) -> int:
    """One command of the command line (`argv`, without the program name) on `layout`'s
    repository; the exit status."""
    from explainer_tools.scripts.pipeline import cpu_count

    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["claims"]:  # their own options, passed through as they are
        from explainer_tools.claims import cli

        return cli.main(_rooted(argv[1:], layout))
    if argv[:1] == ["errata"]:
        from explainer_tools.book import errata

        return errata.main(_rooted(argv[1:], layout))

    parser = argparse.ArgumentParser(prog="python -m explainer_tools")
    commands = parser.add_subparsers(dest="command", required=True)
    regen = commands.add_parser("regenerate", help="run changed scripts, write outputs, embed")
    regen.add_argument("--force", action="store_true", help="run every script, fresh or not")
    regen.add_argument("scripts", nargs="*", metavar="SCRIPT",
                       help="run only these scripts (e.g. ch05_attention); the notebooks are "
                       "left out")
    check = commands.add_parser(
        "check", help="regenerate into scratch and compare; check claims and errata; write nothing"
    )
    bench = commands.add_parser("bench", help="time a clean regenerate against the scripts' "
                                "own compute, and a no-op regenerate (writes nothing)")
    costs = commands.add_parser("costs", help="run every script once and record its time in "
                                "outputs/run_seconds.json: the longest start first")
    for sub in (regen, check, bench, costs):
        sub.add_argument("--jobs", type=int, default=cpu_count(), help="scripts run at once")
    for sub in (regen, check):
        sub.add_argument(
            "--skip-notebooks", action="store_true", help="leave the notebooks out (faster)"
        )
    commands.add_parser("claims", help="check numbers quoted in prose (claims -h for more)")
    commands.add_parser("errata", help="check the errata (errata -h for more)")
    chapter = commands.add_parser("chapter", help="scaffold a chapter: page, script, nav line")
    chapter.add_argument("number", type=int)
    chapter.add_argument("slug")
    chapter.add_argument("title")
    args = parser.parse_args(argv)
    with _unwinding_on_signals():
        return _run(args, layout)


def _run(args: argparse.Namespace, layout: Layout) -> int:
    from explainer_tools.scripts import pipeline

    try:
        if args.command == "regenerate":
            from explainer_tools.book import chapters

            status = pipeline.regenerate(
                jobs=args.jobs, force=args.force, notebooks=not args.skip_notebooks,
                only=args.scripts, layout=layout,
            )
            return status or chapters.main([], root=layout.root)  # BOOK.md's contents, from the nav
        if args.command == "check":
            return check_everything(args.jobs, not args.skip_notebooks, layout)
        if args.command == "chapter":
            from explainer_tools.book import scaffold

            return scaffold.main(args.number, args.slug, args.title, layout)
        from explainer_tools.scripts import bench as bench_module

        if args.command == "costs":
            return bench_module.record_costs(args.jobs, layout)
        return bench_module.time_regenerate(args.jobs, layout)
    except pipeline.CommandError as error:
        print(error, file=sys.stderr)
        return 1
    except KeyboardInterrupt as interrupt:
        print(f"interrupted ({interrupt or 'Ctrl-C'}); script processes and scratch folders were "
              "cleaned up", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
