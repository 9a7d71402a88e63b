"""The bound explorer (docs/javascripts/bound-explorer.js) computes the book's bound, in a browser.

- Its formula is `pacbound`'s: 1,000 random inputs over the whole domain, each part (K, C,
  Delta, rho, the Occam and Hoeffding terms, the bound) within 1e-9 relative of pacbound.
- The widget: every input has a label, the result is announced in a live region, a slider moves
  with the keyboard and moves the bound, a typed message length makes the bound vacuous, and it
  works opened from a folder (file://) with no server and no network.

The page is a small HTML file written into a temporary folder that loads the site's script by
its path: these tests need Chromium but not a site build.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pacbound
import pytest
from browser_kit import CLIP_JS
from standalone_kit import write_page

from explainer_tools.website import explorer_presets

pytestmark = pytest.mark.browser

CASES = 1_000
REL_TOL = 1e-9
ROOT = Path(__file__).resolve().parents[2]



@pytest.fixture(scope="module")
def browser_page(browser: object) -> Iterator[object]:
    """One tab of the suite's Chromium (tests/browser/conftest.py) for this module."""
    context = browser.new_context(viewport={"width": 1000, "height": 900})  # type: ignore[attr-defined]
    yield context.new_page()
    context.close()


def _open(page: object, tmp_path: Path, attrs: str = "") -> list[str]:
    """Open a page holding one explorer from disk; return the requests that failed."""
    url = write_page(tmp_path, f"<div class='bound-explorer' {attrs}></div>",
                     ["javascripts/bound-explorer.js"])
    failed: list[str] = []
    page.on("requestfailed", lambda request: failed.append(request.url))  # type: ignore[attr-defined]
    page.goto(url)  # type: ignore[attr-defined]
    page.wait_for_selector(".bx-status")  # type: ignore[attr-defined]
    return failed


def _random_inputs(seed: int = 20261201) -> list[dict[str, float]]:
    rng = np.random.default_rng(seed)
    cases = []
    for _ in range(CASES):
        cases.append({
            "trainError": float(rng.uniform(0.0, 20.0)),
            "messageBits": float(10 ** rng.uniform(0.0, 9.0)),
            "nTrain": float(np.floor(10 ** rng.uniform(0.0, 10.0))),
            "nSample": float(np.floor(10 ** rng.uniform(0.0, 8.0))),
            "alpha": float(10 ** rng.uniform(-6.0, math.log10(0.999))),
            "vocab": float(np.floor(10 ** rng.uniform(math.log10(2.0), 6.0))),
            "extraBits": float(rng.integers(0, 200)),
            "eps": float(10 ** rng.uniform(-9.0, math.log10(0.5))),
        })
    return cases


def _pacbound_parts(p: dict[str, float]) -> dict[str, float]:
    k = pacbound.prefix_code_bits(p["messageBits"])
    c = (k + p["extraBits"]) * math.log(2)
    delta = pacbound.loss_range(p["alpha"], int(p["vocab"]))
    n, big_n, eps = int(p["nSample"]), int(p["nTrain"]), p["eps"]
    rho = n / (n + big_n)
    bound = pacbound.subsampling_bound(
        train_error=p["trainError"], loss_range=delta, complexity_nats=c,
        n_population=big_n, n_sample=n, eps=eps,
    )
    occam = delta * math.sqrt((c - math.log(rho * eps)) / (2 * big_n))
    return {"K": k, "C": c, "delta": delta, "rho": rho, "occam": occam,
            "hoeffding": bound - p["trainError"] - occam, "bound": bound}


def test_explorer_formula_matches_pacbound_on_random_inputs(browser_page, tmp_path) -> None:
    _open(browser_page, tmp_path)
    cases = _random_inputs()
    got = browser_page.evaluate("cases => cases.map(c => BoundExplorer.compute(c))", cases)
    worst = 0.0
    for case, js in zip(cases, got, strict=True):
        want = _pacbound_parts(case)
        for key, value in want.items():
            err = abs(js[key] - value) / max(abs(value), 1e-300)
            worst = max(worst, err)
            assert err <= REL_TOL, f"{key} for {case}: explorer {js[key]!r}, pacbound {value!r}"
        assert js["vacuous"] == (want["bound"] >= math.log2(case["vocab"]))
    assert worst <= REL_TOL


