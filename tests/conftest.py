"""Suite-wide settings.

A time limit for every test, so that no test (or mutant of the code it tests) can hang CI. The
limit is a `timeout` marker, given here to every test that has none; `--timeout=N` on the
command line (tests/mutation.py uses it) replaces it. Without the pytest-timeout plugin (an
environment not yet rebuilt from requirements.lock) the marker is inert and the tests run without
a limit.

Work units for pytest-xdist (`make test` runs two workers, `-n 2`): every test of a file runs on
one worker, so a module's fixtures are built once. The browser suite (tests/browser/) is one unit,
except its per-page tests (test_browser_pages.py), which are split by page into
BROWSER_PAGE_UNITS units: every test of one page stays on one worker, which loads the page once,
and the two workers share the pages (they are most of the suite's time). A worker builds the
site once, when its first browser test needs it, so a run builds it at most once per worker.
The units come from a scheduler
of our own (pytest_xdist_make_scheduler): xdist's `--dist loadgroup` marks its groups by
rewriting `item._nodeid`, which pytest 9 no longer reads, so its groups are silently ignored.
"""

from __future__ import annotations

import zlib

import pytest

DEFAULT_TIMEOUT_S = 900  # the slowest tests run chapter scripts or the notebook: minutes


BROWSER_PAGES = "tests/browser/test_browser_pages.py"
BROWSER_PAGE_UNITS = 5  # more units than workers, so that xdist can even out the pages' costs


def page_of(test_id: str) -> str:
    """The page a per-page browser test names in its parameters: its label, `/` up to the last
    `/` (every page's label ends in one; a check's name may follow it).

    >>> page_of("test_page[/chapters/05-transformers-gpt2/-console]"), page_of("test_x[/]")
    ('/chapters/05-transformers-gpt2/', '/')
    """
    parameters = test_id.partition("[")[2]
    return parameters[: parameters.rfind("/") + 1]


def work_unit(nodeid: str) -> str:
    """The xdist work unit of a test: a per-page browser test by its page (one of
    BROWSER_PAGE_UNITS units, always the same for a page), the rest of the browser suite as
    one, any other file by itself.

    >>> work_unit("tests/browser/test_site_links.py::test_x"), work_unit("tests/test_a.py::t[1]")
    ('browser', 'tests/test_a.py')
    >>> work_unit(BROWSER_PAGES + "::test_page[/glossary/-math]") == work_unit(
    ...     BROWSER_PAGES + "::test_page_fits_a_phone[/glossary/]")
    True
    """
    path, _, test_id = nodeid.partition("::")
    if path == BROWSER_PAGES and "[" in test_id:
        unit = zlib.crc32(page_of(test_id).encode("utf-8")) % BROWSER_PAGE_UNITS
        return f"browser-pages-{unit}"
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
