// Reads the data the page carries and draws it: the report of one trace, the comparison of two, or
// the page of one job's ranks.
(() => {
  const t0 = performance.now();
  try {
    const D = JSON.parse(document.getElementById("whyslow-data").textContent);
    if (D.diff) renderDiff(D, t0);
    else if (D.job) renderRanks(D, t0);
    else renderReport(D, t0);
  } catch (err) {
    document.body.prepend(el("p", { class: "warn" }, "whyslow: this report failed to draw: " + err));
    throw err;
  }
})();
