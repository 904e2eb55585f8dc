#!/usr/bin/env python3
"""Record before/after pairs for `whyslow what-if`: each "after" is the fix of its "before" and
nothing else, so a test can hold whyslow's prediction on the before trace (`whyslow what-if
BEFORE.json.gz --edit EDIT`, docs/GRAPH.md) against the after trace and against torch's own timing
of both.

Run on the GPU machine:  python3 tools/record_what_if_pairs.py OUTDIR [NAME ...]
then:                    python3 tools/record_what_if_pairs.py --pack OUTDIR DEST
(`--pack` tars OUTDIR into DEST/what_if_pairs.tar, cut into DEST/what_if_pairs.tar.partNN pieces
when it is larger than a file may be coming back: record_fixtures.pack). `--help` prints this.

Each case runs in a fresh subprocess (record_fixtures.run_each), compiled cases with their own empty
Inductor and Triton caches (as in record_compile.py). No case starts after TOTAL_BUDGET_S (450 s,
calibration included), so a full run on one H200 stays under ~8 minutes (about 4-5 expected). The
DataLoader cases need a calibration (CPU cost per sample, GPU step depth), made once in its own
subprocess and kept in OUTDIR/calibration.json: a later run into the same OUTDIR (a subset of
cases) reuses it, so the two sides of a pair always run the identical work. The parent also writes
OUTDIR/pairs.json (the table below, machine-readable).

For each case NAME it writes
  OUTDIR/NAME.json.gz      the Chrome trace torch exported (gzipped): CPU + CUDA activities,
                           record_shapes=True, no stacks
  OUTDIR/NAME.oracle.json  key_averages() rows (record_fixtures.avg_row) and table, written by
                           record_fixtures.write_oracle, as record_fixtures writes them
  OUTDIR/NAME.meta.json    what was run (code, shapes, dtypes, options, versions, GPU, date), the
                           pairs it belongs to, and the truth:
                           - step_wall_ms_per_call_incl_profiler / profiled_step_wall_ms: every
                             call of the profiled loop, t0 = perf_counter(); step();
                             torch.cuda.synchronize(); perf_counter() - t0 (prof.step() outside
                             the span; the previous call's synchronize leaves the GPU idle at t0);
                           - unprofiled: 50 calls of the same loop, timed the same way, with NO
                             profiler (median, p10, p90, mean, min, max, every value): the
                             profiler inflates CPU-bound steps, so this is the reference pace.
                             It runs after the warm-up calls and before the profiler starts,
                             except for one_off_cold (after the profiled loop: its first call
                             must be the profiled ProfilerStep#0);
                           - cudaGraphLaunch counts (record_compile.graph_counts), the
                             ProfilerStep names read back from the trace (record_compile.
                             trace_facts), Dynamo counters around each loop for compiled cases.
Every step ends with the timing's torch.cuda.synchronize(), inside its ProfilerStep: each step
of every case is a synchronous step.

Step numbering (torch.profiler.profile, checked against torch 2.x's profiler.py and the H200
fixtures recorded with record_compile.py): start() (entering `with profile(...)`) opens
ProfilerStep#0; each prof.step() closes ProfilerStep#k, asks the schedule for step k+1 and opens
ProfilerStep#k+1, so ProfilerStep#k is the k-th call of the loop counting from 0. With
schedule(wait=2, warmup=2, active=8, repeat=1) the loop makes 12 step() calls: #0-#1 are not
recorded, #2-#3 warm the profiler up (dropped), #4-#11 are recorded and exported when the 12th
prof.step() ends #11 (RECORD_AND_SAVE -> NONE): the trace holds ProfilerStep#4..#11 (calls 4..11).
Before the loop every steady case makes 3 (compiled: 5) warm-up calls outside the profiler.
one_off_cold uses schedule(wait=0, warmup=0, active=4, repeat=1): entering the profiler starts
recording, 4 calls, ProfilerStep#0..#3 kept, no warm-up call before it. Each meta file says which
steps the exported trace really holds (trace.profiler_steps, in numeric order) and whether they are
the ones the schedule names (trace_steps_as_expected; a case where they are not prints a WARNING):
torch 1.13's profiler, for one, exports #3..#10 for this schedule, one step early.

The cases (before -> after; the edit each pair validates; "aside" pairs are never to be tuned to):

| before                  | after                      | edit                        | what changes                                   |
|-------------------------|----------------------------|-----------------------------|------------------------------------------------|
| graphs_mlp_eager        | graphs_mlp_captured        | cuda-graphs                 | 3x(Linear(1024,1024)+GELU), batch 32, bf16,     |
|                         |                            |                             | no_grad: eager -> torch.cuda.CUDAGraph captured |
|                         |                            |                             | after 3 side-stream warm-ups, g.replay()        |
| graphs_mlp_eager        | ro_mlp_compiled            | cuda-graphs=reduce-overhead | the same MLP -> torch.compile(mode=             |
|                         |                            |                             | "reduce-overhead"), 5 warm-up calls (Inductor   |
|                         |                            |                             | also fuses the GELUs into the GEMMs)            |
| ro_mm64_eager           | ro_mm64_compiled           | cuda-graphs=reduce-overhead | 64x64 fp32 x @ w + b -> reduce-overhead: the    |
|                         |                            |                             | case where it does NOT pay (expected slower)    |
| nosync_readbacks        | nosync_once                | no-sync (also no-sync=      | 6 x [h = gelu(h @ w); loss = h.float().pow(2)   |
|                         |                            | read_back)                  | .mean(); loss.item()] -> losses kept on the GPU,|
|                         |                            |                             | one torch.stack(...).sum().item() at the end    |
| pin_pageable            | pin_pinned                 | pin                         | 32 MB + 16 MB host->device per step: pageable   |
|                         |                            |                             | .to("cuda") -> pinned, non_blocking=True        |
| fuse_chain_eager        | fuse_chain_compiled        | fuse                        | tanh(relu(x*0.5+1)*2)-0.25 on 2^26 fp32 (6      |
|                         |                            |                             | kernels) -> torch.compile (default), warmed up  |
| tc_fp32                 | tc_tf32                    | tensor-cores=tf32           | 3 chained 4096^3 fp32 matmuls -> torch.set_     |
|                         |                            |                             | float32_matmul_precision("high")                |
| tc_fp32                 | tc_bf16_autocast           | tensor-cores=bf16           | the same -> torch.autocast("cuda", bfloat16)    |
| workers0                | workers4                   | workers (=4)                | DataLoader, ~1 ms NumPy per sample, batch 32,   |
|                         |                            |                             | conv-net train step ~12 ms: num_workers=0 ->    |
|                         |                            |                             | 4, persistent_workers=True                      |
| one_off_cold            | (its own ProfilerStep#1-#3 | one-off                     | the MLP above, fresh process, first cuBLAS call |
|                         | and unprofiled steps)      |                             | inside ProfilerStep#0                           |
| aside_graphs_conv_eager | aside_graphs_conv_captured | cuda-graphs (aside)         | small conv net (3 conv + BN + pool + linear),   |
|                         |                            |                             | batch 8, fp32, no_grad -> CUDAGraph replay      |
| aside_workers0_tokens   | aside_workers2_tokens      | workers=2 (aside)           | DataLoader, ~1 ms pure-Python tokenizing per    |
|                         |                            |                             | sample, batch 32, token-MLP train step ~24 ms:  |
|                         |                            |                             | num_workers=0 -> 2, persistent                  |
| aside_pin_dtoh_pageable | aside_pin_dtoh_pinned      | pin (aside)                 | 32 MB device->host per step into a pageable ->  |
|                         |                            |                             | pinned buffer (copy_ non_blocking + stream sync)|

The DataLoader pairs are GPU-bound after the fix on purpose (GPU step ~1.5 x the batch's CPU cost /
num_workers): a loop that stays loader-bound with persistent workers runs its workers in lock-step
(bursts of num_workers fast steps, then one long wait), and the profiler's own start (between
ProfilerStep#1 and #2) lets the workers fill the prefetch queue, so its profiled steps would not
show the steady pace. The meta files keep every step's time so that can be checked.
"""
import contextlib
import datetime
import gzip
import json
import math
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import time
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
PROG = "record_what_if_pairs"
USAGE = (f"usage: python3 tools/{PROG}.py OUTDIR [NAME ...]\n"
         f"       python3 tools/{PROG}.py --pack OUTDIR DEST\n"
         f"       python3 tools/{PROG}.py --help")

