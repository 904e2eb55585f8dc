#!/usr/bin/env python3
"""Why the GPU is idle (issue 26, item 3): an independent oracle, read straight from the raw trace.

The definition is src/analysis/gpu/idle_gaps.cpp's header comment; this file implements it again
over the raw JSON (Python's json and Decimal, the GPU intervals merged by sorting, launches found
by their correlation ids) so tests/idle_gaps_test can hold whyslow's numbers to it.

Per window (each ProfilerStep#N; a trace without steps: its whole window, first event to last):
  * GPU busy is the union of every kernel, copy and memset (all devices and streams) clipped to
    the window; the idle gaps are the rest of the window;
  * a gap with no GPU work after it in the window is `tail`;
  * otherwise the work that ends it (the activity starting at the gap's end; the earliest-listed
    of several) was queued at its launch call's start when the call is a graph launch or blocks
    the host and the work is not an upload (HtoD: a blocking upload stages its data on the CPU
    first), else at the call's end;
    no launch call found: the whole gap is `unlinked`;
    lazy submission, in a trace with no evidence of a dependency (no stream wait, event record,
    host function call or stream callback among the runtime calls, no GPU sync record: cuda_sync,
    MTIA's event_record / event_wait / synchronize): work queued more than KQUEUED_NS before its start that starts within
    KQUEUED_NS after a host-blocking call on its launching thread began (later than it was queued)
    was queued at that call's start (the latest such call) when that call began inside the gap and
    the gap is longer than KQUEUED_NS (shorter, the work ran in its stream's order), and the gap
    counts in `submitted_at_wait`;
  * the part of the gap before it was queued is the CPU's: `prefix` when the gap opens the window
    (no GPU work before it in the window), else `sync` when a host-blocking call on the launching
    thread ended inside that part (the CPU waited for the GPU, then launched), else `launch`;
  * the part after it was queued is the GPU's: up to KQUEUED_NS long it is `scheduling` (the
    GPU's own latency from queue to start); longer, `backlog` when no GPU work at all precedes it
    in the trace (the GPU was busy with work from before the trace started), else `dependency`
    (held back by another stream, an event, a host function);
  * of the CPU's part (prefix, launch, sync) and of a tail, the time inside the profiler's own
    "Activity Buffer Request" slices (category overhead, any track, merged) is `profiler`.
Every class sums over the window's gaps; busy + the classes = the window's duration.

Usage:  python3 idle_gaps.py TRACE.json[.gz]   -> JSON on stdout: {"windows": [...]} (ns)
"""
from __future__ import annotations

import bisect
import json
import sys

import cpu_breakdown as cb

KQUEUED_NS = 50_000
CLASSES = ["prefix", "launch", "sync", "scheduling", "dependency", "backlog", "tail", "unlinked", "profiler"]
GRAPH_LAUNCHES = {"cudaGraphLaunch", "hipGraphLaunch", "cuGraphLaunch"}
STREAM_WAITS = {"cudaStreamWaitEvent", "hipStreamWaitEvent", "cuStreamWaitEvent"}
CROSS_STREAM = ("cudaEventRecord", "hipEventRecord", "cuEventRecord", "cudaLaunchHostFunc", "hipLaunchHostFunc",
                "cuLaunchHostFunc", "cudaStreamAddCallback", "hipStreamAddCallback")


def blocks_host(trace, ev) -> bool:
    if not hasattr(trace, "_pageable"):
        trace._pageable = trace.pageable_copy_correlations()
    return cb.runtime_category(ev.name, ev.args.get("correlation"), trace._pageable) == "sync_wait"


