"""The one command line of the project; the Makefile calls it.

    python -m explainer_tools regenerate [--force] [--jobs N] [--skip-notebooks] [SCRIPT ...]
    python -m explainer_tools check [--jobs N] [--skip-notebooks]   # everything `make check` does
    python -m explainer_tools claims [-v] [-q] [PAGE ...]
    python -m explainer_tools errata [--check]
    python -m explainer_tools.ledger --check     # the claims ledger (part of check)
    python -m explainer_tools.pdf                # the whole book as a PDF (make pdf)
    python -m explainer_tools chapter N SLUG "TITLE"
    python -m explainer_tools bench [--jobs N]
"""

from __future__ import annotations

import argparse
import signal
import sys


def _stop_on_signal(signum: int, frame: object) -> None:
    """SIGTERM or SIGHUP: unwind like Ctrl-C, so scratch folders and script processes are cleaned
    up by the `finally` blocks on the way out."""
    raise KeyboardInterrupt(f"signal {signum}")


def check_everything(jobs: int, notebooks: bool) -> int:
    """Outputs, figures, pages, stamps, notebooks; then claims; then errata; then the claims
    ledger. 0 when all pass."""
    from explainer_tools import errata, ledger, pipeline
    from explainer_tools.claims import cli as claims_cli
    from explainer_tools.layout import ERRATA_DIR, REPO_ROOT

    status = 0
    try:
        status |= pipeline.check(jobs=jobs, notebooks=notebooks)
    except pipeline.PipelineError as error:
        print(error, file=sys.stderr)
        status = 1
    status |= claims_cli.main(["--quiet"])
    if ERRATA_DIR.is_dir():
        status |= errata.main(["--check"])
    if (REPO_ROOT / ledger.LEDGER_PATH).is_file():
        status |= ledger.main(["--check"])
    from explainer_tools import book, book_checks

    status |= book.main(["--check"]) | book_checks.main([])
    return 1 if status else 0


def main(argv: list[str] | None = None) -> int:
    from explainer_tools.pipeline import cpu_count

    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["claims"]:  # their own options, passed through as they are
        from explainer_tools.claims import cli

        return cli.main(argv[1:])
    if argv[:1] == ["errata"]:
        from explainer_tools import errata

        return errata.main(argv[1:])

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
    for sub in (regen, check, bench):
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
    signal.signal(signal.SIGTERM, _stop_on_signal)
    signal.signal(signal.SIGHUP, _stop_on_signal)

    from explainer_tools import pipeline

    try:
        if args.command == "regenerate":
            from explainer_tools import book

            status = pipeline.regenerate(
                jobs=args.jobs, force=args.force, notebooks=not args.skip_notebooks,
                only=args.scripts,
            )
            return status or book.main([])  # BOOK.md's table of contents, from the nav
        if args.command == "check":
            return check_everything(args.jobs, not args.skip_notebooks)
        if args.command == "chapter":
            from explainer_tools import scaffold

            return scaffold.main(args.number, args.slug, args.title)
        from explainer_tools import bench as bench_module

        return bench_module.main(args.jobs)
    except pipeline.PipelineError as error:
        print(error, file=sys.stderr)
        return 1
    except KeyboardInterrupt as interrupt:
        print(f"interrupted ({interrupt or 'Ctrl-C'}); script processes and scratch folders were "
              "cleaned up", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
