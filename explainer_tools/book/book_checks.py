"""Book-wide checks of `make check`: one book, not a set of chapters. Each problem names the file,
the line and what is wrong.

1. `status`: no page states by hand that a chapter is or is not written ("still being written",
   "not yet written", "is being written", "yet to be written", "coming soon", ...). Status comes
   from the nav (`chapters.py`); pages, BOOK.md, CONTRIBUTING.md and README.md are read.
2. `outside`: no page, script, docstring, test or data file names a path outside the repository
   (the parent folder's shared area, absolute paths into the work or temporary folders) or a
   document a reader cannot open (the internal notes the book was planned from, by their names or
   by what they were called). Read: every text file under docs/, explainer_code/,
   explainer_tools/, tests/, notebooks/ and outputs/, and BOOK.md, CONTRIBUTING.md, README.md.
   The patterns are written so that this module does not match itself.
3. `badges`: the tag budget of every page under docs/.
   - A *badge* is one provenance tag in the page's prose, as the site renders it
     (`provenance.render_tags`): a sentence tag `[MY EXPLANATION]` or a section tag
     `[SECTION: MY EXPLANATION]` counts one each. Tags in front matter, fenced code, embedded
     outputs and sources, inline code and HTML comments are not badges.
   - A *word* is a whitespace-separated run holding a letter or digit, on a prose line (what
     `markdown.scan` calls prose: not front matter, not fenced code, not an embedded region, not
     an HTML comment), after removing the tags, inline HTML tags and inline comments.
   - A page fails with more badges than its allowance, `BUDGET_PER_1000` per 1,000 words rounded
     up to a whole badge (a page of 760 words may carry 5), or with two identical badges in a
     row: consecutive in page order, with the same text (a section tag and a sentence tag of the
     same text are identical), and no heading line between them.
4. Structure (chapters and errata): `table-caption`, a literal "Table: ..." paragraph;
   `figure-caption`, an unnumbered "*Figure:* ..." caption (use `<figure markdown>` and
   `<figcaption>`); `errata-heading`, a chapter whose errata section is not headed exactly
   `ERRATA_HEADING`; `going-deeper`, a "Going deeper" section with open sub-headings instead of
   collapsible `??? note` blocks; `tex-after-prose`, a display formula that is not a paragraph of
   its own: its `\\[` line right after prose or after an indented HTML comment (inside a box;
   a comment at the margin is its own block), or a non-blank line right after its `\\]`
   (Python-Markdown then leaves the whole formula as raw TeX).
5. `bibliography`: every entry of docs/_data/references.bib is cited on some page, and the paper
   (`PAPER_KEY`) on the home page and on the Notation page.

Pages that their owners are bringing into line this round may be listed in `PENDING_PATH`, one
`CHECK PATH  # reason` per line: their problems of that check are printed as "pending" and do not
fail. A listed page that has no problem of that check any more is an error (remove the line), so
the list can only shrink; a line naming a file that does not exist is ignored.

>>> status_problems("x.md", "Chapter 9 is still being written.\\n")
['x.md:1: "still being written": chapter status is generated from the nav; do not state it by hand']
>>> count_words("[MY EXPLANATION] A head reads `x`.")
4
"""

from __future__ import annotations

import itertools
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from explainer_tools.book.bibliography import BIB_PATH, cited_keys, load_bibliography
from explainer_tools.book.provenance import ProvenanceError, render_tags
from explainer_tools.layout import Layout
from explainer_tools.markdown import HEADING, scan
from explainer_tools.tags import TAG_PATTERN

BUDGET_PER_1000 = 6.0
ERRATA_HEADING = "## Paper errata concerning this chapter"
PAPER_KEY = "lotfi2024"
PENDING_PATH = "explainer_tools/book/book_checks_pending.txt"
CHECKS = ("status", "outside", "badges", "table-caption", "figure-caption", "errata-heading",
          "going-deeper", "tex-after-prose", "bibliography")

# Only the phrases of hand-written status; "is written" alone (as in "the output is written to")
# is ordinary English, so the pattern keeps the forms that say a chapter is or is not done.
STATUS_PHRASE = re.compile(
    r"\b(?:still\s+being\s+written|(?:is|are)\s+being\s+written|not\s+(?:yet\s+)?written"
    r"(?:\s+yet)?|yet\s+to\s+be\s+written|(?:will|to)\s+be\s+written\s+(?:later|soon|next)|"
    r"coming\s+soon|under\s+construction|work\s+in\s+progress)\b",
    re.I,
)

