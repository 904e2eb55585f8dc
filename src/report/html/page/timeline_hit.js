// What is under the mouse on the timeline: a step (in the header), a lane (its name), an event
// (within 3 pixels: the shortest of the nearest), or a per-pixel summary cell of a large trace.
// Returns { step: i } | { lane: li } | { event: e } | { overview: { lane, j, ov } } | null.

function hitTest(view, m, steps, px, py) {
  if (py < AXIS_H) return null;
  const t = view.t(px);
  if (py < HEADER_H) {
    if (px < LABEL_W) return null;
    const i = steps.findIndex(s => t >= s[ST.START] && t <= s[ST.START] + s[ST.DURATION]);
    return i >= 0 ? { step: i } : null;
  }
  const li = m.lanes.findIndex((lane, i) => py >= view.laneY(i) && py < view.laneY(i) + view.laneHeight(lane));
  if (li < 0) return null;
  if (px < LABEL_W) return { lane: li };
  const lane = m.lanes[li];
  const r = Math.floor((py - view.laneY(li) - LANE_PAD / 2) / ROW_H);
  if (r < 0 || r >= view.shownRows(lane)) return null;
  const tol = 3 / view.scale, idx = lane.rowEvents[r];
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
