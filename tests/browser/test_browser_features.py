"""The reader features, in Chromium, on the built site and on a fixture chapter.

1. Number provenance: every linked number of every chapter page shows the output line that
   printed it and its link lands on that line, opened and visible; that is checked in the
   per-page load (browser_kit.number_link_problems, test_browser_pages.py). Here: the keyboard,
   the layout and print.
2. Equations, figures, citations, glossary: a fixture chapter with a labelled formula, a figure,
   references to both, a citation and a glossary term renders numbers, previews and cards.
3. The whole book: the print page has every formula of the pages it gathers, typeset, and
   `make pdf`'s printer turns one chapter of it (the smallest with every feature) into a PDF
   with embedded math glyphs and internal links; `make pdf` prints the whole book.
4. Dark mode keeps figures on a light card; "last verified" names the stamps' last commit;
   clicking a figure opens it zoomed.
"""

from __future__ import annotations

import re
import subprocess
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_kit import (
    CARD,
    DESKTOP,
    MATHJAX_TIMEOUT_MS,
    PHONE,
    StaticServer,
    build_site,
    discover_pages,
    open_context,
    scratch_project,
)
from conftest import PROJECT

pytestmark = pytest.mark.browser

WAIT_FONTS = "() => document.fonts.ready.then(() => true)"  # KaTeX's fonts, math rendered


def chapter_pages(site: Path) -> list[str]:
    return [p for p in discover_pages(site) if p.startswith("chapters/")]


def open_page(browser: Any, server: StaticServer, url_path: str,
              viewport: dict[str, int] = DESKTOP) -> tuple[Any, Any]:
    context = open_context(browser, viewport)
    page = context.new_page()
    page.goto(server.url(url_path), wait_until="load")
    page.wait_for_function(WAIT_FONTS, timeout=MATHJAX_TIMEOUT_MS)
    page.wait_for_load_state("networkidle")  # Material's scripts set up (instant navigation)
    return context, page


def test_numbers_are_reachable_by_keyboard_and_do_not_shift_the_layout(
    browser: Any, server: StaticServer, built_site: Path
) -> None:
    url_path = chapter_pages(built_site)[0]
    context, page = open_page(browser, server, url_path)
    try:
        box = page.eval_on_selector("a.num", "a => a.getBoundingClientRect().height")
        line = page.eval_on_selector("a.num", "a => parseFloat(getComputedStyle(a.parentElement)"
                                              ".lineHeight) || 0")
        assert line == 0 or box <= line + 1, f"/{url_path}: a number link is taller than its line"
        page.focus("a.num")
        assert page.evaluate("document.activeElement.classList.contains('num')")
        assert CARD.match(page.text_content(".num-card") or ""), "focus shows no card"
        page.keyboard.press("Escape")
        assert page.query_selector(".num-card") is None, "Escape does not close the card"
        math_link = page.query_selector(".katex a")
        if math_link is not None:  # a number inside a formula has the same card
            math_link.hover()
            assert CARD.match(page.text_content(".num-card") or ""), "no card for a math number"
        page.emulate_media(media="print")
        border = page.eval_on_selector("a.num", "a => getComputedStyle(a).borderBottomStyle")
        assert border == "none", "number links must not show in print"
    finally:
        context.close()


FIXTURE_CHAPTER = textwrap.dedent("""\
    # Chapter 98: reader features (fixture)

    [MY EXPLANATION] The first formula is labelled:

    \\[ a^2 + b^2 = c^2 \\label{eq:pythagoras} \\]

    <figure markdown id="fig-shares">
      ![A chart used as a fixture figure](../../assets/fig/{figure})
      <figcaption>A fixture figure, drawn by a chapter script.</figcaption>
    </figure>

    [MY EXPLANATION] As [@eq:pythagoras] shows, and as [@fig:shares] draws, LoRA is cheap
    [@hu2022; @lotfi2024, §4]. LoRA appears twice here; only the first use is marked.
    """)


