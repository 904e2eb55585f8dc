#!/usr/bin/env python3
"""Record the truth pairs of issue 43 for `whyslow diff A B`: two traces per pair and torch's own
numbers beside them, so tests can hold diff's window, one-off costs, steady step, break-even and
per-unit figures (docs/DIFF.md sections 4-7) to torch's.

On the GPU machine:  python3 tools/record_diff_pairs.py OUTDIR [NAME ...]
then:                python3 tools/record_diff_pairs.py --pack OUTDIR DEST   (record_fixtures.pack:
DEST/diff_pairs.tar, or .partNN pieces when too large to come back). --list and --help need no torch.

Each case runs in a fresh subprocess (record_fixtures.run_each), compiled ones with empty Inductor
and Triton caches of their own (cold compiles). TORCH_LOGS is taken out of the children's
environment (set, it makes torch._logging.set_logs a no-op): compiled cases call set_logs(
recompiles=True, graph_breaks=True, perf_hints=True) and keep what torch logs. No case starts after
TOTAL_BUDGET_S; asides run last, so a slow run drops them first. The parent writes OUTDIR/pairs.json
and OUTDIR/serving_break_even.json.

Per case NAME (and NAME_warm for "+warm" cases): NAME.json.gz (the trace torch exported, CPU + CUDA,
record_shapes=True), NAME.oracle.json (key_averages, record_fixtures.write_oracle), NAME.meta.json:
what was run (code, config, versions, GPU, date, profiler options) and torch's numbers. `calls`: each
profiled call (synchronize; t0 = perf_counter(); call(); synchronize; ms; prof.step() outside the
span), with epoch start/end and, for generate(), record_inference's per-forward truth (prefill and
decode entries, shapes); `unprofiled`: 50 calls without the profiler (record_what_if_pairs.
unprofiled), per prompt length too; `work_per_step`; compiled cases: Dynamo counters at each stage
and after each profiled call, compile_times(), compilation_metrics (recompile_reason), `compiles`
(each compile with its reason and the call it fell in), config, torch_logs, cudagraph_skip_messages;
graph counts (cudaGraphLaunch ...), the trace's ProfilerStep names, max_memory_allocated().

Cold ("cold": the serving cases): schedule(wait=0, warmup=0, active=5, repeat=1), nothing run before
the profiler, request k is ProfilerStep#k: compiles, recompiles and first-seen-length plan builds
land in the profiled steps. Then 50 unprofiled requests over the same lengths and, for "+warm", the
same 5 requests profiled again in the same process (NAME_warm). Steady (the rest): 3 warm-up calls
(compiled: 5), the 50 unprofiled, then schedule(wait=1, warmup=1, active=5, repeat=1) over 7 calls
(ProfilerStep#2..#6 kept). Every call ends with the timing's synchronize, inside its ProfilerStep.

| case                | what                                                                     | profiler   | est s |
|---------------------|--------------------------------------------------------------------------|------------|-------|
| serve_eager         | LlamaForCausalLM, random (h512, 4 layers, vocab 8000, bf16, sdpa), batch | cold +warm |  30   |
|                     | 1, one generate() per request, prompts 37,64,37,90,64 tokens, 16 new     |            |       |
| serve_compiled      | the same after model.forward = torch.compile(model.forward)              | cold +warm | 130   |
| serve_eager_stack   | serve_eager with with_stack=True                                         | cold stack |  40   |
| ro_skipped          | 3x(Linear(1024,1024)+GELU) b32 bf16, compile(mode="reduce-overhead") of  | steady     |  35   |
|                     | f(x): x.add_(1); model(x): CUDA graphs skipped (input mutated in place)  |            |       |
| ro_replayed         | the fix, f(x): model(x + 1): one graph replayed per call                 | steady     |  35   |
| train_fp32          | MLP 1024-4096-4096-1024 b256, cross-entropy, AdamW, fp32 (no TF32)       | steady     |  15   |
| train_bf16          | the same under torch.autocast("cuda", dtype=torch.bfloat16)              | steady     |  15   |
| copy_pageable       | 64 MB fp32 .to("cuda", non_blocking=True) from pageable memory           | steady     |  12   |
| copy_pinned         | the same from pin_memory() memory                                        | steady     |  12   |
| bert_b1             | BertModel, random (hidden 256, 4 layers, bf16, sdpa), seq 128, batch 1   | steady     |  18   |
| bert_b256           | the same, batch 256                                                      | steady     |  20   |
| aside_bert_b16      | the same, batch 16                                                       | steady     |  18   |
| aside_gen_prompt64  | serve_eager's model, batch 4, one generate() per step, prompt 64         | steady     |  25   |
| aside_gen_prompt256 | the same, prompt 256                                                     | steady     |  25   |
Total ~430 s (process start and imports included; serve_compiled holds ~50 s of cold compilation
in its profiled requests), guarded by TOTAL_BUDGET_S = 480.

| A                 | B                   | aside | checks                                                   |
|-------------------|---------------------|-------|----------------------------------------------------------|
| serve_eager       | serve_compiled      |       | window vs steady, one-off compiles by cause, break-even  |
| serve_eager       | serve_eager_stack   |       | same program, with_stack on B only: a recording caveat   |
| serve_eager_stack | serve_compiled      |       | options differ and B compiles (the issue's p = 0.857)    |
| serve_eager       | serve_compiled_warm |       | eager cold (first-seen-length plans) vs warmed-up compile|
| serve_eager_warm  | serve_compiled_warm |       | both warm: the steady gain                               |
| ro_skipped        | ro_replayed         |       | launches -> one CUDA graph replay; torch's skip reason   |
| train_fp32        | train_bf16          |       | GEMMs FP32 FFMA -> bf16 tensor cores; AdamW unchanged    |
| copy_pageable     | copy_pinned         |       | host-to-device bandwidth, pageable -> pinned             |
| bert_b1           | bert_b256           |       | per sample                                               |
| bert_b1           | aside_bert_b16      | aside | per sample                                               |
| aside_bert_b16    | bert_b256           | aside | per sample                                               |
| aside_gen_prompt64| aside_gen_prompt256 | aside | per prompt token                                         |

serving_break_even.json: ceil(one-off / (eager - compiled unprofiled median request)), the one-off
being torch's compile time or the compiled side's cold-minus-warm profiled window less eager's.

Not known before the first run (each meta file says what happened): how many compiles transformers'
forward costs (the issue saw 1 + 4 recompiles), serve_compiled's and serve_eager_stack's trace sizes
(record_fixtures.pack leaves the largest out, listed in dropped.txt, past 4 x 15.5 MiB), and whether a
torch version exports the steps the schedule names (trace_steps_as_expected; 1.13 is a step early).
"""
import contextlib, datetime, gzip, itertools, json, logging, math, os, re, shutil, sys, tempfile  # noqa: E401
import time, types  # noqa: E401  (no torch here: --help and --list run without it)

