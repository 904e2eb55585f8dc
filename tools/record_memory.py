#!/usr/bin/env python3
"""Record torch.profiler traces with profile_memory=True (the allocator's `[memory]` events) for
cases whose memory story is known by construction, with torch's own allocator counters as the
oracle.

Run on the GPU machine:  python3 tools/record_memory.py OUTDIR [NAME ...]
Each case runs in a fresh subprocess (record_fixtures.run_each), so no case inherits another's caching-allocator state. For each case NAME it writes
  OUTDIR/NAME.json.gz       the Chrome trace torch exported (gzipped)
  OUTDIR/NAME.oracle.json   key_averages() rows (record_fixtures.avg_row) plus the memory columns
                            of each FunctionEventAvg (cpu/device memory usage, self and total)
  OUTDIR/NAME.meta.json     what was run (code, shapes, dtypes, parameter count and bytes,
                            optimizer), versions, GPU, date, and the per-step memory oracle: for
                            every step call, torch.cuda.synchronize(); reset_peak_memory_stats();
                            memory_allocated() at the start; at the end (after synchronize, before
                            prof.step()) max_memory_allocated(), max_memory_reserved(),
                            memory_allocated(), memory_reserved(), a few memory_stats() counters,
                            and the step's wall time. Also what the trace's `[memory]` events say
                            for the same steps (trace_memory_check), read back from the export.

Profiler: CPU + CUDA activities (CPU only for logits_cpu), record_shapes=True, profile_memory=True,
with_stack=False, with_modules=False, schedule(wait=1, warmup=1, active=3, repeat=1) over 5
prof.step() calls, so the exported trace holds ProfilerStep#2..#4. Two warm-up steps run before
the profiler starts. PYTORCH_CUDA_ALLOC_CONF is removed from the children's environment (the
caching allocator's defaults: no expandable segments); the parent's value is noted in the meta.

Afterwards, on the GPU machine:  python3 tools/record_memory.py --pack OUTDIR DEST
tars OUTDIR into DEST/memory.tar (members memory/NAME...); if that is over the size a file may have
coming back, it is cut into DEST/memory.tar.partNN pieces (cat them together to get memory.tar
back), and if even the pieces would be too many, the largest traces are left out (listed in
DEST/dropped.txt).
"""
import collections
import datetime
import gzip
import json
import os
import platform
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import record_fixtures  # noqa: E402  the recorders' shared runner, packer, command line and oracle writer

torch = None  # imported in record_one, the child that records a case

SCHEDULE = dict(wait=1, warmup=1, active=3, repeat=1)  # ALWAYS repeat=1: ProfilerStep#2..#4 kept
STEP_CALLS = 5
WARMUP_CALLS = 2
CASE_TIMEOUT_S = 120
TOTAL_BUDGET_S = 420  # no case starts later than this, so the tar is made inside the device call
DEVICE = "cuda"       # a local smoke test may set this to "cpu" (with torch.cuda stubbed)

VOCAB, D_MODEL, D_HIDDEN, LM_BLOCKS = 32000, 512, 2048, 2
LOGITS_BATCH, LOGITS_SEQ = 8, 1024
LEAK_BATCH, LEAK_SEQ = 2, 256
CPU_BATCH, CPU_SEQ = 2, 128
CK_BLOCKS, CK_D, CK_HIDDEN, CK_BATCH, CK_SEQ = 6, 1024, 4096, 64, 512
FRAG_TENSORS, FRAG_KEEP = 200, 100
FRAG_BASE_BYTES = (1_100_003, 3_300_007, 7_700_011, 13_000_019)  # ~1.1, 3.3, 7.7, 13 MB, odd sizes
FRAG_GROWTH_PER_CALL = 0.125

STAT_KEYS = ("segment.all.current", "active_bytes.all.current", "active_bytes.all.peak",
             "inactive_split_bytes.all.current", "inactive_split.all.current",
             "requested_bytes.all.current", "requested_bytes.all.peak", "allocation.all.current",
             "num_alloc_retries", "num_device_alloc", "num_device_free", "num_ooms")


def _rf(name):
    return torch.profiler.record_function(name)


