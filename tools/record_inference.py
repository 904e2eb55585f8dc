#!/usr/bin/env python3
"""Record torch.profiler traces of the way people really profile inference and small training
loops (HF generate() under a bare profile(), a training loop with no schedule and no step(), a
second stream held back by an event, steps that start with CPU-only preprocessing), each with
truth numbers measured outside the profiler.

Run on the GPU machine:  python3 tools/record_inference.py OUTDIR [NAME ...]
Each case runs in a fresh subprocess (record_fixtures.run_each), warms its workload up before the
profiler starts (no cold start is recorded) and seeds torch with torch.manual_seed(0). For each
case NAME it writes
  OUTDIR/NAME.json.gz       the Chrome trace torch exported (prof.export_chrome_trace, gzipped)
  OUTDIR/NAME.truth.json    versions (torch, CUDA, transformers), GPU, date, the exact profiler
                            arguments, the workload's parameters, key_averages() rows
                            (record_fixtures.avg_row) and the case's own truth, below
The hold-out cases (holdout_*) are moved to OUTDIR/holdout/ at the end: they are recorded and
measured the same way, but whyslow's rules are not to be tuned to them.

Cases (all: CPU + CUDA activities, no with_stack, no record_function of our own):
  generate_bare    HF LlamaForCausalLM (random weights, 8 layers (the 8-layer trace is over
                   SIZE_LIMIT, so it is re-recorded with 4: see below), hidden 1024, bf16, sdpa),
                   batch 2 x prompt 128, greedy generate() of exactly 32 new tokens, under a bare
                   profile(activities=[CPU, CUDA]): no schedule, no record_shapes, no step(), the
                   way users record inference. Truth: forward pre-/post-hooks (with_kwargs=True)
                   on the top-level model give every forward's entry and exit perf_counter_ns and
                   its input_ids shape: the number of forwards (1 prefill + 31 decode), each
                   generate() loop iteration (entry to next entry), each forward's own CPU-side
                   duration, generate()'s wall time (synchronize before and after), tokens and
                   tokens/s (defined in the truth file). The same is measured once more with no
                   profiler running ("unprofiled"), to show the profiler's overhead.
  generate_shapes  the same with record_shapes=True.
  train_stepless   a beginner's loop inside a bare profile(): MLP 1024 -> 4096 -> 4096 -> 10, fp32,
                   batch 512, AdamW, cross-entropy, 5 iterations of zero_grad, forward, loss,
                   backward, step, loss.item(). Truth: each iteration's start and end, losses.
  stream_wait      schedule(wait=1, warmup=1, active=3, repeat=1), 5 step() calls
                   (ProfilerStep#2..#4). Each step: ~5 ms of bf16 matmuls on the default stream;
                   on stream s1 a host function that sleeps 100 ms (libc usleep(100000) enqueued
                   with cudaLaunchHostFunc through ctypes on the libcudart torch has loaded, so it
                   never touches Python or the GIL); ev.record(s1); s2.wait_event(ev); 20 bf16
                   4096^3 matmuls and a reduction on s2; torch.cuda.synchronize(). The GPU idles
                   ~95 ms in every step while s2 waits. Truth: each step's wall time, the sleep,
                   the matmuls' GPU time (timed apart with CUDA events), a check that the host
                   function really delays s2, which runtime/driver calls the exported trace holds
                   between the step's start and the first s2 kernel, and (Python over the raw
                   events) each step's longest interval with no kernel/memcpy/memset on any
                   stream, with the activity that ends it and its launch call.
  stream_wait_sync_events  the same with experimental_config=_ExperimentalConfig(
                   enable_cuda_sync_events=True) (Kineto's "cuda_sync" GPU-lane events); skipped
                   (truth says why, no trace) where torch does not accept it.
  cpu_prefix       the same schedule. Each step: ~200 ms of CPU-only torch ops (a uint8
                   (8, 3, 720, 1280) clip to float, antialiased bilinear resize to 224 x 224,
                   normalise, repeated to ~200 ms), .to("cuda"), ~200 ms of bf16 8192^3 matmuls
                   with no sync inside, torch.cuda.synchronize(). Truth: each step's CPU prefix,
                   GPU part and whole step (perf_counter), and from the trace each ProfilerStep's
                   time from its start to its first GPU activity and its GPU busy time (union of
                   kernel/memcpy/memset intervals).
  holdout_gpt2_generate  HF GPT2LMHeadModel (6 layers, 768, 12 heads, random weights, fp16),
                   batch 4 x prompt 64, 24 new tokens, greedy, bare profile(): generate_bare's
                   truth.
  holdout_cnn_stepless   a small CNN (3 Conv2d/BatchNorm2d/ReLU, AdaptiveAvgPool2d, Linear),
                   batch 64 x 3 x 128 x 128, SGD, 4 iterations, bare profile(), no .item() in the
                   loop, one torch.cuda.synchronize() after it inside the profile. Truth: each
                   iteration's CPU-side start and end.

A generate trace over SIZE_LIMIT bytes gzipped is recorded again (fresh process) with a smaller
model (SHRINK levels: fewer layers first, then fewer new tokens); the truth's "shrink_level" and
workload parameters say what was used.

Afterwards, on the GPU machine:  python3 tools/record_inference.py --pack OUTDIR DEST
tars OUTDIR into DEST/inference.tar (members inference/...), cut into parts if too large
(record_fixtures.pack).
"""
import ctypes
import datetime
import glob
import gzip
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import record_fixtures  # noqa: E402  the recorders' shared runner, packer, command line and avg_row

torch = None  # imported in record_one, the child that records a case