HERE, _T0 = os.path.dirname(os.path.abspath(__file__)), time.time()  # the budget counts from the start
PROG, PACK_NAME = "record_diff_pairs", "diff_pairs"
USAGE = (f"usage: python3 tools/{PROG}.py OUTDIR [NAME ...]\n       python3 tools/{PROG}.py --pack OUTDIR DEST\n"
         f"       python3 tools/{PROG}.py --list | --help")

# Set by _setup() in the processes that record: torch, and the recorders whose helpers we reuse
# (record_fixtures imports torch at its top, so none of them is imported for --help / --list).
torch = rf = rc = wp = ri = None

STEADY = dict(wait=1, warmup=1, active=5, repeat=1)  # 7 calls, ProfilerStep#2..#6 kept
COLD = dict(wait=0, warmup=0, active=5, repeat=1)    # 5 calls from the process's first, #0..#4 kept
WARMUP_CALLS, COMPILED_WARMUP_CALLS = 3, 5           # compiled: compile and CUDA-graph record done
TOTAL_BUDGET_S = 480                                 # + packing stays inside a 10-minute device call
MAX_LOG_RECORDS, MAX_LOG_CHARS = 400, 4000

LLAMA = dict(hidden_size=512, intermediate_size=1376, num_hidden_layers=4, num_attention_heads=8,
             num_key_value_heads=8, vocab_size=8000, max_position_embeddings=1024)
SERVE_LENGTHS = (37, 64, 37, 90, 64)  # a new length, another, a repeat, a longer one, a repeat
NEW_TOKENS = 16
GEN_KWARGS = dict(max_new_tokens=NEW_TOKENS, min_new_tokens=NEW_TOKENS, do_sample=False, pad_token_id=0)
GEN_BATCH = 4
BERT = dict(vocab_size=8000, hidden_size=256, num_hidden_layers=4, num_attention_heads=4,
            intermediate_size=1024, max_position_embeddings=512)
BERT_SEQ = 128
TRAIN_DIMS, TRAIN_BATCH = (1024, 4096, 4096, 1024), 256
COPY_FLOATS = 16 << 20  # 64 MB fp32


# ----------------------------------------------------------------------------- set-up
def _setup():
    """Imports torch and the recorders; their helpers read a module-level torch: hand them ours."""
    global torch, rf, rc, wp, ri
    if torch is not None:
        return
    try:
        import torch as _torch
    except ImportError as e:
        sys.exit(f"{PROG}: cannot import torch ({e}). Run it with the GPU machine's Python.\n{USAGE}")
    torch = _torch
    if HERE not in sys.path:
        sys.path.insert(0, HERE)
    import record_fixtures, record_compile, record_what_if_pairs, record_inference  # noqa: E401
    rf, rc, wp, ri = record_fixtures, record_compile, record_what_if_pairs, record_inference
    wp._import_torch()
    rc.torch = ri.torch = torch


def _need_gpu():
    _setup()
    if not torch.cuda.is_available():  # say so before any case starts, not 14 times
        sys.exit(f"{PROG}: recording needs an NVIDIA GPU; torch {torch.__version__} sees none. Nothing recorded.")


def _rf(name):
    return torch.profiler.record_function(name)