@pytest.fixture(scope="module")
def fixture_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StaticServer]:
    project = scratch_project(tmp_path_factory.mktemp("features") / "project", PROJECT)
    chapter = project / "docs" / "fixtures" / "chapters" / "98-features.md"
    chapter.parent.mkdir(parents=True)
    figure = sorted((project / "docs" / "assets" / "fig").glob("*.png"))[0].name
    chapter.write_text(FIXTURE_CHAPTER.replace("{figure}", figure), encoding="utf-8")
    site = build_site(project, project / "site")
    with StaticServer(site) as running:
        yield running


def test_equations_figures_citations_and_glossary_render(browser: Any,
                                                        fixture_server: StaticServer) -> None:
    context, page = open_page(browser, fixture_server, "fixtures/chapters/98-features/")
    try:
        tag = page.text_content("#eq-pythagoras .katex-html")
        assert "(98.1)" in (tag or ""), f"formula tag: {tag!r}"
        assert page.text_content("figcaption .fig-number") == "Figure 98.1."
        refs = page.eval_on_selector_all("a.xref", "els => els.map(a => a.textContent)")
        assert refs == ["Eq. (98.1)", "Figure 98.1"]
        page.hover("a.xref >> nth=0")
        page.wait_for_function(
            "() => { const m = document.querySelector('.xref-card .katex');"
            " return m && m.getBoundingClientRect().width > 0; }", timeout=MATHJAX_TIMEOUT_MS)
        page.hover("h1")
        assert page.query_selector(".xref-card") is None, "the card stays after the pointer left"
        page.focus("a.xref >> nth=1")
        page.wait_for_function("() => { const i = document.querySelector('.xref-card img');"
                               " return i && i.complete && i.naturalWidth > 0; }")
        page.keyboard.press("Escape")
        citation = page.text_content("span.citation")
        assert citation == "(Hu et al., 2022; Lotfi et al., 2024, §4)", citation
        title = page.get_attribute("a.cite >> nth=1", "data-reference")
        assert title and "Non-Vacuous Generalization Bounds" in title
        assert page.query_selector("#ref-hu2022") and page.query_selector("#ref-lotfi2024")
        gloss = page.eval_on_selector_all("a.gloss", "els => els.map(e => [e.textContent, "
                                                     "e.title, e.tabIndex, e.href])")
        assert [g[0] for g in gloss].count("LoRA") == 1, gloss
        # Out of the tab order, named by its text, described by its definition, and a link to
        # an entry that exists on the Glossary page.
        assert all(g[1] and g[2] == -1 and "/glossary/#term-" in g[3] for g in gloss), gloss
        entry = next(g[3] for g in gloss if g[0] == "LoRA")
        page.goto(entry)
        assert page.query_selector("#" + entry.rsplit("#", 1)[1] + ":is(h2, h3)"), entry
        page.go_back()
        # Figure zoom: a native modal dialog with the figure's own file, closed by Escape, focus
        # back on the figure's link.
        source = page.get_attribute("figure a.zoom >> nth=0", "href")
        page.click("figure img")
        page.wait_for_selector("dialog.zoom-dialog[open] img", state="visible", timeout=5_000)
        shown = page.eval_on_selector("dialog.zoom-dialog img", "img => [img.src, img.alt, "
                                      "img.naturalWidth, document.activeElement.className]")
        assert source and shown[0].endswith(source.lstrip("./")), (source, shown)
        assert shown[1] and shown[2] > 0 and shown[3] == "zoom-close", shown
        page.keyboard.press("Escape")
        page.wait_for_selector("dialog.zoom-dialog", state="hidden", timeout=5_000)
        assert page.evaluate("document.activeElement.matches('figure a.zoom')")
    finally:
        context.close()


# A citation whose paragraph is followed by a display formula (any renderer's display block).
CITE_BEFORE_FORMULA_JS = """() => Array.from(document.querySelectorAll("p a.cite")).findIndex(
(a) => {
  const next = a.closest("p").nextElementSibling;
  return !!next && next.matches("div.arithmatex, .katex-display, mjx-container[display='true']");
})"""


