"""Command line: `python -m explainer_tools regenerate|check` (the Makefile calls these)."""

from __future__ import annotations

import argparse
import os
import sys

from explainer_tools import pipeline


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m explainer_tools")
    commands = parser.add_subparsers(dest="command", required=True)
    regen = commands.add_parser("regenerate", help="run changed scripts, write outputs, embed")
    regen.add_argument("--force", action="store_true", help="run every script, fresh or not")
    check = commands.add_parser("check", help="regenerate into scratch and compare; write nothing")
    for sub in (regen, check):
        sub.add_argument(
            "--jobs", type=int, default=os.cpu_count() or 1, help="scripts run at once"
        )
        sub.add_argument(
            "--skip-notebooks", action="store_true", help="leave the notebooks out (faster)"
        )
    args = parser.parse_args(argv)
    try:
        if args.command == "regenerate":
            return pipeline.regenerate(
                jobs=args.jobs, force=args.force, notebooks=not args.skip_notebooks
            )
        return pipeline.check(jobs=args.jobs, notebooks=not args.skip_notebooks)
    except pipeline.PipelineError as error:
        print(error, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
