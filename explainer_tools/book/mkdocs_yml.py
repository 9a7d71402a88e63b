"""`mkdocs.yml` read outside MkDocs (the nav for chapter status, the errata checks); `scaffold`
alone edits it, as text, to add a chapter's nav line.

MkDocs' own loader knows its `!!python/name:` and `!ENV` tags; a safe YAML loader refuses them.
Here every such tag reads as None (the nav and the settings the tools need never use one), and an
`INHERIT:` file is merged under the file that names it, as MkDocs does for mappings.

    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "base.yml").write_text("nav: [index.md]\\nx: !ENV HOME\\n")
    >>> _ = (folder / "child.yml").write_text("INHERIT: base.yml\\nsite_dir: out\\n")
    >>> sorted(read_mkdocs_yml(folder / "child.yml").items())
    [('nav', ['index.md']), ('site_dir', 'out'), ('x', None)]
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml


class ConfigError(ValueError):
    """mkdocs.yml cannot be read: the message names the file."""


class _LenientLoader(yaml.SafeLoader):
    """A safe loader that reads every application tag (`!ENV`, `!!python/name:`) as None."""


_LenientLoader.add_multi_constructor("", lambda loader, suffix, node: None)
_LenientLoader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, s, node: None)


def _merge(base: dict[str, Any], child: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in child.items():
        if isinstance(value, dict) and isinstance(merged.get(key), dict):
            value = _merge(merged[key], value)
        merged[key] = value
    return merged


def read_mkdocs_yml(path: Path) -> dict[str, Any]:
    """The settings of `path` (with its `INHERIT:` chain), as a dict."""
    try:
        config = yaml.load(path.read_text(encoding="utf-8"), Loader=_LenientLoader) or {}
    except (OSError, yaml.YAMLError) as error:
        raise ConfigError(f"{path}: cannot read it: {error}") from None
    if not isinstance(config, dict):
        raise ConfigError(f"{path}: not a mapping of settings")
    parent = config.pop("INHERIT", None)
    if parent:
        config = _merge(read_mkdocs_yml(path.parent / str(parent)), config)
    return config
