"""Suite-wide settings.

A time limit for every test, so that no test (or mutant of the code it tests) can hang CI. The
limit is a `timeout` marker, given here to every test that has none; `--timeout=N` on the
command line (tests/mutate.py uses it) replaces it. Without the pytest-timeout plugin (an
environment not yet rebuilt from requirements.lock) the marker is inert and the tests run without
a limit.

Work units for pytest-xdist (`make test` runs two workers, `-n 2 --dist loadgroup`): every test
of a file runs on one worker, so a module's fixtures are built once; the browser suite
(tests/browser/) is one unit, so the site is built once and one Chromium runs at a time. Without
xdist the marker is inert.
"""

from __future__ import annotations

from pathlib import Path

import pytest

DEFAULT_TIMEOUT_S = 900  # the slowest tests run chapter scripts or the notebook: minutes
TESTS = Path(__file__).resolve().parent


def work_unit(path: Path) -> str:
    """The xdist group of a test file: the browser suite as one, any other file by itself.

    >>> work_unit(TESTS / "browser" / "test_site_links.py"), work_unit(TESTS / "test_runner.py")
    ('browser', 'test_runner.py')
    """
    if not path.resolve().is_relative_to(TESTS):
        return path.as_posix()
    relative = path.resolve().relative_to(TESTS)
    return "browser" if relative.parts[0] == "browser" else relative.as_posix()


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    limit_given = config.pluginmanager.hasplugin("timeout") and config.getoption("timeout", None)
    for item in items:
        if not limit_given and item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(DEFAULT_TIMEOUT_S))
        item.add_marker(pytest.mark.xdist_group(work_unit(item.path)))
