#!/usr/bin/env python3
"""Record the real torch.profiler traces whyslow is tested against, with torch's own
key_averages() as the oracle.

Run on the GPU machine:  python3 tools/record_fixtures.py OUTDIR [NAME ...]
Each workload runs in a fresh subprocess so that a "cold" workload really sees the first CUDA
calls of a process (module loading, handle creation) and no workload inherits another's state.

For each workload NAME it writes
  OUTDIR/NAME.json.gz          the Chrome trace torch exported (gzipped)
  OUTDIR/NAME.oracle.json      key_averages() rows, CPU and device rows kept apart, plus facts
                               about how the trace was made (schedule, torch version, GPU)
"""
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

import torch
from torch.profiler import ProfilerActivity, profile, record_function, schedule

STEADY = dict(wait=1, warmup=1, active=3, repeat=1)  # 6 step() calls, ProfilerStep#2..#4 kept
# Cold: record from the very first step, no warm-up, so the first step carries the start-up costs.
COLD = dict(wait=0, warmup=0, active=4, repeat=1)
COLD3 = dict(wait=0, warmup=0, active=3, repeat=1)


def mm_bias(n, dtype, scopes=True, sync=True):
    """x @ w + b as two eager kernels (GEMM, then a broadcast add), like the DESIGN's example."""
    x = torch.randn(n, n, device="cuda", dtype=dtype)
    w = torch.randn(n, n, device="cuda", dtype=dtype)
    b = torch.randn(n, device="cuda", dtype=dtype)

    def step():
        if scopes:
            with record_function("matmul"):
                y = torch.mm(x, w)
            with record_function("bias_add"):
                y = y + b
        else:
            y = torch.mm(x, w) + b
        if sync:
            torch.cuda.synchronize()
        return y

    return step


def mm_bias_compiled(n, dtype):
    x = torch.randn(n, n, device="cuda", dtype=dtype)
    w = torch.randn(n, n, device="cuda", dtype=dtype)
    b = torch.randn(n, device="cuda", dtype=dtype)

    @torch.compile
    def f(x, w, b):
        return x @ w + b

    def step():
        with record_function("matmul_bias"):
            y = f(x, w, b)
        torch.cuda.synchronize()
        return y

    return step


def mlp(dtype, compiled, mode=None):
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 1024),
        torch.nn.LayerNorm(1024)).to("cuda", dtype)
    if compiled:
        model = torch.compile(model, mode=mode)
    x = torch.randn(256, 1024, device="cuda", dtype=dtype)

    def step():
        with torch.no_grad(), record_function("mlp_forward"):
            y = model(x)
        torch.cuda.synchronize()
        return y

    return step


def addmm_full_bias(n):
    """torch.addmm with a full (n, n) input: addmm copies it into the output before the GEMM."""
    x = torch.randn(n, n, device="cuda")
    w = torch.randn(n, n, device="cuda")
    c = torch.randn(n, n, device="cuda")

    def step():
        y = torch.addmm(c, x, w)
        torch.cuda.synchronize()
        return y

    return step


def kernel_contention():
    """The same bf16 GEMM every step; in some steps a large GEMM on a side stream competes for
    the SMs, so the same kernel on the same shapes takes longer there."""
    x = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    w = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    big = torch.randn(8192, 8192, device="cuda", dtype=torch.bfloat16)
    side = torch.cuda.Stream()
    calls = [0]

    def step():
        calls[0] += 1
        if calls[0] % 3 == 0:
            with torch.cuda.stream(side):
                big @ big
        with record_function("gemm"):
            y = x @ w
        torch.cuda.synchronize()
        return y

    return step


def pointwise_chain(compiled):
    """Five elementwise ops on a 256 MB tensor: eager runs five kernels, each reading and writing
    the whole tensor; torch.compile fuses them into one Triton kernel (a case where compile wins)."""
    x = torch.randn(1 << 26, device="cuda")

    def chain(x):
        return torch.relu(torch.sin(x * 2.0 + 1.0) * x) - 0.5

    f = torch.compile(chain) if compiled else chain

    def step():
        with record_function("chain"):
            y = f(x)
        torch.cuda.synchronize()
        return y

    return step