SCHEDULE = dict(wait=1, warmup=1, active=3, repeat=1)  # ALWAYS repeat=1: ProfilerStep#2..#4 kept
STEP_CALLS = 5
WARMUP_CALLS = 2
CASE_TIMEOUT_S = 150
TOTAL_BUDGET_S = 450  # no case starts later than this, so the tar is made inside the device call
SIZE_LIMIT = 1_500_000  # bytes, gzipped trace
SHRINK_ENV = "RECORD_INFERENCE_SHRINK"
GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset")
CALL_CATS = ("cuda_runtime", "cuda_driver")

LLAMA = dict(hidden_size=1024, intermediate_size=2816, num_hidden_layers=8, num_attention_heads=16,
             num_key_value_heads=16, vocab_size=32000, max_position_embeddings=2048)
GPT2 = dict(n_layer=6, n_embd=768, n_head=12)
# Per shrink level: (layers, new tokens). Level 0 is the workload the brief asks for.
SHRINK = {"llama": [(8, 32), (4, 32), (2, 32), (2, 16)], "gpt2": [(6, 24), (3, 24), (2, 24), (2, 12)]}

HOST_SLEEP_US = 100_000
SIDE_MATMULS, SIDE_N = 20, 4096
PRE_MATMULS, PRE_N = 30, 4096  # ~5 ms on the default stream before the gap
CLIP = (8, 3, 720, 1280)
CPU_TARGET_S, GPU_TARGET_S, GPU_N = 0.200, 0.200, 8192

PROFILE_BARE = "profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])"
PROFILE_SCHED = ("profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], "
                 "schedule=schedule(wait=1, warmup=1, active=3, repeat=1), on_trace_ready=export)")


def _ns_ms(ns):
    return round(ns / 1e6, 4)


def _versions():
    v = {"torch": torch.__version__, "cuda": torch.version.cuda, "python": platform.python_version(),
         "gpu": torch.cuda.get_device_name(0),
         "date_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")}
    try:
        import transformers
        v["transformers"] = transformers.__version__
    except Exception as e:  # not every case needs it
        v["transformers"] = "unavailable: " + repr(e)
    return v


def _shrink_level():
    return int(os.environ.get(SHRINK_ENV, "0") or 0)


# ----------------------------------------------------------------------------- trace reading
def load_events(path):
    with open(path) as f:
        return json.load(f)["traceEvents"]


def _x(events, cats):
    return [e for e in events if e.get("ph") == "X" and e.get("cat") in cats]


def profiler_steps(events):
    return sorted((e for e in events if e.get("ph") == "X" and e.get("cat") == "user_annotation"
                   and str(e.get("name", "")).startswith("ProfilerStep#")), key=lambda e: e["ts"])


def _union(intervals):
    merged = []
    for a, b in sorted(intervals):
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    return merged


def gpu_in_window(events, t0, t1):
    """GPU activity (kernel/memcpy/memset, any stream) overlapping [t0, t1], in microseconds: the
    union's intervals, the busy time, every gap (leading, interior, trailing) and the events."""
    acts = [e for e in _x(events, GPU_CATS) if e["ts"] < t1 and e["ts"] + e.get("dur", 0) > t0]
    merged = _union([(max(e["ts"], t0), min(e["ts"] + e.get("dur", 0), t1)) for e in acts])
    gaps, prev = [], t0
    for a, b in merged:
        if a > prev:
            gaps.append((prev, a, "leading" if prev == t0 else "interior"))
        prev = b
    if prev < t1:
        gaps.append((prev, t1, "trailing" if merged else "whole step"))
    return acts, merged, gaps


def _launch_of(events, act):
    corr = (act.get("args") or {}).get("correlation")
    if corr is None:
        return None
    for e in _x(events, CALL_CATS):
        if (e.get("args") or {}).get("correlation") == corr:
            return e
    return None


def _act_brief(e, origin):
    a = e.get("args") or {}
    return {"cat": e["cat"], "name": e["name"], "stream": a.get("stream"), "correlation": a.get("correlation"),
            "start_ms": round((e["ts"] - origin) / 1e3, 4), "dur_ms": round(e.get("dur", 0) / 1e3, 4)}


def step_gpu_report(events, step):
    """One ProfilerStep: first GPU activity, busy time, the longest gap (any kind and interior)
    with the activity that ends it and that activity's launch call (relative to the gap's start)."""
    t0, t1 = step["ts"], step["ts"] + step["dur"]
    acts, merged, gaps = gpu_in_window(events, t0, t1)
    busy = sum(b - a for a, b in merged)
    rep = {"step": step["name"], "step_dur_ms": round(step["dur"] / 1e3, 4), "gpu_activities": len(acts),
           "gpu_busy_ms": round(busy / 1e3, 4), "gpu_idle_ms": round((step["dur"] - busy) / 1e3, 4)}
    if acts:
        first = min(acts, key=lambda e: e["ts"])
        rep["first_gpu_activity"] = _act_brief(first, t0)
        rep["step_start_to_first_gpu_ms"] = round((first["ts"] - t0) / 1e3, 4)
    rep["gaps_over_1ms"] = [{"kind": k, "start_ms": round((a - t0) / 1e3, 4), "len_ms": round((b - a) / 1e3, 4)}
                            for a, b, k in gaps if b - a > 1000]

    def describe(gap):
        a, b, kind = gap
        d = {"kind": kind, "start_ms": round((a - t0) / 1e3, 4), "end_ms": round((b - t0) / 1e3, 4),
             "len_ms": round((b - a) / 1e3, 4)}
        enders = [e for e in acts if abs(max(e["ts"], t0) - b) < 1e-6]
        if enders:
            ender = min(enders, key=lambda e: e["ts"])
            d["ended_by"] = _act_brief(ender, t0)
            launch = _launch_of(events, ender)
            if launch is not None:
                d["ended_by_launch"] = {"cat": launch["cat"], "name": launch["name"],
                                        "start_rel_gap_start_ms": round((launch["ts"] - a) / 1e3, 4),
                                        "dur_ms": round(launch.get("dur", 0) / 1e3, 4)}
        return d

    if gaps:
        rep["longest_gap"] = describe(max(gaps, key=lambda g: g[1] - g[0]))
    interior = [g for g in gaps if g[2] == "interior"]
    if interior:
        rep["longest_interior_gap"] = describe(max(interior, key=lambda g: g[1] - g[0]))
    return rep


