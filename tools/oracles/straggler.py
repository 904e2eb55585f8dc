#!/usr/bin/env python3
"""The straggler and its cause (issue 28 item 3): an independent oracle read from the raw traces of
a job's ranks, written from the definition (src/analysis/ranks/cross_rank.hpp, straggler.cpp), not
from the C++:

  * collectives: the communication kernels (comm_overlap.py's is_comm); in a trace without any,
    the host's collectives: `gloo:*` user annotations (Gloo runs each on a worker thread);
  * lateness: the collectives matched across ranks by their order, clocks aligned on the upper
    median difference of their ends against rank 0; at each, the wait from the first aligned
    start to the last is charged to the rank that started last (the first of equal starts); per
    rank, the union of its waits (collectives in flight together count once), divided (integer)
    by its trace's ProfilerStep count (1 without steps). The straggler is the rank with the most.
  * the user's code per rank: the block groups of blocks.py (record_function blocks, modules by
    class, the user's Python functions), summed by (kind, label), CPU time and GPU work launched
    beneath each, divided (integer) by the same step count.
  * the cause: of the straggler's code blocks, by CPU time or by GPU work, the one that exceeds
    the other ranks' median (the upper median; 0 for a rank without the block) the most, when that
    is at least half the straggler's lateness; of those within 90 % of that excess, the one the
    straggler spends the least in (the innermost). None when no code block does (whyslow then
    looks at the CPU categories, which this oracle does not compute).

Usage: straggler.py TRACE... -> JSON {"ranks": [...], "late_ns": [...], "straggler": rank,
"cause": {"kind", "block", "measure", "block_ns", "others_ns"} or null}.
"""
from __future__ import annotations

import gzip
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import blocks  # noqa: E402
import comm_overlap  # noqa: E402

STEP = re.compile(r"^ProfilerStep#\d+$")
MIN_CAUSE_SHARE = 0.5
INNERMOST_SHARE = 0.9


def load(path):
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f)


def rank_and_steps(path):
    t = load(path)
    steps = sum(1 for e in t["traceEvents"] if e.get("ph") == "X" and STEP.match(str(e.get("name", "")))
                and e.get("cat") != "gpu_user_annotation")
    return (t.get("distributedInfo") or {})["rank"], max(1, steps)


def collectives(path):
    events = [e for e in load(path)["traceEvents"] if e.get("ph") == "X" and "ts" in e]
    spans = [e for e in events if e.get("cat") in ("kernel", "Kernel") and comm_overlap.is_comm(e.get("name", ""))]
    if not spans:
        spans = [e for e in events if e.get("cat") == "user_annotation" and e["name"].startswith("gloo:")]
    return sorted((comm_overlap.ns(e["ts"]), comm_overlap.ns(e["ts"]) + comm_overlap.ns(e["dur"])) for e in spans)


def union(intervals):
    total, end = 0, None
    for a, b in sorted(intervals):
        if end is None or a > end:
            total, end = total + b - a, b
        elif b > end:
            total, end = total + b - end, b
    return total


def lateness(paths):
    ranks = [collectives(p) for p in paths]
    n = min(len(r) for r in ranks)
    offsets = [upper_median([r[i][1] - ranks[0][i][1] for i in range(n)]) for r in ranks]
    waits = [[] for _ in ranks]
    for i in range(n):
        starts = [ranks[r][i][0] - offsets[r] for r in range(len(ranks))]
        if max(starts) > min(starts):
            waits[starts.index(max(starts))].append((min(starts), max(starts)))
    return [union(w) for w in waits]


def code_blocks(path, steps):
    sums = {}
    for g in blocks.analyze(path)["groups"]:
        cpu, gpu = sums.get((g["kind"], g["label"]), (0, 0))
        sums[(g["kind"], g["label"])] = (cpu + g["cpu_ns"], gpu + g["gpu_ns"])
    return {k: (cpu // steps, gpu // steps) for k, (cpu, gpu) in sums.items()}


def upper_median(values):
    return sorted(values)[len(values) // 2]


def main(paths):
    info = sorted((rank_and_steps(p), p) for p in paths)
    paths = [p for _, p in info]
    ranks = [r for (r, _), _ in info]
    steps = [s for (_, s), _ in info]
    late = [l // n for l, n in zip(lateness(paths), steps)]
    s = max(range(len(paths)), key=lambda r: (late[r], -r))
    code = [code_blocks(p, n) for p, n in zip(paths, steps)]
    found = []
    for key, mine in code[s].items():
        for m, measure in enumerate(("cpu", "gpu")):
            others = upper_median([code[r].get(key, (0, 0))[m] for r in range(len(paths)) if r != s])
            if mine[m] > others:
                found.append({"kind": key[0], "block": key[1], "measure": measure, "block_ns": mine[m],
                              "others_ns": others})
    best = max((f["block_ns"] - f["others_ns"] for f in found), default=0)
    cause = None
    if best > 0 and best >= MIN_CAUSE_SHARE * late[s]:
        near = [f for f in found if f["block_ns"] - f["others_ns"] >= INNERMOST_SHARE * best]
        cause = min(near, key=lambda f: f["block_ns"])
    print(json.dumps({"ranks": ranks, "late_ns": late, "straggler": ranks[s], "cause": cause}, indent=1))


if __name__ == "__main__":
    main(sys.argv[1:])
