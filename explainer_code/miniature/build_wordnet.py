"""Rebuild `explainer_code/data/wordnet_glosses.txt.xz` from Debian's `wordnet-base` package.

The shipped file holds one document per line: the definition part of every WordNet 3.0 gloss
(the text after `| ` in `data.noun`, `data.verb`, `data.adj`, `data.adv`, cut before the first
`; "` that opens a usage example), lower-cased, with every character outside `ALPHABET` replaced
by `?`. Files are read in that order, lines in file order; duplicates are kept.

    apt-get download wordnet-base          # wordnet-base_1%3a3.0-37_all.deb (Debian 12)
    dpkg-deb -x wordnet-base_*.deb wordnet-deb   # at the repository root
    # from explainer_code/:
    ../.venv/bin/python -m miniature.build_wordnet ../wordnet-deb/usr/share/wordnet

The output is written with xz preset 9; `data/wordnet_glosses.md` records the SHA-256 of the
decompressed text, which `miniature.corpus` checks on every load.
"""

from __future__ import annotations

import hashlib
import lzma
import sys
from pathlib import Path

from miniature.corpus import ALPHABET, WORDNET_FILE

POS_FILES = ("data.noun", "data.verb", "data.adj", "data.adv")


def glosses(wordnet_dir: Path) -> list[str]:
    """Definition part of every synset's gloss, lower-cased, unknown characters as '?'."""
    known = set(ALPHABET)
    docs = []
    for name in POS_FILES:
        for line in (wordnet_dir / name).read_text(encoding="latin-1").splitlines():
            if line.startswith("  ") or " | " not in line:  # licence header lines
                continue
            gloss = line.split(" | ", 1)[1].split('; "', 1)[0].strip().lower()
            docs.append("".join(c if c in known else "?" for c in gloss))
    return docs


def main() -> None:
    wordnet_dir = Path(sys.argv[1])
    text = "\n".join(glosses(wordnet_dir)) + "\n"
    data = text.encode("ascii")
    WORDNET_FILE.write_bytes(lzma.compress(data, preset=9))
    digest = hashlib.sha256(data).hexdigest()
    print(f"{text.count(chr(10))} documents, {len(data)} bytes, sha256 {digest}")


if __name__ == "__main__":
    main()
