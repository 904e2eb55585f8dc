#!/usr/bin/env python3
"""Record torch.compile traces (eager vs compiled pairs, recompiling and dynamic shapes, CUDA
graphs through mode="reduce-overhead", a repeated negative control), with torch's
key_averages() and torch._dynamo's own counters and compile times as the oracle.

Run on the GPU machine:  python3 tools/record_compile.py OUTDIR [NAME ...]
Each case runs in a fresh subprocess (as in record_fixtures.py), with its own empty Inductor and
Triton caches, so that every compiled case compiles cold and no case depends on the ones before
it. For each case NAME it writes
  OUTDIR/NAME.json.gz       the Chrome trace torch exported (gzipped)
  OUTDIR/NAME.oracle.json   key_averages() rows (record_fixtures.avg_row), as record_fixtures writes
  OUTDIR/NAME.meta.json     what was run (shapes, batch per call, compile options, dynamo config,
                            versions, GPU, date) and what was measured outside the trace: wall time
                            of every call (torch.cuda.synchronize() + time.perf_counter()), the
                            dynamo counters before and after the profiled loop, compile_times(),
                            per-compile metrics (recompile reasons), graph-launch counts from
                            key_averages(), peak memory

Profiler: schedule(wait=1, warmup=1, active=3, repeat=1) over 5 step() calls, so the exported
trace holds ProfilerStep#2..#4; record_shapes=True, CPU + CUDA activities, no with_stack.
Fixed-shape cases get 3 warm-up calls before profiling (compilation done before the profiled
steps). Varying-shape cases warm up with batch 8 only; every one of the 5 profiled-loop calls
gets a batch size never seen before, so a recompiling configuration recompiles inside the
profiled steps.

Afterwards, on the GPU machine:  python3 tools/record_compile.py --pack OUTDIR DEST
tars OUTDIR into DEST/compile.tar; if that is over the size a file may have coming back, the tar
is cut into DEST/compile.tar.partNN pieces (cat them together to get compile.tar back), and if
even the pieces would be too many, the largest traces are left out (listed in DEST/dropped.txt).
"""
import dataclasses
import datetime
import gzip
import json
import math
import os
import platform
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import record_fixtures  # noqa: E402  the recorders' shared runner, packer, command line and oracle writer

torch = None  # imported in record_one, the child that records a case

SCHEDULE = dict(wait=1, warmup=1, active=3, repeat=1)  # ProfilerStep#2..#4 kept
STEP_CALLS = 5
FIXED_WARMUP = 3
VAR_WARMUP_BATCHES = [8, 8, 8]
VAR_STEP_BATCHES = [24, 40, 56, 72, 88]  # one new batch size for each of the 5 profiled-loop calls
RO_FIXED_BATCH = 64
CASE_TIMEOUT_S = 120
TOTAL_BUDGET_S = 420  # no case starts later than this, so the tar is made inside the device call
GRAPH_KEYS = ("cudaGraphLaunch", "TorchDynamo Cache Lookup")


def _rf(name):
    return torch.profiler.record_function(name)


# ----------------------------------------------------------------------------- builders
# Each builder returns (step, meta): step(i) runs call i (i counts warm-up calls first, then the
# profiled-loop calls) and ends with torch.cuda.synchronize().

def mm_bias(n, dtype, compiled):
    x = torch.randn(n, n, device="cuda", dtype=dtype)
    w = torch.randn(n, n, device="cuda", dtype=dtype)
    b = torch.randn(n, device="cuda", dtype=dtype)

    def f(x, w, b):
        return x @ w + b

    g = torch.compile(f) if compiled else f

    def step(i):
        with _rf("matmul_bias"):
            y = g(x, w, b)
        torch.cuda.synchronize()
        return y

    return step, {"code": "x @ w + b" + ("  # @torch.compile (default mode)" if compiled else ""),
                  "shapes": {"x": [n, n], "w": [n, n], "b": [n]}, "dtype": str(dtype),
                  "record_function": "matmul_bias"}


