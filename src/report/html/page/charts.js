// The charts below the timeline, as SVG: step durations with their CPU and GPU-busy times, and
// horizontal bars for GPU time by kernel and time by annotation. Every bar has a tooltip.

const CHART_W = 960;

// Steps: duration, CPU time and GPU busy time side by side (or overlaid when steps are many).
// A cold-start step hundreds of times longer than the rest would flatten a linear axis, so the
// axis turns logarithmic when the longest step is over 20× the median.
function stepChart(container, steps, coldStep, onPick) {
  if (!steps.length) {
    container.append(el("p", { class: "none" }, "This trace has no ProfilerStep#N annotations (torch.profiler's prof.step()), so no step chart."));
    return false;
  }
  const H = 250, L = 66, R = 12, T = 26, B = 30, n = steps.length;
  const values = steps.flatMap(s => [s[ST.DURATION], s[ST.CPU], s[ST.GPU_BUSY]]).filter(v => v > 0);
  const max = Math.max(1, ...values);
  const sorted = steps.map(s => s[ST.DURATION]).sort((a, b) => a - b), median = Math.max(1, sorted[sorted.length >> 1]);
  const log = max / median > 20;
  const lo = log ? Math.pow(10, Math.floor(Math.log10(Math.max(1, Math.min(...values))))) : 0;
  const plotH = H - T - B;
  const y = v => log
    ? T + plotH * (1 - (Math.log10(Math.max(v, lo)) - Math.log10(lo)) / (Math.log10(max) - Math.log10(lo) || 1))
    : T + plotH * (1 - v / max);
  const root = svg("svg", { viewBox: `0 0 ${CHART_W} ${H}`, role: "img", "aria-label": "step durations" });
  // Axis and grid.
  const ticks = [];
  if (log) for (let v = lo; v <= max * 1.0001; v *= 10) ticks.push(v);
  else { const step = niceStep(max / 4); for (let v = 0; v <= max * 1.0001; v += step) ticks.push(v); }
  for (const v of ticks) {
    root.append(svg("line", { class: "grid", x1: L, x2: CHART_W - R, y1: y(v), y2: y(v) }));
    root.append(svg("text", { x: L - 6, y: y(v) + 4, "text-anchor": "end", class: "muted" }, fmtDur(v)));
  }
  root.append(svg("line", { class: "axis", x1: L, x2: CHART_W - R, y1: T + plotH, y2: T + plotH }));
  const slot = (CHART_W - L - R) / n, side = slot >= 9;
  const series = [["step", "#b9c2cc", 2], ["CPU", "#4e79a7", 3], ["GPU busy", "#2e9e44", 5]];
  steps.forEach((s, i) => {
    const x0 = L + i * slot;
    const cold = i === coldStep;
    if (side) {
      const w = slot * 0.27;
      series.forEach(([, color, k], j) => {
        const c = j === 0 && cold ? "#e15759" : color;
        root.append(svg("rect", { x: x0 + slot * 0.08 + j * w, y: y(s[k]), width: Math.max(1, w - 1), height: Math.max(0, T + plotH - y(s[k])), fill: c }));
      });
    } else {
      root.append(svg("rect", { x: x0, y: y(s[ST.DURATION]), width: Math.max(0.5, slot * 0.9), height: Math.max(0, T + plotH - y(s[ST.DURATION])), fill: cold ? "#e15759" : "#b9c2cc" }));
      root.append(svg("rect", { x: x0 + slot * 0.2, y: y(s[ST.CPU]), width: Math.max(0.5, slot * 0.5), height: Math.max(0, T + plotH - y(s[ST.CPU])), fill: "#4e79a7" }));
      root.append(svg("rect", { x: x0, y: y(s[ST.GPU_BUSY]) - 1, width: Math.max(0.5, slot * 0.9), height: 2, fill: "#2e9e44" }));
    }
    const tip = `${s[ST.NAME]}${cold ? " (cold start)" : ""}\nduration ${fmtDur(s[ST.DURATION])}\nCPU ${fmtDur(s[ST.CPU])} · sync wait ${fmtDur(s[ST.SYNC_WAIT])}\n` +
      `GPU busy ${fmtDur(s[ST.GPU_BUSY])}\n${fmtCount(s[ST.KERNELS])} kernels, ${fmtCount(s[ST.LAUNCHES])} launches\nclick: show it on the timeline`;
    root.append(svg("rect", { class: "slot", x: x0, y: T, width: slot, height: plotH, onclick: () => onPick(i) }, svg("title", {}, tip)));
  });
  // Step labels, thinned out so they do not overlap.
  const every = Math.max(1, Math.ceil(46 / slot));
  for (let i = 0; i < n; i += every)
    root.append(svg("text", { x: L + (i + 0.5) * slot, y: H - B + 16, "text-anchor": "middle", class: "muted" }, "#" + steps[i][ST.NAME].replace(/^\D*/, "")));
  // Legend.
  series.forEach(([name, color], j) => {
    const x = CHART_W - R - 260 + j * 90;
    root.append(svg("rect", { x, y: 6, width: 10, height: 10, fill: color }));
    root.append(svg("text", { x: x + 14, y: 15 }, name));
  });
  if (coldStep >= 0) {
    root.append(svg("rect", { x: L, y: 6, width: 10, height: 10, fill: "#e15759" }));
    root.append(svg("text", { x: L + 14, y: 15 }, "cold-start step"));
  }
  container.append(root);
  return log;
}

