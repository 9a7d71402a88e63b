"""Formulas rendered at build time (explainer_tools/website/math_render.py): what is rendered, what
fails the build, and where the failure is reported."""

from __future__ import annotations

import pytest
from mkdocs.exceptions import PluginError

from explainer_tools.website import math_render
from explainer_tools.website.build_features import _render_math
from explainer_tools.website.print_site_anchors import update_anchor_ids


def test_inline_display_and_tag_are_rendered_with_mathml() -> None:
    page = ('<p>Let <span class="arithmatex">\\(a &lt; b\\)</span>.</p>'
            '<div class="arithmatex" id="eq-x">\\[\nc = d \\tag{9.1}\n\\]</div>')
    out = math_render.render_page(page)
    assert "\\(" not in out and "\\[" not in out
    assert out.count('class="katex"') == 2
    assert out.count("<math") == 2, "the MathML (for screen readers) is kept"
    assert '<span class="arithmatex"><span class="katex">' in out
    assert '<div class="arithmatex" id="eq-x"><span class="katex-display">' in out
    assert "(9.1)" in out
    assert "<mo>&lt;</mo>" in out, "the escaped < reached KaTeX as <"


def test_number_link_inside_a_formula_keeps_its_target() -> None:
    out = math_render.render_page(
        '<span class="arithmatex">\\(x = {\\href{#out-ch14_a-L3}{2}}\\)</span>')
    assert '<a href="#out-ch14_a-L3">' in out


def test_outside_link_in_a_formula_fails() -> None:
    with pytest.raises(math_render.MathError, match="does not trust"):
        math_render.render_page('<span class="arithmatex">\\(\\href{http://x.org}{2}\\)</span>')


def test_previews_become_one_template_per_formula() -> None:
    link = '<a class="xref" href="#eq-a" data-tex="a^2">Eq. (9.1)</a>'
    out = math_render.render_page(f"<article><p>{link} {link}</p></article>")
    key = math_render._preview_key("a^2")
    assert out.count(f'data-preview="{key}"') == 2
    assert out.count(f'<template data-preview-for="{key}">') == 1
    assert out.index("<template") < out.index("</article>")


def test_notebook_dollars_are_rendered_outside_code() -> None:
    cell = ('<div class="jp-RenderedHTMLCommon jp-RenderedMarkdown jp-MarkdownOutput">'
            '<p>$T = 1$ and $$p_i$$ but <code>$HOME$</code></p></div>')
    out = math_render.render_page(cell)
    assert out.count('class="katex"') == 2 and "<code>$HOME$</code>" in out


def test_a_bad_formula_fails_the_build_naming_page_and_line(tmp_path) -> None:
    source = tmp_path / "page.md"
    source.write_text("# T\n\ntext\n\nAn unknown \\(\\nosuchcommand{x}\\).\n", encoding="utf-8")
    with pytest.raises(PluginError, match=r"docs/chapters/99-x\.md:5: .*nosuchcommand"):
        _render_math('<span class="arithmatex">\\(\\nosuchcommand{x}\\)</span>',
                     "chapters/99-x.md", str(source))


def test_print_page_anchor_rewrite_is_linear_and_targets_its_tags() -> None:
    line = '<span class="katex">' * 20000 + "</span>" * 20000
    out = update_anchor_ids(f'<h2 id="a">A</h2><p>{line}</p><li id="b">', "ch")
    assert out.startswith('<h2 id="ch-a">') and out.endswith('<li id="ch-b">')


# ---------------------------------------------------------------- the build's speed-ups
# (build_cache.py, notebook_page.py): same output, less work.

def test_every_memo_of_the_build_is_kept_for_the_next_build(tmp_path, monkeypatch) -> None:
    from explainer_tools.website import build_cache

    monkeypatch.setattr(build_cache, "CACHE_ROOT", tmp_path)
    monkeypatch.setattr(build_cache, "_MEMOS", {})
    build_cache.memo("render-test", "v1").put(["page"], {"content": "<p>a</p>"})
    build_cache.memo("numbers-test", "v1").put(["page"], [1])
    build_cache.save_all()
    assert build_cache.Memo("render-test", "v1").get(["page"]) == {"content": "<p>a</p>"}
    assert build_cache.Memo("numbers-test", "v1").get(["page"]) == [1]


def test_a_memo_survives_the_process_only_through_its_file(tmp_path) -> None:
    from explainer_tools.website.build_cache import Memo

    first = Memo("m", "v1", tmp_path)
    first.put({"page": "a"}, [1, 2])
    first.save()
    assert Memo("m", "v1", tmp_path).get({"page": "a"}) == [1, 2]
    assert Memo("m", "v2", tmp_path).get({"page": "a"}) is None, "a new version starts afresh"


def test_the_notebook_page_uses_mkdocs_jupyters_own_cache_key() -> None:
    from mkdocs_jupyter import plugin

    from explainer_tools.layout import DEFAULT
    from explainer_tools.website import notebook_page
    REPO_ROOT = DEFAULT.root

    path = REPO_ROOT / "docs" / "notebooks" / "gpt2-under-the-hood.ipynb"
    config = {**notebook_page.OPTIONS, "execute": False}
    own = plugin._compute_cache_key(str(path), config, False)
    assert notebook_page.cache_key(path.read_bytes(), slim=None) == own
    # the slimmed page (notebook_slim) is cached under a key of its own, changed with SLIM
    assert notebook_page.cache_key(path.read_bytes()) not in (own, notebook_page.cache_key(
        path.read_bytes(), slim="another version"))