def mlp(compiled):
    dtype = torch.bfloat16
    torch.manual_seed(0)
    model = torch.nn.Sequential(
        torch.nn.Linear(1024, 4096), torch.nn.GELU(), torch.nn.Linear(4096, 1024),
        torch.nn.LayerNorm(1024)).to("cuda", dtype)
    m = torch.compile(model) if compiled else model
    x = torch.randn(256, 1024, device="cuda", dtype=dtype)

    def step(i):
        with torch.no_grad(), _rf("mlp_forward"):
            y = m(x)
        torch.cuda.synchronize()
        return y

    return step, {"code": "nn.Sequential(Linear(1024,4096), GELU(), Linear(4096,1024), LayerNorm(1024)), "
                          "no_grad forward" + (", torch.compile(model) (default mode)" if compiled else ""),
                  "shapes": {"x": [256, 1024]}, "dtype": str(dtype), "record_function": "mlp_forward"}


ATT_B, ATT_H, ATT_T, ATT_D = 8, 16, 1024, 64


def attention(kind):
    torch.manual_seed(0)
    q, k, v = (torch.randn(ATT_B, ATT_H, ATT_T, ATT_D, device="cuda", dtype=torch.bfloat16)
               for _ in range(3))
    scale = math.sqrt(ATT_D)
    F = torch.nn.functional

    def step(i):
        with _rf("attention"):
            if kind == "eager":
                o = torch.softmax((q @ k.transpose(-2, -1)) / scale, dim=-1) @ v
            else:
                o = F.scaled_dot_product_attention(q, k, v)
        torch.cuda.synchronize()
        return o

    flops = 4 * ATT_B * ATT_H * ATT_T * ATT_T * ATT_D
    return step, {
        "code": ("torch.softmax((q @ k.transpose(-2, -1)) / math.sqrt(d), dim=-1) @ v" if kind == "eager"
                 else "F.scaled_dot_product_attention(q, k, v)  # no mask, not causal, default backend"),
        "shapes": {"q": [ATT_B, ATT_H, ATT_T, ATT_D], "k": [ATT_B, ATT_H, ATT_T, ATT_D],
                   "v": [ATT_B, ATT_H, ATT_T, ATT_D]},
        "dtype": "torch.bfloat16", "record_function": "attention",
        "flops_total": flops, "flops_formula": "4*B*H*T^2*D",
        "sdp_backends_enabled": {
            "cudnn": torch.backends.cuda.cudnn_sdp_enabled(),
            "flash": torch.backends.cuda.flash_sdp_enabled(),
            "mem_efficient": torch.backends.cuda.mem_efficient_sdp_enabled(),
            "math": torch.backends.cuda.math_sdp_enabled()},
    }


def mlp_block(batches, compile_kwargs):
    """Linear 512->2048, GELU, Linear 2048->512, fp32, no_grad; call i gets batches[i]."""
    torch.manual_seed(0)
    block = torch.nn.Sequential(torch.nn.Linear(512, 2048), torch.nn.GELU(),
                                torch.nn.Linear(2048, 512)).to("cuda")
    m = torch.compile(block, **compile_kwargs) if compile_kwargs is not None else block
    xs = [torch.randn(b, 512, device="cuda") for b in batches]  # made up front: no randn in a step

    def step(i):
        with torch.no_grad(), _rf("mlp_block"):
            y = m(xs[i])
        torch.cuda.synchronize()
        return y

    return step, {"code": "nn.Sequential(Linear(512,2048), GELU(), Linear(2048,512)), fp32, no_grad forward, "
                          "input (batch, 512)" + ("" if compile_kwargs is None else
                                                  ", torch.compile(block, %s)" % ", ".join(
                                                      "%s=%r" % kv for kv in compile_kwargs.items())),
                  "dtype": "torch.float32", "record_function": "mlp_block",
                  "torch_compile_kwargs": compile_kwargs}


