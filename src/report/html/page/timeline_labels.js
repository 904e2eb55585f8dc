// Where text may go on the timeline without covering an event. An event's own label stays inside
// its rectangle and ends where the next event of its row begins (on a flattened row, inner events
// are drawn over the outer ones); a label that stands on its own (the queue delay's "queued 85.8
// ms") goes only into a gap between a row's events, or is not drawn (the tooltip says it too).

// The leftmost x in [xa, xb - width] from which `width` px cover no event of row `r` of `lane`
// (events drawn at least 1 px wide, summary cells their whole bucket); -1 when no gap is that wide.
function freeSpotInRow(view, m, lane, r, xa, xb, width) {
  const t0 = view.t(xa), t1 = view.t(xb), busy = [];
  const idx = lane.rowEvents[r];
  for (let k = lowerBound(lane.rowMaxEnd[r], t0); k < idx.length && m.start[idx[k]] <= t1; ++k) {
    const x0 = view.x(m.start[idx[k]]);
    busy.push([x0, Math.max(view.x(m.end(idx[k])), x0 + 1)]);
  }
  const ov = lane.overview[r], b = m.bucketNs;
  for (let j = lowerBound(ov.bucket, Math.floor(t0 / b)); j < ov.bucket.length && ov.bucket[j] * b <= t1; ++j)
    busy.push([view.x(ov.bucket[j] * b), Math.max(view.x((ov.bucket[j] + 1) * b), view.x(ov.bucket[j] * b) + 1)]);
  if (ov.bucket.length) busy.sort((p, q) => p[0] - q[0]);
  let cursor = xa;
  for (const [x0, x1] of busy) {
    if (x0 - cursor >= width) return cursor;
    cursor = Math.max(cursor, x1);
  }
  return xb - cursor >= width ? cursor : -1;
}