OUTSIDE_PATTERNS = (
    re.compile(r"\.\./shared\b"),
    re.compile(r"(?<![\w./-])shared(?=/)"),
    re.compile(r"(?<![\w.~-])/work(?=/)"),
    re.compile(r"(?<![\w.~-])/tmp(?=/)"),
    re.compile(r"\bfact\s+sheets?\b", re.I),
    re.compile(r"\bthe\s+findings\b", re.I),
    re.compile(r"\bsizing\s+stud(?:y|ies)\b", re.I),
    re.compile(r"\bdesign\s+(?:files?|notes?|documents?)\b", re.I),
    re.compile(r"\bFACTS_ROUND\d"),
    re.compile(r"\bFINDINGS_[A-Z0-9]"),
    re.compile(r"\bENVIRONMENT\.md\b"),
    re.compile(r"\bSTYLE\.md\b"),
)
OUTSIDE_ROOTS = ("docs", "explainer_code", "explainer_tools", "tests", "notebooks", "outputs")
OUTSIDE_FILES = ("BOOK.md", "CONTRIBUTING.md", "README.md")
TEXT_SUFFIXES = frozenset({".md", ".py", ".txt", ".yml", ".yaml", ".json", ".bib", ".js", ".css",
                           ".toml", ".ipynb", ".cfg", ".html", ".csv", ".tsv"})
SKIP_PARTS = frozenset({"__pycache__", ".ipynb_checkpoints", "site", "build"})

TABLE_CAPTION = re.compile(r"^\s*Table:\s")
FIGURE_CAPTION = re.compile(r"^\s*(?:\*{1,2}|_)Figure(?:\s+[\d.]+)?:")
CHAPTER_PAGE = re.compile(r"^docs/chapters/\d{2}-[^/]+\.md$")
# Not a formula finder (`markdown.math_spans` is): the line a display `\[` opens, whose
# neighbours decide whether Python-Markdown reads it as a paragraph of its own.
DISPLAY_OPEN = re.compile(r"^\s*(?:>\s*)*\\\[")
QUOTE_ONLY = re.compile(r"^\s*>\s*$")
INLINE_HTML = re.compile(r"<!--.*?-->|<[^>\n]+>")
WORD = re.compile(r"\S*[A-Za-z0-9]\S*")


@dataclass(frozen=True)
class Problem:
    check: str
    path: str  # relative to the repository root
    line: int
    message: str

    def __str__(self) -> str:
        return f"{self.path}:{self.line}: {self.message}"


# --------------------------------------------------------------------------- 1. status


