"""The claim check's report and command line (`python -m explainer_tools claims`)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path

from explainer_tools.claims.check import SiteReport, check_site
from explainer_tools.claims.model import Occurrence
from explainer_tools.layout import DEFAULT


def _by_line(occurrences: list[Occurrence], with_note: bool = False) -> Iterator[str]:
    lines: dict[int, list[str]] = {}
    for occurrence in occurrences:
        shown = occurrence.text + (f" ({occurrence.note})" if with_note else "")
        lines.setdefault(occurrence.line, []).append(shown)
    for line, shown in sorted(lines.items()):
        yield f"line {line}: {', '.join(shown)}"


def format_report(site: SiteReport, verbose: bool = False, quiet: bool = False) -> str:
    """The per-page report; `quiet` keeps the page summaries, errors and totals only."""
    out: list[str] = []
    for report in site.pages:
        out.append(report.summary())
        if report.uncited and not quiet:
            out.extend("    uncited, " + text for text in _by_line(report.uncited))
        if verbose:
            out.extend("    skipped, " + text for text in _by_line(report.skipped, True))
            out.extend("    waived, " + text for text in _by_line(report.waived, True))
    by_script: dict[str, list[int]] = {}
    for script, number in site.uncited_blocks:
        by_script.setdefault(script, []).append(number)
    if by_script:
        out.append("blocks no page cites: " + "; ".join(
            f"{script} " + " ".join(f"[{n}]" for n in numbers)
            for script, numbers in sorted(by_script.items())))
    else:
        out.append("blocks no page cites: none")
    if site.errors:
        out.append("")
        out.extend(f"error: {error}" for error in site.errors)
    checked = sum(len(r.checked) for r in site.pages)
    uncited = sum(len(r.uncited) for r in site.pages)
    out.append(f"claims: {len(site.pages)} pages, {checked} numbers checked, {uncited} uncited, "
               f"{len(site.errors)} error{'s' if len(site.errors) != 1 else ''} "
               f"({site.seconds:.2f} s)")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m explainer_tools claims",
        description="Check that every number quoted in prose is printed by the output it cites.")
    parser.add_argument("pages", nargs="*", type=Path, help="pages to check (default: all)")
    parser.add_argument("--root", type=Path, default=DEFAULT.root, help="repository root")
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="also list skipped and waived numbers with their rule or reason")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="only page summaries, errors and totals (used by make check)")
    args = parser.parse_args(argv)
    site = check_site(args.root, args.pages or None)
    print(format_report(site, args.verbose, args.quiet))
    return 1 if site.errors else 0


if __name__ == "__main__":
    sys.exit(main())