# ----------------------------------------------------------------------------- helpers
def _profile_kwargs(sched, trace_path, **extra):
    from torch.profiler import ProfilerActivity, schedule
    kw = dict(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], **extra)
    if sched:
        kw["schedule"] = schedule(**SCHEDULE)
        kw["on_trace_ready"] = lambda p: p.export_chrome_trace(trace_path)
    return kw


def _describe_profile(sched, **extra):
    d = {"activities": ["CPU", "CUDA"], "record_shapes": extra.get("record_shapes", False),
         "profile_memory": False, "with_stack": False, "with_modules": False,
         "schedule": dict(SCHEDULE) if sched else None,
         "step_calls": STEP_CALLS if sched else 0,
         "exported": "on_trace_ready: prof.export_chrome_trace" if sched
         else "prof.export_chrome_trace after the with block"}
    if "experimental_config" in extra:
        d["experimental_config"] = "torch._C._profiler._ExperimentalConfig(enable_cuda_sync_events=True)"
    return d


def _ops_summary(averages):
    """Per op name: count, self CPU and self device time (us), compact."""
    rows = {}
    for e in averages:
        rows[e.key] = {"count": e.count, "self_cpu_us": round(e.self_cpu_time_total, 3),
                       "self_device_us": round(getattr(e, "self_device_time_total", 0) or 0, 3)}
    return rows


def _time_gpu_ms(fn, reps=5):
    """Median GPU time of fn() by CUDA events, after one warm-up call."""
    fn()
    out = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        out.append(a.elapsed_time(b))
    return statistics.median(out)


# ----------------------------------------------------------------------------- generate
class ForwardClock:
    """Forward pre-hook and hook on the top-level model: entry/exit perf_counter_ns and the
    input_ids shape of every forward call."""

    def __init__(self, model):
        self.entries, self.exits, self.shapes = [], [], []
        model.register_forward_pre_hook(self.pre, with_kwargs=True)
        model.register_forward_hook(self.post, with_kwargs=True)

    def reset(self):
        self.entries, self.exits, self.shapes = [], [], []

    def pre(self, module, args, kwargs):
        self.entries.append(time.perf_counter_ns())
        ids = kwargs.get("input_ids")
        if ids is None and args:
            ids = args[0]
        self.shapes.append(list(ids.shape) if hasattr(ids, "shape") else None)

    def post(self, module, args, kwargs, output):
        self.exits.append(time.perf_counter_ns())


def _timed_generate(model, ids, mask, gen_kwargs, clock):
    clock.reset()
    torch.cuda.synchronize()
    t0 = time.perf_counter_ns()
    out = model.generate(ids, attention_mask=mask, **gen_kwargs)
    torch.cuda.synchronize()
    t1 = time.perf_counter_ns()
    return out, t0, t1


def _generate_truth(clock, t0, t1, out, batch, prompt):
    n = len(clock.entries)
    e, x = clock.entries, clock.exits
    iters = [_ns_ms(e[i + 1] - e[i]) for i in range(n - 1)]
    new = int(out.shape[1]) - prompt
    t = {
        "forwards": n,
        "forward_exits": len(x),
        "input_ids_shapes": clock.shapes,
        "forward_entry_ms": [_ns_ms(v - t0) for v in e],
        "forward_exit_ms": [_ns_ms(v - t0) for v in x],
        "forward_cpu_duration_ms": [_ns_ms(b - a) for a, b in zip(e, x)],
        "iteration_ms": iters,
        "first_iteration_ms": iters[0] if iters else None,
        "median_rest_iteration_ms": statistics.median(iters[1:]) if len(iters) > 1 else None,
        "generate_start_to_first_forward_ms": _ns_ms(e[0] - t0) if e else None,
        "last_forward_entry_to_generate_end_ms": _ns_ms(t1 - e[-1]) if e else None,
        "generate_wall_ms": _ns_ms(t1 - t0),
        "output_shape": list(out.shape),
        "new_tokens_per_sequence": new,
        "tokens_generated": new * batch,
    }
    if n > 1:
        decode_tokens = (new - 1) * batch
        decode_ns = t1 - e[1]
        t["decode_tokens"] = decode_tokens
        t["decode_wall_ms"] = _ns_ms(decode_ns)
        t["decode_tokens_per_s"] = round(decode_tokens / (decode_ns / 1e9), 2)
        t["prefill_wall_ms"] = _ns_ms(e[1] - t0)
    t["overall_tokens_per_s"] = round(new * batch / ((t1 - t0) / 1e9), 2)
    t["definitions"] = (
        "times in ms from generate()'s start (perf_counter_ns after torch.cuda.synchronize(), just "
        "before model.generate); generate_wall_ms ends after a torch.cuda.synchronize() following "
        "generate(). iteration_ms[i] = entry of forward i+1 - entry of forward i (one generate() loop "
        "iteration, CPU side; forward 0 is the prefill). forward_cpu_duration_ms = hook exit - hook "
        "entry (CPU side, kernels may still run). prefill_wall_ms = generate start -> entry of "
        "forward 1. decode_tokens = batch x (new tokens - 1) (the tokens produced by forwards 1..n-1); "
        "decode_wall_ms = entry of forward 1 -> generate end; decode_tokens_per_s = decode_tokens / "
        "decode_wall. overall_tokens_per_s = batch x new tokens / generate_wall.")
    return t


