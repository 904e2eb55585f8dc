#!/usr/bin/env python3
"""Record torch.profiler traces for issue 29 (which block is mine, on real models): a module class
used several times (one with a Python loop), a training step split into forward / backward /
optimizer record_functions with backward run by autograd's thread, and models this file did not
write the rules for (holdout_*), with torch's key_averages() as the oracle and the ground truth
known by construction. (torch 2.11's key_averages(group_by_stack_n=5) came back with empty
stacks on these traces, so it gives no second view of the blocks; tools/oracles/blocks.py does.)

Run on the GPU machine:  python3 tools/record_code_groups.py OUTDIR [NAME ...]
                         python3 tools/record_code_groups.py --pack OUTDIR DEST
Each case runs in a fresh process (record_fixtures.run_each) and writes
  OUTDIR/NAME.json.gz      the Chrome trace torch exported (gzipped)
  OUTDIR/NAME.oracle.json  key_averages() rows and table (record_fixtures.write_oracle)
  OUTDIR/NAME.meta.json    what was run and the ground truth known by construction

The model classes live in this file on purpose: in a with_stack trace their frames carry this
file's path, so they are the user's code, apart from torch and transformers.
"""
import datetime
import importlib.util
import inspect
import json
import os
import platform
import shutil
import gzip
import sys
import tempfile
import time

_here = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("record_fixtures", os.path.join(_here, "record_fixtures.py"))
record_fixtures = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(record_fixtures)
STEADY = record_fixtures.STEADY  # 6 step() calls, ProfilerStep#2..#4 kept

WARM_CALLS = 3
CASE_TIMEOUT_S = 240

VOCAB, D_MODEL, HEADS, LAYERS, SEQ, BATCH = 1000, 256, 8, 4, 64, 4
ROTARY_PAIRS = 8  # the Python loop's trip count: one rotation per pair of channel groups


def _torch():
    import torch
    return torch


