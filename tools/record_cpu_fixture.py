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
import importlib.util
import json
import os
import platform
import shutil
import sys
import tempfile

import torch

_here = os.path.dirname(os.path.abspath(__file__))


def _module(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


workload = _module("mlp_workload", os.path.join(_here, "..", "tests", "python", "mlp_workload.py"))
avg_row = _module("record_fixtures", os.path.join(_here, "record_fixtures.py")).avg_row


def main():
    outdir = sys.argv[1]
    name = "mlp_dataloader_cpu"
    prof = workload.record(torch)
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
    oracle = {"workload": name, "schedule": workload.SCHEDULE, "step_calls": workload.STEP_CALLS, "torch": torch.__version__,
              "kineto_available": torch.autograd.kineto_available(), "python": platform.python_version(),
              "key_averages": [avg_row(e) for e in prof.key_averages()],
              "step_durations_us": [s.time_range.elapsed_us() for s in steps],
              "data_loading_per_step_us": loading,
              "table": prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=200)}
    with open(os.path.join(outdir, name + ".oracle.json"), "w") as f:
        json.dump(oracle, f, indent=1)


if __name__ == "__main__":
    main()
