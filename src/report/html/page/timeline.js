// The timeline: one lane per CPU thread and GPU stream on a canvas, nested rows for nested
// events. Only what a screen can show is drawn: in each row, events narrower than a pixel that
// fall on the same pixel are merged into one rectangle, and events the page does not hold one by
// one (large traces) are drawn from per-pixel summaries. The findings are drawn on top: shaded
// spans (the cold-start step), outlined events, the GPU work that ran during a wait, queue delays.
// Zoom and pan as in Perfetto: W/S and A/D (held), Ctrl+wheel, Shift+wheel, drag.

const ROW_H = 16, LANE_PAD = 6, AXIS_H = 22, STEPS_H = 18, LABEL_W = 190;
const HEADER_H = AXIS_H + STEPS_H;
const MIN_SPAN_NS = 50;          // the deepest zoom: 50 ns across the screen
const MAX_FLOWS_DRAWN = 300;     // more launch arrows than this in view is a smear: show the selected one's
// Lanes start with at most this many rows (deep compile or Python stacks would push the GPU lanes
// off the screen); a click on the lane's name shows the rest.
const COLLAPSED_ROWS = 10;

function niceStep(raw) {
  const p = Math.pow(10, Math.floor(Math.log10(raw)));
  for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}

// Dark text on light classes, white on dark ones.
function textColorFor(hex) {
  const v = parseInt(hex.slice(1), 16);
  const lum = 0.299 * (v >> 16) + 0.587 * ((v >> 8) & 255) + 0.114 * (v & 255);
  return lum > 150 ? "#1d2127" : "#ffffff";
}

// options: { suffix: names the data-* counters of this timeline when a page has several ("A", "B"),
//            onView: called after the view changes (the comparison page links its two timelines) }
class Timeline {
  constructor(root, model, D, onSelect, options = {}) {
    Timeline.all.push(this);
    this.root = root;
    this.options = options;
    this.canvas = root.querySelector("canvas");
    this.tip = root.querySelector(".tooltip");
    this.ctx = this.canvas.getContext("2d");
    this.m = model;
    this.D = D;
    this.findings = D.findings;
    this.onSelect = onSelect;
    this.windowNs = Math.max(D.meta.window_ns, 1);
    this.v0 = 0;
    this.v1 = this.windowNs;
    this.scrollY = 0;
    this.selected = -1;
    this.activeFinding = -1;
    this.mouse = null;
    this.keys = new Set();
    this.stats = {};
    this.classText = model.classColor.map(textColorFor);
    this.labelCache = new Map();
    this.layout();
    this.listen();
    this.resize();
  }

  layout() {
    this.laneTop = [];
    let y = 0;
    for (const lane of this.m.lanes) {
      this.laneTop.push(y);
      y += this.laneHeight(lane);
    }
    this.lanesHeight = y;
  }
  shownRows(lane) { return lane.expanded ? lane.rows : Math.min(lane.rows, COLLAPSED_ROWS); }
  laneHeight(lane) { return this.shownRows(lane) * ROW_H + LANE_PAD; }
  toggleLane(li) {
    const lane = this.m.lanes[li];
    if (lane.rows <= COLLAPSED_ROWS) return;
    lane.expanded = !lane.expanded;
    this.layout();
    this.resize();
  }

  resize() {
    const dpr = window.devicePixelRatio || 1;
    this.w = Math.max(400, this.root.clientWidth || 800);
    const maxH = Math.max(320, Math.round(window.innerHeight * 0.72));
    this.h = Math.min(maxH, Math.max(160, HEADER_H + this.lanesHeight + 2));
    this.canvas.width = Math.round(this.w * dpr);
    this.canvas.height = Math.round(this.h * dpr);
    this.canvas.style.height = this.h + "px";
    this.ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    this.clampScroll();
    this.draw();
  }