def case_generate(name, trace_path, model_kind, record_shapes):
    from torch.profiler import profile
    level = _shrink_level()
    layers, new_tokens = SHRINK[model_kind][level]
    torch.manual_seed(0)
    if model_kind == "llama":
        from transformers import LlamaConfig, LlamaForCausalLM
        params = dict(LLAMA, num_hidden_layers=layers)
        cfg = LlamaConfig(**params)
        cls, dtype, batch, prompt, vocab = LlamaForCausalLM, torch.bfloat16, 2, 128, params["vocab_size"]
    else:
        from transformers import GPT2Config, GPT2LMHeadModel
        params = dict(GPT2, n_layer=layers)
        cfg = GPT2Config(**params)
        cls, dtype, batch, prompt, vocab = GPT2LMHeadModel, torch.float16, 4, 64, cfg.vocab_size
    try:
        cfg._attn_implementation = "sdpa"
    except Exception:
        pass
    with torch.device("cuda"):
        model = cls(cfg)
    model = model.to(dtype).eval()
    ids = torch.randint(0, vocab, (batch, prompt), device="cuda")
    mask = torch.ones_like(ids)
    gen_kwargs = dict(max_new_tokens=new_tokens, min_new_tokens=new_tokens, do_sample=False, pad_token_id=0)
    clock = ForwardClock(model)
    warm = []
    with torch.no_grad():
        for _ in range(WARMUP_CALLS):
            out, t0, t1 = _timed_generate(model, ids, mask, gen_kwargs, clock)
            warm.append(_ns_ms(t1 - t0))
        extra = dict(record_shapes=True) if record_shapes else {}
        with profile(**_profile_kwargs(False, trace_path, **extra)) as prof:
            out, t0, t1 = _timed_generate(model, ids, mask, gen_kwargs, clock)
        profiled = _generate_truth(clock, t0, t1, out, batch, prompt)
        prof.export_chrome_trace(trace_path)
        out2, u0, u1 = _timed_generate(model, ids, mask, gen_kwargs, clock)
        unprofiled = _generate_truth(clock, u0, u1, out2, batch, prompt)
    same = bool(torch.equal(out, out2))
    truth = {
        "profiler": _describe_profile(False, **extra),
        "profiler_call": PROFILE_BARE if not record_shapes else PROFILE_BARE[:-1] + ", record_shapes=True)",
        "workload": {
            "model": cls.__name__, "config": params, "attn_implementation": getattr(model.config, "_attn_implementation", None),
            "dtype": str(dtype), "weights": "random (torch.manual_seed(0), built on cuda)", "eval": True,
            "no_grad": "generate() itself", "batch": batch, "prompt_len": prompt, "random_token_ids": True,
            "attention_mask": "all ones",
            "generate_kwargs": gen_kwargs, "parameter_count": sum(p.numel() for p in model.parameters()),
            "shrink_level": level, "shrink_levels": SHRINK[model_kind],
            "warmup_generate_calls": WARMUP_CALLS, "warmup_generate_wall_ms": warm,
            "hooks": "register_forward_pre_hook / register_forward_hook(with_kwargs=True) on the top-level model",
        },
        "truth": profiled,
        "unprofiled": unprofiled,
        "profiled_and_unprofiled_outputs_equal": same,
    }
    return prof, truth


# ----------------------------------------------------------------------------- training loops
def case_train_stepless(name, trace_path):
    from torch.profiler import profile
    nn = torch.nn
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(1024, 4096), nn.ReLU(), nn.Linear(4096, 4096), nn.ReLU(),
                          nn.Linear(4096, 10)).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    crit = nn.CrossEntropyLoss()
    x = torch.randn(512, 1024, device="cuda")
    y = torch.randint(0, 10, (512,), device="cuda")

    def it():
        opt.zero_grad()
        out = model(x)
        loss = crit(out, y)
        loss.backward()
        opt.step()
        return loss.item()

    warm = [it() for _ in range(WARMUP_CALLS)]
    torch.cuda.synchronize()
    starts, ends, losses = [], [], []
    with profile(**_profile_kwargs(False, trace_path)) as prof:
        p0 = time.perf_counter_ns()
        for _ in range(5):
            starts.append(time.perf_counter_ns())
            losses.append(it())
            ends.append(time.perf_counter_ns())
        p1 = time.perf_counter_ns()
    prof.export_chrome_trace(trace_path)
    durs = [_ns_ms(b - a) for a, b in zip(starts, ends)]
    truth = {
        "profiler": _describe_profile(False), "profiler_call": PROFILE_BARE,
        "workload": {"model": "Linear(1024,4096) ReLU Linear(4096,4096) ReLU Linear(4096,10)", "dtype": "float32",
                     "batch": 512, "optimizer": "AdamW(lr=1e-3)", "loss": "CrossEntropyLoss",
                     "iteration": "zero_grad, forward, loss, backward, optimizer.step(), loss.item()",
                     "warmup_iterations": WARMUP_CALLS, "warmup_losses": warm},
        "truth": {"iterations": len(starts),
                  "iteration_start_ms": [_ns_ms(v - p0) for v in starts],
                  "iteration_end_ms": [_ns_ms(v - p0) for v in ends],
                  "iteration_ms": durs, "first_iteration_ms": durs[0],
                  "median_rest_iteration_ms": statistics.median(durs[1:]),
                  "losses": losses, "loop_wall_ms": _ns_ms(p1 - p0),
                  "definitions": "ms from the loop's start, just inside `with profile(...)`; each iteration "
                                 "ends after loss.item() (a device sync)"},
    }
    return prof, truth