# ----------------------------------------------------------------------------- the model
def make_model_classes():
    torch = _torch()
    nn = torch.nn
    F = torch.nn.functional

    class Rotary(nn.Module):
        """Rotary position embedding written as a Python loop over channel groups: each iteration
        slices, multiplies and adds small tensors, so the module issues ~6 kernels per iteration."""

        def __init__(self, head_dim, seq):
            super().__init__()
            pos = torch.arange(seq).float()[:, None]
            freq = 1.0 / (10000 ** (torch.arange(0, head_dim, 2).float() / head_dim))
            self.register_buffer("cos", torch.cos(pos * freq[None]), persistent=False)
            self.register_buffer("sin", torch.sin(pos * freq[None]), persistent=False)
            self.group = head_dim // (2 * ROTARY_PAIRS)

        def forward(self, x):  # x: [b, h, t, d]
            t = x.shape[-2]
            half = x.shape[-1] // 2
            out = torch.empty_like(x)
            for i in range(ROTARY_PAIRS):  # SLOW: one channel group at a time
                a = slice(i * self.group, (i + 1) * self.group)
                b = slice(half + i * self.group, half + (i + 1) * self.group)
                c = self.cos[:t, a].to(x.dtype)
                s = self.sin[:t, a].to(x.dtype)
                out[..., a] = x[..., a] * c - x[..., b] * s
                out[..., b] = x[..., b] * c + x[..., a] * s
            return out

    class Attention(nn.Module):
        def __init__(self, d, heads, seq):
            super().__init__()
            self.heads = heads
            self.qkv = nn.Linear(d, 3 * d)
            self.proj = nn.Linear(d, d)
            self.rotary = Rotary(d // heads, seq)

        def forward(self, x):
            b, t, c = x.shape
            q, k, v = self.qkv(x).view(b, t, 3, self.heads, c // self.heads).permute(2, 0, 3, 1, 4).unbind(0)
            q, k = self.rotary(q), self.rotary(k)
            o = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            return self.proj(o.transpose(1, 2).reshape(b, t, c))

    class MLP(nn.Module):
        def __init__(self, d):
            super().__init__()
            self.up = nn.Linear(d, 4 * d)
            self.down = nn.Linear(4 * d, d)

        def forward(self, x):
            return self.down(F.gelu(self.up(x)))

    class GPTBlock(nn.Module):
        def __init__(self, d, heads, seq):
            super().__init__()
            self.ln1 = nn.LayerNorm(d)
            self.attn = Attention(d, heads, seq)
            self.ln2 = nn.LayerNorm(d)
            self.mlp = MLP(d)

        def forward(self, x):
            x = x + self.attn(self.ln1(x))
            return x + self.mlp(self.ln2(x))

    class SmallGPT(nn.Module):
        def __init__(self):
            super().__init__()
            self.tok = nn.Embedding(VOCAB, D_MODEL)
            self.blocks = nn.ModuleList(GPTBlock(D_MODEL, HEADS, SEQ) for _ in range(LAYERS))
            self.ln_f = nn.LayerNorm(D_MODEL)
            self.head = nn.Linear(D_MODEL, VOCAB)

        def forward(self, ids):
            x = self.tok(ids)
            for block in self.blocks:
                x = block(x)
            return self.head(self.ln_f(x))

    return dict(Rotary=Rotary, Attention=Attention, MLP=MLP, GPTBlock=GPTBlock, SmallGPT=SmallGPT)


def _source_line(fn, needle):
    lines, first = inspect.getsourcelines(fn)
    for off, line in enumerate(lines):
        if needle in line:
            return first + off
    return None


def _gpt_truth(classes):
    fwd = classes["Rotary"].forward
    return {
        "model": f"SmallGPT (this file): Embedding({VOCAB},{D_MODEL}), {LAYERS} GPTBlocks (LayerNorm, Attention with "
                 f"a Rotary module applied to q and to k, LayerNorm, MLP {D_MODEL}->{4 * D_MODEL}->{D_MODEL}), "
                 f"LayerNorm, Linear head; {HEADS} heads of dim {D_MODEL // HEADS}; input ids [{BATCH}, {SEQ}]",
        "ground_truth": {
            "slow_class": "Rotary",
            "slow_instances": LAYERS,
            "slow_calls_per_instance_per_forward": 2,
            "slow_events_expected_with_modules": [f"nn.Module: Rotary_{i}" for i in range(LAYERS)],
            "slow_forward_file_in_repo": "tools/record_code_groups.py",
            "slow_forward_def_line": fwd.__code__.co_firstlineno,
            "slow_loop_line": _source_line(fwd, "for i in range(ROTARY_PAIRS)"),
            "slow_loop_iterations_per_call": ROTARY_PAIRS,
            "record_function_used": False,
        },
    }


def case_gpt_rotary():
    """Inference, no_grad, bf16, synchronized at the end of each step; modules and stacks."""
    torch = _torch()
    classes = make_model_classes()
    torch.manual_seed(0)
    model = classes["SmallGPT"]().to("cuda", torch.bfloat16).eval()
    ids = torch.randint(0, VOCAB, (BATCH, SEQ), device="cuda")

    def step():
        with torch.no_grad():
            model(ids)
        torch.cuda.synchronize()

    return step, _gpt_truth(classes), dict(with_modules=True, with_stack=True)


def case_gpt_rotary_train():
    """The same model trained: forward, backward and optimizer each in a record_function inside a
    `train_step` record_function; backward runs on autograd's device thread."""
    torch = _torch()
    from torch.profiler import record_function
    classes = make_model_classes()
    torch.manual_seed(0)
    model = classes["SmallGPT"]().to("cuda")
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=True)
    ids = torch.randint(0, VOCAB, (BATCH, SEQ), device="cuda")
    target = torch.randint(0, VOCAB, (BATCH, SEQ), device="cuda")

    def step():
        with record_function("train_step"):
            with record_function("forward"):
                logits = model(ids)
                loss = torch.nn.functional.cross_entropy(logits.view(-1, VOCAB), target.view(-1))
            with record_function("backward"):
                loss.backward()
            with record_function("optimizer"):
                opt.step()
                opt.zero_grad(set_to_none=True)
        torch.cuda.synchronize()

    truth = _gpt_truth(classes)
    truth["model"] += "; fp32 training, AdamW(foreach=True), cross-entropy loss"
    truth["ground_truth"].update({"record_function_used": True,
                                  "record_functions": ["train_step", "forward", "backward", "optimizer"],
                                  "backward_thread": "autograd's device thread (loss.backward() on CUDA)"})
    return step, truth, dict(with_modules=True, with_stack=True)


def case_mlp_train_blocks():
    """A plain MLP training step with forward / backward / optimizer record_functions, without
    stacks or modules: what record_function alone tells."""
    torch = _torch()
    from torch.profiler import record_function
    nn = torch.nn
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(1024, 4096), nn.ReLU(), nn.Linear(4096, 4096), nn.ReLU(),
                          nn.Linear(4096, 1024)).to("cuda")
    opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    x = torch.randn(256, 1024, device="cuda")
    y = torch.randn(256, 1024, device="cuda")

    def step():
        with record_function("forward"):
            loss = nn.functional.mse_loss(model(x), y)
        with record_function("backward"):
            loss.backward()
        with record_function("optimizer"):
            opt.step()
            opt.zero_grad(set_to_none=True)
        torch.cuda.synchronize()

    truth = {"model": "Sequential(Linear 1024->4096, ReLU, Linear 4096->4096, ReLU, Linear 4096->1024), fp32, "
                      "batch 256, SGD momentum 0.9, mse loss",
             "ground_truth": {"record_functions": ["forward", "backward", "optimizer"],
                              "backward_thread": "autograd's device thread", "linears": 3}}
    return step, truth, {}


