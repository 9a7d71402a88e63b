""""Last verified" for a chapter: the last commit at which its scripts were regenerated.

Every script run by `make regenerate` leaves a stamp (`outputs/.stamps/<script>.json`) that hashes
what the run read and wrote. The last commit that changed a chapter's stamps is the state its
numbers were produced at; `make check` (run by CI on every change to main) re-runs the scripts
and fails if anything printed differs, so a page on main shows numbers that still hold at that
commit and since. This module reads that commit and date from git, and the script and lock hashes
from the stamps. It is a statement about the repository, never the build date: two builds of one
commit show the same line.

    >>> short_hash("37b29f76383ad9e421d604fbc1d7a440a75675f9700622b4c2cb1a28c5db7f13")
    '37b29f76'
"""

from __future__ import annotations

import html
import subprocess
from dataclasses import dataclass
from pathlib import Path

from explainer_tools.layout import Layout
from explainer_tools.scripts.stamps import read_stamp as read_stamp_file


@dataclass(frozen=True)
class StampFacts:
    script: str
    script_hash: str  # sha256 of the script file, as recorded in its stamp
    lock_hash: str  # sha256 of requirements.lock, as recorded


@dataclass(frozen=True)
class Verified:
    commit: str  # short hash, "" when git cannot say
    date: str  # YYYY-MM-DD of that commit
    dirty: bool  # the stamps differ from the last commit (uncommitted regeneration)


def short_hash(digest: str) -> str:
    return digest[:8]


def stamp_path(root: Path, script: str) -> Path:
    """The stamp of `script` in the repository at `root`."""
    return Layout(root).stamp_path(script)


def read_stamp(root: Path, script: str) -> StampFacts | None:
    """The hashes a script's stamp records, or None when it has none (or one that is not a
    stamp: the pipeline's one stamp reader decides)."""
    stamp = read_stamp_file(stamp_path(root, script))
    if stamp is None:
        return None
    inputs = stamp["inputs"]
    return StampFacts(script, inputs.get(f"explainer_code/{script}", ""),
                      inputs.get("requirements.lock", ""))


def _git(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=False)


def last_verified(root: Path, scripts: list[str]) -> Verified:
    """The last commit that changed any of these scripts' stamps."""
    layout = Layout(root)
    stamps = [layout.relative(layout.stamp_path(script)) for script in scripts]
    log = _git(root, "log", "-1", "--format=%h %cs", "--", *stamps)
    if log.returncode != 0 or not log.stdout.strip():
        return Verified("", "", False)
    commit, date = log.stdout.split()
    dirty = _git(root, "diff", "--quiet", "HEAD", "--", *stamps).returncode == 1
    return Verified(commit, date, dirty)


def verified_html(verified: Verified, scripts: list[str]) -> str:
    """The line shown under a chapter's title."""
    names = ", ".join(f"<code>{html.escape(s)}</code>" for s in scripts)
    if not verified.commit:
        return (f'<p class="last-verified">Numbers printed by {names}. Last verified: unknown '
                "(this copy has no git history).</p>")
    state = " plus uncommitted regeneration" if verified.dirty else ""
    return (
        f'<p class="last-verified">Last verified: commit <code>{verified.commit}</code> '
        f"({verified.date}){state}, when {names} were last regenerated; "
        "<code>make check</code> re-runs the scripts on every change and fails on any "
        "difference.</p>"
    )
