"""Figure zoom's build-time half (explainer_tools/website/figure_zoom.py): which images become
controls, and what they point at. The dialog itself is tested in the browser
(tests/browser/test_browser_features.py)."""

from __future__ import annotations

from explainer_tools.website.figure_zoom import zoom_figures


def test_a_figure_becomes_a_link_to_its_own_file() -> None:
    page = '<figure><p><img alt="a plot" src="../assets/fig/ch05_x.png" /></p></figure>'
    assert zoom_figures(page) == (
        '<figure><p><a class="zoom" href="../assets/fig/ch05_x.png" aria-haspopup="dialog">'
        '<img alt="a plot" src="../assets/fig/ch05_x.png" /></a></p></figure>')


def test_an_image_that_is_its_own_data_becomes_a_button_not_a_second_copy() -> None:
    data = "data:image/png;base64," + "A" * 400
    zoomed = zoom_figures(f'<div class="output"><img src="{data}"></div>')
    assert zoomed.startswith('<div class="output"><button type="button" class="zoom"')
    assert zoomed.count(data) == 1 and "href" not in zoomed


def test_images_inside_links_buttons_and_code_are_left_alone() -> None:
    for page in ('<a href="x"><span><img src="f.png"></span></a>',
                 '<button type="button"><img src="f.png"></button>',
                 '<pre><code>&lt;img src="f.png"&gt;<img src="f.png"></code></pre>',
                 '<img alt="no source">'):
        assert zoom_figures(page) == page


def test_after_a_link_closes_the_next_image_is_zoomed() -> None:
    page = '<a href="x">x</a><img src="f.png"><pre>a</pre><img src="g.png">'
    zoomed = zoom_figures(page)
    assert zoomed.count('class="zoom"') == 2 and zoomed.startswith('<a href="x">x</a><a class')


def test_zooming_twice_changes_nothing() -> None:
    once = zoom_figures('<p><img src="f.png"> and <img src="data:image/png;base64,AA"></p>')
    assert zoom_figures(once) == once


def test_the_link_keeps_the_source_escaped() -> None:
    page = """<img src='a&amp;b "c".png'>"""
    assert 'href="a&amp;b &quot;c&quot;.png"' in zoom_figures(page)