def test_explorer_rejects_inputs_outside_the_domain(browser_page, tmp_path) -> None:
    _open(browser_page, tmp_path)
    base = _random_inputs()[0]
    for key, bad in (("messageBits", 0.5), ("alpha", 0.0), ("alpha", 1.0), ("eps", 0.0),
                     ("nTrain", 0.0), ("vocab", 1.0), ("extraBits", -1.0)):
        message = browser_page.evaluate(
            "c => { try { BoundExplorer.compute(c); return null } catch (e) { return e.name } }",
            {**base, key: bad},
        )
        assert message == "RangeError", f"{key} = {bad} was accepted"


def test_explorer_widget_reads_defaults_announces_and_moves(browser_page, tmp_path) -> None:
    failed = _open(browser_page, tmp_path, "data-n-train='8000000' data-message-bits='100000' "
                   "data-train-error='5' data-alpha='0.5' data-n-sample='10000'")
    assert failed == []
    page = browser_page
    status = page.locator(".bx-status")
    assert status.get_attribute("aria-live") == "polite"
    want = _pacbound_parts({"trainError": 5.0, "messageBits": 100_000, "nTrain": 8_000_000,
                            "nSample": 10_000, "alpha": 0.5, "vocab": 50_257, "extraBits": 7,
                            "eps": 0.05})["bound"]
    shown = float(page.locator(".bound-explorer").get_attribute("data-bound"))
    assert shown == pytest.approx(want, rel=REL_TOL)
    assert "non-vacuous" in status.inner_text()

    # Every input is reachable by its label (a screen reader's name for it).
    for label in ("Message length of the model, L", "Training documents, N",
                  "Smoothing weight", "Failure probability"):
        assert page.get_by_label(label, exact=False).count() >= 1, label

    # The keyboard moves the N slider, and the bound with it (more documents, a lower bound).
    slider = page.get_by_label("Training documents, N (slider, logarithmic)")
    slider.focus()
    for _ in range(40):
        page.keyboard.press("ArrowRight")
    moved = float(page.locator(".bound-explorer").get_attribute("data-bound"))
    assert moved < shown
    assert "documents" in slider.get_attribute("aria-valuetext")

    # A message of ten billion bits makes the bound vacuous, and the status says so.
    page.get_by_label("Message length of the model, L", exact=True).fill("10000000000")
    assert "vacuous" in status.inner_text() and "non-vacuous" not in status.inner_text()


def _open_styled(browser: object, tmp_path: Path, width: int) -> tuple[object, object]:
    """A page holding the ten-minute page's explorer with the site's styles: Material's own
    stylesheet (from the installed theme; it strips inputs of their outline) and reader.css."""
    url = write_page(tmp_path, "<div class='bound-explorer' data-n-train='8009762' "
                     "data-message-bits='115826' data-alpha='0.1' data-extra-bits='55'></div>",
                     ["javascripts/bound-explorer.js"], ["stylesheets/reader.css"], theme=True)
    context = browser.new_context(viewport={"width": width, "height": 900})  # type: ignore[attr-defined]
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector(".bx-status")
    return context, page


FOCUS_RING_JS = """() => {
  const el = document.activeElement;
  const s = getComputedStyle(el);
  return {type: el.type || el.tagName, inExplorer: !!el.closest('.bound-explorer'),
          style: s.outlineStyle, width: parseFloat(s.outlineWidth), colour: s.outlineColor,
          shadow: s.boxShadow};
}"""


@pytest.mark.parametrize("width", [1280, 375])
def test_explorer_shows_where_the_keyboard_is(browser, tmp_path, width) -> None:
    """Tab reaches every number box and slider, and each shows a focus ring (2 px or more) while
    it has the keyboard's focus, at desktop and phone width."""
    context, page = _open_styled(browser, tmp_path, width)
    try:
        controls = page.locator(".bound-explorer input").count()
        assert controls == 2 * 8
        page.locator("body").focus()
        rings = []
        for _ in range(controls):
            page.keyboard.press("Tab")
            rings.append(page.evaluate(FOCUS_RING_JS))
        assert all(r["inExplorer"] for r in rings), rings
        assert {r["type"] for r in rings} == {"number", "range"}
        bare = [r for r in rings if r["style"] in ("none", "hidden") or r["width"] < 2
                or r["colour"] in ("transparent", "rgba(0, 0, 0, 0)")]
        assert not bare, f"{len(bare)} controls show no focus ring: {bare[:2]}"
    finally:
        context.close()


