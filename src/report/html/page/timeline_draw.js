// Drawing the timeline on its canvas, from the model and the viewport: lane backgrounds, the
// time grid, one rectangle per event wider than a pixel (sub-pixel neighbours merged into one),
// per-pixel summaries of events the page does not hold one by one, the findings on top (shaded
// spans, outlined events, the GPU work that ran during a wait, queue delays), one steady step's
// critical path, launch arrows, the lane names and the axis with the steps. Text is never drawn
// over another event (timeline_labels.js), and no arrow over text.

const MAX_FLOWS_DRAWN = 300;     // more launch arrows than this in view is a smear: show the selected one's
const LABEL_INSET_PX = 3;        // an event's label starts and ends this far inside its rectangle
const MIN_LABEL_PX = 22;         // room for two letters and "…": less says nothing, so no label
const QUEUE_LABEL_PAD_PX = 4;    // the queue delay's words inside their white box, each side
const ARROW_HEAD_PX = 6;         // the queue bracket's arrow head, which its words keep clear of
const PATH_COLOR = "#e6007e";    // the critical path: a colour no event class or finding uses
const PATH_WIDTH_PX = 3;         // its line's width
const PATH_HALO_PX = 1;          // white each side of the line, so that it reads over any event
const MIN_PATH_OUTLINE_PX = 4;   // its events this wide or wider are outlined too: narrower ones would hide
const PATH_LAG_KINDS = new Set(["latency", "wait"]);  // an edge's lag (SCHEMA.PATH_KINDS): dashed

// Dark text on light classes, white on dark ones.
function textColorFor(hex) {
  const v = parseInt(hex.slice(1), 16);
  const lum = 0.299 * (v >> 16) + 0.587 * ((v >> 8) & 255) + 0.114 * (v & 255);
  return lum > 150 ? "#1d2127" : "#ffffff";
}

class TimelinePainter {
  constructor(ctx, model, view, D) {
    this.ctx = ctx;
    this.m = model;
    this.view = view;
    this.D = D;
    this.findings = D.findings;
    this.classText = model.classColor.map(textColorFor);
    this.labelCache = new Map();
  }

  // sel: { selected: event or -1, activeFinding: index or -1, showPath }. Returns what was drawn, counted,
  // and the axis labels. this.labelBoxes: where text went over the lanes ({ x0, x1, y0, y1, e }:
  // the event the label names, -1 for a queue delay's), for the tests.
  paint(sel) {
    const ctx = this.ctx, view = this.view, W = view.w, H = view.h;
    const stats = { kernelRects: 0, kernelsShown: 0, rects: 0, merged: 0, pathSegments: 0, flows: 0 };
    this.sel = sel;
    this.labelBoxes = [];
    ctx.clearRect(0, 0, W, H);
    ctx.font = "11px system-ui, sans-serif";
    ctx.textBaseline = "middle";
    if (!this.charW) this.charW = ctx.measureText("abcdefghijklmnopqrstuvwxyz_0123456789").width / 37;
    this.axis = axisTicks(view, text => ctx.measureText(text).width);
    stats.axisLabels = this.axis.ticks.map(tick => tick.text).filter(text => text);

    ctx.save();
    ctx.beginPath();
    ctx.rect(LABEL_W, HEADER_H, W - LABEL_W, H - HEADER_H);
    ctx.clip();
    this.drawLaneBackgrounds();
    this.drawGrid();
    this.drawShades();
    this.drawLaneShades();
    this.drawGroupLines(LABEL_W, W);
    this.m.lanes.forEach((lane, li) => {
      const y = view.laneY(li);
      if (y > H || y + view.laneHeight(lane) < HEADER_H) return;
      for (let r = 0; r < view.shownRows(lane); ++r) this.drawRow(lane, r, y + LANE_PAD / 2 + r * ROW_H, stats);
    });
    this.drawMarks();
    if (sel.showPath) stats.pathSegments = this.drawPath();
    stats.flows = this.drawFlows();
    if (sel.selected >= 0) this.outline(sel.selected, "#1d2127", 2.5, []);
    ctx.restore();

    this.drawGutter();
    this.drawHeader();
    return stats;
  }

