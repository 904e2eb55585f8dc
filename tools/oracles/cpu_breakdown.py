#!/usr/bin/env python3
"""CPU time by category (issue 12, item 1): an independent oracle, read straight from the raw trace.

The definition is src/analysis/cpu/cpu_time.cpp's header comment; this file implements it a second way
(a heap of open events per time slice instead of a stack sweep), from the raw JSON, with Python's
json and Decimal, so tests/cpu_breakdown_oracle.py can hold whyslow's numbers to it.  Per step (a ProfilerStep#N range on a CPU
thread) every nanosecond of [start, end) on the step's own thread gets exactly one category, so the
categories sum to the step's duration.  A trace without steps gets one "window" on its main thread.

Usage:  python3 cpu_breakdown.py TRACE.json[.gz]   -> JSON on stdout

Written by a helper of the project from the definition alone (not from the C++), then aligned with
the three readings the C++ documents: ops count as dispatch when their top-level op launches GPU
work (but an aten::copy_ that calls no runtime or driver function inside it is cpu_compute: it copied
on the CPU); a copy from pageable memory blocks the host (sync_wait); the main thread of a stepless trace
is, of the threads that launch GPU work, the one with the most top-level time.

Readings chosen where the spec is loose (see FINDINGS.md):
  * "Innermost open event" = the open event with the latest start; ties go to the one that ends
    first, then to the deeper kind (runtime call > cpu_op > user annotation > python frame), then
    to the later one in the file.  With proper nesting this is the usual innermost; with a partial
    overlap (which real traces have) it is still well defined.
  * compile markers are matched on record_function names (cpu_op / user_annotation) only, never on
    python_function frames: those are file paths, and 'compiler.py(174): get_arg_specialization'
    (Triton's launcher) or 'torch/_inductor/...' frames run compiled code, they do not compile.
  * 2021 traces (cat "Operator") have no separate user_annotation category: an Operator whose name
    has a '#' (ProfilerStep#5, enumerate(DataLoader)#..., Optimizer.step#SGD.step) or is '## .. ##'
    is a record_function annotation.
  * Legacy traces (torch without Kineto: a bare array, no cat, pid "CPU functions") name no kind:
    a name with a namespace ('::') or an autograd node ('<Name>Backward<N>') is an op, any other
    name (ProfilerStep#N, record_function blocks) an annotation.
  * Profiler overhead events on the thread other than buffer requests (Lazy Function Loading,
    Runtime Triggered Module Loading) are driver work done for a launch: launch.
  * Time with no event open on the thread while an "Activity Buffer Request" (category overhead,
    on any track: Kineto puts them on a row of their own) runs is profiler: the thread is stalled
    in CUPTI; other time with no event open is other.
  * Times are integer ns on the trace's own clock: ts*1000, converted exactly from the decimal text.
"""
from __future__ import annotations

import bisect
import gzip
import heapq
import json
import re
import sys
from dataclasses import dataclass, field
from decimal import Decimal, ROUND_HALF_EVEN

CATEGORIES = ["data_loading", "sync_wait", "allocator", "launch", "compile", "profiler",
              "python", "dispatch", "cpu_compute", "other"]

# Categories of events that happen on the device (GPU / MTIA), not on a CPU thread.
DEVICE_SIDE_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation", "cuda_sync",
                    "Kernel", "Memcpy", "Memset", "mtia_ccp_events", "cuda_profiler_range"}
# Device work that a launch call can be linked to through `correlation`.
DEVICE_WORK_CATS = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset",
                    "mtia_ccp_events"}
RUNTIME_CATS = {"cuda_runtime", "cuda_driver", "Runtime", "mtia_runtime"}
OP_CATS = {"cpu_op", "Operator"}
LEGACY_CPU_PID = "CPU functions"
LEGACY_AUTOGRAD_NODE = re.compile(r".+Backward[0-9]+")
ANNOTATION_CATS = {"user_annotation"}
PYTHON_CATS = {"python_function"}
NOT_ACTIVITY_CATS = {"Trace"}  # the profiler's own span: not an activity, not in the window

