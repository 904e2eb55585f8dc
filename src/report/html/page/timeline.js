// The timeline: one lane per CPU thread and GPU stream on a canvas, nested rows for nested
// events, the findings drawn on top. This class holds the state a page talks to (the view, the
// selection, the finding shown) and ties the parts together, each in its own file:
//   timeline_viewport.js  time ↔ pixel, zoom and pan limits, lane heights and scrolling
//   timeline_draw.js      everything drawn on the canvas
//   timeline_axis.js      the time axis: its unit, tick step and labels
//   timeline_labels.js    where text may go without covering an event
//   timeline_hit.js       what is under the mouse
//   timeline_tooltip.js   what the tooltip and the selection box say
//   timeline_input.js     mouse, wheel and keys

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
    this.view = new Viewport(model, Math.max(D.meta.window_ns, 1));
    this.painter = new TimelinePainter(this.ctx, model, this.view, D);
    this.selected = -1;
    this.activeFinding = -1;
    this.showPath = true;  // the critical path (model.path), where the data has one
    this.mouse = null;  // [x, y] on the canvas while the mouse is over it (or dragging)
    this.stats = {};
    listenTimelineInput(this);
    this.resize();
  }

  // The view (ns from the window's start) and its coordinates, for the pages and the tests.
  get v0() { return this.view.v0; }
  get v1() { return this.view.v1; }
  get windowNs() { return this.view.windowNs; }
  x(t) { return this.view.x(t); }
  t(x) { return this.view.t(x); }
  eventY(e) { return this.view.eventY(e); }

  resize() {
    const dpr = window.devicePixelRatio || 1;
    this.view.resize(this.root.clientWidth, window.innerHeight);
    this.canvas.width = Math.round(this.view.w * dpr);
    this.canvas.height = Math.round(this.view.h * dpr);
    this.canvas.style.height = this.view.h + "px";
    this.ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    this.draw();
  }
  toggleLane(li) {
    if (this.view.toggleLane(li)) this.resize();
  }

  // `silent`: do not tell options.onView (a linked timeline following this one).
  setView(v0, v1, silent) {
    this.view.setView(v0, v1);
    this.requestDraw();
    if (!silent && this.options.onView) this.options.onView(this);
  }
  zoomAt(factor, xPix) {
    const at = this.t(xPix);
    this.setView(at - (at - this.v0) * factor, at + (this.v1 - at) * factor);
  }
  panBy(ns) { this.setView(this.v0 + ns, this.v1 + ns); }
  // Shows [a, b] with a margin, and scrolls the lanes so that event `e` (if any) is in view.
  focus(a, b, e) {
    const pad = Math.max((b - a) * 0.15, MIN_SPAN_NS);
    this.setView(a - pad, b + pad);
    if (e !== undefined && e >= 0) {
      if (!this.view.shown(e)) this.toggleLane(this.m.lane[e]);
      this.view.scrollToLane(this.m.lane[e]);
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
  setShowPath(on) {
    this.showPath = on;
    this.requestDraw();
  }

  requestDraw() {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => { this.pending = false; this.draw(); });
  }
  // Draws now; publishes what it drew as data-* attributes of <body> (for the tests).
  draw() {
    const stats = this.painter.paint({ selected: this.selected, activeFinding: this.activeFinding, showPath: this.showPath });
    this.stats = stats;
    const ds = document.body.dataset, suffix = this.options.suffix || "";
    ds["kernelRects" + suffix] = stats.kernelRects;
    ds["kernelsShown" + suffix] = stats.kernelsShown;
    ds["rects" + suffix] = stats.rects;
    ds["mergedRects" + suffix] = stats.merged;
    ds["pathSegments" + suffix] = stats.pathSegments;
    ds["axisLabels" + suffix] = stats.axisLabels.join("|");
  }

  hit(px, py) { return hitTest(this.view, this.m, this.D.steps, px, py); }
  describeEvent(e) { return describeEvent(e, this.m, this.findings); }
  showTip(px, py) {
    const h = this.hit(px, py);
    if (!h) { this.tip.hidden = true; return; }
    placeTooltip(this.tip, describeHit(h, this.m, this.D, this.findings), px, py, this.view.w, this.view.h);
  }
}
Timeline.all = [];
