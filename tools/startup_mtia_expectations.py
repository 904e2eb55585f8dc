#!/usr/bin/env python3
"""Independent numbers for tests/public_startup_mtia_test.cpp (issue 12 items 3 and 5), from the raw
JSON of the public traces with the standard library only. Times are exact integer ns, taken from the
decimal text of ts/dur (never through a float).

Usage: tools/startup_mtia_expectations.py [/work/shared/traces/public]
"""
import gzip, json, sys
from collections import Counter
from decimal import Decimal

ROOT = sys.argv[1] if len(sys.argv) > 1 else "/work/shared/traces/public"
HTA = "facebookresearch__HolisticTraceAnalysis/tests__data__"
MTIA_TRAIN = HTA + "mtia_trace_single_rank__mtia_rank_0.json.gz"
MTIA_INFER = HTA + "mtia_inference_trace__mtia_inference_rank_0.json.gz"
ALEXNET = HTA + "critical_path__alexnet__benchmark_result_2869224_1695835535_trace.json.gz"
PARAM_RESNET = "facebookresearch__param/et_replay__tests__inputs__resnet_kineto.json.gz"
PARAM_LINEAR = "facebookresearch__param/et_replay__tests__inputs__linear_kineto.json.gz"

RUNTIME = {"cuda_runtime", "cuda_driver", "Runtime", "mtia_runtime"}
GPU = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"}
SLOW_CALL_NS = 100_000_000      # one CUDA/HIP call of >= 100 ms ...
MAX_GPU_BUSY_SHARE = 0.10       # ... with the GPU busy at most 10 % of it


class Ev:
    __slots__ = ("name", "cat", "pid", "tid", "start", "end", "dur", "args")


def load(rel):
    with (gzip.open if rel.endswith(".gz") else open)(f"{ROOT}/{rel}", "rb") as f:
        d = json.loads(f.read(), parse_float=Decimal)
    out = []
    for e in d["traceEvents"] if isinstance(d, dict) else d:
        if e.get("ph") != "X" or "ts" not in e:
            continue
        x = Ev()
        x.name, x.cat, x.pid, x.tid = e.get("name", ""), e.get("cat", ""), e.get("pid"), e.get("tid")
        x.start = int(Decimal(e["ts"]) * 1000)
        x.dur = max(0, int(Decimal(e.get("dur", 0)) * 1000))
        x.end = x.start + x.dur
        x.args = e.get("args", {}) or {}
        out.append(x)
    return out


def merge(ivs):
    out = []
    for s, e in sorted(ivs):
        if out and s <= out[-1][1]:
            out[-1][1] = max(out[-1][1], e)
        else:
            out.append([s, e])
    return out


def length(m):
    return sum(e - s for s, e in m)


def covered(m, a, b):
    return sum(max(0, min(e, b) - max(s, a)) for s, e in m)


def is_wait(n):
    for p in ("cuda", "hip", "cu"):
        if n.startswith(p) and n[len(p):] in ("DeviceSynchronize", "StreamSynchronize", "EventSynchronize",
                                              "CtxSynchronize", "StreamSynchronize_ptsz"):
            return True
    return "Async" not in n and n.startswith(("cudaMemcpy", "cuMemcpy", "hipMemcpy"))


def mtia(rel):
    evs = load(rel)
    ccp = [e for e in evs if e.cat == "mtia_ccp_events"]
    device = [e for e in ccp if e.name not in ("event_record", "event_wait")]  # kernels and DMA copies
    print(rel)
    print("  device work (not event_record/event_wait):", Counter("dma" if e.name == "dma_request" else "kernel"
                                                                   for e in device))
    print("  busy union ns:", length(merge((e.start, e.end) for e in device)))
    host = [e for e in evs if e.cat == "mtia_runtime" and e.name != "synchronize"]
    corr = {e.args.get("correlation") for e in device if "correlation" in e.args}
    print("  runtime calls linked to device work:", sum(1 for e in host if e.args.get("correlation") in corr))
    syncs = [e for e in host if e.name in ("synchronizeStream", "synchronizeDevice", "synchronizeEvent")]
    print("  host syncs:", len(syncs), "total ns", sum(e.dur for e in syncs))
    steps = [e for e in evs if e.name.startswith("ProfilerStep#")]
    for s in steps:
        launch = {e.args["correlation"]: e for e in host if "correlation" in e.args}
        def t0(e):
            h = launch.get(e.args.get("correlation"))
            return h.start if h is not None else e.start
        inside = [e for e in device if s.start <= t0(e) <= s.end]
        print("  step", s.name, "dur", s.dur, "device events", len(inside),
              "busy", length(merge((e.start, e.end) for e in inside)))


def startup(rel):
    evs = load(rel)
    busy = merge((e.start, e.end) for e in evs if e.cat in GPU)
    api = sorted((e for e in evs if e.cat in RUNTIME and e.name.startswith(("cu", "hip"))), key=lambda e: e.start)
    first = api[0]
    slow = [e for e in api if e.dur >= SLOW_CALL_NS and not is_wait(e.name) and "Memcpy" not in e.name
            and covered(busy, e.start, e.end) <= MAX_GPU_BUSY_SHARE * e.dur]
    w0 = min(e.start for e in evs if e.cat != "Trace")
    w1 = max(e.end for e in evs if e.cat != "Trace")
    print(rel)
    print("  window", w0, w1, "first api call:", first.name, first.dur)
    ctx = [e for e in slow if e is first]
    print("  context_creation ns:", sum(e.dur for e in ctx), [e.name for e in ctx])
    other = [e for e in slow if e is not first]
    print("  slow_first_use ns (sum, calls do not overlap: %s):" % (length(merge((e.start, e.end) for e in other))
                                                                    == sum(e.dur for e in other)),
          sum(e.dur for e in other), len(other), [(e.name, e.dur) for e in other])
    end = max(e.end for e in slow) if slow else 0
    print("  startup_end offset ns:", end - w0 if slow else None)
    if slow and end < w1:
        launch = {e.args.get("correlation"): e for e in evs if e.cat in RUNTIME and "correlation" in e.args}
        def t0(e):
            h = launch.get(e.args.get("correlation"))
            return h.start if h is not None else e.start
        after = merge((e.start, e.end) for e in evs if e.cat in GPU and end <= t0(e) <= w1)
        print("  steady window ns", w1 - end, "gpu busy ns", length(after),
              "busy share %.4f" % (length(after) / (w1 - end)))


if __name__ == "__main__":
    for rel in (MTIA_TRAIN, MTIA_INFER):
        mtia(rel)
    for rel in (ALEXNET, PARAM_RESNET, PARAM_LINEAR):
        startup(rel)
