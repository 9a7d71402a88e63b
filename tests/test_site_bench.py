"""`make bench-site`'s servers (explainer_tools/site_bench.py): the benchmark's figures are read,
not asserted, but what it serves is tested."""

from __future__ import annotations

import gzip
import urllib.request
from pathlib import Path

import pytest

from explainer_tools import site_bench


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
