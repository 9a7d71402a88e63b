"""Chapter status from one source: a chapter is written exactly when its page is in `mkdocs.yml`'s
nav. Everything that shows a chapter's status is generated from that fact:

- the plan, `docs/_data/chapters.yml`, holds each chapter's number, part and planned title, and
  never a status;
- the home page's list of parts and chapters (`home_markdown`, filled in at build time where
  `docs/index.md` holds the line `HOME_MARKER`): written chapters linked, planned ones in plain
  text with a quiet "planned" mark;
- BOOK.md's table of contents (`toc_table`), rewritten by `make regenerate` between `TOC_START`
  and `TOC_END` and compared by `make check` (`toc_problems`);
- "Chapter N" in prose (`render_chapter_mentions`, called by the reader features): a link when
  the chapter is written, plain text with the same quiet mark when it is planned.

A written chapter's title is its nav title (without the leading "N. "); a planned one's is the
plan's. A nav chapter missing from the plan, or filed under another part, is an error.

>>> nav = [{"Home": "index.md"}, {"Part I. Foundations": [{"5. GPT-2": "chapters/05-gpt2.md"}]}]
>>> plan = [Planned(5, "Transformers", "Part I. Foundations"),
...         Planned(6, "Evaluating", "Part I. Foundations")]
>>> [(c.number, c.title, c.page) for c in chapter_status(plan, nav)]
[(5, 'GPT-2', 'chapters/05-gpt2.md'), (6, 'Evaluating', None)]
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from explainer_tools.book.crossref import chapter_number, relative_url
from explainer_tools.book.mkdocs_yml import ConfigError, read_mkdocs_yml
from explainer_tools.layout import DATA_DIR, Layout
from explainer_tools.markdown import read_utf8
from explainer_tools.yaml_input import Map, check_value, load_yaml

PLAN_PATH = (DATA_DIR / "chapters.yml").as_posix()
BOOK_MD = "BOOK.md"
HOME_MARKER = "<!-- book: chapters -->"
TOC_START = "<!-- book: table of contents (make regenerate writes it from mkdocs.yml's nav) -->"
TOC_END = "<!-- /book: table of contents -->"
NAV_TITLE = re.compile(r"^\s*\d{1,2}\.\s+")
CHAPTER_MENTION = re.compile(r"\bChapter (\d{1,2})\b")
PLANNED_MARK = '<span class="planned-mark">planned</span>'
PLAN_SCHEMA = {"parts": [{"part": str, "chapters": Map(int, str)}]}


class BookError(ValueError):
    """The plan or the nav cannot be read, or they disagree; names the file and what is wrong."""


@dataclass(frozen=True)
class Planned:
    number: int
    title: str
    part: str


@dataclass(frozen=True)
class Chapter:
    number: int
    title: str
    part: str
    page: str | None  # path under docs/ when the chapter is in the nav (written), else None

    @property
    def written(self) -> bool:
        return self.page is not None


def load_nav(root: Path) -> list[Any]:
    """The `nav` list of `root/mkdocs.yml`."""
    path = Layout(root).mkdocs_yml
    try:
        config = read_mkdocs_yml(path)
    except ConfigError as error:
        raise BookError(f"{error} (cannot read the nav)") from None
    nav = config.get("nav")
    if not isinstance(nav, list):
        raise BookError(f"{path}: no `nav:` list")
    return nav


def load_plan(root: Path) -> list[Planned]:
    """The plan: `parts: [{part: NAME, chapters: {N: TITLE}}]`, numbers unique."""
    path = root / PLAN_PATH
    try:
        text = read_utf8(path, PLAN_PATH, BookError)
    except OSError as error:
        raise BookError(f"{PLAN_PATH}: cannot read the plan: {error}") from None
    data, node = load_yaml(text, PLAN_PATH, BookError)
    check_value(data or {}, node, PLAN_SCHEMA, PLAN_PATH, "the plan", BookError)
    plan: list[Planned] = []
    for entry in (data or {}).get("parts") or []:
        part, chapters = entry.get("part"), entry.get("chapters")
        if not isinstance(part, str) or not isinstance(chapters, dict):
            raise BookError(f"{PLAN_PATH}: each part needs `part: NAME` and "
                            "`chapters: {N: TITLE}`")
        for number, title in chapters.items():
            if any(p.number == number for p in plan):
                raise BookError(f"{PLAN_PATH}: chapter {number} is planned twice")
            plan.append(Planned(int(number), str(title), part))
    if not plan:
        raise BookError(f"{PLAN_PATH}: no chapters")
    return sorted(plan, key=lambda p: p.number)


def nav_items(nav: list[Any], part: str = "") -> list[tuple[str, str, str]]:
    """(part, title, page) for every page of the nav, in nav order; `part` is the title of the
    top-level section a page sits in ("" for top-level pages)."""
    items: list[tuple[str, str, str]] = []
    for entry in nav:
        if isinstance(entry, str):
            items.append((part, "", entry))
            continue
        for title, value in entry.items():
            if isinstance(value, list):
                items += nav_items(value, part or title)
            elif isinstance(value, str):
                items.append((part, title, value))
    return items


def refuse_duplicate_numbers(pages: list[str]) -> None:
    """A BookError naming both pages when two chapter pages (under docs/, `chapters/NN-...`) carry
    one number: its figures, formulas and "Chapter N" links would belong to either.

    >>> try:
    ...     refuse_duplicate_numbers(["chapters/10-a.md", "index.md", "chapters/10-b.md"])
    ... except BookError as error:
    ...     print(error)
    two chapter pages are chapter 10: docs/chapters/10-a.md and docs/chapters/10-b.md (renumber one)
    """
    seen: dict[int, str] = {}
    for page in pages:
        number = chapter_number(page)
        if number is None or not page.startswith("chapters/"):
            continue
        if number in seen and seen[number] != page:
            raise BookError(f"two chapter pages are chapter {number}: docs/{seen[number]} and "
                            f"docs/{page} (renumber one)")
        seen[number] = page


def chapter_status(plan: list[Planned], nav: list[Any]) -> list[Chapter]:
    """Every planned chapter, with its page when the nav lists it (the one source of status)."""
    in_nav: dict[int, tuple[str, str, str]] = {}
    items = nav_items(nav)
    try:
        refuse_duplicate_numbers([page for _, _, page in items])
    except BookError as error:
        raise BookError(f"mkdocs.yml's nav: {error}") from None
    for part, title, page in items:
        number = chapter_number(page)
        if number is not None and page.startswith("chapters/"):
            in_nav[number] = (part, title, page)
    known = {p.number: p for p in plan}
    for number, (part, _, page) in sorted(in_nav.items()):
        if number not in known:
            raise BookError(f"mkdocs.yml: nav page {page} is chapter {number}, which "
                            f"{PLAN_PATH} does not plan")
        if part != known[number].part:
            raise BookError(f"mkdocs.yml: chapter {number} ({page}) sits under {part!r} in the "
                            f"nav but under {known[number].part!r} in {PLAN_PATH}")
    chapters = []
    for planned in plan:
        if planned.number in in_nav:
            _, title, page = in_nav[planned.number]
            chapters.append(Chapter(planned.number, NAV_TITLE.sub("", title) or planned.title,
                                    planned.part, page))
        else:
            chapters.append(Chapter(planned.number, planned.title, planned.part, None))
    return chapters


def load_chapters(root: Path) -> list[Chapter]:
    return chapter_status(load_plan(root), load_nav(root))


def home_markdown(chapters: list[Chapter], nav: list[Any]) -> str:
    """The home page's list: one bold line per part, then its chapters in order (written ones
    linked) and the part's other nav pages (a companion notebook) after the chapter before them,
    "Beside Chapter N: " before their link. Links are relative to `docs/index.md`."""
    extras: dict[tuple[str, int], list[tuple[str, str]]] = {}
    last = 0
    for part, title, page in nav_items(nav):
        number = chapter_number(page)
        if number is not None and page.startswith("chapters/"):
            last = number
        elif part.startswith("Part ") and title:
            extras.setdefault((part, last), []).append((title, page))
    lines: list[str] = []
    for part in dict.fromkeys(c.part for c in chapters):
        lines += [f"**{html.escape(part, quote=False)}**", ""]
        for chapter in (c for c in chapters if c.part == part):
            title = html.escape(chapter.title, quote=False)  # text: shown, never run as HTML
            if chapter.written:
                lines.append(f"- {chapter.number}\\. [{title}]({chapter.page})")
            else:
                lines.append(f"- {chapter.number}\\. {title} {PLANNED_MARK}")
            for title, page in extras.get((part, chapter.number), []):
                # text before the link keeps it inline, as the chapters' numbers do theirs: a
                # list item that is a bare link is a touch target too small on a phone
                lines.append(f"- Beside Chapter {chapter.number}: [{title}]({page})")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def fill_home(markdown: str, chapters: list[Chapter], nav: list[Any]) -> str:
    """`docs/index.md` with its marker line replaced by the generated list."""
    if HOME_MARKER not in markdown:
        raise BookError(f"docs/index.md: the line {HOME_MARKER} is missing (the list of chapters "
                        "is generated there)")
    return markdown.replace(HOME_MARKER, home_markdown(chapters, nav), 1)


def toc_table(chapters: list[Chapter]) -> str:
    """BOOK.md's table of contents, status from the nav."""
    rows = ["| # | chapter | part | status |", "| --- | --- | --- | --- |"]
    for chapter in chapters:
        status = "written" if chapter.written else "planned"
        rows.append(f"| {chapter.number} | {chapter.title} | {chapter.part} | {status} |")
    return "\n".join(rows)