def case_cnn_stepless(name, trace_path):
    from torch.profiler import profile
    nn = torch.nn
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
        nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
        nn.Conv2d(64, 128, 3, stride=2, padding=1), nn.BatchNorm2d(128), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(128, 10)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    crit = nn.CrossEntropyLoss()
    x = torch.randn(64, 3, 128, 128, device="cuda")
    y = torch.randint(0, 10, (64,), device="cuda")

    def it():
        opt.zero_grad()
        loss = crit(model(x), y)
        loss.backward()
        opt.step()
        return loss.detach()

    for _ in range(WARMUP_CALLS):
        it()
    torch.cuda.synchronize()
    starts, ends, losses = [], [], []
    with profile(**_profile_kwargs(False, trace_path)) as prof:
        p0 = time.perf_counter_ns()
        for _ in range(4):
            starts.append(time.perf_counter_ns())
            losses.append(it())
            ends.append(time.perf_counter_ns())
        s0 = time.perf_counter_ns()
        torch.cuda.synchronize()
        p1 = time.perf_counter_ns()
    prof.export_chrome_trace(trace_path)
    durs = [_ns_ms(b - a) for a, b in zip(starts, ends)]
    truth = {
        "profiler": _describe_profile(False), "profiler_call": PROFILE_BARE,
        "workload": {"model": "Conv2d(3,32,3,p1) BN ReLU Conv2d(32,64,3,s2,p1) BN ReLU Conv2d(64,128,3,s2,p1) BN "
                              "ReLU AdaptiveAvgPool2d(1) Flatten Linear(128,10)",
                     "dtype": "float32", "input": [64, 3, 128, 128], "optimizer": "SGD(lr=0.01, momentum=0.9)",
                     "loss": "CrossEntropyLoss", "iteration": "zero_grad, forward, loss, backward, step (no .item())",
                     "warmup_iterations": WARMUP_CALLS,
                     "cudnn_benchmark": torch.backends.cudnn.benchmark},
        "truth": {"iterations": len(starts),
                  "iteration_start_ms": [_ns_ms(v - p0) for v in starts],
                  "iteration_end_ms": [_ns_ms(v - p0) for v in ends],
                  "iteration_cpu_ms": durs, "first_iteration_cpu_ms": durs[0],
                  "median_rest_iteration_cpu_ms": statistics.median(durs[1:]),
                  "final_synchronize_ms": _ns_ms(p1 - s0), "loop_wall_ms_with_sync": _ns_ms(p1 - p0),
                  "losses_read_after_profile": [float(v) for v in losses],
                  "definitions": "ms from the loop's start, just inside `with profile(...)`; iteration times "
                                 "are CPU side (no sync in the loop); one torch.cuda.synchronize() after it"},
    }
    return prof, truth


# ----------------------------------------------------------------------------- streams
def _cudart():
    path = None
    with open("/proc/self/maps") as f:
        for line in f:
            parts = line.split()
            if len(parts) >= 6 and "libcudart" in parts[-1]:
                path = parts[-1]
                break
    how = "/proc/self/maps"
    if path is None:
        cands = sorted(glob.glob(os.path.join(os.path.dirname(os.path.dirname(torch.__file__)), "nvidia", "*",
                                              "lib", "libcudart.so*")))
        path, how = (cands[0], "site-packages glob (not in /proc/self/maps)") if cands else ("libcudart.so", "soname")
    lib = ctypes.CDLL(path)
    lib.cudaLaunchHostFunc.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
    lib.cudaLaunchHostFunc.restype = ctypes.c_int
    return lib, path, how


class HostSleep:
    def __init__(self):
        self.cudart, self.path, self.how = _cudart()
        libc = ctypes.CDLL(None)
        self.usleep = ctypes.cast(libc.usleep, ctypes.c_void_p).value

    def enqueue(self, stream, us=HOST_SLEEP_US):
        rc = self.cudart.cudaLaunchHostFunc(ctypes.c_void_p(stream.cuda_stream), ctypes.c_void_p(self.usleep),
                                            ctypes.c_void_p(us))
        if rc != 0:
            raise RuntimeError(f"cudaLaunchHostFunc returned {rc}")


