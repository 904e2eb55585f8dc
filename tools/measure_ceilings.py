#!/usr/bin/env python3
"""Measure the ceilings whyslow's roofline compares kernels against, on the GPU this runs on.

Run on the GPU machine:  python3 tools/measure_ceilings.py OUT.json

It writes a peaks file in the format `whyslow explain --peaks FILE` reads (docs/JSON.md,
"Peaks files"): memory bandwidth from a large device-to-device copy (bytes read + bytes written),
and the matrix rate per dtype from large GEMMs on random data (never zeros: a GEMM on zeros runs
faster than on real data). Each number is the median of timed repetitions after warm-up, timed
with CUDA events; the best of the sizes tried is kept, since a ceiling is the most the GPU was
seen to do. The clocks read before and after are recorded so a throttled run can be spotted.
"""
import datetime
import json
import statistics
import subprocess
import sys

import torch

WARMUP = 3
REPEATS = 10


def median_ms(fn, repeats=REPEATS, warmup=WARMUP):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def smi(query):
    try:
        out = subprocess.run(["nvidia-smi", f"--query-gpu={query}", "--format=csv,noheader"],
                             capture_output=True, text=True, timeout=30).stdout
        return out.strip().splitlines()[0]
    except Exception as e:  # nvidia-smi missing: the numbers still stand, the context is lost
        return f"unavailable ({e})"


def copy_bandwidth():
    """Bytes per second of a 4 GiB device-to-device copy, counting the read and the write."""
    n = 1 << 30  # float32 elements: 4 GiB
    src = torch.randn(n, device="cuda")
    dst = torch.empty_like(src)
    ms = median_ms(lambda: dst.copy_(src))
    moved = 2 * src.numel() * src.element_size()
    del src, dst
    torch.cuda.empty_cache()
    return {"bytes_per_s": moved / (ms / 1e3), "bytes": moved, "ms": ms}


def gemm_rate(dtype_name, n):
    """FLOP/s of an n×n×n GEMM: 2·n³ FLOPs (one multiply and one add per multiply-accumulate)."""
    flops = 2.0 * n ** 3
    if dtype_name in ("fp32", "tf32"):
        torch.set_float32_matmul_precision("highest" if dtype_name == "fp32" else "high")
        a = torch.randn(n, n, device="cuda")
        b = torch.randn(n, n, device="cuda")
        fn = lambda: torch.mm(a, b)
    elif dtype_name in ("bf16", "fp16"):
        dt = torch.bfloat16 if dtype_name == "bf16" else torch.float16
        a = torch.randn(n, n, device="cuda", dtype=dt)
        b = torch.randn(n, n, device="cuda", dtype=dt)
        fn = lambda: torch.mm(a, b)
    elif dtype_name == "fp8":
        # cuBLASLt's fp8 GEMM wants A row-major and B column-major: B is the transpose of a
        # contiguous (n, n) matrix.
        a = torch.randn(n, n, device="cuda").to(torch.float8_e4m3fn)
        b = torch.randn(n, n, device="cuda").to(torch.float8_e4m3fn).t()
        one = torch.tensor(1.0, device="cuda")
        fn = lambda: torch._scaled_mm(a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    elif dtype_name == "int8":
        a = torch.randint(-64, 64, (n, n), device="cuda", dtype=torch.int8)
        b = torch.randint(-64, 64, (n, n), device="cuda", dtype=torch.int8)
        fn = lambda: torch._int_mm(a, b)
    else:
        raise ValueError(dtype_name)
    ms = median_ms(fn)
    torch.set_float32_matmul_precision("highest")
    return {"flop_per_s": flops / (ms / 1e3), "n": n, "ms": ms}


def main():
    out_path = sys.argv[1]
    torch.cuda.init()
    props = torch.cuda.get_device_properties(0)
    clocks_before = smi("clocks.sm,clocks.mem,temperature.gpu,power.draw")
    result = {
        "name": props.name,
        "source": "measured with tools/measure_ceilings.py",
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
        "driver": smi("driver_version"),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "sm_count": props.multi_processor_count,
        "l2_bytes": getattr(props, "L2_cache_size", None),
        "memory_bytes": props.total_memory,
        "clocks_before": clocks_before,
        "peak_flop_per_s": {},
        "details": {},
        "errors": {},
    }
    copy = copy_bandwidth()
    result["memory_bytes_per_s"] = copy["bytes_per_s"]
    result["details"]["copy"] = copy
    for dtype_name in ("fp32", "tf32", "bf16", "fp16", "fp8", "int8"):
        best = None
        for n in (8192, 16384):
            try:
                r = gemm_rate(dtype_name, n)
            except Exception as e:  # e.g. no fp8 GEMM on this GPU or torch build
                result["errors"][f"{dtype_name}_{n}"] = repr(e)[:300]
                continue
            result["details"][f"gemm_{dtype_name}_{n}"] = r
            if best is None or r["flop_per_s"] > best:
                best = r["flop_per_s"]
            torch.cuda.empty_cache()
        if best is not None:
            result["peak_flop_per_s"][dtype_name] = best
    result["clocks_after"] = smi("clocks.sm,clocks.mem,temperature.gpu,power.draw")
    with open(out_path, "w") as f:
        json.dump(result, f, indent=1)
    print(f"{props.name}: copy {copy['bytes_per_s'] / 1e12:.2f} TB/s; " +
          ", ".join(f"{k} {v / 1e12:.1f} TFLOP/s" for k, v in result["peak_flop_per_s"].items()))


if __name__ == "__main__":
    main()
