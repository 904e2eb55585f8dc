#!/usr/bin/env python3
"""Record real-workload torch.profiler traces for issues 12 (what is the CPU doing?) and 13 (which
block is mine?), with torch's key_averages() as the oracle and the ground truth known by
construction.

Run on the GPU machine:  python3 tools/record_workloads.py OUTDIR [NAME ...]
Each workload runs in a fresh subprocess (as in record_fixtures.py). For each NAME it writes
  OUTDIR/NAME.json.gz       the Chrome trace torch exported (gzipped)
  OUTDIR/NAME.oracle.json   key_averages() rows (record_fixtures.avg_row), as record_fixtures writes
  OUTDIR/NAME.meta.json     what was run (shapes, options, versions, GPU, date) and the ground truth
                            known by construction or measured outside the trace

The model classes below live in this file on purpose: in the with_stack trace their frames carry
this file's path, so they are "user code" as opposed to torch / transformers library frames.
"""
import datetime
import gzip
import importlib.util
import inspect
import json
import math
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.profiler import ProfilerActivity, profile, schedule

_here = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("record_fixtures", os.path.join(_here, "record_fixtures.py"))
record_fixtures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(record_fixtures)
STEADY = record_fixtures.STEADY

# One generate() call recorded (ProfilerStep#2), after a skipped and a warm-up call in the profiler.
GENERATE = dict(wait=1, warmup=1, active=1, repeat=1)

# The CPU-heavy per-sample transform: blur passes are calibrated once (in the parent, so both
# DataLoader workloads run the identical transform) to about this much CPU time per sample.
TRANSFORM_TARGET_MS = 1.5
TRANSFORM_MAX_PASSES = 64
BATCH = 32
IMAGE = 128          # the generated image side; the transform crops it to CROP
CROP = 112
DATASET_BATCHES = 12  # one epoch = 12 batches: a warm-up epoch, then 3 warm + 6 profiled steps


# ----------------------------------------------------------------------------- issue 12: CPU time
def _blur_kernel():
    k = torch.tensor([1.0, 4.0, 6.0, 4.0, 1.0])
    k2 = torch.outer(k, k)
    k2 = k2 / k2.sum()
    return k2.expand(3, 1, 5, 5).contiguous()


class SyntheticImages(torch.utils.data.Dataset):
    """In-memory synthetic images; __getitem__ does a deliberately CPU-heavy transform."""

    def __init__(self, n, passes):
        self.n = n
        self.passes = passes
        self.kernel = _blur_kernel()

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return transform_sample(i, self.passes, self.kernel), i % 10


def transform_sample(i, passes, kernel):
    g = torch.Generator().manual_seed(i)
    img = torch.rand(3, IMAGE, IMAGE, generator=g)
    for _ in range(passes):  # repeated depthwise blur: the "CPU-heavy augmentation"
        img = F.conv2d(img.unsqueeze(0), kernel, padding=2, groups=3).squeeze(0)
    off = (IMAGE - CROP) // 2
    img = img[:, off:off + CROP, off:off + CROP]
    img = (img - img.mean(dim=(1, 2), keepdim=True)) / (img.std(dim=(1, 2), keepdim=True) + 1e-6)
    if i % 2:
        img = img.flip(-1)
    return img.contiguous()


def calibrate_passes():
    """Blur passes that make one sample cost about TRANSFORM_TARGET_MS of CPU in this process."""
    kernel = _blur_kernel()
    for i in range(5):
        transform_sample(i, 1, kernel)
    reps = 20
    t0 = time.perf_counter()
    for i in range(reps):
        transform_sample(i, 0, kernel)
    base = (time.perf_counter() - t0) / reps * 1e3
    t0 = time.perf_counter()
    for i in range(reps):
        transform_sample(i, 4, kernel)
    per_pass = max(((time.perf_counter() - t0) / reps * 1e3 - base) / 4, 1e-3)
    passes = int(min(TRANSFORM_MAX_PASSES, max(1, round((TRANSFORM_TARGET_MS - base) / per_pass))))
    return passes, base, per_pass


