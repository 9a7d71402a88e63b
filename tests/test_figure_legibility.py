"""Figures a phone can read: `script_io.save_figure` refuses a figure whose smallest text would be
under 9 CSS px with the image shown 358 px wide, and records the size it found in the PNG; the
committed figures are checked from that record, without running their scripts.

The browser suite checks the same figures as a phone shows them (test_browser_pages.py).
"""

from __future__ import annotations

import sys

import pytest

from explainer_tools.layout import DEFAULT

sys.path.insert(0, str(DEFAULT.code_dir))
import script_io  # the chapter scripts' own module, imported as they import it

FIGURES = sorted(DEFAULT.fig_dir.glob("*.png"))


def figure(width_in: float, *texts: tuple[str, float], hidden_axis: bool = False):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(width_in, 3.0))
    ax.plot([0, 1], [0, 1])
    ax.tick_params(labelsize=12)
    for text, size in texts:
        ax.text(0.5, 0.5, text, fontsize=size)
    if hidden_axis:
        ax.axis("off")
    return fig


@pytest.fixture
def figure_dir(tmp_path, monkeypatch):
    monkeypatch.setenv(script_io.FIG_DIR_ENV, str(tmp_path))
    return tmp_path


def test_a_wide_figure_with_small_text_is_refused_naming_the_text(figure_dir) -> None:
    with pytest.raises(ValueError, match=r"ch99_x\.png: the text 'legend entry' would be 4\.0 "
                                         r"CSS px on a phone"):
        script_io.save_figure(figure(10.0, ("legend entry", 8)), "ch99_x.png")
    assert not list(figure_dir.iterdir()), "nothing is written for a refused figure"


def test_tick_labels_count_too(figure_dir) -> None:
    fig = figure(10.0)  # only the 12-point tick labels: 12 * 358 / 720 = 6 px
    with pytest.raises(ValueError, match=r"would be 6\.0 CSS px"):
        script_io.save_figure(fig, "ch99_x.png")


def test_a_narrow_figure_with_large_text_is_saved_with_its_size_recorded(figure_dir) -> None:
    path = script_io.save_figure(figure(5.5, ("legend entry", 11)), "ch99_x.png", dpi=100)
    data = path.read_bytes()
    assert script_io.png_width(data) == 550
    # the smallest text is a 11-point label: 11 * 358 / (72 * 5.5) = 9.9 CSS px
    assert script_io.recorded_legibility(data) == "9.9"


def test_what_is_not_drawn_is_not_measured(figure_dir) -> None:
    fig = figure(5.5, ("big", 14), hidden_axis=True)  # the axis and its tick labels hidden
    texts = [text for text, _ in script_io.drawn_texts(fig)]
    assert texts == ["big"]
    path = script_io.save_figure(fig, "ch99_x.png")
    assert script_io.recorded_legibility(path.read_bytes()) == "12.7"


def test_a_cropped_figure_is_refused(figure_dir) -> None:
    import matplotlib

    fig = figure(5.5, ("big", 14))
    with (matplotlib.rc_context({"savefig.bbox": "tight"}),
          pytest.raises(ValueError, match="do not crop it")):
        script_io.save_figure(fig, "ch99_x.png")


def test_the_size_on_the_phone_does_not_depend_on_the_dpi() -> None:
    assert script_io.phone_px(10, 100, 550) == pytest.approx(script_io.phone_px(10, 200, 1100))


def test_a_png_without_the_record_reads_as_none() -> None:
    data = FIGURES[0].read_bytes()
    stripped = data.replace(script_io.LEGIBILITY_KEY.encode("latin-1"), b"Comment" + b"x" * (
        len(script_io.LEGIBILITY_KEY) - 8) + b"y")
    assert script_io.recorded_legibility(stripped) is None


def test_there_are_committed_figures() -> None:
    assert len(FIGURES) > 20


@pytest.mark.parametrize("path", FIGURES, ids=[path.name for path in FIGURES])
def test_every_committed_figure_is_legible_on_a_phone(path) -> None:
    recorded = script_io.recorded_legibility(path.read_bytes())
    assert recorded is not None, (
        f"{path.name} was not written by save_figure's legibility check: run `make regenerate`")
    if recorded != "no text":
        assert float(recorded) >= script_io.MIN_TEXT_PX, (
            f"{path.name}: smallest text {recorded} CSS px on a phone")