def case_holdout_bert_infer():
    """Holdout (no rule was written against it): a transformers BERT encoder from its config,
    random weights, inference with modules and stacks, no record_function."""
    torch = _torch()
    from transformers import BertConfig, BertModel
    config = BertConfig(vocab_size=1000, hidden_size=256, num_hidden_layers=4, num_attention_heads=4,
                        intermediate_size=1024, max_position_embeddings=128)
    torch.manual_seed(0)
    model = BertModel(config).to("cuda").eval()
    ids = torch.randint(0, 1000, (8, 128), device="cuda")

    def step():
        with torch.no_grad():
            model(input_ids=ids)
        torch.cuda.synchronize()

    truth = {"model": "transformers BertModel(BertConfig(vocab 1000, hidden 256, 4 layers, 4 heads, intermediate "
                      "1024)), random weights, fp32, input ids [8, 128], no_grad",
             "ground_truth": {"layers": 4, "record_function_used": False}}
    return step, truth, dict(with_modules=True, with_stack=True)


def case_holdout_gpt2_train():
    """Holdout: a transformers GPT-2 from its config trained with AdamW, modules and stacks, no
    record_function."""
    torch = _torch()
    from transformers import GPT2Config, GPT2LMHeadModel
    config = GPT2Config(vocab_size=1000, n_positions=128, n_embd=256, n_layer=4, n_head=4)
    torch.manual_seed(0)
    model = GPT2LMHeadModel(config).to("cuda")
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    ids = torch.randint(0, 1000, (8, 128), device="cuda")

    def step():
        out = model(input_ids=ids, labels=ids)
        out.loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
        torch.cuda.synchronize()

    truth = {"model": "transformers GPT2LMHeadModel(GPT2Config(vocab 1000, 128 positions, n_embd 256, 4 layers, "
                      "4 heads)), random weights, fp32, input ids [8, 128], AdamW",
             "ground_truth": {"layers": 4, "record_function_used": False}}
    return step, truth, dict(with_modules=True, with_stack=True)


CASES = {
    "gpt_rotary": case_gpt_rotary,
    "gpt_rotary_train": case_gpt_rotary_train,
    "mlp_train_blocks": case_mlp_train_blocks,
    "holdout_bert_infer": case_holdout_bert_infer,
    "holdout_gpt2_train": case_holdout_gpt2_train,
}


def record_one(name, outdir):
    torch = _torch()
    from torch.profiler import ProfilerActivity, profile, schedule
    torch.cuda.init()
    torch.zeros(1, device="cuda")  # CUDA context exists before profiling, as in real programs
    step, meta, options = CASES[name]()
    for _ in range(WARM_CALLS):
        step()
    torch.cuda.synchronize()
    tmp = tempfile.mkdtemp()
    trace_path = os.path.join(tmp, name + ".json")
    sched = STEADY
    steps = sched["wait"] + sched["warmup"] + sched["active"] + 1
    kwargs = dict(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True, **options,
                  schedule=schedule(**sched), on_trace_ready=lambda p: p.export_chrome_trace(trace_path))
    walls = []
    with profile(**kwargs) as prof:
        for _ in range(steps):
            t0 = time.perf_counter()
            step()
            walls.append((time.perf_counter() - t0) * 1e3)
            prof.step()
    with open(trace_path, "rb") as src, gzip.open(os.path.join(outdir, name + ".json.gz"), "wb") as dst:
        shutil.copyfileobj(src, dst)
    averages = prof.key_averages()
    record_fixtures.write_oracle(outdir, name, sched, steps, WARM_CALLS, averages, dict(record_shapes=True, **options))
    try:
        import transformers
        tf_version = transformers.__version__
    except Exception:
        tf_version = None
    first = sched["wait"] + sched["warmup"]
    meta.update({
        "workload": name, "issue": 29,
        "recorded_by": "python3 tools/record_code_groups.py OUTDIR " + name,
        "date_utc": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "torch": torch.__version__, "cuda": torch.version.cuda, "transformers": tf_version,
        "python": platform.python_version(), "gpu": torch.cuda.get_device_name(0), "cpu_count": os.cpu_count(),
        "schedule": sched, "step_calls": steps, "warmup_calls_before_profiling": WARM_CALLS,
        "profiler_options": dict(record_shapes=True, **options),
        "profiled_step_names": [f"ProfilerStep#{i}" for i in range(first, first + sched["active"])],
        "step_wall_ms_per_call_incl_profiler": walls,
    })
    with open(os.path.join(outdir, name + ".meta.json"), "w") as f:
        json.dump(meta, f, indent=1, default=str)


def main():
    args = record_fixtures.recorder_args(sys.argv, CASES, record_one, "code_groups")
    if args is None:
        return
    outdir, names = args
    failed = record_fixtures.run_each(__file__, outdir, names, timeout_of=lambda n: CASE_TIMEOUT_S)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