# The CNN's depth is calibrated once (in the parent) so that one training step keeps the GPU busy
# about this long: longer than 4 workers need per batch, so that with num_workers=4 the loop is
# GPU-bound, while with num_workers=0 the batch's transform (~BATCH * TRANSFORM_TARGET_MS) dominates.
GPU_STEP_TARGET_MS = 20.0
CNN_CHANNELS = 256
CNN_MAX_LAYERS = 48


def small_cnn(layers):
    body = [nn.Conv2d(3, CNN_CHANNELS, 3, stride=2, padding=1), nn.ReLU()]
    for _ in range(layers):
        body += [nn.Conv2d(CNN_CHANNELS, CNN_CHANNELS, 3, padding=1), nn.ReLU()]
    body += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(CNN_CHANNELS, 10)]
    return nn.Sequential(*body).cuda()


def make_train_step(model, opt):
    def train(x, y):
        x = x.cuda(non_blocking=True)
        y = y.cuda(non_blocking=True)
        loss = F.cross_entropy(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        return loss.item()  # the usual `running_loss += loss.item()`: one sync per step
    return train


def calibrate_cnn_layers():
    """Conv layers that make one training step take about GPU_STEP_TARGET_MS on this GPU."""
    x = torch.randn(BATCH, 3, CROP, CROP).pin_memory()
    y = torch.randint(0, 10, (BATCH,))
    ms = {}
    for layers in (1, 5):
        model = small_cnn(layers)
        train = make_train_step(model, torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9))
        for _ in range(3):
            train(x, y)
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(5):
            train(x, y)
        torch.cuda.synchronize()
        ms[layers] = (time.perf_counter() - t0) / 5 * 1e3
        del model, train
    per_layer = max((ms[5] - ms[1]) / 4, 1e-3)
    layers = int(min(CNN_MAX_LAYERS, max(1, round(1 + (GPU_STEP_TARGET_MS - ms[1]) / per_layer))))
    torch.cuda.empty_cache()
    return layers, ms[1], per_layer