# name -> dict(build=lambda batches: (step, meta), warm=batches of the warm-up calls (None: fixed
# shape), steps=batches of the profiled-loop calls, dynamo=dynamo config set before building)
FIXED = dict(warm=[None] * FIXED_WARMUP, steps=[None] * STEP_CALLS)
VARY = dict(warm=VAR_WARMUP_BATCHES, steps=VAR_STEP_BATCHES)
CASES = {
    "mm64_eager": dict(build=lambda bs: mm_bias(64, torch.float32, False), **FIXED),
    "mm64_compile": dict(build=lambda bs: mm_bias(64, torch.float32, True), **FIXED),
    "mm4096_eager": dict(build=lambda bs: mm_bias(4096, torch.bfloat16, False), **FIXED),
    "mm4096_compile": dict(build=lambda bs: mm_bias(4096, torch.bfloat16, True), **FIXED),
    "mlp_eager": dict(build=lambda bs: mlp(False), **FIXED),
    "mlp_compile": dict(build=lambda bs: mlp(True), **FIXED),
    "attn_eager": dict(build=lambda bs: attention("eager"), **FIXED),
    "attn_sdpa": dict(build=lambda bs: attention("sdpa"), **FIXED),
    "varshape_eager": dict(build=lambda bs: mlp_block(bs, None), **VARY),
    "varshape_static": dict(build=lambda bs: mlp_block(bs, {"dynamic": False}), **VARY,
                            dynamo={"cache_size_limit": 64, "recompile_limit": 64,
                                    "automatic_dynamic_shapes": False}),
    "varshape_dynamic": dict(build=lambda bs: mlp_block(bs, {"dynamic": True}), **VARY),
    "ro_fixed": dict(build=lambda bs: mlp_block(bs, {"mode": "reduce-overhead"}),
                     warm=[RO_FIXED_BATCH] * FIXED_WARMUP, steps=[RO_FIXED_BATCH] * STEP_CALLS),
    "ro_varying": dict(build=lambda bs: mlp_block(bs, {"mode": "reduce-overhead"}), **VARY),
    "control_a": dict(build=lambda bs: mm_bias(4096, torch.bfloat16, False), **FIXED),
    "control_b": dict(build=lambda bs: mm_bias(4096, torch.bfloat16, False), **FIXED),
}
NOTES = {
    "varshape_static": "torch.compile(dynamic=False) with automatic_dynamic_shapes=False and the recompile "
                       "limit raised to 64: every new batch size is a recompile (inside the profiled steps)",
    "varshape_dynamic": "torch.compile(dynamic=True): one symbolic-batch graph compiled in the warm-up (batch 8), "
                        "reused by every new batch size",
    "ro_fixed": "mode='reduce-overhead' (CUDA graphs), fixed batch 64: profiled steps replay the graph",
    "ro_varying": "mode='reduce-overhead', new batch size per call, automatic_dynamic_shapes left at its "
                  "default: the first new size recompiles with a dynamic batch",
    "control_a": "negative control: identical to mm4096_eager and control_b, a separate process",
    "control_b": "negative control: identical to mm4096_eager and control_a, a separate process",
}


# ----------------------------------------------------------------------------- helpers
def _plain(obj, depth=0):
    """defaultdicts, Counters, tuples, enums ... as JSON-able plain values."""
    if depth > 8:
        return str(obj)
    if isinstance(obj, dict):
        return {str(k): _plain(v, depth + 1) for k, v in obj.items()}
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [_plain(v, depth + 1) for v in obj]
    if isinstance(obj, (int, float, bool)) or obj is None:
        return obj
    s = str(obj)
    return s if len(s) <= 4000 else s[:4000] + "...[truncated]"


def dynamo_counters():
    try:
        from torch._dynamo.utils import counters
        return {str(k): {str(kk): _plain(vv) for kk, vv in v.items()} for k, v in counters.items()}
    except Exception as e:
        return {"error": repr(e)}


def counters_delta(before, after):
    out = {}
    for group, vals in after.items():
        if not isinstance(vals, dict):
            continue
        prev = before.get(group, {}) if isinstance(before.get(group), dict) else {}
        d = {}
        for k, v in vals.items():
            p = prev.get(k, 0)
            if isinstance(v, (int, float)) and isinstance(p, (int, float)) and v != p:
                d[k] = v - p
        if d:
            out[group] = d
    return out