def test_explorer_names_the_bars_colours_on_screen(browser, tmp_path) -> None:
    """The bar's colours are named in a visible legend, each swatch the colour of its part."""
    context, page = _open_styled(browser, tmp_path, 375)
    try:
        legend = page.evaluate("""() => {
          const items = Array.from(document.querySelectorAll('.bound-explorer .bx-legend li'));
          const bg = (sel) => { const e = document.querySelector(sel);
                                return e ? getComputedStyle(e).backgroundColor : null; };
          return {shown: items.map((li) => li.checkVisibility() && li.offsetWidth > 0),
                  text: items.map((li) => li.textContent.trim()),
                  keys: items.map((li) => getComputedStyle(li.querySelector('.bx-key'))
                                            .backgroundColor),
                  parts: [bg('.bx-bar .bx-risk'), bg('.bx-bar .bx-occam'),
                          bg('.bx-bar .bx-hoeff'), bg('.bx-bar .bx-guess')]};
        }""")
        assert legend["text"] == ["empirical risk R\u0302", "Occam term", "Hoeffding term",
                                  "random guess, log2 V"]
        assert all(legend["shown"])
        assert legend["keys"] == legend["parts"]
        assert len(set(legend["parts"])) == 4
    finally:
        context.close()


@pytest.mark.parametrize("width", [375, 320])
def test_explorer_on_a_phone_keeps_units_and_whole_formulas(browser, tmp_path, width) -> None:
    """At 375 and 320 px every unit stays on screen beside its number box, no term's formula is
    broken across lines, and nothing in the explorer is cut off or wider than it."""

    context, page = _open_styled(browser, tmp_path, width)
    try:
        facts = page.evaluate("""() => {
          const root = document.querySelector('.bound-explorer');
          const units = Array.from(root.querySelectorAll('.bx-unit')).filter((u) => u.textContent);
          const lines = (el) => { const r = document.createRange(); r.selectNodeContents(el);
            return new Set(Array.from(r.getClientRects()).map((b) => Math.round(b.top))).size; };
          return {
            units: units.map((u) => [u.textContent, u.checkVisibility() && u.offsetWidth > 0]),
            formulas: Array.from(root.querySelectorAll('.bx-terms dt.bx-formula'))
              .map((dt) => [dt.textContent, lines(dt)]),
            overflow: root.scrollWidth - root.clientWidth,
          };
        }""")
        assert len(facts["units"]) == 6 and all(shown for _, shown in facts["units"]), facts
        assert len(facts["formulas"]) == 3, facts["formulas"]
        assert all(n == 1 for _, n in facts["formulas"]), facts["formulas"]
        assert facts["overflow"] <= 0
        assert page.evaluate(CLIP_JS, ".bound-explorer") == []
    finally:
        context.close()


def _bound(p: dict[str, float]) -> float:
    """pacbound's bound, with N, n and L as given (not rounded: the charts move them freely)."""
    k = pacbound.prefix_code_bits(p["messageBits"])
    return pacbound.subsampling_bound(
        train_error=p["trainError"], loss_range=pacbound.loss_range(p["alpha"], int(p["vocab"])),
        complexity_nats=(k + p["extraBits"]) * math.log(2), n_population=p["nTrain"],
        n_sample=p["nSample"], eps=p["eps"])


RANGES = {"nTrain": (1.0, 1e11), "messageBits": (1.0, 1e10)}


def _python_threshold(p: dict[str, float], key: str) -> float | str:
    """Where pacbound's bound crosses log2 V as `key` moves over the explorer's slider range."""
    guess = math.log2(p["vocab"])
    lo, hi = RANGES[key]

    def good(x: float) -> bool:
        return _bound({**p, key: x}) < guess

    good_end, bad_end = (lo, hi) if key == "messageBits" else (hi, lo)
    if not good(good_end):
        return "never"
    if good(bad_end):
        return "always"
    a, b = math.log10(good_end), math.log10(bad_end)
    for _ in range(200):
        m = (a + b) / 2
        a, b = (m, b) if good(10 ** m) else (a, m)
    return 10 ** ((a + b) / 2)


def test_explorer_charts_cross_the_random_guess_where_pacbound_does(browser_page, tmp_path):
    """The charts' sentence says where the bound stops being vacuous as N grows, and up to which
    L it stays non-vacuous: the crossing equals pacbound's (bisection in Python) on the page's
    inputs and on random inputs, and agrees when it never or always crosses."""
    _open(browser_page, tmp_path)
    ten_minutes = {"trainError": 5.0, "messageBits": 115_826.0, "nTrain": 8_009_762.0,
                   "nSample": 10_000.0, "alpha": 0.1, "vocab": 50_257.0, "extraBits": 55.0,
                   "eps": 0.05}
    huge_n = {**ten_minutes, "trainError": 1.0, "nTrain": 1e11, "nSample": 1e6}  # any L works
    cases = [ten_minutes, huge_n, *_random_inputs(seed=7)[:40]]
    kinds = set()
    for case in cases:
        for key in RANGES:
            want = _python_threshold(case, key)
            got = browser_page.evaluate(
                "([c, k]) => { const t = BoundExplorer.threshold(c, k);"
                " return t.kind === 'at' ? t.value : t.kind; }", [case, key])
            kinds.add(want if isinstance(want, str) else "at")
            if isinstance(want, str):
                assert got == want, (key, case)
            else:
                assert got == pytest.approx(want, rel=1e-6), (key, case)
    assert kinds == {"at", "never", "always"}, kinds