def item_and_pageable():
    """A loop that reads scalars back (.item()) and moves pageable host memory both ways."""
    x = torch.randn(1 << 20, device="cuda")
    host = torch.randn(1 << 22)  # 16 MB of pageable host memory

    def step():
        total = 0.0
        for _ in range(8):
            total += (x * 2).sum().item()  # a device-to-host copy that blocks the CPU
        with record_function("upload"):
            d = host.to("cuda")  # pageable HtoD
        with record_function("download"):
            back = d.cpu()  # pageable DtoH
        return total, back

    return step


def compiled_cold(n, dtype):
    """torch.compile's first call inside the profiled window: compilation shows in step 0."""
    x = torch.randn(n, n, device="cuda", dtype=dtype)
    w = torch.randn(n, n, device="cuda", dtype=dtype)
    b = torch.randn(n, device="cuda", dtype=dtype)

    @torch.compile
    def f(x, w, b):
        return torch.nn.functional.gelu(x @ w + b)

    def step():
        y = f(x, w, b)
        torch.cuda.synchronize()
        return y

    return step


# Diff pairs: ten recorded steps, so a median and its spread mean something.
LONG = dict(wait=1, warmup=2, active=10, repeat=1)

# name -> (builder, profiler schedule, step() calls, warm-up calls before profiling starts)
WORKLOADS = {
    "mm_bias_64_fp32": (lambda: mm_bias(64, torch.float32), STEADY, 6, 3),
    "mm_bias_64_fp32_noscopes": (lambda: mm_bias(64, torch.float32, scopes=False), STEADY, 6, 3),
    "mm_bias_64_bf16": (lambda: mm_bias(64, torch.bfloat16), STEADY, 6, 3),
    "mm_bias_4096_fp32": (lambda: mm_bias(4096, torch.float32), STEADY, 6, 3),
    "mm_bias_4096_bf16": (lambda: mm_bias(4096, torch.bfloat16), STEADY, 6, 3),
    "mm_bias_64_fp32_cold": (lambda: mm_bias(64, torch.float32), COLD, 5, 0),
    "mm_bias_4096_fp32_cold": (lambda: mm_bias(4096, torch.float32), COLD, 5, 0),
    "mm_bias_64_fp32_compiled": (lambda: mm_bias_compiled(64, torch.float32), STEADY, 6, 3),
    "mm_bias_4096_bf16_compiled": (lambda: mm_bias_compiled(4096, torch.bfloat16), STEADY, 6, 3),
    "mlp_bf16": (lambda: mlp(torch.bfloat16, False), STEADY, 6, 3),
    "mlp_bf16_compiled": (lambda: mlp(torch.bfloat16, True), STEADY, 6, 3),
    "item_pageable": (item_and_pageable, STEADY, 6, 3),
    "compiled_cold": (lambda: compiled_cold(256, torch.float32), COLD3, 4, 0),
    "addmm_full_bias": (lambda: addmm_full_bias(1024), STEADY, 6, 3),
    # Pairs for `whyslow diff` (eager vs torch.compile; CUDA graphs; a chain compile fuses).
    "mm_bias_64_bf16_compiled": (lambda: mm_bias_compiled(64, torch.bfloat16), STEADY, 6, 3),
    "mm_bias_4096_fp32_compiled": (lambda: mm_bias_compiled(4096, torch.float32), STEADY, 6, 3),
    "mlp_bf16_reduce_overhead": (lambda: mlp(torch.bfloat16, True, "reduce-overhead"), STEADY, 6, 5),
    "pointwise_chain": (lambda: pointwise_chain(False), STEADY, 6, 3),
    "pointwise_chain_compiled": (lambda: pointwise_chain(True), STEADY, 6, 3),
    "kernel_contention": (kernel_contention, dict(wait=1, warmup=1, active=9, repeat=1), 12, 3),
}


