"""Provenance tags become badges in prose, and only in prose."""

from __future__ import annotations

import pytest

from explainer_tools.book.provenance import ProvenanceError, render_tags


@pytest.mark.parametrize(
    ("tag", "css_class"),
    [
        ("[PAPER abstract, v3]", "prov--paper"),
        ("[PAPER introduction, p. 1]", "prov--paper"),
        ("[SECONDARY: paper App. E, p. 16]", "prov--secondary"),
        ("[SOURCE: nanoGPT model.py]", "prov--source"),
        ("[MY EXPLANATION]", "prov--explanation"),
        ("[MY ANALYSIS]", "prov--analysis"),
        ("[INFERRED]", "prov--analysis"),
        ("[INFERRED (MY ANALYSIS)]", "prov--analysis"),
    ],
)
def test_each_tag_kind_renders_as_its_badge(tag: str, css_class: str) -> None:
    rendered, tags = render_tags(f"Claim. {tag} More text.")
    label = tag[1:-1]
    assert f'<span class="prov {css_class}">{label}</span>' in rendered
    assert [t.text for t in tags] == [label]


def test_tags_in_code_comments_links_and_fences_are_left_alone() -> None:
    page = "\n".join(
        [
            "Inline `[MY EXPLANATION]` code.",
            "<!-- [MY ANALYSIS] in a comment -->",
            "A link [MY EXPLANATION](other.md) and a ref [INFERRED][ref].",
            "```text",
            "[PAPER App. E] inside a fence",
            "```",
            "[MY EXPLANATION] real one.",
        ]
    )
    rendered, tags = render_tags(page)
    assert [(t.text, t.line) for t in tags] == [("MY EXPLANATION", 7)]
    assert "`[MY EXPLANATION]` code" in rendered
    assert "[PAPER App. E] inside a fence" in rendered
    assert "[MY EXPLANATION](other.md)" in rendered


def test_paper_tag_without_location_is_an_error_naming_page_and_line() -> None:
    with pytest.raises(ProvenanceError, match=r"docs/x\.md:2: \[PAPER\] needs a location"):
        render_tags("fine\nBad [PAPER] claim.", page="docs/x.md")


@pytest.mark.parametrize("where", ["App. E, p. 16", "§6.4, Table 3", "Fig. 3"])
def test_paper_tag_for_a_part_the_book_has_not_read_is_an_error(where: str) -> None:
    """The book has read the abstracts and the introduction's opening; a PAPER tag elsewhere
    claims a reading it has not done, and the error says how to tag it instead."""
    for page in (f"Ok.\nA claim [PAPER {where}].", f"## H\n\n[SECTION: PAPER {where}]\n\nText."):
        with pytest.raises(ProvenanceError, match=r"docs/x\.md:\d: \[PAPER .*has not read.*"
                           r"\[SECONDARY: paper "):
            render_tags(page, page="docs/x.md")
    _, tags = render_tags(f"A claim [SECONDARY: paper {where}].")
    assert tags[0].kind == "SECONDARY"


def test_badge_text_is_html_escaped() -> None:
    rendered, _ = render_tags("[SOURCE: a<b>.py & c]")
    assert "a&lt;b&gt;.py &amp; c" in rendered


def test_tags_in_rendered_notebook_html_become_badges_outside_code() -> None:
    from explainer_tools.book.provenance import render_tags_in_html

    page = (
        '<div class="jp-RenderedMarkdown"><p>[SOURCE: authors&#39; code, utils.py] a &lt; b</p>'
        "</div><pre>[MY EXPLANATION] in code</pre><code>[INFERRED]</code>"
        '<a title="[MY ANALYSIS]">link</a>'
    )
    rendered, tags = render_tags_in_html(page)
    assert [t.text for t in tags] == ["SOURCE: authors' code, utils.py"]
    assert '<span class="prov prov--source">SOURCE: authors&#x27; code, utils.py</span>' in rendered
    assert " a &lt; b</p>" in rendered
    assert "<pre>[MY EXPLANATION] in code</pre><code>[INFERRED]</code>" in rendered
    assert 'title="[MY ANALYSIS]"' in rendered


def test_section_tag_renders_one_badge_with_a_scope_note() -> None:
    page = (
        "## Definitions\n\n[SECTION: MY EXPLANATION]\n\n"
        "A layer is a step. [SOURCE: nanoGPT model.py] Code.\n"
    )
    rendered, tags = render_tags(page)
    assert [(t.text, t.line, t.scope) for t in tags] == [
        ("MY EXPLANATION", 3, True),
        ("SOURCE: nanoGPT model.py", 5, False),
    ]
    scope_line = rendered.split("\n")[2]
    assert scope_line.startswith('<span class="prov-scope"')
    assert '<span class="prov prov--explanation">MY EXPLANATION</span>' in scope_line
    assert "this section unless marked" in scope_line
    assert '<span class="prov prov--source">SOURCE: nanoGPT model.py</span> Code.' in rendered


def test_indented_section_tag_scopes_its_admonition_block() -> None:
    rendered, tags = render_tags(
        '??? note "Proof"\n\n    [SECTION: PAPER abstract, v1]\n\n    Text.'
    )
    assert tags[0].scope and tags[0].kind == "PAPER" and tags[0].text == "PAPER abstract, v1"
    assert rendered.split("\n")[2].startswith('    <span class="prov-scope"')
    assert "this block unless marked" in rendered


@pytest.mark.parametrize(
    ("line", "message"),
    [
        ("Text [SECTION: MY EXPLANATION] more.", "must stand on a line of its own"),
        ("[SECTION: MY GUESS]", "does not name a tag"),
        ("[SECTION: PAPER]", "needs a location"),
    ],
)
def test_malformed_section_tags_are_errors_naming_the_line(line: str, message: str) -> None:
    with pytest.raises(ProvenanceError, match=rf"docs/x\.md:2: .*{message}"):
        render_tags(f"fine\n{line}", page="docs/x.md")


def test_section_tag_contents_are_skipped_by_the_claim_check() -> None:
    from explainer_tools.claims.page import INLINE

    match = INLINE.search("[SECTION: PAPER §6.4, p. 7]")
    assert match is not None and match.group("tag") == "[SECTION: PAPER §6.4, p. 7]"


def test_the_hook_stops_the_build_with_a_plugin_error_naming_page_and_line() -> None:
    """Like the other hooks: MkDocs reports a PluginError as a build error (not SystemExit)."""
    from types import SimpleNamespace

    from mkdocs.exceptions import PluginError

    from explainer_tools.website import build_features

    page = SimpleNamespace(file=SimpleNamespace(src_uri="x.md"))
    with pytest.raises(PluginError, match=r"docs/x\.md:2: \[PAPER\] needs a location"):
        build_features.on_page_markdown("fine\nBad [PAPER] claim.", page, {}, None)
