"""Suite-wide settings.

A time limit for every test, so that no test (or mutant of the code it tests) can hang CI. The
limit is a `timeout` marker, given here to every test that has none; `--timeout=N` on the
command line (tests/mutate.py uses it) replaces it. Without the pytest-timeout plugin (an
environment not yet rebuilt from requirements.lock) the marker is inert and the tests run without
a limit.

Work units for pytest-xdist (`make test` runs two workers, `-n 2`): every test of a file runs on
one worker, so a module's fixtures are built once; the browser suite (tests/browser/) is one
unit, so the site is built once and one Chromium runs at a time. The units come from a scheduler
of our own (pytest_xdist_make_scheduler): xdist's `--dist loadgroup` marks its groups by
rewriting `item._nodeid`, which pytest 9 no longer reads, so its groups are silently ignored.
"""

from __future__ import annotations

import pytest

DEFAULT_TIMEOUT_S = 900  # the slowest tests run chapter scripts or the notebook: minutes


def work_unit(nodeid: str) -> str:
    """The xdist work unit of a test: the browser suite as one, any other file by itself.

    >>> work_unit("tests/browser/test_site_links.py::test_x"), work_unit("tests/test_a.py::t[1]")
    ('browser', 'tests/test_a.py')
    """
    path = nodeid.split("::", 1)[0]
    return "browser" if path.startswith("tests/browser/") else path


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist, absent without it
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    from xdist.scheduler import LoadScopeScheduling

    class WorkUnits(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return work_unit(nodeid)

    return WorkUnits(config, log)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.pluginmanager.hasplugin("timeout") and config.getoption("timeout", None):
        return  # --timeout=N given: it applies to every test
    for item in items:
        if item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(DEFAULT_TIMEOUT_S))
