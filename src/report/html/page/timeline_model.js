// The timeline's data: the lanes, events and flows of the JSON blob (src/report/html/timeline.cpp) in typed
// arrays, with per-row indexes that find the events in view by binary search. The blob's layout
// comes from SCHEMA (written by src/report/html/page_schema.cpp).

const KERNEL_CLASSES = new Set(SCHEMA.KERNEL_CLASSES);

// The embedded data in typed arrays, indexed like the C++ side numbers events: lane by lane.
class TimelineModel {
  constructor(D) {
    const K = SCHEMA.LANE, OV = SCHEMA.OVERVIEW;
    const n = D.lanes.reduce((a, L) => a + L[K.START].length, 0);
    this.n = n;
    this.start = new Float64Array(n);
    this.dur = new Float64Array(n);
    this.cls = new Uint8Array(n);
    this.row = new Uint8Array(n);
    this.lane = new Uint32Array(n);
    this.name = new Int32Array(n);
    this.detail = new Int32Array(n);
    this.strings = D.strings;
    this.gpuDetails = D.gpu_details;
    this.shapes = D.shapes;
    this.classKey = D.classes.map(c => c[0]);
    this.classLabel = D.classes.map(c => c[1]);
    this.classColor = this.classKey.map(k => CLASS_COLORS[k] || "#aaaaaa");
    this.isKernelClass = this.classKey.map(k => KERNEL_CLASSES.has(k));
    this.bucketNs = Math.max(1, Math.ceil(D.meta.window_ns / D.overview_buckets));
    this.lanes = [];
    let g = 0;
    D.lanes.forEach((L, li) => {
      const rows = Math.max(1, L.rows);
      // deep: events on the flattened last row, nested deeper than SCHEMA.MAX_LANE_ROWS.
      // group: the rank on the ranks page (ranks_data.js), else undefined.
      const lane = { name: L.name, kind: L.kind, group: L.group, rows, deep: L.deep, first: g, count: L[K.START].length, rowEvents: [], rowMaxEnd: [], overview: [] };
      const perRow = Array.from({ length: rows }, () => []);
      let t = 0;
      const starts = L[K.START], durs = L[K.DURATION], names = L[K.NAME], packed = L[K.CLASS_ROW], details = L[K.DETAIL];
      for (let i = 0; i < starts.length; ++i, ++g) {
        t += starts[i];
        this.start[g] = t;
        this.dur[g] = durs[i];
        this.cls[g] = packed[i] & SCHEMA.CLASS_MASK;
        this.row[g] = packed[i] >> SCHEMA.ROW_SHIFT;
        this.lane[g] = li;
        this.name[g] = names[i];
        this.detail[g] = details[i];
        perRow[this.row[g]].push(g);
      }
      for (const list of perRow) {
        const idx = Int32Array.from(list);
        // Running maximum of the ends: monotonic, so a binary search finds the first event that can
        // reach into the view even when an earlier, longer event overlaps later ones.
        const maxEnd = new Float64Array(idx.length);
        let m = -Infinity;
        for (let k = 0; k < idx.length; ++k) maxEnd[k] = m = Math.max(m, this.start[idx[k]] + this.dur[idx[k]]);
        lane.rowEvents.push(idx);
        lane.rowMaxEnd.push(maxEnd);
      }
      lane.overview = Array.from({ length: rows }, () => ({ bucket: [], pct: [], cls: [], count: [] }));
      const o = L[K.OVERVIEW];
      for (let i = 0; i + OV.STRIDE <= o.length; i += OV.STRIDE) {
        const ov = lane.overview[o[i + OV.ROW]];
        if (!ov) continue;
        ov.bucket.push(o[i + OV.BUCKET]); ov.pct.push(o[i + OV.PERCENT]); ov.cls.push(o[i + OV.CLASS]); ov.count.push(o[i + OV.COUNT]);
      }
      this.lanes.push(lane);
    });
    this.flows = D.flows;
    this.launchOf = new Int32Array(n).fill(-1);
    this.firstLaunched = new Int32Array(n).fill(-1);
    for (let i = 0; i + 1 < D.flows.length; i += 2) {
      this.launchOf[D.flows[i + 1]] = D.flows[i];
      if (this.firstLaunched[D.flows[i]] < 0) this.firstLaunched[D.flows[i]] = D.flows[i + 1];
    }
    // One steady step's critical path (D.critical_path, src/report/html/path_overlay.cpp; absent on
    // the comparison and ranks pages): its segments in time order, which events lie on it, and per
    // lane the deepest row of its events there (its line runs under that row).
    this.path = null;
    this.onPath = new Uint8Array(n);
    const P = D.critical_path;
    if (P) {
      const F = SCHEMA.PATH, s = P.segments, count = Math.floor(s.length / F.STRIDE);
      const path = { name: P.name, start: P.start, end: P.end, stepEnd: P.step_end, n: count, event: new Int32Array(count), lane: new Int32Array(count),
                     t0: new Float64Array(count), t1: new Float64Array(count), kind: new Uint8Array(count),
                     laneRow: new Uint8Array(this.lanes.length) };
      for (let i = 0; i < count; ++i) {
        const at = i * F.STRIDE, e = s[at + F.EVENT];
        path.event[i] = e;
        path.lane[i] = s[at + F.LANE];
        path.t0[i] = s[at + F.START];
        path.t1[i] = s[at + F.START] + s[at + F.DURATION];
        path.kind[i] = s[at + F.KIND];
        if (e < 0) continue;
        this.onPath[e] = 1;
        path.laneRow[this.lane[e]] = Math.max(path.laneRow[this.lane[e]], this.row[e]);
      }
      this.path = path;
    }
  }
  end(e) { return this.start[e] + this.dur[e]; }
  nameOf(e) { return this.strings[this.name[e]] || "(no name)"; }
  isKernel(e) { return this.isKernelClass[this.cls[e]]; }
}

// First k with a[k] >= x (a ascending).
function lowerBound(a, x) {
  let lo = 0, hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid] < x) lo = mid + 1; else hi = mid;
  }
  return lo;
}
