"""Where chapter scripts put their figures, and how they write them.

Chapter scripts print their numbered output blocks to stdout; `make regenerate` captures that
text into `outputs/<script>.txt`. Figures are files, so a script writes them itself, through
`save_figure`, which

- writes into `$EXPLAINER_FIG_DIR` when the pipeline sets it (a scratch folder: nothing in the
  tree changes until every script has succeeded), else into `docs/assets/fig/` for a script run
  by hand;
- writes atomically (temporary file in the same folder, then `os.replace`);
- strips volatile metadata (Matplotlib's `Software` tag) so the bytes are identical run to run;
- stores an opaque figure with a 256-colour palette (`palette_png`): a third of the bytes;
- refuses a figure whose smallest text would be under `MIN_TEXT_PX` CSS pixels when the image is
  shown `PHONE_WIDTH_PX` wide (a phone's column), naming the text; the size it found is kept in
  the PNG as the text chunk `LEGIBILITY_KEY`, so the committed figures can be checked without
  running their scripts.

The size of a text on the phone does not depend on the dpi: it is its size in points times
`PHONE_WIDTH_PX / (72 * figure width in inches)`. A 10-inch-wide figure needs 18-point text to
reach 9 CSS pixels; a 5.5-inch one needs 10-point text. Narrow figures, stacked panels.
Exponents and subscripts count at the size they are drawn (0.7 of the text's): so the tick
labels of log axes are written `1e5`, not as a power (`plain_log_ticks`).
"""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_FIG_DIR = REPO_ROOT / "docs" / "assets" / "fig"
FIG_DIR_ENV = "EXPLAINER_FIG_DIR"
PHONE_WIDTH_PX = 358  # the article column of a 360-px-wide phone
MIN_TEXT_PX = 9.0
LEGIBILITY_KEY = "Smallest text, CSS px at 358 px wide"


def figure_dir() -> Path:
    """The folder figures go to: `$EXPLAINER_FIG_DIR` if set, else `docs/assets/fig/`."""
    override = os.environ.get(FIG_DIR_ENV)
    return Path(override) if override else DEFAULT_FIG_DIR


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Write `data` to `path` so that readers see either the old file or the new one, never half."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        Path(tmp).chmod(0o644)  # mkstemp creates 0600; products are ordinary readable files
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def drawn_texts(fig: Any) -> list[tuple[str, float]]:
    """(text, size in points) of every piece of text `fig` draws, in drawing order.

    It draws the figure once with Agg, recording each `draw_text` call: what is recorded is
    what is drawn (tick labels of hidden axes, empty strings and invisible artists are not).
    A stand-in figure without a canvas (the pipeline tests') answers for itself."""
    if hasattr(fig, "drawn_texts"):
        return list(fig.drawn_texts())
    renderer = fig.canvas.get_renderer()
    texts: list[tuple[str, float]] = []
    draw_text = renderer.draw_text

    def recording(gc: Any, x: float, y: float, text: str, prop: Any, *args: Any,
                  **kwargs: Any) -> Any:
        if text.strip():
            ismath = kwargs.get("ismath", args[1] if len(args) > 1 else False)
            size = float(prop.get_size_in_points())
            texts.append((text, mathtext_size(text, prop) if ismath is True else size))
        return draw_text(gc, x, y, text, prop, *args, **kwargs)

    renderer.draw_text = recording
    try:
        fig.draw(renderer)
    finally:
        del renderer.draw_text  # the class's method again
    return texts


def mathtext_size(text: str, prop: Any) -> float:
    """The smallest glyph size, in points, of a mathtext string such as `$10^{5}$`: exponents
    and subscripts are drawn smaller than the text's own size (by Matplotlib's shrink factor,
    0.7 per level), and they must be legible too."""
    from matplotlib.mathtext import MathTextParser

    glyphs = MathTextParser("path").parse(text, dpi=72, prop=prop).glyphs
    return min((float(size) for _font, size, *_rest in glyphs),
               default=float(prop.get_size_in_points()))


def plain_log_ticks(fig: Any) -> int:
    """Write the tick labels of every log axis that still has Matplotlib's default formatter as
    plain text (`1e5`, `100`, `0.01`) instead of mathtext's `10^5`, whose exponent is drawn at
    0.7 of the label's size: too small on a phone. Returns how many axes it changed."""
    if not hasattr(fig, "axes"):
        return 0
    from matplotlib.ticker import LogFormatter, LogFormatterSciNotation

    class PlainLogFormatter(LogFormatter):
        def _num_to_string(self, x: float, vmin: float, vmax: float) -> str:
            text = super()._num_to_string(x, vmin, vmax)
            return re.sub("e\\+?([-\N{MINUS SIGN}]?)0*(\\d)", r"e\1\2", text)  # 1e-09 -> 1e-9

    changed = 0
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for get, put in ((axis.get_major_formatter, axis.set_major_formatter),
                             (axis.get_minor_formatter, axis.set_minor_formatter)):
                old = get()
                if type(old) is LogFormatterSciNotation:
                    put(PlainLogFormatter(base=old._base, labelOnlyBase=old.labelOnlyBase,
                                          minor_thresholds=old.minor_thresholds,
                                          linthresh=old._linthresh))
                    changed += 1
    return changed


