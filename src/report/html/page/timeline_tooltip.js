// The timeline's tooltip: what a step, a lane, a summary cell or an event is, in a few lines of
// HTML (an event: its class and lane, times, launch details or op shapes, its launch and queue
// delay, the critical path and the findings that mark it), and where the box goes so that it
// stays on the canvas.

function describeHit(h, m, D, findings) {
  if (h.step !== undefined) {
    const s = D.steps[h.step];
    return `<b>${escapeHtml(s[ST.NAME])}</b>${h.step === D.cold_step ? " — cold start" : ""}<br>` +
      `<span class=k>start</span> ${fmtOffset(s[ST.START])} · <span class=k>duration</span> ${fmtDur(s[ST.DURATION])}<br>` +
      `<span class=k>CPU</span> ${fmtDur(s[ST.CPU])} · <span class=k>sync wait</span> ${fmtDur(s[ST.SYNC_WAIT])} · ` +
      `<span class=k>GPU busy</span> ${fmtDur(s[ST.GPU_BUSY])}<br><span class=k>kernels</span> ${fmtCount(s[ST.KERNELS])} · ` +
      `<span class=k>launches</span> ${fmtCount(s[ST.LAUNCHES])}`;
  }
  if (h.lane !== undefined) {
    const lane = m.lanes[h.lane];
    return `<b>${escapeHtml(lane.name)}</b><br>${lane.kind.toUpperCase()} lane · ${fmtCount(lane.count)} events embedded · ` +
      `${lane.rows} rows` + (lane.rows > COLLAPSED_ROWS ? ` (click to ${lane.expanded ? "show fewer" : "show all"})` : "") +
      (lane.deep > 0 ? `<br>${fmtCount(lane.deep)} events nested deeper than ${SCHEMA.MAX_LANE_ROWS} levels share its last row, flattened` : "");
  }
  if (h.overview) {
    const { ov, j } = h.overview;
    return `<b>${fmtCount(ov.count[j])} events</b> summarised here (${ov.pct[j]} % busy), mostly ` +
      `${escapeHtml(m.classLabel[ov.cls[j]])}<br>This trace is large: the page holds every event only in the ` +
      `windows marked green under the axis; elsewhere it draws a summary.`;
  }
  return describeEvent(h.event, m, findings);
}

function describeEvent(e, m, findings) {
  const out = [];
  out.push(`<b>${escapeHtml(m.nameOf(e))}</b>`);
  out.push(`${escapeHtml(m.classLabel[m.cls[e]])} · ${escapeHtml(m.lanes[m.lane[e]].name)}`);
  out.push(`<span class=k>start</span> ${fmtOffset(m.start[e])} · <span class=k>duration</span> ${fmtDur(m.dur[e])}`);
  const d = m.detail[e];
  if (d > 0) {
    const g = m.gpuDetails[d - 1], parts = [];
    if (g[GD.GRID_X] >= 0) parts.push(`<span class=k>grid</span> [${g.slice(GD.GRID_X, GD.GRID_Z + 1).join(", ")}] <span class=k>block</span> [${g.slice(GD.BLOCK_X, GD.BLOCK_Z + 1).join(", ")}]`);
    if (g[GD.REGISTERS] >= 0) parts.push(`<span class=k>registers</span> ${g[GD.REGISTERS]}`);
    if (g[GD.SHARED_MEMORY] >= 0) parts.push(`<span class=k>shared memory</span> ${fmtBytes(g[GD.SHARED_MEMORY])}`);
    if (g[GD.BYTES] >= 0) parts.push(`<span class=k>bytes</span> ${fmtBytes(g[GD.BYTES])}` +
      (m.dur[e] > 0 ? ` (${sig3(g[GD.BYTES] / m.dur[e])} GB/s)` : ""));
    if (parts.length) out.push(parts.join(" · "));
  } else if (d < 0) {
    const [dims, types] = m.shapes[-d - 1];
    if (dims >= 0) out.push(`<span class=k>Input Dims</span> ${escapeHtml(m.strings[dims])}`);
    if (types >= 0) out.push(`<span class=k>Input type</span> ${escapeHtml(m.strings[types])}`);
  }
  const launch = m.launchOf[e];
  if (launch >= 0)
    out.push(`<span class=k>launched by</span> ${escapeHtml(m.nameOf(launch))} at ${fmtOffset(m.start[launch])}: ` +
      `<b>queued ${fmtDur(m.start[e] - m.start[launch])}</b> before it started`);
  const gpu = m.firstLaunched[e];
  if (gpu >= 0)
    out.push(`<span class=k>launches</span> ${escapeHtml(shortLabel(m.nameOf(gpu)))}, which starts ` +
      `${fmtDur(m.start[gpu] - m.start[e])} later`);
  if (m.onPath[e]) out.push(`<span class=k>on the critical path</span> of ${escapeHtml(m.path.name)}`);
  for (const f of findings) {
    if (f.mark.includes(e)) out.push(`<span class=k>finding</span> ${escapeHtml(f.id)}`);
    else if (f.cover.includes(e)) out.push(`<span class=k>finding</span> ${escapeHtml(f.id)}: ran while the CPU waited`);
  }
  return out.join("<br>");
}

// Shows `html` next to the mouse at (px, py), inside a canvas of width w and height h.
function placeTooltip(tip, html, px, py, w, h) {
  tip.innerHTML = html;
  tip.hidden = false;
  const tw = tip.offsetWidth, th = tip.offsetHeight;
  tip.style.left = Math.max(0, Math.min(px + 14, w - tw - 4)) + "px";
  tip.style.top = (py + 18 + th > h ? Math.max(0, py - th - 10) : py + 18) + "px";
}
