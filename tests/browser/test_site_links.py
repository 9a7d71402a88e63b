"""The link crawler: every internal link and anchor of the built site resolves.

Pure Python over the built HTML (no browser), so it runs everywhere. It reads every HTML file
mkdocs wrote, notebook pages and errata included, and checks each `href`/`src` that stays on the
site: the target file exists and the `#fragment` names an id in it.
"""

from __future__ import annotations

from pathlib import Path

from browser_kit import link_problems
from conftest import site_url


def test_every_internal_link_and_anchor_resolves(built_site: Path) -> None:
    problems = link_problems(built_site, site_url())
    assert not problems, f"{len(problems)} broken links:\n" + "\n".join(problems)