# The same workloads recorded with ten steps each, for tests/fixtures/diff/.
DIFF_PAIRS = ["mm_bias_64_fp32", "mm_bias_64_fp32_compiled", "mm_bias_64_bf16", "mm_bias_64_bf16_compiled",
              "mm_bias_4096_fp32", "mm_bias_4096_fp32_compiled", "mm_bias_4096_bf16", "mm_bias_4096_bf16_compiled",
              "mlp_bf16", "mlp_bf16_compiled", "mlp_bf16_reduce_overhead", "pointwise_chain",
              "pointwise_chain_compiled"]
for _name in DIFF_PAIRS:
    _builder, _, _, _warm = WORKLOADS[_name]
    WORKLOADS["diff_" + _name] = (_builder, LONG, 13, _warm)


def avg_row(e):
    row = {}
    for k in ("key", "count", "node_id", "device_type", "is_legacy", "is_user_annotation",
              "self_cpu_time_total", "cpu_time_total", "device_time_total",
              "self_device_time_total", "overload_name"):
        v = getattr(e, k, None)
        if v is None:
            continue
        if not isinstance(v, (int, float, str, bool)):
            v = str(v)
        row[k] = v
    return row


def record_one(name, outdir):
    builder, sched, steps, warm = WORKLOADS[name]
    torch.cuda.init()
    torch.zeros(1, device="cuda")  # CUDA context exists before profiling, as in real programs
    step = builder()
    for _ in range(warm):
        step()
    torch.cuda.synchronize()

    tmp = tempfile.mkdtemp()
    trace_path = os.path.join(tmp, name + ".json")
    kwargs = dict(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True)
    if sched is not None:
        kwargs["schedule"] = schedule(**sched)
        kwargs["on_trace_ready"] = lambda p: p.export_chrome_trace(trace_path)
    with profile(**kwargs) as prof:
        for _ in range(steps):
            step()
            prof.step()
    if sched is None:
        prof.export_chrome_trace(trace_path)

    with open(trace_path, "rb") as src, gzip.open(os.path.join(outdir, name + ".json.gz"), "wb") as dst:
        shutil.copyfileobj(src, dst)
    write_oracle(outdir, name, sched, steps, warm, prof.key_averages())


def write_oracle(outdir, name, sched, steps, warm, averages, options=None):
    """OUTDIR/NAME.oracle.json: torch's key_averages() rows and table, and how the trace was made."""
    oracle = {
        "workload": name,
        "schedule": sched,
        "step_calls": steps,
        "warmup_calls_before_profiling": warm,
        **({"profiler_options": options} if options is not None else {}),
        "torch": torch.__version__,
        "gpu": torch.cuda.get_device_name(0),
        "key_averages": [avg_row(e) for e in averages],
        "table": averages.table(sort_by="self_cpu_time_total", row_limit=200),
    }
    with open(os.path.join(outdir, name + ".oracle.json"), "w") as f:
        json.dump(oracle, f, indent=1)


def run_each(script, outdir, names, timeout_of=lambda name: None, env_of=lambda name: None, budget_s=None):
    """Runs `script OUTDIR --one NAME` in a fresh process for each name, so that a cold workload
    sees a process's first CUDA calls and none inherits another's state. A case that fails, times
    out (timeout_of(name) seconds) or would start past budget_s does not stop the others. Prints a
    line per case and a table; returns the names that did not succeed."""
    import time
    start = time.time()
    failed, summary = [], []
    for name in names:
        t0 = time.time()
        left = None if budget_s is None else budget_s - (t0 - start)
        if left is not None and left < 20:
            rc = "skipped (time budget)"
        else:
            timeout = timeout_of(name)
            if left is not None:
                timeout = min(timeout or left, left)
            print(f"===== {name} (started at {t0 - start:.1f} s)", flush=True)
            try:
                rc = subprocess.run([sys.executable, os.path.abspath(script), outdir, "--one", name],
                                    env=env_of(name), timeout=timeout).returncode
            except subprocess.TimeoutExpired:
                rc = "timeout"
        path = os.path.join(outdir, name + ".json.gz")
        size = os.path.getsize(path) if os.path.exists(path) else None
        summary.append((name, rc, size, time.time() - t0))
        print(f"{name}: {'ok' if rc == 0 else 'FAILED rc=%s' % rc} ({time.time() - t0:.1f} s, {size} bytes)",
              flush=True)
        if rc != 0:
            failed.append(name)
    width = max([len(n) for n in names] + [4])
    print(f"\n{'name':{width}s} rc        trace bytes   seconds")
    for name, rc, size, secs in summary:
        print(f"{name:{width}s} {str(rc):9s} {str(size):13s} {secs:7.1f}")
    return failed