def analyze(path: str) -> dict:
    t = cb.Trace(path)
    work = [ev for ev in t.device if ev.cat in cb.DEVICE_WORK_CATS and ev.end >= ev.start]
    work.sort(key=lambda e: (e.start, e.index))
    launch_of = {}
    for ev in t.cpu:
        c = ev.args.get("correlation")
        if ev.cat in cb.RUNTIME_CATS and c is not None:
            launch_of.setdefault(c, ev)
    # merged busy intervals
    merged = []
    for ev in work:
        if merged and ev.start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], ev.end)
        else:
            merged.append([ev.start, ev.end])
    first_gpu = work[0].start if work else None
    starts = [ev.start for ev in work]
    evidence = any(ev.cat == "cuda_sync" or (ev.cat == "mtia_runtime" and ev.name == "synchronize")
                   for ev in t.cpu + t.device) \
        or any(ev.cat == "mtia_ccp_events" and ev.name in ("event_record", "event_wait") for ev in t.device) \
        or any(ev.cat in cb.RUNTIME_CATS and (ev.name in STREAM_WAITS or ev.name.startswith(CROSS_STREAM))
               for ev in t.cpu)
    waits_by_thread, wait_starts = {}, {}
    for ev in t.cpu:
        if ev.cat in cb.RUNTIME_CATS and blocks_host(t, ev):
            waits_by_thread.setdefault(ev.thread, []).append(ev.end)
            wait_starts.setdefault(ev.thread, []).append(ev.start)
    for v in list(waits_by_thread.values()) + list(wait_starts.values()):
        v.sort()

    profiler = []
    for a, b in sorted((ev.start, ev.end) for ev in t.cpu if ev.cat.lower() == "overhead"
                       and ev.name == "Activity Buffer Request" and ev.end > ev.start):
        if profiler and a <= profiler[-1][1]:
            profiler[-1][1] = max(profiler[-1][1], b)
        else:
            profiler.append([a, b])

    def cpu_part(a, b, cls, classes):
        inside = sum(max(0, min(b, p1) - max(a, p0)) for p0, p1 in profiler)
        classes["profiler"] += inside
        classes[cls] += b - a - inside

    steps = t.steps()
    if steps:
        windows = [(s.name, s.start, s.end) for s in steps]
    else:
        w0, w1 = t.window()
        windows = [("whole trace", w0, w1)]
    out = []
    for name, w0, w1 in windows:
        classes = {c: 0 for c in CLASSES}
        busy, by_wait = 0, 0
        # the window's busy pieces
        pieces = [(max(a, w0), min(b, w1)) for a, b in merged if b > w0 and a < w1]
        pieces = [p for p in pieces if p[1] > p[0]] if w1 > w0 else []
        for a, b in pieces:
            busy += b - a
        gaps, cur = [], w0
        for a, b in pieces:
            if a > cur:
                gaps.append((cur, a))
            cur = max(cur, b)
        if cur < w1:
            gaps.append((cur, w1))
        waits = 0
        for ev in t.cpu:
            if ev.name in STREAM_WAITS and w0 <= ev.start < w1:
                waits += 1
        for a, b in gaps:
            if b == w1:  # no GPU work after it in the window
                cpu_part(a, b, "tail", classes)
                continue
            nxt = work[bisect.bisect_left(starts, b)]
            launch = launch_of.get(nxt.args.get("correlation")) if "correlation" in nxt.args else None
            if launch is None:
                classes["unlinked"] += b - a
                continue
            upload = "HtoD" in nxt.name or "HostToDevice" in nxt.name
            queued = launch.start if (launch.name in GRAPH_LAUNCHES or (blocks_host(t, launch) and not upload)) \
                else launch.end
            lazy = False
            if not evidence and b - queued > KQUEUED_NS and b - a > KQUEUED_NS:
                starts_here = wait_starts.get(launch.thread, [])
                j = bisect.bisect_right(starts_here, b)
                if j > 0 and starts_here[j - 1] > max(queued, a) and b - starts_here[j - 1] <= KQUEUED_NS:
                    queued, lazy = starts_here[j - 1], True
            split = min(max(queued, a), b)
            if lazy and split > a:
                by_wait += 1
            if split > a:
                if a == w0:
                    cpu_part(a, split, "prefix", classes)
                else:
                    ends = waits_by_thread.get(launch.thread, [])
                    j = bisect.bisect_right(ends, a)
                    synced = j < len(ends) and ends[j] <= split
                    cpu_part(a, split, "sync" if synced else "launch", classes)
            if b > split:
                if b - split <= KQUEUED_NS:
                    classes["scheduling"] += b - split
                elif b <= first_gpu:
                    classes["backlog"] += b - split
                else:
                    classes["dependency"] += b - split
        out.append({"name": name, "start_ns": w0, "end_ns": w1, "busy_ns": busy, "gaps": len(gaps), "stream_waits": waits,
                    "submitted_at_wait": by_wait,
                    **{c + "_ns": v for c, v in classes.items()}})
    return {"windows": out}


if __name__ == "__main__":
    json.dump(analyze(sys.argv[1]), sys.stdout, indent=1)
    print()
