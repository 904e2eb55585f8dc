#!/usr/bin/env python3
"""Record the traces whyslow's roofline is tested against, and time the same kernels without
the profiler, with CUDA events, as an independent check of the achieved rates.

Run on the GPU machine:  python3 tools/record_roofline.py OUTDIR

It writes into OUTDIR
  mm_bias_<n>_<dtype>.json.gz   x @ w + b (torch.mm, then a broadcast add), n = 64 … 8192, fp32
                                and bf16, and n = 4096 in fp32 with TF32 allowed ("tf32"):
                                3 profiled steps each (torch.profiler, record_shapes)
  l2_sweep.json.gz              x.add_(b) in place on working sets from 1 MiB to 2 GiB, across
                                the L2 size: 20 back-to-back calls per size
  l2_sweep_contiguous.json.gz   the same with a same-shape operand, x.add_(y) (vectorized kernel)
  ops_zoo.json.gz               one call each of the ops whyslow models (and one it does not)
  timings.json                  per workload and kernel: FLOPs and bytes counted here by hand,
                                and the time per call measured with CUDA events, no profiler

The event timing times one call at a time, as the profiled steps run them: a short sleep kernel
first, so that the start event, the call and the end event are all queued before the GPU reaches
them (the CPU's launch cost stays out), then the median over many calls. Back-to-back batches
were tried first and rejected: a sustained 8192 bf16 GEMM runs 16 % slower than one alone (the
GPU clocks down under the sustained load), which the profiled steps never see. The event pair
still holds the GPU's own gap between the events and the kernel (about a µs), so it can only
check kernels that run much longer than that.
"""
import gzip
import json
import os
import shutil
import statistics
import sys
import tempfile

import torch
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile, record_function, schedule

SIZES = [64, 128, 256, 512, 1024, 2048, 4096, 8192]
DTYPES = {"fp32": torch.float32, "bf16": torch.bfloat16}
# fp32 tensors with TF32 matmuls allowed (torch.set_float32_matmul_precision("high")): one size,
# to check that whyslow tells a TF32 GEMM kernel from an fp32 one.
TF32 = "tf32"
# Working sets of the in-place add: 1 MiB … 2 GiB, so the 60 MB L2 of an H200 sits in the middle.
L2_SWEEP_MIB = [1 << i for i in range(12)]
L2_COLS = 4096
L2_CALLS = 20


