// Reader features on every page (explainer_tools/website/reader_features.py writes the markup):
// - a preview card for references to equations and figures (a.xref), on hover and on focus;
// - a card for every number linked to the output line that printed it (a.num, span.num, and
//   links inside formulas): script, block, line, the line's text and the checked state;
// - a link to an output line (#out-...) opens the collapsed block that holds the line;
// - a citation's full reference, in a card above the citation (not over the formula below).
// The card has one id, CARD_ID; the element it describes points at it with aria-describedby,
// so a screen reader reads the number's own text as its name and the card as its description.
// On a touch screen the first tap on a number shows its card and the second follows the link.
// - the bound explorer's script (bound-explorer.js, beside this one) is loaded on the first page
//   that holds an explorer, not on every page (20 kB; one page has one).
// Works after Material's instant navigation (document$), with no network.
(function () {
  const CARD_ID = "reader-card";
  const EXPLORER_SRC = document.currentScript
    ? document.currentScript.src.replace(/reader\.js(\?.*)?$/, "bound-explorer.js")
    : null;
  let card = null;
  let described = null;   // the element whose aria-describedby points at the card
  let lastPointer = "mouse";
  let lastPointerAt = 0;
  const TAP_WINDOW_MS = 1000;   // mouseover and focus that a tap sets off come within this
  function fromTap() { return lastPointer === "touch" && Date.now() - lastPointerAt < TAP_WINDOW_MS; }

  function closeCard() {
    if (card) {
      card.remove();
      card = null;
    }
    if (described) {
      described.removeAttribute("aria-describedby");
      described = null;
    }
  }

  function describe(el) {
    card.id = CARD_ID;
    el.setAttribute("aria-describedby", CARD_ID);
    described = el;
  }

  function stamps() {
    const merged = {};
    document.querySelectorAll(".number-stamps").forEach((s) => {
      try { Object.assign(merged, JSON.parse(s.dataset.stamps)); } catch (error) { /* none */ }
    });
    return merged;
  }

  // An output line's anchor: out-SCRIPT-LN, after a page key on the whole-book page (a script's
  // name has no "-", so the match is the anchor's last "out-" part).
  const OUT_LINE = /(?:^|-)out-([A-Za-z0-9_]+)-L(\d+)$/;

  // "Printed by ch05_param_count.py, output [1], line 11: <line> (checked at script .., lock ..)"
  function numberCardText(el) {
    let script = el.dataset.script, line = el.dataset.line, printed = el.dataset.printed;
    const hash = el.hash || (el.getAttribute("href") || "");
    // "#out-SCRIPT-L7", or on the whole-book page "#PAGE-KEY-out-SCRIPT-L7" (print-site
    // prefixes every anchor with its page's key).
    const id = decodeURIComponent(hash).replace(/^#/, "");
    const match = OUT_LINE.exec(id);
    if (match) {
      script = match[1] + ".py";
      line = match[2];
      const target = document.getElementById(id);
      printed = target ? target.textContent : "";
      if (!el.dataset.block && target) {
        // A link inside a formula carries no block number: the block is the nearest line
        // above (or at) the target that starts with "[N]".
        for (let line = target; line; line = line.previousElementSibling) {
          const found = /^\[(\d+)\]/.exec(line.textContent);
          if (found) { el.dataset.block = found[1]; break; }
        }
      }
    }
    if (!script) return null;
    const block = el.dataset.block;
    const state = stamps()[script] || "unknown state";
    return "Printed by " + script + ", output [" + (block || "?") + "], line " + line + ": "
      + (printed || "").trim().replace(/\s+/g, " ") + " (checked at " + state + ")";
  }

  function openTextCard(el, text) {
    closeCard();
    card = document.createElement("div");
    card.className = "xref-card num-card";
    card.setAttribute("role", "tooltip");
    card.textContent = text;
    place(el);
    describe(el);
  }

  // Below the element by default; `above` puts it over the line when there is room (a citation's
  // card must not hide the display formula that often follows its sentence).
  function place(link, above) {
    document.body.appendChild(card);
    const box = link.getBoundingClientRect();
    const left = Math.max(8, Math.min(box.left + window.scrollX,
                                      window.scrollX + document.documentElement.clientWidth
                                      - card.offsetWidth - 8));
    card.style.left = left + "px";
    const header = document.querySelector(".md-header");
    const clear = header ? header.getBoundingClientRect().bottom : 0;
    const fitsAbove = box.top - card.offsetHeight - 6 >= clear;
    card.style.top = (above && fitsAbove ? box.top + window.scrollY - card.offsetHeight - 6
                                         : box.bottom + window.scrollY + 6) + "px";
  }

  // Citations: the full reference in a card above the citation. Material's tooltip would open
  // below it, over the formula the sentence introduces, so the title moves to data-reference
  // before Material reads it (this script runs before the page's load event, and again after
  // each instant navigation).
  function citations() {
    document.querySelectorAll("a.cite[title]").forEach((link) => {
      link.dataset.reference = link.getAttribute("title");
      link.removeAttribute("title");
    });
  }
  citations();
  function openCiteCard(link) {
    closeCard();
    card = document.createElement("div");
    card.className = "xref-card cite-card";
    card.setAttribute("role", "tooltip");
    card.textContent = link.dataset.reference;
    place(link, true);
    describe(link);
  }

  function openCard(link) {
    closeCard();
    card = document.createElement("div");
    card.className = "xref-card";
    card.setAttribute("role", "tooltip");
    if (link.dataset.tex !== undefined) {
      // The formula was rendered when the site was built (math_render.py): one <template> per
      // formula on the page, named by data-preview.
      const math = document.createElement("div");
      math.className = "xref-math";
      const rendered = document.querySelector(
        'template[data-preview-for="' + (link.dataset.preview || "") + '"]');
      if (rendered) math.appendChild(rendered.content.cloneNode(true));
      else math.textContent = link.dataset.tex;
      card.appendChild(math);
    } else if (link.dataset.img) {
      const img = document.createElement("img");
      img.src = link.dataset.img;
      img.alt = "Preview of " + link.textContent;
      card.appendChild(img);
    }
    const caption = document.createElement("div");
    caption.className = "xref-caption";
    caption.textContent = link.textContent;
    card.appendChild(caption);
    place(link);
    describe(link);
  }

  function openTarget() {
    if (!location.hash) return;
    let target = null;
    try {
      target = document.getElementById(decodeURIComponent(location.hash.slice(1)));
    } catch (error) {
      return;
    }
    if (!target) return;
    // The highlight is a class as well as :target: Material's instant navigation may change the
    // URL with history.pushState, which leaves :target on the old element.
    document.querySelectorAll(".is-target").forEach((e) => e.classList.remove("is-target"));
    target.classList.add("is-target");
    for (let node = target.parentElement; node; node = node.parentElement) {
      if (node.tagName === "DETAILS") node.open = true;
    }
    target.scrollIntoView({block: "center"});
  }

  // Accessibility of the page around the reader's marks (axe-core's rules):
  // - numbers and links inside formulas leave the tab order (a chapter holds hundreds); they
  //   stay links, so a screen reader lists them and reads them with their description (the
  //   build writes it into the page, explainer_tools/website/site_speed.py; setting it again at load
  //   would restyle every link, so a link that has it is left alone);
  // - Material's search dialog gets a name, and a navigation section whose label holds only an
  //   icon (a section with an index page) gets its section's name;
  // - a region that scrolls sideways can be reached and scrolled from the keyboard.
  const OUT_OF_TAB_ORDER = "a.num, a[href*='#out-'], a[href*='-out-']";
  function accessible() {
    document.querySelectorAll(OUT_OF_TAB_ORDER).forEach((el) => {
      if (el.getAttribute("tabindex") !== "-1") el.setAttribute("tabindex", "-1");
    });
    document.querySelectorAll(".md-search[role='dialog']:not([aria-label])").forEach((dialog) => {
      dialog.setAttribute("aria-label", "Search");
    });
    document.querySelectorAll("nav.md-nav[aria-labelledby]").forEach((nav) => {
      const label = document.getElementById(nav.getAttribute("aria-labelledby"));
      if (!label || label.textContent.trim()) return;
      const title = nav.querySelector(":scope > .md-nav__title");
      const name = title ? title.textContent.trim() : "";
      if (!name) return;
      const hidden = document.createElement("span");
      hidden.className = "reader-sr-only";
      hidden.textContent = name;
      label.appendChild(hidden);
    });
    focusableScrollers();
    nameHeaderFormulas();
  }

  // A table header that holds only a formula: KaTeX's drawing is aria-hidden and a <math>
  // element gives no text to the cell's name (it is embedded content), so the header would be
  // empty to assistive technology and to axe-core (empty-table-header). Its <math> gets a
  // spoken-style name read from its own MathML (tokens in order; sub-, superscripts, fractions,
  // roots and accents in words).
  const ACCENTS = {"\u02c9": "bar", "\u00af": "bar", "^": "hat", "\u02c6": "hat", "~": "tilde",
                   "\u02dc": "tilde", "\u2192": "vector"};
  function spoken(node) {
    const parts = Array.from(node.children).filter((c) => c.localName !== "annotation")
      .map(spoken);
    switch (node.localName) {
      case "mi": case "mn": case "mo": case "mtext":
        return node.textContent.replace(/[\u2061-\u2064]/g, "").trim();
      case "msub": return `${parts[0]} sub ${parts[1]}`;
      case "msup": return `${parts[0]} to the ${parts[1]}`;
      case "msubsup": return `${parts[0]} sub ${parts[1]} to the ${parts[2]}`;
      case "mfrac": return `${parts[0]} over ${parts[1]}`;
      case "msqrt": return `square root of ${parts.join(" ")}`;
      case "mover": case "munder":
        return ACCENTS[parts[1]] ? `${parts[0]} ${ACCENTS[parts[1]]}` : parts.join(" ");
      default: return parts.filter(Boolean).join(" ");
    }
  }
  function nameHeaderFormulas() {
    document.querySelectorAll(".md-typeset th math:not([aria-label])").forEach((math) => {
      const cell = math.closest("th");
      const text = Array.from(cell.childNodes).map((n) => (
        n.nodeType === Node.TEXT_NODE ? n.textContent : n.matches(".arithmatex, .katex") ? "" :
          n.textContent)).join("").trim();
      if (!text) math.setAttribute("aria-label", spoken(math).replace(/\s+/g, " "));
    });
  }

  // A box that scrolls sideways (a wide table, a long display formula, a code block, a notebook
  // cell) gets a tab stop, so the keyboard can scroll it; checked again when the width changes.
  // Whether a box scrolls is read from its layout, and a long chapter lays out its blocks only as
  // they come near the screen (explainer.css): reading every box at load would lay out the whole
  // page first (on Chapter 5 the longest task of the load on a throttled phone). So each box
  // holds a provisional tab stop (data-scroll-stop="pending": reachable whatever its width) until
  // it comes within a screen of the viewport, where it keeps the stop if it scrolls ("scrolls")
  // and loses it if it fits ("fits"). A tab stop the box had of its own is left alone. Material
  // mounts a code block only when it comes into view (content.lazy) and then sets the block's
  // stop itself, the same way on a device with a mouse; until then the stop is ours.
  const SCROLLERS = ".md-typeset__scrollwrap, .katex-display, .md-typeset pre > code, " +
                    ".md-typeset div.arithmatex, " +  // a display formula's box (explainer.css)
                    ".jp-Cell .highlight-ipynb, .jp-OutputArea-output pre";
  function settleTabStop(box) {
    const scrolls = box.scrollWidth > box.clientWidth;
    if (scrolls) box.setAttribute("tabindex", "0");
    else box.removeAttribute("tabindex");
    box.dataset.scrollStop = scrolls ? "scrolls" : "fits";
  }
  const nearScreen = new IntersectionObserver((entries) => {
    entries.filter((entry) => entry.isIntersecting).forEach((entry) => {
      nearScreen.unobserve(entry.target);
      settleTabStop(entry.target);
    });
  }, {rootMargin: "100% 0px"});
  // A settled box is settled again when its size changes (a table stacked on a phone, fonts
  // arriving). And its stop is kept while it scrolls or is pending: Material, mounting a code
  // block as it comes into view, removes the block's stop on a device without a mouse,
  // scrolling or not.
  const resized = new ResizeObserver((entries) => entries.forEach(({target}) => {
    if (target.dataset.scrollStop === "scrolls" || target.dataset.scrollStop === "fits") {
      settleTabStop(target);
    }
  }));
  // A top-level block is laid out only when drawn (content-visibility), and a box measured
  // before its block was drawn measures as fitting; its size may not change when the block is
  // drawn, so the boxes in a block are settled again each time the block is drawn.
  document.addEventListener("contentvisibilityautostatechange", (event) => {
    if (event.skipped) return;
    [event.target, ...event.target.querySelectorAll("[data-scroll-stop]")].forEach((box) => {
      if (box.dataset.scrollStop === "scrolls" || box.dataset.scrollStop === "fits") {
        settleTabStop(box);
      }
    });
  }, true);
  new MutationObserver((records) => records.forEach(({target}) => {
    const keep = target.dataset && ["scrolls", "pending"].includes(target.dataset.scrollStop);
    if (keep && target.getAttribute("tabindex") !== "0") target.setAttribute("tabindex", "0");
  })).observe(document.documentElement, {attributes: true, attributeFilter: ["tabindex"],
                                          subtree: true});
  function focusableScrollers() {
    document.querySelectorAll(SCROLLERS).forEach((box) => {
      if (box.hasAttribute("tabindex") && !box.dataset.scrollStop) return;
      box.dataset.scrollStop = "pending";
      box.setAttribute("tabindex", "0");
      nearScreen.observe(box);
      resized.observe(box);
    });
  }
  window.addEventListener("resize", focusableScrollers);

  // Material adds a <nav> of buttons to each code block as it mounts it; unnamed, they are
  // landmarks no screen reader can tell apart. Each gets the name of its block.
  function nameCodeNavs() {
    document.querySelectorAll("nav.md-code__nav:not([aria-label])").forEach((nav) => {
      const block = nav.parentElement && nav.parentElement.id;
      nav.setAttribute("aria-label", "Code block " + (block || "").replace(/^__code_/, ""));
    });
  }
  new MutationObserver(nameCodeNavs).observe(document.documentElement,
                                             {childList: true, subtree: true});

  // A link gets its card's listeners once, however often setUp runs.
  const withCard = new WeakSet();
  function cardOn(link, open) {
    if (withCard.has(link)) return;
    withCard.add(link);
    link.addEventListener("mouseenter", () => open(link));
    link.addEventListener("focus", () => open(link));
    link.addEventListener("mouseleave", closeCard);
    link.addEventListener("blur", closeCard);
  }
  function setUp() {
    citations();
    nameCodeNavs();
    document.querySelectorAll("a.cite[data-reference]").forEach((link) => cardOn(link, openCiteCard));
    accessible();  // formulas are rendered at build time: their links are in the page already
    document.querySelectorAll("a.xref").forEach((link) => cardOn(link, openCard));
    openTarget();
    loadExplorer();
  }

  // Once loaded, the explorer's script builds every explorer itself, after each navigation too.
  function loadExplorer() {
    if (!EXPLORER_SRC || window.BoundExplorer || document.getElementById("bx-script")) return;
    if (!document.querySelector(".bound-explorer")) return;
    const script = document.createElement("script");
    script.id = "bx-script";
    script.src = EXPLORER_SRC;
    document.head.append(script);
  }

  function numberAt(target) {
    if (!(target instanceof Element)) return null;
    const el = target.closest(".num, .katex a, a[href*='out-']");
    const href = el ? decodeURIComponent(el.getAttribute("href") || "").replace(/^.*#/, "") : "";
    return el && (el.classList.contains("num") || OUT_LINE.test(href)) ? el : null;
  }
  function showNumber(event) {
    if (fromTap()) return;     // a tap is handled by tapNumber, on its click
    const el = numberAt(event.target);
    if (!el) return;
    const text = numberCardText(el);
    if (text) openTextCard(el, text);
  }
  // First tap on a number (touch): show the card and stay; a second tap follows the link.
  function tapNumber(event) {
    if (!fromTap()) return;
    const el = numberAt(event.target);
    if (!el) {
      if (card && card.classList.contains("num-card")) closeCard();
      return;
    }
    if (described === el) return;
    event.preventDefault();
    const text = numberCardText(el);
    if (text) openTextCard(el, text);
  }
  document.addEventListener("pointerdown", (event) => {
    lastPointer = event.pointerType;
    lastPointerAt = Date.now();
  }, true);
  document.addEventListener("click", tapNumber, true);
  function hideNumber(event) {
    if (fromTap()) return;
    if (numberAt(event.target) && card && card.classList.contains("num-card")) closeCard();
  }
  document.addEventListener("mouseover", showNumber);
  document.addEventListener("focusin", showNumber);
  document.addEventListener("mouseout", hideNumber);
  document.addEventListener("focusout", hideNumber);

  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") closeCard();
  });
  window.addEventListener("hashchange", openTarget);
  // When the document is ready, and after each instant navigation. Opened from a folder
  // (file://, the offline copy) Material's document$ never emits: waiting for it alone left the
  // reader's cards and the keyboard's scroll stops out of the offline copy.
  // Material's instant navigation swaps in a new page container: one set-up per container.
  let readyFor = null;
  function setUpOnce() {
    const page = document.querySelector(".md-content") || document.body;
    if (page === readyFor) return;
    readyFor = page;
    setUp();
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setUpOnce);
  } else {
    setUpOnce();
  }
  if (typeof document$ !== "undefined") {
    document$.subscribe(() => { closeCard(); setUpOnce(); });
  }
})();

