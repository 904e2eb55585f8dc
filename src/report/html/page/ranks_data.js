// The ranks page's timeline data: every rank's part of the blob (src/report/html/report.cpp,
// render_html_ranks) merged into the data of one timeline, laid out as TimelineModel reads one
// trace's, on one time axis: each rank's times moved by its shift_ns (its clock aligned on the
// lowest rank's at the collectives' ends; the earliest window starts at 0). Its lanes are named
// and grouped by rank (`group`); `lane_shades` shade a rank's lanes where it waited for the last
// rank to arrive at a collective, and where it came last itself.

// Shading of the waits (orange) and of the late arrivals (red): light enough for the events to show through.
const RANK_WAIT_ALPHA = 0.16, RANK_LATE_ALPHA = 0.22;

function mergeRanks(D) {
  const K = SCHEMA.LANE, OV = SCHEMA.OVERVIEW, first = D.ranks[0];
  const windowNs = Math.max(...D.ranks.map(R => R.shift_ns + R.meta.window_ns));
  const out = {
    meta: { ...first.meta, path: `${D.ranks.length} ranks`, window_ns: windowNs, complete: D.ranks.every(R => R.meta.complete),
            events: D.ranks.reduce((a, R) => a + R.meta.events, 0) },
    classes: first.classes, overview_buckets: first.overview_buckets,
    lanes: [], strings: [], gpu_details: [], shapes: [], flows: [], windows: [], findings: [], lane_shades: [],
    steps: [], steps_rank: -1, cold_step: -1,
  };
  const bucketNs = Math.max(1, Math.ceil(windowNs / out.overview_buckets));
  let events = 0;
  for (const R of D.ranks) {
    const strings = out.strings.length, gpu = out.gpu_details.length, shapes = out.shapes.length, firstLane = out.lanes.length;
    const shift = R.shift_ns, rankBucketNs = Math.max(1, Math.ceil(R.meta.window_ns / R.overview_buckets));
    for (const s of R.strings) out.strings.push(s);  // one by one: a spread of 100k strings can overflow the stack
    for (const g of R.gpu_details) out.gpu_details.push(g);
    for (const [dims, types] of R.shapes) out.shapes.push([dims < 0 ? dims : dims + strings, types < 0 ? types : types + strings]);
    for (const L of R.lanes) {
      const name = L.kind === "gpu" && !/^GPU/i.test(L.name) ? "GPU " + L.name : L.name;
      const lane = { ...L, name: `rank ${R.rank} · ${name}`, group: R.rank };
      lane[K.START] = L[K.START].slice();
      if (lane[K.START].length) lane[K.START][0] += shift;  // the first start is from 0, the others from the one before
      lane[K.NAME] = L[K.NAME].map(n => n + strings);
      lane[K.DETAIL] = L[K.DETAIL].map(x => x > 0 ? x + gpu : x < 0 ? x - shapes : 0);
      const o = L[K.OVERVIEW].slice();  // summary cells, onto the merged window's buckets
      for (let i = 0; i + OV.STRIDE <= o.length; i += OV.STRIDE)
        o[i + OV.BUCKET] = Math.min(out.overview_buckets - 1, Math.floor((o[i + OV.BUCKET] * rankBucketNs + shift) / bucketNs));
      lane[K.OVERVIEW] = o;
      out.lanes.push(lane);
    }
    for (const e of R.flows) out.flows.push(e + events);
    for (const [a, b] of R.windows) out.windows.push([a + shift, b + shift]);
    const lanes = [firstLane, out.lanes.length], moved = spans => spans.map(([a, b]) => [a + shift, b + shift]);
    out.lane_shades.push({ lanes, spans: moved(R.waits), color: SEVERITY_COLORS.warning, alpha: RANK_WAIT_ALPHA });
    out.lane_shades.push({ lanes, spans: moved(R.late), color: SEVERITY_COLORS.critical, alpha: RANK_LATE_ALPHA });
    // The block a cross-rank finding blames on this rank, outlined.
    const blaming = D.job.findings.find(f => f.cause && f.cause.rank === R.rank);
    if (R.cause_events.length && blaming)
      out.findings.push({ ...blaming, shade: [], shade_strong: false, marks_are_waits: false, cover: [], queue: [], events: [],
                          mark: R.cause_events.map(e => e + events) });
    if (R.rank === D.steps_rank) {
      out.steps = R.steps.map(s => { const c = s.slice(); c[ST.START] += shift; return c; });
      out.steps_rank = R.rank;
    }
    events += R.lanes.reduce((a, L) => a + L[K.START].length, 0);
  }
  return out;
}