def dataloader(num_workers, pin_memory, persistent_workers):
    passes = int(os.environ["RECORD_TRANSFORM_PASSES"])
    torch.manual_seed(0)
    ds = SyntheticImages(BATCH * DATASET_BATCHES, passes)
    kwargs = dict(batch_size=BATCH, shuffle=False, num_workers=num_workers, pin_memory=pin_memory)
    if num_workers > 0:
        kwargs.update(persistent_workers=persistent_workers, prefetch_factor=2)
    loader = torch.utils.data.DataLoader(ds, **kwargs)
    layers = int(os.environ["RECORD_CNN_LAYERS"])
    model = small_cnn(layers)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    train = make_train_step(model, opt)
    timings = {"next_batch_ms": [], "train_step_ms": []}

    # Warm-up epoch outside the profiler: spawns the (persistent) workers, loads cuDNN.
    for x, y in loader:
        train(x, y)
    torch.cuda.synchronize()
    state = {"it": iter(loader)}

    def step():
        t0 = time.perf_counter()
        x, y = next(state["it"])
        t1 = time.perf_counter()
        train(x, y)  # ends with loss.item(), so this time includes the wait for the GPU
        t2 = time.perf_counter()
        timings["next_batch_ms"].append((t1 - t0) * 1e3)
        timings["train_step_ms"].append((t2 - t1) * 1e3)

    kernel = _blur_kernel()
    t0 = time.perf_counter()
    for i in range(BATCH):
        transform_sample(i, passes, kernel)
    batch_transform_ms = (time.perf_counter() - t0) * 1e3
    meta = {
        "dataset": f"SyntheticImages: {BATCH * DATASET_BATCHES} samples, torch.rand(3, {IMAGE}, {IMAGE}) "
                   f"-> {passes} depthwise 5x5 blur passes (F.conv2d) -> center crop {CROP} -> "
                   "per-channel normalize -> flip on odd indices",
        "transform_passes": passes,
        "batch_size": BATCH,
        "batch_shape": [BATCH, 3, CROP, CROP],
        "num_workers": num_workers,
        "pin_memory": pin_memory,
        "persistent_workers": persistent_workers if num_workers > 0 else None,
        "prefetch_factor": 2 if num_workers > 0 else None,
        "model": f"CNN: conv3x3/2(3->{CNN_CHANNELS}) relu, then {layers} x [conv3x3({CNN_CHANNELS}->"
                 f"{CNN_CHANNELS}) relu] at {CROP // 2}x{CROP // 2}, avgpool, linear({CNN_CHANNELS}->10); "
                 "SGD momentum 0.9; cross-entropy; fp32 (cuDNN's default TF32 for convolutions)",
        "cnn_layers": layers,
        "cnn_layers_calibration": os.environ.get("RECORD_CNN_CALIBRATION"),
        "transform_calibration": os.environ.get("RECORD_TRANSFORM_CALIBRATION"),
        "train_step": "x.cuda(non_blocking=True); forward; loss; zero_grad; backward; opt.step(); "
                      "loss.item() (one device-to-host sync per step)",
        "workers_threads": "DataLoader workers run with torch.set_num_threads(1) (DataLoader's default)",
        "warmup": "one full epoch outside the profiler, then a new iterator and 3 warm steps",
        "batch_transform_ms_in_main_process_outside_profiler": batch_transform_ms,
        "dataloader_next_span_name": "enumerate(DataLoader)#" + (
            "_SingleProcessDataLoaderIter.__next__" if num_workers == 0
            else "_MultiProcessingDataLoaderIter.__next__"),
        "per_step_call_timings_wall": timings,
        "per_step_call_timings_note": "one entry per step() call: the first 3 are the warm-up calls "
                                      "before the profiler, then the 6 calls of the profiler loop "
                                      "(profiled: loop calls 2, 3, 4 = ProfilerStep#2..#4)",
    }

    return step, meta, None


def alloc_churn():
    """Each step: tensors of a new shape, then torch.cuda.empty_cache(), so every step calls
    cudaMalloc for its tensors and cudaFree for the cached segments."""
    w = torch.randn(1024, 1024, device="cuda")
    calls = [0]
    per_step = []

    def seg_counts():
        s = torch.cuda.memory_stats()
        return s.get("segment.all.allocated", 0), s.get("segment.all.freed", 0)

    def step():
        i = calls[0]
        calls[0] += 1
        n = 2048 + 256 * i  # a new row count every step
        a0, f0 = seg_counts()
        x = torch.randn(n, 1024, device="cuda")
        y = torch.relu(x @ w)
        s = y.sum()
        v = s.item()
        del x, y
        torch.cuda.empty_cache()
        a1, f1 = seg_counts()
        per_step.append({"call": i, "rows": n, "x_bytes": n * 1024 * 4,
                         "segments_allocated (cudaMalloc by the caching allocator)": a1 - a0,
                         "segments_freed (cudaFree by the caching allocator)": f1 - f0})
        return v

    meta = {
        "step": "n = 2048 + 256*call; x = randn(n, 1024) fp32; y = relu(x @ w) with w (1024,1024); "
                "s = y.sum().item(); del x, y; torch.cuda.empty_cache()",
        "profile_memory": True,
        "per_step_allocator_segments": per_step,
        "per_step_note": "one entry per step() call: calls 0-2 are warm-up calls before the profiler, "
                         "calls 3-8 the profiler loop (ProfilerStep#2..#4 = calls 5, 6, 7)",
        "note": "segment counts are torch.cuda.memory_stats() deltas around each step: the "
                "cudaMalloc/cudaFree calls of the caching allocator in that step",
    }
    return step, meta, None


# ----------------------------------------------------------------------------- issue 13: blocks
VOCAB, D_MODEL, HEADS, LAYERS, SLOW_LAYER, SEQ, TOKENS_BATCH = 1000, 256, 16, 4, 2, 128, 8


