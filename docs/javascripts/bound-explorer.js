// The bound explorer: a reader sets the inputs of the book's bound and watches it and its terms
// move. Plain JavaScript, no framework, no network; works from a folder (file://) as well as
// from a server (tests/browser/test_offline_site.py opens the offline copy's), and after
// Material's instant navigation (document$).
//
// The formula is the book's (Chapter 14, with the valid prefix code of Chapter 11):
//   K     = L + 2 log2 L + 1                      prefix-code length of an L-bit message, bits
//   C     = (K + b) ln 2                          complexity in nats (b extra bits)
//   Delta = log2(1 + (1 - alpha) V / alpha)        range of the smoothed loss, bits per token
//   rho   = n / (n + N)                           split of the failure probability epsilon
//   bound = R_hat + Delta sqrt((C - ln(rho eps)) / (2 N)) + Delta sqrt(-ln((1 - rho) eps) / (2 n))
// window.BoundExplorer.compute(inputs) evaluates it; the browser suite compares it with pacbound
// (tests/browser/test_bound_explorer.py) on 1,000 random inputs.
//
// Markup: <div class="bound-explorer" data-n-train="8000000" data-message-bits="100000" ...>
// </div>; every data-* attribute below is optional and sets the starting value.
(function () {
  "use strict";

  // Each input: its key, data attribute, label, unit, bounds, and whether its slider is
  // logarithmic. Integers are rounded.
  const FIELDS = [
    { key: "trainError", attr: "trainError", label: "Empirical risk of the smoothed predictor, R\u0302",
      unit: "bits per token", min: 0, max: 20, step: 0.001, log: false, value: 5 },
    { key: "messageBits", attr: "messageBits", label: "Message length of the model, L",
      unit: "bits", min: 1, max: 1e10, log: true, integer: true, value: 100000 },
    { key: "nTrain", attr: "nTrain", label: "Training documents, N",
      unit: "documents", min: 1, max: 1e11, log: true, integer: true, value: 8000000 },
    { key: "nSample", attr: "nSample", label: "Documents scored (subsample), n",
      unit: "documents", min: 1, max: 1e9, log: true, integer: true, value: 10000 },
    { key: "alpha", attr: "alpha", label: "Smoothing weight, \u03b1",
      unit: "", min: 1e-6, max: 0.999, log: true, value: 0.5 },
    { key: "vocab", attr: "vocab", label: "Vocabulary size, V",
      unit: "tokens", min: 2, max: 1e6, log: true, integer: true, value: 50257 },
    { key: "extraBits", attr: "extraBits", label: "Extra bits (hyperparameters, grid), b",
      unit: "bits", min: 0, max: 1000, log: false, integer: true, step: 1, value: 7 },
    { key: "eps", attr: "eps", label: "Failure probability, \u03b5",
      unit: "", min: 1e-12, max: 0.5, log: true, value: 0.05 },
  ];
  const SLIDER_STEPS = 1000;
  // The bar's parts, in its order, and the random-guess line.
  const LEGEND = [
    ["bx-risk", "empirical risk R\u0302"],
    ["bx-occam", "Occam term"],
    ["bx-hoeff", "Hoeffding term"],
    ["bx-guess-key", "random guess, log2 V"],
  ];

  function prefixCodeBits(messageBits) {
    if (!(messageBits >= 1)) throw new RangeError("L must be at least 1 bit");
    return messageBits + 2 * Math.log2(messageBits) + 1;
  }

  function lossRange(alpha, vocab) {
    if (!(alpha > 0 && alpha < 1)) throw new RangeError("alpha must lie in (0, 1)");
    if (!(vocab >= 2)) throw new RangeError("V must be at least 2");
    return Math.log2(1 + ((1 - alpha) * vocab) / alpha);
  }

  // The bound and its parts, for inputs named as in FIELDS. Throws RangeError on inputs
  // outside the bound's domain.
  function compute(p) {
    if (!(p.nTrain >= 1 && p.nSample >= 1)) throw new RangeError("N and n must be at least 1");
    if (!(p.eps > 0 && p.eps < 1)) throw new RangeError("epsilon must lie in (0, 1)");
    if (!(p.extraBits >= 0)) throw new RangeError("extra bits must be non-negative");
    const K = prefixCodeBits(p.messageBits);
    const C = (K + p.extraBits) * Math.LN2;
    const delta = lossRange(p.alpha, p.vocab);
    const rho = p.nSample / (p.nSample + p.nTrain);
    const occam = delta * Math.sqrt((C - Math.log(rho * p.eps)) / (2 * p.nTrain));
    const hoeffding = delta * Math.sqrt(-Math.log((1 - rho) * p.eps) / (2 * p.nSample));
    const guess = Math.log2(p.vocab);
    const bound = p.trainError + occam + hoeffding;
    return { K, C, delta, rho, occam, hoeffding, bound, guess, vacuous: bound >= guess };
  }

  function format(x) {
    if (!Number.isFinite(x)) return String(x);
    const a = Math.abs(x);
    if (a !== 0 && (a >= 1e7 || a < 1e-3)) return x.toExponential(3).replace("e+", "e");
    if (Number.isInteger(x)) return x.toLocaleString("en-US");
    return x.toLocaleString("en-US", { maximumSignificantDigits: 5 });
  }

  function toSlider(field, value) {
    const lo = field.log ? Math.log10(field.min) : field.min;
    const hi = field.log ? Math.log10(field.max) : field.max;
    const v = field.log ? Math.log10(value) : value;
    return Math.round(((v - lo) / (hi - lo)) * SLIDER_STEPS);
  }

  function fromSlider(field, position) {
    const lo = field.log ? Math.log10(field.min) : field.min;
    const hi = field.log ? Math.log10(field.max) : field.max;
    const v = lo + (position / SLIDER_STEPS) * (hi - lo);
    let value = field.log ? Math.pow(10, v) : v;
    if (field.integer) value = Math.round(value);
    else value = Number(value.toPrecision(4));
    return Math.min(field.max, Math.max(field.min, value));
  }

  function el(tag, attrs, text) {
    const node = document.createElement(tag);
    Object.entries(attrs || {}).forEach(([k, v]) => node.setAttribute(k, v));
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function startValue(root, field) {
    const raw = root.dataset[field.attr];
    const value = raw === undefined ? field.value : Number(raw);
    return Number.isFinite(value) ? value : field.value;
  }

  function build(root, index) {
    root.textContent = "";
    const id = "bx" + index;
    const values = {};
    const form = el("form", { class: "bx-form", "aria-label": "Inputs of the bound" });
    form.addEventListener("submit", (e) => e.preventDefault());
    const widgets = {};
    FIELDS.forEach((field) => {
      values[field.key] = startValue(root, field);
      const row = el("div", { class: "bx-row" });
      const numberId = id + "-" + field.key;
      const label = el("label", { for: numberId }, field.label);
      const number = el("input", {
        type: "number", id: numberId, min: String(field.min), max: String(field.max),
        step: field.integer ? "1" : "any", value: String(values[field.key]),
        "aria-describedby": numberId + "-unit",
      });
      const slider = el("input", {
        type: "range", min: "0", max: String(SLIDER_STEPS), step: "1",
        value: String(toSlider(field, values[field.key])),
        "aria-label": field.label + " (slider" + (field.log ? ", logarithmic" : "") + ")",
        "aria-valuetext": format(values[field.key]) + (field.unit ? " " + field.unit : ""),
      });
      const unit = el("span", { class: "bx-unit", id: numberId + "-unit" }, field.unit);
      slider.addEventListener("input", () => {
        values[field.key] = fromSlider(field, Number(slider.value));
        number.value = String(values[field.key]);
        update();
      });
      number.addEventListener("input", () => {
        const v = Number(number.value);
        if (number.value === "" || !Number.isFinite(v)) return;
        values[field.key] = v;
        slider.value = String(toSlider(field, Math.min(field.max, Math.max(field.min, v))));
        update();
      });
      widgets[field.key] = { slider, field };
      row.append(label, number, unit, slider);
      form.append(row);
    });

    const out = el("div", { class: "bx-out" });
    const status = el("p", { class: "bx-status", role: "status", "aria-live": "polite" });
    const terms = el("dl", { class: "bx-terms" });
    const bar = el("div", { class: "bx-bar", "aria-hidden": "true" });
    // The bar's colours named on screen, for a reader with no pointer to hover a segment. The
    // bar and its legend are hidden from screen readers: the term list says the same in words.
    const legend = el("ul", { class: "bx-legend", "aria-hidden": "true" });
    LEGEND.forEach(([cls, name]) => {
      const item = el("li", {});
      item.append(el("span", { class: "bx-key " + cls }), document.createTextNode(name));
      legend.append(item);
    });
    out.append(status, bar, legend, terms);
    root.append(form, out);

    function update() {
      Object.values(widgets).forEach(({ slider, field }) => {
        slider.setAttribute("aria-valuetext",
          format(values[field.key]) + (field.unit ? " " + field.unit : ""));
      });
      let r;
      try {
        r = compute(values);
      } catch (error) {
        status.textContent = "Outside the bound's domain: " + error.message + ".";
        root.dataset.bound = "";
        terms.textContent = "";
        bar.textContent = "";
        return;
      }
      root.dataset.bound = String(r.bound);
      status.textContent = "Bound " + format(r.bound) + " bits per token: "
        + (r.vacuous ? "vacuous" : "non-vacuous") + " (random guess log2 V = "
        + format(r.guess) + ").";
      status.className = "bx-status " + (r.vacuous ? "bx-vacuous" : "bx-ok");
      terms.textContent = "";
      [
        ["K = L + 2 log2 L + 1", format(r.K) + " bits"],
        ["C = (K + b) ln 2", format(r.C) + " nats"],
        ["\u0394, range of the smoothed loss", format(r.delta) + " bits per token"],
        ["\u03c1 = n / (n + N)", format(r.rho)],
        ["empirical risk R\u0302", format(values.trainError) + " bits per token"],
        ["Occam term", format(r.occam) + " bits per token"],
        ["Hoeffding term (subsample)", format(r.hoeffding) + " bits per token"],
        ["bound", format(r.bound) + " bits per token"],
      ].forEach(([name, value]) => {
        // A formula is not broken across lines; a name in words is.
        const dt = el("dt", /=/.test(name) ? { class: "bx-formula" } : {}, name);
        terms.append(dt, el("dd", {}, value));
      });
      drawBar(bar, values.trainError, r);
    }
    update();
  }

  // A stacked bar: empirical risk, Occam term, Hoeffding term, with the random-guess line.
  function drawBar(bar, trainError, r) {
    bar.textContent = "";
    const scale = Math.max(r.bound, r.guess) * 1.05;
    const pct = (x) => Math.max(0, (100 * x) / scale) + "%";
    [["bx-risk", trainError, "R\u0302"], ["bx-occam", r.occam, "Occam"],
     ["bx-hoeff", r.hoeffding, "Hoeffding"]].forEach(([cls, width, name]) => {
      const seg = el("span", { class: "bx-seg " + cls, title: name + " " + format(width) });
      seg.style.width = pct(width);
      bar.append(seg);
    });
    const line = el("span", { class: "bx-guess", title: "random guess " + format(r.guess) });
    line.style.left = pct(r.guess);
    bar.append(line);
  }

  // Builds every explorer of the page not yet built; a page swapped in by instant navigation
  // brings fresh ones. Called when the document is ready AND on each document$ emission:
  // opened from a folder (file://) Material's document$ never emits, so waiting for it alone
  // left the explorer an empty box in the offline copy.
  let built = 0;
  function setUp() {
    document.querySelectorAll(".bound-explorer:not([data-bx-built])").forEach((root) => {
      root.setAttribute("data-bx-built", "");
      build(root, built++);
    });
  }

  window.BoundExplorer = { compute, prefixCodeBits, lossRange, FIELDS };
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setUp);
  } else {
    setUp();
  }
  if (typeof document$ !== "undefined") {
    document$.subscribe(setUp); // eslint-disable-line no-undef
  }
})();