  // ---- coordinates ----
  get scale() { return (this.w - LABEL_W) / (this.v1 - this.v0); }
  x(t) { return LABEL_W + (t - this.v0) * this.scale; }
  t(x) { return this.v0 + (x - LABEL_W) / this.scale; }
  laneY(li) { return HEADER_H + this.laneTop[li] - this.scrollY; }
  // Events in rows of a collapsed lane that are not shown sit on its last shown row (for arrows).
  eventY(e) {
    const lane = this.m.lanes[this.m.lane[e]];
    return this.laneY(this.m.lane[e]) + LANE_PAD / 2 + Math.min(this.m.row[e], this.shownRows(lane) - 1) * ROW_H;
  }
  shown(e) { return this.m.row[e] < this.shownRows(this.m.lanes[this.m.lane[e]]); }

  // `silent`: do not tell options.onView (a linked timeline following this one).
  setView(v0, v1, silent) {
    let span = Math.max(MIN_SPAN_NS, Math.min(v1 - v0, this.windowNs * 1.2));
    const mid = (v0 + v1) / 2;
    v0 = mid - span / 2;
    const slack = this.windowNs * 0.1;
    v0 = Math.max(-slack, Math.min(v0, this.windowNs + slack - span));
    this.v0 = v0;
    this.v1 = v0 + span;
    this.requestDraw();
    if (!silent && this.options.onView) this.options.onView(this);
  }
  zoomAt(factor, xPix) {
    const at = this.t(xPix);
    this.setView(at - (at - this.v0) * factor, at + (this.v1 - at) * factor);
  }
  panBy(ns) { this.setView(this.v0 + ns, this.v1 + ns); }
  clampScroll() {
    const room = this.h - HEADER_H;
    this.scrollY = Math.max(0, Math.min(this.scrollY, this.lanesHeight - room));
  }
  // Shows [a, b] with a margin, and scrolls the lanes so that event `e` (if any) is in view.
  focus(a, b, e) {
    const pad = Math.max((b - a) * 0.15, MIN_SPAN_NS);
    this.setView(a - pad, b + pad);
    if (e !== undefined && e >= 0) {
      if (!this.shown(e)) this.toggleLane(this.m.lane[e]);
      const y = this.laneTop[this.m.lane[e]];
      const room = this.h - HEADER_H;
      if (y < this.scrollY || y + ROW_H * 2 > this.scrollY + room) this.scrollY = Math.max(0, y - 8);
      this.clampScroll();
    }
    this.requestDraw();
  }
  reset() { this.setView(0, this.windowNs); }

  select(e) {
    this.selected = e;
    this.onSelect(e);
    this.requestDraw();
  }
  setActiveFinding(i) {
    this.activeFinding = i;
    this.requestDraw();
  }

