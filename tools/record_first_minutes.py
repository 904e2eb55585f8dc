#!/usr/bin/env python3
"""Records the traces a new user's first recordings produce on a GPU machine, the cases where a
diagnosis tool is tempted to give a false all-clear (issue 30, item 3):

  gpu_train_cpu_activity   a model training on the GPU, recorded with ProfilerActivity.CPU only
                           (CUDA activity not asked for: no kernels, no runtime calls)
  cpu_train                the same model training on the CPU (a genuine CPU workload), CPU activity
  cpu_conv_train           holdout, never tuned to: a small conv net training on the CPU with a
                           DataLoader, CPU activity
  empty_profile            `with profile(): pass`, exported: the profiler ran, nothing happened
  never_active             a schedule whose active step is never reached: what export says

Each trace is gzipped into OUTDIR with an oracle (torch's own numbers: key_averages() CPU totals,
step durations, whether the trace carries deviceProperties, the exception an export raised).
    python3 tools/record_first_minutes.py OUTDIR
"""
import gzip
import json
import os
import shutil
import sys
import tempfile
import traceback

import torch
from torch.profiler import ProfilerActivity, profile, record_function, schedule

SCHEDULE = dict(wait=1, warmup=1, active=3, repeat=1)
STEPS = 6


class Mlp(torch.nn.Module):
    def __init__(self, width=1024, depth=4):
        super().__init__()
        self.layers = torch.nn.ModuleList(torch.nn.Linear(width, width) for _ in range(depth))
        self.head = torch.nn.Linear(width, 10)

    def forward(self, x):
        for layer in self.layers:
            x = torch.nn.functional.gelu(layer(x))
        return self.head(x)


class ConvNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(3, 16, 3, padding=1)
        self.conv2 = torch.nn.Conv2d(16, 32, 3, padding=1)
        self.fc = torch.nn.Linear(32 * 8 * 8, 10)

    def forward(self, x):
        x = torch.nn.functional.max_pool2d(torch.relu(self.conv1(x)), 2)
        x = torch.nn.functional.max_pool2d(torch.relu(self.conv2(x)), 2)
        return self.fc(x.flatten(1))


# Calls that put work on the GPU, by the names CUDA's runtime and driver give them: the raw events'
# count, for the tests to hold whyslow's recording facts to.
GPU_WORK_PREFIXES = ("cudaLaunch", "cuLaunch", "hipLaunch", "hipExtLaunch", "hipModuleLaunch", "hipExtModuleLaunch",
                     "cudaGraphLaunch", "cuGraphLaunch", "hipGraphLaunch")


def raw_counts(doc):
    events = doc.get("traceEvents", [])
    api = [e for e in events if e.get("cat") in ("cuda_runtime", "cuda_driver", "Runtime")]
    work = [e for e in api if e.get("name", "").startswith(GPU_WORK_PREFIXES) or "Memcpy" in e.get("name", "")
            or "Memset" in e.get("name", "")]
    gpu = [e for e in events if e.get("cat") in ("kernel", "Kernel", "gpu_memcpy", "Memcpy", "gpu_memset", "Memset")]
    return {"gpu_work_calls": len(work), "gpu_records": len(gpu),
            "cpu_ops": sum(1 for e in events if e.get("cat") in ("cpu_op", "Operator") and e.get("ph") == "X")}


def save(prof_path, outdir, name, oracle):
    with open(prof_path, "rb") as src, gzip.GzipFile(os.path.join(outdir, name + ".json.gz"), "wb", mtime=0) as dst:
        shutil.copyfileobj(src, dst)
    with open(prof_path) as f:
        doc = json.load(f)
    if isinstance(doc, list):  # the legacy profiler's format (a torch built without Kineto)
        doc = {"traceEvents": doc}
    oracle["has_device_properties"] = "deviceProperties" in doc
    oracle["device_properties"] = doc.get("deviceProperties")
    oracle["top_level_keys"] = sorted(k for k in doc if k != "traceEvents")
    oracle["events"] = len(doc.get("traceEvents", []))
    oracle["categories"] = sorted({e.get("cat", "") for e in doc.get("traceEvents", [])})
    oracle["raw_counts"] = raw_counts(doc)
    with open(os.path.join(outdir, name + ".oracle.json"), "w") as f:
        json.dump(oracle, f, indent=1)