def test_the_citation_card_does_not_cover_the_formula_below(browser: Any, server: StaticServer,
                                                             built_site: Path) -> None:
    """Hovering a citation shows its reference in a card above the line, clear of the display
    formula that follows the sentence, and Material's own tooltip (which opens below) stays shut."""
    checked = 0
    for url_path in chapter_pages(built_site):
        if 'class="cite"' not in (built_site / url_path / "index.html").read_text("utf-8"):
            continue
        context, page = open_page(browser, server, url_path)
        try:
            index = page.evaluate(CITE_BEFORE_FORMULA_JS)
            if index < 0:
                continue
            link = page.locator("p a.cite").nth(index)
            link.evaluate("a => a.scrollIntoView({block: 'center'})")
            link.hover()
            page.wait_for_selector(".cite-card", timeout=5_000)
            page.wait_for_timeout(300)  # Material's tooltip would fade in within 250 ms
            boxes = link.evaluate("""a => {
              const box = (el) => { const r = el.getBoundingClientRect();
                                    return {top: r.top, bottom: r.bottom, height: r.height}; };
              return {card: box(document.querySelector('.cite-card')), link: box(a),
                      formula: box(a.closest('p').nextElementSibling),
                      material: !!document.querySelector('.md-tooltip2--active'),
                      described: a.getAttribute('aria-describedby')}; }""")
            assert boxes["card"]["height"] > 0, (url_path, boxes)
            assert boxes["card"]["bottom"] <= boxes["link"]["top"], (url_path, boxes)
            assert boxes["card"]["bottom"] <= boxes["formula"]["top"], (url_path, boxes)
            assert not boxes["material"], (url_path, "Material's tooltip opened too")
            assert boxes["described"] == "reader-card", (url_path, boxes)
            checked += 1
        finally:
            context.close()
        if checked >= 2:
            break
    assert checked, "no page has a citation right before a display formula"


def test_figures_keep_a_light_card_in_dark_mode(browser: Any, server: StaticServer,
                                                built_site: Path) -> None:
    url_path = next(p for p in chapter_pages(built_site)
                    if "assets/fig/" in (built_site / p / "index.html").read_text("utf-8"))
    context, page = open_page(browser, server, url_path)
    try:
        page.evaluate("document.body.setAttribute('data-md-color-scheme', 'slate')")
        background = page.eval_on_selector("img[src*='assets/fig/']",
                                           "i => getComputedStyle(i).backgroundColor")
        assert background == "rgb(255, 255, 255)", background
    finally:
        context.close()


def test_last_verified_names_the_commit_of_the_stamps(browser: Any, server: StaticServer,
                                                      built_site: Path) -> None:
    for url_path in chapter_pages(built_site):
        html_text = (built_site / url_path / "index.html").read_text(encoding="utf-8")
        match = re.search(r'class="last-verified">Last verified: commit <code>([0-9a-f]+)</code>',
                          html_text)
        assert match, f"/{url_path}: no 'last verified' line"
        log = subprocess.run(["git", "log", "--format=%h", "--", "outputs/.stamps/"],
                             cwd=PROJECT, capture_output=True, text=True, check=True).stdout
        assert match.group(1) in log.split(), f"/{url_path}: {match.group(1)} changed no stamp"


# The one chapter of the print page that the suite prints: the smallest that has every feature
# the printer must carry (rendered math, a table, an output block, a figure, an in-page link to
# an element of its own). The rest of the book is inspected in the browser (pdf.INSPECT_JS) but
# removed before printing; `make pdf` prints all of it.
KEEP_ONE_CHAPTER_JS = """() => {
  const sections = Array.from(document.querySelectorAll("section.print-page"));
  const complete = (s) => {
    const ids = new Set(Array.from(s.querySelectorAll("[id]")).map((e) => e.id));
    // Links are absolute in the live page (http://host/print_page/#id), not "#id".
    return ["table", "pre", "img", ".katex"].every((sel) => s.querySelector(sel))
      && Array.from(s.querySelectorAll("a[href*='#']")).some(
        (a) => a.pathname === location.pathname && ids.has(decodeURIComponent(a.hash.slice(1))));
  };
  const keep = sections.filter(complete)
    .sort((a, b) => a.innerHTML.length - b.innerHTML.length)[0];
  if (!keep) return null;
  // Parts are sections too: keep the chapter's own (and the contents), drop every other
  // section and part, then the contents entries whose heading went with them.
  const toc = document.querySelector("#print-page-toc");
  sections.forEach((s) => {
    if (!s.contains(keep) && !keep.contains(s) && !(toc && s.contains(toc))) s.remove();
  });
  document.querySelectorAll("#print-page-toc li").forEach((li) => {
    const a = li.querySelector("a[href*='#']");
    if (a && !document.getElementById(decodeURIComponent(a.hash.slice(1)))) li.remove();
  });
  return {id: keep.id, of: sections.length,
          left: document.querySelectorAll("section.print-page").length,
          contents: document.querySelectorAll("#print-page-toc a").length};
}"""