// Memory over the trace (profile_memory=True): allocated and reserved bytes of the main allocator
// (each point the largest totals of its stretch, so no peak is lost), the steps' starts as lines,
// the largest step peak as a dot; a click anywhere shows that moment on the timeline, a click on
// the dot the op that made the largest tensor live there.
function memoryChart(container, M, steps, onPick) {
  const H = 220, L = 70, R = 12, T = 22, B = 26;
  const pts = M.points, end = Math.max(1, pts[pts.length - 1][0]);
  const max = 1.08 * Math.max(1, ...pts.map(p => Math.max(p[1], p[2])));  // headroom: a flat reserved line stays below the top
  const plotW = CHART_W - L - R, plotH = H - T - B;
  const x = ns => L + plotW * ns / end, y = b => T + plotH * (1 - b / max);
  const root = svg("svg", { viewBox: `0 0 ${CHART_W} ${H}`, role: "img", "aria-label": "memory over time" });
  const step = niceStep(max / 4);
  for (let v = 0; v <= max * 1.0001; v += step) {
    root.append(svg("line", { class: "grid", x1: L, x2: CHART_W - R, y1: y(v), y2: y(v) }));
    root.append(svg("text", { x: L - 6, y: y(v) + 4, "text-anchor": "end", class: "muted" }, fmtBytes(v)));
  }
  root.append(svg("line", { class: "axis", x1: L, x2: CHART_W - R, y1: T + plotH, y2: T + plotH }));
  for (const s of steps) {
    if (s[ST.START] > end) continue;
    root.append(svg("line", { class: "grid", x1: x(s[ST.START]), x2: x(s[ST.START]), y1: T, y2: T + plotH, "stroke-dasharray": "3 3" }));
    root.append(svg("text", { x: x(s[ST.START]) + 3, y: T + 10, class: "muted" }, "#" + s[ST.NAME].replace(/^\D*/, "")));
  }
  const line = (k, color, name) => {
    let d = "";
    pts.forEach(p => { if (p[k] >= 0) d += `${d ? "L" : "M"}${x(p[0]).toFixed(1)},${y(p[k]).toFixed(1)}`; });
    if (d) root.append(svg("path", { d, fill: "none", stroke: color, "stroke-width": 1.5 }, svg("title", {}, name)));
  };
  line(2, "#b9c2cc", "reserved by the caching allocator");
  line(1, "#4e79a7", "allocated by tensors");
  root.append(svg("rect", { class: "slot", x: L, y: T, width: plotW, height: plotH, "fill-opacity": 0,
                            onclick: ev => {
                              const box = root.getBoundingClientRect();
                              const ns = (ev.clientX - box.left) / box.width * CHART_W;
                              const at = Math.max(0, Math.min(end, (ns - L) / plotW * end));
                              onPick(Math.max(0, at - end / 100), at + end / 100);
                            } }, svg("title", {}, "click: show this moment on the timeline")));
  // Drawn last, over the click area.
  const [peakNs, peakBytes, opStart, opEnd] = M.peak;
  root.append(svg("circle", { cx: x(peakNs), cy: y(peakBytes), r: 5, fill: "#e15759", style: "cursor: pointer",
                              onclick: () => opStart >= 0 ? onPick(opStart, opEnd) : onPick(peakNs, peakNs + 1) },
                  svg("title", {}, `peak: ${fmtBytes(peakBytes)} allocated at +${fmtDur(peakNs)}\nclick: the op that made its largest tensor`)));
  [["allocated", "#4e79a7"], ["reserved", "#b9c2cc"], ["peak", "#e15759"]].forEach(([name, color], j) => {
    const lx = CHART_W - R - 270 + j * 90;
    root.append(svg("rect", { x: lx, y: 4, width: 10, height: 10, fill: color }));
    root.append(svg("text", { x: lx + 14, y: 13 }, name));
  });
  container.append(root);
}

