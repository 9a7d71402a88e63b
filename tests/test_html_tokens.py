"""The shared HTML tokenizer: tokens cover the text exactly, attributes parse whichever way they
are quoted, comments and script content are never read as tags."""

from __future__ import annotations

from itertools import pairwise

from explainer_tools.html_tokens import splice, tokens, value_span


def test_tokens_cover_the_text_and_each_is_its_own_text() -> None:
    page = ('<!DOCTYPE html><p class="a">x &amp; y<br/>z</p><!-- c -->\n'
            "<?pi x?>a < b</P>tail")
    found = tokens(page)
    assert "".join(page[t.start : t.end] for t in found) == page
    assert all(a.end == b.start for a, b in pairwise(found))
    assert [(t.kind, page[t.start : t.end]) for t in found] == [
        ("other", "<!DOCTYPE html>"), ("start", '<p class="a">'), ("text", "x &amp; y"),
        ("start", "<br/>"), ("text", "z"), ("end", "</p>"), ("comment", "<!-- c -->"),
        ("text", "\n"), ("other", "<?pi x?>"), ("text", "a < b"), ("end", "</P>"),
        ("text", "tail")]
    assert found[3].closed and not found[1].closed
    assert found[-2].name == "p"


def test_attributes_quoted_each_way_unquoted_and_bare() -> None:
    page = """<img SRC='a "b".png' alt="it's > 1" width=3 hidden data-x="&lt;">"""
    (tag,) = tokens(page)
    assert tag.attrs == {"src": 'a "b".png', "alt": "it's > 1", "width": "3", "hidden": None,
                         "data-x": "<"}
    assert tag.end == len(page)


def test_the_first_of_two_attributes_with_one_name_counts() -> None:
    (tag,) = tokens('<a href="first" HREF="second">')
    assert tag.attrs["href"] == "first"


def test_a_comment_holding_a_greater_than_sign_is_one_token() -> None:
    page = "<p><!-- a > b <em> --></p>"
    assert [(t.kind, t.start, t.end) for t in tokens(page)] == [
        ("start", 0, 3), ("comment", 3, 22), ("end", 22, 26)]


def test_script_and_raw_elements_are_text_not_tags() -> None:
    page = '<script>if (a < b) { x = "<a href=\'y\'>"; }</script><pre><a id="z">q</a></pre>'
    found = tokens(page, raw=["pre"])
    assert [(t.kind, t.name) for t in found] == [
        ("start", "script"), ("text", ""), ("end", "script"),
        ("start", "pre"), ("text", ""), ("end", "pre")]
    assert page[found[1].start : found[1].end] == "if (a < b) { x = \"<a href='y'>\"; }"
    assert [t.name for t in tokens(page) if t.kind == "start"] == ["script", "pre", "a"]


def test_an_unclosed_raw_element_keeps_the_rest_as_text() -> None:
    page = "<p>a<code>b <i>c"
    found = tokens(page, raw=["code"])
    assert [(t.kind, page[t.start : t.end]) for t in found] == [
        ("start", "<p>"), ("text", "a"), ("start", "<code>"), ("text", "b <i>c")]


def test_an_unterminated_tag_is_text() -> None:
    page = '<p>a</p><a href="x'
    assert [(t.kind, page[t.start : t.end]) for t in tokens(page)] == [
        ("start", "<p>"), ("text", "a"), ("end", "</p>"), ("text", '<a href="x')]
    page = "<p>a<!-- b > c</p><i>"  # the tags after the unterminated comment still count
    assert [(t.kind, page[t.start : t.end]) for t in tokens(page)] == [
        ("start", "<p>"), ("text", "a<!-- b > c"), ("end", "</p>"), ("start", "<i>")]


def test_offsets_stay_exact_across_lines_and_non_ascii_text() -> None:
    page = "é\n<div\n  id='x'>ü\n</div>"
    found = tokens(page)
    assert [(t.start, t.end) for t in found] == [(0, 2), (2, 16), (16, 18), (18, 24)]


def test_value_span_finds_the_value_whichever_quotes_for_rewriting_in_place() -> None:
    for page in ['<h2 title="id=no" id="a">', "<h2 title='id=no' id='a'>", "<h2 title=x id=a>"]:
        tag = tokens(page)[0]
        start, end = value_span(page, tag, "id")
        assert page[start:end] == "a"
        assert splice(page, [(start, end, "p-a")]).endswith("p-a" + page[end:])
    assert value_span("<h2 hidden>", tokens("<h2 hidden>")[0], "hidden") is None
    assert value_span('<h2 a="1">', tokens('<h2 a="1">')[0], "id") is None