def compile_times():
    out = {}
    try:
        from torch._dynamo.utils import compile_times as ct
    except Exception as e:
        return {"error": repr(e)}
    for key, kw in (("str", dict(repr="str")), ("str_aggregate", dict(repr="str", aggregate=True)),
                    ("csv_aggregate", dict(repr="csv", aggregate=True))):
        try:
            out[key] = _plain(ct(**kw))
        except Exception as e:
            out[key] = {"error": repr(e)}
    try:
        from torch._dynamo.utils import compilation_time_metrics
        out["compilation_time_metrics_s"] = {str(k): [float(x) for x in v]
                                             for k, v in compilation_time_metrics.items()}
    except Exception as e:
        out["compilation_time_metrics_s"] = {"error": repr(e)}
    return out


def compilation_metrics():
    """One record per dynamo compile (frame, compile id, times, recompile reason), where torch has it."""
    try:
        from torch._dynamo.utils import get_compilation_metrics
        rows = []
        for m in get_compilation_metrics():
            try:
                d = dataclasses.asdict(m)
            except Exception:
                d = dict(vars(m))
            rows.append({k: _plain(v) for k, v in d.items()
                         if v is not None and k not in ("config_dict", "inductor_config", "config_inline_inbuilt_nn_modules")})
        return rows
    except Exception as e:
        return {"error": repr(e)}


DYNAMO_KEYS = ("cache_size_limit", "recompile_limit", "accumulated_cache_size_limit",
               "accumulated_recompile_limit", "automatic_dynamic_shapes", "assume_static_by_default",
               "specialize_int", "force_parameter_static_shapes", "inline_inbuilt_nn_modules",
               "suppress_errors")
INDUCTOR_KEYS = ("fx_graph_cache", "autotune_local_cache", "compile_threads", "triton.cudagraphs",
                 "triton.cudagraph_trees", "triton.cudagraph_skip_dynamic_graphs",
                 "triton.cudagraph_dynamic_shape_warn_limit", "max_autotune")


def config_snapshot():
    snap = {"dynamo": {}, "inductor": {}}
    try:
        import torch._dynamo.config as dc
        for k in DYNAMO_KEYS:
            try:
                snap["dynamo"][k] = _plain(getattr(dc, k))
            except Exception as e:
                snap["dynamo"][k] = "unavailable: " + type(e).__name__
    except Exception as e:
        snap["dynamo"] = {"error": repr(e)}
    try:
        import torch._inductor.config as ic
        for k in INDUCTOR_KEYS:
            try:
                obj = ic
                for part in k.split("."):
                    obj = getattr(obj, part)
                snap["inductor"][k] = _plain(obj)
            except Exception as e:
                snap["inductor"][k] = "unavailable: " + type(e).__name__
    except Exception as e:
        snap["inductor"] = {"error": repr(e)}
    return snap


def apply_dynamo_config(settings):
    applied = {}
    import torch._dynamo.config as dc
    for k, v in (settings or {}).items():
        try:
            setattr(dc, k, v)
            applied[k] = {"set": v, "reads_back": _plain(getattr(dc, k))}
        except Exception as e:
            applied[k] = {"set": v, "error": repr(e)}
    return applied


def graph_counts(averages):
    """Counts from key_averages() of the graph-related keys."""
    exact = {k: 0 for k in GRAPH_KEYS}
    region, cudagraph, compiled = {}, {}, {}
    for e in averages:
        k = e.key
        if k in exact:
            exact[k] += e.count
        if k.startswith("Torch-Compiled Region"):
            region[k] = region.get(k, 0) + e.count
        if "cudagraph" in k.lower():
            cudagraph[k] = cudagraph.get(k, 0) + e.count
        if "compiled" in k.lower() and not k.startswith("Torch-Compiled Region"):
            compiled[k] = compiled.get(k, 0) + e.count
    return {
        "cudaGraphLaunch": exact["cudaGraphLaunch"],
        "TorchDynamo Cache Lookup": exact["TorchDynamo Cache Lookup"],
        "Torch-Compiled Region*": sum(region.values()),
        "Torch-Compiled Region keys": region,
        "keys containing cudagraph (case-insensitive)": cudagraph,
        "other keys containing 'compiled'": compiled,
    }


