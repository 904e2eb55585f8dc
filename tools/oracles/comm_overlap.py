#!/usr/bin/env python3
"""A second implementation of whyslow's communication numbers, from the raw JSON with the standard
library only, in exact integer nanoseconds (ts and dur parsed as decimals, × 1000):

- compute: union of every kernel, memcpy and memset that is not a communication kernel (an NCCL/RCCL
  name starting with ncclKernel_, ncclDevKernel_ or rccl, or a library collective below); comm:
  union of those kernels; exposed comm: comm time not covered by compute. Whole trace, and per ProfilerStep#N (GPU work belongs to the step whose
  [start, end] holds its launch call's start, matched by args.correlation; else its own start).
- across ranks (`skew`): the communication kernels matched by their order within each rank's trace
  (when no Seq arg is present), rank clocks aligned on the median difference of the kernels' ends,
  and each collective's arrival skew (last aligned start − first) and its last rank (none when all
  start together).

Usage: comm_overlap.py TRACE                 → JSON with window and steps
       comm_overlap.py --skew TRACE TRACE…   → JSON with offsets and per-collective skew
"""
import gzip
import json
import re
import sys
from decimal import Decimal

GPU_CATS = {"kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset"}
LAUNCH_CATS = {"cuda_runtime", "Runtime", "cuda_driver", "hip_runtime"}
COMM_PREFIXES = ("ncclKernel_", "ncclDevKernel_", "rccl")
# The collective kernels of libraries that bypass NCCL, as (namespace, function names), from their
# sources: PyTorch symm_mem (CUDASymmetricMemoryOps.cu), vLLM csrc/custom_all_reduce.cuh and
# SGLang's copy, TensorRT-LLM customAllReduceKernels.cu, DeepEP csrc/kernels/*.cu (also under
# deep_ep::legacy::) and deep_ep/include/deep_ep/impls/*.cuh.
LIBRARY_COLLECTIVES = {
    "(anonymous namespace)": {"multimem_all_reduce_kernel", "multimem_one_shot_all_reduce_kernel",
                              "multimem_all_gather_kernel", "one_shot_all_reduce_kernel",
                              "two_shot_all_reduce_kernel", "two_shot_all_reduce_kernel_inplace"},
    "vllm": {"cross_device_reduce_1stage", "cross_device_reduce_2stage", "cross_device_reduce_half_butterfly"},
    "sglang": {"cross_device_reduce_1stage", "cross_device_reduce_2stage"},
    "tensorrt_llm::kernels": {"oneShotAllReduceKernel", "twoShotAllReduceKernel"},
    "deep_ep::intranode": {"notify_dispatch", "dispatch", "combine", "cached_notify_dispatch",
                           "cached_notify_combine", "barrier"},
    "deep_ep::internode": {"notify_dispatch", "dispatch", "combine", "cached_notify"},
    "deep_ep::internode_ll": {"dispatch", "combine"},
    "deep_ep::elastic": {"dispatch_impl", "combine_impl", "hybrid_dispatch_impl", "hybrid_combine_impl",
                         "pp_send_impl", "pp_recv_impl", "barrier_impl"},
}
# "void ns::function<template args>(params)": the return type is optional, the function ends at
# its template arguments or parameters.
KERNEL_FUNCTION = re.compile(r"^(?:void )?(?P<ns>\(anonymous namespace\)|[A-Za-z_][\w:]*?)::(?P<fn>\w+)[<(]")
STEP = re.compile(r"^ProfilerStep#\d+$")


def ns(v) -> int:
    return int(Decimal(str(v)) * 1000)


def load(path):
    opener = gzip.open if open(path, "rb").read(2) == b"\x1f\x8b" else open
    with opener(path, "rt", encoding="utf-8") as f:
        return json.load(f, parse_float=Decimal, parse_int=Decimal)


def union(iv):
    out = []
    for a, b in sorted(iv):
        if b <= a:
            continue
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def length(iv):
    return sum(b - a for a, b in iv)


def exposed(comm, compute):
    """Length of `comm` (merged) not covered by `compute` (merged): a two-pointer sweep."""
    total, j = 0, 0
    for a, b in comm:
        covered = 0
        while j < len(compute) and compute[j][1] <= a:
            j += 1
        k = j
        while k < len(compute) and compute[k][0] < b:
            covered += max(0, min(b, compute[k][1]) - max(a, compute[k][0]))
            k += 1
        total += (b - a) - covered
    return total


def is_comm(name):
    if name.startswith(COMM_PREFIXES):
        return True
    m = KERNEL_FUNCTION.match(name)
    if not m:
        return False
    ns = m.group("ns").replace("deep_ep::legacy::", "deep_ep::")
    return m.group("fn") in LIBRARY_COLLECTIVES.get(ns, ())


def gpu_work(events):
    return [e for e in events if e.get("ph") == "X" and e.get("cat") in GPU_CATS]


def split(work):
    compute = union([(ns(e["ts"]), ns(e["ts"]) + ns(e.get("dur", 0))) for e in work
                     if not (e.get("cat") in ("kernel", "Kernel") and is_comm(e.get("name", "")))])
    comm = union([(ns(e["ts"]), ns(e["ts"]) + ns(e.get("dur", 0))) for e in work
                  if e.get("cat") in ("kernel", "Kernel") and is_comm(e.get("name", ""))])
    return {"compute_ns": length(compute), "comm_ns": length(comm), "exposed_comm_ns": exposed(comm, compute)}


def analyze(path):
    events = load(path)["traceEvents"]
    work = gpu_work(events)
    launches = {}
    for e in events:
        if e.get("ph") == "X" and e.get("cat") in LAUNCH_CATS:
            c = (e.get("args") or {}).get("correlation")
            if c is not None:
                launches[c] = ns(e["ts"])
    steps = sorted((ns(e["ts"]), ns(e["ts"]) + ns(e.get("dur", 0)), e["name"]) for e in events
                   if e.get("ph") == "X" and STEP.match(str(e.get("name", "")))
                   and e.get("cat") not in ("gpu_user_annotation",))
    out = {"window": split(work), "steps": []}
    for start, end, name in steps:
        mine = []
        for e in work:
            c = (e.get("args") or {}).get("correlation")
            t = launches.get(c, ns(e["ts"])) if c is not None else ns(e["ts"])
            if start <= t <= end:
                mine.append(e)
        out["steps"].append(dict(name=name, **split(mine)))
    return out


def comm_kernels(path):
    return sorted((ns(e["ts"]), ns(e["ts"]) + ns(e.get("dur", 0))) for e in gpu_work(load(path)["traceEvents"])
                  if e.get("cat") in ("kernel", "Kernel") and is_comm(e.get("name", "")))


def skew(paths):
    ranks = [comm_kernels(p) for p in paths]
    n = min(len(r) for r in ranks)
    offsets = [0]
    for r in ranks[1:]:
        diffs = sorted(r[i][1] - ranks[0][i][1] for i in range(n))
        offsets.append(diffs[len(diffs) // 2])
    skews = []
    for i in range(n):
        starts = [ranks[r][i][0] - offsets[r] for r in range(len(ranks))]
        skew = max(starts) - min(starts)
        skews.append({"skew_ns": skew, "last": starts.index(max(starts)) if skew > 0 else None})
    return {"offsets_ns": offsets, "collectives": skews}


if __name__ == "__main__":
    if sys.argv[1] == "--skew":
        print(json.dumps(skew(sys.argv[2:])))
    else:
        print(json.dumps(analyze(sys.argv[1])))
