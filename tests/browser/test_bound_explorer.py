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

import math
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pacbound
import pytest
from standalone_kit import write_page

pytestmark = pytest.mark.browser

CASES = 1_000
REL_TOL = 1e-9



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
