"""The build's second process: pages read from the end of the book while the build reads them
from the start.

A build with nothing in `.cache/` (a fresh clone; or after the book's code, the lock or
mkdocs.yml changed, which are in every render's key) spends most of its time on work memoised
per page (build_cache.py, math_render.py): each page's numbers checked by the claim check, its
Markdown converted, its code highlighted, its formulas rendered by KaTeX. MkDocs does it one page
after another, on one core.

So when the site plugin has the navigation (`start`, at `on_nav`), the build forks once. The
child reads pages exactly as MkDocs does (MkDocs' own `mkdocs.commands.build._populate_page`:
the plugins' page events, the render; without it, no helper), renders their formulas and makes
their search entries (`prefill`), and after each page writes the memo entries that page added
to a file of its own. It goes from the last page backwards; the parent goes
forwards, as always. Before the parent reads a page (`join_before`) it says where it is (shared
memory) and takes the child's file for that page if there is one, waiting only if the child is
on that very page; the child stops when it reaches a page the parent has reached. So both cores
work until they meet, whatever the pages cost.

The parent still reads every page itself, as without the helper; it finds the work the child
did in its memos. The site is the one a build without the helper writes, byte for byte
(tests/test_build_helper.py builds both), since a memo entry is what its key determines. What
the child got wrong or did not do, the parent does: a page the child failed on (an error the
build must report) is read again and reported by the parent; a render that logged a warning is
never memoised, so the parent logs it and `--strict` counts it. Should both read one page (they
may, at the meeting point), the work is done twice, and the result is the same.

A warm build gains too (the two processes share the page events' results, `shared`), so the
helper starts wherever it can: a system that forks, two CPUs or more available, a process not
yet running KaTeX's V8 (its threads would not follow into the child). That is every
`mkdocs build` and the first build of `make serve`; its rebuilds after an edit run as before.
`EXPLAINER_BUILD_HELPER=0` turns it off.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import json
import logging
import mmap
import os
import shutil
import signal
import struct
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from explainer_tools import build_cache, math_render

LOG = logging.getLogger("mkdocs.plugins.explainer")
HELPER_ENV = "EXPLAINER_BUILD_HELPER"  # "0": never; otherwise whenever it can
POLL_S = 0.002  # how often the parent looks for the page the child is reading
_PARENT, _CHILD = 0, 8  # offsets of the two positions in the shared memory


@dataclass
class Helper:
    """A running child: its process, its folder of per-page files, the positions."""

    pid: int
    folder: Path
    index: dict[str, int]  # src_uri -> position in build order, for the child's pages
    shared: mmap.mmap  # the parent's position, then the child's (two signed 64-bit integers)
    exited: bool = False
    merged: set[int] = field(default_factory=set)


_RUNNING: Helper | None = None
_BUILD: list[str] = []  # the running helper's build: a token made before the fork (`shared`)
_PREFILLING = False  # a helper runs (parent) or this is the helper (child): `prefill` works
_EXIT_HOOKED: list[bool] = []  # `stop` registered with atexit (once per process)


def _read(shared: mmap.mmap, offset: int) -> int:
    return struct.unpack_from("q", shared, offset)[0]


def _write(shared: mmap.mmap, offset: int, value: int) -> None:
    struct.pack_into("q", shared, offset, value)


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def wanted(setting: str | None = None, cpus: int | None = None,
           engine_started: bool | None = None) -> bool:
    """Whether this build should start a helper (module docstring); the arguments stand in
    for the environment, the machine and the process, for tests.

    >>> wanted("", 2, False), wanted("1", 2, False)
    (True, True)
    >>> wanted("0", 2, False), wanted("", 1, False), wanted("", 2, True)
    (False, False, False)
    """
    setting = os.environ.get(HELPER_ENV, "") if setting is None else setting
    cpus = _cpus() if cpus is None else cpus
    engine_started = math_render.engine_started() if engine_started is None else engine_started
    return setting != "0" and hasattr(os, "fork") and cpus >= 2 and not engine_started


def _populate() -> Callable[..., None] | None:
    """MkDocs' own reading of one page (plugins' page events and render), if this MkDocs has it."""
    from mkdocs.commands import build

    return getattr(build, "_populate_page", None)


def start(config: Any, files: Any) -> bool:
    """Fork the helper if `wanted`; whether one started."""
    global _RUNNING, _PREFILLING
    populate = _populate()
    if _RUNNING is not None or populate is None or not wanted():
        return False
    order = list(files.documentation_pages())
    # A notebook's page is the parent's: its conversion runs in a process the parent started.
    mine = [(k, f) for k, f in enumerate(order) if not f.src_uri.endswith(".ipynb")]
    if not mine:
        return False
    _BUILD[:] = [os.urandom(8).hex()]
    folder = Path(tempfile.mkdtemp(prefix="explainer-build-helper-"))
    shared = mmap.mmap(-1, 16)  # anonymous and shared: the child sees the parent's writes
    _write(shared, _PARENT, -1)
    _write(shared, _CHILD, len(order))
    gc.freeze()  # objects made so far are not scanned again: fewer pages copied on write
    pid = os.fork()
    if pid == 0:  # the child: never returns
        _child(config, files, mine, folder, shared, populate)
    _RUNNING, _PREFILLING = Helper(pid, folder, {f.src_uri: k for k, f in mine}, shared), True
    if not _EXIT_HOOKED:
        atexit.register(stop)
        _EXIT_HOOKED.append(True)
    return True


def _child(config: Any, files: Any, mine: list[tuple[int, Any]], folder: Path,
           shared: mmap.mmap, populate: Callable[..., None]) -> None:
    """Read pages from the last backwards until the parent's position; after each, write what
    it added to `folder/<position>.json`. Exits; never returns."""
    global _RUNNING, _PREFILLING
    status = 1
    try:
        _RUNNING, _PREFILLING = None, True
        quiet = os.open(os.devnull, os.O_WRONLY)  # the parent reports; the child's log is noise
        os.dup2(quiet, 1)
        os.dup2(quiet, 2)
        known = math_render.known_formulas()  # handed over: only what comes after
        for position, file in reversed(mine):
            _write(shared, _CHILD, position)
            if _read(shared, _PARENT) >= position:
                break
            _read_page(config, files, file, populate)
            _write_added(folder / f"{position}.json", known)
        _write(shared, _CHILD, -1)
        status = 0
    except BaseException:  # the child must never return into the build
        pass
    finally:
        os._exit(status)


def _read_page(config: Any, files: Any, file: Any, populate: Callable[..., None]) -> None:
    """One page read as MkDocs reads it, and its formulas rendered; an error is the parent's to
    report (it reads the page again)."""
    build_cache.forget_added()
    try:
        if file.page is None:  # as MkDocs' build does for a page not in the nav
            from mkdocs.structure.pages import Page

            Page(None, file, config)
        populate(file.page, config, files)  # the site plugin calls `prefill` at its end
    except Exception:  # the parent reads the page again and reports it
        pass


def prefill(page: Any, html_text: str, config: Any) -> None:
    """While a helper runs, in either process: the work of a page's later events done as soon as
    its HTML is final (the site plugin's last `on_page_content`), so that little is left for the
    one core after the last page: its formulas rendered, its search entries made (both
    memoised; the events find them). An error is left for the event to report."""
    if not _PREFILLING:
        return
    with contextlib.suppress(math_render.MathError):
        math_render.render_page(html_text)
    for plugin in config["plugins"].values():
        index = getattr(plugin, "search_index", None)
        if index is not None and hasattr(index, "add_entry_from_context"):
            page.content = html_text  # what MkDocs sets when the event returns
            with contextlib.suppress(Exception):
                type(index)(**index.config).add_entry_from_context(page)


def _write_added(path: Path, known: set[tuple[str, bool]]) -> None:
    """The memo entries and formulas added since the last page (formulas not in `known`, which
    then holds them too), written whole or not at all."""
    formulas = math_render.formulas_since(known)
    known.update((tex, bool(display)) for tex, display, _ in formulas)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps({"memos": build_cache.added_entries(),
                                   "formulas": formulas}), encoding="utf-8")
    partial.replace(path)


def shared(kind: str, key: Any, compute: Callable[[], Any]) -> Any:
    """`compute()`, or what either process of this build computed for `key` (while a helper
    runs: the child's work handed back with its pages). For the site plugin's own page events,
    whose result depends on the page and on what the build loaded before the fork (the same in
    both processes), so that the parent does not run them again on the child's pages; kept in
    memory for this build only, never in `.cache/`. Outside such a build: `compute()`."""
    if not _PREFILLING or not _BUILD:
        return compute()
    memo = build_cache.memo(f"build-{kind}", _BUILD[0], keep=False)
    found = memo.get(key)
    if found is None:
        found = compute()
        memo.put(key, found)
    return found


def _merge(helper: Helper, position: int) -> bool:
    """Take the child's file for one position, if it is there."""
    path = helper.folder / f"{position}.json"
    try:
        payload = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    build_cache.merge(payload.get("memos", []))
    math_render.add_formulas(payload.get("formulas", []))
    helper.merged.add(position)
    return True


def _child_done(helper: Helper) -> bool:
    if not helper.exited:
        with contextlib.suppress(ChildProcessError):
            helper.exited = os.waitpid(helper.pid, os.WNOHANG)[0] != 0
    return helper.exited


def join_before(src_uri: str) -> None:
    """Before the parent reads a page: say where it is; take the child's work on that page,
    waiting if the child is reading it now."""
    helper = _RUNNING
    if helper is None or src_uri not in helper.index:
        return
    position = helper.index[src_uri]
    _write(helper.shared, _PARENT, position)
    while not _merge(helper, position):
        if _read(helper.shared, _CHILD) != position or _child_done(helper):
            return  # not the child's (yet, or at all): the parent reads it alone
        time.sleep(POLL_S)


def join() -> None:
    """After the last page: wait for the helper, take any work not taken yet, clean up."""
    global _RUNNING, _PREFILLING
    helper, _RUNNING, _PREFILLING = _RUNNING, None, False
    if helper is None:
        return
    _write(helper.shared, _PARENT, 1 << 62)  # past every page: the child stops
    if not helper.exited:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(helper.pid, 0)
    for position in sorted(set(helper.index.values()) - helper.merged):
        _merge(helper, position)
    shutil.rmtree(helper.folder, ignore_errors=True)
    _forget_build()
    LOG.info(f"A helper process read {len(helper.merged)} of the {len(helper.index)} pages "
             "ahead of the build")


def _forget_build() -> None:
    """Drop this build's `shared` memos (a later build makes its own)."""
    if _BUILD:
        build_cache.drop_memos(_BUILD[0])
        _BUILD.clear()


def stop() -> None:
    """End the helper without taking its work (the build failed, or the process exits)."""
    global _RUNNING, _PREFILLING
    helper, _RUNNING, _PREFILLING = _RUNNING, None, False
    if helper is None:
        return
    if not helper.exited:
        with contextlib.suppress(ProcessLookupError):
            os.kill(helper.pid, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            os.waitpid(helper.pid, 0)
    shutil.rmtree(helper.folder, ignore_errors=True)
    _forget_build()