torch = nn = F = None  # imported by _import_torch() in the processes that record

# ----------------------------------------------------------------------------- constants
STEADY = dict(wait=2, warmup=2, active=8, repeat=1)  # 12 step() calls, ProfilerStep#4..#11 kept
COLD = dict(wait=0, warmup=0, active=4, repeat=1)    # 4 step() calls, ProfilerStep#0..#3 kept
WARMUP_CALLS = 3
COMPILED_WARMUP_CALLS = 5   # >= 3: compile, CUDA-graph warm-up and record all happen before timing
UNPROFILED_STEPS = 50
CASE_TIMEOUT_S = 90
COMPILED_TIMEOUT_S = 180
TOTAL_BUDGET_S = 450        # calibration + every case; no case starts (or runs on) past it
CALIBRATION_TIMEOUT_S = 120

MLP_DIM, MLP_BATCH, MLP_LAYERS = 1024, 32, 3
NOSYNC_READS = 6
NOSYNC_ROWS, NOSYNC_DIM = 4096, 2048
PIN_X_FLOATS, PIN_Y_FLOATS = 8 << 20, 4 << 20   # 32 MB + 16 MB per step
DTOH_FLOATS = 8 << 20                           # 32 MB per step
CHAIN_FLOATS = 1 << 26                          # 256 MB fp32
TC_N, TC_MATMULS = 4096, 3
CONV_BATCH, CONV_HW = 8, 64

# DataLoader cases
BATCH = 32
SAMPLE_TARGET_MS = 1.0       # CPU cost of one sample's __getitem__, calibrated
IMG_C, IMG_HW = 3, 64        # NumpyImages sample: (3, 64, 64) float32
TOK_T, TOK_D = 64, 256       # PythonTokens sample: (64, 256) float32 bag-of-hashed-words
TOK_WORD = 6
WORKERS_MAIN, WORKERS_ASIDE = 4, 2
GPU_HEADROOM = 1.5           # GPU step ~ 1.5 x (BATCH * SAMPLE_TARGET_MS / num_workers): hidden loader
CONV_C, CONV_MAX_LAYERS = 256, 64
TOK_W, TOK_MAX_LAYERS = 2048, 64
DEFAULT_CALIBRATION = {"numpy": {"passes": 16}, "python": {"rounds": 5},
                       "conv": {"layers": 24}, "tokens": {"layers": 24}}
DATASET_BATCHES = WARMUP_CALLS + UNPROFILED_STEPS + 12 + 16  # one iterator, no epoch boundary

TF32_KEYS = ("torch.get_float32_matmul_precision()", "torch.backends.cuda.matmul.allow_tf32",
             "torch.backends.cuda.matmul.fp32_precision", "torch.backends.cudnn.allow_tf32",
             "torch.backends.cudnn.conv.fp32_precision")


def _import_torch():
    global torch, nn, F
    if torch is None:
        try:
            import torch as _torch
        except ImportError as e:
            sys.exit(f"{PROG}: cannot import torch ({e}). Run it with the Python that has PyTorch "
                     f"(with CUDA) on the GPU machine.\n{USAGE}")
        torch = _torch
        nn = torch.nn
        F = torch.nn.functional
    return torch


def _require_gpu(what="recording"):
    _import_torch()
    if not torch.cuda.is_available():
        sys.exit(f"{PROG}: {what} needs an NVIDIA GPU, and torch {torch.__version__} "
                 f"(CUDA build: {torch.version.cuda}) sees none (torch.cuda.is_available() is False). "
                 f"Run it on the GPU machine; nothing was recorded.")


def _recorders():
    """record_fixtures (shared runner, packer, command line, oracle writer) and record_compile (trace
    facts, graph counts, Dynamo counters); both import torch at their top."""
    _import_torch()
    if HERE not in sys.path:
        sys.path.insert(0, HERE)
    import record_fixtures
    import record_compile
    return record_fixtures, record_compile


def _rf(name):
    return torch.profiler.record_function(name)


# ----------------------------------------------------------------------------- builders
# Each builder returns (step, meta): step() runs one iteration without synchronizing at its end
# (the timing adds torch.cuda.synchronize()); meta says what was run.

def _mlp3():
    torch.manual_seed(0)
    layers = []
    for _ in range(MLP_LAYERS):
        layers += [nn.Linear(MLP_DIM, MLP_DIM), nn.GELU()]
    return nn.Sequential(*layers).to("cuda", torch.bfloat16).eval()


MLP_CODE = (f"model = nn.Sequential({MLP_LAYERS} x [Linear({MLP_DIM},{MLP_DIM}), GELU()]).to('cuda', bfloat16).eval(); "
            f"x = randn({MLP_BATCH}, {MLP_DIM}) bf16; step: ")