// Horizontal bars: rows of {label, title, values: [one per series], text}.
function barChart(container, rows, series, emptyText) {
  if (!rows.length) {
    container.append(el("p", { class: "none" }, emptyText));
    return;
  }
  const labelW = 340, textW = 250, T = 24, barH = 11, rowH = 8 + barH * series.length;
  const H = T + rows.length * rowH + 6;
  const max = Math.max(1, ...rows.flatMap(r => r.values));
  const plotW = CHART_W - labelW - textW;
  const root = svg("svg", { viewBox: `0 0 ${CHART_W} ${H}`, role: "img" });
  series.forEach(([name, color], j) => {
    root.append(svg("rect", { x: labelW + j * 110, y: 6, width: 10, height: 10, fill: color }));
    root.append(svg("text", { x: labelW + j * 110 + 14, y: 15 }, name));
  });
  rows.forEach((r, i) => {
    const y0 = T + i * rowH;
    const g = svg("g", {}, svg("title", {}, r.title || r.label));
    g.append(svg("text", { x: labelW - 8, y: y0 + rowH / 2 + 3, "text-anchor": "end" }, r.label));
    let right = labelW;
    r.values.forEach((v, j) => {
      const w = Math.max(v > 0 ? 1 : 0, plotW * v / max);
      g.append(svg("rect", { x: labelW, y: y0 + 4 + j * barH, width: w, height: barH - 2, fill: series[j][1] }));
      right = Math.max(right, labelW + w);
    });
    g.append(svg("text", { x: right + 6, y: y0 + rowH / 2 + 3, class: "muted" }, r.text));
    root.append(g);
  });
  container.append(root);
}

// 51.2e12 → "51.2 T"
function fmtSi(v) {
  const units = [[1e15, "P"], [1e12, "T"], [1e9, "G"], [1e6, "M"], [1e3, "k"]];
  const [div, unit] = units.find(([d]) => v >= d) || [1, ""];
  return sig3(v / div) + " " + unit;
}

