"""A cache for the site build: results memoised in this process (`make serve` rebuilds in one
process) and kept in `.cache/<name>/` between builds, keyed by a digest of everything that
determines them.

A `Memo` maps a key (any JSON-able value: it is hashed) to a JSON-able result. Its file is named
after a version digest (the code or library versions the results depend on), so a change of
either starts a fresh file. `save()` writes only what this process used, so the file does not
grow with every edit; a read-only checkout builds without it. `memo(name, version)` gives the
one Memo of that name in this process (`make serve` makes a new plugin on every rebuild; this
module stays), and `save_all()` saves them all.

    >>> memo = Memo("doctest", "v1", directory=None)
    >>> memo.get(["a", 1]) is None
    True
    >>> memo.put(["a", 1], {"x": 2}); memo.get(["a", 1])
    {'x': 2}
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from explainer_tools.layout import DEFAULT

CACHE_ROOT = DEFAULT.cache_dir


def digest(value: Any) -> str:
    """A stable digest of a JSON-able value (or of bytes)."""
    data = value if isinstance(value, bytes) else json.dumps(value, sort_keys=True).encode()
    return hashlib.sha256(data).hexdigest()


def tools_digest() -> str:
    """A digest of the book's own code (every `explainer_tools/*.py`): part of the key of a result
    that code may change (the claim check's numbers, a page's render)."""
    return digest(b"".join(p.read_bytes() for p in sorted(DEFAULT.tools_dir.rglob("*.py"))))


class Memo:
    def __init__(self, name: str, version: str, directory: Path | str | None = "cache") -> None:
        """`directory`: where the file lives (`.cache/` by default); None: in memory only."""
        folder = CACHE_ROOT if directory == "cache" else directory
        self.file = (Path(folder) / name / f"{name}-{digest(version)[:16]}.json"
                     if folder is not None else None)
        self._stored: dict[str, Any] | None = None
        self._used: dict[str, Any] = {}
        self._dirty = False

    def _load(self) -> dict[str, Any]:
        if self._stored is None:
            self._stored = {}
            if self.file is not None:
                try:
                    data = json.loads(self.file.read_text(encoding="utf-8"))
                    self._stored = data if isinstance(data, dict) else {}
                except (OSError, ValueError):
                    pass
        return self._stored

    def get(self, key: Any) -> Any:
        name = digest(key)
        if name in self._used:
            return self._used[name]
        stored = self._load()
        if name in stored:
            self._used[name] = stored[name]
            return stored[name]
        return None

    def put(self, key: Any, value: Any) -> None:
        self._used[digest(key)] = value
        self._dirty = True

    def save(self) -> None:
        """Write the entries this process used (after a build), if any is new."""
        if not self._dirty or self.file is None:
            return
        try:
            self.file.parent.mkdir(parents=True, exist_ok=True)
            temporary = self.file.with_suffix(".tmp")
            temporary.write_text(json.dumps(self._used, sort_keys=True), encoding="utf-8")
            temporary.replace(self.file)
            self._stored = dict(self._used)
            self._dirty = False
        except OSError:
            pass


# Module-level, not the plugin's: a rebuild of `make serve` (a new plugin) finds the results of
# the builds before it in memory.
_MEMOS: dict[tuple[str, str], Memo] = {}


def memo(name: str, version: str) -> Memo:
    """The process's one Memo for (name, version)."""
    if (name, version) not in _MEMOS:
        _MEMOS[name, version] = Memo(name, version)
    return _MEMOS[name, version]


def save_all() -> None:
    for each in _MEMOS.values():
        each.save()