  drawLaneBackgrounds() {
    const ctx = this.ctx;
    this.m.lanes.forEach((lane, li) => {
      const y = this.view.laneY(li), h = this.view.laneHeight(lane);
      ctx.fillStyle = lane.kind === "gpu" ? (li % 2 ? "#f4f8f3" : "#eef5ec") : (li % 2 ? "#f7f8fa" : "#ffffff");
      ctx.fillRect(LABEL_W, y, this.view.w - LABEL_W, h);
      ctx.fillStyle = "#d9dde3";
      ctx.fillRect(LABEL_W, y + h - 1, this.view.w - LABEL_W, 1);
    });
  }

  // Where a page groups its lanes (the ranks page: one group per rank), a dark line between groups.
  drawGroupLines(x0, x1) {
    const ctx = this.ctx, lanes = this.m.lanes;
    ctx.fillStyle = "#5f6873";
    lanes.forEach((lane, li) => {
      if (li > 0 && lane.group !== undefined && lane.group !== lanes[li - 1].group) ctx.fillRect(x0, this.view.laneY(li) - 1, x1 - x0, 2);
    });
  }

  drawGrid() {
    const ctx = this.ctx;
    ctx.fillStyle = "#e9ecf0";
    for (const tick of this.axis.ticks) ctx.fillRect(Math.round(tick.x), HEADER_H, 1, this.view.h);
  }

  drawShades() {
    const ctx = this.ctx;
    this.findings.forEach((f, fi) => {
      const active = fi === this.sel.activeFinding;
      for (const [a, b] of f.shade) {
        const xa = this.view.x(a), xb = this.view.x(b);
        if (xb < LABEL_W || xa > this.view.w) continue;
        ctx.globalAlpha = active ? 0.16 : f.shade_strong ? 0.10 : 0.05;
        ctx.fillStyle = SEVERITY_COLORS[f.severity];
        ctx.fillRect(xa, HEADER_H, Math.max(1, xb - xa), this.view.h);
      }
      // Waits: a band across the GPU lanes, so the GPU work that ran meanwhile stands out.
      if (f.marks_are_waits) {
        ctx.globalAlpha = active ? 0.16 : 0.08;
        ctx.fillStyle = SEVERITY_COLORS.warning;
        for (const e of f.mark) {
          const xa = this.view.x(this.m.start[e]), xb = this.view.x(this.m.end(e));
          if (xb < LABEL_W || xa > this.view.w) continue;
          this.m.lanes.forEach((lane, li) => {
            if (lane.kind !== "gpu") return;
            ctx.fillRect(xa, this.view.laneY(li), Math.max(1, xb - xa), this.view.laneHeight(lane));
          });
        }
      }
      ctx.globalAlpha = 1;
    });
  }

  // Spans shaded on some lanes only (D.lane_shades: { lanes: [first, end), spans, color, alpha }):
  // on the ranks page, one rank's waits and late arrivals.
  drawLaneShades() {
    const ctx = this.ctx, view = this.view;
    for (const s of this.D.lane_shades || []) {
      const [first, end] = s.lanes;
      if (end <= first) continue;
      const y0 = view.laneY(first), y1 = view.laneY(end - 1) + view.laneHeight(this.m.lanes[end - 1]);
      ctx.globalAlpha = s.alpha;
      ctx.fillStyle = s.color;
      for (const [a, b] of s.spans) {
        const xa = view.x(a), xb = view.x(b);
        if (xb < LABEL_W || xa > view.w) continue;
        ctx.fillRect(xa, y0, Math.max(1, xb - xa), y1 - y0);
      }
    }
    ctx.globalAlpha = 1;
  }

