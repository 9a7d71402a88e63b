"""Suite-wide settings: a time limit for every test, so that no test (or mutant of the code it
tests) can hang CI. The limit is a `timeout` marker, given here to every test that has none;
`--timeout=N` on the command line (tests/mutate.py uses it) replaces it. Without the
pytest-timeout plugin (an environment not yet rebuilt from requirements.lock) the marker is
inert and the tests run without a limit.
"""

from __future__ import annotations

import pytest

DEFAULT_TIMEOUT_S = 900  # the slowest tests run chapter scripts or the notebook: minutes


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if config.pluginmanager.hasplugin("timeout") and config.getoption("timeout", None):
        return  # --timeout=N given: it applies to every test
    for item in items:
        if item.get_closest_marker("timeout") is None:
            item.add_marker(pytest.mark.timeout(DEFAULT_TIMEOUT_S))
