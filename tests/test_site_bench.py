"""`make bench-site`'s servers (explainer_tools/website/site_bench.py): the benchmark's figures are
read, not asserted, but what it serves is tested."""

from __future__ import annotations

import gzip
import urllib.request
from pathlib import Path

import pytest

from explainer_tools.website import site_bench


def fetch(url: str, gzip_ok: bool) -> tuple[bytes, str | None]:
    request = urllib.request.Request(url, headers={"Accept-Encoding": "gzip"} if gzip_ok else {})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.read(), response.headers.get("Content-Encoding")


@pytest.fixture
def site(tmp_path: Path) -> Path:
    (tmp_path / "index.html").write_text("<html>" + "prose " * 2000 + "</html>")
    (tmp_path / "fig.png").write_bytes(b"\x89PNG" + bytes(100))
    return tmp_path


def test_the_lighthouse_server_compresses_text_as_a_static_host_does(site: Path) -> None:
    with site_bench.serve(site, compress=True) as (base, _served):
        body, encoding = fetch(base, gzip_ok=True)
        assert encoding == "gzip" and gzip.decompress(body) == (site / "index.html").read_bytes()
        assert len(body) < (site / "index.html").stat().st_size / 10
        assert fetch(base, gzip_ok=False) == ((site / "index.html").read_bytes(), None)
        assert fetch(base + "fig.png", gzip_ok=True) == ((site / "fig.png").read_bytes(), None)


def test_the_page_server_counts_bytes_before_compression(site: Path) -> None:
    with site_bench.serve(site) as (base, served):
        body, encoding = fetch(base, gzip_ok=True)
    assert encoding is None and served == [("/", len(body))]


def test_no_build_without_a_site_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="holds no built site"):
        site_bench.main(["--no-build", "--site", str(tmp_path / "none")])


def test_every_page_a_reader_opens_is_measured(tmp_path: Path) -> None:
    for name in ("index.html", "404.html", "chapters/01-x/index.html", "code/ch01/index.html",
                 "notebooks/gpt2-under-the-hood/index.html", "errata/c1/index.html",
                 "assets/a.html", "search/s.html", "print_page/index.html"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("<html></html>")
    assert site_bench.reader_pages(tmp_path) == [
        "", "chapters/01-x/", "code/ch01/", "errata/c1/", "notebooks/gpt2-under-the-hood/"]
    assert "notebooks/gpt2-under-the-hood/" in site_bench.NAMED  # and in Lighthouse's set


def test_busy_loops_spin_and_stop() -> None:
    with site_bench.busy_loops(2) as loops:
        assert len(loops) == 2 and all(loop.poll() is None for loop in loops)
    assert all(loop.poll() is not None for loop in loops)


def test_print_pages_lists_every_page_with_its_verdict(capsys: pytest.CaptureFixture) -> None:
    rows = dict.fromkeys(site_bench.NAMED, (0.3, 500_000))
    rows["chapters/09-x/"] = (0.4, 400_000)
    rows["notebooks/gpt2-under-the-hood/"] = (0.9, 1_200_000)
    site_bench.print_pages(rows, 3)
    out = capsys.readouterr().out
    assert "/notebooks/gpt2-under-the-hood/" in out and "NO" in out
    assert "no page over 1 MB: NOT met (1 of 6 over: notebooks/gpt2-under-the-hood/)" in out
