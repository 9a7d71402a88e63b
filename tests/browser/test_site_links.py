"""The link crawler: every internal link and anchor of the built site resolves.

Pure Python over the built HTML (no browser), so it runs everywhere. It reads every HTML file
mkdocs wrote, notebook pages and errata included, and checks each `href`/`src` that stays on the
site: the target file exists and the `#fragment` names an id in it.
"""

from __future__ import annotations

from pathlib import Path

from browser_kit import discover_pages, link_problems
from conftest import planned_pages, site_url


def test_the_tested_pages_are_the_built_pages(built_site: Path) -> None:
    """The pages that parametrize the browser tests (listed without a build) are exactly the
    HTML pages the build wrote: no page goes untested."""
    assert planned_pages() == sorted(discover_pages(built_site))


def test_every_internal_link_and_anchor_resolves(built_site: Path) -> None:
    problems = link_problems(built_site, site_url())
    assert not problems, f"{len(problems)} broken links:\n" + "\n".join(problems)