def test_the_whole_book_lists_its_contents_once(browser: Any, server: StaticServer) -> None:
    """print-site builds the contents list at each `</head>` of its page; a plugin that wraps
    every page in a document of its own (a lightbox did) repeats the list once per chapter."""
    context, page = open_page(browser, server, "print_page/")
    try:
        lists = page.eval_on_selector_all("#print-page-toc > nav > ul", "els => els.length")
        entries = page.eval_on_selector_all("#print-page-toc a", "els => els.length")
        assert lists == 1 and entries > 26, (lists, entries)
    finally:
        context.close()


def test_the_whole_book_prints_with_every_formula(browser: Any, server: StaticServer,
                                                  built_site: Path, tmp_path: Path) -> None:
    """The whole-book page holds every formula of the pages it gathers, all rendered, every
    image loaded and every in-book link resolved (inspected whole); one chapter of it, with every
    feature, prints to a PDF with KaTeX's glyphs embedded and internal links."""
    from explainer_tools.website import pdf

    expected = 0
    for url_path in discover_pages(built_site):
        html_text = (built_site / (url_path or "") / "index.html").read_text(encoding="utf-8")
        if url_path.startswith("notebooks/") or not html_text:
            continue
        expected += html_text.count('class="arithmatex"')
    summary = pdf.print_book(browser, server.url(""), tmp_path / "book.pdf",
                             before_print=lambda page: page.evaluate(KEEP_ONE_CHAPTER_JS))
    assert pdf.problems_of(summary) == []
    assert summary["formulas"] >= expected, (summary["formulas"], expected)
    kept = summary["before_print"]
    assert kept and kept["of"] > kept["left"] > 0, f"no chapter of the print page printed: {kept}"
    assert summary["pdf_katex_fonts"] > 0, f"no KaTeX font embedded in the PDF of {kept['id']}"
    assert summary["pdf_internal_destinations"] > 0, f"the PDF of {kept['id']} has no links"
    assert summary["contents_numbered"] == kept["contents"] > 0, (summary, kept)
    assert summary["internal_links"] > 100, summary["internal_links"]


def test_the_print_check_finds_a_dangling_in_book_link(browser: Any, server: StaticServer,
                                                      built_site: Path) -> None:
    """Links are absolute in the live page; the print check still reads them as in-book links
    and names the one whose anchor is missing."""
    from explainer_tools.website import pdf

    page = browser.new_page()
    try:
        page.goto(server.url("chapters/13-documents-as-samples/"), wait_until="load")
        page.evaluate("""() => {
          const a = document.createElement("a");
          a.href = location.pathname + "#no-such-anchor";
          a.textContent = "dangling";
          document.querySelector("article").appendChild(a);
        }""")
        summary = page.evaluate(pdf.INSPECT_JS)
    finally:
        page.close()
    assert summary["internal_links"] > 0
    assert summary["dangling_links"] == ["no-such-anchor"], summary["dangling_links"]


SCROLL_STOPS_JS = """() => Array.from(document.querySelectorAll('[data-scroll-stop]'), (box) => {
  const r = box.getBoundingClientRect();
  return {state: box.dataset.scrollStop, stop: box.getAttribute('tabindex') === '0',
          far: r.top > 2 * innerHeight + scrollY, hidden: !box.checkVisibility(),
          scrolls: box.scrollWidth > box.clientWidth}; })"""