def case_stream_wait(name, trace_path, sync_events=False):
    from torch.profiler import profile
    extra = {}
    if sync_events:
        try:
            cfg = torch._C._profiler._ExperimentalConfig(enable_cuda_sync_events=True)
        except Exception as e:
            return None, {"skipped": f"_ExperimentalConfig(enable_cuda_sync_events=True) not accepted: {e!r}"}
        extra["experimental_config"] = cfg
    torch.manual_seed(0)
    hs = HostSleep()
    s1, s2 = torch.cuda.Stream(), torch.cuda.Stream()
    a = torch.randn(PRE_N, PRE_N, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(PRE_N, PRE_N, device="cuda", dtype=torch.bfloat16)
    c = torch.randn(SIDE_N, SIDE_N, device="cuda", dtype=torch.bfloat16)
    d = torch.randn(SIDE_N, SIDE_N, device="cuda", dtype=torch.bfloat16)
    torch.cuda.synchronize()

    def pre():
        for _ in range(PRE_MATMULS):
            y = a @ b
        return y

    def side():
        for _ in range(SIDE_MATMULS):
            y = c @ d
        return y.float().sum()

    def step():
        pre()
        hs.enqueue(s1)
        ev = torch.cuda.Event()
        ev.record(s1)
        s2.wait_event(ev)
        with torch.cuda.stream(s2):
            r = side()
        torch.cuda.synchronize()
        return r

    pre_ms = _time_gpu_ms(pre)
    side_ms = _time_gpu_ms(side)

    # Does the host function really hold s2 back?
    def delay_check(with_sleep):
        torch.cuda.synchronize()
        t0 = time.perf_counter_ns()
        if with_sleep:
            hs.enqueue(s1)
        t_launch = time.perf_counter_ns()
        ev = torch.cuda.Event()
        ev.record(s1)
        s2.wait_event(ev)
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        with torch.cuda.stream(s2):
            e0.record()
            side()
            e1.record()
        t_enq = time.perf_counter_ns()
        e1.synchronize()
        t1 = time.perf_counter_ns()
        return {"host_sleep": with_sleep, "cudaLaunchHostFunc_call_ms": _ns_ms(t_launch - t0),
                "cpu_enqueue_all_ms": _ns_ms(t_enq - t0), "until_s2_done_ms": _ns_ms(t1 - t0),
                "s2_event_elapsed_ms": round(e0.elapsed_time(e1), 4)}

    checks = [delay_check(True), delay_check(False), delay_check(True)]
    for _ in range(WARMUP_CALLS):
        step()
    step_ms = []
    with profile(**_profile_kwargs(True, trace_path, **extra)) as prof:
        for _ in range(STEP_CALLS):
            t0 = time.perf_counter_ns()
            step()
            step_ms.append(_ns_ms(time.perf_counter_ns() - t0))
            prof.step()

    events = load_events(trace_path)
    steps = profiler_steps(events)
    reports = []
    for st in steps:
        rep = step_gpu_report(events, st)
        t0, t1 = st["ts"], st["ts"] + st["dur"]
        acts = sorted([e for e in _x(events, GPU_CATS) if t0 <= e["ts"] < t1], key=lambda e: e["ts"])
        kernels = [e for e in acts if e["cat"] == "kernel"]
        default_stream = (kernels[0].get("args") or {}).get("stream") if kernels else None  # pre()'s matmuls
        other = [e for e in kernels if (e.get("args") or {}).get("stream") != default_stream]
        rep["default_stream_id"] = default_stream
        if other:
            first_s2 = other[0]
            rep["first_s2_kernel"] = _act_brief(first_s2, t0)
            calls = sorted([e for e in _x(events, CALL_CATS) if t0 <= e["ts"] < first_s2["ts"]], key=lambda e: e["ts"])
            names = {}
            for e in calls:
                names[e["name"]] = names.get(e["name"], 0) + 1
            rep["calls_step_start_to_first_s2_kernel"] = names
            rep["non_launch_calls_timeline"] = [
                {"cat": e["cat"], "name": e["name"], "start_ms": round((e["ts"] - t0) / 1e3, 4),
                 "dur_ms": round(e.get("dur", 0) / 1e3, 4), "args": e.get("args")}
                for e in calls if "Launch" not in e["name"] or "Host" in e["name"]]
        reports.append(rep)
    counts = {}
    for e in _x(events, CALL_CATS):
        counts[e["name"]] = counts.get(e["name"], 0) + 1
    truth = {
        "profiler": _describe_profile(True, **extra),
        "profiler_call": PROFILE_SCHED[:-1] + (", experimental_config=torch._C._profiler._ExperimentalConfig("
                                               "enable_cuda_sync_events=True))" if sync_events else ")"),
        "workload": {
            "step": f"{PRE_MATMULS} bf16 {PRE_N}^3 matmuls on the default stream; cudaLaunchHostFunc(s1, usleep, "
                    f"{HOST_SLEEP_US}); ev.record(s1); s2.wait_event(ev); on s2 {SIDE_MATMULS} bf16 {SIDE_N}^3 "
                    f"matmuls + y.float().sum(); torch.cuda.synchronize()",
            "streams": "s1, s2 = torch.cuda.Stream(), torch.cuda.Stream()",
            "libcudart": hs.path, "libcudart_found_by": hs.how, "host_function": "libc usleep",
            "warmup_steps": WARMUP_CALLS},
        "truth": {
            "host_sleep_ms": HOST_SLEEP_US / 1e3,
            "default_stream_matmuls_gpu_ms": round(pre_ms, 4),
            "s2_matmuls_gpu_ms": round(side_ms, 4),
            "delay_checks": checks,
            "step_call_wall_ms": step_ms,
            "profiled_step_wall_ms": step_ms[SCHEDULE["wait"] + SCHEDULE["warmup"]:],
            "trace_steps": reports,
            "trace_call_counts": counts,
            "trace_has": {k: counts.get(k, 0) for k in ("cudaLaunchHostFunc", "cudaStreamWaitEvent", "cudaEventRecord",
                                                          "cudaDeviceSynchronize", "cudaEventSynchronize")},
            "definitions": "step_call_wall_ms: perf_counter around each step() call (the 5 calls; ProfilerStep#2..#4 "
                           "are calls 3..5). Trace numbers are from the exported JSON: GPU activity = cat kernel, "
                           "gpu_memcpy, gpu_memset (any stream); times in ms from the ProfilerStep's start.",
        },
    }
    if sync_events:
        sync = [e for e in events if e.get("cat") == "cuda_sync"]
        truth["truth"]["cuda_sync_events"] = {
            "count": len(sync),
            "names": sorted({e.get("name") for e in sync}),
            "phs": sorted({e.get("ph") for e in sync}),
            "examples": sync[:6],
            "per_step": [[{"name": e.get("name"), "start_ms": round((e["ts"] - st["ts"]) / 1e3, 4),
                           "dur_ms": round(e.get("dur", 0) / 1e3, 4), "pid": e.get("pid"), "tid": e.get("tid"),
                           "args": e.get("args")}
                          for e in sync if st["ts"] <= e["ts"] < st["ts"] + st["dur"]] for st in steps],
        }
    return prof, truth


# ----------------------------------------------------------------------------- cpu prefix
def case_cpu_prefix(name, trace_path):
    from torch.profiler import profile
    F = torch.nn.functional
    torch.manual_seed(0)
    clip = torch.randint(0, 256, CLIP, dtype=torch.uint8)
    mean = torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1)
    std = torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1)
    w = torch.randn(GPU_N, GPU_N, device="cuda", dtype=torch.bfloat16)

    def prep_once():
        x = clip.float()
        x = F.interpolate(x, size=(224, 224), mode="bilinear", align_corners=False, antialias=True)
        return (x / 255.0 - mean) / std

    # Calibrate: repetitions of prep_once for ~200 ms, matmuls for ~200 ms of GPU time.
    prep_once()
    t0 = time.perf_counter()
    for _ in range(3):
        prep_once()
    one_prep_s = (time.perf_counter() - t0) / 3
    reps = max(1, round(CPU_TARGET_S / one_prep_s))
    one_mm_ms = _time_gpu_ms(lambda: w @ w)
    n_mm = max(1, round(GPU_TARGET_S * 1e3 / one_mm_ms))

    def step():
        s0 = time.perf_counter_ns()
        for _ in range(reps):
            x = prep_once()
        s1 = time.perf_counter_ns()
        xg = x.to("cuda", non_blocking=False)
        h = xg.mean()  # the batch is used on the GPU
        for _ in range(n_mm):
            y = w @ w
        torch.cuda.synchronize()
        s2 = time.perf_counter_ns()
        return s0, s1, s2, h, y

    for _ in range(WARMUP_CALLS):
        step()
    rows = []
    with profile(**_profile_kwargs(True, trace_path)) as prof:
        for _ in range(STEP_CALLS):
            s0, s1, s2, _, _ = step()
            rows.append({"cpu_prefix_ms": _ns_ms(s1 - s0), "gpu_part_ms": _ns_ms(s2 - s1),
                         "step_wall_ms": _ns_ms(s2 - s0)})
            prof.step()
    events = load_events(trace_path)
    reports = [step_gpu_report(events, st) for st in profiler_steps(events)]
    for r in reports:
        r.pop("longest_interior_gap", None)
    truth = {
        "profiler": _describe_profile(True), "profiler_call": PROFILE_SCHED,
        "workload": {
            "cpu_prefix": f"{reps} x (uint8 clip {list(CLIP)} .float(), F.interpolate(size=(224, 224), mode='bilinear', "
                          "antialias=True), (x / 255 - mean) / std) on the CPU",
            "cpu_prefix_repetitions": reps, "one_prep_ms": round(one_prep_s * 1e3, 3),
            "torch_cpu_threads": torch.get_num_threads(),
            "copy": "x.to('cuda', non_blocking=False) of the (8, 3, 224, 224) float batch (pageable), then xg.mean()",
            "gpu_part": f"{n_mm} bf16 {GPU_N}^3 matmuls, no sync inside, then torch.cuda.synchronize()",
            "matmuls": n_mm, "one_matmul_gpu_ms": round(one_mm_ms, 4),
            "matmuls_gpu_ms_expected": round(one_mm_ms * n_mm, 3), "warmup_steps": WARMUP_CALLS},
        "truth": {
            "step_calls": rows,
            "profiled_steps": rows[SCHEDULE["wait"] + SCHEDULE["warmup"]:],
            "trace_steps": reports,
            "definitions": "step_calls: perf_counter per step() call (5 calls; ProfilerStep#2..#4 are calls 3..5): "
                           "cpu_prefix_ms = the CPU preprocessing; gpu_part_ms = .to('cuda') through the final "
                           "synchronize; step_wall_ms = both. trace_steps from the exported JSON: "
                           "step_start_to_first_gpu_ms, gpu_busy_ms = union of kernel/gpu_memcpy/gpu_memset "
                           "intervals inside the ProfilerStep.",
        },
    }
    return prof, truth


