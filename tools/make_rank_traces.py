#!/usr/bin/env python3
"""Make N rank traces of one simulated distributed job from real rank traces, with one injected
straggler whose cause is known.

    python3 tools/make_rank_traces.py OUTDIR N SOURCE.json[.gz] [SOURCE ...]
        [--straggler R] [--delay-us D] [--block NAME] [--jitter-us J] [--seed S]

Generated rank r is a copy of SOURCE[r % len(SOURCES)] (real traces recorded by others, e.g. the
DLRM workers in the public corpus), with:
  - `distributedInfo` rank r of N;
  - its own clock: every timestamp moved by a per-rank offset (up to CLOCK_SPREAD_US), as
    separate machines' clocks would be, so a reader must align ranks on their collectives;
  - jitter: before each collective, every rank's host runs up to J µs late (uniform), inserted
    where the straggler's delay is inserted;
  - the straggler: every instance of the CPU block NAME on rank R (by default the longest block on
    the main thread before the first collective) takes D µs longer;
  - the wait that follows: a collective ends only when the last rank has arrived, so every rank
    that arrives early spends the difference inside that collective's kernel.

The model of time is "insert a pause": a pause of d at time t moves everything that starts after
t later by d (on every thread and stream of that rank) and stretches every host event open at t
by d, and the collective kernel a wait is inserted into; other GPU work in flight at t (a
backward kernel beside DDP's all-reduce) runs on and ends when it would have: the GPU does not
stop with the host, and a compute kernel stretched by the wait would hide the wait behind
"compute" that never ran.
Collectives are the communication kernels (`nccl…` names), matched across ranks by their order;
every source must have the same number of them. Writes OUTDIR/rank-NNNN.pt.trace.json.gz and
OUTDIR/truth.json (the straggler, its block, the innermost annotations the pauses fell in, the
delays and the clock offsets).
"""
import argparse
import bisect
import copy
import gzip
import json
import os
import random
import sys

# Separate hosts' clocks disagree by up to milliseconds (NTP); 50 ms keeps any alignment that
# assumes "same clock" visibly wrong.
CLOCK_SPREAD_US = 50_000.0
# Where a pause goes inside a block: its middle, so the block (and its parents) contain it.
BLOCK_POINT = 0.5
# A pause goes just inside a kernel's start, so the kernel itself stretches (1 ns, below any
# duration a trace records).
INSIDE_US = 0.001


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def complete_events(trace):
    return [e for e in trace["traceEvents"] if e.get("ph") == "X" and "ts" in e]


def is_collective(e):
    return e.get("cat") == "kernel" and e.get("name", "").lower().startswith("nccl")


def main_thread(trace):
    """The thread that holds the profiler steps (the training loop)."""
    for e in complete_events(trace):
        if e.get("name", "").startswith("ProfilerStep#") and e.get("cat") != "gpu_user_annotation":
            return e["tid"]
    raise SystemExit("no ProfilerStep# on a CPU thread: cannot tell the main thread")


def default_block(trace):
    """The longest annotated block on the main thread that ends before the first collective starts."""
    tid = main_thread(trace)
    first = min(e["ts"] for e in complete_events(trace) if is_collective(e))
    blocks = [e for e in complete_events(trace)
              if e["tid"] == tid and e.get("cat") == "user_annotation"
              and not e["name"].startswith("ProfilerStep#") and e["ts"] + e["dur"] <= first]
    if not blocks:
        raise SystemExit("no user_annotation block before the first collective: pass --block")
    return max(blocks, key=lambda e: e["dur"])["name"]


def innermost_annotation(annotations, t):
    """The shortest annotation open at time t: where a pause inserted at t is spent (the block NAME
    itself, or a block nested in it, such as a DataLoader span inside a copy-to-GPU block)."""
    open_at = [e for e in annotations if e["ts"] <= t < e["ts"] + e["dur"]]
    return min(open_at, key=lambda e: e["dur"])["name"]


class Pauses:
    """Pauses (time, length) on one rank's original clock; maps original times to new ones."""

    def __init__(self, pauses):
        pauses = sorted(pauses)
        self.times = [t for t, _ in pauses]
        self.before = [0.0]
        for _, d in pauses:
            self.before.append(self.before[-1] + d)

    def shift(self, t):
        """Total pause strictly before t."""
        return self.before[bisect.bisect_left(self.times, t)]


GPU_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation"}


def apply(trace, pauses, offset):
    for e in trace["traceEvents"]:
        if "ts" not in e:
            continue
        ts = float(e["ts"])
        start = ts + pauses.shift(ts)
        if e.get("ph") == "X" and "dur" in e:
            end = ts + float(e["dur"])
            runs_on = e.get("cat") in GPU_CATS and not is_collective(e)
            e["dur"] = round(float(e["dur"]) if runs_on else end + pauses.shift(end) - start, 3)
        e["ts"] = round(start + offset, 3)