class FusedAttention(nn.Module):
    """One qkv projection and one scaled_dot_product_attention call for all heads."""

    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4).unbind(0)
        o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(o.transpose(1, 2).reshape(b, t, c))


class HeadLoopAttention(nn.Module):
    """The deliberately slow block: the same attention, but a Python loop over heads, each head
    doing matmul, scale, mask, softmax, matmul as separate tiny kernels."""

    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)

    def forward(self, x):
        b, t, c = x.shape
        hd = c // self.heads
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, hd).permute(2, 0, 3, 1, 4).unbind(0)
        mask = torch.ones(t, t, dtype=torch.bool, device=x.device).triu(1)
        outs = []
        for h in range(self.heads):  # SLOW: one head at a time
            s = (q[:, h] @ k[:, h].transpose(-2, -1)) * (1.0 / math.sqrt(hd))
            s = s.masked_fill(mask, float("-inf"))
            outs.append(s.softmax(-1) @ v[:, h])
        o = torch.stack(outs, dim=1)
        return self.proj(o.transpose(1, 2).reshape(b, t, c))


class FeedForward(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.up = nn.Linear(d, 4 * d)
        self.down = nn.Linear(4 * d, d)

    def forward(self, x):
        return self.down(F.gelu(self.up(x)))


class Block(nn.Module):
    def __init__(self, d, heads, slow):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = HeadLoopAttention(d, heads) if slow else FusedAttention(d, heads)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = FeedForward(d)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.mlp(self.ln2(x))


class TinyTransformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, D_MODEL)
        self.pos = nn.Embedding(SEQ, D_MODEL)
        self.blocks = nn.ModuleList(Block(D_MODEL, HEADS, i == SLOW_LAYER) for i in range(LAYERS))
        self.ln_f = nn.LayerNorm(D_MODEL)
        self.head = nn.Linear(D_MODEL, VOCAB)

    def forward(self, ids):
        x = self.tok(ids) + self.pos(torch.arange(ids.shape[1], device=ids.device))
        for block in self.blocks:
            x = block(x)
        return self.head(self.ln_f(x))


def _source_line(fn, needle):
    lines, first = inspect.getsourcelines(fn)
    for off, line in enumerate(lines):
        if needle in line:
            return first + off
    return None


def blocks_model():
    torch.manual_seed(0)
    model = TinyTransformer().to("cuda", torch.bfloat16).eval()
    ids = torch.randint(0, VOCAB, (TOKENS_BATCH, SEQ), device="cuda")

    def step():
        with torch.no_grad():
            y = model(ids)
        torch.cuda.synchronize()
        return y

    fwd = HeadLoopAttention.forward
    meta = {
        "model": f"TinyTransformer (defined in this file): Embedding({VOCAB},{D_MODEL}) + positional "
                 f"Embedding({SEQ},{D_MODEL}), {LAYERS} Blocks (LayerNorm, attention, LayerNorm, "
                 f"FeedForward {D_MODEL}->{4 * D_MODEL}->{D_MODEL} GELU), final LayerNorm, Linear head; "
                 f"{HEADS} heads of dim {D_MODEL // HEADS}; bf16; inference (no_grad), "
                 "torch.cuda.synchronize() at the end of each step",
        "input_ids_shape": [TOKENS_BATCH, SEQ],
        "ground_truth": {
            "slow_block_module_path": f"blocks.{SLOW_LAYER}.attn",
            "slow_block_class": "HeadLoopAttention",
            "slow_block_nn_module_event_expected_with_modules": "nn.Module: HeadLoopAttention_0",
            "other_attention_class": f"FusedAttention ({LAYERS - 1} instances, one SDPA call each)",
            "slow_forward_file": os.path.abspath(inspect.getsourcefile(fwd)),
            "slow_forward_file_in_repo": "tools/record_workloads.py",
            "slow_forward_def_line": fwd.__code__.co_firstlineno,
            "slow_loop_line": _source_line(fwd, "for h in range(self.heads)"),
            "slow_loop_iterations_per_call": HEADS,
            "slow_per_head_ops": "select x3 (views), matmul (bmm), mul (scale), masked_fill, softmax, "
                                 "matmul (bmm): about 5 kernels per head, so about 5*16 = 80 kernels per "
                                 "call plus qkv/proj linears, triu/ones, stack",
            "slow_block_calls_per_step": 1,
            "forward_calls_per_step": 1,
            "record_function_used": False,
        },
    }
    return step, meta, None