def book_md_with_toc(text: str, chapters: list[Chapter]) -> str:
    """BOOK.md's text with the generated table between its markers."""
    start, end = text.find(TOC_START), text.find(TOC_END)
    if start < 0 or end < start:
        raise BookError(f"{BOOK_MD}: the markers {TOC_START!r} and {TOC_END!r} are missing")
    head = text[: start + len(TOC_START)]
    return f"{head}\n{toc_table(chapters)}\n{text[end:]}"


def write_toc(root: Path) -> bool:
    """Rewrite BOOK.md's table from the nav; True when the file changed."""
    path = root / BOOK_MD
    text = path.read_text(encoding="utf-8")
    new = book_md_with_toc(text, load_chapters(root))
    if new != text:
        path.write_text(new, encoding="utf-8")
        return True
    return False


def toc_problems(root: Path) -> list[str]:
    """Empty when BOOK.md's table is what the nav says; else one message naming the file."""
    if not (root / BOOK_MD).is_file() or not (root / PLAN_PATH).is_file():
        return []  # a repository without the book's plan (a scaffolding test) has no table
    try:
        text = (root / BOOK_MD).read_text(encoding="utf-8")
        expected = book_md_with_toc(text, load_chapters(root))
    except BookError as error:
        return [str(error)]
    if expected == text:
        return []
    old, new = text.splitlines(), expected.splitlines()
    line = next((i + 1 for i, (a, b) in enumerate(zip(old, new, strict=False)) if a != b),
                min(len(old), len(new)) + 1)
    return [f"{BOOK_MD}:{line}: the table of contents disagrees with mkdocs.yml's nav "
            "(run `make regenerate`)"]


