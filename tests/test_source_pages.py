"""The sources feature (explainer_tools/website/source_pages.py): each embedded script source gets a
page of its own and the chapter links to it; tests/browser/test_site_links.py checks the built
site."""

from __future__ import annotations

import pytest

from explainer_tools.markdown import MarkerError
from explainer_tools.website import source_pages

PAGE = """# Chapter 9: Generalization

??? example "Source: ch09_x.py"

    <!-- embed: source ch09_x.py -->

    ```python title="explainer_code/ch09_x.py"
    print(1)
    print(2)
    ```

    <!-- /embed -->

<!-- embed: source pacbound/markov.py -->
```python title="explainer_code/pacbound/markov.py"
x = 1
```
<!-- /embed -->
"""

COLLAPSED = """<p>before</p>
<details class="example">
<summary>Source: ch09_x.py</summary>
<!-- embed: source ch09_x.py -->
<div class="highlight"><pre><code>print(1)</code></pre></div>
<!-- /embed -->
</details>
<details class="note">
<summary>A proof</summary>
<p>text</p>
<!-- embed: source ch09_y.py -->
<div class="highlight"><pre><code>y</code></pre></div>
<!-- /embed -->
</details>
<details class="example">
<summary>Source: ch09_z.py</summary>
<!-- embed: source ch09_z.py -->
<div class="highlight"><pre><code>z</code></pre></div>
<!-- /embed -->
<p>what the source does</p>
</details>
<p>after</p>"""


def test_collect_finds_each_embedded_file_once_with_every_page_that_shows_it() -> None:
    found = source_pages.collect({"chapters/09-x.md": PAGE,
                                  "chapters/22-y.md": PAGE.replace("ch09_x", "ch22_z")})
    assert list(found) == ["ch09_x.py", "pacbound/markov.py", "ch22_z.py"]
    assert found["pacbound/markov.py"].shown_on == ["chapters/09-x.md", "chapters/22-y.md"]
    first = found["ch09_x.py"]
    assert first.path == "code/ch09_x.md"
    assert first.body == ('```python title="explainer_code/ch09_x.py"\nprint(1)\nprint(2)\n'
                          "```\n")  # dedented, without the marker's blank lines
    assert first.lines == 2
    assert found["pacbound/markov.py"].path == "code/pacbound/markov.md"


def test_collect_reports_a_broken_marker_with_its_page_and_line() -> None:
    with pytest.raises(MarkerError, match=r"docs/chapters/09-x\.md:1: unclosed marker"):
        source_pages.collect({"chapters/09-x.md": "<!-- embed: source ch09_x.py -->\ntext\n"})


def test_a_collapsed_block_holding_only_a_source_becomes_a_link() -> None:
    links = {"ch09_x.py": ("../../code/ch09_x/", 1234, "code/ch09_x/"),
             "ch09_y.py": ("../../code/ch09_y/", 5, "y"),
             "ch09_z.py": ("../../code/ch09_z/", 5, "z")}
    result = source_pages.link_sources(COLLAPSED, links)
    assert ('<p class="source-page"><a href="../../code/ch09_x/" data-site-path="code/ch09_x/">'
            "Source: ch09_x.py</a>: 1,234 lines, highlighted, on a page of its own</p>") in result
    assert "print(1)" not in result
    # a block holding more than the source is left whole, before it or after it
    assert "<summary>A proof</summary>" in result and "<code>y</code>" in result
    assert "<code>z</code>" in result and "<p>what the source does</p>" in result
    assert result.startswith("<p>before</p>") and result.endswith("<p>after</p>")


def test_a_source_without_a_page_stays_collapsed() -> None:
    assert source_pages.link_sources(COLLAPSED, {}) == COLLAPSED


def test_the_page_of_a_source_names_it_links_back_and_holds_the_fenced_file() -> None:
    found = source_pages.collect({"chapters/09-x.md": PAGE})
    text = source_pages.page_markdown(found["pacbound/markov.py"],
                                      {"chapters/09-x.md": "Chapter 9: Generalization"})
    assert text.startswith("---\nsearch:\n  exclude: true\n---\n")
    assert "# explainer_code/pacbound/markov.py\n" in text
    assert "[Chapter 9: Generalization](../../chapters/09-x.md#code-for-this-chapter)" in text
    assert text.endswith('```python title="explainer_code/pacbound/markov.py"\nx = 1\n```\n')