class _LogRecords(logging.Handler):
    """Keeps what torch logs (recompile reasons, graph breaks, CUDA-graph skips) as data."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.rows, self.state = [], {}

    def emit(self, r):
        if len(self.rows) < MAX_LOG_RECORDS:
            self.rows.append({"epoch_s": r.created, "logger": r.name, "level": r.levelname,
                              "msg": r.getMessage()[:MAX_LOG_CHARS]})  # an error here: logging's handleError


def _capture_logs():
    import torch._dynamo  # noqa: F401  (registers Dynamo's and Inductor's loggers before set_logs)
    import torch._inductor.config  # noqa: F401
    h = _LogRecords()
    try:
        torch._logging.set_logs(recompiles=True, graph_breaks=True, perf_hints=True)
        h.state["set_logs"] = "recompiles=True, graph_breaks=True, perf_hints=True"
    except Exception as e:
        h.state["set_logs"] = "failed: " + repr(e)[:300]
    # torch's registered loggers (torch._dynamo, torch._inductor, ...) do not propagate to their
    # parents, so the handler goes on each; the artifact loggers (perf_hints of
    # torch._inductor.cudagraph_utils, Dynamo's recompiles) propagate up to one of them.
    try:
        names = set(torch._logging._internal.log_registry.get_log_qnames())
    except Exception as e:
        names, h.state["log_registry"] = set(), "unavailable: " + repr(e)[:200]
    names |= {"torch", "torch._dynamo", "torch._inductor"}
    for n in sorted(names):
        logging.getLogger(n).addHandler(h)
    h.state["handler_on"] = sorted(names)
    return h


# ----------------------------------------------------------------------------- builders
# Each returns a spec: call(i) runs call i without synchronizing (the timing does), meta says what
# was run; generate() cases add per_call(i, out) (cheap copies, taken before prof.step()),
# finish(row) (their truth, after the loop) and lengths (call i's prompt: lengths[i % len]).

def _sdpa(cfg):
    with contextlib.suppress(Exception):  # as record_inference.case_generate; meta reads it back
        cfg._attn_implementation = "sdpa"
    return cfg


def generate(lengths, batch, compiled=False):
    from transformers import LlamaConfig, LlamaForCausalLM
    torch.manual_seed(0)
    with torch.device("cuda"):
        model = LlamaForCausalLM(_sdpa(LlamaConfig(**LLAMA)))
    model = model.to(torch.bfloat16).eval()
    clock = ri.ForwardClock(model)  # module hooks: outside what torch.compile compiles
    if compiled:
        model.forward = torch.compile(model.forward)  # the recipe users apply; default mode
    g = torch.Generator().manual_seed(1)
    prompts = {}
    for n in lengths:
        if n not in prompts:
            ids = torch.randint(0, LLAMA["vocab_size"], (batch, n), generator=g).to("cuda")
            prompts[n] = (ids, torch.ones_like(ids))

    def call(i):
        ids, mask = prompts[lengths[i % len(lengths)]]
        clock.reset()
        return model.generate(ids, attention_mask=mask, **GEN_KWARGS)

    def per_call(i, out):
        snap = types.SimpleNamespace(entries=list(clock.entries), exits=list(clock.exits), shapes=list(clock.shapes))
        row = {"prompt_len": lengths[i % len(lengths)], "_clock": snap, "_out": out}
        if compiled:
            row["dynamo_counters_after"] = rc.dynamo_counters()  # which request compiled, from torch
        return row

    def finish(row):
        out = row.pop("_out")
        row["new_token_ids_first_sequence"] = out[0, -NEW_TOKENS:].tolist()
        row["generate"] = ri._generate_truth(row.pop("_clock"), row["t0_ns"], row["t1_ns"], out, batch,
                                             row["prompt_len"])

    meta = {"model": "LlamaForCausalLM", "config": LLAMA, "dtype": "torch.bfloat16", "eval": True,
            "attn_implementation": getattr(model.config, "_attn_implementation", None),
            "weights": "random (torch.manual_seed(0), built on cuda)",
            "parameter_count": sum(p.numel() for p in model.parameters()),
            "batch": batch, "lengths": list(lengths), "prompt_of_call_i": "lengths[i % len(lengths)]",
            "prompts": "random token ids (torch.Generator().manual_seed(1)), attention_mask all ones",
            "generate_kwargs": GEN_KWARGS, "forward_hooks": "record_inference.ForwardClock on the model",
            "code": "out = model.generate(ids, attention_mask=mask, **generate_kwargs)" +
                    ("  # after model.forward = torch.compile(model.forward), default mode" if compiled else ""),
            "work_per_step": {"sequences": batch, "new_tokens": batch * NEW_TOKENS,
                              "prompt_tokens_of_call_i": [batch * n for n in lengths]}}
    return dict(call=call, per_call=per_call, finish=finish, meta=meta, lengths=list(lengths))


def ro_mlp(mutate):
    model = wp._mlp3()  # record_what_if_pairs' MLP: 3 x (Linear(1024, 1024) + GELU), bf16, eval
    x = torch.randn(wp.MLP_BATCH, wp.MLP_DIM, device="cuda", dtype=torch.bfloat16)
    if mutate:
        def f(x):
            x.add_(1.0)  # a graph input mutated in place: cudagraph trees skip the graph
            return model(x)
    else:
        def f(x):
            return model(x + 1.0)  # the fix: out of place, the whole call is one CUDA graph
    g = torch.compile(f, mode="reduce-overhead")

    def call(i):
        with torch.no_grad(), _rf("mlp_forward"):
            return g(x)
    body = "x.add_(1.0); return model(x)" if mutate else "return model(x + 1.0)"
    return dict(call=call, meta={
        "code": f"def f(x): {body}; g = torch.compile(f, mode='reduce-overhead'); with no_grad(), "
                "record_function('mlp_forward'): g(x)", "input_mutated_in_place": mutate,
        "model": "record_what_if_pairs._mlp3: Sequential(3 x [Linear(1024,1024), GELU()]) bf16 eval",
        "shapes": {"x": [wp.MLP_BATCH, wp.MLP_DIM]}, "dtype": "torch.bfloat16", "record_function": "mlp_forward",
        "torch_compile_kwargs": {"mode": "reduce-overhead"}, "work_per_step": {"samples": wp.MLP_BATCH}})


def train(bf16):
    nn, F = torch.nn, torch.nn.functional
    torch.manual_seed(0)
    d, L = TRAIN_DIMS, nn.Linear
    model = nn.Sequential(L(d[0], d[1]), nn.GELU(), L(d[1], d[2]), nn.GELU(), L(d[2], d[3])).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    x = torch.randn(TRAIN_BATCH, TRAIN_DIMS[0], device="cuda")
    y = torch.randint(0, TRAIN_DIMS[-1], (TRAIN_BATCH,), device="cuda")

    def call(i):
        with _rf("train_step"):
            opt.zero_grad(set_to_none=True)
            with torch.autocast("cuda", dtype=torch.bfloat16, enabled=bf16):
                logits = model(x)
            loss = F.cross_entropy(logits.float(), y)
            loss.backward()
            opt.step()
        return loss
    macs = sum(a * b for a, b in zip(TRAIN_DIMS, TRAIN_DIMS[1:]))
    return dict(call=call, meta={
        "code": "with record_function('train_step'): opt.zero_grad(set_to_none=True); with torch.autocast('cuda', "
                f"dtype=torch.bfloat16, enabled={bf16}): logits = model(x); loss = F.cross_entropy(logits.float(), "
                "y); loss.backward(); opt.step()",
        "model": "Linear(1024,4096) GELU Linear(4096,4096) GELU Linear(4096,1024), fp32 parameters",
        "optimizer": {"class": "AdamW", "defaults": rc._plain(opt.defaults)}, "autocast_bf16": bf16,
        "tf32_state": wp._tf32_state(), "record_function": "train_step",
        "shapes": {"x": [TRAIN_BATCH, TRAIN_DIMS[0]], "y": [TRAIN_BATCH]},
        "parameter_count": sum(p.numel() for p in model.parameters()),
        "work_per_step": {"samples": TRAIN_BATCH, "gemm_flops": 3 * 2 * TRAIN_BATCH * macs,
                          "gemm_flops_formula": "(forward + 2 backward) x 2 x batch x sum(in * out)"}})


def h2d_copy(pinned):
    torch.manual_seed(0)
    host = torch.randn(COPY_FLOATS)
    if pinned:
        host = host.pin_memory()

    def call(i):
        with _rf("upload"):
            d = host.to("cuda", non_blocking=True)
        with _rf("compute"):
            return (d * 2.0).sum()
    return dict(call=call, meta={
        "code": "with record_function('upload'): d = host.to('cuda', non_blocking=True); "
                "with record_function('compute'): (d * 2.0).sum()",
        "host": {"shape": [COPY_FLOATS], "dtype": "torch.float32", "pinned": host.is_pinned()},
        "work_per_step": {"bytes_host_to_device": 4 * COPY_FLOATS}})


def bert(batch):
    from transformers import BertConfig, BertModel
    torch.manual_seed(0)
    model = BertModel(_sdpa(BertConfig(**BERT))).to("cuda", torch.bfloat16).eval()
    ids = torch.randint(0, BERT["vocab_size"], (batch, BERT_SEQ), device="cuda")
    mask = torch.ones_like(ids)

    def call(i):
        with torch.no_grad(), _rf("encoder_forward"):
            return model(input_ids=ids, attention_mask=mask).last_hidden_state
    return dict(call=call, meta={
        "code": "with no_grad(), record_function('encoder_forward'): model(input_ids=ids, attention_mask=mask)"
                ".last_hidden_state", "model": "BertModel", "config": BERT, "dtype": "torch.bfloat16",
        "attn_implementation": getattr(model.config, "_attn_implementation", None), "eval": True,
        "weights": "random (torch.manual_seed(0))", "shapes": {"input_ids": [batch, BERT_SEQ]},
        "attention_mask": "all ones", "record_function": "encoder_forward",
        "parameter_count": sum(p.numel() for p in model.parameters()),
        "work_per_step": {"samples": batch, "tokens": batch * BERT_SEQ}})


# ----------------------------------------------------------------------------- the cases
def _case(build, est_s, cold=False, compiled=False, with_stack=False, warm_trace=False, timeout=90, note=None):
    return dict(build=build, est_s=est_s, cold=cold, compiled=compiled, with_stack=with_stack,
                warm_trace=warm_trace, timeout=timeout, note=note, sched=COLD if cold else STEADY,
                warm=0 if cold else (COMPILED_WARMUP_CALLS if compiled else WARMUP_CALLS))


ASIDE = "aside: never tune to it"
CASES = {  # in run order: the main pairs first, the asides last (the budget drops them first)
    "serve_eager": _case(lambda: generate(SERVE_LENGTHS, 1), 30, cold=True, warm_trace=True, timeout=150),
    "serve_compiled": _case(lambda: generate(SERVE_LENGTHS, 1, compiled=True), 130, cold=True, compiled=True,
                            warm_trace=True, timeout=400, note="compiles inside ProfilerStep#0..#4, cold caches"),
    "serve_eager_stack": _case(lambda: generate(SERVE_LENGTHS, 1), 40, cold=True, with_stack=True, timeout=180,
                               note="serve_eager recorded with with_stack=True: a different-options pair"),
    "ro_skipped": _case(lambda: ro_mlp(True), 35, compiled=True, timeout=180,
                        note="CUDA graphs skipped: cudagraph_skip_messages and torch_logs hold torch's reason; "
                             "x grows by 1 each call (the mutation is the point)"),
    "ro_replayed": _case(lambda: ro_mlp(False), 35, compiled=True, timeout=180),
    "train_fp32": _case(lambda: train(False), 15),
    "train_bf16": _case(lambda: train(True), 15),
    "copy_pageable": _case(lambda: h2d_copy(False), 12),
    "copy_pinned": _case(lambda: h2d_copy(True), 12),
    "bert_b1": _case(lambda: bert(1), 18),
    "bert_b256": _case(lambda: bert(256), 20),
    "aside_bert_b16": _case(lambda: bert(16), 18, note=ASIDE),
    "aside_gen_prompt64": _case(lambda: generate((64,), GEN_BATCH), 25, note=ASIDE),
    "aside_gen_prompt256": _case(lambda: generate((256,), GEN_BATCH), 25, note=ASIDE),
}

# (A, B, aside, what it checks); NAME_warm come from the "+warm" cases' processes
PAIRS = [
    ("serve_eager", "serve_compiled", False, "window vs steady, one-off compiles by cause, break-even"),
    ("serve_eager", "serve_eager_stack", False, "same program, with_stack on B only: a recording caveat"),
    ("serve_eager_stack", "serve_compiled", False, "options differ and B compiles (the issue's p = 0.857)"),
    ("serve_eager", "serve_compiled_warm", False, "eager cold (first-seen-length plans) vs warmed-up compile"),
    ("serve_eager_warm", "serve_compiled_warm", False, "both warm: the steady gain"),
    ("ro_skipped", "ro_replayed", False, "launches -> one CUDA graph replay; torch's skip reason"),
    ("train_fp32", "train_bf16", False, "GEMMs FP32 FFMA -> bf16 tensor cores; AdamW unchanged"),
    ("copy_pageable", "copy_pinned", False, "host-to-device bandwidth, pageable -> pinned"),
    ("bert_b1", "bert_b256", False, "per sample"),
    ("bert_b1", "aside_bert_b16", True, "per sample"),
    ("aside_bert_b16", "bert_b256", True, "per sample"),
    ("aside_gen_prompt64", "aside_gen_prompt256", True, "per prompt token"),
]


def pairs_json():
    return [{"a": a, "b": b, "aside": s, "what": w, "whyslow": f"whyslow diff {a}.json.gz {b}.json.gz"}
            for a, b, s, w in PAIRS]


def listing():
    out = [f"{'case':20s} {'est s':>5s} {'timeout':>7s}  profiler"]
    for n, c in CASES.items():
        how = ["cold" if c["cold"] else "steady"] + [w for w, on in (("+warm", c["warm_trace"]), (
            "with_stack", c["with_stack"]), ("compiled", c["compiled"])) if on]
        out.append(f"{n:20s} {c['est_s']:5d} {c['timeout']:7d}  {', '.join(how)}")
    out.append(f"estimated total {sum(c['est_s'] for c in CASES.values())} s; TOTAL_BUDGET_S {TOTAL_BUDGET_S}")
    out.append(f"\n{'A':20s} {'B':20s} {'aside':5s}  checks")
    return "\n".join(out + [f"{a:20s} {b:20s} {'aside' if s else '':5s}  {w}" for a, b, s, w in PAIRS])


# ----------------------------------------------------------------------------- one case (child)
def _timed(call, i):
    torch.cuda.synchronize()  # the GPU is idle at t0 (the previous call synchronized already)
    epoch, t0 = time.time(), time.perf_counter_ns()
    out = call(i)
    torch.cuda.synchronize()
    t1 = time.perf_counter_ns()
    return {"call": i, "ms": (t1 - t0) / 1e6, "t0_ns": t0, "t1_ns": t1, "epoch_s": epoch,
            "epoch_end_s": time.time()}, out


def _profiled_loop(spec, first, sched, options, trace_path):
    from torch.profiler import ProfilerActivity, profile, schedule
    rows = []
    # NO_SCHEDULE: the profiler around the calls, no schedule, no prof.step() (no ProfilerStep in the
    # trace), exported as the context ends: how a user profiles one request.
    plain = sched.get("no_schedule", False)
    scheduled = {} if plain else dict(schedule=schedule(**sched), on_trace_ready=lambda p: p.export_chrome_trace(trace_path))
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], **scheduled, **options) as prof:
        for i in range(first, first + sched["wait"] + sched["warmup"] + sched["active"]):
            row, out = _timed(spec["call"], i)
            row.update(spec["per_call"](i, out) if "per_call" in spec else {})
            rows.append(row)
            if not plain:
                prof.step()
    if plain:
        prof.export_chrome_trace(trace_path)
    torch.cuda.synchronize()
    for row in rows:
        if "finish" in spec:
            spec["finish"](row)
        del row["t0_ns"], row["t1_ns"]
    return rows, prof


def _unprofiled(spec, first, when):
    ids = itertools.count(first)
    u = wp.unprofiled(lambda: spec["call"](next(ids)), when)  # 50 calls, no profiler
    u["first_call"] = first
    if "lengths" in spec:
        ls, by = spec["lengths"], {}
        for k, ms in enumerate(u["wall_ms"]):
            by.setdefault(str(ls[(first + k) % len(ls)]), []).append(ms)
        u["by_prompt_len"] = {n: wp.stats(v) for n, v in by.items()}
    return u


def _call_of(epoch, rows):
    return next((r["call"] for r in rows if isinstance(epoch, (int, float))
                 and r["epoch_s"] <= epoch <= r["epoch_end_s"]), None)


def _compiles(metrics, rows):
    """Each compile: a recompile (id F/R, R > 0) or not, its reason, the call holding its start_time."""
    if not isinstance(metrics, list):
        return metrics
    ev = []
    for m in metrics:
        fr = re.search(r"(\d+)/(\d+)", str(m.get("compile_id")))
        ev.append({"compile_id": m.get("compile_id"), "recompile": bool(fr and int(fr.group(2)) > 0),
                   "recompile_reason": m.get("recompile_reason"), "call": _call_of(m.get("start_time"), rows),
                   "entire_frame_compile_time_s": m.get("entire_frame_compile_time_s")})
    return {"compiles": len(ev), "recompiles": sum(e["recompile"] for e in ev), "events": ev,
            "total_entire_frame_compile_time_s": sum(e["entire_frame_compile_time_s"] or 0 for e in ev)}


def _write(outdir, name, case, spec, sched, options, rows, prof, trace_path, extra):
    gz = os.path.join(outdir, name + ".json.gz")
    with open(trace_path, "rb") as src, gzip.open(gz, "wb") as dst:
        shutil.copyfileobj(src, dst)
    averages = prof.key_averages()
    opts = dict(options, activities=["CPU", "CUDA"], profile_memory=False)
    rf.write_oracle(outdir, name, sched, len(rows), extra["warmup_calls_before_profiling"], averages, opts)
    first = sched["wait"] + sched["warmup"]
    kept = [r["ms"] for r in rows[first:first + sched["active"]]]
    names = [] if sched.get("no_schedule") else [f"ProfilerStep#{i}" for i in range(first, first + sched["active"])]
    trace = rc.trace_facts(trace_path)
    trace["profiler_steps"] = sorted(trace["profiler_steps"], key=wp._step_number)  # trace_facts sorts as text
    if trace["profiler_steps"] != names:
        print(f"{PROG}: WARNING {name}: the trace holds {trace['profiler_steps']}, the schedule says {names}")
    graphs = rc.graph_counts(averages)
    tf = sys.modules.get("transformers")
    meta = {**spec["meta"], **{
        "workload": name, "note": case["note"], "pairs": [p for p in pairs_json() if name in (p["a"], p["b"])],
        "recorded_by": f"python3 tools/{PROG}.py OUTDIR {extra['case']}", **wp.versions(),
        "transformers": getattr(tf, "__version__", None) if tf else "not imported",
        "env": {k: os.environ.get(k) for k in ("TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR", "TORCH_LOGS",
                                               "CUDA_MODULE_LOADING", "CUDA_VISIBLE_DEVICES")},
        "schedule": sched, "step_calls": len(rows), "profiler_options": opts, "profiled_step_names": names,
        "timing": "torch.cuda.synchronize(); t0 = perf_counter(); call(); torch.cuda.synchronize(); ms = "
                  "perf_counter() - t0; prof.step() outside the span, the synchronize inside the call's "
                  "ProfilerStep; profiled calls include the profiler's overhead",
        "calls": rows, "step_wall_ms_per_call_incl_profiler": [r["ms"] for r in rows],
        "profiled_step_wall_ms": kept, "profiled_step_stats": wp.stats(kept),
        "window_wall_ms_profiled_steps": sum(kept),
        "graph_counts_key_averages": graphs,
        "cudaGraphLaunch_per_profiled_step": graphs["cudaGraphLaunch"] / sched["active"],
        "trace": trace, "trace_steps_as_expected": trace["profiler_steps"] == names,
        "trace_json_bytes": os.path.getsize(trace_path), "trace_gz_bytes": os.path.getsize(gz)}, **extra}
    with open(os.path.join(outdir, name + ".meta.json"), "w") as f:
        json.dump(meta, f, indent=1, default=str)


def record_one(name, outdir):
    _need_gpu()
    case = CASES[name]
    compiled, sched, cold = case["compiled"], case["sched"], case["cold"]
    date = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    logs = _capture_logs() if compiled else None
    config_default = rc.config_snapshot() if compiled else None
    torch.cuda.init()
    torch.zeros(1, device="cuda")  # CUDA context exists before profiling, as in real programs
    spec = case["build"]()
    options = dict(record_shapes=True, with_stack=case["with_stack"])
    dyn, tmp = {}, tempfile.mkdtemp()

    def mark(key):
        if compiled:
            dyn[key] = rc.dynamo_counters()

    mark("at_start")
    warm_rows = [{k: v for k, v in _timed(spec["call"], i)[0].items() if not k.endswith("_ns")}
                 for i in range(case["warm"])]
    k = len(warm_rows)  # the index of the next call: warm-up, unprofiled, profiled, in run order
    mark("after_warmup")
    if not cold:
        unprof = _unprofiled(spec, k, "after the warm-up calls, before the profiler")
        k += unprof["n"]
        mark("before_profiled_loop")
    mem_before = torch.cuda.max_memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    trace_path = os.path.join(tmp, name + ".json")
    rows, prof = _profiled_loop(spec, k, sched, options, trace_path)
    k += len(rows)
    mem_profiled = torch.cuda.max_memory_allocated()
    mark("after_profiled_loop")
    if cold:
        unprof = _unprofiled(spec, k, "after the profiled loop (whose calls are the process's first)")
        k += unprof["n"]
        mark("after_unprofiled")
    if case["warm_trace"]:  # the same requests again, warm, same process and profiler options
        warm_path = os.path.join(tmp, name + "_warm.json")
        w_rows, w_prof = _profiled_loop(spec, k, sched, options, warm_path)
        mark("after_warm_profiled_loop")

    extra = {"case": name, "date_utc": date, "warmup_calls_before_profiling": case["warm"],
             "warmup_calls": warm_rows, "warmup_wall_ms": [r["ms"] for r in warm_rows], "unprofiled": unprof,
             "max_memory_allocated_bytes_before_profiled_loop": mem_before,
             "max_memory_allocated_bytes_profiled_loop": mem_profiled}
    if compiled:
        metrics, seen = rc.compilation_metrics(), warm_rows + rows
        unprof_span = ("after_profiled_loop", "after_unprofiled") if cold else ("after_warmup", "before_profiled_loop")
        extra.update({
            "dynamo_counters": dyn,
            "dynamo_counters_delta_warmup": rc.counters_delta(dyn["at_start"], dyn["after_warmup"]),
            "dynamo_counters_delta_unprofiled": rc.counters_delta(dyn[unprof_span[0]], dyn[unprof_span[1]]),
            "dynamo_counters_delta_profiled_loop": rc.counters_delta(
                dyn["after_warmup" if cold else "before_profiled_loop"], dyn["after_profiled_loop"]),
            "compile_times": rc.compile_times(), "compilation_metrics": metrics, "compiles": _compiles(metrics, seen),
            "config_before_case": config_default, "config_in_effect": rc.config_snapshot(),
            "caches": "fresh empty TORCHINDUCTOR_CACHE_DIR and TRITON_CACHE_DIR: every compile is cold",
            "torch_logs_setup": logs.state,
            "torch_logs": [dict(r, call=_call_of(r["epoch_s"], seen)) for r in logs.rows],
            "cudagraph_skip_messages": [r["msg"] for r in logs.rows if "skipping cudagraphs" in r["msg"]],
            "perf_hints": [r["msg"] for r in logs.rows if "perf_hints" in r["logger"]]})
    _write(outdir, name, case, spec, sched, options, rows, prof, trace_path, extra)
    if case["warm_trace"]:
        w_extra = dict(extra, warmup_calls_before_profiling=k, note=(
            f"{name} warmed up: the same process after its {len(rows)} cold profiled requests and {unprof['n']} "
            "unprofiled ones; the same requests and profiler options. unprofiled, warmup_* and dynamo_* are "
            f"{name}'s"))
        if compiled:
            w_extra["dynamo_counters_delta_this_loop"] = rc.counters_delta(dyn["after_unprofiled"],
                                                                           dyn["after_warm_profiled_loop"])
            w_extra["compiles_in_this_loop"] = _compiles(extra["compilation_metrics"], w_rows)
        _write(outdir, name + "_warm", case, spec, sched, options, w_rows, w_prof, warm_path, w_extra)
    shutil.rmtree(tmp, ignore_errors=True)


# ----------------------------------------------------------------------------- parent
def _meta(outdir, name):
    try:
        with open(os.path.join(outdir, name + ".meta.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def serving_break_even(outdir):
    """torch's break-even of the serving pair from the meta files (definitions in the output)."""
    e, c, ew, cw = (_meta(outdir, n) for n in ("serve_eager", "serve_compiled", "serve_eager_warm",
                                               "serve_compiled_warm"))
    if not (e and c):
        return None
    saving = e["unprofiled"]["median"] - c["unprofiled"]["median"]
    win = "window_wall_ms_profiled_steps"
    xe = e[win] - ew[win] if ew else None
    xc = c[win] - cw[win] if cw else None
    compile_s = (c.get("compiles") or {}).get("total_entire_frame_compile_time_s")
    one_off = {"compile_time_torch_ms": None if compile_s is None else compile_s * 1e3,
               "profiled_extra_compiled_less_eager_ms": None if xe is None or xc is None else xc - xe}
    out = {"eager_unprofiled_median_ms": e["unprofiled"]["median"], "saving_per_request_ms": saving,
           "compiled_unprofiled_median_ms": c["unprofiled"]["median"],
           "window_ms": {"eager": e[win], "compiled": c[win]},
           "extra_over_own_warm_trace_ms": {"eager": xe, "compiled": xc},
           "compiles": {k: (c.get("compiles") or {}).get(k) for k in ("compiles", "recompiles")},
           "one_off_ms": one_off,
           "break_even_requests": {k: None if v is None else "never" if saving <= 0 else max(0, math.ceil(v / saving))
                                   for k, v in one_off.items()},
           "definitions": "saving: eager - compiled median of 50 unprofiled warm requests; compile_time_torch: sum "
                          "of entire_frame_compile_time_s; profiled_extra: compiled's cold - warm profiled window (the "
                          "same 5 requests and profiler) less eager's; requests = ceil(one-off / saving)"}
    with open(os.path.join(outdir, "serving_break_even.json"), "w") as f:
        json.dump(out, f, indent=1)
    return out