# ----------------------------------------------------------------------------- issue 13: generate
# 10 new tokens and one profiled generate() keep each trace under ~400 KB (16 tokens and two
# generate() calls gave 0.5 to 1 MB).
GEN_BATCH, GEN_PROMPT, GEN_NEW = 2, 16, 10


def llama_generate(attn_impl, cache_implementation=None, disable_compile=None):
    import transformers
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(vocab_size=1000, hidden_size=256, intermediate_size=512, num_hidden_layers=2,
                         num_attention_heads=4, num_key_value_heads=4, max_position_embeddings=256,
                         bos_token_id=1, eos_token_id=2, pad_token_id=0)
    torch.manual_seed(0)
    try:
        model = LlamaForCausalLM._from_config(config, attn_implementation=attn_impl)
    except Exception as e:  # older/newer signature
        print("_from_config(attn_implementation=) failed:", repr(e), flush=True)
        config._attn_implementation = attn_impl
        model = LlamaForCausalLM(config)
    model = model.to("cuda", torch.bfloat16).eval()
    ids = torch.randint(3, 1000, (GEN_BATCH, GEN_PROMPT), device="cuda")
    mask = torch.ones_like(ids)
    forwards = []  # (call index, input_ids shape) of every model forward
    calls = [0]

    def pre_hook(module, args, kwargs):
        x = kwargs.get("input_ids", args[0] if args else None)
        forwards.append({"generate_call": calls[0], "input_ids_shape": list(x.shape) if x is not None else None})

    model.register_forward_pre_hook(pre_hook, with_kwargs=True)
    gen_kwargs = dict(attention_mask=mask, max_new_tokens=GEN_NEW, min_new_tokens=GEN_NEW,
                      do_sample=False, pad_token_id=0)
    if cache_implementation:
        gen_kwargs["cache_implementation"] = cache_implementation
    if disable_compile is not None:
        gen_kwargs["disable_compile"] = disable_compile
    out_shapes = []

    def step():
        with torch.no_grad():
            out = model.generate(ids, **gen_kwargs)
        torch.cuda.synchronize()
        out_shapes.append(list(out.shape))
        calls[0] += 1
        return out

    meta = {
        "transformers": transformers.__version__,
        "config": {k: getattr(config, k, None) for k in (
            "vocab_size", "hidden_size", "intermediate_size", "num_hidden_layers", "num_attention_heads",
            "num_key_value_heads", "max_position_embeddings")},
        "attn_implementation_requested": attn_impl,
        "attn_implementation_actual": getattr(model.config, "_attn_implementation", None),
        "dtype": "bfloat16",
        "generate_kwargs": {k: v for k, v in gen_kwargs.items() if k != "attention_mask"},
        "input_ids_shape": [GEN_BATCH, GEN_PROMPT],
        "forwards_by_hook": forwards,
        "output_shapes": out_shapes,
        "ground_truth": {
            "forward_passes_per_generate": f"{GEN_NEW} = 1 prefill (input_ids [{GEN_BATCH}, {GEN_PROMPT}]) + "
                                           f"{GEN_NEW - 1} decode (input_ids [{GEN_BATCH}, 1]); "
                                           "see forwards_by_hook for the count actually seen",
            "new_tokens_per_generate": GEN_NEW * GEN_BATCH,
            "generate_calls_per_step": 1,
        },
    }

    def finish(meta_out):
        per_call = {}
        for f in forwards:
            per_call[f["generate_call"]] = per_call.get(f["generate_call"], 0) + 1
        meta_out["forwards_per_generate_call_by_hook"] = per_call
        meta_out["compile_config"] = str(getattr(model.generation_config, "compile_config", None))
        meta_out["model_forward_is_compiled"] = type(getattr(model, "_compiled_call", None)).__name__
    return step, meta, finish


