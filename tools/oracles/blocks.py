#!/usr/bin/env python3
"""Blocks of the user's code (issue 13, items 1-2): an independent oracle read from the raw trace.

Written from the definition in src/analysis/blocks/blocks.cpp's header comment, not from the C++:
  * blocks are record_function annotations (user_annotation, ProfilerStep#N excluded; in 2021
    traces an Operator named like one), `nn.Module: X_n` events, and Python frames
    "file(line): function" of the user's own files (library: <...> frames, site-/dist-packages,
    /lib/python, the ML libraries' and the standard library's top-level package names);
  * a frame named `forward` whose nearest block is a module is the module's own forward: no block;
  * nesting by time on each thread (sorted by start, longer first; an event is inside the open
    event that ends after it starts); aggregation by path of block names;
  * with steps, only what is inside a step counts (on the steps' thread: inside a ProfilerStep;
    on other threads: top-level events that start inside a step's time);
  * GPU work (kernel, memcpy, memset) goes to the block around its launch call (same
    `correlation`); a launch on another thread under no block of its own goes to the innermost
    block open on the steps' thread at the launch's start; `other_gpu_ns` counts that part.
Times are integer ns from the decimal text (Decimal), sums inclusive of child blocks.

Usage: blocks.py TRACE.json[.gz] -> JSON on stdout: {"basis_cpu_ns", "basis_gpu_ns", "blocks": [...]}.
Traces with ProfilerStep#N only (the main thread of a stepless trace is defined elsewhere).
"""
from __future__ import annotations

import bisect
import gzip
import json
import re
import sys
from decimal import Decimal

DEVICE_WORK = {"kernel", "gpu_memcpy", "gpu_memset", "Kernel", "Memcpy", "Memset"}
DEVICE_SIDE = DEVICE_WORK | {"gpu_user_annotation", "cuda_sync", "mtia_ccp_events", "cuda_profiler_range"}
RUNTIME = {"cuda_runtime", "cuda_driver", "Runtime"}
LIBRARY_TOPS = {
    "torch", "transformers", "vllm", "flashinfer", "triton", "numpy", "accelerate", "deepspeed", "megatron",
    "apex", "xformers", "flash_attn", "timm", "diffusers", "torchvision", "torchaudio", "lightning",
    "pytorch_lightning", "peft", "safetensors", "tokenizers", "sglang", "fbgemm_gpu", "torchrec",
    "scipy", "PIL", "cv2", "sklearn", "pandas", "tqdm", "einops", "datasets", "huggingface_hub", "decord", "av", "jax",
    # standard library
    "abc", "asyncio", "collections", "concurrent", "contextlib", "copy", "copyreg", "dataclasses", "enum",
    "functools", "importlib", "inspect", "json", "logging", "multiprocessing", "os", "posixpath", "queue",
    "random", "re", "selectors", "socket", "threading", "traceback", "typing", "warnings", "weakref",
    "_weakrefset", "types", "operator", "pickle", "tempfile"}
FRAME = re.compile(r"^(.+)\((\d+)\): (.*)$", re.S)
STEP = re.compile(r"^ProfilerStep#\d+$")


def to_ns(v) -> int:
    return int(Decimal(str(v)) * 1000)


def frame(name: str):
    if name.startswith("<"):
        return None
    m = FRAME.match(name)
    return (m.group(1), int(m.group(2)), m.group(3)) if m else None


def is_library(name: str) -> bool:
    f = frame(name)
    if f is None or f[0].startswith("<"):
        return True
    path = f[0]
    if "site-packages/" in path or "dist-packages/" in path or "/lib/python" in path:
        return True
    top = path.split("/")[0]
    if "/" not in path and top.endswith(".py"):
        top = top[:-3]
    return top in LIBRARY_TOPS


def is_annotation(e) -> bool:
    cat, name = e.get("cat"), e["name"]
    if cat == "user_annotation":
        return True
    return cat == "Operator" and ("#" in name or (name.startswith("## ") and name.endswith(" ##")))