def summary(outdir, names):
    print(f"\n{'output':22s} {'profiled ms per step':36s} {'unprof med':>10s} {'graphs/step':>11s}  compiles/re")
    for name in [n for c in names for n in ((c, c + "_warm") if CASES[c]["warm_trace"] else (c,))]:
        m = _meta(outdir, name)
        if m is None:
            print(f"{name:22s} (no meta)")
            continue
        steps, cm = " ".join("%.1f" % x for x in m["profiled_step_wall_ms"]), m.get("compiles") or {}
        print(f"{name:22s} {steps[:36]:36s} {(m.get('unprofiled') or {}).get('median', float('nan')):10.2f} "
              f"{m['cudaGraphLaunch_per_profiled_step']:11.1f}  {cm.get('compiles', '-')}/{cm.get('recompiles', '-')} "
              f"{(m.get('cudagraph_skip_messages') or [''])[0][:60]}")
    be = serving_break_even(outdir)
    if be:
        print(f"\nserving break-even (requests): {json.dumps(be['break_even_requests'])}; saving per request "
              f"{be['saving_per_request_ms']:.2f} ms; one-off ms {json.dumps(be['one_off_ms'])}")


def _usage_error(msg):
    sys.exit(f"{PROG}: {msg}\n{USAGE}")