# ----------------------------------------------------------------------------- models
def _nn():
    nn = torch.nn

    class Block(nn.Module):
        """x + fc2(gelu(fc1(x)))"""

        def __init__(self, d, hidden):
            super().__init__()
            self.fc1 = nn.Linear(d, hidden)
            self.act = nn.GELU()
            self.fc2 = nn.Linear(hidden, d)

        def forward(self, x):
            return x + self.fc2(self.act(self.fc1(x)))

    class TinyLM(nn.Module):
        """embedding(32000, 512) -> 2 residual MLP blocks (512->2048->512) -> Linear(512, 32000)."""

        def __init__(self):
            super().__init__()
            self.emb = nn.Embedding(VOCAB, D_MODEL)
            self.blocks = nn.ModuleList([Block(D_MODEL, D_HIDDEN) for _ in range(LM_BLOCKS)])
            self.head = nn.Linear(D_MODEL, VOCAB)

        def forward(self, ids):
            h = self.emb(ids)
            for b in self.blocks:
                h = b(h)
            return self.head(h)

    return Block, TinyLM


def _param_facts(module):
    ps = list(module.parameters())
    return {"parameter_count": sum(p.numel() for p in ps),
            "parameter_bytes": sum(p.numel() * p.element_size() for p in ps),
            "parameter_tensors": len(ps),
            "parameter_dtypes": sorted({str(p.dtype) for p in ps}),
            "parameter_shapes": {n: list(p.shape) for n, p in module.named_parameters()}}


def _optimizer_facts(opt):
    defaults = {k: (v if isinstance(v, (int, float, bool, str)) or v is None else str(v))
                for k, v in opt.defaults.items()}
    return {"optimizer": type(opt).__name__, "optimizer_defaults": defaults}


def _optimizer_state_bytes(opt):
    total = 0
    for st in opt.state.values():
        for v in st.values():
            if torch.is_tensor(v):
                total += v.numel() * v.element_size()
    return total


def _tokens(batch, seq, device):
    g = torch.Generator().manual_seed(1)
    t = torch.randint(0, VOCAB, (batch, seq + 1), generator=g)
    return t[:, :-1].contiguous().to(device), t[:, 1:].contiguous().to(device)


# ----------------------------------------------------------------------------- builders
# Each builder returns (work, meta, finish): work(i) runs call i (the 2 warm-up calls are 0, 1; the
# profiled-loop calls 2..6) and keeps nothing alive except what the case keeps on purpose;
# finish(meta) adds facts known only after the loop (or is None).

