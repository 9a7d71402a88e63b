"""Stamps: what a script's run read and produced, hashed, in `outputs/.stamps/<script>.json`;
the one reader of a stamp file (`read_stamp`) and the freshness rule (`is_fresh`).

A stamp is stale when the script, a repository file it imported or read, a folder it listed,
`requirements.lock`, the run environment or the runner's code (`settings.RUNNER_CODE`) changed, or
when a product (output, its glued values, figure) no longer matches its hash.
`is_fresh(..., ignoring=RUNNER_CODE)` asks whether the runner's code is all that changed
(`other_kernels`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from explainer_tools.glue import names_path
from explainer_tools.layout import Layout, sha256
from explainer_tools.scripts.settings import RUNNER_CODE, run_environment


def stamp_environment(extra: dict[str, str] | None = None) -> dict[str, str]:
    """How scripts run, as recorded in every stamp: a change makes every stamp stale."""
    return dict(sorted({**run_environment(), **(extra or {})}.items()))


def render_stamp(
    script: str,
    inputs: Iterable[str],
    output: str,
    figures: dict[str, bytes],
    layout: Layout,
    environment: dict[str, str] | None = None,
    runner_code: Iterable[str] = RUNNER_CODE,
    kernels: dict[str, str] | None = None,
    names: str = "",
) -> str:
    """The stamp of a run: hashes of everything it read and produced (paths relative to the
    layout's root), the run environment, the code that ran it and, when known, the kernels of
    the machine it ran on (`numerics.Fingerprint.kernels`: not an input, so no part of the
    freshness rule; `make check` compares products made on other kernels within a tolerance)."""
    paths = {*inputs, layout.relative(layout.lock_file), *runner_code}
    hashed = {path: input_hash(path, layout) for path in sorted(paths)}
    hashed = {path: digest for path, digest in hashed.items() if digest is not None}
    stamp = {
        "script": script,
        "environment": environment if environment is not None else stamp_environment(),
        "inputs": hashed,
        "output": sha256(output.encode("utf-8")),
        **({"names": sha256(names.encode("utf-8"))} if names else {}),  # its glued values
        "figures": {name: sha256(data) for name, data in sorted(figures.items())},
    }
    if kernels is not None:
        stamp["kernels"] = dict(kernels)
    return json.dumps(stamp, indent=1, sort_keys=False) + "\n"


def input_hash(path: str, layout: Layout) -> str | None:
    """The hash of an input: a file's bytes, or for `folder/` (a listing) its sorted names."""
    target = layout.root / path
    if path.endswith("/"):
        if not target.is_dir():
            return None
        return sha256("\n".join(sorted(p.name for p in target.iterdir())).encode("utf-8"))
    return sha256(target.read_bytes()) if target.is_file() else None


def read_stamp(path: Path) -> dict | None:
    """A stamp's fields, or None when it is missing or not a stamp (wrong shape, bad JSON)."""
    try:
        stamp = json.loads(path.read_bytes().decode("utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return None
    if not isinstance(stamp, dict):
        return None
    shapes = {"inputs": dict, "figures": dict, "environment": dict, "output": str}
    if not all(isinstance(stamp.get(key), kind) for key, kind in shapes.items()):
        return None
    if "kernels" in stamp and not isinstance(stamp["kernels"], dict):
        return None
    return stamp


def recorded_kernels(script: str, layout: Layout) -> dict[str, str] | None:
    """The kernels the committed stamp of `script` says its products were made on (None when
    the stamp records none)."""
    stamp = read_stamp(layout.stamp_path(script))
    return stamp.get("kernels") if stamp else None


def is_fresh(script: str, layout: Layout, ignoring: Iterable[str] = ()) -> bool:
    """True when the committed stamp matches the current inputs, environment, runner and
    products of `script`; inputs named in `ignoring` (`RUNNER_CODE`: a change to the runner
    alone) are not compared, whether the stamp lists them or not."""
    stamp = read_stamp(layout.stamp_path(script))
    if stamp is None or not layout.output_path(script).is_file():
        return False
    if stamp["environment"] != stamp_environment():
        return False
    ignored = set(ignoring)
    lock = layout.relative(layout.lock_file)
    if lock not in stamp["inputs"] or not set(RUNNER_CODE) - ignored <= set(stamp["inputs"]):
        return False
    if any(input_hash(path, layout) != digest for path, digest in stamp["inputs"].items()
           if path not in ignored):
        return False
    checks = [(layout.output_path(script), stamp["output"])]
    names = names_path(layout.output_dir, script)
    if "names" in stamp:
        checks.append((names, stamp["names"]))
    elif names.is_file():
        return False
    checks += [(layout.fig_dir / name, h) for name, h in stamp["figures"].items()]
    return all(p.is_file() and sha256(p.read_bytes()) == h for p, h in checks)


def same_stamp(path: Path, expected: str, ignoring: str = "") -> bool:
    """True when the stamp file at `path` reads `expected` (a rendered stamp); where `ignoring`
    names a folder (`explainer_tools/`), the inputs either lists under it are not compared."""
    if not ignoring:
        return path.is_file() and path.read_text(encoding="utf-8") == expected

    def compared(fields: dict) -> dict:
        inputs = fields["inputs"].items()
        return {**fields, "inputs": {p: h for p, h in inputs if not p.startswith(ignoring)}}
    stamp = read_stamp(path)
    return stamp is not None and compared(stamp) == compared(json.loads(expected))


def stamped_figures(script: str, layout: Layout) -> list[str]:
    """The figures the committed stamp of `script` says it drew."""
    stamp = read_stamp(layout.stamp_path(script))
    return list(stamp["figures"]) if stamp else []