def _capture(model, x, warm=3):
    """The CUDA-graphs recipe of the torch docs: warm up on a side stream, then capture."""
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side), torch.no_grad():
        for _ in range(warm):
            model(x)
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    with torch.no_grad(), torch.cuda.graph(g):
        static_y = model(x)
    torch.cuda.synchronize()
    g.replay()
    torch.cuda.synchronize()
    with torch.no_grad():
        diff = (static_y.float() - model(x).float()).abs().max().item()
    return g, static_y, diff


def mlp(kind):
    model = _mlp3()
    x = torch.randn(MLP_BATCH, MLP_DIM, device="cuda", dtype=torch.bfloat16)
    meta = {"shapes": {"x": [MLP_BATCH, MLP_DIM]}, "dtype": "torch.bfloat16", "record_function": "mlp_forward"}
    if kind == "captured":
        g, static_y, diff = _capture(model, x)
        meta.update(code=MLP_CODE + "with record_function('mlp_forward'): g.replay()  # g: torch.cuda.CUDAGraph "
                    "of model(x), captured with "
                    "torch.cuda.graph(g) under no_grad after 3 forward calls on a side stream",
                    replay_vs_eager_max_abs_diff=diff)

        def step():
            with _rf("mlp_forward"):
                g.replay()
            return static_y
        return step, meta
    m = model
    if kind == "reduce-overhead":
        m = torch.compile(model, mode="reduce-overhead")
        meta["torch_compile_kwargs"] = {"mode": "reduce-overhead"}
    meta["code"] = MLP_CODE + "with no_grad(), record_function('mlp_forward'): " + (
        "y = m(x)  # m = torch.compile(model, mode='reduce-overhead')" if kind == "reduce-overhead" else "y = model(x)")

    def step():
        with torch.no_grad(), _rf("mlp_forward"):
            return m(x)
    return step, meta


def mm64(mode):
    torch.manual_seed(0)
    x = torch.randn(64, 64, device="cuda")
    w = torch.randn(64, 64, device="cuda")
    b = torch.randn(64, device="cuda")

    def f(x, w, b):
        return x @ w + b

    g = f if mode is None else torch.compile(f, mode=mode)

    def step():
        with _rf("matmul_bias"):
            return g(x, w, b)
    return step, {"code": "with record_function('matmul_bias'): y = x @ w + b" +
                  ("  # f = torch.compile(f, mode='reduce-overhead')" if mode else ""),
                  "shapes": {"x": [64, 64], "w": [64, 64], "b": [64]}, "dtype": "torch.float32",
                  "record_function": "matmul_bias",
                  **({"torch_compile_kwargs": {"mode": mode}} if mode else {})}


def readbacks(accumulate):
    torch.manual_seed(0)
    x = torch.randn(NOSYNC_ROWS, NOSYNC_DIM, device="cuda", dtype=torch.bfloat16)
    ws = [torch.randn(NOSYNC_DIM, NOSYNC_DIM, device="cuda", dtype=torch.bfloat16) / math.sqrt(NOSYNC_DIM)
          for _ in range(NOSYNC_READS)]

    def step():
        h, total, losses = x, 0.0, []
        for w in ws:
            h = F.gelu(h @ w)
            loss = h.float().pow(2).mean()
            if accumulate:
                losses.append(loss)  # stays on the GPU
            else:
                with _rf("read_back"):
                    total += loss.item()  # device-to-host copy: the CPU waits for the GPU here
        if accumulate:
            with _rf("read_back"):
                total = torch.stack(losses).sum().item()  # the one read-back, at the step's end
        return total

    body = ("h = x; for w in ws ({n}): h = F.gelu(h @ w); loss = h.float().pow(2).mean(); ").format(n=NOSYNC_READS)
    return step, {
        "code": body + ("losses.append(loss)  # then: with record_function('read_back'): "
                        "total = torch.stack(losses).sum().item()" if accumulate else
                        "with record_function('read_back'): total += loss.item()"),
        "shapes": {"x": [NOSYNC_ROWS, NOSYNC_DIM], "w": [NOSYNC_DIM, NOSYNC_DIM]}, "dtype": "torch.bfloat16",
        "read_backs_per_step": 1 if accumulate else NOSYNC_READS, "record_function": "read_back",
    }


def pin_htod(pinned):
    torch.manual_seed(0)
    x = torch.randn(PIN_X_FLOATS)
    y = torch.randn(PIN_Y_FLOATS)
    if pinned:
        x, y = x.pin_memory(), y.pin_memory()

    def step():
        with _rf("upload"):
            xd = x.to("cuda", non_blocking=pinned)
            yd = y.to("cuda", non_blocking=pinned)
        with _rf("compute"):
            return (xd * 2.0).sum() + yd.sum()

    nb = "non_blocking=True" if pinned else ""
    return step, {
        "code": f"with record_function('upload'): xd = x.to('cuda'{', ' + nb if nb else ''}); "
                f"yd = y.to('cuda'{', ' + nb if nb else ''}); with record_function('compute'): "
                "(xd * 2.0).sum() + yd.sum()",
        "host_tensors": {"x": [PIN_X_FLOATS], "y": [PIN_Y_FLOATS], "dtype": "torch.float32",
                         "pinned": [x.is_pinned(), y.is_pinned()]},
        "bytes_host_to_device_per_step": 4 * (PIN_X_FLOATS + PIN_Y_FLOATS), "non_blocking": pinned,
    }


def pin_dtoh(pinned):
    torch.manual_seed(0)
    src = torch.randn(DTOH_FLOATS, device="cuda")
    host = torch.empty(DTOH_FLOATS, pin_memory=pinned)

    def step():
        with _rf("compute"):
            y = src * 2.0
        with _rf("download"):
            host.copy_(y, non_blocking=pinned)
            if pinned:
                torch.cuda.current_stream().synchronize()  # the host may read `host` after this
        return host

    return step, {
        "code": "with record_function('compute'): y = src * 2.0; with record_function('download'): " +
                ("host.copy_(y, non_blocking=True); torch.cuda.current_stream().synchronize()  # host pinned"
                 if pinned else "host.copy_(y)  # host: a preallocated pageable tensor"),
        "shapes": {"src": [DTOH_FLOATS]}, "dtype": "torch.float32", "host_pinned": host.is_pinned(),
        "bytes_device_to_host_per_step": 4 * DTOH_FLOATS,
    }