DATALOADER_PREFIXES = ("enumerate(DataLoader)#", "enumerate(DataPipe)#")
PROFILER_NAMES = {"Activity Buffer Request", "Buffer Flush"}
COMPILE_EXACT = {"TorchDynamo Cache Lookup"}
COMPILE_SUBSTRINGS = ("CompileFx", "compile_fx", "_compile", "Dynamo", "inductor", "dynamo_timed")
# The compiled code's own calls, and Inductor's CUDA graph trees ("cudagraphify.get_container
# (dynamo_timed)" runs at every call of a reduce-overhead function): not compilation.
COMPILE_EXCLUDED_PREFIXES = ("Torch-Compiled Region", "## Call CompiledFxGraph", "CompiledFunction", "cudagraphify")

SYNC_NAMES = {"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize",
              "cuCtxSynchronize", "cuStreamSynchronize", "cuEventSynchronize",
              "hipDeviceSynchronize", "hipStreamSynchronize", "hipEventSynchronize",
              "hipMemcpyWithStream",
              "synchronizeStream", "synchronizeDevice", "synchronize"}  # last three: MTIA runtime
ALLOC_NAMES = {"cudaMalloc", "cudaFree", "cudaMallocHost", "cudaHostAlloc", "cudaFreeHost",
               "cudaMallocAsync", "cudaFreeAsync", "cudaMallocManaged", "cudaMallocPitch",
               "cuMemCreate", "cuMemMap", "cuMemUnmap", "cuMemRelease", "cuMemAddressReserve",
               "cuMemAddressFree", "cuMemSetAccess",
               "hipMalloc", "hipFree", "hipHostMalloc", "hipHostFree", "hipExtMallocWithFlags",
               "hipMallocAsync", "hipFreeAsync", "hipMallocManaged"}
ALLOC_PREFIXES = ("cuMemAlloc", "cuMemFree")

# Tie-break depth when two events open and close at the same instants: the deeper kind is inner.
DEPTH = {"python": 0, "annotation": 1, "op": 2, "other_cpu": 2, "runtime": 3}


def to_ns(value) -> int:
    """µs number (int, Decimal, or their text) -> integer ns, exact for the decimal text."""
    if isinstance(value, int):
        return value * 1000
    d = value if isinstance(value, Decimal) else Decimal(str(value))
    return int((d * 1000).to_integral_value(rounding=ROUND_HALF_EVEN))


def load_events(path: str) -> tuple[dict, list]:
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        doc = json.load(f, parse_float=Decimal)
    if isinstance(doc, list):
        return {}, doc
    return doc, doc.get("traceEvents", [])


def thread_key(e) -> tuple[str, str]:
    # 2021 traces write the CPU tid as a string on slices and as an int on flows.
    return (str(e.get("pid")), str(e.get("tid")))


def is_annotation_name(name: str) -> bool:
    return "#" in name and not name.startswith("aten::")


@dataclass
class Event:
    index: int
    name: str
    cat: str
    pid: object
    tid: object
    start: int
    end: int
    args: dict = field(default_factory=dict)

    @property
    def dur(self) -> int:
        return self.end - self.start

    @property
    def thread(self):
        return (str(self.pid), str(self.tid))

    @property
    def kind(self) -> str:
        if self.cat == "" and str(self.pid) == LEGACY_CPU_PID:
            return "op" if "::" in self.name or LEGACY_AUTOGRAD_NODE.fullmatch(self.name) else "annotation"
        if self.cat in RUNTIME_CATS:
            return "runtime"
        if self.cat in PYTHON_CATS:
            return "python"
        if self.cat in ANNOTATION_CATS:
            return "annotation"
        if self.cat in OP_CATS:
            if self.cat == "Operator" and (is_annotation_name(self.name)
                                           or self.name.startswith("## ")):
                return "annotation"
            return "op"
        return "other_cpu"


def any_inside(spans: list, ev: Event) -> bool:
    """Does one of `spans` (sorted (start, end) pairs) lie within `ev`?"""
    i = bisect.bisect_left(spans, (ev.start, -1))
    while i < len(spans) and spans[i][0] < ev.end:
        if spans[i][1] <= ev.end:
            return True
        i += 1
    return False