def status_problems(path: str, text: str) -> list[str]:
    """Hand-written chapter status in one file, as `path:line: ...` messages."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        for match in STATUS_PHRASE.finditer(line):
            phrase = " ".join(match.group(0).split())
            found.append(f'{path}:{number}: "{phrase}": chapter status is generated from the '
                         "nav; do not state it by hand")
    return found


# --------------------------------------------------------------------------- 2. outside


def outside_problems(path: str, text: str) -> list[str]:
    """Names of things outside the repository in one file, as `path:line: ...` messages."""
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        for pattern in OUTSIDE_PATTERNS:
            for match in pattern.finditer(line):
                found.append(f'{path}:{number}: "{match.group(0)}" names something outside the '
                             "repository; cite the original source or the book's own output")
    return found


def outside_files(root: Path) -> list[Path]:
    files = [root / name for name in OUTSIDE_FILES if (root / name).is_file()]
    for folder in OUTSIDE_ROOTS:
        for path in sorted((root / folder).rglob("*")):
            if (path.is_file() and path.suffix in TEXT_SUFFIXES
                    and not SKIP_PARTS & set(path.relative_to(root).parts)):
                files.append(path)
    return files


# --------------------------------------------------------------------------- 3. badges


@dataclass(frozen=True)
class BadgeCount:
    words: int
    badges: int
    repeats: list[tuple[int, str]]  # (line, tag text) of a badge identical to the one before

    @property
    def per_1000(self) -> float:
        return 1000.0 * self.badges / self.words if self.words else 0.0

    @property
    def allowance(self) -> int:
        """Badges the page may carry: BUDGET_PER_1000 per 1,000 words, rounded up."""
        return math.ceil(BUDGET_PER_1000 * self.words / 1000 - 1e-9)


def count_words(line: str) -> int:
    """Words of one prose line (tags, inline HTML and comments removed)."""
    text = INLINE_HTML.sub(" ", TAG_PATTERN.sub(" ", line))
    return len(WORD.findall(text))


def badge_count(markdown: str, page: str = "<page>") -> BadgeCount:
    """Words, badges and repeated badges of one page (see the module docstring)."""
    scanned = scan(markdown)
    words = sum(count_words(line.text) for line in scanned.lines
                if line.kind == "prose" and not line.embedded)
    _, tags = render_tags(markdown, page=page)
    headings = sorted(line.number for line in scanned.lines
                      if line.kind == "prose" and HEADING.match(line.text)
                      and len(HEADING.match(line.text).group("indent")) < 4)
    repeats = []
    for before, tag in itertools.pairwise(tags):
        between = any(before.line < h <= tag.line for h in headings)
        if tag.text == before.text and not between:
            repeats.append((tag.line, tag.text))
    return BadgeCount(words, len(tags), repeats)


def badge_problems(path: str, markdown: str) -> tuple[list[Problem], str]:
    """The problems of one page and its report line (badges per 1,000 words)."""
    try:
        count = badge_count(markdown, page=path)
    except ProvenanceError as error:
        return [Problem("badges", path, 0, str(error))], ""
    problems = []
    rate = count.per_1000
    report = f"{path}: {count.badges} badges, {count.words:,} words, {rate:.1f} per 1,000"
    if count.badges > count.allowance:
        problems.append(Problem("badges", path, 1, f"{rate:.1f} badges per 1,000 words "
                                f"({count.badges} in {count.words:,}; {count.allowance} allowed), "
                                f"over the budget of {BUDGET_PER_1000:g}: use section tags"))
    for line, text in count.repeats:
        problems.append(Problem("badges", path, line, f"[{text}] repeats the badge before it "
                                "with no heading between: drop one"))
    return problems, report


# --------------------------------------------------------------------------- 4. structure


def structure_problems(path: str, markdown: str) -> list[Problem]:
    """Captions, the errata heading, Going deeper and display math of one page."""
    problems: list[Problem] = []
    lines = scan(markdown).lines
    chapter = bool(CHAPTER_PAGE.match(path))
    problems += _display_math_problems(path, lines)
    for line in lines:
        if line.kind == "prose" and not line.embedded:
            if TABLE_CAPTION.match(line.text):
                problems.append(Problem("table-caption", path, line.number,
                                        'a literal "Table:" paragraph; introduce the table with a '
                                        "sentence instead"))
            if FIGURE_CAPTION.match(line.text):
                problems.append(Problem("figure-caption", path, line.number,
                                        "an unnumbered figure caption; use <figure markdown> with "
                                        "a <figcaption>"))
    if chapter:
        problems += _chapter_sections(path, lines)
    return problems


def _display_math_problems(path: str, lines: list) -> list[Problem]:
    """A display formula must be a paragraph of its own: blank lines around `\\[ ... \\]`."""
    problems: list[Problem] = []
    index = 0
    while index < len(lines):
        line = lines[index]
        if line.kind != "prose" or line.embedded or not DISPLAY_OPEN.match(line.text):
            index += 1
            continue
        end = index
        while end < len(lines) and not lines[end].text.rstrip().endswith("\\]"):
            end += 1
        before = lines[index - 1] if index else None
        after = lines[end + 1] if end + 1 < len(lines) else None
        top_comment = before is not None and before.kind == "comment" and before.text[:1] == "<"
        if (before is not None and before.text.strip() and not QUOTE_ONLY.match(before.text)
                and not top_comment):
            problems.append(Problem("tex-after-prose", path, line.number,
                                    "a display \\[ right after a non-blank line renders as raw "
                                    "TeX; leave a blank line before it"))
        if after is not None and after.text.strip() and not QUOTE_ONLY.match(after.text):
            problems.append(Problem("tex-after-prose", path, after.number,
                                    "text right after a display's \\] turns the formula into raw "
                                    "TeX; leave a blank line after it"))
        index = end + 1
    return problems


def _chapter_sections(path: str, lines: list) -> list[Problem]:
    problems: list[Problem] = []
    h2 = [(line.number, line.text.strip()) for line in lines
          if line.kind == "prose" and line.text.startswith("## ")]
    errata = [(n, t) for n, t in h2 if "errat" in t.lower()]
    if not any(t.split(" {")[0] == ERRATA_HEADING for _, t in errata):
        where = errata[0][0] if errata else 1
        problems.append(Problem("errata-heading", path, where,
                                f"the errata section must be headed exactly {ERRATA_HEADING!r}"))
    for number, text in errata:
        if text.split(" {")[0] != ERRATA_HEADING:
            problems.append(Problem("errata-heading", path, number,
                                    f"{text!r}: the errata section is headed {ERRATA_HEADING!r}"))
    deeper = next((n for n, t in h2 if t.split(" {")[0] == "## Going deeper"), None)
    if deeper is not None:
        end = next((n for n, _ in h2 if n > deeper), 10**9)
        inside = [line for line in lines if deeper < line.number < end and line.kind == "prose"]
        for line in inside:
            if line.text.startswith("###"):
                problems.append(Problem("going-deeper", path, line.number,
                                        "an open heading under Going deeper; put the material "
                                        'in a collapsible block (??? note "...")'))
        if not any(line.text.startswith("???") for line in inside):
            problems.append(Problem("going-deeper", path, deeper,
                                    "Going deeper holds no collapsible block"))
    return problems


# --------------------------------------------------------------------------- 5. bibliography


def bibliography_problems(root: Path, pages: dict[str, str]) -> list[Problem]:
    if not (root / BIB_PATH).is_file():
        return []
    entries = load_bibliography(root)
    cited: dict[str, set[str]] = {}
    for path, text in pages.items():
        for key, _ in cited_keys(text):
            cited.setdefault(key, set()).add(path)
    problems = [Problem("bibliography", str(BIB_PATH), entry.line,
                        f"entry {key!r} is cited on no page: cite it where it belongs or remove it")
                for key, entry in sorted(entries.items()) if key not in cited]
    for page in ("docs/index.md", "docs/notation.md"):
        if page in pages and page not in cited.get(PAPER_KEY, set()):
            problems.append(Problem("bibliography", page, 1,
                                    f"the paper [@{PAPER_KEY}] is not cited on this page"))
    return problems


# --------------------------------------------------------------------------- running them


def load_pending(root: Path) -> set[tuple[str, str]]:
    """(check, path) pairs of the allow-list; an unknown check is an error."""
    path = root / PENDING_PATH
    if not path.is_file():
        return set()
    pending = set()
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) != 2 or parts[0] not in CHECKS:
            raise ValueError(f"{PENDING_PATH}:{number}: write `CHECK PATH  # reason`, CHECK one "
                             f"of {', '.join(CHECKS)}")
        pending.add((parts[0], parts[1]))
    return pending


def doc_pages(root: Path) -> tuple[dict[str, str], list[Problem]]:
    """Every Markdown page under docs/ (not the data folder), by path from the root, and a
    problem for each page that is not UTF-8 (named with the line of its first bad byte)."""
    pages: dict[str, str] = {}
    problems: list[Problem] = []
    layout = Layout(root)
    for path in layout.markdown_pages():
        if path.is_relative_to(layout.data_dir):
            continue
        name = path.relative_to(root).as_posix()
        data = path.read_bytes()
        try:
            pages[name] = data.decode("utf-8")
        except UnicodeDecodeError as error:
            line = data[:error.start].count(b"\n") + 1
            problems.append(Problem("encoding", name, line, f"not UTF-8 (byte "
                                    f"{data[error.start:error.start + 1]!r}); save it as UTF-8"))
    return pages, problems


def all_problems(root: Path) -> tuple[list[Problem], list[str]]:
    """Every problem of every check, and the badge report lines."""
    pages, problems = doc_pages(root)
    reports: list[str] = []
    status_files = dict(pages)
    for name in ("BOOK.md", "CONTRIBUTING.md", "README.md"):
        if (root / name).is_file():
            status_files[name] = (root / name).read_text(encoding="utf-8")
    for path, text in status_files.items():
        for message in status_problems(path, text):
            problems.append(_parse("status", message))
    for file in outside_files(root):
        try:
            text = file.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for message in outside_problems(file.relative_to(root).as_posix(), text):
            problems.append(_parse("outside", message))
    for path, text in pages.items():
        found, report = badge_problems(path, text)
        problems += found
        if report:
            reports.append(report)
        problems += structure_problems(path, text)
    problems += bibliography_problems(root, pages)
    return problems, reports


def _parse(check: str, message: str) -> Problem:
    path, line, rest = message.split(":", 2)
    return Problem(check, path, int(line), rest.strip())


def main(argv: list[str] | None = None, root: Path | None = None) -> int:
    """Print the badge report and every problem; 1 when a problem is not pending."""
    from explainer_tools.layout import DEFAULT

    args = sys.argv[1:] if argv is None else argv
    root = root or DEFAULT.root
    problems, reports = all_problems(root)
    try:
        pending = load_pending(root)
    except ValueError as error:
        print(error, file=sys.stderr)
        return 1
    failing = [p for p in problems if (p.check, p.path) not in pending]
    waiting = [p for p in problems if (p.check, p.path) in pending]
    stale = sorted((check, path) for check, path in pending - {(p.check, p.path) for p in problems}
                   if (root / path).exists())  # a copy without the page (a scaffolding test)
    if "--quiet" not in args:
        print("Badges per 1,000 words (budget 6):")
        for report in reports:
            print("  " + report)
    for problem in waiting:
        print(f"pending ({problem.check}): {problem}")
    for check, path in stale:
        print(f"{PENDING_PATH}: '{check} {path}' has no problem any more: remove the line",
              file=sys.stderr)
    for problem in failing:
        print(f"{problem.check}: {problem}", file=sys.stderr)
    summary = (f"book checks: {len(failing)} problem(s), {len(waiting)} pending, "
               f"{len(stale)} stale allow-list line(s)")
    print(summary, file=sys.stderr if failing or stale else sys.stdout)
    return 1 if failing or stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
