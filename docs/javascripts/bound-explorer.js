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
// (tests/browser/test_bound_explorer.py) on 1,000 random inputs. Two charts draw the bound
// against N and against L from the same formula, the other inputs held, with the random-guess
// line, and say where the bound crosses it (BoundExplorer.threshold, compared with a bisection
// of pacbound's bound).
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

  // The presets the site build wrote into data-presets (explainer_tools/website/explorer_presets.py,
  // read from the scripts' outputs): one button each; pressing one sets every input it names and
  // says what it is and which bound its chapter printed. Null when the page gave none.
  function presetButtons(root, apply) {
    if (!root.dataset.presets) return null;
    let list;
    try {
      list = JSON.parse(root.dataset.presets);
    } catch (error) {
      return null;
    }
    if (!Array.isArray(list) || list.length === 0) return null;
    const group = el("div", { class: "bx-presets", role: "group", "aria-label": "Start from a preset" });
    const row = el("div", { class: "bx-preset-row" });
    row.append(el("span", { class: "bx-preset-title" }, "Start from:"));
    const note = el("p", { class: "bx-preset-note" });
    const buttons = list.map((preset) => {
      const button = el("button", { type: "button", class: "bx-preset", "aria-pressed": "false",
        "data-preset": preset.key }, preset.label);
      button.addEventListener("click", () => {
        apply(preset);
        choose(preset);
      });
      row.append(button);
      return [preset, button];
    });
    function choose(chosen) {
      buttons.forEach(([preset, button]) =>
        button.setAttribute("aria-pressed", String(preset === chosen)));
      note.textContent = chosen
        ? chosen.note + " Its chapter prints a bound of " + String(chosen.printed)
          + " bits per token (" + chosen.cite + "); from these printed, rounded inputs the "
          + "explorer's formula gives the bound below."
        : "";
    }
    group.append(row, note);
    return { group, choose };
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
        choose(null);
        update();
      });
      number.addEventListener("input", () => {
        const v = Number(number.value);
        if (number.value === "" || !Number.isFinite(v)) return;
        values[field.key] = v;
        slider.value = String(toSlider(field, Math.min(field.max, Math.max(field.min, v))));
        choose(null);
        update();
      });
      widgets[field.key] = { slider, number, field };
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
    // Why, not only what: the bound against N and against L, the other inputs held, with the
    // random-guess line and where the bound crosses it.
    const plots = el("div", { class: "bx-plots" });
    const plotN = plot("nTrain", "Training documents, N");
    const plotL = plot("messageBits", "Message length, L (bits)");
    plots.append(plotN.figure, plotL.figure);
    out.append(status, bar, legend, plots, terms);
    const presets = presetButtons(root, (preset) => {
      Object.entries(preset.inputs).forEach(([key, value]) => {
        const widget = widgets[key];
        if (!widget) return;
        values[key] = value;
        widget.number.value = String(value);
        widget.slider.value = String(toSlider(widget.field,
          Math.min(widget.field.max, Math.max(widget.field.min, value))));
      });
      update();
    });
    const choose = presets ? presets.choose : () => {};
    if (presets) root.append(presets.group);
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
        [plotN, plotL].forEach((p) => p.clear());
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
      [plotN, plotL].forEach((p) => p.draw(values, r));
    }
    update();
  }

  // Where the bound crosses the random guess as one input (N or L) moves over its slider's
  // range, the others held: {kind: "at", value} with the bound below the guess for larger N
  // (smaller L) than value; "always" when it is below over the whole range, "never" when it is
  // never below. The bound falls as N grows and rises with L; bisection on log10 of the input.
  function threshold(p, key) {
    const field = FIELDS.find((f) => f.key === key);
    const good = (x) => { const r = compute({ ...p, [key]: x }); return r.bound < r.guess; };
    const rising = key === "messageBits";  // the bound rises with L, falls with N
    const [lo, hi] = [field.min, field.max];
    const goodEnd = rising ? lo : hi, badEnd = rising ? hi : lo;
    if (!good(goodEnd)) return { kind: "never" };
    if (good(badEnd)) return { kind: "always" };
    let a = Math.log10(goodEnd), b = Math.log10(badEnd);  // good at a, bad at b
    for (let i = 0; i < 200 && Math.abs(a - b) > 1e-12; i++) {
      const m = (a + b) / 2;
      if (good(Math.pow(10, m))) a = m; else b = m;
    }
    return { kind: "at", value: Math.pow(10, (a + b) / 2) };
  }

  const SVG = "http://www.w3.org/2000/svg";
  function svgEl(tag, attrs, text) {
    const node = document.createElementNS(SVG, tag);
    Object.entries(attrs || {}).forEach(([k, v]) => node.setAttribute(k, v));
    if (text !== undefined) node.textContent = text;
    return node;
  }
  const SUPERSCRIPT = "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079";
  function power(x) {  // 1, 10, 10³, ... 10¹¹
    const e = Math.round(Math.log10(x));
    if (e === 0) return "1";
    if (e === 1) return "10";
    return "10" + String(e).split("").map((d) => SUPERSCRIPT[Number(d)]).join("");
  }

  // A small chart of the bound against one input (logarithmic axis), the others held.
  function plot(key, title) {
    const field = FIELDS.find((f) => f.key === key);
    const W = 320, H = 150, left = 34, right = 8, top = 8, bottom = 30;
    const figure = el("figure", { class: "bx-plot" });
    const svg = svgEl("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", class: "bx-plot-svg" });
    const caption = el("figcaption", { class: "bx-plot-caption" });
    figure.append(svg, caption);
    const lo = Math.log10(field.min), hi = Math.log10(field.max);
    const xOf = (x) => left + ((Math.log10(x) - lo) / (hi - lo)) * (W - left - right);
    function clear() { svg.textContent = ""; caption.textContent = ""; }
    function draw(p, current) {
      clear();
      const ymax = 2 * current.guess;  // the vacuous band up to twice the guess; higher is clipped
      const yOf = (y) => top + (1 - Math.min(y, ymax) / ymax) * (H - top - bottom);
      // the vacuous region: above the random guess
      svg.append(svgEl("rect", { x: left, y: top, width: W - left - right,
        height: yOf(current.guess) - top, class: "bx-plot-vacuous" }));
      // axes and ticks
      svg.append(svgEl("line", { x1: left, y1: H - bottom, x2: W - right, y2: H - bottom, class: "bx-plot-axis" }));
      svg.append(svgEl("line", { x1: left, y1: top, x2: left, y2: H - bottom, class: "bx-plot-axis" }));
      const step = hi - lo > 8 ? 3 : 2;
      for (let e = Math.ceil(lo); e <= hi; e += step) {
        const x = xOf(Math.pow(10, e));
        svg.append(svgEl("line", { x1: x, y1: H - bottom, x2: x, y2: H - bottom + 3, class: "bx-plot-axis" }));
        svg.append(svgEl("text", { x, y: H - bottom + 13, "text-anchor": "middle", class: "bx-plot-text" }, power(Math.pow(10, e))));
      }
      svg.append(svgEl("text", { x: (left + W - right) / 2, y: H - 3, "text-anchor": "middle", class: "bx-plot-text" }, title));
      [0, current.guess].forEach((y) => svg.append(svgEl("text", { x: left - 3, y: yOf(y) + 3,
        "text-anchor": "end", class: "bx-plot-text" }, format(Number(y.toPrecision(3))))));
      // the random guess, and the bound
      svg.append(svgEl("line", { x1: left, y1: yOf(current.guess), x2: W - right, y2: yOf(current.guess), class: "bx-plot-guess" }));
      const points = [];
      for (let i = 0; i <= 120; i++) {
        const x = Math.pow(10, lo + (i / 120) * (hi - lo));
        const r = compute({ ...p, [key]: field.integer ? Math.max(field.min, Math.round(x)) : x });
        points.push(`${xOf(x).toFixed(1)},${yOf(r.bound).toFixed(1)}`);
      }
      svg.append(svgEl("polyline", { points: points.join(" "), class: "bx-plot-curve" }));
      svg.append(svgEl("circle", { cx: xOf(p[key]), cy: yOf(current.bound), r: 3.5, class: "bx-plot-now" }));
      // in words: where the bound stops being vacuous
      const t = threshold(p, key);
      const what = key === "nTrain" ? "documents" : "bits";
      let text;
      if (t.kind === "never") text = `Vacuous for every ${key === "nTrain" ? "N" : "L"} on this scale, the other inputs held.`;
      else if (t.kind === "always") text = `Non-vacuous for every ${key === "nTrain" ? "N" : "L"} on this scale, the other inputs held.`;
      else if (key === "nTrain") text = `Non-vacuous once N exceeds ${format(Number(t.value.toPrecision(3)))} ${what}, the other inputs held.`;
      else text = `Non-vacuous while L stays below ${format(Number(t.value.toPrecision(3)))} ${what}, the other inputs held.`;
      caption.textContent = text;
      figure.dataset.threshold = t.kind === "at" ? String(t.value) : t.kind;
      svg.setAttribute("aria-label", `The bound against ${title}, with the random-guess line. ${text}`);
    }
    return { figure, draw, clear };
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

  window.BoundExplorer = { compute, prefixCodeBits, lossRange, threshold, FIELDS };
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setUp);
  } else {
    setUp();
  }
  if (typeof document$ !== "undefined") {
    document$.subscribe(setUp); // eslint-disable-line no-undef
  }
})();