def png_width(data: bytes) -> int:
    """The width in pixels a PNG's header gives."""
    if data[:8] != b"\x89PNG\r\n\x1a\n" or data[12:16] != b"IHDR":
        raise ValueError("not a PNG")
    return int.from_bytes(data[16:20], "big")


def phone_px(size_points: float, dpi: float, image_width: int) -> float:
    """CSS pixels of a `size_points` text in an `image_width`-pixel image drawn at `dpi` and
    shown `PHONE_WIDTH_PX` wide.

    >>> round(phone_px(10, 150, 825), 2)   # a 5.5-inch figure
    9.04
    >>> round(phone_px(8, 150, 1500), 2)   # a 10-inch one
    3.98
    """
    return size_points * dpi / 72 * PHONE_WIDTH_PX / image_width


def smallest_text(texts: list[tuple[str, float]], dpi: float,
                  image_width: int) -> tuple[str, float] | None:
    """The text that comes out smallest on the phone and its size there (None: no text)."""
    if not texts:
        return None
    text, size = min(texts, key=lambda item: item[1])
    return text, phone_px(size, dpi, image_width)


def legibility_error(name: str, smallest: tuple[str, float] | None) -> str | None:
    """Why figure `name` is too small to read on a phone, or None when it is not."""
    if smallest is None or smallest[1] >= MIN_TEXT_PX:
        return None
    text, px = smallest
    return (f"figure {name}: the text {text!r} would be {px:.1f} CSS px on a phone "
            f"(the figure shown {PHONE_WIDTH_PX} px wide); every text needs at least "
            f"{MIN_TEXT_PX:g}. Make the figure narrower (stack its panels) or the text larger")


def figure_png(fig: Any, name: str, dpi: float) -> bytes:
    """A Matplotlib figure as PNG bytes, without volatile metadata, after checking that its
    smallest text is legible on a phone (ValueError naming `name` if not): log-axis labels are
    written 1e5, the smallest text is measured at the figure's own width and recorded in the
    PNG, and the figure is not cropped. The chapters' `save_figure` and the notebook's figures
    both go through it."""
    import io

    plain_log_ticks(fig)
    width = round(fig.get_size_inches()[0] * dpi)
    smallest = smallest_text(drawn_texts(fig), dpi, width)
    error = legibility_error(name, smallest)
    if error:
        raise ValueError(error)
    recorded = "no text" if smallest is None else f"{smallest[1]:.1f}"
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi,
                metadata={"Software": None, LEGIBILITY_KEY: recorded})
    if png_width(buffer.getvalue()) != width:
        raise ValueError(f"figure {name}: saved {png_width(buffer.getvalue())} px wide, not its "
                         f"width times the dpi ({width} px); save_figure measures text against "
                         "the figure's own size, so do not crop it (bbox_inches)")
    return palette_png(buffer.getvalue(), {LEGIBILITY_KEY: recorded}, dpi)


PALETTE_COLOURS = 256


def palette_png(data: bytes, texts: dict[str, str], dpi: float) -> bytes:
    """An opaque PNG re-encoded with a palette of `PALETTE_COLOURS` colours (Pillow's median cut,
    no dithering): about a third of Matplotlib's RGBA bytes. A figure's flat colours (lines,
    bars, text, background) keep their value within a few levels of 255; only antialiased edge
    pixels move to a neighbouring colour. A figure with transparent pixels is returned as it was
    (the palette would lose its alpha). Deterministic: the same bytes on every machine."""
    import io

    from PIL import Image, PngImagePlugin

    image = Image.open(io.BytesIO(data))
    if image.mode == "RGBA" and image.getchannel("A").getextrema() != (255, 255):
        return data
    palette = image.convert("RGB").quantize(PALETTE_COLOURS, method=Image.Quantize.MEDIANCUT,
                                            dither=Image.Dither.NONE)
    info = PngImagePlugin.PngInfo()
    for key, value in texts.items():
        info.add_text(key, value)
    buffer = io.BytesIO()
    palette.save(buffer, format="PNG", optimize=True, pnginfo=info, dpi=(dpi, dpi))
    return buffer.getvalue()


def save_figure(fig: Any, name: str, dpi: int = 150) -> Path:
    """Save a Matplotlib figure as PNG `name` in `figure_dir()`, atomically (`figure_png`: the
    legibility rule, no volatile metadata).

    Returns the path written, e.g. `save_figure(fig, "ch05_param_shares.png")`
    -> `docs/assets/fig/ch05_param_shares.png` when run by hand.
    """
    if not name.endswith(".png"):
        raise ValueError(f"figure name must end in .png: {name!r}")
    data = figure_png(fig, name, dpi)
    path = figure_dir() / name
    write_bytes_atomic(path, data)
    return path


def recorded_legibility(data: bytes) -> str | None:
    """The `LEGIBILITY_KEY` text chunk of a PNG written by `save_figure` (None: absent)."""
    position = 8
    key = LEGIBILITY_KEY.encode("latin-1") + b"\0"
    while position + 8 <= len(data):
        length = int.from_bytes(data[position:position + 4], "big")
        kind = data[position + 4:position + 8]
        body = data[position + 8:position + 8 + length]
        if kind == b"tEXt" and body.startswith(key):
            return body[len(key):].decode("latin-1")
        if kind == b"IEND":
            break
        position += 12 + length
    return None
