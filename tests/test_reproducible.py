"""Reproducible products: the site is dated by the last commit. (That a
notebook execution, passing or failing, leaves no kernel connection file, which holds the
kernel's key, or compile cache behind is tested on the notebook path's one test in
test_pipeline.py, so that no second test pays for a kernel start.)"""

from __future__ import annotations

import datetime
import subprocess

import pytest

from explainer_tools.layout import DEFAULT
from explainer_tools.website import build_features

REPO_ROOT = DEFAULT.root


def test_the_site_is_dated_by_the_last_commit(monkeypatch: pytest.MonkeyPatch) -> None:
    import mkdocs.utils

    epoch = subprocess.run(["git", "log", "-1", "--format=%ct"], cwd=REPO_ROOT,
                           capture_output=True, text=True, check=True).stdout.strip()
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    build_features.on_config({"config_file_path": str(REPO_ROOT / "mkdocs.yml")})
    expected = datetime.datetime.fromtimestamp(int(epoch), datetime.UTC).strftime("%Y-%m-%d")
    assert mkdocs.utils.get_build_date() == expected


def test_a_date_chosen_by_the_caller_wins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOURCE_DATE_EPOCH", "0")
    build_features.on_config({"config_file_path": str(REPO_ROOT / "mkdocs.yml")})
    import mkdocs.utils

    assert mkdocs.utils.get_build_date() == "1970-01-01"