def cpu_rows(prof):
    return [{"name": e.key, "calls": e.count, "self_cpu_us": e.self_cpu_time_total, "cpu_total_us": e.cpu_time_total}
            for e in prof.key_averages()]


def train(name, outdir, model, batch, device, loader=None):
    model = model.to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    tmp = tempfile.mkdtemp()
    path = os.path.join(tmp, "trace.json")
    with profile(activities=[ProfilerActivity.CPU], schedule=schedule(**SCHEDULE), record_shapes=True,
                 with_stack=True, with_modules=True) as prof:
        batches = iter(loader) if loader is not None else None
        for _ in range(STEPS):
            if batches is not None:
                with record_function("data"):
                    x, y = next(batches)
                x, y = x.to(device), y.to(device)
            else:
                x, y = batch()
            with record_function("forward"):
                loss = torch.nn.functional.cross_entropy(model(x), y)
            with record_function("backward"):
                loss.backward()
            with record_function("optimizer"):
                opt.step()
                opt.zero_grad(set_to_none=True)
            if device == "cuda":
                torch.cuda.synchronize()
            prof.step()
    prof.export_chrome_trace(path)
    events = list(prof.events())
    steps = [e for e in events if e.name.startswith("ProfilerStep")]
    save(path, outdir, name, {"workload": name, "device": device, "schedule": SCHEDULE, "torch": torch.__version__,
                              "step_durations_us": [s.time_range.elapsed_us() for s in steps],
                              "key_averages": cpu_rows(prof),
                              "table": prof.key_averages().table(sort_by="self_cpu_time_total", row_limit=40)})
    shutil.rmtree(tmp)


def empty_profile(outdir):
    tmp = tempfile.mkdtemp()
    path = os.path.join(tmp, "trace.json")
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        pass
    prof.export_chrome_trace(path)
    save(path, outdir, "empty_profile", {"workload": "empty_profile", "torch": torch.__version__})
    shutil.rmtree(tmp)


def never_active(outdir):
    tmp = tempfile.mkdtemp()
    path = os.path.join(tmp, "trace.json")
    handled = []
    result = {"workload": "never_active", "torch": torch.__version__, "schedule": dict(wait=5, warmup=1, active=2, repeat=1),
              "steps_taken": 3}
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA],
                 schedule=schedule(wait=5, warmup=1, active=2, repeat=1), on_trace_ready=lambda p: handled.append(1)) as prof:
        for _ in range(3):
            torch.ones(8, device="cuda").sum().item()
            prof.step()
    result["on_trace_ready_calls"] = len(handled)
    try:
        prof.export_chrome_trace(path)
        result["export"] = "wrote a file"
        save(path, outdir, "never_active", result)
    except BaseException as e:  # what the user sees
        result["export"] = "raised"
        result["exception_type"] = type(e).__name__
        result["exception"] = str(e)
        result["traceback_tail"] = traceback.format_exc().splitlines()[-4:]
        with open(os.path.join(outdir, "never_active.oracle.json"), "w") as f:
            json.dump(result, f, indent=1)
    shutil.rmtree(tmp)


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    torch.manual_seed(0)
    gpu = torch.cuda.is_available()
    if gpu:
        train("gpu_train_cpu_activity", outdir, Mlp(), lambda: (torch.randn(256, 1024, device="cuda"),
                                                                 torch.randint(0, 10, (256,), device="cuda")), "cuda")
    train("cpu_train", outdir, Mlp(), lambda: (torch.randn(256, 1024), torch.randint(0, 10, (256,))), "cpu")
    data = torch.utils.data.TensorDataset(torch.randn(64 * STEPS, 3, 32, 32), torch.randint(0, 10, (64 * STEPS,)))
    train("cpu_conv_train", outdir, ConvNet(), None, "cpu", loader=torch.utils.data.DataLoader(data, batch_size=64))
    if gpu:
        empty_profile(outdir)
        never_active(outdir)


if __name__ == "__main__":
    main()