CASES = {
    "generate_bare": lambda n, p: case_generate(n, p, "llama", False),
    "generate_shapes": lambda n, p: case_generate(n, p, "llama", True),
    "train_stepless": case_train_stepless,
    "stream_wait": case_stream_wait,
    "stream_wait_sync_events": lambda n, p: case_stream_wait(n, p, sync_events=True),
    "cpu_prefix": case_cpu_prefix,
    "holdout_gpt2_generate": lambda n, p: case_generate(n, p, "gpt2", False),
    "holdout_cnn_stepless": case_cnn_stepless,
}
SHRINKABLE = {"generate_bare": "llama", "generate_shapes": "llama", "holdout_gpt2_generate": "gpt2"}


def record_one(name, outdir):
    global torch
    import torch as _torch
    torch = _torch
    torch.cuda.init()
    torch.zeros(1, device="cuda")  # CUDA context exists before profiling, as in real programs
    tmp = tempfile.mkdtemp()
    trace_path = os.path.join(tmp, name + ".json")
    prof, case_truth = CASES[name](name, trace_path)
    truth = {"case": name, "recorded_by": "python3 tools/record_inference.py OUTDIR " + name,
             **_versions(), **case_truth}
    if prof is not None:
        averages = prof.key_averages()
        truth["key_averages"] = [record_fixtures.avg_row(e) for e in averages]
        truth["ops_summary"] = _ops_summary(averages)
        with open(trace_path, "rb") as src, gzip.open(os.path.join(outdir, name + ".json.gz"), "wb") as dst:
            shutil.copyfileobj(src, dst)
        truth["trace_bytes_raw"] = os.path.getsize(trace_path)
        truth["trace_bytes_gz"] = os.path.getsize(os.path.join(outdir, name + ".json.gz"))
    with open(os.path.join(outdir, name + ".truth.json"), "w") as f:
        json.dump(truth, f, indent=1)