class Trace:
    """The complete ('X') events of one trace, with times in ns."""

    def __init__(self, path: str):
        self.path = path
        self.meta, raw = load_events(path)
        self.cpu: list[Event] = []      # CPU-side slices
        self.device: list[Event] = []   # device-side slices (kernels, copies, MTIA ccp events, ...)
        self.all_x: list[Event] = []    # every slice except the profiler's Trace span
        for i, e in enumerate(raw):
            if not isinstance(e, dict) or e.get("ph") != "X" or "ts" not in e:
                continue
            cat = e.get("cat") or ""
            if cat in NOT_ACTIVITY_CATS:
                continue
            start = to_ns(e["ts"])
            ev = Event(i, str(e.get("name", "")), cat, e.get("pid"), e.get("tid"), start,
                       start + to_ns(e.get("dur", 0)), e.get("args") or {})
            self.all_x.append(ev)
            (self.device if cat in DEVICE_SIDE_CATS else self.cpu).append(ev)
        self.by_thread: dict[tuple, list[Event]] = {}
        for ev in self.cpu:
            self.by_thread.setdefault(ev.thread, []).append(ev)
        for evs in self.by_thread.values():
            evs.sort(key=lambda x: (x.start, -x.end, DEPTH[x.kind], x.index))
        self._linked_launches = None

    # --- links -----------------------------------------------------------------------------
    def device_correlations(self) -> set:
        out = set()
        for ev in self.device:
            if ev.cat in DEVICE_WORK_CATS and "correlation" in ev.args:
                out.add(ev.args["correlation"])
        return out

    def linked_launches(self) -> dict:
        """thread -> sorted [(start, end)] of runtime/driver calls linked to device work."""
        if self._linked_launches is None:
            corr = self.device_correlations()
            out: dict[tuple, list] = {}
            for ev in self.cpu:
                if ev.cat in RUNTIME_CATS and ev.args.get("correlation") in corr:
                    out.setdefault(ev.thread, []).append((ev.start, ev.end))
            for v in out.values():
                v.sort()
            self._linked_launches = out
        return self._linked_launches

    def calls_runtime_inside(self, ev: Event) -> bool:
        """Does any runtime or driver call run inside `ev` on its own thread?"""
        if not hasattr(self, "_runtime_calls"):
            self._runtime_calls = {}
            for x in self.cpu:
                if x.cat in RUNTIME_CATS:
                    self._runtime_calls.setdefault(x.thread, []).append((x.start, x.end))
            for v in self._runtime_calls.values():
                v.sort()
        return any_inside(self._runtime_calls.get(ev.thread, []), ev)

    def pageable_copy_correlations(self) -> set:
        """Correlations of copies from/to pageable host memory: their calls block the host."""
        return {ev.args["correlation"] for ev in self.device
                if ev.cat in ("gpu_memcpy", "Memcpy") and "Pageable" in ev.name and "correlation" in ev.args}

    def outermost_op(self, ev: Event) -> Event:
        """The outermost op ("cpu_op") that encloses `ev` on its thread (`ev` itself when none)."""
        if not hasattr(self, "_outermost"):
            self._outermost = {}
            for evs in self.by_thread.values():
                stack = []  # open events, outermost first (evs is sorted by start, longest first)
                for x in evs:
                    while stack and stack[-1].end <= x.start:
                        stack.pop()
                    top = next((o for o in stack if o.kind == "op"), None)
                    self._outermost[x.index] = top if top is not None else x
                    stack.append(x)
        found = self._outermost.get(ev.index, ev)
        return found if found.kind == "op" else ev

    def in_python_work(self, ev: Event) -> bool:
        """Is `ev` inside (or itself) a python frame of >= 1 ms that launches no device work?"""
        if not hasattr(self, "_python_work"):
            self._python_work = set()
            for evs in self.by_thread.values():
                stack = []
                for x in evs:
                    while stack and stack[-1][0].end <= x.start:
                        stack.pop()
                    inside = bool(stack) and stack[-1][1]
                    mine = inside or (x.kind == "python" and x.dur >= 1_000_000 and not self.launches_inside(x))
                    if mine:
                        self._python_work.add(x.index)
                    stack.append((x, mine))
        return ev.index in self._python_work

    def launches_inside(self, ev: Event) -> bool:
        """Does a launch linked to device work run inside `ev` on its own thread?"""
        return any_inside(self.linked_launches().get(ev.thread, []), ev)

    # --- steps and windows -----------------------------------------------------------------
    def steps(self) -> list[Event]:
        s = [ev for ev in self.cpu if ev.name.startswith("ProfilerStep#")
             and ev.kind == "annotation"]
        return sorted(s, key=lambda x: (x.start, x.index))

    def window(self) -> tuple[int, int]:
        return (min(ev.start for ev in self.all_x), max(ev.end for ev in self.all_x))

    def main_thread(self) -> tuple:
        """Of the threads that launch device work (all, when none does), the one whose top-level
        events (not inside another event) add up longest."""
        best, best_total = None, (False, -1)
        launching = self.linked_launches()
        for key, evs in self.by_thread.items():
            total, reach = 0, None
            for ev in evs:  # sorted by start, longest first: a top-level event starts past reach
                if reach is None or ev.end > reach:
                    if reach is None or ev.start >= reach:
                        total += ev.dur
                    else:  # partial overlap: count only the part past the previous reach
                        total += ev.end - reach
                    reach = ev.end if reach is None else max(reach, ev.end)
            score = (key in launching, total)
            if score > best_total:
                best, best_total = key, score
        return best


