"""Where chapter scripts put their figures, and how they write them.

Chapter scripts print their numbered output blocks to stdout; `make regenerate` captures that
text into `outputs/<script>.txt`. Figures are files, so a script writes them itself, through
`save_figure`, which

- writes into `$EXPLAINER_FIG_DIR` when the pipeline sets it (a scratch folder: nothing in the
  tree changes until every script has succeeded), else into `docs/assets/fig/` for a script run
  by hand;
- writes atomically (temporary file in the same folder, then `os.replace`);
- strips volatile metadata (Matplotlib's `Software` tag) so the bytes are identical run to run.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_FIG_DIR = REPO_ROOT / "docs" / "assets" / "fig"
FIG_DIR_ENV = "EXPLAINER_FIG_DIR"


def figure_dir() -> Path:
    """The folder figures go to: `$EXPLAINER_FIG_DIR` if set, else `docs/assets/fig/`."""
    override = os.environ.get(FIG_DIR_ENV)
    return Path(override) if override else DEFAULT_FIG_DIR


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Write `data` to `path` so that readers see either the old file or the new one, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        Path(tmp).chmod(0o644)  # mkstemp creates 0600; products are ordinary readable files
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def save_figure(fig: Any, name: str, dpi: int = 150) -> Path:
    """Save a Matplotlib figure as PNG `name` in `figure_dir()`, atomically, without metadata.

    Returns the path written, e.g. `save_figure(fig, "ch05_param_shares.png")`
    -> `docs/assets/fig/ch05_param_shares.png` when run by hand.
    """
    import io

    if not name.endswith(".png"):
        raise ValueError(f"figure name must end in .png: {name!r}")
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi, metadata={"Software": None})
    path = figure_dir() / name
    write_bytes_atomic(path, buffer.getvalue())
    return path