def summary_lines(outdir, name):
    path = os.path.join(outdir, name + ".truth.json")
    if not os.path.exists(path):
        return [f"{name}: no truth file"]
    with open(path) as f:
        t = json.load(f)
    if "skipped" in t:
        return [f"{name}: SKIPPED {t['skipped']}"]
    tr = t["truth"]
    out = [f"{name}: trace {t.get('trace_bytes_gz')} B gz ({t.get('trace_bytes_raw')} raw)"]
    if "forwards" in tr:
        out.append(f"  forwards {tr['forwards']} shapes {tr['input_ids_shapes'][:2]} first iter {tr['first_iteration_ms']} "
                   f"median rest {tr['median_rest_iteration_ms']} ms, generate {tr['generate_wall_ms']} ms, "
                   f"decode {tr.get('decode_tokens_per_s')} tok/s (unprofiled {t['unprofiled'].get('decode_tokens_per_s')}"
                   f", {t['unprofiled']['generate_wall_ms']} ms), shrink {t['workload']['shrink_level']}")
    elif "iteration_ms" in tr or "iteration_cpu_ms" in tr:
        out.append(f"  iterations {tr.get('iteration_ms') or tr.get('iteration_cpu_ms')} "
                   f"{'losses ' + str(tr.get('losses')) if 'losses' in tr else 'sync ' + str(tr.get('final_synchronize_ms'))}")
    if "trace_steps" in tr:
        if "step_call_wall_ms" in tr:
            out.append(f"  step walls {tr['step_call_wall_ms']} s2 mm {tr['s2_matmuls_gpu_ms']} ms, pre mm "
                       f"{tr['default_stream_matmuls_gpu_ms']} ms; has {tr['trace_has']}")
            for c in tr["delay_checks"]:
                out.append(f"  delay check {c}")
        if "step_calls" in tr:
            out.append(f"  step calls {tr['step_calls']}")
        for r in tr["trace_steps"]:
            g = r.get("longest_gap", {})
            out.append(f"  {r['step']} dur {r['step_dur_ms']} busy {r['gpu_busy_ms']} first gpu "
                       f"{r.get('step_start_to_first_gpu_ms')} gap {g.get('kind')} {g.get('len_ms')} ended by "
                       f"{(g.get('ended_by') or {}).get('name', '')[:40]} launch {g.get('ended_by_launch')}")
            if "calls_step_start_to_first_s2_kernel" in r:
                out.append(f"    calls before s2: {r['calls_step_start_to_first_s2_kernel']}")
        if "cuda_sync_events" in tr:
            s = tr["cuda_sync_events"]
            out.append(f"  cuda_sync: {s['count']} {s['names']} {s['phs']} e.g. {json.dumps(s['examples'][:2])[:600]}")
    return out


def main():
    args = record_fixtures.recorder_args(sys.argv, CASES, record_one, "inference")
    if args is None:
        return
    outdir, names = args
    start = time.time()

    def env_of(level):
        env = dict(os.environ)
        env["PYTHONUNBUFFERED"] = "1"
        env[SHRINK_ENV] = str(level)
        return env

    failed = record_fixtures.run_each(__file__, outdir, names, timeout_of=lambda n: CASE_TIMEOUT_S,
                                      env_of=lambda n: env_of(0), budget_s=TOTAL_BUDGET_S)
    for level in range(1, 4):
        big = [n for n in names if n in SHRINKABLE and n not in failed
               and os.path.exists(os.path.join(outdir, n + ".json.gz"))
               and os.path.getsize(os.path.join(outdir, n + ".json.gz")) > SIZE_LIMIT]
        left = TOTAL_BUDGET_S - (time.time() - start)
        if not big or left < 30:
            break
        print(f"\n== over {SIZE_LIMIT} B, recording again at shrink level {level}: {big}")
        failed += record_fixtures.run_each(__file__, outdir, big, timeout_of=lambda n: CASE_TIMEOUT_S,
                                           env_of=lambda n, lv=level: env_of(lv), budget_s=left)
    print()
    for name in names:
        for line in summary_lines(outdir, name):
            print(line)
    hold = os.path.join(outdir, "holdout")
    for fn in os.listdir(outdir):
        if fn.startswith("holdout_") and os.path.isfile(os.path.join(outdir, fn)):
            os.makedirs(hold, exist_ok=True)
            shutil.move(os.path.join(outdir, fn), os.path.join(hold, fn))
    print("failed:", " ".join(failed) if failed else "none")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