def plan(sources, n, straggler, delay, block, jitter, rng):
    """Per rank: the pauses to insert. Collective c is a barrier: after it every rank is as late as
    the latest arrival."""
    collectives = [sorted((e for e in complete_events(s) if is_collective(e)), key=lambda e: e["ts"])
                   for s in sources]
    counts = {len(c) for c in collectives}
    if len(counts) != 1 or 0 in counts:
        raise SystemExit(f"sources must have the same, non-zero number of collectives: {sorted(counts)}")
    tids = [main_thread(s) for s in sources]
    blocks = [sorted((e for e in complete_events(s) if e["tid"] == tids[i] and e.get("name") == block),
                     key=lambda e: e["ts"]) for i, s in enumerate(sources)]
    if not blocks[straggler % len(sources)]:
        raise SystemExit(f"block {block!r} not found on the straggler's main thread")
    annotations = [[e for e in complete_events(s) if e["tid"] == tids[i] and e.get("cat") == "user_annotation"
                    and not e["name"].startswith("ProfilerStep#")] for i, s in enumerate(sources)]
    pauses = [[] for _ in range(n)]
    late = [0.0] * n           # how late each rank runs (µs) compared with its source
    injected = []
    for c in range(len(collectives[0])):
        arrive = []
        for r in range(n):
            src = r % len(sources)
            start = collectives[src][c]["ts"]
            previous_end = collectives[src][c - 1]["ts"] + collectives[src][c - 1]["dur"] if c else float("-inf")
            here = [b for b in blocks[src] if previous_end <= b["ts"] and b["ts"] + b["dur"] <= start]
            point = (here[0]["ts"] + BLOCK_POINT * here[0]["dur"]) if here else start - INSIDE_US
            d = rng.uniform(0.0, jitter)
            if r == straggler and here:
                d += delay
                injected.append({"collective": c, "block_ts_us": here[0]["ts"], "delay_us": delay,
                                 "innermost": innermost_annotation(annotations[src], point)})
            if d > 0:
                pauses[r].append((point, d))
            arrive.append(late[r] + d)
        everyone = max(arrive)
        for r in range(n):
            wait = everyone - arrive[r]
            if wait > 0:
                pauses[r].append((collectives[r % len(sources)][c]["ts"] + INSIDE_US, wait))
            late[r] = everyone
    return pauses, injected


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir")
    ap.add_argument("n", type=int)
    ap.add_argument("sources", nargs="+")
    ap.add_argument("--straggler", type=int, default=None, help="rank made late (default N // 2)")
    ap.add_argument("--delay-us", type=float, default=30_000.0)
    ap.add_argument("--block", default=None)
    ap.add_argument("--jitter-us", type=float, default=200.0)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    if a.n < 2:
        raise SystemExit("N must be at least 2")
    straggler = a.n // 2 if a.straggler is None else a.straggler
    if not 0 <= straggler < a.n:
        raise SystemExit(f"--straggler {straggler} is not a rank of {a.n}")
    rng = random.Random(a.seed)
    sources = [load(p) for p in a.sources]
    block = a.block or default_block(sources[straggler % len(sources)])
    pauses, injected = plan(sources, a.n, straggler, a.delay_us, block, a.jitter_us, rng)
    os.makedirs(a.outdir, exist_ok=True)
    offsets = []
    for r in range(a.n):
        trace = copy.deepcopy(sources[r % len(sources)])
        offset = rng.uniform(0.0, CLOCK_SPREAD_US)
        offsets.append(offset)
        apply(trace, Pauses(pauses[r]), offset)
        trace["distributedInfo"] = dict(trace.get("distributedInfo") or {}, rank=r, world_size=a.n)
        path = os.path.join(a.outdir, f"rank-{r:04d}.pt.trace.json.gz")
        with gzip.open(path + ".tmp", "wt", compresslevel=6) as f:
            json.dump(trace, f, separators=(",", ":"))
        os.replace(path + ".tmp", path)
    innermost = sorted({i["innermost"] for i in injected})
    truth = {"ranks": a.n, "sources": [os.path.basename(p) for p in a.sources], "straggler": straggler,
             "block": block, "innermost_blocks": innermost, "delay_us": a.delay_us, "jitter_us": a.jitter_us, "seed": a.seed,
             "injected": injected, "clock_offsets_us": offsets}
    with open(os.path.join(a.outdir, "truth.json"), "w") as f:
        json.dump(truth, f, indent=1)
    print(f"{a.n} ranks in {a.outdir}: rank {straggler}'s {block!r} {a.delay_us:g} µs longer "
          f"({len(injected)} times)", file=sys.stderr)


if __name__ == "__main__":
    main()