def analyze(path: str) -> dict:
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as fh:
        events = json.load(fh)["traceEvents"]
    cpu = {}
    gpu = []
    launch_of = {}  # correlation -> (thread, path, ts_ns) of the launch call
    for e in events:
        if e.get("ph") != "X" or "ts" not in e:
            continue
        cat = e.get("cat")
        if cat in DEVICE_WORK:
            gpu.append(e)
        elif cat not in DEVICE_SIDE and cat != "Trace":
            cpu.setdefault((str(e.get("pid")), str(e.get("tid"))), []).append(e)
    steps = []
    for th, evs in cpu.items():
        for e in evs:
            if STEP.match(e["name"]) and (is_annotation(e) or e.get("cat") == "cpu_op"):
                steps.append((to_ns(e["ts"]), to_ns(e["ts"]) + to_ns(e.get("dur", 0)), th))
    if not steps:
        raise SystemExit(f"{path}: no ProfilerStep#N; this oracle covers traces with steps")
    steps.sort()
    step_threads = {s[2] for s in steps}
    main = steps[0][2]
    starts = [s[0] for s in steps]

    def in_step(ts):
        i = bisect.bisect_right(starts, ts) - 1
        return i >= 0 and ts < steps[i][1]

    blocks = {}  # path -> dict
    kinds = {}
    main_blocks = []  # (start, end, path) of block events on the main thread
    OUT = "outside"
    for th, evs in cpu.items():
        evs.sort(key=lambda e: (to_ns(e["ts"]), -to_ns(e.get("dur", 0))))
        stack = []  # (end_ns, path, backward)
        for e in evs:
            ts, dur = to_ns(e["ts"]), to_ns(e.get("dur", 0))
            while stack and stack[-1][0] <= ts:
                stack.pop()
            name = e["name"]
            if stack:
                up, backward = stack[-1][1], stack[-1][2]
            else:
                up = OUT if th in step_threads or not in_step(ts) else ()
                backward = False
            if STEP.match(name):
                up = ()
            if up == OUT:
                stack.append((ts + dur, OUT, False))
                continue
            backward = backward or bool(e.get("args", {}).get("Fwd thread id"))  # 0 on forward ops
            here = up
            cat = e.get("cat")
            f = frame(name) if cat == "python_function" else None
            if cat == "python_function" and up and kinds[up] == "module" and f and f[2] == "forward":
                pass  # the module's own forward
            elif (is_annotation(e) and not STEP.match(name)) or (cat == "python_function" and (
                    name.startswith("nn.Module: ") or not is_library(name))):
                here = up + (name,)
                kinds[here] = "annotation" if is_annotation(e) else "module" if name.startswith("nn.Module: ") else "function"
                b = blocks.setdefault(here, {"calls": 0, "cpu_ns": 0, "gpu_ns": 0, "other_gpu_ns": 0,
                                             "kernels": 0, "launches": 0})
                b["calls"] += 1
                b["cpu_ns"] += dur
                if th == main:
                    main_blocks.append((ts, ts + dur, here))
            if cat in RUNTIME and "correlation" in e.get("args", {}):
                launch_of[e["args"]["correlation"]] = (th, here, ts, backward)
            stack.append((ts + dur, here, backward))
    main_blocks.sort()
    basis_gpu = 0
    launched = set()

    def credit(path, e, other):
        for i in range(1, len(path) + 1):
            b = blocks[path[:i]]
            b["gpu_ns"] += to_ns(e.get("dur", 0))
            b["kernels"] += e.get("cat") in ("kernel", "Kernel")
            if other:
                b["other_gpu_ns"] += to_ns(e.get("dur", 0))
            if first:
                b["launches"] += 1

    for e in gpu:
        corr = e.get("args", {}).get("correlation")
        if corr not in launch_of:
            continue
        th, path, ts, _ = launch_of[corr]
        if in_step(ts):
            basis_gpu += to_ns(e.get("dur", 0))
        first = corr not in launched
        launched.add(corr)
        if path == OUT:
            continue
        if path:
            credit(path, e, False)
        elif th != main:
            inner = None  # the innermost main-thread block open at ts: latest start among those open
            for s, end, p in main_blocks:
                if s > ts:
                    break
                if end > ts and (inner is None or s >= inner[0]):
                    inner = (s, p)
            if inner:
                credit(inner[1], e, True)
    out = []
    for p, b in blocks.items():
        children = sum(c["cpu_ns"] for q, c in blocks.items() if len(q) == len(p) + 1 and q[:-1] == p)
        out.append({"path": list(p), "kind": kinds[p], "self_cpu_ns": b["cpu_ns"] - children, **b})
    return {"basis_cpu_ns": sum(s[1] - s[0] for s in steps), "basis_gpu_ns": basis_gpu, "blocks": out}


if __name__ == "__main__":
    json.dump(analyze(sys.argv[1]), sys.stdout, indent=1)
