// The timeline's geometry: which stretch of time is on screen (v0…v1, ns from the window's
// start), time ↔ pixel, how tall each lane is (collapsed or not) and how far the lanes are
// scrolled. No drawing and no input here: the painter and the input handlers read and move it.

const ROW_H = 16, LANE_PAD = 6, AXIS_H = 22, STEPS_H = 18, LABEL_W = 190;
const HEADER_H = AXIS_H + STEPS_H;
const MIN_SPAN_NS = 50;          // the deepest zoom: 50 ns across the screen
// Lanes start with at most this many rows (deep compile or Python stacks would push the GPU lanes
// off the screen); a click on the lane's name shows the rest.
const COLLAPSED_ROWS = 10;

class Viewport {
  constructor(model, windowNs) {
    this.m = model;
    this.windowNs = windowNs;
    this.v0 = 0;
    this.v1 = windowNs;
    this.scrollY = 0;
    this.w = 800;
    this.h = 160;
    this.layout();
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
  // Shows all of a collapsed lane's rows, or collapses it again; false for a lane with few rows.
  toggleLane(li) {
    const lane = this.m.lanes[li];
    if (lane.rows <= COLLAPSED_ROWS) return false;
    lane.expanded = !lane.expanded;
    this.layout();
    return true;
  }

  // The canvas's size in CSS pixels: the container's width, and the lanes' height up to most of
  // the browser window's.
  resize(width, windowHeight) {
    this.w = Math.max(400, width || 800);
    const maxH = Math.max(320, Math.round(windowHeight * 0.72));
    this.h = Math.min(maxH, Math.max(160, HEADER_H + this.lanesHeight + 2));
    this.clampScroll();
  }

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

  // [v0, v1], kept between MIN_SPAN_NS and a little more than the window, and near the window.
  setView(v0, v1) {
    let span = Math.max(MIN_SPAN_NS, Math.min(v1 - v0, this.windowNs * 1.2));
    const mid = (v0 + v1) / 2;
    v0 = mid - span / 2;
    const slack = this.windowNs * 0.1;
    v0 = Math.max(-slack, Math.min(v0, this.windowNs + slack - span));
    this.v0 = v0;
    this.v1 = v0 + span;
  }
  clampScroll() {
    const room = this.h - HEADER_H;
    this.scrollY = Math.max(0, Math.min(this.scrollY, this.lanesHeight - room));
  }
  // Scrolls the lanes so that lane `li` is in view.
  scrollToLane(li) {
    const y = this.laneTop[li];
    const room = this.h - HEADER_H;
    if (y < this.scrollY || y + ROW_H * 2 > this.scrollY + room) this.scrollY = Math.max(0, y - 8);
    this.clampScroll();
  }
}