# ----------------------------------------------------------------------------- issue 13: attention
ATT_B, ATT_H, ATT_T, ATT_D = 4, 8, 1024, 64


def attention(kind):
    torch.manual_seed(0)
    q, k, v = (torch.randn(ATT_B, ATT_H, ATT_T, ATT_D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    scale = 1.0 / math.sqrt(ATT_D)

    def step():
        if kind == "eager":
            o = torch.softmax((q @ k.transpose(-2, -1)) * scale, dim=-1) @ v
        else:
            o = F.scaled_dot_product_attention(q, k, v)
        torch.cuda.synchronize()
        return o

    flops_each = 2 * ATT_B * ATT_H * ATT_T * ATT_T * ATT_D
    meta = {
        "shapes": {"q": [ATT_B, ATT_H, ATT_T, ATT_D], "k": [ATT_B, ATT_H, ATT_T, ATT_D],
                   "v": [ATT_B, ATT_H, ATT_T, ATT_D]},
        "dtype": "bfloat16",
        "code": ("o = torch.softmax((q @ k.transpose(-2, -1)) * scale, dim=-1) @ v" if kind == "eager"
                 else "o = F.scaled_dot_product_attention(q, k, v)  # not causal, no mask, default backend"),
        "calls_per_step": 1,
        "sdp_backends_enabled": {
            "cudnn": torch.backends.cuda.cudnn_sdp_enabled(),
            "flash": torch.backends.cuda.flash_sdp_enabled(),
            "mem_efficient": torch.backends.cuda.mem_efficient_sdp_enabled(),
            "math": torch.backends.cuda.math_sdp_enabled(),
        },
        "ground_truth": {
            "flops_qk": flops_each,
            "flops_pv": flops_each,
            "flops_total_formula": "4*B*H*T^2*D",
            "flops_total": 2 * flops_each,
            "scores_shape": [ATT_B, ATT_H, ATT_T, ATT_T],
            "scores_bytes_bf16": ATT_B * ATT_H * ATT_T * ATT_T * 2,
        },
    }
    return step, meta, None


# ----------------------------------------------------------------------------- the recorder
# name -> (builder, schedule, step() calls, warm-up calls before profiling, profiler options, issue)
WORKLOADS = {
    "dataloader_workers0": (lambda: dataloader(0, False, False), STEADY, 6, 3, {}, 12),
    "dataloader_workers4": (lambda: dataloader(4, True, True), STEADY, 6, 3, {}, 12),
    "alloc_churn": (alloc_churn, STEADY, 6, 3, {"profile_memory": True}, 12),
    "blocks_modules_stack": (blocks_model, STEADY, 6, 3, {"with_stack": True, "with_modules": True}, 13),
    "blocks_plain": (blocks_model, STEADY, 6, 3, {}, 13),
    "attention_eager": (lambda: attention("eager"), STEADY, 6, 3, {}, 13),
    "attention_sdpa": (lambda: attention("sdpa"), STEADY, 6, 3, {}, 13),
    "llama_generate_eager": (lambda: llama_generate("eager"), GENERATE, 3, 2, {}, 13),
    "llama_generate_static_nocompile": (lambda: llama_generate("eager", "static", True), GENERATE, 3, 2, {}, 13),
    # transformers decides itself whether to torch.compile the decode forward for a static cache.
    "llama_generate_static": (lambda: llama_generate("eager", "static"), GENERATE, 3, 2, {}, 13),
}
TIMEOUT_S = {"llama_generate_static": 240}


def record_one(name, outdir):
    builder, sched, steps, warm, options, issue = WORKLOADS[name]
    torch.cuda.init()
    torch.zeros(1, device="cuda")  # CUDA context exists before profiling, as in real programs
    step, meta, finish = builder()
    for _ in range(warm):
        step()
    torch.cuda.synchronize()

    tmp = tempfile.mkdtemp()
    trace_path = os.path.join(tmp, name + ".json")
    kwargs = dict(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True, **options)
    kwargs["schedule"] = schedule(**sched)
    kwargs["on_trace_ready"] = lambda p: p.export_chrome_trace(trace_path)
    step_wall_ms = []
    with profile(**kwargs) as prof:
        for _ in range(steps):
            t0 = time.perf_counter()
            step()
            step_wall_ms.append((time.perf_counter() - t0) * 1e3)
            prof.step()
    torch.cuda.synchronize()

    with open(trace_path, "rb") as src, gzip.open(os.path.join(outdir, name + ".json.gz"), "wb") as dst:
        shutil.copyfileobj(src, dst)
    averages = prof.key_averages()
    record_fixtures.write_oracle(outdir, name, sched, steps, warm, averages, dict(record_shapes=True, **options))

    first = sched["wait"] + sched["warmup"]
    try:
        import transformers
        tf_version = transformers.__version__
    except Exception:
        tf_version = None
    meta.update({
        "workload": name,
        "issue": issue,
        "recorded_by": "python3 tools/record_workloads.py OUTDIR " + name,
        "date_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "torch": torch.__version__,
        "cuda": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version(),
        "transformers": tf_version,
        "python": platform.python_version(),
        "gpu": torch.cuda.get_device_name(0),
        "cpu_count": os.cpu_count(),
        "torch_num_threads": torch.get_num_threads(),
        "schedule": sched,
        "step_calls": steps,
        "warmup_calls_before_profiling": warm,
        "profiler_options": dict(record_shapes=True, **options),
        "profiled_step_calls": list(range(first, first + sched["active"])),
        "profiled_step_names": [f"ProfilerStep#{i}" for i in range(first, first + sched["active"])],
        "step_wall_ms_per_call_incl_profiler": step_wall_ms,
        "attention_ops_in_key_averages": sorted({e.key for e in averages if any(
            s in e.key.lower() for s in ("attention", "flash", "efficient", "sdpa", "softmax"))}),
    })
    if finish:
        finish(meta)
    with open(os.path.join(outdir, name + ".meta.json"), "w") as f:
        json.dump(meta, f, indent=1, default=str)


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    if len(sys.argv) > 3 and sys.argv[2] == "--one":
        record_one(sys.argv[3], outdir)
        return
    names = sys.argv[2:] or list(WORKLOADS)
    if "RECORD_TRANSFORM_PASSES" not in os.environ:
        passes, base, per_pass = calibrate_passes()
        os.environ["RECORD_TRANSFORM_PASSES"] = str(passes)
        os.environ["RECORD_TRANSFORM_CALIBRATION"] = (
            f"main process: {base:.3f} ms per sample without blur, {per_pass:.3f} ms per blur pass "
            f"-> {passes} passes for a {TRANSFORM_TARGET_MS} ms target")
        print("transform calibration:", os.environ["RECORD_TRANSFORM_CALIBRATION"], flush=True)
    if "RECORD_CNN_LAYERS" not in os.environ and any(n.startswith("dataloader") for n in names):
        layers, one, per_layer = calibrate_cnn_layers()
        os.environ["RECORD_CNN_LAYERS"] = str(layers)
        os.environ["RECORD_CNN_CALIBRATION"] = (
            f"train step (incl. loss.item()) {one:.2f} ms with 1 layer, {per_layer:.2f} ms per extra layer "
            f"-> {layers} layers for a {GPU_STEP_TARGET_MS} ms target")
        print("cnn calibration:", os.environ["RECORD_CNN_CALIBRATION"], flush=True)
    failed = record_fixtures.run_each(__file__, outdir, names, timeout_of=lambda name: TIMEOUT_S.get(name, 150))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
