"""Claim check: every number quoted in prose is a number the cited script printed.

Embedding keeps script outputs fresh; nothing else notices when a sentence that *quotes* an output
goes stale. This package reads every Markdown page under `docs/`, finds the citations of output
blocks, and checks that each number in a citation's scope is printed in the cited block(s).

What it may import of the other packages: `IMPORTS["claims"]` in explainer_tools/__init__.py.

Citations (case-insensitive "output"/"outputs"; the script may be in backticks or a link):

    (output [3] of ch05_param_count.py)     output [3] of ch05_param_count.py
    output [3] (ch05_param_count.py)        outputs [1] and [3] of ch05_attention.py
    (output [3])    (outputs [1], [2] and [3])    outputs [2]-[4]

A short citation names no script: it means the script of the nearest explicit citation earlier on
the page, else the single script of the front matter's `scripts:`; anything else is an error.

Scope. A citation covers the sentence it stands in and the uncited sentences after it in its
paragraph, up to the next citation (paragraphs are split into sentences); the whole list item,
the whole table row, or a heading / admonition title. A table or a list whose
introducing sentence (the last sentence of the paragraph right before it, for a list one that ends
with ":") cites blocks is checked cell by cell / item by item against them, unless a row or item
carries its own citation; so is a table followed by a caption paragraph ("Table: ...") that cites.
Numbers outside every scope are *uncited*: reported with their lines, and an error inside the
sections every chapter must fully cite ("Worked example...", "Common misconceptions",
"Self-test") and, anywhere, when no output of the page's scripts prints them.

Matching is by value after normalising how people write numbers: thousands separators (`,` in
prose; thin, narrow and no-break spaces; LaTeX `{,}` and `\\,`), unicode minus, a leading `+`,
suffixes (`%`, `ppm`, `M`, `k`, `B`), scientific forms (`1.8e-07`, `1.8\\times10^{-7}`, `10^{-5}`).
Values compare exactly as decimals: 0.0000 matches 0, but 15.67 does not match 15.666 (it is
reported as a near miss: rounded, sign only, one digit off, or within 1 %). A signed number must
carry the same sign as the block prints. Inside math a plain comma separates list entries
(`(1,2,3,6)` is four numbers); in prose `1,2,3,6` is too, because its groups are not thousands.
Numbers are read in the digits 0-9 only: a number written in other decimal digits (fullwidth
`３.５`, Arabic-Indic `٣`) is an error at its line, outside code and embedded regions, since the
check could not compare it. Invalid front matter is a page's one error (read as absent, it would
declare no scripts, and every number would be reported uncited).

Values quoted by name (`{glue}`name``, `\\glue{name}` in math: explainer_tools/glue.py) are
verified by construction: each is counted as glued, its name must be printed by a script of the
page (else an error at its line), and the digits of a name are no number of the prose. On a page
that quotes any value by name, a number written as digits in a fully cited section (checked or
uncited; not skipped by rule, not waived) is an error; the page's summary counts them ("bare").

What is not prose: front matter, fenced code blocks (embedded outputs and sources), everything
between `<!-- embed: ... -->` and `<!-- /embed -->`, HTML comments, HTML tags, link targets and
URLs. Inline code (`n_embd = 768`) is code, not prose: its numbers are skipped and counted as such.
Inline and display math (`\\( \\)`, `\\[ \\]`, `$ $`, `$$ $$`) IS prose and is checked:
`\\(47\\times768=36{,}096\\)` yields 47, 768 and 36096.

Skip rules (counted as "skipped by rule" in the report, listed with `-v`):

- reference: a number after Chapter/Ch., Section/Sec./§, Figure/Fig., Table/Tab., Equation/Eq.,
  Appendix/App., page/p./pp., Step, Part, Question, Exercise, Footnote, Line, Theorem, Lemma,
  Definition, Example, Algorithm, arXiv ("Chapter 7", "§6.4", "App. E, p. 16", "pp. 16-17");
  Chapter, Figure, Equation, Table, Step and Part only with a capital ("the table 69", "Occam
  part 1.0285", "at step 301,000" are checked);
  plural words take lists ("Chapters 19 and 20"); a leading heading number ("## 5.2 Heads").
- block marker: `[3]`, in citations and anywhere else in prose.
- year: 1900-2099 written without separators, in a date context ("in 2019,", "since 2020.",
  "July 2024") or next to a publication ("Radford et al. 2019", "(Radford, 2019)", "ICML 2024").
- exponent / index: an integer inside a superscript or subscript (`d^2`, `768^{2}`, `x_1`,
  `W_{12}`, `y_i^{(0)}`). A decimal exponent (`e^{1.414}`) is a quantity and is checked; so is
  the whole of `1.8\\times10^{-7}` and `10^{-5}`.
- provenance tag: the contents of `[PAPER App. E, p. 16]`, `[SOURCE: nanoGPT model.py]`.
- identifier: digits glued to a name: a letter or `_` before them (`log2`, `E24`, `W_1`,
  `c606ea6`, `ch05_param_count.py`), a letter-hyphen before them (`GPT-2`, `rank-4`), a letter
  after them other than a unit suffix (`3adf61e`, `2nd`, `4d` outside math), or a dotted
  version-like token (`2.13.0`). In math a letter after a number is a product (`12n^2`): checked.
- inline code.

Waivers cover what the rules do not, invisibly to the reader and always with a reason:

    <!-- claims: waive 1024 "context length, stated by nanoGPT's config, not printed" -->
    <!-- claims: waive 8 16 "head counts chosen for the question" -->

A waiver covers the numbers with those values in the paragraph, list item, table row or heading
it is written in; on a line of its own, the element that follows. A waiver without a reason, a
malformed `claims:` comment, and a waiver that matches no number are errors.

Errors (exit status 1) name the file and line: a number missing from the cited block(s), with the
closest number found there; a citation of an unknown script or block; an ambiguous short citation;
an uncited number in a fully-cited section, or anywhere when no output of the page's scripts
(front matter, erratum evidence, citations) prints it; a bare number in a fully-cited section of
a page that quotes by name; a name no script prints, or one printed in a block its sentence does
not cite; a bad waiver; a page that is not UTF-8; an unclosed code fence (it would hide every
later number). The report lists per page the numbers checked, skipped by rule, waived and
uncited (with lines), then the blocks no page cites.

What a number written as digits gets is a check by value, nothing more: a number the cited
block prints is verified wherever it stands, so a number copied from another line of the block,
two numbers swapped, or the wrong unit word after a number pass. Quoting by name rules those
out (the name is what the script printed on its line); the check reads no words around a
number.

Pages: every `docs/**/*.md` except those under a `fixtures/` folder (test pages of other
tools); notebooks (`.ipynb`) are not read. An erratum's prose lives in its front matter
(`title`, `paper_says` or `code_does`, `problem`, `consequences`, `correction`, and each evidence
item's `shows`, which cites the item's `output`/`block`), and is checked like the body.

    python -m explainer_tools claims [-v] [-q] [--root DIR] [PAGE ...]

Modules, in `LAYERS` order (each imports only those listed before it): `numbers` (the lexer:
`scan_numbers`, `parse_number`, `near_miss`), `outputs` (`Outputs`: blocks and printed numbers
per script),
`model` (the report's dataclasses), `page` (a page's prose elements, citations and waivers), `check`
(`check_page`, `check_site`, the values by name: `check_glued`, `check_glued_blocks`), `api`
(`verified_numbers`, below), `cli` (report and command line).

Verified numbers, for tools built on the check (e.g. a hook that links every number to the output
line that printed it): `verified_numbers(root)` returns a `PageClaims` per page with

- `verified`: one `VerifiedNumber` per number the check matched, with the page path, `line` and
  `column` (1-based) and the `span` (start, end offsets in the page's Markdown source) of the
  number as written, its `text`, the cited `script` and `block`, and the `output_line` (1-based
  line in `outputs/<stem>.txt`) and `output_text` (that line) where the block prints the value;
- `uncited`, `skipped`, `waived`: `Occurrence`s (text, value, line, offset, end, note: the skip
  rule or the waiver's reason);
- `errors`: the `ClaimError`s of the page.

>>> from explainer_tools.claims import verified_numbers
>>> claims = verified_numbers()  # doctest: +SKIP
>>> n = claims["docs/chapters/05-transformers-gpt2.md"].verified[0]  # doctest: +SKIP
>>> n.text, n.script, n.block, n.output_line  # doctest: +SKIP
('124', 'ch05_param_count.py', 3, 12)
"""

from explainer_tools.claims.api import PageClaims, VerifiedNumber, verified_numbers
from explainer_tools.claims.check import SiteReport, check_page, check_site
from explainer_tools.claims.cli import format_report, main
from explainer_tools.claims.model import Citation, ClaimError, Occurrence, PageReport
from explainer_tools.claims.numbers import Token, near_miss, parse_number, scan_numbers
from explainer_tools.claims.outputs import Outputs

# This package's order of its modules; unlike the other packages' `__init__`, this one gathers the
# public names, so it sits above them all (tests/test_layers.py).
LAYERS: dict[str, int] = {
    "numbers": 0, "outputs": 1, "model": 2, "page": 3, "check": 4, "api": 5, "cli": 6,
}

__all__ = [
    "Citation",
    "ClaimError",
    "Occurrence",
    "Outputs",
    "PageClaims",
    "PageReport",
    "SiteReport",
    "Token",
    "VerifiedNumber",
    "check_page",
    "check_site",
    "format_report",
    "main",
    "near_miss",
    "parse_number",
    "scan_numbers",
    "verified_numbers",
]