  requestDraw() {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => { this.pending = false; this.draw(); });
  }

  // ---- drawing ----
  draw() {
    const ctx = this.ctx, W = this.w, H = this.h;
    const stats = { kernelRects: 0, kernelsShown: 0, rects: 0, merged: 0 };
    ctx.clearRect(0, 0, W, H);
    ctx.font = "11px system-ui, sans-serif";
    ctx.textBaseline = "middle";
    if (!this.charW) this.charW = ctx.measureText("abcdefghijklmnopqrstuvwxyz_0123456789").width / 37;

    ctx.save();
    ctx.beginPath();
    ctx.rect(LABEL_W, HEADER_H, W - LABEL_W, H - HEADER_H);
    ctx.clip();
    this.drawLaneBackgrounds();
    this.drawGrid();
    this.drawShades();
    this.m.lanes.forEach((lane, li) => {
      const y = this.laneY(li);
      if (y > H || y + this.laneHeight(lane) < HEADER_H) return;
      for (let r = 0; r < this.shownRows(lane); ++r) this.drawRow(lane, r, y + LANE_PAD / 2 + r * ROW_H, stats);
    });
    this.drawMarks();
    this.drawFlows();
    if (this.selected >= 0) this.outline(this.selected, "#1d2127", 2.5, []);
    ctx.restore();

    this.drawGutter();
    this.drawHeader();
    this.stats = stats;
    const ds = document.body.dataset, suffix = this.options.suffix || "";
    ds["kernelRects" + suffix] = stats.kernelRects;
    ds["kernelsShown" + suffix] = stats.kernelsShown;
    ds["rects" + suffix] = stats.rects;
    ds["mergedRects" + suffix] = stats.merged;
  }

  drawLaneBackgrounds() {
    const ctx = this.ctx;
    this.m.lanes.forEach((lane, li) => {
      const y = this.laneY(li), h = this.laneHeight(lane);
      ctx.fillStyle = lane.kind === "gpu" ? (li % 2 ? "#f4f8f3" : "#eef5ec") : (li % 2 ? "#f7f8fa" : "#ffffff");
      ctx.fillRect(LABEL_W, y, this.w - LABEL_W, h);
      ctx.fillStyle = "#d9dde3";
      ctx.fillRect(LABEL_W, y + h - 1, this.w - LABEL_W, 1);
    });
  }

  tickStep() { return niceStep((this.v1 - this.v0) * 110 / (this.w - LABEL_W)); }

  drawGrid() {
    const ctx = this.ctx, step = this.tickStep();
    ctx.fillStyle = "#e9ecf0";
    for (let t = Math.ceil(this.v0 / step) * step; t <= this.v1; t += step) ctx.fillRect(Math.round(this.x(t)), HEADER_H, 1, this.h);
  }

  drawShades() {
    const ctx = this.ctx;
    this.findings.forEach((f, fi) => {
      const active = fi === this.activeFinding;
      for (const [a, b] of f.shade) {
        const xa = this.x(a), xb = this.x(b);
        if (xb < LABEL_W || xa > this.w) continue;
        ctx.globalAlpha = active ? 0.16 : f.shade_strong ? 0.10 : 0.05;
        ctx.fillStyle = SEVERITY_COLORS[f.severity];
        ctx.fillRect(xa, HEADER_H, Math.max(1, xb - xa), this.h);
      }
      // Waits: a band across the GPU lanes, so the GPU work that ran meanwhile stands out.
      if (f.marks_are_waits) {
        ctx.globalAlpha = active ? 0.16 : 0.08;
        ctx.fillStyle = SEVERITY_COLORS.warning;
        for (const e of f.mark) {
          const xa = this.x(this.m.start[e]), xb = this.x(this.m.end(e));
          if (xb < LABEL_W || xa > this.w) continue;
          this.m.lanes.forEach((lane, li) => {
            if (lane.kind !== "gpu") return;
            ctx.fillRect(xa, this.laneY(li), Math.max(1, xb - xa), this.laneHeight(lane));
          });
        }
      }
      ctx.globalAlpha = 1;
    });
  }

  drawRow(lane, r, y, stats) {
    const m = this.m, ctx = this.ctx, v0 = this.v0, v1 = this.v1, scale = this.scale;
    // Events not embedded: their per-pixel summary, paler than real events.
    const ov = lane.overview[r];
    if (ov.bucket.length) {
      const b = m.bucketNs;
      for (let j = lowerBound(ov.bucket, Math.floor(v0 / b)); j < ov.bucket.length && ov.bucket[j] * b <= v1; ++j) {
        const xa = this.x(ov.bucket[j] * b), xb = this.x((ov.bucket[j] + 1) * b);
        ctx.globalAlpha = 0.2 + 0.45 * ov.pct[j] / 100;
        ctx.fillStyle = m.classColor[ov.cls[j]];
        ctx.fillRect(xa, y + 3, Math.max(1, xb - xa), ROW_H - 6);
      }
      ctx.globalAlpha = 1;
    }
    const idx = lane.rowEvents[r];
    if (!idx.length) return;
    // A run of sub-pixel events sharing pixels, drawn as one rectangle when it ends.
    let n = 0, kernels = 0, x0 = 0, x1 = 0, longest = -1, rep = -1;
    const flush = () => {
      if (n === 1) this.drawEvent(rep, x0, x1, y, stats);
      else if (n > 1) {
        ctx.fillStyle = m.classColor[m.cls[rep]];
        ctx.globalAlpha = 0.8;
        ctx.fillRect(x0, y + 1, Math.max(1, x1 - x0), ROW_H - 2);
        ctx.globalAlpha = 1;
        stats.merged++;
        stats.kernelsShown += kernels;
      }
      n = 0;
    };
    for (let k = lowerBound(lane.rowMaxEnd[r], v0); k < idx.length; ++k) {
      const e = idx[k], s = m.start[e];
      if (s > v1) break;
      const end = s + m.dur[e];
      if (end < v0) continue;
      const xa = LABEL_W + (s - v0) * scale, xb = LABEL_W + (end - v0) * scale;
      if (xb - xa >= 1) {
        flush();
        this.drawEvent(e, xa, xb, y, stats);
      } else if (n > 0 && xa <= x1 + 1) {
        x1 = Math.max(x1, xb);
        ++n;
        if (m.isKernel(e)) ++kernels;
        if (m.dur[e] > longest) { longest = m.dur[e]; rep = e; }
      } else {
        flush();
        n = 1; x0 = xa; x1 = Math.max(xb, xa + 1); longest = m.dur[e]; rep = e;
        kernels = m.isKernel(e) ? 1 : 0;
      }
    }
    flush();
  }

  drawEvent(e, xa, xb, y, stats) {
    const m = this.m, ctx = this.ctx;
    const a = Math.max(xa, LABEL_W - 2), b = Math.min(xb, this.w + 2), w = Math.max(1, b - a);
    ctx.fillStyle = m.classColor[m.cls[e]];
    ctx.fillRect(a, y + 1, w, ROW_H - 2);
    stats.rects++;
    if (m.isKernel(e)) { stats.kernelRects++; stats.kernelsShown++; }
    if (w < 28) return;
    const max = Math.floor((w - 6) / this.charW);
    let label = this.label(m.name[e]);
    if (label.length > max) label = label.slice(0, Math.max(1, max - 1)) + "…";
    ctx.fillStyle = this.classText[m.cls[e]];
    ctx.fillText(label, a + 3, y + ROW_H / 2);
  }

  label(nameId) {
    let s = this.labelCache.get(nameId);
    if (s === undefined) {
      s = shortLabel(this.m.strings[nameId] || "");
      this.labelCache.set(nameId, s);
    }
    return s;
  }

  outline(e, color, width, dash) {
    if (!this.shown(e)) return;
    const xa = this.x(this.m.start[e]), xb = this.x(this.m.end(e));
    if (xb < LABEL_W - 4 || xa > this.w + 4) return;
    const ctx = this.ctx;
    ctx.strokeStyle = color;
    ctx.lineWidth = width;
    ctx.setLineDash(dash);
    ctx.strokeRect(xa - 1, this.eventY(e) + 0.5, Math.max(2, xb - xa) + 2, ROW_H - 1);
    ctx.setLineDash([]);
  }

  drawMarks() {
    this.findings.forEach((f, fi) => {
      const active = fi === this.activeFinding, color = SEVERITY_COLORS[f.severity];
      if (this.activeFinding >= 0 && !active && f.mark.length > 200) return;  // keep the active one readable
      for (const e of f.mark) this.outline(e, color, active ? 2.5 : 1.5, []);
      // Covered GPU work narrower than a few pixels is left to the wait's band: outlines would hide it.
      for (const e of f.cover)
        if (this.m.dur[e] * this.scale >= 4) this.outline(e, SEVERITY_COLORS.warning, active ? 2 : 1.2, [3, 2]);
      for (let i = 0; i + 1 < f.queue.length; i += 2) this.drawQueue(f.queue[i], f.queue[i + 1], color, active);
    });
  }

  // The queue delay: a bracket on the GPU lane from the launch call's start to the work's start.
  drawQueue(launch, gpu, color, active) {
    const m = this.m, ctx = this.ctx;
    const xa = this.x(m.start[launch]), xb = this.x(m.start[gpu]);
    if (xb < LABEL_W || xa > this.w || xb - xa < 2) return;
    const y = this.eventY(gpu) + ROW_H / 2;
    ctx.strokeStyle = color;
    ctx.lineWidth = active ? 2 : 1.2;
    ctx.setLineDash([4, 3]);
    ctx.beginPath();
    ctx.moveTo(xa, y); ctx.lineTo(xb, y);
    ctx.moveTo(xa, y - 5); ctx.lineTo(xa, y + 5);
    ctx.stroke();
    ctx.setLineDash([]);
    ctx.beginPath();
    ctx.moveTo(xb, y); ctx.lineTo(xb - 6, y - 4); ctx.lineTo(xb - 6, y + 4); ctx.closePath();
    ctx.fillStyle = color;
    ctx.fill();
    if (xb - xa > 90) {
      ctx.fillStyle = color;
      ctx.fillText("queued " + fmtDur(m.start[gpu] - m.start[launch]), Math.max(xa, LABEL_W) + 4, y - 7);
    }
  }

  drawFlows() {
    const m = this.m, f = m.flows, v0 = this.v0, v1 = this.v1;
    const pairs = [];
    let visible = 0;
    for (let i = 0; i + 1 < f.length; i += 2) {
      const a = m.start[f[i]], b = m.start[f[i + 1]];
      if (b < v0 || a > v1) continue;
      if (++visible <= MAX_FLOWS_DRAWN) pairs.push(i);
    }
    if (visible > MAX_FLOWS_DRAWN) pairs.length = 0;
    if (this.selected >= 0) {
      for (let i = 0; i + 1 < f.length; i += 2) if (f[i] === this.selected || f[i + 1] === this.selected) pairs.push(i);
    }
    const ctx = this.ctx;
    ctx.strokeStyle = "#3b4350";
    ctx.fillStyle = "#3b4350";
    ctx.lineWidth = 1;
    for (const i of pairs) {
      const from = f[i], to = f[i + 1];
      const xa = this.x(m.start[from]), ya = this.eventY(from) + ROW_H - 2;
      const xb = this.x(m.start[to]), yb = this.eventY(to) + 1;
      const dy = (yb - ya) / 2;
      ctx.globalAlpha = from === this.selected || to === this.selected ? 1 : 0.55;
      ctx.beginPath();
      ctx.moveTo(xa, ya);
      ctx.bezierCurveTo(xa, ya + dy, xb, yb - dy, xb, yb);
      ctx.stroke();
      ctx.beginPath();
      ctx.moveTo(xb, yb); ctx.lineTo(xb - 3, yb - 6); ctx.lineTo(xb + 3, yb - 6); ctx.closePath();
      ctx.fill();
    }
    ctx.globalAlpha = 1;
  }

  drawGutter() {
    const ctx = this.ctx;
    ctx.save();
    ctx.beginPath();
    ctx.rect(0, HEADER_H, LABEL_W, this.h - HEADER_H);
    ctx.clip();
    ctx.fillStyle = "#f5f7f9";
    ctx.fillRect(0, HEADER_H, LABEL_W, this.h);
    ctx.font = "12px system-ui, sans-serif";
    this.m.lanes.forEach((lane, li) => {
      const y = this.laneY(li);
      const h = this.laneHeight(lane);
      if (y > this.h || y + h < HEADER_H) return;
      ctx.fillStyle = lane.kind === "gpu" ? "#2e9e44" : lane.kind === "cpu" ? "#4e79a7" : "#8a8f96";
      ctx.fillRect(0, y, 3, h - 1);
      ctx.fillStyle = "#1d2127";
      let text = lane.kind === "gpu" && !/^GPU/i.test(lane.name) ? "GPU " + lane.name : lane.name;
      const max = Math.floor((LABEL_W - 14) / (this.charW * 1.08));
      if (text.length > max) text = text.slice(0, max - 1) + "…";
      ctx.fillText(text, 8, y + LANE_PAD / 2 + ROW_H / 2);
      if (lane.rows > COLLAPSED_ROWS) {
        ctx.fillStyle = "#1f6fb2";
        ctx.fillText(lane.expanded ? "▾ show fewer rows" : `▸ ${lane.rows - COLLAPSED_ROWS} more rows`, 8, y + LANE_PAD / 2 + ROW_H * 1.5);
      }
      ctx.fillStyle = "#d9dde3";
      ctx.fillRect(0, y + h - 1, LABEL_W, 1);
    });
    ctx.fillStyle = "#c9ced6";
    ctx.fillRect(LABEL_W - 1, HEADER_H, 1, this.h);
    ctx.restore();
  }

  drawHeader() {
    const ctx = this.ctx, W = this.w;
    ctx.fillStyle = "#f5f7f9";
    ctx.fillRect(0, 0, W, HEADER_H);
    ctx.fillStyle = "#c9ced6";
    ctx.fillRect(0, HEADER_H - 1, W, 1);
    ctx.fillRect(0, AXIS_H - 1, W, 1);
    ctx.save();
    ctx.beginPath();
    ctx.rect(LABEL_W, 0, W - LABEL_W, HEADER_H);
    ctx.clip();
    // Axis: offsets from the trace window's start.
    const step = this.tickStep();
    ctx.fillStyle = "#5f6873";
    ctx.font = "11px system-ui, sans-serif";
    for (let t = Math.ceil(this.v0 / step) * step; t <= this.v1; t += step) {
      const x = Math.round(this.x(t));
      ctx.fillRect(x, AXIS_H - 6, 1, 5);
      ctx.fillText(fmtOffset(t, step), x + 3, AXIS_H / 2 - 2);
    }
    // Where the page holds every event (large traces): a green line under the axis.
    if (!this.D.meta.complete) {
      ctx.fillStyle = "#2e9e44";
      for (const [a, b] of this.D.windows) ctx.fillRect(this.x(a), AXIS_H - 3, Math.max(2, this.x(b) - this.x(a)), 3);
    }
    // Steps.
    const cold = this.D.cold_step;
    this.D.steps.forEach((s, i) => {
      const xa = this.x(s[ST.START]), xb = this.x(s[ST.START] + s[ST.DURATION]);
      if (xb < LABEL_W || xa > W) return;
      ctx.fillStyle = i === cold ? "#f0b3b3" : i % 2 ? "#d5dde8" : "#c5d0de";
      ctx.fillRect(xa, AXIS_H + 1, Math.max(1, xb - xa - 1), STEPS_H - 3);
      const label = xb - xa > 110 ? s[ST.NAME] + (i === cold ? " (cold start)" : "") : xb - xa > 34 ? "#" + s[ST.NAME].replace(/^\D*/, "") : "";
      if (label) {
        ctx.fillStyle = i === cold ? "#8e1b1b" : "#34404f";
        ctx.fillText(label, Math.max(xa, LABEL_W) + 3, AXIS_H + STEPS_H / 2);
      }
    });
    ctx.restore();
    ctx.fillStyle = "#5f6873";
    ctx.font = "11px system-ui, sans-serif";
    ctx.fillText(fmtDur(this.v1 - this.v0) + " shown", 8, AXIS_H / 2);
    ctx.fillText(this.D.steps.length ? "steps" : "", 8, AXIS_H + STEPS_H / 2);
  }

  // ---- what is under the mouse ----
  hit(px, py) {
    if (py < AXIS_H) return null;
    const t = this.t(px);
    if (py < HEADER_H) {
      if (px < LABEL_W) return null;
      const i = this.D.steps.findIndex(s => t >= s[ST.START] && t <= s[ST.START] + s[ST.DURATION]);
      return i >= 0 ? { step: i } : null;
    }
    const li = this.m.lanes.findIndex((lane, i) => py >= this.laneY(i) && py < this.laneY(i) + this.laneHeight(lane));
    if (li < 0) return null;
    if (px < LABEL_W) return { lane: li };
    const lane = this.m.lanes[li];
    const r = Math.floor((py - this.laneY(li) - LANE_PAD / 2) / ROW_H);
    if (r < 0 || r >= this.shownRows(lane)) return null;
    const tol = 3 / this.scale, m = this.m, idx = lane.rowEvents[r];
    let best = -1, bestDist = Infinity;
    for (let k = lowerBound(lane.rowMaxEnd[r], t - tol); k < idx.length; ++k) {
      const e = idx[k];
      if (m.start[e] > t + tol) break;
      const dist = t < m.start[e] ? m.start[e] - t : t > m.end(e) ? t - m.end(e) : 0;
      if (dist <= tol && (dist < bestDist || (dist === bestDist && m.dur[e] < m.dur[best]))) { best = e; bestDist = dist; }
    }
    if (best >= 0) return { event: best };
    const ov = lane.overview[r], k = Math.floor(t / m.bucketNs), j = lowerBound(ov.bucket, k);
    if (j < ov.bucket.length && ov.bucket[j] === k) return { overview: { lane: li, j, ov } };
    return null;
  }

  describe(h) {
    const m = this.m;
    if (h.step !== undefined) {
      const s = this.D.steps[h.step];
      return `<b>${escapeHtml(s[ST.NAME])}</b>${h.step === this.D.cold_step ? " — cold start" : ""}<br>` +
        `<span class=k>start</span> ${fmtOffset(s[ST.START])} · <span class=k>duration</span> ${fmtDur(s[ST.DURATION])}<br>` +
        `<span class=k>CPU</span> ${fmtDur(s[ST.CPU])} · <span class=k>sync wait</span> ${fmtDur(s[ST.SYNC_WAIT])} · ` +
        `<span class=k>GPU busy</span> ${fmtDur(s[ST.GPU_BUSY])}<br><span class=k>kernels</span> ${fmtCount(s[ST.KERNELS])} · ` +
        `<span class=k>launches</span> ${fmtCount(s[ST.LAUNCHES])}`;
    }
    if (h.lane !== undefined) {
      const lane = m.lanes[h.lane];
      return `<b>${escapeHtml(lane.name)}</b><br>${lane.kind.toUpperCase()} lane · ${fmtCount(lane.count)} events embedded · ` +
        `${lane.rows} rows` + (lane.rows > COLLAPSED_ROWS ? ` (click to ${lane.expanded ? "show fewer" : "show all"})` : "");
    }
    if (h.overview) {
      const { ov, j } = h.overview;
      return `<b>${fmtCount(ov.count[j])} events</b> summarised here (${ov.pct[j]} % busy), mostly ` +
        `${escapeHtml(m.classLabel[ov.cls[j]])}<br>This trace is large: the page holds every event only in the ` +
        `windows marked green under the axis; elsewhere it draws a summary.`;
    }
    return this.describeEvent(h.event);
  }

  describeEvent(e) {
    const m = this.m, out = [];
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
    for (const f of this.findings) {
      if (f.mark.includes(e)) out.push(`<span class=k>finding</span> ${escapeHtml(f.id)}`);
      else if (f.cover.includes(e)) out.push(`<span class=k>finding</span> ${escapeHtml(f.id)}: ran while the CPU waited`);
    }
    return out.join("<br>");
  }

  showTip(px, py) {
    const h = this.hit(px, py);
    if (!h) { this.tip.hidden = true; return; }
    this.tip.innerHTML = this.describe(h);
    this.tip.hidden = false;
    const w = this.tip.offsetWidth, hh = this.tip.offsetHeight;
    this.tip.style.left = Math.max(0, Math.min(px + 14, this.w - w - 4)) + "px";
    this.tip.style.top = (py + 18 + hh > this.h ? Math.max(0, py - hh - 10) : py + 18) + "px";
  }

  // ---- input ----
  listen() {
    const c = this.canvas;
    let drag = null;
    const pos = ev => {
      const r = c.getBoundingClientRect();
      return [ev.clientX - r.left, ev.clientY - r.top];
    };
    c.addEventListener("mousedown", ev => {
      const [px, py] = pos(ev);
      drag = { px, py, v0: this.v0, v1: this.v1, scrollY: this.scrollY, moved: false };
      this.root.focus({ preventScroll: true });
    });
    window.addEventListener("mousemove", ev => {
      const [px, py] = pos(ev);
      this.mouse = ev.target === c || drag ? [px, py] : null;
      if (drag) {
        const dx = px - drag.px, dy = py - drag.py;
        if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
        if (drag.moved) {
          c.classList.add("dragging");
          const span = drag.v1 - drag.v0, shift = dx * span / (this.w - LABEL_W);
          this.setView(drag.v0 - shift, drag.v1 - shift);
          this.scrollY = drag.scrollY - dy;
          this.clampScroll();
          this.tip.hidden = true;
        }
      } else if (ev.target === c) {
        this.showTip(px, py);
      }
    });
    window.addEventListener("mouseup", ev => {
      if (!drag) return;
      c.classList.remove("dragging");
      if (!drag.moved && ev.target === c) {
        const h = this.hit(drag.px, drag.py);
        if (h && h.step !== undefined) this.focus(this.D.steps[h.step][ST.START], this.D.steps[h.step][ST.START] + this.D.steps[h.step][ST.DURATION]);
        else if (h && h.lane !== undefined) this.toggleLane(h.lane);
        else this.select(h && h.event !== undefined ? h.event : -1);
      }
      drag = null;
    });
    c.addEventListener("mouseleave", () => { this.tip.hidden = true; this.mouse = null; });
    c.addEventListener("dblclick", ev => {
      const h = this.hit(...pos(ev));
      if (h && h.event !== undefined) this.focus(this.m.start[h.event], this.m.end(h.event), h.event);
    });
    c.addEventListener("wheel", ev => {
      const [px] = pos(ev);
      if (ev.ctrlKey || ev.metaKey) {
        ev.preventDefault();
        this.zoomAt(Math.exp(ev.deltaY * 0.0025), Math.max(px, LABEL_W));
      } else if (ev.shiftKey || Math.abs(ev.deltaX) > Math.abs(ev.deltaY)) {
        ev.preventDefault();
        const d = ev.shiftKey && ev.deltaX === 0 ? ev.deltaY : ev.deltaX;
        this.panBy(d * (this.v1 - this.v0) / (this.w - LABEL_W));
      } else {
        const before = this.scrollY;
        this.scrollY += ev.deltaY;
        this.clampScroll();
        if (this.scrollY !== before) { ev.preventDefault(); this.requestDraw(); }  // else the page scrolls
      }
      this.tip.hidden = true;
    }, { passive: false });

    // W/S zoom and A/D pan while held, at a steady rate per millisecond like Perfetto.
    const held = ev => !ev.ctrlKey && !ev.metaKey && !ev.altKey && "wasd".includes(ev.key.toLowerCase()) && ev.key.length === 1;
    window.addEventListener("keydown", ev => {
      if (ev.target instanceof HTMLInputElement || ev.target instanceof HTMLTextAreaElement || !this.takesKeys()) return;
      if (held(ev)) {
        ev.preventDefault();
        if (ev.repeat) return;
        const first = this.keys.size === 0;
        this.keys.add(ev.key.toLowerCase());
        this.applyKeys(60);  // a tap moves at once; holding the key keeps moving, frame by frame
        if (first) { this.lastTick = performance.now(); requestAnimationFrame(() => this.tick()); }
      } else if (ev.key === "0") {
        this.reset();
      } else if (ev.key === "Escape") {
        this.select(-1);
      } else if (ev.key === "f" && this.selected >= 0) {
        this.focus(this.m.start[this.selected], this.m.end(this.selected), this.selected);
      }
    });
    window.addEventListener("keyup", ev => this.keys.delete(ev.key.toLowerCase()));
    window.addEventListener("blur", () => this.keys.clear());
    if (window.ResizeObserver) new ResizeObserver(() => { if (this.root.clientWidth !== this.w) this.resize(); }).observe(this.root);
  }

  // With several timelines on a page, keys go to the one under the mouse or holding the focus.
  takesKeys() {
    return Timeline.all.length === 1 || this.mouse !== null || this.root.contains(document.activeElement);
  }

  tick() {
    if (this.keys.size === 0) return;
    // performance.now(), not the frame's timestamp: that can be older than the key press.
    const now = performance.now(), dt = Math.max(0, Math.min(50, now - this.lastTick));
    this.lastTick = now;
    this.applyKeys(dt);
    requestAnimationFrame(() => this.tick());
  }

  applyKeys(dt) {
    const span = this.v1 - this.v0;
    const at = this.mouse && this.mouse[0] > LABEL_W ? this.mouse[0] : (LABEL_W + this.w) / 2;
    if (this.keys.has("w")) this.zoomAt(Math.exp(-0.004 * dt), at);
    if (this.keys.has("s")) this.zoomAt(Math.exp(0.004 * dt), at);
    if (this.keys.has("a")) this.panBy(-0.0015 * dt * span);
    if (this.keys.has("d")) this.panBy(0.0015 * dt * span);
  }
}
Timeline.all = [];