def chain(compiled):
    torch.manual_seed(0)
    x = torch.randn(CHAIN_FLOATS, device="cuda")

    def f(x):
        return torch.tanh(torch.relu(x * 0.5 + 1.0) * 2.0) - 0.25

    g = torch.compile(f) if compiled else f

    def step():
        with _rf("chain"):
            return g(x)
    return step, {"code": "with record_function('chain'): y = torch.tanh(torch.relu(x * 0.5 + 1.0) * 2.0) - 0.25" +
                  ("  # torch.compile(f), default mode" if compiled else "  # 6 eager kernels"),
                  "shapes": {"x": [CHAIN_FLOATS]}, "dtype": "torch.float32", "pointwise_ops": 6,
                  "bytes_per_eager_kernel": 2 * 4 * CHAIN_FLOATS, "record_function": "chain",
                  **({"torch_compile_kwargs": {}} if compiled else {})}


def _tf32_state():
    import warnings
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for k in TF32_KEYS:
            try:
                if k.endswith("()"):
                    out[k] = torch.get_float32_matmul_precision()
                else:
                    obj = torch
                    for part in k.split(".")[1:]:
                        obj = getattr(obj, part)
                    out[k] = obj if isinstance(obj, (bool, str, int)) else str(obj)
            except Exception as e:
                out[k] = "unavailable: " + repr(e)[:200]
    return out


def matmuls(mode):
    tf32_before = _tf32_state()
    if mode == "tf32":
        torch.set_float32_matmul_precision("high")
    torch.manual_seed(0)
    a = torch.randn(TC_N, TC_N, device="cuda")
    w = torch.randn(TC_N, TC_N, device="cuda") / math.sqrt(TC_N)

    def step():
        ctx = torch.autocast("cuda", dtype=torch.bfloat16) if mode == "bf16" else contextlib.nullcontext()
        with _rf("matmuls"), ctx:
            h = a
            for _ in range(TC_MATMULS):
                h = h @ w
        return h

    setting = {"fp32": "defaults (float32_matmul_precision 'highest')",
               "tf32": "torch.set_float32_matmul_precision('high') before building (TF32)",
               "bf16": "with torch.autocast('cuda', dtype=torch.bfloat16) around the matmuls"}[mode]
    return step, {"code": f"with record_function('matmuls'): h = a; {TC_MATMULS} x: h = h @ w   # " + setting,
                  "shapes": {"a": [TC_N, TC_N], "w": [TC_N, TC_N]}, "dtype": "torch.float32 tensors",
                  "flops_per_step": TC_MATMULS * 2 * TC_N ** 3, "record_function": "matmuls",
                  "tf32_state_default": tf32_before, "tf32_state_in_effect": _tf32_state()}


def conv_small():
    torch.manual_seed(0)
    return nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1), nn.ReLU(),
        nn.Conv2d(32, 64, 3, stride=2, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
        nn.Conv2d(64, 64, 3, padding=1), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, 10)).cuda().eval()


CONV_SMALL_CODE = ("nn.Sequential(Conv2d(3,32,3,p=1), ReLU, Conv2d(32,64,3,s=2,p=1), BatchNorm2d(64), ReLU, "
                   "Conv2d(64,64,3,p=1), ReLU, AdaptiveAvgPool2d(1), Flatten, Linear(64,10)).cuda().eval(); "
                   f"x = randn({CONV_BATCH}, 3, {CONV_HW}, {CONV_HW}) fp32; step: ")


def conv_graphs(captured):
    model = conv_small()
    x = torch.randn(CONV_BATCH, 3, CONV_HW, CONV_HW, device="cuda")
    meta = {"shapes": {"x": [CONV_BATCH, 3, CONV_HW, CONV_HW]}, "dtype": "torch.float32",
            "record_function": "conv_forward", "cudnn_benchmark": torch.backends.cudnn.benchmark}
    if captured:
        g, static_y, diff = _capture(model, x)
        meta.update(code=CONV_SMALL_CODE + "with record_function('conv_forward'): g.replay()  # captured after "
                    "3 side-stream warm-ups, under no_grad", replay_vs_eager_max_abs_diff=diff)

        def step():
            with _rf("conv_forward"):
                g.replay()
            return static_y
        return step, meta
    meta["code"] = CONV_SMALL_CODE + "with no_grad(), record_function('conv_forward'): y = model(x)"

    def step():
        with torch.no_grad(), _rf("conv_forward"):
            return model(x)
    return step, meta


# ----------------------------------------------------------------------------- DataLoader cases
# The datasets are plain map-style classes (no torch needed to define them), picklable, at module level.

def numpy_sample(i, passes):
    import numpy as np
    rng = np.random.default_rng(i)
    img = rng.standard_normal((IMG_C, IMG_HW, IMG_HW), dtype=np.float32)
    for _ in range(passes):  # the "augmentation": smoothing passes in NumPy
        img = np.tanh(img) * 0.5 + (np.roll(img, 1, axis=1) + np.roll(img, -1, axis=2)) * 0.25
    img = (img - img.mean(axis=(1, 2), keepdims=True)) / (img.std(axis=(1, 2), keepdims=True) + 1e-6)
    if i % 2:
        img = img[:, :, ::-1]
    return np.ascontiguousarray(img, dtype=np.float32)


_ALPHA = "abcdefghijklmnopqrstuvwxyz"


def python_sample(i, rounds):
    import numpy as np
    rnd = random.Random(i)
    counts = {}
    for _ in range(rounds):  # the "tokenizer": random words hashed into TOK_D buckets, pure Python
        for t in range(TOK_T):
            word = "".join(rnd.choice(_ALPHA) for _ in range(TOK_WORD))
            key = (t, zlib.crc32(word.encode()) % TOK_D)
            counts[key] = counts.get(key, 0) + 1
    arr = np.zeros((TOK_T, TOK_D), dtype=np.float32)
    for (t, j), c in counts.items():
        arr[t, j] = c
    return arr


class NumpyImages:
    def __init__(self, n, passes):
        self.n, self.passes = n, passes

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return numpy_sample(i, self.passes), i % 10


class PythonTokens:
    def __init__(self, n, rounds):
        self.n, self.rounds = n, rounds

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return python_sample(i, self.rounds), i % 10


def conv_net(layers):
    """Train-step model of the workers pair: conv3x3/2 3->C at 64x64, `layers` conv3x3 C->C at 32x32."""
    torch.manual_seed(0)
    body = [nn.Conv2d(IMG_C, CONV_C, 3, stride=2, padding=1), nn.ReLU()]
    for _ in range(layers):
        body += [nn.Conv2d(CONV_C, CONV_C, 3, padding=1), nn.ReLU()]
    body += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(CONV_C, 10)]
    model = nn.Sequential(*body).cuda()
    return model, model, list(model.parameters())