def render_chapter_mentions(text: str, page: str, chapters: dict[int, Chapter],
                            directory_urls: bool = True) -> str:
    """"Chapter 14" in a run of prose HTML: a link when Chapter 14 is written (and is not this
    page), plain text with a quiet "planned" mark when it is planned, untouched otherwise.

    >>> chapters = {9: Chapter(9, "G", "II", "chapters/09-g.md"), 23: Chapter(23, "W", "IV", None)}
    >>> render_chapter_mentions("Chapter 9, Chapter 23", "index.md", chapters)  # doctest: +ELLIPSIS
    '<a class="chapter-link" href="chapters/09-g/">Chapter 9</a>, <span class="chapter-planned" ...'
    """

    def render(match: re.Match[str]) -> str:
        chapter = chapters.get(int(match.group(1)))
        if chapter is None or chapter.page == page:
            return match.group(0)
        if chapter.page is None:
            title = html.escape(f"Chapter {chapter.number}, {chapter.title}: planned", quote=True)
            return (f'<span class="chapter-planned" title="{title}">{match.group(0)} '
                    f"{PLANNED_MARK}</span>")
        href = relative_url(page, chapter.page, "", directory_urls).removesuffix("#")
        return f'<a class="chapter-link" href="{href}">{match.group(0)}</a>'

    return CHAPTER_MENTION.sub(render, text)


def main(argv: list[str] | None = None, root: Path | None = None) -> int:
    """`python -m explainer_tools.book.chapters [--check]`: write (or compare) BOOK.md's table (of
    the repository at `root`; the tools' own by default)."""
    import sys

    from explainer_tools.layout import DEFAULT

    args = sys.argv[1:] if argv is None else argv
    root = root or DEFAULT.root
    if "--check" in args:
        problems = toc_problems(root)
        for problem in problems:
            print(problem, file=sys.stderr)
        return 1 if problems else 0
    if not (root / BOOK_MD).is_file() or not (root / PLAN_PATH).is_file():
        return 0
    try:
        changed = write_toc(root)
    except BookError as error:
        print(error, file=sys.stderr)
        return 1
    if changed:
        print(f"{BOOK_MD}: table of contents rewritten from mkdocs.yml's nav")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
