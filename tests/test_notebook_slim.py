"""The notebook page made lighter (explainer_tools/website/notebook_slim.py): what goes and what
stays."""

from __future__ import annotations

import base64
import struct
import zlib

from explainer_tools.website.notebook_slim import images, slim

CELL = '<div class="jp-Cell jp-CodeCell x">'


def _styles(page: str) -> str:
    return page.split(CELL)[0]


def test_selectors_of_absent_library_classes_go_and_the_rest_stays() -> None:
    css = (".jp-Used{a:1}.jp-Gone{b:2}.jp-Used,.bp3-gone{c:3}.jp-Used:not(.jp-Gone){d:4}"
           ".mine-absent{e:5}pre{f:6}@media (max-width:1px){.jp-Gone{g:7}}"
           "@media print{.jp-Used{h:8}}")
    out = _styles(slim(f"<style>{css}</style>{CELL}<p class='jp-Used'></p></div>"))
    for kept in (".jp-Used{a:1}", ".jp-Used{c:3}", ".jp-Used:not(.jp-Gone){d:4}",
                 ".mine-absent{e:5}", "pre{f:6}", "@media print{.jp-Used{h:8}}"):
        assert kept in out, kept
    assert "b:2" not in out and "bp3" not in out and "g:7" not in out


def test_custom_properties_go_when_nothing_reads_them() -> None:
    css = (".x{--a:var(--b);--b:1px;--c:2px;--d:3px;--e:var(--c)}.jp-Gone{width:var(--d)}"
           ".y{width:var(--a)}")
    out = _styles(slim(f"<style>{css}</style>{CELL}<p class='x y'></p></div>"))
    assert "--a:var(--b)" in out and "--b:1px" in out
    assert "--c" not in out and "--d" not in out and "--e" not in out  # --d read by a gone rule
    page_reads = slim(f"<style>.x{{--c:2px}}</style>{CELL}<p style=\"width:var(--c)\"></p></div>")
    assert "--c:2px" in page_reads


def test_copies_loader_and_spaces_go_and_a_cells_output_is_not_touched() -> None:
    css = "<style>.jp-Used{a:1}</style>"
    loader = ('<script type="module">\n  document.addEventListener("DOMContentLoaded", '
              'async () => {\n    const diagrams = document.querySelectorAll(".jp-Mermaid > '
              'pre.mermaid");\n import("https://cdn.example/m.mjs") })</script>')
    output_style = "<style>.jp-Gone{z:9}</style>"
    page = f"{css}{css}{loader}{CELL}<p class='jp-Used'>a</p>   \n  {output_style}</div>"
    out = slim(page)
    assert out.count(".jp-Used{a:1}") == 1 and "cdn.example" not in out
    assert output_style in out and "</p>\n<style>" in out


def test_a_copy_buttons_hidden_source_goes_and_it_copies_the_code_instead() -> None:
    cell = ('<clipboard-copy for="cell-3"></clipboard-copy><div class="highlight"><pre>'
            '<span class="n">x</span> = 1\n</pre></div>\n'
            '<div class="clipboard-copy-txt" id="cell-3">x = 1</div>')
    out = slim(f"{CELL}{cell}</div>")
    assert "clipboard-copy-txt" not in out
    assert '<pre id="cell-3"><span class="n">x</span> = 1\n</pre>' in out


def _png(width: int, height: int) -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(
            ">I", zlib.crc32(kind + data))
    raw = b"".join(b"\0" + b"\0\0\0" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def test_a_data_image_becomes_a_lazy_file_with_its_size() -> None:
    png = _png(7, 3)
    page = f'<img alt="a chart" src="data:image/png;base64,{base64.b64encode(png).decode()}"/>'
    out, files = images(page)
    [(name, data)] = files.items()
    assert data == png and name.startswith("figure-") and name.endswith(".png")
    assert out == f'<img alt="a chart" src="{name}" loading="lazy" width="7" height="3"/>'
    jpeg = '<img src="data:image/jpeg;base64,AAAA">'
    assert images(jpeg) == (jpeg, {})


def test_unstyled_token_spans_of_a_cells_code_go_and_touching_ones_join() -> None:
    code = ('<div class="highlight-ipynb hl-python"><pre id="cell-1"><span></span>'
            '<span class="n">x</span><span class="w"> </span><span class="o">=</span>'
            '<span class="o">-</span><span class="mi">1</span><span class="p">()</span></pre>')
    output = '<div class="highlight"><pre><span class="n">y</span></pre></div>'
    out = slim(f"{CELL}{code}</div>{output}</div>")
    assert ('<pre id="cell-1">x <span class="o">=-</span><span class="mi">1</span>()</pre>'
            in out)
    assert output in out  # an output's code is not touched