def main(argv=None):
    argv = list(sys.argv if argv is None else argv)
    if len(argv) < 2:
        _usage_error("missing OUTDIR (see --help)")
    if argv[1] in ("-h", "--help", "--list"):
        try:
            print(__doc__ if argv[1] != "--list" else listing())
        except BrokenPipeError:  # `--help | head`
            sys.stderr.close()
        return 0
    if argv[1] == "--pack" and (len(argv) != 4 or not os.path.isdir(argv[2])):
        _usage_error("--pack takes OUTDIR (an existing directory) and DEST")
    if argv[1].startswith("-") and argv[1] != "--pack":
        _usage_error(f"unknown option {argv[1]!r}")
    if len(argv) > 2 and argv[2] == "--one" and (len(argv) != 4 or argv[3] not in CASES):
        _usage_error(f"--one takes one case NAME; known: {', '.join(CASES)}")
    if argv[1] == "--pack":
        os.makedirs(argv[3], exist_ok=True)
    _setup()
    args = rf.recorder_args(argv, CASES, record_one, PACK_NAME)  # --pack, --one, or (OUTDIR, names) checked
    if args is None:
        return 0
    outdir, names = args
    _need_gpu()
    if any(CASES[n]["compiled"] for n in names) and not hasattr(torch, "compile"):
        sys.exit(f"{PROG}: the compiled cases need torch.compile (torch >= 2.0); torch {torch.__version__} has none")
    with open(os.path.join(outdir, "pairs.json"), "w") as f:
        json.dump({"pairs": pairs_json(), "schedule_steady": STEADY, "schedule_cold": COLD,
                   "serve_lengths": SERVE_LENGTHS, "unprofiled_calls": wp.UNPROFILED_STEPS}, f, indent=1)
    cache_root = tempfile.mkdtemp(prefix="record_diff_pairs_caches_")

    def env_of(name):
        env = dict(os.environ, PYTHONUNBUFFERED="1", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
        env.pop("TORCH_LOGS", None)  # set, it turns torch._logging.set_logs into a no-op
        if CASES[name]["compiled"]:
            env["TORCHINDUCTOR_CACHE_DIR"] = os.path.join(cache_root, name, "inductor")
            env["TRITON_CACHE_DIR"] = os.path.join(cache_root, name, "triton")
        return env

    failed = rf.run_each(__file__, outdir, names, timeout_of=lambda n: CASES[n]["timeout"], env_of=env_of,
                         budget_s=TOTAL_BUDGET_S - (time.time() - _T0))
    shutil.rmtree(cache_root, ignore_errors=True)
    summary(outdir, names)
    print("failed:", " ".join(failed) if failed else "none")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
