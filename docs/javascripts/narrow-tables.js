// Tables of prose (the claims ledger, the errata index, ...) become stacked cards on a narrow
// screen: each row a card, each cell under its column's name. A table qualifies when it has
// at least three columns and one of them holds prose (PROSE_CHARS characters a cell on
// average), so tables of numbers keep their columns and scroll sideways as before. The CSS is in
// stylesheets/reader.css (table.stack-narrow). Works after instant navigation (document$).
(function () {
  "use strict";
  const PROSE_CHARS = 40;
  const MIN_COLUMNS = 3;

  function isProseTable(table) {
    const columns = table.querySelectorAll("thead th").length;
    const rows = Array.from(table.querySelectorAll("tbody tr"));
    if (columns < MIN_COLUMNS || rows.length === 0) return false;
    for (let i = 0; i < columns; i++) {
      const chars = rows.reduce((sum, tr) => {
        const td = tr.children[i];
        return sum + (td ? td.textContent.trim().length : 0);
      }, 0);
      if (chars / rows.length >= PROSE_CHARS) return true;
    }
    return false;
  }

  function stack(table) {
    const names = Array.from(table.querySelectorAll("thead th")).map((th) => th.textContent.trim());
    table.querySelectorAll("tbody tr").forEach((tr) => {
      Array.from(tr.children).forEach((td, i) => {
        if (names[i]) td.dataset.label = names[i];
      });
    });
    table.classList.add("stack-narrow");
  }

  function setUp() {
    document.querySelectorAll(".md-typeset table").forEach((table) => {
      if (!table.classList.contains("stack-narrow") && isProseTable(table)) stack(table);
    });
  }

  window.NarrowTables = { isProseTable };
  if (typeof document$ !== "undefined") {
    document$.subscribe(setUp); // eslint-disable-line no-undef
  } else if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", setUp);
  } else {
    setUp();
  }
})();