def test_an_exponent_is_measured_at_the_size_it_is_drawn(figure_dir) -> None:
    texts = dict(script_io.drawn_texts(figure(5.5, (r"$10^{5}$", 10), hidden_axis=True)))
    assert texts[r"$10^{5}$"] == pytest.approx(7.0)  # Matplotlib's shrink factor, 0.7
    with pytest.raises(ValueError, match=r"the text '\$10\^\{5\}\$' would be 6\.3 CSS px"):
        script_io.save_figure(figure(5.5, (r"$10^{5}$", 10), hidden_axis=True), "ch99_x.png")


def test_log_axes_get_plain_tick_labels_so_no_exponent_is_too_small(figure_dir) -> None:
    fig = figure(5.5)
    fig.axes[0].set_yscale("log")
    fig.axes[0].set_ylim(1e-14, 1e5)
    path = script_io.save_figure(fig, "ch99_x.png")
    labels = [t.replace("\N{MINUS SIGN}", "-") for t, _ in script_io.drawn_texts(fig)]
    assert labels[-6:] == ["1e-12", "1e-9", "1e-6", "1e-3", "1", "1000"], labels
    assert script_io.recorded_legibility(path.read_bytes()) == "10.8"  # the 12-point ticks


def test_the_notebook_s_figures_go_through_the_same_rule_without_a_file(figure_dir) -> None:
    """figure_png is the rule itself (the notebook's show_figure calls it): bytes with the size
    recorded, or an error naming what the caller calls the figure; nothing is written."""
    data = script_io.figure_png(figure(5.5, ("legend entry", 11)), "in this notebook", dpi=80)
    assert script_io.png_width(data) == 440 and script_io.recorded_legibility(data) == "9.9"
    with pytest.raises(ValueError, match=r"figure in this notebook: the text 'legend entry'"):
        script_io.figure_png(figure(10.0, ("legend entry", 8)), "in this notebook", dpi=80)
    assert not list(figure_dir.iterdir())


def _pixels(data: bytes):
    import io

    from PIL import Image

    image = Image.open(io.BytesIO(data))
    return image.mode, image.convert("RGB")


def test_a_figure_is_stored_with_a_palette_keeping_its_flat_colours(figure_dir) -> None:
    """The saved figure has a palette of at most 256 colours and is smaller than Matplotlib's
    RGBA PNG; every colour that covers a block of pixels (here a filled red square, the white
    background, black text) is kept within 3 levels; the record and the dpi survive."""
    import io

    fig = figure(5.5, ("legend entry", 11))
    fig.axes[0].fill_between([0.2, 0.6], 0.2, 0.6, color="#d62728")
    data = script_io.figure_png(fig, "ch99_x.png", dpi=100)
    plain = io.BytesIO()
    fig.savefig(plain, format="png", dpi=100)
    mode, rgb = _pixels(data)
    assert mode == "P" and len(rgb.getcolors(1 << 24)) <= script_io.PALETTE_COLOURS
    assert len(data) < len(plain.getvalue())
    _, original = _pixels(plain.getvalue())
    counts = {colour: n for n, colour in original.getcolors(1 << 24)}
    width, height = original.size
    flat = [(x, y) for x in range(0, width, 5) for y in range(0, height, 5)
            if counts[original.getpixel((x, y))] >= 200]
    assert any(original.getpixel(p) == (214, 39, 40) for p in flat), "the red square is flat"
    assert max(max(abs(a - b) for a, b in zip(original.getpixel(p), rgb.getpixel(p), strict=True))
               for p in flat) <= 3
    assert script_io.recorded_legibility(data) == "9.9" and script_io.png_width(data) == 550


def test_a_figure_with_transparent_pixels_keeps_its_alpha(figure_dir) -> None:
    fig = figure(5.5, ("legend entry", 11))
    fig.patch.set_alpha(0.0)
    data = script_io.figure_png(fig, "ch99_x.png", dpi=100)
    assert _pixels(data)[0] == "RGBA" and script_io.recorded_legibility(data) == "9.9"


def test_the_palette_is_the_same_bytes_every_time(figure_dir) -> None:
    assert (script_io.figure_png(figure(5.5, ("legend entry", 11)), "a", dpi=100)
            == script_io.figure_png(figure(5.5, ("legend entry", 11)), "a", dpi=100))


@pytest.mark.parametrize("path", FIGURES, ids=[path.name for path in FIGURES])
def test_every_committed_figure_has_a_palette(path) -> None:
    assert _pixels(path.read_bytes())[0] == "P", f"{path.name}: run `make regenerate`"
