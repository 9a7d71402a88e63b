"""The notebook's training text: a frozen, cleaned snapshot of the site's pages, and its vocabulary.

Why a snapshot. The small GPT of the notebook learns from this site's own prose. Reading the live
pages would make every typo fix anywhere re-train the model and rewrite every number in the
notebook, and the model would change under it as chapters arrive. So the text is frozen in a data
file, `explainer_code/data/gpt_lab_corpus.json` (`SNAPSHOT_PATH`), with its provenance: the commit
it was taken from, the SHA-256 of each page, and the cleaning rules. Nothing rebuilds it except on
purpose:

    make corpus        # = PYTHONPATH=explainer_code .venv/bin/python -m gpt_lab.corpus --rebuild

then `make regenerate` (the notebook re-executes) and commit the three together.

Cleaning (`clean_page`): replace the YAML front matter by its prose (the title and every
string value of eight words or more, such as an erratum's `problem`), drop the embedded script
sources and outputs (everything between `<!-- embed: ... -->` and `<!-- /embed -->`: code and
number tables, not prose), the remaining HTML comments, and the provenance tags such as
`[MY EXPLANATION]` or `[SECONDARY: paper App. E, p. 16]` (annotations a model would learn to
imitate);
squeeze runs of blank lines.

The vocabulary (`CompactVocab`): the GPT-2 tokens that occur in the text, renumbered 0..n-1
(`<|endoftext|>` first). A few thousand rows instead of 50,257 keep the model small and quick to
train, while every token is still exactly a GPT-2 token.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import torch
import yaml

from explainer_tools.tags import TAG_PATTERN_UNNAMED
from gpt_lab.tokenizer import ENDOFTEXT_ID

REPO_ROOT = Path(__file__).resolve().parents[2]
SNAPSHOT_PATH = REPO_ROOT / "explainer_code" / "data" / "gpt_lab_corpus.json"
DOCS_DIR = REPO_ROOT / "docs"
EXCLUDED_DIRS = ("fixtures",)  # pipeline test fixtures, not pages of the site
FRONT_MATTER = re.compile(r"\A---\n(.*?)\n---\n", re.S)
PROSE_MIN_WORDS = 8
EMBED_BLOCK = re.compile(r"<!-- embed:.*?-->.*?<!-- /embed -->", re.S)
# Annotations, not prose: HTML comments and provenance tags. The tag grammar is the site's own
# (explainer_tools/tags.py), so what is stripped here is exactly what the site renders as a badge.
ANNOTATION = re.compile(r"<!--.*?-->|" + TAG_PATTERN_UNNAMED + " ?", re.S)
BLANK_RUNS = re.compile(r"\n{3,}")
CLEANING_RULES = (
    "YAML front matter replaced by its prose: the title and every string value of 8 words or more",
    "embedded script sources and outputs (between '<!-- embed: ... -->' and '<!-- /embed -->') "
    "removed",
    "other HTML comments removed",
    "provenance tags ([PAPER ...], [SOURCE: ...], [MY EXPLANATION], [MY ANALYSIS], [INFERRED]) "
    "removed",
    "runs of three or more newlines squeezed to two; leading and trailing whitespace stripped",
)


def markdown_files(docs_dir: Path) -> list[Path]:
    """Every Markdown page under `docs_dir`, sorted by relative path (fixtures excluded)."""
    files = [
        p
        for p in docs_dir.rglob("*.md")
        if not any(part in EXCLUDED_DIRS for part in p.relative_to(docs_dir).parts)
    ]
    return sorted(files, key=lambda p: p.relative_to(docs_dir).as_posix())


def strip_annotations(markdown: str) -> str:
    """The text without HTML comments and provenance tags.

    >>> strip_annotations("[MY EXPLANATION] A head <!-- embed: x -->reads.")
    'A head reads.'
    """
    return ANNOTATION.sub("", markdown)


def clean_page(markdown: str) -> str:
    """A page as training text (the cleaning rules of the module docstring).

    >>> page = "---\\ntitle: X\\n---\\n[INFERRED] Text.\\n<!-- embed: o -->\\n4\\n<!-- /embed -->"
    >>> clean_page(page)
    'X\\n\\nText.'
    """
    match = FRONT_MATTER.match(markdown)
    text = markdown[match.end() :] if match else markdown
    if match:
        text = "\n\n".join([*front_matter_prose(yaml.safe_load(match.group(1)) or {}), text])
    text = EMBED_BLOCK.sub("", text)
    text = strip_annotations(text)
    return BLANK_RUNS.sub("\n\n", text).strip()


def front_matter_prose(meta: object) -> list[str]:
    """The title and every string of `PROSE_MIN_WORDS` words or more in a page's front matter,
    in document order (nested lists and mappings included).

    >>> front_matter_prose({"title": "E9", "id": "E9", "problem": "a b c d e f g h"})
    ['E9', 'a b c d e f g h']
    """
    if isinstance(meta, dict):
        found = [meta["title"]] if isinstance(meta.get("title"), str) else []
        for key, value in meta.items():
            if key != "title":
                found += front_matter_prose(value)
        return found
    if isinstance(meta, list):
        return [s for item in meta for s in front_matter_prose(item)]
    if isinstance(meta, str) and len(meta.split()) >= PROSE_MIN_WORDS:
        return [meta.strip()]
    return []


def _git(*args: str) -> str:
    result = subprocess.run(
        ["git", *args], cwd=REPO_ROOT, capture_output=True, text=True, check=False
    )
    return result.stdout.strip() if result.returncode == 0 else "unknown"


def build_snapshot(docs_dir: Path = DOCS_DIR) -> dict:
    """The snapshot of the pages under `docs_dir` as it would be written to `SNAPSHOT_PATH`."""
    files = markdown_files(docs_dir)
    dirty = _git("status", "--porcelain", "--", *(str(p) for p in files))
    return {
        "about": (
            "Training text of the companion notebook 'GPT-2 under the hood': the site's Markdown "
            "pages, cleaned, frozen so that prose edits never re-train the notebook's model."
        ),
        "provenance": {
            "source": "docs/**/*.md of this repository (the site's own text and licence)",
            "commit": _git("rev-parse", "HEAD"),
            "pages_modified_since_commit": bool(dirty and dirty != "unknown"),
            "page_sha256": {
                p.relative_to(docs_dir).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
                for p in files
            },
            "cleaning": list(CLEANING_RULES),
            "rebuild": "make corpus (python -m gpt_lab.corpus --rebuild), then make regenerate",
        },
        "documents": [
            {"page": p.relative_to(docs_dir).as_posix(), "text": clean_page(p.read_text("utf-8"))}
            for p in files
        ],
    }


def load_documents(path: Path = SNAPSHOT_PATH) -> list[str]:
    """The cleaned texts of the snapshot, in page order."""
    return [doc["text"] for doc in json.loads(path.read_text(encoding="utf-8"))["documents"]]


def corpus_tokens(documents: list[str], enc) -> list[int]:
    """GPT-2 token ids of all documents, each followed by `<|endoftext|>`, the separator GPT-2
    was trained with."""
    ids: list[int] = []
    for text in documents:
        ids += enc.encode_ordinary(text)
        ids.append(ENDOFTEXT_ID)
    return ids


@dataclass(frozen=True)
class CompactVocab:
    """A renumbering of the GPT-2 tokens that occur in a corpus.

    >>> v = CompactVocab.from_ids([995, 15496, 995])
    >>> v.gpt2_ids, v.to_compact([15496, 995])
    ((50256, 995, 15496), [2, 1])
    """

    gpt2_ids: tuple[int, ...]  # compact id -> GPT-2 id

    @classmethod
    def from_ids(cls, ids: list[int]) -> CompactVocab:
        rest = sorted(set(ids) - {ENDOFTEXT_ID})
        return cls((ENDOFTEXT_ID, *rest))

    def __len__(self) -> int:
        return len(self.gpt2_ids)

    def to_compact(self, gpt2_ids: list[int]) -> list[int]:
        index = {g: i for i, g in enumerate(self.gpt2_ids)}
        missing = [g for g in gpt2_ids if g not in index]
        if missing:
            raise KeyError(f"GPT-2 tokens not in this vocabulary: {missing}")
        return [index[g] for g in gpt2_ids]

    def to_gpt2(self, compact_ids: list[int]) -> list[int]:
        return [self.gpt2_ids[i] for i in compact_ids]


def split_train_val(ids: torch.Tensor, chunk: int, every: int) -> tuple[torch.Tensor, torch.Tensor]:
    """Cut the token stream into chunks of `chunk` tokens; every `every`-th chunk (the last of
    each group) goes to validation. Interleaving keeps every page represented in both parts."""
    n_chunks = len(ids) // chunk
    chunks = ids[: n_chunks * chunk].view(n_chunks, chunk)
    is_val = (torch.arange(n_chunks) % every) == every - 1
    return chunks[~is_val].flatten(), chunks[is_val].flatten()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m gpt_lab.corpus",
        description="Rebuild the notebook's frozen corpus from the current pages (on purpose).",
    )
    parser.add_argument("--rebuild", action="store_true", help="write " + str(SNAPSHOT_PATH))
    args = parser.parse_args(argv)
    snapshot = build_snapshot()
    text = json.dumps(snapshot, indent=1, ensure_ascii=False) + "\n"
    chars = sum(len(d["text"]) for d in snapshot["documents"])
    print(f"{len(snapshot['documents'])} pages, {chars:,} characters after cleaning")
    if not args.rebuild:
        frozen = (
            json.loads(SNAPSHOT_PATH.read_text(encoding="utf-8")) if SNAPSHOT_PATH.is_file() else {}
        )
        same = frozen.get("documents") == snapshot["documents"]
        print("the frozen text", "equals" if same else "differs from",
              "the cleaned pages of today (pass --rebuild to rewrite it)")
        return 0
    SNAPSHOT_PATH.write_text(text, encoding="utf-8")
    print(f"wrote {SNAPSHOT_PATH.relative_to(REPO_ROOT)}; now run `make regenerate` and commit")
    return 0


if __name__ == "__main__":
    sys.exit(main())