# --- classification -----------------------------------------------------------------------
def is_dataloader(ev: Event) -> bool:
    return ev.name.startswith(DATALOADER_PREFIXES)


def is_profiler(ev: Event) -> bool:
    return ev.name in PROFILER_NAMES


def is_compile(ev: Event) -> bool:
    if ev.kind not in ("op", "annotation"):
        return False
    if ev.name.startswith(COMPILE_EXCLUDED_PREFIXES):
        return False
    return ev.name in COMPILE_EXACT or any(s in ev.name for s in COMPILE_SUBSTRINGS)


def runtime_category(name: str, correlation=None, pageable=frozenset()) -> str:
    if correlation is not None and correlation in pageable:
        return "sync_wait"  # a copy from pageable memory: the call returns when the copy is done
    if name in SYNC_NAMES:
        return "sync_wait"
    if (name.startswith("cudaMemcpy") or name.startswith("hipMemcpy")) and "Async" not in name \
            and name != "hipMemcpyWithStream":
        return "sync_wait"  # blocking copies
    if name in ALLOC_NAMES or name.startswith(ALLOC_PREFIXES):
        return "allocator"
    return "launch"


def innermost_category(trace: Trace, ev: Event | None) -> str:
    if ev is None:
        return "other"
    kind = ev.kind
    if kind == "runtime":
        if not hasattr(trace, "_pageable"):
            trace._pageable = trace.pageable_copy_correlations()
        return runtime_category(ev.name, ev.args.get("correlation"), trace._pageable)
    if kind == "python":
        # CPU work in Python: inside a call of >= 1 ms that launches no device work.
        return "cpu_compute" if trace.in_python_work(ev) else "python"
    if kind == "op":
        # An aten::copy_ that calls no runtime or driver function copied on the CPU.
        if ev.name == "aten::copy_" and not trace.calls_runtime_inside(ev):
            return "cpu_compute"
        return "dispatch" if trace.launches_inside(trace.outermost_op(ev)) else "cpu_compute"
    if ev.cat == "overhead" and ev.name not in PROFILER_NAMES:
        return "launch"  # CUDA driver work done for the first launch of a function
    return "other"  # user annotation self time, or an unknown CPU-side slice


