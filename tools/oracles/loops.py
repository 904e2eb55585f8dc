#!/usr/bin/env python3
"""Loops inside a step (issue 13, item 5): an independent oracle, read straight from the raw trace.

The definition is src/analysis/steps/loops.cpp's header comment; this file implements it a second way,
by brute force over the raw JSON (Python's json and Decimal, nesting rebuilt with a stack, every
candidate marker's iterations compared as tuples of names, GPU work summed per iteration from the
launch calls' correlation ids), so tests/loops_oracle.py can hold whyslow's loops[] to it.

Per step (a ProfilerStep#N on a CPU thread; a trace without steps: one pseudo-step, the top-level
events of its main thread (cpu_breakdown.Trace.main_thread), over their span, named "whole trace"):
  * the block is the step, or, while its longest child lasts >= 90 % of it, that child; the
    top-level events are the block's children (events on its thread it immediately encloses);
  * a marker is a name occurring >= 3 times among them; occurrences are dropped from the front
    while the gap to the next is under half the (upper) median of the later gaps (at most 3 of
    them, else the name is no marker); the later gaps
    must then all lie within max(1, 10 %) of that median p; when the first occurrence is at
    position s > 0 and the s names before every later occurrence are the block's first s names
    (s under every gap), every occurrence moves s positions earlier (the iterations start with
    the block);
  * iteration k runs from occurrence k to occurrence k+1; the last from the last occurrence over
    at most p events, kept when it holds >= p/2 of them; >= 3 iterations;
  * iterations 2..N together (second's first event's start to the last's last event's end) take
    >= a tenth of iteration 1 (its first event's start to the second's), unless iteration 1 holds
    the same names as the most common sequence of iterations 2..N;
  * at least 2, and half, of iterations 2..N hold the same sequence of names; where the marker
    records "Input Dims", at least 2 of iterations 2..N open on the same dims (layers of one
    pass repeat names on new shapes; a loop repeats its work);
  * the marker whose iterations span the most top-level events wins (ties: the earliest start,
    then the marker whose first occurrence is nearest it);
  * kept when it spans >= half the step's time and >= half its top-level events.
Each iteration is [start of its first event, start of the next iteration) (the last: to the end of
its last event); GPU busy is the union of the kernels, copies and memsets whose launch call starts
in it (a launch at an iteration's start belongs to it, not to the one before); sync wait is the
blocking calls on the step's thread starting in it, clipped at its end.

Usage:  python3 loops.py TRACE.json[.gz]   -> JSON on stdout: {"loops": [...]} (times in ns)
"""
from __future__ import annotations

import json
import sys
from collections import defaultdict

import cpu_breakdown as cb

GPU_WORK = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"}
CPU_SIDE = cb.OP_CATS | cb.ANNOTATION_CATS | cb.PYTHON_CATS | cb.RUNTIME_CATS | {"overhead", "Overhead"}


