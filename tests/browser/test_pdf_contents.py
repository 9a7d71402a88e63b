"""explainer_tools.website.pdf.heading_pages reads a Chromium PDF's /Dests dictionary (element id ->
page), following the /Pages tree's order; the whole-book print test runs it on the real book."""

from __future__ import annotations

import pytest

from explainer_tools.website.pdf import heading_pages, problems_of

PDF = b"""%PDF-1.7
1 0 obj
<</Type /Catalog
/Pages 2 0 R
/Dests 9 0 R>>
endobj
2 0 obj
<</Type /Pages
/Count 3
/Kids [3 0 R 4 0 R]>>
endobj
3 0 obj
<</Type /Pages
/Count 2
/Kids [6 0 R 5 0 R]>>
endobj
4 0 obj
<</Type /Page>>
endobj
5 0 obj
<</Type /Page>>
endobj
6 0 obj
<</Type /Page>>
endobj
9 0 obj
<</index [6 0 R /XYZ 12 842.88 0]
/chapters-01#2Dprobability [5 0 R /XYZ 12 400 0]
/errata [4 0 R /XYZ 12 842.88 0]>>
endobj
"""


def test_heading_pages_follows_the_page_tree() -> None:
    assert heading_pages(PDF) == {"index": 1, "chapters-01-probability": 2, "errata": 3}


def test_heading_pages_refuses_an_unfamiliar_pdf() -> None:
    with pytest.raises(ValueError, match="Catalog"):
        heading_pages(b"%PDF-1.7\n1 0 obj\n<</Type /XRef>>\nendobj\n")


def test_unnumbered_or_unsettled_contents_are_problems() -> None:
    base = {"formulas": 1, "zero_width_formulas": 0, "raw_tex": 0, "broken_images": [],
            "dangling_links": []}
    good = {**base, "contents_entries": 3, "contents_numbered": 3, "contents_passes": 2,
            "contents_in_order": True, "contents_lists": 1}
    assert problems_of(good) == []
    assert problems_of({**good, "contents_numbered": 2}) == [
        "1 contents entries have no page in the PDF"]
    assert problems_of({**good, "contents_passes": 5}) != []
    assert problems_of({**good, "contents_in_order": False}) != []
    assert problems_of({**good, "contents_lists": 51}) != []
    assert problems_of({**good, "contents_entries": 0, "contents_numbered": 0}) != []
    assert problems_of({**good, "internal_links": 0}) == [
        "no in-book link found: the link check would check nothing"]