def trace_facts(trace_path):
    """Facts read back from the exported trace: its ProfilerStep events and event counts."""
    with open(trace_path) as f:
        tr = json.load(f)
    evs = tr.get("traceEvents", tr) if isinstance(tr, dict) else tr
    steps = sorted({e.get("name") for e in evs if isinstance(e, dict)
                    and str(e.get("name", "")).startswith("ProfilerStep#")})
    cats = {}
    names = {}
    for e in evs:
        if not isinstance(e, dict) or e.get("ph") != "X":
            continue
        cats[e.get("cat")] = cats.get(e.get("cat"), 0) + 1
        n = str(e.get("name", ""))
        if (n in GRAPH_KEYS or n.startswith("Torch-Compiled Region") or "cudagraph" in n.lower()
                or "compiled" in n.lower()):
            names[n] = names.get(n, 0) + 1
    return {"profiler_steps": steps, "events": len(evs), "complete_events_by_cat": _plain(cats),
            "graph_related_event_counts": names}


def _sync_time(step, i):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    step(i)
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) * 1e3


# ----------------------------------------------------------------------------- one case (child)
def record_one(name, outdir):
    global torch
    import torch as _torch
    torch = _torch
    from torch.profiler import ProfilerActivity, profile, schedule
    case = CASES[name]
    date = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")

    config_default = config_snapshot()
    dynamo_applied = apply_dynamo_config(case.get("dynamo"))
    torch.cuda.init()
    torch.zeros(1, device="cuda")  # CUDA context exists before profiling, as in real programs
    batches = list(case["warm"]) + list(case["steps"])
    step, meta = case["build"](batches)
    n_warm = len(case["warm"])

    counters_start = dynamo_counters()
    warm_ms = [_sync_time(step, i) for i in range(n_warm)]
    torch.cuda.synchronize()
    counters_before = dynamo_counters()
    times_before = compile_times()
    mem_before = torch.cuda.max_memory_allocated()
    torch.cuda.reset_peak_memory_stats()

    tmp = tempfile.mkdtemp()
    trace_path = os.path.join(tmp, name + ".json")
    options = dict(record_shapes=True)
    step_ms = []
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], schedule=schedule(**SCHEDULE),
                 on_trace_ready=lambda p: p.export_chrome_trace(trace_path), **options) as prof:
        for j in range(STEP_CALLS):
            step_ms.append(_sync_time(step, n_warm + j))
            prof.step()
    torch.cuda.synchronize()
    counters_after = dynamo_counters()
    times_after = compile_times()
    mem_profiled = torch.cuda.max_memory_allocated()

    with open(trace_path, "rb") as src, gzip.open(os.path.join(outdir, name + ".json.gz"), "wb") as dst:
        shutil.copyfileobj(src, dst)
    averages = prof.key_averages()
    record_fixtures.write_oracle(outdir, name, SCHEDULE, STEP_CALLS, n_warm, averages, options)

    first = SCHEDULE["wait"] + SCHEDULE["warmup"]
    profiled = list(range(first, first + SCHEDULE["active"]))
    try:
        import triton
        triton_version = triton.__version__
    except Exception as e:
        triton_version = "unavailable: " + repr(e)
    meta.update({
        "workload": name,
        "note": NOTES.get(name),
        "recorded_by": "python3 tools/record_compile.py OUTDIR " + name,
        "date_utc": date,
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version(),
        "triton": triton_version,
        "python": platform.python_version(),
        "gpu": torch.cuda.get_device_name(0),
        "cpu_count": os.cpu_count(),
        "torch_num_threads": torch.get_num_threads(),
        "env": {k: os.environ.get(k) for k in ("TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR", "TORCH_LOGS")},
        "caches": "fresh empty TORCHINDUCTOR_CACHE_DIR and TRITON_CACHE_DIR for this case: compiles are cold",
        "schedule": SCHEDULE,
        "step_calls": STEP_CALLS,
        "warmup_calls_before_profiling": n_warm,
        "profiler_options": dict(options, activities=["CPU", "CUDA"], with_stack=False),
        "batch_per_warmup_call": case["warm"] if case["warm"][0] is not None else None,
        "batch_per_step_call": case["steps"] if case["steps"][0] is not None else None,
        "profiled_step_calls": profiled,
        "profiled_step_names": [f"ProfilerStep#{i}" for i in profiled],
        "profiled_step_batches": ([case["steps"][i] for i in profiled] if case["steps"][0] is not None else None),
        "timing": "torch.cuda.synchronize(); t0 = perf_counter(); step(); torch.cuda.synchronize(); "
                  "ms = (perf_counter() - t0) * 1e3 (profiled-loop calls include the profiler's overhead; "
                  "prof.step() is outside the timed span)",
        "warmup_wall_ms": warm_ms,
        "step_wall_ms_per_call_incl_profiler": step_ms,
        "profiled_step_wall_ms": [step_ms[i] for i in profiled],
        "dynamo_config_applied": dynamo_applied,
        "config_before_case_settings": config_default,
        "config_in_effect": config_snapshot(),
        "dynamo_counters_at_start": counters_start,
        "dynamo_counters_before_profiled_loop": counters_before,
        "dynamo_counters_after_profiled_loop": counters_after,
        "dynamo_counters_delta_profiled_loop": counters_delta(counters_before, counters_after),
        "compile_times_before_profiled_loop": times_before,
        "compile_times_after_profiled_loop": times_after,
        "compilation_metrics": compilation_metrics(),
        "graph_counts_key_averages": graph_counts(averages),
        "max_memory_allocated_bytes_through_warmup": mem_before,
        "max_memory_allocated_bytes_profiled_loop": mem_profiled,
        "trace": trace_facts(trace_path),
    })
    with open(os.path.join(outdir, name + ".meta.json"), "w") as f:
        json.dump(meta, f, indent=1, default=str)
    shutil.rmtree(tmp, ignore_errors=True)


