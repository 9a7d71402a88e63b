// MathJax 3, served from this site (assets/mathjax/, copied from a pinned package at build time).
//
// Typeset only what pymdownx.arithmatex marked, plus notebook Markdown cells.
// MathJax typesets the first page by itself at start-up. Re-typesetting on Material's first
// `document$` emission leaves zero-width (invisible) formulas with a local MathJax, so we only
// re-typeset after an instant-navigation page swap.
window.MathJax = {
  tex: {
    // \( \) and \[ \] come from pymdownx.arithmatex; $ and $$ from notebook Markdown cells,
    // whose renderer strips the backslashes of \( \). Only the elements below are searched.
    inlineMath: [["\\(", "\\)"], ["$", "$"]],
    displayMath: [["\\[", "\\]"], ["$$", "$$"]],
    processEscapes: true,
    processEnvironments: true,
  },
  options: {
    ignoreHtmlClass: "tex2jax_ignore",
    processHtmlClass: "tex2jax_process",
  },
  startup: {
    elements: [".arithmatex", ".jp-RenderedMarkdown"],  // not .jp-MarkdownCell: it contains the latter
  },
};

(function () {
  let firstPage = true;
  function typesetPage() {
    if (firstPage) {
      firstPage = false;
      return;
    }
    if (!window.MathJax || !MathJax.startup || !MathJax.typesetPromise) return;
    MathJax.startup.promise = MathJax.startup.promise.then(() => {
      const elements = document.querySelectorAll(
        ".arithmatex, .jp-RenderedMarkdown");
      MathJax.startup.output.clearCache();
      MathJax.typesetClear();
      MathJax.texReset();
      return MathJax.typesetPromise(Array.from(elements));
    });
  }
  if (typeof document$ !== "undefined") {
    document$.subscribe(typesetPage);
  } else {
    document.addEventListener("DOMContentLoaded", () => {
      if (typeof document$ !== "undefined") document$.subscribe(typesetPage);
    });
  }
})();
