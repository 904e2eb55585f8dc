#!/usr/bin/env python3
"""Records tests/fixtures/legacy/: a torch.profiler trace in the legacy (pre-Kineto) format, with
torch's own key_averages() as the oracle.

Run with a torch built without Kineto (Debian 12's python3-torch 1.13.1, CPU-only):
    python3 tools/record_legacy_fixture.py OUTDIR
It writes OUTDIR/mlp_cpu_legacy.json.gz (what export_chrome_trace wrote, gzipped) and
OUTDIR/mlp_cpu_legacy.oracle.json (key_averages() rows in the shape of tools/record_fixtures.py's
avg_row, the CUDA columns named device_* as torch 2 names them; 0 on a CPU-only run).

The workload: a 3-layer MLP (256 → 512 → 512 → 10, fp32, batch 64) trained with SGD, each step
inside record_function("forward") / ("backward") / ("optimizer"); schedule wait=1, warmup=1,
active=3 over 6 step() calls, so ProfilerStep#2..#4 are recorded.
"""
import gzip
import json
import os
import platform
import shutil
import sys
import tempfile

import torch
from torch.profiler import ProfilerActivity, profile, record_function, schedule

SCHEDULE = dict(wait=1, warmup=1, active=3, repeat=1)
STEP_CALLS = 6


def make_step():
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(), torch.nn.Linear(512, 512),
                                torch.nn.ReLU(), torch.nn.Linear(512, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    x, y = torch.randn(64, 256), torch.randint(0, 10, (64,))

    def step():
        with record_function("forward"):
            loss = torch.nn.functional.cross_entropy(model(x), y)
        with record_function("backward"):
            opt.zero_grad()
            loss.backward()
        with record_function("optimizer"):
            opt.step()
    return step


def avg_row(e):
    row = {"key": e.key, "count": e.count, "node_id": e.node_id, "device_type": str(e.device_type),
           "is_legacy": e.is_legacy, "self_cpu_time_total": e.self_cpu_time_total,
           "cpu_time_total": e.cpu_time_total}
    # torch 1.13 names the device columns cuda_*, torch 2 device_*.
    row["device_time_total"] = getattr(e, "device_time_total", getattr(e, "cuda_time_total", 0))
    row["self_device_time_total"] = getattr(e, "self_device_time_total", getattr(e, "self_cuda_time_total", 0))
    return row


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    name = "mlp_cpu_legacy"
    step = make_step()
    for _ in range(3):  # warm-up outside the profiler
        step()
    tmp = tempfile.mkdtemp()
    trace_path = os.path.join(tmp, name + ".json")
    with profile(activities=[ProfilerActivity.CPU], schedule=schedule(**SCHEDULE),
                 on_trace_ready=lambda p: p.export_chrome_trace(trace_path)) as prof:
        for _ in range(STEP_CALLS):
            step()
            prof.step()
    with open(trace_path, "rb") as src, gzip.GzipFile(os.path.join(outdir, name + ".json.gz"), "wb", mtime=0) as dst:
        shutil.copyfileobj(src, dst)
    shutil.rmtree(tmp)
    oracle = {
        "workload": name,
        "schedule": SCHEDULE,
        "step_calls": STEP_CALLS,
        "warmup_calls_before_profiling": 3,
        "torch": torch.__version__,
        "kineto_available": torch.autograd.kineto_available(),
        "python": platform.python_version(),
        "key_averages": [avg_row(e) for e in prof.key_averages()],
        "table": prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=200),
    }
    with open(os.path.join(outdir, name + ".oracle.json"), "w") as f:
        json.dump(oracle, f, indent=1)


if __name__ == "__main__":
    main()
