"""The layout of the repository: where things are and how products are named.

The pipeline, the checks and the site take the repository's folders and the products' names
from here, and this module imports none of them. The folders and naming rules belong to a
`Layout`, a repository root: the tools work on `DEFAULT` (the repository they belong to,
`Layout.of_repository()`) unless given another one (the pipeline's tests build small fixture
repositories). A file that one module alone reads is named in that module, in a folder of this
one (`DATA_DIR / "glossary.yml"`). A message names a file as its author sees it from the root
(`docs/chapters/05-x.md:3`, `explainer_code/ch05_x.py`), written out where it is made. Two
kinds of module still name folders themselves: a walk of the whole tree lists the folders it
reads or skips beside it (`tree_io.READ_FOLDERS`, `UNGUARDED`, `book_checks.OUTSIDE_ROOTS`), and
the modules whose bytes the stamps hash keep theirs (`settings.RUNNER_CODE`, hashed into every
script's stamp: an edit re-runs every script; `notebooks.NOTEBOOK_RUNNER_CODE`, hashed into the
notebook's: an edit re-runs the notebook). The rules:

- a chapter script is `explainer_code/chNN_topic.py` (`SCRIPT_GLOB`);
- its output is `outputs/<stem>.txt` (`Layout.output_path`), its stamp
  `outputs/.stamps/<stem>.json` (`Layout.stamp_path`), its figures `docs/assets/fig/<name>.png`,
  written by the script through `script_io.save_figure` into `$EXPLAINER_FIG_DIR`
  (`FIG_DIR_ENV`) when the pipeline runs it;
- a companion notebook's source is `notebooks/<name>.py` (jupytext py:percent) and its executed
  copy `docs/notebooks/<name with - for _>.ipynb` (`Layout.notebook_targets`), stamped in
  `outputs/.stamps/notebook-<target stem>.json`;

>>> DEFAULT.relative(DEFAULT.output_path("ch05_param_count.py"))
'outputs/ch05_param_count.txt'
>>> copy = Layout(DEFAULT.root / "copy")
>>> copy.relative(copy.stamp_path("ch05_x.py"))
'outputs/.stamps/ch05_x.json'
>>> script_of_output("outputs/ch05_param_count.txt")
'ch05_param_count.py'
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

# The folders, relative to a repository's root: a `Layout` joins them to its root, and a module
# names a file of its own in one of them from these (`DATA_DIR / "glossary.yml"`).
CODE_DIR = Path("explainer_code")
OUTPUT_DIR = Path("outputs")
DOCS_DIR = Path("docs")
DATA_DIR = DOCS_DIR / "_data"  # the book's data files: glossary, ledger, bibliography, plan
CACHE_DIR = Path(".cache")  # ignored: the pipeline's lock, the site's caches
BUILD_DIR = Path("build")  # ignored: what `make pdf` and `make bench-site` build
SCRIPT_GLOB = "ch[0-9][0-9]_*.py"
# The environment variable through which the pipeline tells `script_io.save_figure` where to
# write (a test checks that explainer_code/script_io.py uses the same name and default folder).
FIG_DIR_ENV = "EXPLAINER_FIG_DIR"
# --------------------------------------------------------------------------- naming rules


def output_name(script: str) -> str:
    """`ch05_x.py` -> `'outputs/ch05_x.txt'`, as messages and embed titles name it."""
    return (OUTPUT_DIR / f"{Path(script).stem}.txt").as_posix()


def script_of_output(path: str | Path) -> str:
    """`outputs/ch05_x.txt` -> `ch05_x.py`."""
    return f"{Path(path).stem}.py"


@dataclass(frozen=True)
class Layout:
    """The folders of one repository (`root`, made absolute) and how its products are named."""

    root: Path

    def __post_init__(self) -> None:
        object.__setattr__(self, "root", Path(self.root).resolve())

    @classmethod
    def of_repository(cls) -> Layout:
        """The repository these tools belong to."""
        return cls(Path(__file__).resolve().parent.parent)

    @property
    def code_dir(self) -> Path:
        return self.root / CODE_DIR

    @property
    def output_dir(self) -> Path:
        return self.root / OUTPUT_DIR

    @property
    def stamp_dir(self) -> Path:
        return self.output_dir / ".stamps"

    @property
    def docs_dir(self) -> Path:
        return self.root / DOCS_DIR

    @property
    def data_dir(self) -> Path:
        return self.root / DATA_DIR

    @property
    def fig_dir(self) -> Path:
        return self.docs_dir / "assets" / "fig"

    @property
    def chapter_dir(self) -> Path:
        return self.docs_dir / "chapters"

    @property
    def errata_dir(self) -> Path:
        return self.docs_dir / "errata"

    @property
    def cache_dir(self) -> Path:
        return self.root / CACHE_DIR

    @property
    def build_dir(self) -> Path:
        return self.root / BUILD_DIR

    @property
    def lock_file(self) -> Path:
        return self.root / "requirements.lock"

    @property
    def mkdocs_yml(self) -> Path:
        return self.root / "mkdocs.yml"

    @property
    def notebook_source_dir(self) -> Path:
        return self.root / "notebooks"

    @property
    def notebook_target_dir(self) -> Path:
        return self.docs_dir / "notebooks"

    @property
    def tools_dir(self) -> Path:
        return self.root / "explainer_tools"

    def output_path(self, script: str) -> Path:
        """`ch05_x.py` -> `<root>/outputs/ch05_x.txt`."""
        return self.output_dir / f"{Path(script).stem}.txt"

    def stamp_path(self, script: str) -> Path:
        return self.stamp_dir / f"{Path(script).stem}.json"

    def notebook_targets(self) -> dict[Path, Path]:
        """Notebook sources (jupytext py:percent) -> the executed notebooks the site renders:
        `notebooks/gpt2_under_the_hood.py` -> `docs/notebooks/gpt2-under-the-hood.ipynb`."""
        return {
            source: self.notebook_target_dir / f"{source.stem.replace('_', '-')}.ipynb"
            for source in sorted(self.notebook_source_dir.glob("*.py"))
        }

    def notebook_stamp_path(self, target: Path) -> Path:
        return self.stamp_dir / f"notebook-{target.stem}.json"

    def discover_scripts(self) -> list[str]:
        """The chapter scripts, by file name, sorted."""
        return sorted(path.name for path in self.code_dir.glob(SCRIPT_GLOB))

    def markdown_pages(self) -> list[Path]:
        """Every page of the book: each Markdown file under `docs/` (a `.cache` folder in it
        excluded), sorted. The pipeline, the claim check, the ledger and book_checks read these."""
        return sorted(path for path in self.docs_dir.rglob("*.md")
                      if ".cache" not in path.relative_to(self.docs_dir).parts)

    def relative(self, path: Path) -> str:
        """Root-relative POSIX path, or the path as given when it lies outside."""
        try:
            return path.relative_to(self.root).as_posix()
        except ValueError:
            return str(path)


DEFAULT = Layout.of_repository()


# --------------------------------------------------------------------------- files


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write_atomic(path: Path, data: bytes) -> None:
    """Write `data` so that readers see the old file or the new one, never half of it."""
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
