"""The claims ledger: the paper's claims that the book examines, each with a status and evidence.

Defined in `docs/_data/claims_ledger.yml`, rendered as the "Claims ledger" page at build time,
checked by `python -m explainer_tools.book.ledger --check` (part of `make check`). One entry:

    - id: L1
      claim: The smallest model of the paper has 124M parameters.      # the paper's words, short
      paper: "App. E, p. 16"                                            # where it says so
      status: reproduced          # reproduced | caveat | cannot-check | contradicted
      chapters: [chapters/05-transformers-gpt2.md]
      errata: [E24]               # optional
      note: ...                   # what the book found (required unless reproduced)
      evidence:                   # required unless cannot-check
        - output: ch05_param_count.py
          block: 1
          expects: ["123,689,472"]   # strings the block must still print

A status other than "cannot-check" is tied to output blocks: when a script's output changes so
that a block no longer prints what the entry expects, the check fails and names the entry, so
nobody keeps calling a claim reproduced on evidence that has moved.

    >>> [p for p in entry_problems({"id": "L9", "claim": "c", "paper": "p. 1",
    ...     "status": "guessed", "chapters": []}, {}, set())]
    ['L9: status must be one of reproduced, caveat, cannot-check, contradicted']
"""

from __future__ import annotations

import argparse
import html
import sys
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

from explainer_tools.blocks import Block, BlockError, read_output_blocks
from explainer_tools.layout import DATA_DIR, DEFAULT, Layout
from explainer_tools.markdown import read_utf8
from explainer_tools.tags import paper_tag_problem
from explainer_tools.yaml_input import check_fields, load_yaml

LEDGER_PATH = DATA_DIR / "claims_ledger.yml"
STATUSES = {
    "reproduced": "Reproduced",
    "caveat": "Reproduced, with a caveat",
    "cannot-check": "Cannot be checked here",
    "contradicted": "Contradicted",
}


# The fields of an entry and their kinds (yaml_input.check_fields); which are required, and
# what their values may be, is `entry_problems`' to say
EVIDENCE = {"output": str, "block": int, "expects": [str]}
FIELDS = {"id": str, "claim": str, "paper": str, "status": str, "chapters": [str],
          "errata": [str], "note": str, "evidence": [EVIDENCE]}


class LedgerError(ValueError):
    """A malformed claims ledger, naming the file and line."""


def parse_ledger(text: str, source: str = str(LEDGER_PATH)) -> list[dict]:
    """The ledger's entries; every entry a mapping with an `id` (else an error with its line)."""
    data, root = load_yaml(text, source, LedgerError)
    data = data or []
    if not isinstance(data, list):
        raise LedgerError(f"{source}:1: expected a list of entries")
    for position, entry in enumerate(data, start=1):
        node = root.value[position - 1]
        where = f"{source}:{node.start_mark.line + 1}: entry {position}"
        if not isinstance(entry, dict):
            raise LedgerError(f"{where} is not a mapping (id: ..., claim: ..., ...)")
        if not entry.get("id"):
            raise LedgerError(f"{where} has no 'id'")
        check_fields(entry, node, FIELDS, source, f"entry {position} ({entry['id']})",
                     LedgerError)
    return data


def load_ledger(root: Path) -> list[dict]:
    return parse_ledger(read_utf8(root / LEDGER_PATH, str(LEDGER_PATH), LedgerError))


def readable_blocks(layout: Layout, script: str) -> dict[int, Block] | None:
    """The blocks of `script`'s golden output, or None when it is missing or malformed (an entry
    citing it then has "no readable golden output")."""
    try:
        return read_output_blocks(layout.output_path(script))
    except BlockError:
        return None


def entry_problems(entry: dict, outputs: dict[str, dict[int, Block] | None],
                   pages: set[str]) -> Iterator[str]:
    """Everything wrong with one ledger entry; `outputs` maps script -> its parsed blocks."""
    ident = entry.get("id", "?")
    for field in ("id", "claim", "paper", "status"):
        if not entry.get(field):
            yield f"{ident}: missing {field!r}"
    status = entry.get("status")
    if status not in STATUSES:
        yield f"{ident}: status must be one of {', '.join(STATUSES)}"
        return
    for page in entry.get("chapters") or []:
        if page not in pages:
            yield f"{ident}: chapter page docs/{page} does not exist"
    if status != "reproduced" and not entry.get("note"):
        yield f"{ident}: a {status!r} claim needs a note saying what the book found"
    evidence = entry.get("evidence") or []
    if status != "cannot-check" and not evidence:
        yield f"{ident}: a {status!r} claim needs evidence (output blocks)"
    for item in evidence:
        script, block = item.get("output", ""), item.get("block")
        blocks = outputs.get(script)
        if blocks is None:
            yield f"{ident}: evidence cites {script!r}, which has no readable golden output"
            continue
        if block not in blocks:
            yield f"{ident}: evidence cites block [{block}] of {script}, which does not exist"
            continue
        for expected in item.get("expects") or []:
            if str(expected) not in blocks[block].text:
                yield (f"{ident}: output [{block}] of {script} no longer prints {expected!r}; "
                       "re-examine the claim and update its status and evidence in "
                       f"{LEDGER_PATH}")
        if not item.get("expects"):
            yield f"{ident}: evidence {script} [{block}] lists nothing it expects"