// The roofline: achieved FLOP/s against arithmetic intensity (FLOPs per byte of device memory),
// both logarithmic, under the GPU's roofs (memory bandwidth × intensity, then the peak rate of each
// precision the kernels use; dashed: measured with --peaks). One dot per modelled kernel, its area
// its share of the time, its colour what bounds it.
function rooflineChart(container, R) {
  if (!R || !R.points.length) return false;
  const H = 330, L = 78, Rm = 150, T = 16, B = 40;
  const pts = R.points, plotW = CHART_W - L - Rm, plotH = H - T - B;
  const precisions = [...new Set(pts.map(p => p[5]).filter(p => R.datasheet.flop_per_s[p]))];
  if (!precisions.length && R.datasheet.flop_per_s.fp32) precisions.push("fp32");
  const roofSets = [[R.datasheet, []], ...(R.measured ? [[R.measured, [5, 4]]] : [])];
  const peaks = roofSets.flatMap(([r]) => precisions.map(p => r.flop_per_s[p] || 0)).filter(v => v > 0);
  const bw = R.datasheet.bytes_per_s;
  const ridge = Math.max(...peaks) / bw;
  const xmin = Math.pow(10, Math.floor(Math.log10(Math.min(...pts.map(p => p[1])) / 2)));
  const xmax = Math.pow(10, Math.ceil(Math.log10(Math.max(ridge * 4, ...pts.map(p => p[1] * 2)))));
  const ymin = Math.pow(10, Math.floor(Math.log10(Math.min(...pts.map(p => p[2])) / 2)));
  const ymax = Math.pow(10, Math.ceil(Math.log10(Math.max(...peaks) * 1.5)));
  const X = v => L + plotW * (Math.log10(v) - Math.log10(xmin)) / (Math.log10(xmax) - Math.log10(xmin));
  const Y = v => T + plotH * (1 - (Math.log10(v) - Math.log10(ymin)) / (Math.log10(ymax) - Math.log10(ymin)));
  const root = svg("svg", { viewBox: `0 0 ${CHART_W} ${H}`, role: "img", "aria-label": "roofline" });
  for (let v = xmin; v <= xmax * 1.001; v *= 10) {
    root.append(svg("line", { class: "grid", x1: X(v), x2: X(v), y1: T, y2: T + plotH }));
    root.append(svg("text", { x: X(v), y: T + plotH + 14, "text-anchor": "middle", class: "muted" }, sig3(v)));
  }
  for (let v = ymin; v <= ymax * 1.001; v *= 10) {
    root.append(svg("line", { class: "grid", x1: L, x2: L + plotW, y1: Y(v), y2: Y(v) }));
    root.append(svg("text", { x: L - 6, y: Y(v) + 4, "text-anchor": "end", class: "muted" }, fmtSi(v) + "FLOP/s"));
  }
  root.append(svg("text", { x: L + plotW / 2, y: H - 6, "text-anchor": "middle", class: "muted" },
    "arithmetic intensity: FLOPs per byte of device memory"));
  for (const [roofs, dash] of roofSets) {
    const bwr = roofs.bytes_per_s || bw;
    for (const p of precisions) {
      const peak = roofs.flop_per_s[p];
      if (!peak) continue;
      const x0 = Math.max(xmin, ymin / bwr), knee = peak / bwr;
      root.append(svg("polyline", { points: `${X(x0)},${Y(bwr * x0)} ${X(knee)},${Y(peak)} ${X(xmax)},${Y(peak)}`,
        fill: "none", stroke: "#5f6873", "stroke-width": 1.5, "stroke-dasharray": dash.join(" ") }));
      root.append(svg("text", { x: X(xmax) + 4, y: Y(peak) + 4, class: "muted" },
        `${p} ${fmtSi(peak)}FLOP/s${dash.length ? " (measured)" : ""}`));
    }
    if (!dash.length) root.append(svg("text", { x: X(Math.max(xmin, ymin / bwr) * 3), y: Y(bwr * Math.max(xmin, ymin / bwr) * 3) - 6,
      class: "muted" }, `${fmtSi(bwr)}B/s`));
  }
  const colors = { compute: "#2e9e44", memory: "#4e79a7", latency: "#9aa3ad" };
  const maxNs = Math.max(...pts.map(p => p[3]));
  for (const [name, intensity, rate, ns, bound, precision, pct] of [...pts].sort((a, b) => b[3] - a[3])) {
    root.append(svg("circle", { cx: X(intensity), cy: Y(rate), r: 3 + 9 * Math.sqrt(ns / maxNs), fill: colors[bound] || "#bbb",
      "fill-opacity": 0.75, stroke: "#1d2127", "stroke-width": 0.5 },
      svg("title", {}, `${name}\n${sig3(intensity)} FLOP/byte · ${fmtSi(rate)}FLOP/s` +
        (pct === null ? "" : ` (${sig3(pct)} % of the ${precision} roof)`) + `\nbound: ${bound} · ${fmtDur(ns)} of GPU time`)));
  }
  Object.entries(colors).forEach(([bound, color], j) => {
    root.append(svg("circle", { cx: L + 10 + j * 110, cy: 8, r: 5, fill: color }));
    root.append(svg("text", { x: L + 20 + j * 110, y: 12 }, `${bound}-bound`));
  });
  container.append(root);
  return true;
}
