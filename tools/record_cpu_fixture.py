#!/usr/bin/env python3
"""Records tests/fixtures/torch/mlp_dataloader_cpu: the python_binding test's workload
(tests/python/binding_test.py: a small MLP fed by a DataLoader whose samples sleep 1 ms, record_function
blocks, schedule wait=1, warmup=1, active=3, repeat=1, CPU activity only) with a Kineto torch, the
profile object exported after the `with` block as whyslow.explain(prof) exports it. Writes the trace
(gzipped) and its oracle: key_averages() rows (record_fixtures.avg_row's shape) and, from torch's own
events, each step's duration and the DataLoader time inside it.
    python3 tools/record_cpu_fixture.py OUTDIR
"""
import gzip
import json
import os
import platform
import shutil
import sys
import tempfile
import time

import torch
from torch.profiler import ProfilerActivity, profile, record_function, schedule

BATCH, SAMPLE_SECONDS = 32, 0.001
SCHEDULE = dict(wait=1, warmup=1, active=3, repeat=1)


class SlowSamples(torch.utils.data.Dataset):
    def __len__(self):
        return 6 * BATCH

    def __getitem__(self, i):
        time.sleep(SAMPLE_SECONDS)
        return torch.randn(64), i % 10


def avg_row(e):
    row = {}
    for k in ("key", "count", "node_id", "device_type", "is_legacy", "is_user_annotation", "self_cpu_time_total",
              "cpu_time_total", "device_time_total", "self_device_time_total", "overload_name"):
        v = getattr(e, k, None)
        if v is None:
            continue
        row[k] = v if isinstance(v, (int, float, str, bool)) else str(v)
    return row


def main():
    outdir = sys.argv[1]
    name = "mlp_dataloader_cpu"
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loader = torch.utils.data.DataLoader(SlowSamples(), batch_size=BATCH)
    with profile(activities=[ProfilerActivity.CPU], schedule=schedule(**SCHEDULE)) as prof:
        for x, y in loader:
            with record_function("forward"):
                loss = torch.nn.functional.cross_entropy(model(x), y)
            with record_function("backward"):
                opt.zero_grad()
                loss.backward()
            with record_function("optimizer"):
                opt.step()
            prof.step()
    tmp = tempfile.mkdtemp()
    path = os.path.join(tmp, "trace.json")
    prof.export_chrome_trace(path)
    with open(path, "rb") as src, gzip.GzipFile(os.path.join(outdir, name + ".json.gz"), "wb", mtime=0) as dst:
        shutil.copyfileobj(src, dst)
    shutil.rmtree(tmp)
    events = list(prof.events())
    steps = [e for e in events if e.name.startswith("ProfilerStep")]
    loading = [sum(e.time_range.elapsed_us() for e in events if e.name.startswith("enumerate(DataLoader)#")
                   and s.time_range.start <= e.time_range.start and e.time_range.end <= s.time_range.end)
               for s in steps]
    oracle = {"workload": name, "schedule": SCHEDULE, "step_calls": 6, "torch": torch.__version__,
              "kineto_available": torch.autograd.kineto_available(), "python": platform.python_version(),
              "key_averages": [avg_row(e) for e in prof.key_averages()],
              "step_durations_us": [s.time_range.elapsed_us() for s in steps],
              "data_loading_per_step_us": loading,
              "table": prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=200)}
    with open(os.path.join(outdir, name + ".oracle.json"), "w") as f:
        json.dump(oracle, f, indent=1)


if __name__ == "__main__":
    main()
