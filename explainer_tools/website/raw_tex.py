"""Raw TeX left as text on a rendered page: a TeX command (`\\begin`, `\\frac`, `\\href`,
`\\mathrm`, `\\left`, ...) or a math delimiter (`\\[`, `\\]`, `\\(`, `\\)`) in the page's text
outside typeset math and outside code. Python-Markdown leaves a display formula as text when it
is not a paragraph of its own (its `\\[` right after a line of prose or an HTML comment, or text
right after its `\\]`); the build's renderer then never sees it, and the reader (and the PDF)
gets the TeX source.

`RAW_TEX_JS` runs in the browser once the page has loaded (the browser suite and
`make pdf` call it) and returns a snippet of text around each hit. Every text node counts, shown
or folded away in a collapsed block, because a folded block is opened by a reader and printed by
`make pdf`. Skipped: code (`pre`, `code`, `kbd`), scripts and styles, KaTeX's output
(`.katex`, whose MathML keeps the TeX as an annotation), the search box, form fields and a
notebook's hidden copy buffers
(`.clipboard-copy-txt`, the text of its code cells). `raw_tex_snippets` is the same rule on plain
text, for tests and for pages checked without a browser.

>>> len(raw_tex_snippets("\\\\begin{aligned} a \\\\end{aligned}"))
2
>>> raw_tex_snippets("a typeset formula leaves no backslash; \\\\, is not a command")
[]
"""

from __future__ import annotations

import re

# A backslash and two or more letters (a control word), or a math delimiter: TeX left in the
# rendered text, not a formula of the Markdown (those are `markdown.math_spans`').
TEX_COMMAND = re.compile(r"\\(?:[A-Za-z]{2,}|[\[\]()])")
CONTEXT = 20

RAW_TEX_JS = r"""() => {
  const command = /\\(?:[A-Za-z]{2,}|[\[\]()])/g;
  const skip = "pre, code, kbd, script, style, noscript, textarea, input, .katex, "
             + ".md-search, svg, .clipboard-copy-txt";
  const found = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = node.nodeValue;
    if (!text.includes("\\")) continue;
    const parent = node.parentElement;
    if (!parent || parent.closest(skip)) continue;
    for (const match of text.matchAll(command)) {
      const at = match.index;
      found.push(text.slice(Math.max(0, at - 20), at + 20).replace(/\s+/g, " ").trim());
    }
  }
  return Array.from(new Set(found));
}"""


def raw_tex_snippets(text: str) -> list[str]:
    """Each TeX command or delimiter in `text`, with up to CONTEXT characters on either side
    (the same rule as RAW_TEX_JS)."""
    snippets = []
    for match in TEX_COMMAND.finditer(text):
        at = match.start()
        snippet = " ".join(text[max(0, at - CONTEXT) : at + CONTEXT].split())
        if snippet not in snippets:
            snippets.append(snippet)
    return snippets
