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
    `correlation`); a launch under no block of its own, on a thread that runs backward ops
    (autograd's engine), goes to the innermost block open on the steps' thread at the launch's
    start; `other_gpu_ns` counts that part (other threads' launches go to no block);
  * code torch.compile generated (paths with torchinductor_, /.triton/, triton/cache/,
    torch_compile_debug/) is library code;
  * backward (issue 29): an outermost backward op ("Fwd thread id" not 0, no backward op around
    it) is credited, with the GPU work launched inside it, to the innermost block around the
    forward op with the same "Sequence number" (the first such op seen); `basis_backward_ns` sums
    every outermost backward op measured;
  * per block: the threads its calls ran on, and `repeated_calls`: the most events of one name
    directly beneath one call of it (beneath a module's forward frame for a module), not counting
    the blocks it opens; an event that starts in the call and ends after it ends the call's
    children (torch's tree, and the loader, close the call there);
  * groups: blocks of one kind, label (a module's class: the name less "nn.Module: " and the
    instance's "_N") and location (a module's first forward frame, a function's own name) summed,
    a block inside another of its group left to the outer one.
Times are integer ns from the decimal text (Decimal), sums inclusive of child blocks.

Usage: blocks.py TRACE.json[.gz] -> JSON on stdout: {"basis_cpu_ns", "basis_gpu_ns",
"basis_backward_ns", "blocks": [...], "groups": [...]}.
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
    if any(g in path for g in ("torchinductor_", "/.triton/", "triton/cache/", "torch_compile_debug/")):
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
    call_rows = []  # (block path, the names called directly beneath one call of it)
    kinds = {}
    location = {}  # path -> a module's first forward frame, a function's own name
    threads = {}  # path -> the threads its calls ran on
    main_blocks = []  # (start, end, path) of block events on the main thread
    forward_path = {}  # sequence number -> the block path around the first forward op with it
    backward_roots = []  # (sequence number or None, dur_ns) of outermost backward ops measured
    OUT = "outside"
    for th, evs in cpu.items():
        evs.sort(key=lambda e: (to_ns(e["ts"]), -to_ns(e.get("dur", 0))))
        # (end_ns, path, backward root's sequence number or False, call: the names beneath it or None)
        stack = []
        for e in evs:
            ts, dur = to_ns(e["ts"]), to_ns(e.get("dur", 0))
            while stack and stack[-1][0] <= ts:
                stack.pop()
            name = e["name"]
            if stack:
                up, root = stack[-1][1], stack[-1][2]
            else:
                up = OUT if th in step_threads or not in_step(ts) else ()
                root = False
            if STEP.match(name):
                up = ()
            if up == OUT:
                stack.append((ts + dur, OUT, False, None))
                continue
            args = e.get("args", {})
            if root is False and args.get("Fwd thread id"):  # 0 on forward ops
                root = args.get("Sequence number")
                backward_roots.append((root, dur))
            if not args.get("Fwd thread id") and "Sequence number" in args and e.get("cat") == "cpu_op" and up:
                forward_path.setdefault(args["Sequence number"], up)
            here = up
            cat = e.get("cat")
            f = frame(name) if cat == "python_function" else None
            call = None
            if cat == "python_function" and up and kinds[up] == "module" and f and f[2] == "forward":
                location.setdefault(up, name)  # the module's own forward
                call = []
            elif (is_annotation(e) and not STEP.match(name)) or (cat == "python_function" and (
                    name.startswith("nn.Module: ") or not is_library(name))):
                here = up + (name,)
                kinds[here] = "annotation" if is_annotation(e) else "module" if name.startswith("nn.Module: ") else "function"
                if kinds[here] == "function":
                    location[here] = name
                b = blocks.setdefault(here, {"calls": 0, "cpu_ns": 0, "gpu_ns": 0, "other_gpu_ns": 0,
                                             "kernels": 0, "launches": 0, "backward_cpu_ns": 0, "backward_ops": 0,
                                             "backward_gpu_ns": 0, "backward_kernels": 0, "repeated_calls": 0})
                b["calls"] += 1
                b["cpu_ns"] += dur
                threads.setdefault(here, set()).add(th)
                if th == main:
                    main_blocks.append((ts, ts + dur, here))
                call = []
            if here == up and stack and stack[-1][3] is not None:  # called directly beneath a block call
                names = stack[-1][3]
                if ts + dur > stack[-1][0]:
                    names.append(None)  # a partial overlap ends the call, as the loader nests (no more children)
                elif None not in names:
                    names.append(name)
            if cat in RUNTIME and "correlation" in args:
                launch_of[args["correlation"]] = (th, here, ts, root)
            if call is not None:
                owner = here if here != up else up
                call_rows.append((owner, call))
            stack.append((ts + dur, here, root, call))
    for owner, call in call_rows:
        most = max((call.count(n) for n in set(call) if n is not None), default=0)
        blocks[owner]["repeated_calls"] = max(blocks[owner]["repeated_calls"], most)
    main_blocks.sort()
    engine_threads = {th for th, evs in cpu.items() if any(e.get("args", {}).get("Fwd thread id") for e in evs)}
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

    def credit_backward(seq, key, ns, n=1):
        path = forward_path.get(seq)
        for i in range(1, len(path or ()) + 1):
            blocks[path[:i]][key] += ns
            blocks[path[:i]][key.replace("_cpu_ns", "_ops").replace("_gpu_ns", "_kernels")] += n

    for seq, dur in backward_roots:
        credit_backward(seq, "backward_cpu_ns", dur)
    for e in gpu:
        corr = e.get("args", {}).get("correlation")
        if corr not in launch_of:
            continue
        th, path, ts, root = launch_of[corr]
        if in_step(ts):
            basis_gpu += to_ns(e.get("dur", 0))
        first = corr not in launched
        launched.add(corr)
        if path == OUT:
            continue
        if root is not False:
            credit_backward(root, "backward_gpu_ns", to_ns(e.get("dur", 0)), int(e.get("cat") in ("kernel", "Kernel")))
        if path:
            credit(path, e, False)
        elif th != main and th in engine_threads:  # autograd's engine thread
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
        out.append({"path": list(p), "kind": kinds[p], "self_cpu_ns": b["cpu_ns"] - children,
                    "threads": len(threads[p]), **b})
    return {"basis_cpu_ns": sum(s[1] - s[0] for s in steps), "basis_gpu_ns": basis_gpu,
            "basis_backward_ns": sum(d for _, d in backward_roots), "blocks": out,
            "groups": groups(blocks, kinds, location)}


def module_class(name: str) -> str:
    label = name[len("nn.Module: "):]
    head, _, tail = label.rpartition("_")
    return head if head and tail.isdigit() else label


def groups(blocks, kinds, location) -> list:
    def key(p):
        label = module_class(p[-1]) if kinds[p] == "module" else p[-1]
        return (kinds[p], label, location.get(p))

    out = {}
    for p, b in blocks.items():
        g = out.setdefault(key(p), {"kind": kinds[p], "label": key(p)[1], "location": key(p)[2], "names": set(),
                                    "places": 0, "calls": 0, "cpu_ns": 0, "gpu_ns": 0, "backward_cpu_ns": 0,
                                    "backward_gpu_ns": 0})
        g["names"].add(p[-1])
        g["places"] += 1
        if any(key(p[:i]) == key(p) for i in range(1, len(p))):
            continue  # inside another block of its group
        for k in ("calls", "cpu_ns", "gpu_ns", "backward_cpu_ns", "backward_gpu_ns"):
            g[k] += b[k]
    return [{**{k: v for k, v in g.items() if k != "names"}, "instances": len(g["names"])} for g in out.values()]


if __name__ == "__main__":
    json.dump(analyze(sys.argv[1]), sys.stdout, indent=1)