# What may come back from the GPU machine's $OUT: files of at most 16 MiB, 64 MiB in all.
PACK_PART = int(15.5 * 1024 * 1024)
PACK_MAX_PARTS = 4  # 4 x 15.5 MiB + the log stays under the 64 MiB that may come back


def pack(outdir, dest, name):
    """Tars OUTDIR into DEST/NAME.tar (members under NAME/). Over PACK_PART bytes the tar is cut into
    DEST/NAME.tar.partNN pieces (cat them together to get it back); if even PACK_MAX_PARTS pieces
    would not hold it, the largest traces are left out and listed in DEST/dropped.txt."""
    import tarfile
    files = sorted(os.listdir(outdir))
    dropped = []

    def make_tar(path):
        with tarfile.open(path, "w") as t:
            for fn in files:
                if fn not in dropped:
                    t.add(os.path.join(outdir, fn), arcname=name + "/" + fn)
        return os.path.getsize(path)

    tar_path = os.path.join(dest, name + ".tar")
    size = make_tar(tar_path)
    while size > PACK_PART * PACK_MAX_PARTS:
        traces = [fn for fn in files if fn.endswith(".json.gz") and fn not in dropped]
        if not traces:
            break
        dropped.append(max(traces, key=lambda fn: os.path.getsize(os.path.join(outdir, fn))))
        size = make_tar(tar_path)
    if dropped:
        with open(os.path.join(dest, "dropped.txt"), "w") as f:
            for fn in dropped:
                f.write(f"{fn} {os.path.getsize(os.path.join(outdir, fn))}\n")
    if size > PACK_PART:
        with open(tar_path, "rb") as src:
            k = 0
            while chunk := src.read(PACK_PART):
                with open(f"{tar_path}.part{k:02d}", "wb") as dst:
                    dst.write(chunk)
                k += 1
        os.remove(tar_path)
        print(f"pack: {name}.tar is {size} bytes, cut into {k} parts (cat {name}.tar.part* > {name}.tar)")
    else:
        print(f"pack: {name}.tar {size} bytes")
    if dropped:
        print("pack: left out (too large):", dropped)


def recorder_args(argv, cases, record_one, pack_name):
    """The command line of a recorder with --pack: `--pack OUTDIR DEST` packs OUTDIR, `OUTDIR --one
    NAME` records one case in this process; both return None. `OUTDIR [NAME ...]` returns
    (OUTDIR, the names, all cases by default) after checking them."""
    if len(argv) == 4 and argv[1] == "--pack":
        pack(argv[2], argv[3], pack_name)
        return None
    outdir = argv[1]
    os.makedirs(outdir, exist_ok=True)
    if len(argv) > 3 and argv[2] == "--one":
        record_one(argv[3], outdir)
        return None
    names = argv[2:] or list(cases)
    unknown = [n for n in names if n not in cases]
    if unknown:
        sys.exit(f"unknown case(s): {unknown}; known: {list(cases)}")
    return outdir, names


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    if len(sys.argv) > 3 and sys.argv[2] == "--one":
        record_one(sys.argv[3], outdir)
        return
    names = sys.argv[2:] or list(WORKLOADS)
    sys.exit(1 if run_each(__file__, outdir, names) else 0)


if __name__ == "__main__":
    main()