def event_ms_per_call(fn, target_ms=100.0):
    """Median time of single calls, each queued behind a short sleep (see the module comment)."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    fn()
    e.record()
    e.synchronize()
    one = max(s.elapsed_time(e), 1e-3)
    n = int(min(50, max(5, target_ms / one)))
    times = []
    for _ in range(n):
        torch.cuda._sleep(100_000)  # ~50 µs at 2 GHz: the CPU queues the events and the call
        s.record()
        fn()
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e))
    return statistics.median(times), n


def export(prof_or_path, outdir, name):
    tmp = tempfile.mkdtemp()
    path = os.path.join(tmp, name + ".json")
    prof_or_path.export_chrome_trace(path)
    with open(path, "rb") as src, gzip.open(os.path.join(outdir, name + ".json.gz"), "wb") as dst:
        shutil.copyfileobj(src, dst)
    shutil.rmtree(tmp)


def mm_bias(n, dtype_name, outdir, timings):
    dt = DTYPES.get(dtype_name, torch.float32)
    # "highest" is torch's default: fp32 GEMMs without TF32.
    torch.set_float32_matmul_precision("high" if dtype_name == TF32 else "highest")
    x = torch.randn(n, n, device="cuda", dtype=dt)
    w = torch.randn(n, n, device="cuda", dtype=dt)
    b = torch.randn(n, device="cuda", dtype=dt)
    size = torch.tensor([], dtype=dt).element_size()

    def step():
        with record_function("matmul"):
            y = torch.mm(x, w)
        with record_function("bias_add"):
            y = y + b
        torch.cuda.synchronize()
        return y

    for _ in range(3):
        step()
    torch.cuda.synchronize()
    name = f"mm_bias_{n}_{dtype_name}"
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True,
                 schedule=schedule(wait=1, warmup=1, active=3, repeat=1),
                 on_trace_ready=lambda p: export(p, outdir, name)) as prof:
        for _ in range(6):
            step()
            prof.step()

    y = torch.mm(x, w)
    mm_ms, mm_n = event_ms_per_call(lambda: torch.mm(x, w))
    add_ms, add_n = event_ms_per_call(lambda: y + b)
    timings[name] = {
        # GEMM: 2·n³ FLOPs; bytes: A and B read once, C written once.
        "mm": {"flops": 2 * n ** 3, "bytes": 3 * n * n * size, "event_ms": mm_ms, "calls_timed": mm_n},
        # broadcast add: one add per output element; x and the output once, b once.
        "add": {"flops": n * n, "bytes": (2 * n * n + n) * size, "event_ms": add_ms, "calls_timed": add_n},
    }
    torch.set_float32_matmul_precision("highest")
    print(f"{name}: mm {mm_ms * 1e3:.1f} us, add {add_ms * 1e3:.1f} us", flush=True)


def l2_sweep(outdir, timings):
    bufs = []
    b = torch.randn(L2_COLS, device="cuda")
    for mib in L2_SWEEP_MIB:
        rows = mib * (1 << 20) // (4 * L2_COLS)
        bufs.append(torch.randn(rows, L2_COLS, device="cuda"))
    for x in bufs:  # warm-up: kernel loaded, allocator settled
        x.add_(b)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as prof:
        for x in bufs:
            for _ in range(L2_CALLS):
                x.add_(b)
            torch.cuda.synchronize()
    export(prof, outdir, "l2_sweep")
    sweep = {}
    for mib, x in zip(L2_SWEEP_MIB, bufs):
        ms, n = event_ms_per_call(lambda: x.add_(b))
        nbytes = x.numel() * 4
        # In place: x read and written (2·S bytes of traffic), b read; the working set is x itself.
        sweep[str(mib)] = {"rows": x.shape[0], "cols": L2_COLS, "working_set_bytes": nbytes + L2_COLS * 4,
                           "bytes": 2 * nbytes + L2_COLS * 4, "flops": x.numel(), "event_ms": ms,
                           "calls_timed": n}
        print(f"l2 {mib} MiB: {ms * 1e3:.2f} us, {(2 * nbytes) / (ms / 1e3) / 1e12:.2f} TB/s", flush=True)
    timings["l2_sweep"] = sweep


def l2_sweep_contiguous(outdir, timings):
    """The same sweep with a same-shape operand, x.add_(y): torch's vectorized kernel, which
    is not limited by index arithmetic as the broadcast add is, so the L2 shows more plainly.
    Working set x + y; traffic: x and y read, x written."""
    pairs = []
    for mib in L2_SWEEP_MIB:
        rows = max(1, mib * (1 << 20) // (2 * 4 * L2_COLS))
        pairs.append((torch.randn(rows, L2_COLS, device="cuda"), torch.randn(rows, L2_COLS, device="cuda")))
    for x, y in pairs:
        x.add_(y)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as prof:
        for x, y in pairs:
            for _ in range(L2_CALLS):
                x.add_(y)
            torch.cuda.synchronize()
    export(prof, outdir, "l2_sweep_contiguous")
    sweep = {}
    for mib, (x, y) in zip(L2_SWEEP_MIB, pairs):
        ms, n = event_ms_per_call(lambda: x.add_(y))
        nbytes = x.numel() * 4
        sweep[str(mib)] = {"rows": x.shape[0], "cols": L2_COLS, "working_set_bytes": 2 * nbytes,
                           "bytes": 3 * nbytes, "flops": x.numel(), "event_ms": ms, "calls_timed": n}
        print(f"l2 contiguous {mib} MiB: {ms * 1e3:.2f} us, {3 * nbytes / (ms / 1e3) / 1e12:.2f} TB/s", flush=True)
    timings["l2_sweep_contiguous"] = sweep


def ops_zoo(outdir):
    """One call of each modelled op on realistic shapes, plus torch.sort, which whyslow has no
    model for."""
    torch.manual_seed(0)
    bf = torch.bfloat16
    d = "cuda"
    lin = torch.nn.Linear(1024, 4096).to(d, bf)
    conv = torch.nn.Conv2d(64, 128, 3, padding=1).to(d, bf)
    emb = torch.nn.Embedding(32000, 1024).to(d, bf)
    x3 = torch.randn(8, 512, 1024, device=d, dtype=bf)
    a = torch.randn(16, 512, 64, device=d, dtype=bf)
    bm = torch.randn(16, 64, 512, device=d, dtype=bf)
    c = torch.randn(16, 512, 512, device=d, dtype=bf)
    img = torch.randn(32, 64, 56, 56, device=d, dtype=bf)
    q, k, v = (torch.randn(8, 16, 1024, 64, device=d, dtype=bf) for _ in range(3))
    big = torch.randn(8192, 4096, device=d, dtype=bf)
    big2 = torch.randn(8192, 4096, device=d, dtype=bf)
    row = torch.randn(4096, device=d, dtype=bf)
    ln_w = torch.ones(4096, device=d, dtype=bf)
    ids = torch.randint(0, 32000, (8, 512), device=d)
    rows = torch.randint(0, 8192, (2048,), device=d)
    gidx = torch.randint(0, 4096, (8192, 64), device=d)
    f32 = torch.randn(8192, 4096, device=d)
    m1 = torch.randn(2048, 2048, device=d, dtype=bf)
    m2 = torch.randn(2048, 2048, device=d, dtype=bf)

    def run():
        from torch.nn.attention import SDPBackend, sdpa_kernel
        with record_function("linear"):
            lin(x3)
        with record_function("matmul"):
            torch.matmul(a, bm)
            torch.matmul(m1, m2)
        with record_function("bmm"):
            torch.bmm(a, bm)
        with record_function("baddbmm"):
            torch.baddbmm(c, a, bm)
        with record_function("addmm"):
            torch.addmm(row[:2048], m1, m2)
        with record_function("conv2d"):
            conv(img)
        with record_function("sdpa_flash"):
            with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                F.scaled_dot_product_attention(q, k, v)
        with record_function("sdpa_flash_causal"):
            with sdpa_kernel(SDPBackend.FLASH_ATTENTION):
                F.scaled_dot_product_attention(q, k, v, is_causal=True)
        with record_function("sdpa_efficient"):
            with sdpa_kernel(SDPBackend.EFFICIENT_ATTENTION):
                F.scaled_dot_product_attention(q, k, v)
        with record_function("elementwise"):
            big + row
            big * big2
            F.gelu(big)
            F.silu(big)
            torch.relu(big)
            big.mul_(1.0001)
        with record_function("unfused_chain"):  # three kernels, each reading the last one's output
            torch.relu(big * 2 + 1)
        with record_function("reductions"):
            big.sum(dim=-1)
            big.mean(dim=0)
            big.sum()
        with record_function("norms"):
            F.layer_norm(big, (4096,), ln_w, row)
            F.rms_norm(big, (4096,), ln_w)
            torch.softmax(big, dim=-1)
        with record_function("copies"):
            big.to(torch.float32)
            f32.to(bf)
            big.clone()
            big.t().contiguous()
        with record_function("indexing"):
            emb(ids)
            big[rows]
            torch.gather(big, 1, gidx)
        with record_function("no_model"):
            torch.sort(big, dim=-1)

    with torch.no_grad():
        run()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as prof:
            run()
            torch.cuda.synchronize()
    export(prof, outdir, "ops_zoo")


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    torch.cuda.init()
    torch.zeros(1, device="cuda")
    timings = {"gpu": torch.cuda.get_device_name(0), "torch": torch.__version__}
    # Each part runs on its own: one that fails is reported, and what the others measured is kept.
    parts = [(f"mm_bias_{n}_{dt}", lambda n=n, dt=dt: mm_bias(n, dt, outdir, timings))
             for dt in DTYPES for n in SIZES]
    parts.append((f"mm_bias_4096_{TF32}", lambda: mm_bias(4096, TF32, outdir, timings)))
    parts += [("l2_sweep", lambda: l2_sweep(outdir, timings)),
              ("l2_sweep_contiguous", lambda: l2_sweep_contiguous(outdir, timings)),
              ("ops_zoo", lambda: ops_zoo(outdir))]
    for name, part in parts:
        try:
            part()
        except Exception as e:
            print(f"{name} failed: {e!r}", flush=True)
            timings.setdefault("errors", {})[name] = repr(e)[:300]
        with open(os.path.join(outdir, "timings.json"), "w") as f:
            json.dump(timings, f, indent=1)


if __name__ == "__main__":
    main()