def check_ledger(root: Path = DEFAULT.root) -> list[str]:
    entries = load_ledger(root)
    scripts = {item.get("output", "") for e in entries for item in e.get("evidence") or []}
    layout = Layout(root)
    outputs = {script: readable_blocks(layout, script) for script in scripts}
    docs = layout.docs_dir
    pages = {p.relative_to(docs).as_posix() for p in layout.markdown_pages()}
    problems: list[str] = []
    seen: set[str] = set()
    for entry in entries:
        if entry.get("id") in seen:
            problems.append(f"{entry.get('id')}: duplicate id")
        seen.add(entry.get("id"))
        problems += [f"{LEDGER_PATH}: {p}" for p in entry_problems(entry, outputs, pages)]
    return problems


def _page_link(page: str) -> str:
    """`chapters/05-transformers-gpt2.md` -> a link titled "Chapter 5"."""
    stem = Path(page).stem
    number = stem.split("-")[0]
    title = f"Chapter {int(number)}" if number.isdigit() else _cell(stem)
    return f"[{title}]({_target(page)})"


def _target(page: str) -> str:
    """A link target as Markdown reads it: the path, its spaces, brackets and quotes escaped."""
    return urllib.parse.quote(page, safe="/#.-_~")


def _cell(text: str) -> str:
    """A field's text in a table cell: one line, `|` escaped, and HTML escaped (the fields are
    text: a `<script>` in a claim is shown, never run).

    >>> _cell("a <b>\\n| c")
    'a &lt;b&gt; \\\\| c'
    """
    return html.escape(" ".join(str(text).split()), quote=False).replace("|", "\\|")


def ledger_markdown(entries: list[dict]) -> str:
    """The generated Claims ledger page: a summary, then one table row per claim."""
    counts = {status: sum(e.get("status") == status for e in entries) for status in STATUSES}
    lines = [
        "# Claims ledger",
        "",
        "[MY ANALYSIS] The paper's claims that this book examines, one row each, with what the "
        "book found. A claim marked reproduced, reproduced with a caveat, or contradicted is "
        "tied to the output blocks that show it: if a script's output changes, `make check` "
        "fails until the entry is re-examined. Claims about experiments that need the authors' "
        "GPUs and data are marked as not checkable here, with the reason.",
        "",
        '<div class="ledger-summary">',
    ]
    for status, label in STATUSES.items():
        lines.append(f'<span class="ledger-status ledger-{status}">{label}: {counts[status]}'
                     "</span>")
    lines += ["</div>", "", "| Id | The paper's claim | Status | What the book found |",
              "| --- | --- | --- | --- |"]
    for entry in entries:
        status = str(entry.get("status"))  # one outside STATUSES is shown as written
        label = STATUSES.get(status) or _cell(status)
        status = status if status in STATUSES else "unknown"
        found = [_cell(entry["note"])] if entry.get("note") else []
        links = [_page_link(page) for page in entry.get("chapters") or []]
        links += [f"[{_cell(eid)}]({_target(f'errata/{eid.lower()}.md')})"
                  for eid in entry.get("errata") or []]
        for item in entry.get("evidence") or []:
            expected = ", ".join(f"<code>{_cell(x)}</code>" for x in item["expects"])
            links.append(f"output [{_cell(item['block'])}] of <code>{_cell(item['output'])}"
                         f"</code> prints {expected}")
        if links:
            found.append("Evidence: " + "; ".join(links) + ".")
        ident = html.escape(str(entry["id"]), quote=True)
        lines.append(
            f'| <span id="{ident.lower()}">{ident}</span> '
            f"| [{_paper_tag(_cell(entry.get('paper', '')))}] {_cell(entry.get('claim', ''))} "
            f'| <span class="ledger-status ledger-{status}">{label}</span> '
            f"| {' '.join(found)} |"
        )
    return "\n".join(lines) + "\n"


def _paper_tag(location: str) -> str:
    """`PAPER <location>` for a part of the paper the book has read, else `SECONDARY: paper
    <location>` (tags.paper_tag_problem)."""
    tag = f"PAPER {location}"
    return tag if paper_tag_problem(tag) is None else f"SECONDARY: paper {location}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m explainer_tools.book.ledger",
                                     description="Check the claims ledger against the outputs.")
    parser.add_argument("--check", action="store_true", help="check (the only mode)")
    parser.add_argument("--root", type=Path, default=DEFAULT.root)
    args = parser.parse_args(argv)
    try:
        problems = check_ledger(args.root)
    except LedgerError as error:
        print(error, file=sys.stderr)
        return 1
    for problem in problems:
        print(problem, file=sys.stderr)
    entries = load_ledger(args.root)
    print(f"claims ledger: {len(entries)} claim(s), "
          f"{'ok' if not problems else f'{len(problems)} problem(s)'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