# ----------------------------------------------------------------------------- summary, packing
def summary_line(outdir, name):
    try:
        with open(os.path.join(outdir, name + ".meta.json")) as f:
            m = json.load(f)
    except Exception:
        return f"{name:18s} (no meta)"
    g = m.get("graph_counts_key_averages", {})
    d = m.get("dynamo_counters_delta_profiled_loop", {})
    st = m.get("dynamo_counters_after_profiled_loop", {}).get("stats", {})
    steps = " ".join("%.2f" % x for x in m.get("profiled_step_wall_ms", []))
    warm = " ".join("%.1f" % x for x in m.get("warmup_wall_ms", []))
    return (f"{name:18s} steps_ms[{steps}] warm_ms[{warm}] graphLaunch={g.get('cudaGraphLaunch')} "
            f"cacheLookup={g.get('TorchDynamo Cache Lookup')} region={g.get('Torch-Compiled Region*')} "
            f"unique_graphs={st.get('unique_graphs')} delta={json.dumps(d.get('stats', {}))} "
            f"pstep={m.get('trace', {}).get('profiler_steps')}")


def main():
    args = record_fixtures.recorder_args(sys.argv, CASES, record_one, "compile")
    if args is None:
        return
    outdir, names = args
    cache_root = tempfile.mkdtemp(prefix="record_compile_caches_")

    def env_of(name):
        env = dict(os.environ)
        env["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(cache_root, name, "inductor")
        env["TRITON_CACHE_DIR"] = os.path.join(cache_root, name, "triton")
        env.setdefault("TORCH_LOGS", "recompiles,graph_breaks")
        env["PYTHONUNBUFFERED"] = "1"
        return env

    failed = record_fixtures.run_each(__file__, outdir, names, timeout_of=lambda name: CASE_TIMEOUT_S,
                                      env_of=env_of, budget_s=TOTAL_BUDGET_S)
    shutil.rmtree(cache_root, ignore_errors=True)
    print()
    for name in names:
        print(summary_line(outdir, name))
    print("failed:", " ".join(failed) if failed else "none")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