def upper_median(values):
    v = sorted(values)
    return v[len(v) // 2] if v else 0


def children_of(events_on_thread, block):
    """Events `block` immediately encloses (a stack over the thread's events sorted by start, longer first)."""
    b0, b1 = block["t0"], block["t1"]
    inside = [e for e in events_on_thread if e is not block and b0 <= e["t0"] and e["t1"] <= b1
              and not (e["t0"] == b0 and e["t1"] == b1 and e["order"] < block["order"])]
    inside.sort(key=lambda e: (e["t0"], -(e["t1"] - e["t0"]), e["order"]))
    out, stack = [], []
    for e in inside:
        while stack and not (e["t0"] >= stack[-1]["t0"] and e["t1"] <= stack[-1]["t1"]):
            stack.pop()
        if not stack:
            out.append(e)
        stack.append(e)
    return out


def marker_iterations(names, positions, kids):
    pos = list(positions)
    dropped = 0
    while True:
        if len(pos) < 3:
            return None
        p = upper_median([b - a for a, b in zip(pos[1:], pos[2:])])
        if 2 * (pos[1] - pos[0]) >= p:
            break
        if dropped == 3:
            return None
        pos.pop(0)
        dropped += 1
    later = [b - a for a, b in zip(pos[1:], pos[2:])]
    p = upper_median(later)
    slack = max(1.0, 0.1 * p)
    if any(abs(g - p) > slack for g in later):
        return None
    # the marker sits late in each iteration: the s = pos[0] events before every occurrence are the
    # block's first s events (and s is under every gap) -> every iteration starts s events earlier
    marker_at = s = pos[0]
    if s > 0 and all(s < b - a and names[b - s:b] == names[:s] for a, b in zip(pos, pos[1:])):
        pos = [x - s for x in pos]
    spans = [(a, b - 1) for a, b in zip(pos, pos[1:])]
    last_end = min(len(names), pos[-1] + p)
    if 2 * (last_end - pos[-1]) >= p:
        spans.append((pos[-1], last_end - 1))
    if len(spans) < 3:
        return None
    counts = defaultdict(int)
    for a, b in spans[1:]:
        counts[tuple(names[a:b + 1])] += 1
    most = max(counts.values())
    if most < 2 or most < 0.5 * (len(spans) - 1):
        return None
    usual = next(seq for a, b in spans[1:] for seq in [tuple(names[a:b + 1])] if counts[seq] == most)
    first_ns = kids[spans[1][0]]["t0"] - kids[spans[0][0]]["t0"]
    later_ns = kids[spans[-1][1]]["t1"] - kids[spans[1][0]]["t0"]
    if tuple(names[spans[0][0]:spans[0][1] + 1]) != usual and later_ns < 0.1 * first_ns:
        return None
    if kids[spans[1][0]]["dims"] is not None:
        opened = defaultdict(int)
        for a, _ in spans[1:]:
            opened[json.dumps(kids[a]["dims"])] += 1
        if max(opened.values()) < 2:
            return None
    return p, spans, marker_at


def analyze(path: str) -> dict:
    _, raw = cb.load_events(path)
    events = []
    for i, e in enumerate(raw):
        if e.get("ph") != "X" or "ts" not in e:
            continue
        t0 = cb.to_ns(e["ts"])
        events.append({"name": e.get("name", ""), "cat": e.get("cat", ""), "t0": t0,
                       "t1": t0 + cb.to_ns(e.get("dur", 0)), "thread": cb.thread_key(e), "order": i,
                       "corr": (e.get("args") or {}).get("correlation"),
                       "dims": (e.get("args") or {}).get("Input Dims")})
    by_thread = defaultdict(list)
    for e in events:
        if e["cat"] in CPU_SIDE:
            by_thread[e["thread"]].append(e)
    launches = {e["corr"]: e for e in events if e["cat"] in cb.RUNTIME_CATS and e["corr"] is not None}
    gpu = [(launches[e["corr"]], e) for e in events if e["cat"] in GPU_WORK and e["corr"] in launches]
    # A copy from pageable memory blocks its launch call until it is done (as in cpu_breakdown.py).
    pageable = frozenset(e["corr"] for e in events if e["cat"] in GPU_WORK and "Pageable" in e["name"])
    steps = sorted((e for e in events if e["cat"] in cb.ANNOTATION_CATS | cb.OP_CATS
                    and e["name"].startswith("ProfilerStep#") and e["name"][13:].isdigit()), key=lambda e: e["t0"])
    if not steps:
        main = cb.Trace(path).main_thread()
        mine = by_thread.get(main, [])
        roots = children_of(mine, {"t0": min((e["t0"] for e in mine), default=0),
                                   "t1": max((e["t1"] for e in mine), default=0), "order": -1}) if mine else []
        if roots:
            steps = [{"name": "whole trace", "thread": main, "t0": roots[0]["t0"],
                      "t1": max(e["t1"] for e in roots), "order": -1, "pseudo": True}]
    loops = []
    for step in steps:
        thread = by_thread[step["thread"]]
        block = step
        kids = children_of(thread, block)
        while kids:
            longest = max(kids, key=lambda e: e["t1"] - e["t0"])
            if (longest["t1"] - longest["t0"]) < 0.9 * (block["t1"] - block["t0"]):
                break
            nxt = children_of(thread, longest)
            if not nxt:
                break
            block, kids = longest, nxt
        names = [k["name"] for k in kids]
        positions = defaultdict(list)
        for i, n in enumerate(names):
            positions[n].append(i)
        best = None
        for name, pos in positions.items():
            if len(pos) < 3:
                continue
            found = marker_iterations(names, pos, kids)
            if not found:
                continue
            p, spans, marker_at = found
            covered = spans[-1][1] + 1 - spans[0][0]
            key = (covered, -spans[0][0], -marker_at)
            if best is None or key > best[0]:
                best = (key, name, p, spans)
        if not best:
            continue
        _, marker, p, spans = best
        windows = []
        for k, (a, b) in enumerate(spans):
            end = kids[spans[k + 1][0]]["t0"] if k + 1 < len(spans) else kids[b]["t1"]
            windows.append([kids[a]["t0"], end])
        span_ns = windows[-1][1] - windows[0][0]
        if span_ns < 0.5 * (step["t1"] - step["t0"]) or (spans[-1][1] + 1 - spans[0][0]) < 0.5 * len(kids):
            continue
        each = []
        for w0, w1 in windows:
            busy = []
            for launch, work in gpu:
                # The launch belongs to the latest-starting iteration it falls in.
                if w0 <= launch["t0"] <= w1 and not any(o0 <= launch["t0"] <= o1 and o0 > w0 for o0, o1 in windows):
                    busy.append((work["t0"], work["t1"]))
            busy.sort()
            union, cur = 0, None
            for s0, s1 in busy:
                if cur is None or s0 > cur[1]:
                    if cur:
                        union += cur[1] - cur[0]
                    cur = [s0, s1]
                else:
                    cur[1] = max(cur[1], s1)
            if cur:
                union += cur[1] - cur[0]
            wait = sum(min(e["t1"], w1) - e["t0"] for e in thread
                       if e["cat"] in cb.RUNTIME_CATS and w0 <= e["t0"] <= w1
                       and cb.runtime_category(e["name"], e["corr"], pageable) == "sync_wait"
                       and not any(o0 <= e["t0"] <= o1 and o0 > w0 for o0, o1 in windows))
            each.append({"start_ns": w0, "duration_ns": w1 - w0, "cpu_ns": max(0, w1 - w0 - wait),
                         "gpu_busy_ns": union})
        rest = each[1:]
        block_name = "(top level)" if block is step and step.get("pseudo") else block["name"]
        loops.append({"step": step["name"], "block": block_name, "marker": marker, "period": p,
                      "iterations": len(each), "first_ns": each[0]["duration_ns"],
                      "median_ns": upper_median([x["duration_ns"] for x in rest]),
                      "cpu_median_ns": upper_median([x["cpu_ns"] for x in rest]),
                      "gpu_median_ns": upper_median([x["gpu_busy_ns"] for x in rest]), "each": each})
    return {"loops": loops}


if __name__ == "__main__":
    json.dump(analyze(sys.argv[1]), sys.stdout, indent=1)
