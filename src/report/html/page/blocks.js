// The blocks of the user's code (record_function, nn.Module, Python frames) as an indented tree
// with a bar per block (its share of the steps' CPU time, and of their GPU time); a click on a
// block zooms the timeline to its longest call.
function renderBlocks(D, timeline) {
  const box = document.getElementById("blocks"), note = document.getElementById("blocks-note");
  const B = SCHEMA.BLOCK, rows = D.blocks.rows;
  if (!rows.length) {
    note.textContent = "This trace has no blocks of your code: record it with with_stack=True, with_modules=True, " +
      "or wrap its parts in torch.profiler.record_function (see the no_annotations finding).";
    return;
  }
  note.textContent = `Share of the steps' ${fmtDur(D.blocks.cpu_ns)} of CPU time (purple) and ${fmtDur(D.blocks.gpu_ns)} ` +
    "of GPU work (green) under each block, child blocks included. Click a block to see its longest call on the timeline.";
  const pct = (x, whole) => whole > 0 ? Math.min(100, 100 * x / whole) : 0;
  rows.forEach((r, i) => {
    const cpu = pct(r[B.CPU], D.blocks.cpu_ns), gpu = pct(r[B.GPU], D.blocks.gpu_ns);
    const perCall = n => r[B.CALLS] ? sig3(n / r[B.CALLS]) : "–";
    const row = el("div", { class: "block-row", "data-block": i, title: r[B.NAME], style: `padding-left:${r[B.DEPTH] * 14}px` },
      el("span", { class: "block-bars" },
        el("span", { class: "bar cpu", style: `width:${cpu}%` }), el("span", { class: "bar gpu", style: `width:${gpu}%` })),
      el("code", { class: "block-name" }, r[B.NAME]),
      el("span", { class: "note" }, ` ${r[B.KIND]}${r[B.LOCATION] ? " · " + r[B.LOCATION] : ""} · ${fmtCount(r[B.CALLS])} calls · ` +
        `CPU ${fmtDur(r[B.CPU])} (${sig3(cpu)} %) · GPU ${fmtDur(r[B.GPU])} (${sig3(gpu)} %) · ` +
        `${perCall(r[B.KERNELS])} kernels, ${perCall(r[B.LAUNCHES])} launches a call`));
    row.addEventListener("click", () => {
      if (r[B.DURATION] <= 0) return;
      timeline.focus(r[B.START], r[B.START] + r[B.DURATION]);
      document.getElementById("timeline-section").scrollIntoView({ block: "start" });
    });
    box.append(row);
  });
}