def token_mlp(layers):
    """Train-step model of the aside workers pair: per-token MLP (TOK_D->W, `layers` W->W, GELU),
    mean over tokens, linear head."""
    torch.manual_seed(0)
    body = [nn.Linear(TOK_D, TOK_W), nn.GELU()]
    for _ in range(layers):
        body += [nn.Linear(TOK_W, TOK_W), nn.GELU()]
    body = nn.Sequential(*body).cuda()
    head = nn.Linear(TOK_W, 10).cuda()

    def forward(x):
        return head(body(x).mean(dim=1))
    return forward, body, list(body.parameters()) + list(head.parameters())


GPU_MODELS = {"conv": (conv_net, (IMG_C, IMG_HW, IMG_HW), CONV_MAX_LAYERS),
              "tokens": (token_mlp, (TOK_T, TOK_D), TOK_MAX_LAYERS)}


def make_train(forward, params):
    opt = torch.optim.SGD(params, lr=1e-3, momentum=0.9)

    def train(x, y):
        x = x.to("cuda")
        y = y.to("cuda")
        loss = F.cross_entropy(forward(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        return loss
    return train


def _calibration(outdir):
    path = os.path.join(outdir, "calibration.json")
    try:
        with open(path) as f:
            cal = json.load(f)
        cal["source"] = path
        return cal
    except (OSError, ValueError):
        return dict(DEFAULT_CALIBRATION, source="defaults: no readable " + path)


def loader_case(outdir, kind, num_workers):
    cal = _calibration(outdir)
    n = BATCH * DATASET_BATCHES
    if kind == "numpy":
        passes = int(cal["numpy"]["passes"])
        ds = NumpyImages(n, passes)
        sample = lambda i: numpy_sample(i, passes)  # noqa: E731
        model_kind, sample_desc = "conv", (f"NumpyImages: rng(i).standard_normal(({IMG_C}, {IMG_HW}, {IMG_HW})), "
                                           f"{passes} x [tanh*0.5 + (roll+roll)*0.25] in NumPy, normalize, flip odd i")
    else:
        rounds = int(cal["python"]["rounds"])
        ds = PythonTokens(n, rounds)
        sample = lambda i: python_sample(i, rounds)  # noqa: E731
        model_kind, sample_desc = "tokens", (f"PythonTokens: {rounds} x {TOK_T} random {TOK_WORD}-letter words "
                                             f"(random.Random(i)), crc32-hashed into a ({TOK_T}, {TOK_D}) count array")
    build, _, _ = GPU_MODELS[model_kind]
    layers = int(cal[model_kind]["layers"])
    forward, module, params = build(layers)
    train = make_train(forward, params)
    kwargs = dict(batch_size=BATCH, shuffle=False, num_workers=num_workers, pin_memory=False)
    if num_workers > 0:
        kwargs.update(persistent_workers=True, prefetch_factor=2, multiprocessing_context="fork")
    t0 = time.perf_counter()
    for i in range(BATCH):  # one batch's samples in this process, before any worker starts
        sample(i)
    batch_ms = (time.perf_counter() - t0) * 1e3
    loader = torch.utils.data.DataLoader(ds, **kwargs)
    it = iter(loader)  # one iterator for the whole run: warm-up, unprofiled and profiled calls

    def step():
        x, y = next(it)  # enumerate(DataLoader)#..._DataLoaderIter.__next__ in the trace
        with _rf("train_step"):
            return train(x, y)
    model_desc = (f"conv3x3/2({IMG_C}->{CONV_C}) relu, {layers} x [conv3x3({CONV_C}->{CONV_C}) relu] at "
                  f"{IMG_HW // 2}x{IMG_HW // 2}, avgpool, linear({CONV_C}->10)" if model_kind == "conv" else
                  f"per-token MLP: linear({TOK_D}->{TOK_W}) gelu, {layers} x [linear({TOK_W}->{TOK_W}) gelu], "
                  f"mean over {TOK_T} tokens, linear({TOK_W}->10)")
    return step, {
        "code": "x, y = next(it)  # it = iter(DataLoader(...)), one iterator for the run; with record_function("
                "'train_step'): x.to('cuda'); y.to('cuda'); loss = cross_entropy(model(x), y); "
                "opt.zero_grad(set_to_none=True); loss.backward(); opt.step()",
        "dataset": sample_desc, "dataset_len": n, "batch_size": BATCH,
        "sample_target_ms": SAMPLE_TARGET_MS,
        "batch_cpu_ms_main_process_before_workers_start_once": batch_ms,
        "num_workers": num_workers, "pin_memory": False,
        "persistent_workers": True if num_workers else None, "prefetch_factor": 2 if num_workers else None,
        "multiprocessing_context": "fork" if num_workers else None,
        "model": model_desc + "; fp32; SGD(lr=1e-3, momentum=0.9); cross-entropy; train mode",
        "model_layers": layers, "gpu_step_target_ms": cal[model_kind].get("target_ms"),
        "calibration": cal,
        "dataloader_next_span_name": "enumerate(DataLoader)#" + (
            "_SingleProcessDataLoaderIter.__next__" if num_workers == 0 else "_MultiProcessingDataLoaderIter.__next__"),
        "record_function": "train_step",
    }


# ----------------------------------------------------------------------------- calibration (child)
def _cpu_ms_per_sample(fn, k, reps=24):
    fn(0, k)
    t0 = time.perf_counter()
    for i in range(reps):
        fn(i, k)
    return (time.perf_counter() - t0) / reps * 1e3


def _calibrate_cpu(fn, lo, hi, kmax):
    t_lo, t_hi = _cpu_ms_per_sample(fn, lo), _cpu_ms_per_sample(fn, hi)
    per = max((t_hi - t_lo) / (hi - lo), 1e-4)
    k = int(min(kmax, max(1, round((SAMPLE_TARGET_MS - t_lo) / per))))
    return {"ms_at": {str(lo): t_lo, str(hi): t_hi}, "ms_per_unit": per, "chosen": k,
            "measured_ms_per_sample": _cpu_ms_per_sample(fn, k), "target_ms": SAMPLE_TARGET_MS}


def _gpu_step_ms(kind, layers, calls=5):
    build, shape, _ = GPU_MODELS[kind]
    forward, module, params = build(layers)
    train = make_train(forward, params)
    x = torch.randn(BATCH, *shape)
    y = torch.randint(0, 10, (BATCH,))
    for _ in range(3):
        train(x, y)
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(calls):
        train(x, y)
    torch.cuda.synchronize()
    ms = (time.perf_counter() - t0) / calls * 1e3
    del forward, module, params, train
    torch.cuda.empty_cache()
    return ms


def _calibrate_gpu(kind, target_ms):
    _, _, kmax = GPU_MODELS[kind]
    t1, t5 = _gpu_step_ms(kind, 1), _gpu_step_ms(kind, 5)
    per = max((t5 - t1) / 4, 1e-3)
    layers = int(min(kmax, max(1, round(1 + (target_ms - t1) / per))))
    return {"ms_at": {"1": t1, "5": t5}, "ms_per_layer": per, "layers": layers, "target_ms": target_ms,
            "measured_ms": _gpu_step_ms(kind, layers)}


def calibrate(outdir):
    _require_gpu("calibrating")
    t0 = time.time()
    np_cal = _calibrate_cpu(numpy_sample, 0, 8, 256)
    py_cal = _calibrate_cpu(python_sample, 0, 4, 64)
    torch.zeros(1, device="cuda")
    cal = {
        "date_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "gpu": torch.cuda.get_device_name(0), "torch": torch.__version__,
        "numpy": dict(np_cal, passes=np_cal["chosen"]),
        "python": dict(py_cal, rounds=py_cal["chosen"]),
        "conv": _calibrate_gpu("conv", GPU_HEADROOM * BATCH * SAMPLE_TARGET_MS / WORKERS_MAIN),
        "tokens": _calibrate_gpu("tokens", GPU_HEADROOM * BATCH * SAMPLE_TARGET_MS / WORKERS_ASIDE),
        "note": "samples timed in this (main) process; GPU steps are train steps on a fixed batch, 3 warm + 5 "
                "timed, synchronize at the end; layers interpolated from depth 1 and 5",
    }
    cal["seconds"] = time.time() - t0
    os.makedirs(outdir, exist_ok=True)
    with open(os.path.join(outdir, "calibration.json"), "w") as f:
        json.dump(cal, f, indent=1)
    print("calibration:", json.dumps({k: cal[k].get("chosen", cal[k].get("layers")) for k in
                                      ("numpy", "python", "conv", "tokens")}), flush=True)


# ----------------------------------------------------------------------------- the cases
# name -> build(outdir) -> (step, meta); warm: calls before profiling (one_off: none); sched;
# compiled: uses torch.compile (own caches, Dynamo counters, longer timeout); loader: needs the calibration.
def _case(build, warm=WARMUP_CALLS, sched=STEADY, compiled=False, loader=False, note=None):
    return dict(build=build, warm=COMPILED_WARMUP_CALLS if compiled and warm else warm, sched=sched,
                compiled=compiled, loader=loader, note=note,
                timeout=COMPILED_TIMEOUT_S if compiled else CASE_TIMEOUT_S)


CASES = {
    "graphs_mlp_eager": _case(lambda o: mlp("eager")),
    "graphs_mlp_captured": _case(lambda o: mlp("captured")),
    "ro_mlp_compiled": _case(lambda o: mlp("reduce-overhead"), compiled=True),
    "ro_mm64_eager": _case(lambda o: mm64(None)),
    "ro_mm64_compiled": _case(lambda o: mm64("reduce-overhead"), compiled=True,
                              note="the case where reduce-overhead does not pay: expected slower than ro_mm64_eager"),
    "nosync_readbacks": _case(lambda o: readbacks(False)),
    "nosync_once": _case(lambda o: readbacks(True)),
    "pin_pageable": _case(lambda o: pin_htod(False)),
    "pin_pinned": _case(lambda o: pin_htod(True)),
    "fuse_chain_eager": _case(lambda o: chain(False)),
    "fuse_chain_compiled": _case(lambda o: chain(True), compiled=True),
    "tc_fp32": _case(lambda o: matmuls("fp32")),
    "tc_tf32": _case(lambda o: matmuls("tf32")),
    "tc_bf16_autocast": _case(lambda o: matmuls("bf16")),
    "workers0": _case(lambda o: loader_case(o, "numpy", 0), loader=True),
    "workers4": _case(lambda o: loader_case(o, "numpy", WORKERS_MAIN), loader=True),
    "one_off_cold": _case(lambda o: mlp("eager"), warm=0, sched=COLD,
                          note="cold first step: fresh process, CUDA context made before profiling, the first "
                               "cuBLAS call (and module loading) inside ProfilerStep#0; the truth of `one-off` is "
                               "ProfilerStep#1..#3 of this trace and the unprofiled steps after the profiled loop"),
    "aside_graphs_conv_eager": _case(lambda o: conv_graphs(False)),
    "aside_graphs_conv_captured": _case(lambda o: conv_graphs(True)),
    "aside_workers0_tokens": _case(lambda o: loader_case(o, "python", 0), loader=True),
    "aside_workers2_tokens": _case(lambda o: loader_case(o, "python", WORKERS_ASIDE), loader=True),
    "aside_pin_dtoh_pageable": _case(lambda o: pin_dtoh(False)),
    "aside_pin_dtoh_pinned": _case(lambda o: pin_dtoh(True)),
}

# (before, after, edit as `whyslow what-if --edit` takes it, aside?, note)
PAIRS = [
    ("graphs_mlp_eager", "graphs_mlp_captured", "cuda-graphs", False, "CUDA graphs by hand"),
    ("graphs_mlp_eager", "ro_mlp_compiled", "cuda-graphs=reduce-overhead", False,
     "torch.compile(mode='reduce-overhead'); Inductor also fuses, the edit models the graphs and the call cost"),
    ("ro_mm64_eager", "ro_mm64_compiled", "cuda-graphs=reduce-overhead", False,
     "reduce-overhead does not pay here: the after is expected slower"),
    ("nosync_readbacks", "nosync_once", "no-sync", False, "also: --edit no-sync=read_back"),
    ("pin_pageable", "pin_pinned", "pin", False, "host-to-device, 48 MB per step"),
    ("fuse_chain_eager", "fuse_chain_compiled", "fuse", False, "6 pointwise kernels -> 1 Triton kernel"),
    ("tc_fp32", "tc_tf32", "tensor-cores=tf32", False, "set_float32_matmul_precision('high')"),
    ("tc_fp32", "tc_bf16_autocast", "tensor-cores=bf16", False, "autocast casts a and w each step"),
    ("workers0", "workers4", "workers=4", False, "GPU-bound after the fix by construction"),
    ("one_off_cold", "one_off_cold", "one-off", False,
     "the after is the same trace's ProfilerStep#1..#3 and its unprofiled steps"),
    ("aside_graphs_conv_eager", "aside_graphs_conv_captured", "cuda-graphs", True, "aside: never tune to it"),
    ("aside_workers0_tokens", "aside_workers2_tokens", "workers=2", True, "aside: never tune to it"),
    ("aside_pin_dtoh_pageable", "aside_pin_dtoh_pinned", "pin", True, "aside: device-to-host; never tune to it"),
]


def pairs_json():
    return [{"before": b, "after": a, "edit": e, "aside": s, "note": n,
             "whyslow": f"whyslow what-if {b}.json.gz --edit {e}"} for b, a, e, s, n in PAIRS]


# ----------------------------------------------------------------------------- timing
def _timed(step):
    """One call: the previous call's (or the warm-up's) synchronize left the GPU idle."""
    t0 = time.perf_counter()
    step()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) * 1e3


def _pct(sorted_xs, q):
    k = (len(sorted_xs) - 1) * q / 100.0
    lo = int(math.floor(k))
    hi = min(lo + 1, len(sorted_xs) - 1)
    return sorted_xs[lo] + (sorted_xs[hi] - sorted_xs[lo]) * (k - lo)


def stats(xs):
    if not xs:
        return None
    s = sorted(xs)
    return {"n": len(s), "median": _pct(s, 50), "p10": _pct(s, 10), "p90": _pct(s, 90),
            "mean": sum(s) / len(s), "min": s[0], "max": s[-1]}


def unprofiled(step, when):
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    ms = [_timed(step) for _ in range(UNPROFILED_STEPS)]
    total = (time.perf_counter() - t0) * 1e3
    return dict(stats(ms), when=when, wall_ms=ms, total_ms=total,
                timing="no profiler; t0 = perf_counter(); step(); torch.cuda.synchronize(); ms = "
                       "(perf_counter() - t0) * 1e3, 50 calls back to back")


def versions():
    try:
        import triton
        triton_version = triton.__version__
    except Exception as e:
        triton_version = "unavailable: " + repr(e)[:200]
    try:
        import numpy
        numpy_version = numpy.__version__
    except Exception as e:
        numpy_version = "unavailable: " + repr(e)[:200]
    props = torch.cuda.get_device_properties(0)
    return {"torch": torch.__version__, "cuda": torch.version.cuda, "cudnn": torch.backends.cudnn.version(),
            "triton": triton_version, "numpy": numpy_version, "python": platform.python_version(),
            "gpu": torch.cuda.get_device_name(0),
            "gpu_properties": {"total_memory": props.total_memory, "multi_processor_count": props.multi_processor_count,
                               "capability": [props.major, props.minor]},
            "cpu_count": os.cpu_count(), "torch_num_threads": torch.get_num_threads(),
            "platform": platform.platform()}


# ----------------------------------------------------------------------------- one case (child)
def _step_number(step_name):
    try:
        return int(str(step_name).rsplit("#", 1)[1])
    except (IndexError, ValueError):
        return -1


def record_one(name, outdir):
    if name not in CASES:
        sys.exit(f"{PROG}: unknown case {name!r}; known: {', '.join(CASES)}")
    _require_gpu()
    rf, rc = _recorders()
    from torch.profiler import ProfilerActivity, profile, schedule
    case = CASES[name]
    sched, n_warm = case["sched"], case["warm"]
    calls = sched["wait"] + sched["warmup"] + sched["active"]
    date = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")

    torch.cuda.init()
    torch.zeros(1, device="cuda")  # CUDA context exists before profiling, as in real programs
    step, meta = case["build"](outdir)
    counters = {}
    if case["compiled"]:
        counters["at_start"] = rc.dynamo_counters()
    warm_ms = [_timed(step) for _ in range(n_warm)]
    torch.cuda.synchronize()
    if case["compiled"]:
        counters["after_warmup"] = rc.dynamo_counters()
    unprof = unprofiled(step, "after the warm-up calls, before the profiler") if n_warm else None
    if case["compiled"]:
        counters["before_profiled_loop"] = rc.dynamo_counters()
    mem_before = torch.cuda.max_memory_allocated()
    torch.cuda.reset_peak_memory_stats()

    tmp = tempfile.mkdtemp()
    trace_path = os.path.join(tmp, name + ".json")
    options = dict(record_shapes=True)
    step_ms = []
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], schedule=schedule(**sched),
                 on_trace_ready=lambda p: p.export_chrome_trace(trace_path), **options) as prof:
        for _ in range(calls):
            step_ms.append(_timed(step))
            prof.step()
    torch.cuda.synchronize()
    mem_profiled = torch.cuda.max_memory_allocated()
    if case["compiled"]:
        counters["after_profiled_loop"] = rc.dynamo_counters()
    if unprof is None:
        unprof = unprofiled(step, "after the profiled loop (the first calls are the profiled cold steps)")

    with open(trace_path, "rb") as src, gzip.open(os.path.join(outdir, name + ".json.gz"), "wb") as dst:
        shutil.copyfileobj(src, dst)
    averages = prof.key_averages()
    rf.write_oracle(outdir, name, sched, calls, n_warm, averages, options)

    first = sched["wait"] + sched["warmup"]
    profiled = list(range(first, first + sched["active"]))
    profiled_ms = [step_ms[i] for i in profiled]
    trace = rc.trace_facts(trace_path)
    trace["profiler_steps"] = sorted(trace["profiler_steps"], key=_step_number)  # trace_facts sorts as text
    if trace["profiler_steps"] != [f"ProfilerStep#{i}" for i in profiled]:
        print(f"{PROG}: WARNING {name}: the trace holds {trace['profiler_steps']}, the schedule says "
              f"ProfilerStep#{profiled[0]}..#{profiled[-1]}", flush=True)
    meta.update({
        "workload": name,
        "note": case["note"],
        "pairs": [p for p in pairs_json() if name in (p["before"], p["after"])],
        "recorded_by": f"python3 tools/{PROG}.py OUTDIR {name}",
        "date_utc": date,
        **versions(),
        "env": {k: os.environ.get(k) for k in ("TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR", "TORCH_LOGS",
                                               "CUDA_MODULE_LOADING", "CUDA_VISIBLE_DEVICES")},
        "tf32_state": _tf32_state(),
        "schedule": sched,
        "step_calls": calls,
        "warmup_calls_before_profiling": n_warm,
        "profiler_options": dict(options, activities=["CPU", "CUDA"], with_stack=False, profile_memory=False),
        "profiled_step_calls": profiled,
        "profiled_step_names": [f"ProfilerStep#{i}" for i in profiled],
        "timing": "t0 = perf_counter(); step(); torch.cuda.synchronize(); ms = (perf_counter() - t0) * 1e3; "
                  "prof.step() outside the span, the synchronize inside the call's ProfilerStep; calls of the "
                  "profiled loop include the profiler's overhead",
        "warmup_wall_ms": warm_ms,
        "step_wall_ms_per_call_incl_profiler": step_ms,
        "profiled_step_wall_ms": profiled_ms,
        "profiled_step_stats": stats(profiled_ms),
        "profiled_warm_step_stats": stats(profiled_ms[1:]) if sched is COLD else None,
        "unprofiled": unprof,
        "graph_counts_key_averages": rc.graph_counts(averages),
        "max_memory_allocated_bytes_through_warmup_and_unprofiled": mem_before,
        "max_memory_allocated_bytes_profiled_loop": mem_profiled,
        "trace": trace,
        "trace_steps_as_expected": trace["profiler_steps"] == [f"ProfilerStep#{i}" for i in profiled],
        "trace_json_bytes": os.path.getsize(trace_path),
    })
    if case["compiled"]:
        meta["dynamo_counters"] = counters
        meta["dynamo_counters_delta_unprofiled"] = rc.counters_delta(counters["after_warmup"],
                                                                     counters["before_profiled_loop"])
        meta["dynamo_counters_delta_profiled_loop"] = rc.counters_delta(counters["before_profiled_loop"],
                                                                        counters["after_profiled_loop"])
    with open(os.path.join(outdir, name + ".meta.json"), "w") as f:
        json.dump(meta, f, indent=1, default=str)
    shutil.rmtree(tmp, ignore_errors=True)