// Figure zoom (explainer_tools/website/figure_zoom.py wraps each image in a.zoom or button.zoom): a click
// shows the image in a native modal <dialog> as large as the window allows. The browser keeps
// focus inside it, closes it on Escape and returns focus to the figure; a click anywhere in it
// or its close button closes it too. Without this script the link opens the image file.
(function () {
  let dialog = null;
  function zoomDialog() {
    if (dialog && dialog.isConnected) return dialog;
    dialog = document.createElement("dialog");
    dialog.className = "zoom-dialog";
    dialog.setAttribute("aria-label", "Figure, full size");
    const close = document.createElement("button");
    close.type = "button";
    close.className = "zoom-close";
    close.setAttribute("aria-label", "Close the full-size figure");
    close.textContent = "\u00d7";
    dialog.append(close, document.createElement("img"));
    dialog.addEventListener("click", () => dialog.close());
    document.body.append(dialog);
    return dialog;
  }
  document.addEventListener("click", (event) => {
    const control = event.target instanceof Element && event.target.closest(".zoom");
    const figure = control && control.querySelector("img");
    if (!figure || event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
    event.preventDefault();
    const box = zoomDialog();
    const image = box.querySelector("img");
    image.src = figure.currentSrc || figure.src;
    image.alt = figure.alt;
    box.showModal();
  });
})();

// The light and dark switch in the header. Material's own (its palette component) sets the
// palette again when it starts, restyling the whole page each time it marks the switch and
// reads the header's colours (side by side, the renderer's main thread spent 43 ms more CPU on
// Chapter 5 with it, 138 ms on the notebook's page: four times that on a phone). The build
// hands the switch to this script (explainer_tools/website/site_speed.py, `palette_without_restyles`),
// which behaves as Material's does: the first visit follows the device's preference, a choice
// is stored where Material's script at the top of every page reads it (`__palette`), the
// switch shows the other palette's icon, Enter switches too. At load it changes only what
// differs, and it reads the header's colours once the page is drawn, when reading them costs
// nothing.
(function () {
  const form = document.querySelector("form[data-reader-palette]");
  if (!form) return;
  const inputs = Array.from(form.querySelectorAll("input"));
  const palette = (index) => ({index, color: {
    media: inputs[index].getAttribute("data-md-color-media"),
    scheme: inputs[index].getAttribute("data-md-color-scheme"),
    primary: inputs[index].getAttribute("data-md-color-primary"),
    accent: inputs[index].getAttribute("data-md-color-accent"),
  }});
  function meta(name) {
    let tag = document.head.querySelector(`meta[name="${name}"]`);
    if (!tag) {
      tag = document.createElement("meta");
      tag.name = name;
      document.head.append(tag);
    }
    return tag;
  }
  function headerColours() {
    const header = document.querySelector("[data-md-component=header]");
    if (!header) return;
    // Both colours are read before either tag is written: a tag written between the two reads
    // (color-scheme restyles the whole page) made the second read restyle it at once, a second
    // time (on the notebook page a quarter of a second on a throttled phone). A tag that
    // already says the same is left alone.
    const style = getComputedStyle(header);
    const scheme = style.colorScheme;
    const theme = "#" + (style.backgroundColor.match(/\d+/g) || [])
      .slice(0, 3).map((value) => (+value).toString(16).padStart(2, "0")).join("");
    for (const [name, value] of [["color-scheme", scheme], ["theme-color", theme]]) {
      const tag = meta(name);
      if (tag.content !== value) tag.content = value;
    }
  }
  let current = -1;
  function apply(index, switching) {
    const chosen = palette(index);
    if (switching) document.body.setAttribute("data-md-color-switching", "");
    for (const [key, value] of Object.entries(chosen.color)) {
      const name = "data-md-color-" + key;
      if (value !== null && document.body.getAttribute(name) !== value) {
        document.body.setAttribute(name, value);
      }
    }
    inputs.forEach((input, at) => {
      const label = input.nextElementSibling;
      if (label instanceof HTMLElement && label.hidden !== (at !== index)) {
        label.hidden = at !== index;
      }
    });
    current = index;
    __md_set("__palette", chosen);
    if (switching) {
      headerColours();
      setTimeout(() => document.body.removeAttribute("data-md-color-switching"));
    }
  }
  const stored = __md_get("__palette");
  const preferred = inputs.findIndex((input) => (
    matchMedia(input.getAttribute("data-md-color-media") || "not all").matches));
  const first = stored && Number.isInteger(stored.index) ? stored.index : Math.max(0, preferred);
  apply(Math.max(0, Math.min(first, inputs.length - 1)), false);
  requestAnimationFrame(() => setTimeout(headerColours));
  inputs.forEach((input, index) => input.addEventListener("change", () => apply(index, true)));
  form.addEventListener("keydown", (event) => {
    if (event.key !== "Enter") return;
    const next = inputs[(current + 1) % inputs.length];
    next.click();
    next.focus();
  });
})();