def test_explorer_charts_follow_the_inputs(browser, tmp_path) -> None:
    """Two charts (bound against N, against L) with the random-guess line and the current point;
    their sentences name the crossing, and a longer message moves the N crossing up."""
    context, page = _open_styled(browser, tmp_path, 1280)
    try:
        charts = page.locator(".bound-explorer figure.bx-plot")
        assert charts.count() == 2
        for i in range(2):
            svg = charts.nth(i).locator("svg")
            assert svg.get_attribute("role") == "img"
            assert "random-guess line" in (svg.get_attribute("aria-label") or "")
            assert svg.locator("polyline.bx-plot-curve").count() == 1
            assert svg.locator("line.bx-plot-guess").count() == 1
            assert svg.locator("circle.bx-plot-now").count() == 1
        caption = charts.nth(0).locator("figcaption")
        assert caption.inner_text().startswith("Non-vacuous once N exceeds 132,000 documents")
        assert charts.nth(1).locator("figcaption").inner_text().startswith(
            "Non-vacuous while L stays below 7,060,000 bits")
        before = float(charts.nth(0).get_attribute("data-threshold") or "nan")
        page.get_by_label("Message length of the model, L", exact=True).fill("1000000")
        after = float(charts.nth(0).get_attribute("data-threshold") or "nan")
        assert after > before
    finally:
        context.close()


@pytest.mark.parametrize("width", [1280, 375])
def test_explorer_presets_give_the_books_bounds(browser, tmp_path, width) -> None:
    """The four presets the site build writes from the scripts' outputs: each button sets every
    input it names, and the bound shown is pacbound's on those inputs (1e-9 relative) and the
    bound its chapter printed (to the rounding of the printed inputs, 1e-3); the pressed button
    is marked, the note cites the block, a moved slider releases it; each button has a focus
    ring, and nothing is cut at a phone's width."""
    data = html.escape(json.dumps(explorer_presets.presets(ROOT / "outputs")), quote=True)
    url = write_page(tmp_path, f'<div class="bound-explorer" data-presets="{data}"></div>',
                     ["javascripts/bound-explorer.js"], ["stylesheets/reader.css"], theme=True)
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    try:
        page.goto(url)
        page.wait_for_selector(".bx-status")
        presets = explorer_presets.presets(ROOT / "outputs")
        buttons = page.locator(".bound-explorer button.bx-preset")
        assert buttons.count() == len(presets) == 4
        vacuous = []
        for i, preset in enumerate(presets):
            buttons.nth(i).focus()
            ring = page.evaluate(FOCUS_RING_JS)
            assert ring["width"] >= 2 and ring["style"] not in ("none", "hidden"), ring
            page.keyboard.press("Enter")
            assert buttons.nth(i).get_attribute("aria-pressed") == "true"
            assert page.locator(".bx-preset[aria-pressed='true']").count() == 1
            shown = float(page.locator(".bound-explorer").get_attribute("data-bound"))
            inputs = preset["inputs"]
            assert shown == pytest.approx(_bound(inputs), rel=REL_TOL), preset["key"]
            assert abs(shown - preset["printed"]) <= 1e-3, (preset["key"], shown)
            for key, value in inputs.items():
                box = page.locator(f"#bx0-{key}")
                assert float(box.input_value()) == value, (preset["key"], key)
            note = page.locator(".bx-preset-note").inner_text()
            assert preset["cite"] in note and str(preset["printed"]) in note, note
            vacuous.append("non-vacuous" not in page.locator(".bx-status").inner_text())
            assert page.evaluate(CLIP_JS, ".bound-explorer") == []
        assert vacuous == [True, False, False, False]
        page.get_by_label("Training documents, N (slider, logarithmic)").focus()
        page.keyboard.press("ArrowRight")
        assert page.locator(".bx-preset[aria-pressed='true']").count() == 0
        assert page.locator(".bx-preset-note").inner_text() == ""
    finally:
        context.close()