def breakdown(trace: Trace, thread: tuple, w0: int, w1: int, detail: dict | None = None) -> dict:
    """ns per category over [w0, w1) on `thread`; sums to w1 - w0.

    If `detail` is a dict, it also gets {category: {event name: ns}} (the innermost event's name,
    '(nothing open)' for uncovered time), to see what a category is made of."""
    out = {c: 0 for c in CATEGORIES}
    evs = [ev for ev in trace.by_thread.get(thread, []) if ev.start < w1 and ev.end > w0
           and ev.end > ev.start]
    if not hasattr(trace, "_buffer_requests"):
        trace._buffer_requests = sorted((ev.start, ev.end) for ev in trace.cpu if ev.cat.lower() == "overhead"
                                        and ev.name == "Activity Buffer Request" and ev.end > ev.start)
    books = [(max(p0, w0), min(p1, w1)) for p0, p1 in trace._buffer_requests if p1 > w0 and p0 < w1]
    points = {w0, w1}
    for p0, p1 in books:
        points.update((p0, p1))
    for ev in evs:
        points.add(max(ev.start, w0))
        points.add(min(ev.end, w1))
    points = sorted(points)
    starts = sorted(evs, key=lambda x: max(x.start, w0))
    si = 0
    heap = []  # innermost first: latest start, earliest end, deepest kind, latest in file
    flags = {"data_loading": 0, "profiler": 0, "compile": 0}
    ends = []  # (end, flag names) so the flag counters can be released
    cat_cache: dict[int, str] = {}
    for a, b in zip(points, points[1:]):
        while si < len(starts) and max(starts[si].start, w0) <= a:
            ev = starts[si]
            si += 1
            heapq.heappush(heap, (-ev.start, ev.end, -DEPTH[ev.kind], -ev.index, id(ev), ev))
            fl = []
            if is_dataloader(ev):
                fl.append("data_loading")
            if is_profiler(ev):
                fl.append("profiler")
            if is_compile(ev):
                fl.append("compile")
            for f in fl:
                flags[f] += 1
            heapq.heappush(ends, (ev.end, ev.index, fl))
        while ends and ends[0][0] <= a:
            _, _, fl = heapq.heappop(ends)
            for f in fl:
                flags[f] -= 1
        while heap and heap[0][1] <= a:
            heapq.heappop(heap)
        inner = heap[0][-1] if heap else None
        if flags["data_loading"]:
            cat = "data_loading"
        elif flags["profiler"]:
            cat = "profiler"
        elif flags["compile"]:
            cat = "compile"
        elif inner is None and any(p0 <= a < p1 for p0, p1 in books):
            cat = "profiler"
        else:
            key = inner.index if inner is not None else -1
            if key not in cat_cache:
                cat_cache[key] = innermost_category(trace, inner)
            cat = cat_cache[key]
        out[cat] += b - a
        if detail is not None:
            name = inner.name if inner is not None else "(nothing open)"
            per = detail.setdefault(cat, {})
            per[name] = per.get(name, 0) + (b - a)
    assert sum(out.values()) == w1 - w0, (thread, w0, w1)
    return out


def analyze(path: str) -> dict:
    trace = Trace(path)
    steps = trace.steps()
    result = {"trace": path, "time_unit": "ns, on the trace's own clock (ts * 1000)",
              "categories": CATEGORIES}
    rows = []
    if steps:
        for st in steps:
            cats = breakdown(trace, st.thread, st.start, st.end)
            rows.append({"name": st.name, "start_ns": st.start, "duration_ns": st.dur,
                         "thread": [st.pid, st.tid], "categories": cats})
        result["steps"] = rows
    else:
        w0, w1 = trace.window()
        thread = trace.main_thread()
        cats = breakdown(trace, thread, w0, w1) if thread else {c: 0 for c in CATEGORIES}
        rows.append({"name": "window", "start_ns": w0, "duration_ns": w1 - w0,
                     "thread": list(thread) if thread else None, "categories": cats})
        result["window"] = rows[0]
    totals = {c: sum(r["categories"][c] for r in rows) for c in CATEGORIES}
    result["totals"] = {"duration_ns": sum(r["duration_ns"] for r in rows), "categories": totals}
    for r in rows:
        assert sum(r["categories"].values()) == r["duration_ns"]
    return result


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: cpu_breakdown.py TRACE.json[.gz]")
    json.dump(analyze(sys.argv[1]), sys.stdout, indent=1)
    print()
