"""torch.profiler's overhead, measured the way bench/profiler_*_bench measure whyslow's.

record_function: ns per `with record_function(...)` block with no profiler, inside a profiler
in a wait step, and while recording (CPU activity). Kernel launch: µs of host time per tiny
CUDA op (one kernel each) with no profiler, warming up, and recording (CPU + CUDA activity),
the modes measured back to back in each round.
Python's own `with` cost is in these figures, as users pay it; the empty-loop and
nullcontext rows show how much of it that is.

    python3 bench/torch_profiler_overhead.py
"""
import contextlib
import statistics
import time

import torch
from torch.profiler import ProfilerActivity, profile, record_function, schedule

SCOPES = 100_000
RECORDED_SCOPES = 20_000  # torch post-processes every recorded event in Python: keep it small
RUNS = 5
BATCH, BATCHES = 256, 40
ROUNDS = 5  # launch modes measured back to back, as bench/profiler_launch_bench.cu does


def best_ns_per_block(body, n=SCOPES):
    best = float("inf")
    for _ in range(RUNS):
        t0 = time.perf_counter_ns()
        body(n)
        best = min(best, (time.perf_counter_ns() - t0) / n)
    return best


def empty_loop(n):
    for _ in range(n):
        pass


def nullcontext_loop(n):
    for _ in range(n):
        with contextlib.nullcontext():
            pass


def record_function_loop(n):
    for _ in range(n):
        with record_function("bench"):
            pass


def us_per_launch(x, sync):
    total = 0
    for _ in range(BATCHES):
        t0 = time.perf_counter_ns()
        for _ in range(BATCH):
            x.add_(1.0)
        total += time.perf_counter_ns() - t0
        sync()
    return total / 1000 / (BATCH * BATCHES)


def main():
    print(f"torch {torch.__version__}")
    loop = best_ns_per_block(empty_loop)
    null = best_ns_per_block(nullcontext_loop)
    idle = best_ns_per_block(record_function_loop)
    never = schedule(wait=10**9, warmup=1, active=1)
    with profile(activities=[ProfilerActivity.CPU], schedule=never):
        waiting = best_ns_per_block(record_function_loop)
    with profile(activities=[ProfilerActivity.CPU]):
        recording = best_ns_per_block(record_function_loop, RECORDED_SCOPES)
    print(f"record_function cost (ns per block, best of {RUNS} x {SCOPES}; empty loop {loop:.1f} ns subtracted)")
    print(f"  nullcontext (Python's with):  {null - loop:8.1f} ns")
    print(f"  no profiler:                  {idle - loop:8.1f} ns")
    print(f"  profiler in a wait step:      {waiting - loop:8.1f} ns")
    print(f"  recording (CPU):              {recording - loop:8.1f} ns")

    if not torch.cuda.is_available():
        print("no CUDA: no launch figures")
        return
    x = torch.zeros(32, device="cuda")
    sync = torch.cuda.synchronize
    us_per_launch(x, sync)  # warm up
    activities = [ProfilerActivity.CPU, ProfilerActivity.CUDA]
    warmup_only = schedule(wait=0, warmup=10**9, active=1)
    bare, warming, recording = [], [], []
    for _ in range(ROUNDS):
        bare.append(us_per_launch(x, sync))
        with profile(activities=activities, schedule=warmup_only):
            warming.append(us_per_launch(x, sync))
        with profile(activities=activities):
            recording.append(us_per_launch(x, sync))

    def added(mode):
        return statistics.median(m - b for m, b in zip(mode, bare))

    print(f"launch cost (us per x.add_(1.0) on a 32-element CUDA tensor, one kernel each; "
          f"median of {ROUNDS} rounds of {BATCH * BATCHES})")
    print(f"  no profiler:                  {statistics.median(bare):8.3f} us")
    print(f"  warm-up (CUPTI on):           {statistics.median(warming):8.3f} us  ({added(warming):+.3f} us)")
    print(f"  recording (CPU + CUDA):       {statistics.median(recording):8.3f} us  ({added(recording):+.3f} us)")


if __name__ == "__main__":
    main()