# ----------------------------------------------------------------------------- parent
def _meta(outdir, name):
    try:
        with open(os.path.join(outdir, name + ".meta.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def summary(outdir, names):
    print(f"\n{'case':28s} {'profiled med':>12s} {'unprof med':>10s} {'p10':>8s} {'p90':>8s}  steps in trace")
    for name in names:
        m = _meta(outdir, name)
        if m is None:
            print(f"{name:28s} (no meta)")
            continue
        p, u = m.get("profiled_step_stats") or {}, m.get("unprofiled") or {}
        steps = m.get("trace", {}).get("profiler_steps", [])
        print(f"{name:28s} {p.get('median', float('nan')):12.3f} {u.get('median', float('nan')):10.3f} "
              f"{u.get('p10', float('nan')):8.3f} {u.get('p90', float('nan')):8.3f}  "
              f"{steps[0] if steps else '-'}..{steps[-1] if steps else '-'} ({len(steps)})")
    print(f"\n{'before':24s} {'after':27s} {'edit':28s} unprofiled ms before -> after")
    for b, a, e, _, _ in PAIRS:
        if b not in names and a not in names:
            continue
        mb, ma = _meta(outdir, b), _meta(outdir, a)
        ub = (mb or {}).get("unprofiled", {}).get("median")
        ua = (ma or {}).get("unprofiled", {}).get("median")
        if b == a and ma:
            ua = (ma.get("profiled_warm_step_stats") or {}).get("median")
            ub = (ma.get("profiled_step_wall_ms") or [None])[0]
        print(f"{b:24s} {a:27s} {e:28s} {ub if ub is None else round(ub, 3)} -> {ua if ua is None else round(ua, 3)}")


def _usage_error(msg):
    sys.exit(f"{PROG}: {msg}\n{USAGE}")


def main(argv=None):
    argv = list(sys.argv if argv is None else argv)
    if len(argv) < 2:
        _usage_error("missing OUTDIR (see --help)")
    if argv[1] in ("-h", "--help"):
        try:
            print(__doc__)
        except BrokenPipeError:  # `--help | head`
            sys.stderr.close()
        return 0
    if argv[1] == "--pack":
        if len(argv) != 4:
            _usage_error("--pack takes OUTDIR DEST")
        if not os.path.isdir(argv[2]):
            _usage_error(f"--pack: {argv[2]!r} is not a directory")
        os.makedirs(argv[3], exist_ok=True)
        rf, _ = _recorders()
        rf.recorder_args(argv, CASES, record_one, "what_if_pairs")
        return 0
    if argv[1].startswith("-"):
        _usage_error(f"unknown option {argv[1]!r}")
    if len(argv) == 3 and argv[2] == "--calibrate":
        calibrate(argv[1])
        return 0
    if len(argv) > 2 and argv[2] == "--one":
        if len(argv) != 4:
            _usage_error("--one takes one case NAME")
        if argv[3] not in CASES:
            _usage_error(f"unknown case {argv[3]!r}; known: {', '.join(CASES)}")
        _require_gpu()
        rf, _ = _recorders()
        rf.recorder_args(argv, CASES, record_one, "what_if_pairs")
        return 0

    names = argv[2:] or list(CASES)
    unknown = [n for n in names if n not in CASES]
    if unknown:
        _usage_error(f"unknown case(s) {unknown}; known: {', '.join(CASES)}")
    _require_gpu()
    if any(CASES[n]["compiled"] for n in names) and not hasattr(torch, "compile"):
        sys.exit(f"{PROG}: the compiled cases need torch.compile (torch >= 2.0); torch {torch.__version__} has "
                 f"none. Leave them out or run with the GPU machine's PyTorch.")
    rf, _ = _recorders()
    args = rf.recorder_args(argv[:2] + names, CASES, record_one, "what_if_pairs")
    outdir, names = args
    start = time.time()
    with open(os.path.join(outdir, "pairs.json"), "w") as f:
        json.dump({"pairs": pairs_json(), "schedule": STEADY, "one_off_schedule": COLD,
                   "unprofiled_steps": UNPROFILED_STEPS}, f, indent=1)

    if any(CASES[n]["loader"] for n in names):
        if os.path.exists(os.path.join(outdir, "calibration.json")):
            print(f"calibration: reusing {os.path.join(outdir, 'calibration.json')}", flush=True)
        else:
            print("===== calibration", flush=True)
            try:
                rc = subprocess.run([sys.executable, os.path.abspath(__file__), outdir, "--calibrate"],
                                    timeout=CALIBRATION_TIMEOUT_S).returncode
            except subprocess.TimeoutExpired:
                rc = "timeout"
            if rc != 0:
                print(f"calibration FAILED (rc={rc}): the DataLoader cases use the defaults "
                      f"{json.dumps(DEFAULT_CALIBRATION)}", flush=True)

    cache_root = tempfile.mkdtemp(prefix="record_what_if_caches_")

    def env_of(name):
        env = dict(os.environ)
        env["PYTHONUNBUFFERED"] = "1"
        if CASES[name]["compiled"]:
            env["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(cache_root, name, "inductor")
            env["TRITON_CACHE_DIR"] = os.path.join(cache_root, name, "triton")
            env.setdefault("TORCH_LOGS", "recompiles,graph_breaks")
        return env

    failed = rf.run_each(__file__, outdir, names, timeout_of=lambda n: CASES[n]["timeout"], env_of=env_of,
                         budget_s=TOTAL_BUDGET_S - (time.time() - start))
    shutil.rmtree(cache_root, ignore_errors=True)
    summary(outdir, names)
    print("failed:", " ".join(failed) if failed else "none")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
