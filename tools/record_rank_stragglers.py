#!/usr/bin/env python3
"""Records two-rank DDP jobs whose stragglers are known, on ONE GPU (issue 28 items 3 and 5): the
machine lent most often has a single H200 and NCCL refuses two ranks on one device, so the ranks
run as two processes sharing the GPU and talk through Gloo (which all-reduces CUDA tensors through
the host). A trace made differently from the NCCL recordings in ../shared/traces/h200_2gpu/:
collectives are CPU ops (gloo:all_reduce, record_param_comms) with device-to-host copies, not NCCL
kernels.

  balanced      both ranks do the same work: no straggler
  data_sleep    rank 1 sleeps 30 ms inside record_function("data") every step (no op below it: the
                shape of a slow data loader or a blocking Python call)
  compute_heavy rank 1's batch is 3x rank 0's: a compute straggler, its time in forward/backward

Each step: record_function("data") (the input made on the GPU), "forward", "backward",
"optimizer", then torch.cuda.synchronize(). schedule(wait=1, warmup=1, active=3, repeat=1) after
2 untraced warm-up steps. The oracle per rank: each step's wall time and each block's wall time
(time.perf_counter around the block, synchronized), as measured by the program itself.

    python3 tools/record_rank_stragglers.py OUTDIR
writes OUTDIR/<scenario>/rank{0,1}.pt.trace.json.gz and OUTDIR/<scenario>/oracle.json.
"""
import gzip
import json
import os
import shutil
import sys
import tempfile
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.profiler import ProfilerActivity, profile, record_function, schedule

WIDTH, DEPTH, BATCH = 2048, 4, 256
SLEEP_S = 0.030
HEAVY_FACTOR = 3
SCHEDULE = dict(wait=1, warmup=1, active=3, repeat=1)
WARMUP_STEPS = 2


def model():
    layers = []
    for _ in range(DEPTH):
        layers += [torch.nn.Linear(WIDTH, WIDTH), torch.nn.GELU()]
    return torch.nn.Sequential(*layers)


def worker(rank, scenario, outdir, port):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port))
    dist.init_process_group("gloo", rank=rank, world_size=2)
    torch.manual_seed(0)
    net = torch.nn.parallel.DistributedDataParallel(model().cuda(), bucket_cap_mb=25)
    opt = torch.optim.SGD(net.parameters(), lr=1e-3)
    batch = BATCH * (HEAVY_FACTOR if scenario == "compute_heavy" and rank == 1 else 1)
    timings = []

    def timed(name, fn, row):
        torch.cuda.synchronize()
        t = time.perf_counter()
        with record_function(name):
            out = fn()
        torch.cuda.synchronize()
        row[name] = (time.perf_counter() - t) * 1e3
        return out

    def step():
        row = {}
        t = time.perf_counter()

        def data():
            if scenario == "data_sleep" and rank == 1:
                time.sleep(SLEEP_S)
            return torch.randn(batch, WIDTH, device="cuda")
        x = timed("data", data, row)
        y = timed("forward", lambda: net(x), row)
        timed("backward", lambda: y.square().mean().backward(), row)
        timed("optimizer", lambda: (opt.step(), opt.zero_grad(set_to_none=True)), row)
        torch.cuda.synchronize()
        row["step"] = (time.perf_counter() - t) * 1e3
        return row

    for _ in range(WARMUP_STEPS):
        step()
    tmp = tempfile.mkdtemp()
    path = os.path.join(tmp, f"rank{rank}.json")
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True,
                 schedule=schedule(**SCHEDULE),
                 on_trace_ready=lambda p: p.export_chrome_trace(path)) as prof:
        for i in range(sum(SCHEDULE[k] for k in ("wait", "warmup", "active"))):
            row = step()
            if i >= SCHEDULE["wait"] + SCHEDULE["warmup"]:
                timings.append(row)
            prof.step()
    dist.barrier()
    with open(path, "rb") as src, gzip.GzipFile(os.path.join(outdir, f"rank{rank}.pt.trace.json.gz"), "wb",
                                                 mtime=0) as dst:
        shutil.copyfileobj(src, dst)
    with open(os.path.join(outdir, f"timings_rank{rank}.json"), "w") as f:
        json.dump({"rank": rank, "batch": batch, "active_steps_ms": timings}, f, indent=1)
    dist.destroy_process_group()


def main():
    out = sys.argv[1]
    port = 29511
    for scenario in ("balanced", "data_sleep", "compute_heavy"):
        d = os.path.join(out, scenario)
        os.makedirs(d, exist_ok=True)
        mp.spawn(worker, args=(scenario, d, port), nprocs=2, join=True)
        port += 1
        oracle = {"scenario": scenario, "backend": "gloo", "gpus": 1, "torch": torch.__version__,
                  "device": torch.cuda.get_device_name(0), "width": WIDTH, "depth": DEPTH,
                  "sleep_ms_rank1": SLEEP_S * 1e3 if scenario == "data_sleep" else 0,
                  "ranks": []}
        for r in (0, 1):
            p = os.path.join(d, f"timings_rank{r}.json")
            with open(p) as f:
                oracle["ranks"].append(json.load(f))
            os.remove(p)
        with open(os.path.join(d, "oracle.json"), "w") as f:
            json.dump(oracle, f, indent=1)
        print(scenario, json.dumps([[round(s["step"], 2) for s in r["active_steps_ms"]] for r in oracle["ranks"]]))


if __name__ == "__main__":
    main()