SCROLL_STOPS_IN_VIEW_JS = """async () => {
  const frame = () => new Promise((done) => requestAnimationFrame(() => done()));
  const seen = [];
  for (const box of document.querySelectorAll('[data-scroll-stop]')) {
    box.scrollIntoView({block: 'center'});
    await frame(); await frame();
    seen.push({state: box.dataset.scrollStop, stop: box.getAttribute('tabindex') === '0',
               hidden: !box.checkVisibility(), scrolls: box.scrollWidth > box.clientWidth,
               box: box.tagName + '.' + box.className, text: box.textContent.slice(0, 40)});
  }
  return seen; }"""


def test_a_box_that_scrolls_sideways_keeps_its_tab_stop_and_one_that_fits_loses_it(
        browser: Any, server: StaticServer) -> None:
    """reader.js: each box that may scroll sideways (display formula, table, notebook cell) holds a
    tab stop until it comes near the screen, where the stop stays only if the box scrolls; boxes
    far below are not measured at load (measuring them would lay out the whole chapter). On a
    phone, Chapter 5 has boxes of both kinds; after a scroll through the page every box in view
    has a tab stop exactly when it scrolls."""
    context, page = open_page(browser, server, "chapters/05-transformers-gpt2/", PHONE)
    try:
        at_load = page.evaluate(SCROLL_STOPS_JS)
        far = [box for box in at_load if box["far"] and not box["hidden"]]
        assert far and all(box["state"] == "pending" and box["stop"] for box in far), at_load
        # the page grows as its blocks are laid out near the screen: scroll until the end stays
        while page.evaluate("scrollY + innerHeight < document.documentElement.scrollHeight - 1"):
            page.evaluate("window.scrollBy(0, 500)")
            page.wait_for_timeout(20)
        page.wait_for_timeout(200)
        # each box measured in view: a block far from the screen is not drawn
        # (content-visibility), and a box not drawn measures as fitting
        boxes = [box for box in page.evaluate(SCROLL_STOPS_IN_VIEW_JS) if not box["hidden"]]
        assert {box["state"] for box in boxes} == {"scrolls", "fits"}, boxes
        # a box measured before its block was drawn is measured again when the block is drawn
        wrong = [box for box in boxes if box["stop"] != box["scrolls"]]
        assert not wrong, wrong
    finally:
        context.close()


def test_a_settled_box_follows_its_size_and_keeps_its_stop_while_it_scrolls(
        browser: Any, server: StaticServer) -> None:
    """reader.js: a box settled as fitting that grows wide is settled again (a table stacked,
    fonts arriving); a box that scrolls keeps its stop when something removes it (Material,
    mounting a code block on a device without a mouse, removes the block's stop)."""
    context, page = open_page(browser, server, "chapters/05-transformers-gpt2/")
    try:
        result = page.evaluate("""async () => {
          const frame = () => new Promise((done) => requestAnimationFrame(() => done()));
          let box = null;
          for (const b of document.querySelectorAll('[data-scroll-stop]')) {
            if (!['auto', 'scroll'].includes(getComputedStyle(b).overflowX)) continue;
            b.scrollIntoView({block: 'center'});
            await frame(); await frame();
            if (b.dataset.scrollStop === 'fits') { box = b; break; }
          }
          if (!box) return 'no scrolling box settled as fitting';
          const wide = document.createElement('span');
          wide.style.cssText = 'display: inline-block; width: 3000px; height: 50px';
          box.append(wide);
          for (let i = 0; i < 5 && box.dataset.scrollStop !== 'scrolls'; i++) await frame();
          const grown = [box.dataset.scrollStop, box.getAttribute('tabindex')];
          box.removeAttribute('tabindex');
          await Promise.resolve(); await frame();
          return {grown, kept: box.getAttribute('tabindex')};
        }""")
        assert result == {"grown": ["scrolls", "0"], "kept": "0"}, result
    finally:
        context.close()