def lm_train(batch, seq, device, leak=False):
    F = torch.nn.functional
    _, TinyLM = _nn()
    torch.manual_seed(0)
    model = TinyLM().to(device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    inp, tgt = _tokens(batch, seq, device)
    keep = []  # leak: never cleared

    def work(i):
        with _rf("forward"):
            logits = model(inp)
            loss = F.cross_entropy(logits.view(-1, VOCAB), tgt.view(-1))
        if leak:  # "history" kept for logging, outside any record_function
            keep.append(loss)
            keep.append(logits.detach().clone())
        with _rf("backward"):
            loss.backward()
        with _rf("optimizer"):
            opt.step()
            opt.zero_grad(set_to_none=True)

    logits_bytes = batch * seq * VOCAB * 4
    meta = {
        "code": ("model = TinyLM(): emb = nn.Embedding(32000, 512); 2 x Block(x + fc2(gelu(fc1(x))), "
                 "fc1 = Linear(512, 2048), fc2 = Linear(2048, 512)); head = Linear(512, 32000). "
                 "opt = AdamW(lr=1e-4) (defaults otherwise). Step: with record_function('forward'): "
                 "logits = model(inp); loss = F.cross_entropy(logits.view(-1, 32000), tgt.view(-1)); "
                 + ("keep.append(loss); keep.append(logits.detach().clone())  # never cleared, outside "
                    "any record_function; " if leak else "")
                 + "with record_function('backward'): loss.backward(); with record_function('optimizer'): "
                   "opt.step(); opt.zero_grad(set_to_none=True)"),
        "device": device,
        "dtype": "torch.float32",
        "shapes": {"inp": [batch, seq], "tgt": [batch, seq], "logits": [batch, seq, VOCAB]},
        "input_dtype": "torch.int64",
        "logits_bytes": logits_bytes,
        "logits_bytes_formula": f"{batch} * {seq} * {VOCAB} * 4",
        "record_functions": ["forward", "backward", "optimizer"],
    }
    meta.update(_param_facts(model))
    meta.update(_optimizer_facts(opt))
    if leak:
        meta["leak"] = {
            "what": "each call appends loss (0-dim fp32; its graph's saved tensors are freed by backward) "
                    "and logits.detach().clone() to a list never cleared",
            "bytes_kept_per_call_expected": logits_bytes + 512,
            "bytes_kept_per_call_formula": "logits clone (a multiple of 512, so not rounded) + 512 (the "
                                           "caching allocator's smallest block, holding the 4-byte loss)",
        }

    def finish(m):
        m["optimizer_state_bytes_after_loop"] = _optimizer_state_bytes(opt)
        m["tensors_kept_by_leak"] = len(keep) if leak else None
        if device == "cuda" and not leak and batch == LOGITS_BATCH:
            m["snapshot_after_loop"] = snapshot_summary()

    return work, meta, finish


def mlp_stack(ckpt):
    Block, _ = _nn()
    from torch.utils.checkpoint import checkpoint
    dtype = torch.bfloat16
    torch.manual_seed(0)
    blocks = torch.nn.ModuleList([Block(CK_D, CK_HIDDEN) for _ in range(CK_BLOCKS)]).to(DEVICE, dtype)
    opt = torch.optim.SGD(blocks.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(2)
    x = torch.randn(CK_BATCH, CK_SEQ, CK_D, generator=g).to(DEVICE, dtype)

    def work(i):
        with _rf("forward"):
            h = x
            for b in blocks:
                h = checkpoint(b, h, use_reentrant=False) if ckpt else b(h)
            loss = h.float().pow(2).mean()
        with _rf("backward"):
            loss.backward()
        with _rf("optimizer"):
            opt.step()
            opt.zero_grad(set_to_none=True)

    tok = CK_BATCH * CK_SEQ
    meta = {
        "code": ("blocks = 6 x Block(x + fc2(gelu(fc1(x))), fc1 = Linear(1024, 4096), fc2 = Linear(4096, 1024)), "
                 "bf16; opt = SGD(lr=1e-3). Step: with record_function('forward'): h = x; for b in blocks: h = "
                 + ("torch.utils.checkpoint.checkpoint(b, h, use_reentrant=False)" if ckpt else "b(h)")
                 + "; loss = h.float().pow(2).mean(); with record_function('backward'): loss.backward(); "
                   "with record_function('optimizer'): opt.step(); opt.zero_grad(set_to_none=True)"),
        "device": DEVICE,
        "dtype": str(dtype),
        "activation_checkpointing": ckpt,
        "shapes": {"x": [CK_BATCH, CK_SEQ, CK_D], "fc1_out": [CK_BATCH, CK_SEQ, CK_HIDDEN]},
        "inputs": "x = torch.randn(64, 512, 1024, generator=Generator().manual_seed(2)) in bf16; "
                  "weights from torch.manual_seed(0): identical in ckpt_off and ckpt_on",
        "bytes_block_input": tok * CK_D * 2,
        "bytes_fc1_out": tok * CK_HIDDEN * 2,
        "record_functions": ["forward", "backward", "optimizer"],
    }
    meta.update(_param_facts(blocks))
    meta.update(_optimizer_facts(opt))
    return work, meta, None


def fragment():
    kept = collections.deque(maxlen=FRAG_KEEP)
    u8 = torch.uint8

    def work(i):
        grow = 1.0 + FRAG_GROWTH_PER_CALL * i
        with _rf("allocate"):
            ts = [torch.ones(int(FRAG_BASE_BYTES[k % len(FRAG_BASE_BYTES)] * grow), dtype=u8, device=DEVICE)
                  for k in range(FRAG_TENSORS)]
        with _rf("free_every_other"):
            holes = [ts[k].numel() for k in range(0, FRAG_TENSORS, 2)]
            survivors = ts[1::2]
            del ts
        with _rf("allocate_larger"):
            bigger = [torch.ones(n + n // 16 + 4099, dtype=u8, device=DEVICE) for n in holes]
        for a, b in zip(survivors, bigger):
            kept.append(a)
            kept.append(b)
        del survivors, bigger
        with _rf("compute"):
            torch.stack([t.sum() for t in kept]).sum()

    meta = {
        "code": ("kept = deque(maxlen=100). Call i: grow = 1 + 0.125*i; with record_function('allocate'): "
                 "ts = [torch.ones(int(base[k % 4] * grow), uint8) for k in range(200)], base = "
                 f"{list(FRAG_BASE_BYTES)}; with record_function('free_every_other'): the even-indexed "
                 "tensors dropped (holes); with record_function('allocate_larger'): one tensor of "
                 "n + n//16 + 4099 bytes for each hole of n bytes; the survivors and the larger ones, "
                 "interleaved, appended to kept (the last 100 stay across calls); with "
                 "record_function('compute'): torch.stack([t.sum() for t in kept]).sum()"),
        "device": DEVICE,
        "dtype": "torch.uint8",
        "tensors_per_call": FRAG_TENSORS,
        "kept_across_calls": FRAG_KEEP,
        "base_bytes": list(FRAG_BASE_BYTES),
        "growth_per_call": FRAG_GROWTH_PER_CALL,
        "goal": "memory_reserved() far above memory_allocated() at step end (the caching allocator keeps "
                "the segments of earlier peaks and of split blocks); expandable_segments not set",
        "record_functions": ["allocate", "free_every_other", "allocate_larger", "compute"],
        "parameter_count": 0, "parameter_bytes": 0, "optimizer": None,
    }
    return work, meta, None


CASES = {
    "logits": dict(build=lambda: lm_train(LOGITS_BATCH, LOGITS_SEQ, DEVICE), device="gpu"),
    "leak": dict(build=lambda: lm_train(LEAK_BATCH, LEAK_SEQ, DEVICE, leak=True), device="gpu"),
    "ckpt_off": dict(build=lambda: mlp_stack(False), device="gpu"),
    "ckpt_on": dict(build=lambda: mlp_stack(True), device="gpu"),
    "fragment": dict(build=fragment, device="gpu"),
    "logits_cpu": dict(build=lambda: lm_train(CPU_BATCH, CPU_SEQ, "cpu"), device="cpu"),
}


# ----------------------------------------------------------------------------- measuring
def snapshot_summary():
    """torch.cuda.memory._snapshot() reduced to block sizes: no stacks, no addresses."""
    try:
        snap = torch.cuda.memory._snapshot()
        segs = snap.get("segments", []) if isinstance(snap, dict) else []
        active, inactive = [], 0
        n_inactive = 0
        for s in segs:
            for b in s.get("blocks", []):
                st = str(b.get("state", ""))
                if st.startswith("active"):
                    active.append({"size": b.get("size"), "requested_size": b.get("requested_size"),
                                   "state": st, "segment_type": s.get("segment_type")})
                else:
                    n_inactive += 1
                    inactive += int(b.get("size") or 0)
        active.sort(key=lambda b: -(b["size"] or 0))
        return {
            "taken": "after the profiled loop (after the last prof.step())",
            "segments": len(segs),
            "segments_total_size": sum(int(s.get("total_size") or 0) for s in segs),
            "segments_allocated_size": sum(int(s.get("allocated_size") or 0) for s in segs),
            "segments_by_type": dict(collections.Counter(str(s.get("segment_type")) for s in segs)),
            "active_blocks": len(active),
            "active_bytes": sum(b["size"] or 0 for b in active),
            "inactive_blocks": n_inactive,
            "inactive_bytes": inactive,
            "active_blocks_top50_by_size": active[:50],
        }
    except Exception as e:
        return {"error": repr(e)}


def _stats():
    try:
        s = torch.cuda.memory_stats()
        return {k: s.get(k) for k in STAT_KEYS if k in s}
    except Exception as e:
        return {"error": repr(e)}


def run_step(work, i, gpu):
    """One step call, measured as the brief asks: reset at the start, read at the end."""
    rec = {"call": i}
    if gpu:
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats()
        rec["allocated_start"] = torch.cuda.memory_allocated()
        rec["reserved_start"] = torch.cuda.memory_reserved()
    t0 = time.perf_counter()
    work(i)
    if gpu:
        torch.cuda.synchronize()
    rec["wall_ms"] = (time.perf_counter() - t0) * 1e3
    if gpu:
        rec["max_allocated"] = torch.cuda.max_memory_allocated()
        rec["max_reserved"] = torch.cuda.max_memory_reserved()
        rec["allocated_end"] = torch.cuda.memory_allocated()
        rec["reserved_end"] = torch.cuda.memory_reserved()
        rec["allocated_growth"] = rec["allocated_end"] - rec["allocated_start"]
        rec["stats_end"] = _stats()
    return rec


def _events(trace_path):
    with open(trace_path) as f:
        tr = json.load(f)
    return tr.get("traceEvents", []) if isinstance(tr, dict) else tr


def profiler_steps(evs):
    """ProfilerStep#N -> (ts, dur) of its CPU-side event (not the gpu_user_annotation copy)."""
    out = {}
    for e in evs:
        n = str(e.get("name", ""))
        if n.startswith("ProfilerStep#") and e.get("ph") == "X" and e.get("cat") != "gpu_user_annotation":
            out[n] = (float(e["ts"]), float(e.get("dur", 0)))
    return out


def trace_memory_check(trace_path, steps_by_name):
    """Per ProfilerStep: what the trace's [memory] events say, beside torch's counters for that call."""
    evs = _events(trace_path)
    psteps = profiler_steps(evs)
    mem = [e for e in evs if e.get("name") == "[memory]"]
    by_type = collections.Counter(str(e.get("args", {}).get("Device Type")) for e in mem)
    out = {"profiler_steps": sorted(psteps), "memory_events": len(mem),
           "memory_events_by_device_type": dict(by_type), "steps": {}}
    for name, (ts, dur) in sorted(psteps.items()):
        inside = [e for e in mem if ts <= float(e["ts"]) <= ts + dur]
        for dev_type in sorted({e.get("args", {}).get("Device Type") for e in inside}, key=str):
            es = sorted((e for e in inside if e.get("args", {}).get("Device Type") == dev_type),
                        key=lambda e: float(e["ts"]))
            a = [e["args"] for e in es]
            row = {"events": len(es),
                   "allocs": sum(1 for x in a if x.get("Bytes", 0) > 0),
                   "frees": sum(1 for x in a if x.get("Bytes", 0) < 0),
                   "bytes_allocated": sum(x.get("Bytes", 0) for x in a if x.get("Bytes", 0) > 0),
                   "bytes_freed": -sum(x.get("Bytes", 0) for x in a if x.get("Bytes", 0) < 0),
                   "max_total_allocated": max(x.get("Total Allocated", 0) for x in a),
                   "max_total_reserved": max(x.get("Total Reserved", 0) for x in a),
                   "first_total_allocated_before": a[0].get("Total Allocated", 0) - a[0].get("Bytes", 0),
                   "last_total_allocated": a[-1].get("Total Allocated", 0),
                   "last_total_reserved": a[-1].get("Total Reserved", 0)}
            torch_row = steps_by_name.get(name)
            if str(dev_type) == "1" and torch_row and "max_allocated" in torch_row:
                peak = max(row["max_total_allocated"], row["first_total_allocated_before"])
                row["torch_max_allocated"] = torch_row["max_allocated"]
                row["torch_max_allocated_minus_trace_max"] = torch_row["max_allocated"] - row["max_total_allocated"]
                row["torch_max_allocated_minus_trace_peak_incl_start"] = torch_row["max_allocated"] - peak
                row["torch_allocated_start_minus_trace_first_before"] = (
                    torch_row["allocated_start"] - row["first_total_allocated_before"])
                row["torch_allocated_end_minus_trace_last"] = torch_row["allocated_end"] - row["last_total_allocated"]
                row["torch_max_reserved_minus_trace_max_reserved"] = (
                    torch_row["max_reserved"] - row["max_total_reserved"])
                row["torch_reserved_end_minus_trace_last_reserved"] = (
                    torch_row["reserved_end"] - row["last_total_reserved"])
            out["steps"].setdefault(name, {})["device_type_%s" % dev_type] = row
    return out


def mem_row(e, avg_row):
    row = avg_row(e)
    for k in ("cpu_memory_usage", "self_cpu_memory_usage", "device_memory_usage", "self_device_memory_usage",
              "cuda_memory_usage", "self_cuda_memory_usage"):
        if k.startswith(("cuda", "self_cuda")) and k.replace("cuda", "device") in row:
            continue  # the deprecated alias of a field already there
        v = getattr(e, k, None)
        if isinstance(v, (int, float)):
            row[k] = v
    return row


# ----------------------------------------------------------------------------- one case (child)
def record_one(name, outdir):
    global torch
    if torch is None:
        import torch as _torch
        torch = _torch
    from torch.profiler import ProfilerActivity, profile, schedule
    avg_row = record_fixtures.avg_row
    case = CASES[name]
    gpu = case["device"] == "gpu"
    date = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    if gpu:
        torch.cuda.init()
        torch.zeros(1, device=DEVICE)  # CUDA context exists before profiling, as in real programs
    work, meta, finish = case["build"]()

    warm = [run_step(work, i, gpu) for i in range(WARMUP_CALLS)]
    if gpu:
        torch.cuda.synchronize()

    tmp = tempfile.mkdtemp()
    trace_path = os.path.join(tmp, name + ".json")
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if gpu else [])
    options = dict(record_shapes=True, profile_memory=True, with_stack=False, with_modules=False)
    first = SCHEDULE["wait"] + SCHEDULE["warmup"]
    profiled = list(range(first, first + SCHEDULE["active"]))
    loop = []
    with profile(activities=activities, schedule=schedule(**SCHEDULE),
                 on_trace_ready=lambda p: p.export_chrome_trace(trace_path), **options) as prof:
        for j in range(STEP_CALLS):
            rec = run_step(work, WARMUP_CALLS + j, gpu)
            rec["loop_call"] = j
            rec["profiler_step"] = f"ProfilerStep#{j}"
            rec["phase"] = ("profiled" if j in profiled else
                            "profiler_wait" if j < SCHEDULE["wait"] else
                            "profiler_warmup" if j < first else "after_active")
            loop.append(rec)
            prof.step()
    if gpu:
        torch.cuda.synchronize()
    for rec in warm:
        rec["phase"] = "warmup_before_profiler"

    with open(trace_path, "rb") as src, gzip.open(os.path.join(outdir, name + ".json.gz"), "wb") as dst:
        shutil.copyfileobj(src, dst)
    averages = prof.key_averages()
    sort_key = "self_cuda_memory_usage" if gpu else "self_cpu_memory_usage"
    try:
        table = averages.table(sort_by=sort_key, row_limit=200)
    except Exception:
        table = averages.table(sort_by="self_cpu_time_total", row_limit=200)
    oracle = {
        "workload": name,
        "schedule": SCHEDULE,
        "step_calls": STEP_CALLS,
        "warmup_calls_before_profiling": WARMUP_CALLS,
        "profiler_options": dict(options, activities=[str(a) for a in activities]),
        "torch": torch.__version__,
        "gpu": torch.cuda.get_device_name(0) if gpu else None,
        "key_averages": [mem_row(e, avg_row) for e in averages],
        "table_sort_by": sort_key,
        "table": table,
    }
    with open(os.path.join(outdir, name + ".oracle.json"), "w") as f:
        json.dump(oracle, f, indent=1)

    gpu_name = None
    try:
        if torch.cuda.is_available():
            gpu_name = torch.cuda.get_device_name(0)
    except Exception as e:
        gpu_name = "unavailable: " + repr(e)
    meta.update({
        "workload": name,
        "recorded_by": "python3 tools/record_memory.py OUTDIR " + name,
        "date_utc": date,
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version() if gpu else None,
        "python": platform.python_version(),
        "gpu": gpu_name,
        "gpu_total_memory": (torch.cuda.get_device_properties(0).total_memory if gpu else None),
        "cpu_count": os.cpu_count(),
        "torch_num_threads": torch.get_num_threads(),
        "allocator_backend": (torch.cuda.get_allocator_backend() if gpu and hasattr(
            torch.cuda, "get_allocator_backend") else None),
        "PYTORCH_CUDA_ALLOC_CONF_in_case": os.environ.get("PYTORCH_CUDA_ALLOC_CONF"),
        "PYTORCH_CUDA_ALLOC_CONF_of_parent": os.environ.get("RECORD_MEMORY_PARENT_ALLOC_CONF"),
        "schedule": SCHEDULE,
        "step_calls": STEP_CALLS,
        "warmup_calls_before_profiling": WARMUP_CALLS,
        "profiler_options": dict(options, activities=[str(a) for a in activities]),
        "profiled_step_calls": profiled,
        "profiled_step_names": [f"ProfilerStep#{i}" for i in profiled],
        "oracle_method": (
            "per step call: torch.cuda.synchronize(); torch.cuda.reset_peak_memory_stats(); "
            "allocated_start = memory_allocated(); reserved_start = memory_reserved(); t0 = perf_counter(); "
            "work(); torch.cuda.synchronize(); wall_ms; max_allocated = max_memory_allocated(); "
            "max_reserved = max_memory_reserved(); allocated_end = memory_allocated(); reserved_end = "
            "memory_reserved(); stats_end = a few memory_stats() keys; then prof.step(). The work's locals "
            "are freed before the end readings (work() has returned). Profiled-loop call j is "
            "ProfilerStep#j; loop calls 2..4 are the ones in the trace"
            if gpu else
            "per step call: t0 = perf_counter(); work(); wall_ms; then prof.step(). No torch.cuda oracle "
            "on the CPU; logits_bytes is the fp32 logits tensor's size"),
        "warmup_steps": warm,
        "steps": loop,
        "profiled_steps": [r for r in loop if r["phase"] == "profiled"],
    })
    if finish:
        finish(meta)
    try:
        meta["trace_memory_check"] = trace_memory_check(
            trace_path, {r["profiler_step"]: r for r in loop})
    except Exception as e:
        meta["trace_memory_check"] = {"error": repr(e)}
    with open(os.path.join(outdir, name + ".meta.json"), "w") as f:
        json.dump(meta, f, indent=1, default=str)
    shutil.rmtree(tmp, ignore_errors=True)


# ----------------------------------------------------------------------------- parent
def summary_lines(outdir, name):
    try:
        with open(os.path.join(outdir, name + ".meta.json")) as f:
            m = json.load(f)
    except Exception:
        return [f"{name}: (no meta)"]
    out = [f"{name}: params={m.get('parameter_count')} logits_bytes={m.get('logits_bytes')} "
           f"pstep={m.get('trace_memory_check', {}).get('profiler_steps')} "
           f"mem_events={m.get('trace_memory_check', {}).get('memory_events_by_device_type')}"]
    checks = m.get("trace_memory_check", {}).get("steps", {})
    for r in m.get("steps", []):
        c = checks.get(r["profiler_step"], {}).get("device_type_1", {})
        out.append("  %-15s %-15s wall=%8.2fms start=%s max=%s end=%s maxres=%s res=%s | trace max=%s d=%s"
                   % (r["profiler_step"], r["phase"], r["wall_ms"], r.get("allocated_start"),
                      r.get("max_allocated"), r.get("allocated_end"), r.get("max_reserved"),
                      r.get("reserved_end"), c.get("max_total_allocated"),
                      c.get("torch_max_allocated_minus_trace_max")))
    for fn in (name + ".json.gz", name + ".meta.json", name + ".oracle.json"):
        p = os.path.join(outdir, fn)
        out.append(f"  {fn}: {os.path.getsize(p) if os.path.exists(p) else None} bytes")
    return out


def main():
    args = record_fixtures.recorder_args(sys.argv, CASES, record_one, "memory")
    if args is None:
        return
    outdir, names = args

    def env_of(name):
        env = dict(os.environ)
        env["RECORD_MEMORY_PARENT_ALLOC_CONF"] = env.pop("PYTORCH_CUDA_ALLOC_CONF", "")
        env["PYTHONUNBUFFERED"] = "1"
        return env

    failed = record_fixtures.run_each(__file__, outdir, names, timeout_of=lambda name: CASE_TIMEOUT_S, env_of=env_of,
                    budget_s=TOTAL_BUDGET_S)
    print()
    for name in names:
        for line in summary_lines(outdir, name):
            print(line)
    print("failed:", " ".join(failed) if failed else "none")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
