// Reader features on every page (explainer_tools/reader_hook.py writes the markup):
// - a preview card for references to equations and figures (a.xref), on hover and on focus;
// - a link to an output line (a.num, #out-...) opens the collapsed block that holds the line.
// Works after Material's instant navigation (document$), with no network.
(function () {
  let card = null;

  function closeCard() {
    if (card) {
      card.remove();
      card = null;
    }
  }

  function openCard(link) {
    closeCard();
    card = document.createElement("div");
    card.className = "xref-card";
    card.setAttribute("role", "tooltip");
    if (link.dataset.tex !== undefined) {
      const math = document.createElement("div");
      math.className = "xref-math";
      math.textContent = "\\[" + link.dataset.tex + "\\]";
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
    document.body.appendChild(card);
    const box = link.getBoundingClientRect();
    const left = Math.max(8, Math.min(box.left + window.scrollX,
                                      window.scrollX + document.documentElement.clientWidth
                                      - card.offsetWidth - 8));
    card.style.left = left + "px";
    card.style.top = (box.bottom + window.scrollY + 6) + "px";
    const math = card.querySelector(".xref-math");
    if (math && window.MathJax && MathJax.typesetPromise) {
      MathJax.startup.promise = MathJax.startup.promise.then(() => MathJax.typesetPromise([math]));
    }
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
    for (let node = target.parentElement; node; node = node.parentElement) {
      if (node.tagName === "DETAILS") node.open = true;
    }
    target.scrollIntoView({block: "center"});
  }

  function setUp() {
    document.querySelectorAll("a.xref").forEach((link) => {
      link.addEventListener("mouseenter", () => openCard(link));
      link.addEventListener("focus", () => openCard(link));
      link.addEventListener("mouseleave", closeCard);
      link.addEventListener("blur", closeCard);
    });
    openTarget();
  }

  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape") closeCard();
  });
  window.addEventListener("hashchange", openTarget);
  if (typeof document$ !== "undefined") {
    document$.subscribe(() => { closeCard(); setUp(); });
  } else {
    document.addEventListener("DOMContentLoaded", setUp);
  }
})();