  drawRow(lane, r, y, stats) {
    const m = this.m, ctx = this.ctx, v0 = this.view.v0, v1 = this.view.v1, scale = this.view.scale;
    // Events not embedded: their per-pixel summary, paler than real events.
    const ov = lane.overview[r];
    if (ov.bucket.length) {
      const b = m.bucketNs;
      for (let j = lowerBound(ov.bucket, Math.floor(v0 / b)); j < ov.bucket.length && ov.bucket[j] * b <= v1; ++j) {
        const xa = this.view.x(ov.bucket[j] * b), xb = this.view.x((ov.bucket[j] + 1) * b);
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
        // Its label ends where the next event of the row starts: that one is drawn over it.
        const next = k + 1 < idx.length ? LABEL_W + (m.start[idx[k + 1]] - v0) * scale : Infinity;
        this.drawEvent(e, xa, xb, y, stats, next);
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

  // `labelEnd`: x where the label must stop (the next event of the row), Infinity for none.
  drawEvent(e, xa, xb, y, stats, labelEnd = Infinity) {
    const m = this.m, ctx = this.ctx;
    const a = Math.max(xa, LABEL_W - 2), b = Math.min(xb, this.view.w + 2), w = Math.max(1, b - a);
    ctx.fillStyle = m.classColor[m.cls[e]];
    ctx.fillRect(a, y + 1, w, ROW_H - 2);
    stats.rects++;
    if (m.isKernel(e)) { stats.kernelRects++; stats.kernelsShown++; }
    const room = Math.min(b, labelEnd) - a - 2 * LABEL_INSET_PX;
    if (room < MIN_LABEL_PX) return;
    const max = Math.floor(room / this.charW);
    let label = this.label(m.name[e]);
    if (label.length > max) label = label.slice(0, Math.max(1, max - 1)) + "…";
    ctx.fillStyle = this.classText[m.cls[e]];
    ctx.fillText(label, a + LABEL_INSET_PX, y + ROW_H / 2, room);  // squeezed into the room should the estimate be short
    const x0 = a + LABEL_INSET_PX;
    this.labelBoxes.push({ x0, x1: x0 + Math.min(room, ctx.measureText(label).width), y0: y + 1, y1: y + ROW_H - 1, e });
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
    if (!this.view.shown(e)) return;
    const xa = this.view.x(this.m.start[e]), xb = this.view.x(this.m.end(e));
    if (xb < LABEL_W - 4 || xa > this.view.w + 4) return;
    const ctx = this.ctx;
    ctx.strokeStyle = color;
    ctx.lineWidth = width;
    ctx.setLineDash(dash);
    ctx.strokeRect(xa - 1, this.view.eventY(e) + 0.5, Math.max(2, xb - xa) + 2, ROW_H - 1);
    ctx.setLineDash([]);
  }

  drawMarks() {
    this.findings.forEach((f, fi) => {
      const active = fi === this.sel.activeFinding, color = SEVERITY_COLORS[f.severity];
      if (this.sel.activeFinding >= 0 && !active && f.mark.length > 200) return;  // keep the active one readable
      for (const e of f.mark) this.outline(e, color, active ? 2.5 : 1.5, []);
      // Covered GPU work narrower than a few pixels is left to the wait's band: outlines would hide it.
      for (const e of f.cover)
        if (this.m.dur[e] * this.view.scale >= 4) this.outline(e, SEVERITY_COLORS.warning, active ? 2 : 1.2, [3, 2]);
      for (let i = 0; i + 1 < f.queue.length; i += 2) this.drawQueue(f.queue[i], f.queue[i + 1], color, active);
    });
  }

  // The queue delay: a bracket on the GPU lane from the launch call's start to the work's start.
  drawQueue(launch, gpu, color, active) {
    const m = this.m, ctx = this.ctx;
    const xa = this.view.x(m.start[launch]), xb = this.view.x(m.start[gpu]);
    if (xb < LABEL_W || xa > this.view.w || xb - xa < 2) return;
    const y = this.view.eventY(gpu) + ROW_H / 2;
    ctx.strokeStyle = color;
    ctx.lineWidth = active ? 2 : 1.2;
    ctx.setLineDash([4, 3]);
    ctx.beginPath();
    ctx.moveTo(xa, y); ctx.lineTo(xb, y);
    ctx.moveTo(xa, y - 5); ctx.lineTo(xa, y + 5);
    ctx.stroke();
    ctx.setLineDash([]);
    ctx.beginPath();
    ctx.moveTo(xb, y); ctx.lineTo(xb - ARROW_HEAD_PX, y - 4); ctx.lineTo(xb - ARROW_HEAD_PX, y + 4); ctx.closePath();
    ctx.fillStyle = color;
    ctx.fill();
    // The words, on the bracket's row where no event is under them; else only the tooltip says it.
    const text = "queued " + fmtDur(m.start[gpu] - m.start[launch]);
    const width = ctx.measureText(text).width + 2 * QUEUE_LABEL_PAD_PX;
    const lane = m.lanes[m.lane[gpu]], r = Math.min(m.row[gpu], this.view.shownRows(lane) - 1);
    const at = freeSpotInRow(this.view, m, lane, r, Math.max(xa, LABEL_W) + 2, Math.min(xb, this.view.w) - ARROW_HEAD_PX - 2, width);
    if (at < 0) return;
    ctx.fillStyle = "#ffffffd0";  // over the dashed line, not through it
    ctx.fillRect(at, y - ROW_H / 2 + 2, width, ROW_H - 4);
    ctx.fillStyle = color;
    ctx.fillText(text, at + QUEUE_LABEL_PAD_PX, y);
    this.labelBoxes.push({ x0: at, x1: at + width, y0: y - ROW_H / 2 + 2, y1: y + ROW_H / 2 - 2, e: -1 });
  }

  // One steady step's critical path (model.path): a thick line along each segment's lane, under the
  // deepest row of the path's events there (an edge's lag dashed), joined across lanes where the path
  // moves from one to another, and its events outlined where they are wide enough. Returns how many
  // segments it drew.
  drawPath() {
    const p = this.m.path, view = this.view, ctx = this.ctx;
    if (!p) return 0;
    const segs = [];  // the segments in view, in time order; null where the page does not draw the lane
    for (let i = lowerBound(p.t1, view.v0); i < p.n && p.t0[i] <= view.v1; ++i) {
      const li = p.lane[i];
      if (li < 0) { segs.push(null); continue; }
      const x0 = view.x(p.t0[i]), row = Math.min(p.laneRow[li], view.shownRows(this.m.lanes[li]) - 1);
      segs.push({ x0, x1: Math.max(view.x(p.t1[i]), x0 + 1), y: view.laneY(li) + LANE_PAD / 2 + (row + 1) * ROW_H,
                  lag: p.event[i] < 0 && PATH_LAG_KINDS.has(SCHEMA.PATH_KINDS[p.kind[i]]), e: p.event[i] });
    }
    // Each segment of `lags` (null: all of them), and with `joins` the line between two lanes.
    const stroke = (lags, joins) => {
      ctx.beginPath();
      segs.forEach((s, k) => {
        if (!s) return;
        if (lags === null || s.lag === lags) { ctx.moveTo(s.x0, s.y); ctx.lineTo(s.x1, s.y); }
        const next = segs[k + 1];
        if (joins && next && next.y !== s.y) { ctx.moveTo(s.x1, s.y); ctx.lineTo(next.x0, next.y); }
      });
      ctx.stroke();
    };
    ctx.lineCap = "square";  // the corners where it changes lanes closed
    ctx.strokeStyle = "#ffffff";
    ctx.lineWidth = PATH_WIDTH_PX + 2 * PATH_HALO_PX;
    stroke(null, true);
    ctx.strokeStyle = PATH_COLOR;
    ctx.lineWidth = PATH_WIDTH_PX;
    stroke(false, true);
    ctx.lineCap = "butt";  // square caps would close the dashes' gaps
    ctx.setLineDash([5, 3]);
    stroke(true, false);
    ctx.setLineDash([]);
    for (const s of segs)
      if (s && s.e >= 0 && s.x1 - s.x0 >= MIN_PATH_OUTLINE_PX) this.outline(s.e, PATH_COLOR, 2, []);
    return segs.filter(s => s).length;
  }

  // The launch arrows in view (none when there are too many to read), and the selected event's; returns how many.
  drawFlows() {
    const m = this.m, f = m.flows, v0 = this.view.v0, v1 = this.view.v1;
    const pairs = [];
    let visible = 0;
    for (let i = 0; i + 1 < f.length; i += 2) {
      const a = m.start[f[i]], b = m.start[f[i + 1]];
      if (b < v0 || a > v1) continue;
      if (++visible <= MAX_FLOWS_DRAWN) pairs.push(i);
    }
    if (visible > MAX_FLOWS_DRAWN) pairs.length = 0;
    if (this.sel.selected >= 0) {
      for (let i = 0; i + 1 < f.length; i += 2) if (f[i] === this.sel.selected || f[i + 1] === this.sel.selected) pairs.push(i);
    }
    const ctx = this.ctx;
    ctx.save();
    // Never over a label: the arrows are clipped to the lanes less every box text was drawn in
    // (even-odd: a box inside the lanes' rectangle is a hole in it). They still cross rectangles,
    // which an arrow must to link its launch to its kernel, and show in every gap between labels.
    ctx.beginPath();
    ctx.rect(LABEL_W, HEADER_H, this.view.w - LABEL_W, this.view.h - HEADER_H);
    for (const b of this.labelBoxes) ctx.rect(b.x0, b.y0, b.x1 - b.x0, b.y1 - b.y0);
    ctx.clip("evenodd");
    ctx.strokeStyle = "#3b4350";
    ctx.fillStyle = "#3b4350";
    ctx.lineWidth = 1;
    for (const i of pairs) {
      const from = f[i], to = f[i + 1];
      const xa = this.view.x(m.start[from]), ya = this.view.eventY(from) + ROW_H - 2;
      const xb = this.view.x(m.start[to]), yb = this.view.eventY(to) + 1;
      const dy = (yb - ya) / 2;
      ctx.globalAlpha = from === this.sel.selected || to === this.sel.selected ? 1 : 0.55;
      ctx.beginPath();
      ctx.moveTo(xa, ya);
      ctx.bezierCurveTo(xa, ya + dy, xb, yb - dy, xb, yb);
      ctx.stroke();
      ctx.beginPath();
      ctx.moveTo(xb, yb); ctx.lineTo(xb - 3, yb - 6); ctx.lineTo(xb + 3, yb - 6); ctx.closePath();
      ctx.fill();
    }
    ctx.restore();
    return pairs.length;
  }

  drawGutter() {
    const ctx = this.ctx;
    ctx.save();
    ctx.beginPath();
    ctx.rect(0, HEADER_H, LABEL_W, this.view.h - HEADER_H);
    ctx.clip();
    ctx.fillStyle = "#f5f7f9";
    ctx.fillRect(0, HEADER_H, LABEL_W, this.view.h);
    ctx.font = "12px system-ui, sans-serif";
    this.m.lanes.forEach((lane, li) => {
      const y = this.view.laneY(li);
      const h = this.view.laneHeight(lane);
      if (y > this.view.h || y + h < HEADER_H) return;
      ctx.fillStyle = lane.kind === "gpu" ? "#2e9e44" : lane.kind === "cpu" ? "#4e79a7" : "#8a8f96";
      ctx.fillRect(0, y, 3, h - 1);
      ctx.fillStyle = "#1d2127";
      let text = lane.kind === "gpu" && !/\bGPU\b/i.test(lane.name) ? "GPU " + lane.name : lane.name;
      const max = Math.floor((LABEL_W - 14) / (this.charW * 1.08));
      if (text.length > max) text = text.slice(0, max - 1) + "…";
      // A tall lane scrolled past its top keeps its name in sight, at the top of the lanes.
      const lines = lane.rows > COLLAPSED_ROWS ? 2 : 1;
      const nameY = Math.min(Math.max(y, HEADER_H), Math.max(y, y + h - LANE_PAD - lines * ROW_H)) + LANE_PAD / 2;
      ctx.fillText(text, 8, nameY + ROW_H / 2);
      if (lane.rows > COLLAPSED_ROWS) {
        ctx.fillStyle = "#1f6fb2";
        ctx.fillText(lane.expanded ? "▾ show fewer rows" : `▸ ${lane.rows - COLLAPSED_ROWS} more rows`, 8, nameY + ROW_H * 1.5);
      }
      // The flattened row (events nested deeper than SCHEMA.MAX_LANE_ROWS), when it is shown.
      if (lane.deep > 0 && this.view.shownRows(lane) > SCHEMA.MAX_LANE_ROWS) {
        ctx.fillStyle = "#5f6873";
        ctx.fillText(`⤓ ${fmtCount(lane.deep)} deeper, flattened`, 8, y + LANE_PAD / 2 + ROW_H * (SCHEMA.MAX_LANE_ROWS + 0.5));
      }
      ctx.fillStyle = "#d9dde3";
      ctx.fillRect(0, y + h - 1, LABEL_W, 1);
    });
    this.drawGroupLines(0, LABEL_W);
    ctx.fillStyle = "#c9ced6";
    ctx.fillRect(LABEL_W - 1, HEADER_H, 1, this.view.h);
    ctx.restore();
  }

  drawHeader() {
    const ctx = this.ctx, W = this.view.w;
    ctx.fillStyle = "#f5f7f9";
    ctx.fillRect(0, 0, W, HEADER_H);
    ctx.fillStyle = "#c9ced6";
    ctx.fillRect(0, HEADER_H - 1, W, 1);
    ctx.fillRect(0, AXIS_H - 1, W, 1);
    ctx.save();
    ctx.beginPath();
    ctx.rect(LABEL_W, 0, W - LABEL_W, HEADER_H);
    ctx.clip();
    // Axis: offsets from the trace window's start (timeline_axis.js).
    ctx.fillStyle = "#5f6873";
    ctx.font = "11px system-ui, sans-serif";
    for (const tick of this.axis.ticks) {
      const x = Math.round(tick.x);
      ctx.fillRect(x, AXIS_H - 6, 1, 5);
      ctx.fillText(tick.text, x + AXIS_LABEL_PAD_PX, AXIS_H / 2 - 2);
    }
    // Where the page holds every event (large traces): a green line under the axis.
    if (!this.D.meta.complete) {
      ctx.fillStyle = "#2e9e44";
      for (const [a, b] of this.D.windows) ctx.fillRect(this.view.x(a), AXIS_H - 3, Math.max(2, this.view.x(b) - this.view.x(a)), 3);
    }
    // Steps.
    const cold = this.D.cold_step;
    this.D.steps.forEach((s, i) => {
      const xa = this.view.x(s[ST.START]), xb = this.view.x(s[ST.START] + s[ST.DURATION]);
      if (xb < LABEL_W || xa > W) return;
      ctx.fillStyle = i === cold ? "#f0b3b3" : i % 2 ? "#d5dde8" : "#c5d0de";
      ctx.fillRect(xa, AXIS_H + 1, Math.max(1, xb - xa - 1), STEPS_H - 3);
      // By the part of the step on the screen, and inside it: the next step's box would cover the rest.
      const shown = Math.min(xb, W) - Math.max(xa, LABEL_W);
      const label = shown > 110 ? s[ST.NAME] + (i === cold ? " (cold start)" : "") : shown > 34 ? "#" + s[ST.NAME].replace(/^\D*/, "") : "";
      if (label) {
        ctx.fillStyle = i === cold ? "#8e1b1b" : "#34404f";
        ctx.fillText(label, Math.max(xa, LABEL_W) + 3, AXIS_H + STEPS_H / 2, shown - 6);
      }
    });
    ctx.restore();
    ctx.fillStyle = "#5f6873";
    ctx.font = "11px system-ui, sans-serif";
    ctx.fillText(fmtDur(this.view.v1 - this.view.v0) + " shown", 8, AXIS_H / 2);
    ctx.fillText(this.D.steps.length ? "steps" : "", 8, AXIS_H + STEPS_H / 2);
  }
}
