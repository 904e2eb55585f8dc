#!/usr/bin/env python3
"""Record the H200 traces of issue 44 (classes 5-11): workloads no rule was written for, each with
torch's own numbers beside it, so each class's rule is judged on a trace that shows it and, where a
fix exists, on the trace recorded after the fix.

On the GPU machine:  python3 tools/record_truth_round3.py OUTDIR [NAME ...]
then:                python3 tools/record_truth_round3.py --pack OUTDIR DEST
--list and --help need no torch.

The machinery is record_diff_pairs.py's (record_one, the meta files, the cold and steady schedules,
Dynamo counters and torch's logged CUDA-graph skip reasons for compiled cases): this file only adds
the cases, so every meta file has the same fields as the diff pairs' (docs there).

| case                 | class | what                                                                  | profiler        |
|----------------------|-------|-----------------------------------------------------------------------|-----------------|
| cold_convnet         | 5     | 8-layer conv net fp32 b8 224x224, eval, profiled from the first call  | cold            |
| sdpa_cudnn_lengths   | 6     | 4-layer attention stack bf16, SDPA forced to cuDNN, prompt lengths    | cold, 8 calls   |
|                      |       | 37 64 37 90 128 64 200 90 (five new lengths, three repeats)           |                 |
| sdpa_math_fallback   | 6     | the same stack, flash/efficient/cuDNN disabled: SDPA's math path      | steady          |
| ro_skip_mutated      | 7     | reduce-overhead, input mutated in place, with_stack                   | steady, stack   |
| ro_skip_cpu          | 7     | reduce-overhead, a CPU tensor input copied inside the graph, stack    | steady, stack   |
| ro_partition         | 7     | reduce-overhead, graph_partition=True, a CPU op between GPU parts     | steady, stack   |
| inductor_user_cache  | 8     | default-mode compile of a pointwise block called 64x in a Python loop,| steady, stack   |
|                      |       | TORCHINDUCTOR_CACHE_DIR=<cwd>/compile_cache (a folder the user chose)  |                 |
| item_readback        | 9     | MLP scores, then postprocess(): .item() on each of 128 scores         | steady, stack   |
| item_readback_fixed  | 9     | the fix: one .tolist()                                                | steady, stack   |
| dlrm_adam            | 10    | embedding tables + MLP, compiled forward, Adam (foreach, the default) | steady          |
| dlrm_adam_fused      | 10    | the fix: Adam(fused=True)                                             | steady          |
| aside_eval_dropout   | 11    | BertModel left in train() mode under no_grad (dropout active)         | steady (aside)  |
| first_inference_     | 5     | cold_convnet's model, one request from the process's first call, no   | one request,    |
|   convnet            |       | schedule (no ProfilerStep); then the same request warm (NAME_warm)    | +warm           |
| aside_first_         | 5     | BertModel (bert-base config, random weights) fp32 eval, batch 8 x 128 | one request,    |
|   inference_bert     |       | tokens, as first_inference_convnet                                    | +warm (aside)   |
| coalesce_recorded    | 2     | one stream: relu(x @ w1), a 50,000-entry sparse COO tensor built and  | steady          |
|                      |       | coalesced on the CPU every call, copied up, sparse.mm, sum().item()   |                 |
| coalesce_once_       | 2     | the fix: the tensor built and coalesced once before the loop          | steady          |
|   recorded           |       |                                                                       |                 |
| aside_first_         | 5     | transformers GPT2Model (gpt2 config, random weights) fp32 eval, batch | one request,    |
|   inference_gpt2     |       | 4 x 64 tokens, as first_inference_convnet                             | +warm (aside)   |
| stepless_resnet_loop | 5     | a stem conv and 4 identical residual blocks (64 ch, 56x56) fp32 eval, | 6 calls from    |
|                      |       | batch 16, 6 calls in one trace from the process's first, no schedule  | the first       |
| aside_stepless_      | 5     | an MLP trained 8 steps from the process's first (batch made on the    | 8 calls from    |
|   train_loop         |       | CPU, copied up, AdamW), no schedule                                   | the first, aside|
| first_inference_     | 5     | cold_convnet's model under torch.compile (default mode), one request  | one request,    |
|   compiled           |       | from the process's first call                                         | +warm           |
| first_inference_     | 5     | cold_convnet's model with torch.backends.cudnn.benchmark = True, one  | one request,    |
|   cudnn_benchmark    |       | request from the process's first call                                 | +warm           |
| cpu_gather_upload    | 2     | each call: x_cpu[:, ::2].to("cuda") (a 64 MB strided gather on the    | steady          |
|                      |       | CPU inside aten::to, then the upload), a matmul, .sum().item()        |                 |
"""
import contextlib, importlib.util, os, sys, tempfile, time  # noqa: E401

HERE = os.path.dirname(os.path.abspath(__file__))
PROG, PACK_NAME = "record_truth_round3", "truth_round3"
TOTAL_BUDGET_S = 540  # the cases stop starting past it: one 10-minute device call with the packing

_spec = importlib.util.spec_from_file_location("record_diff_pairs", os.path.join(HERE, "record_diff_pairs.py"))
dp = importlib.util.module_from_spec(_spec)
sys.modules["record_diff_pairs"] = dp
_spec.loader.exec_module(dp)

COLD8 = dict(wait=0, warmup=0, active=8, repeat=1)
ONE_REQUEST = dict(wait=0, warmup=0, active=1, repeat=1, no_schedule=True)  # see dp._profiled_loop
SIX_CALLS = dict(wait=0, warmup=0, active=6, repeat=1, no_schedule=True)
GATHER = dict(rows=8192, cols=4096, out=1024)
COALESCE = dict(nodes=4096, features=256, hidden=64, entries=50_000)
SDPA_LENGTHS = (37, 64, 37, 90, 128, 64, 200, 90)
ATTN = dict(layers=4, dim=512, heads=8)
READBACK_SCORES = 128
DLRM = dict(tables=8, rows=200_000, dim=64, batch=2048, bag=20, mlp=(512, 512, 256))
LOOP_CALLS = 64


def _torch():
    dp._setup()
    return dp.torch


# ----------------------------------------------------------------------------- builders
def cold_convnet(compiled=False, benchmark=False):
    torch = _torch()
    nn = torch.nn
    torch.backends.cudnn.benchmark = benchmark
    torch.manual_seed(0)
    chans, layers, c_in = (32, 64, 64, 128, 128, 256, 256, 512), [], 3
    for k, c in enumerate(chans):
        layers += [nn.Conv2d(c_in, c, 3, stride=2 if k % 2 == 0 else 1, padding=1), nn.BatchNorm2d(c), nn.ReLU()]
        c_in = c
    model = nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(c_in, 1000)).cuda().eval()
    if compiled:
        model = torch.compile(model)
    x = torch.randn(8, 3, 224, 224, device="cuda")

    def call(i):
        with torch.no_grad(), dp._rf("inference"):
            return model(x)
    return dict(call=call, meta={
        "code": "with no_grad(), record_function('inference'): model(x)", "class": 5,
        "model": f"8 x [Conv2d 3x3 (stride 2 on even layers), BatchNorm2d, ReLU], channels {chans}, "
                 "AdaptiveAvgPool2d, Linear(512, 1000); fp32, eval", "shapes": {"x": [8, 3, 224, 224]},
        "cudnn_benchmark": torch.backends.cudnn.benchmark, "compiled": compiled, "work_per_step": {"samples": 8},
        "expected": "the first call pays cuDNN's and the kernels' first-use costs; later calls are warm"})


def transformers_first_inference(family, batch, tokens, expected):
    """One request to transformers' FAMILYModel(FAMILYConfig()) (random weights, fp32, eval)."""
    torch = _torch()
    import transformers
    cfg = getattr(transformers, family + "Config")()  # bert-base, gpt2: 12 layers, hidden 768
    torch.manual_seed(0)
    model = getattr(transformers, family + "Model")(cfg).cuda().eval()
    ids = torch.randint(0, cfg.vocab_size, (batch, tokens), device="cuda")

    def call(i):
        with torch.no_grad(), dp._rf("inference"):
            return model(input_ids=ids).last_hidden_state
    return dict(call=call, meta={
        "code": "with no_grad(), record_function('inference'): model(input_ids=ids)", "class": 5,
        "model": f"transformers {family}Model({family}Config()), random weights, fp32, eval",
        "shapes": {"input_ids": [batch, tokens]}, "work_per_step": {"samples": batch, "tokens": batch * tokens},
        "expected": expected})


def resnet_loop():
    torch = _torch()
    nn = torch.nn
    torch.manual_seed(0)

    class Block(nn.Module):
        def __init__(self, c):
            super().__init__()
            self.c1, self.b1 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)
            self.c2, self.b2 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)

        def forward(self, x):
            return torch.relu(x + self.b2(self.c2(torch.relu(self.b1(self.c1(x))))))
    model = nn.Sequential(nn.Conv2d(3, 64, 7, stride=4, padding=3), nn.BatchNorm2d(64), nn.ReLU(),
                          *[Block(64) for _ in range(4)], nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                          nn.Linear(64, 10)).cuda().eval()
    x = torch.randn(16, 3, 224, 224, device="cuda")

    def call(i):
        with torch.no_grad():
            return model(x)
    return dict(call=call, meta={
        "code": "for i in range(6): with no_grad(): model(x)   (profiler around the loop, no schedule)", "class": 5,
        "model": "Conv2d(3, 64, 7, stride 4), BatchNorm2d, ReLU, 4 x residual block [Conv2d 3x3, BN, ReLU, Conv2d 3x3, "
                 "BN, add, ReLU] at 64 ch 56x56, AdaptiveAvgPool2d, Linear(64, 10); fp32, eval",
        "shapes": {"x": [16, 3, 224, 224]}, "work_per_step": {"samples": 16},
        "expected": "six calls of one model: a loop whose first iteration pays first use, the rest warm"})


def train_loop():
    torch = _torch()
    nn = torch.nn
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(512, 2048), nn.GELU(), nn.Linear(2048, 2048), nn.GELU(), nn.Linear(2048, 10)).cuda()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    gen = torch.Generator().manual_seed(1)

    def call(i):
        x, y = torch.randn(256, 512, generator=gen), torch.randint(0, 10, (256,), generator=gen)
        loss = nn.functional.cross_entropy(model(x.cuda()), y.cuda())
        opt.zero_grad()
        loss.backward()
        opt.step()
        return loss.item()
    return dict(call=call, meta={
        "code": "for i in range(8): x, y made on the CPU; loss = ce(model(x.cuda()), y.cuda()); zero_grad; backward; "
                "AdamW step; loss.item()   (profiler around the loop, no schedule)", "class": 5,
        "model": "MLP 512-2048-2048-10, GELU, fp32, AdamW", "shapes": {"x": [256, 512]}, "work_per_step": {"samples": 256},
        "expected": "eight training steps: a loop whose first iteration pays first use, the rest warm"})


def gather_upload():
    torch = _torch()
    torch.manual_seed(0)
    r, c, o = GATHER["rows"], GATHER["cols"], GATHER["out"]
    x_cpu, w = torch.randn(r, c), torch.randn(c // 2, o, device="cuda")

    def call(i):
        with torch.no_grad():
            xb = x_cpu[:, ::2].to("cuda")  # strided: the CPU gathers it into a contiguous buffer first
            return (xb @ w).sum().item()
    return dict(call=call, meta={
        "class": 2, "code": 'xb = x_cpu[:, ::2].to("cuda"); (xb @ w).sum().item()',
        "shapes": {"x_cpu": [r, c], "w": [c // 2, o]}, "work_per_step": {"samples": r},
        "expected": "each call's CPU time is mostly the strided gather on the CPU inside aten::to (CPU work, "
                    "not dispatch), then the upload from pageable memory"})


def coalesce(once):
    torch = _torch()
    torch.manual_seed(0)
    n, f, h, nnz = COALESCE["nodes"], COALESCE["features"], COALESCE["hidden"], COALESCE["entries"]
    x, w1 = torch.randn(n, f, device="cuda"), torch.randn(f, h, device="cuda")
    idx, val = torch.randint(0, n, (2, nnz)), torch.randn(nnz)
    built = torch.sparse_coo_tensor(idx, val, (n, n)).coalesce() if once else None

    def call(i):
        with torch.no_grad():
            hid = torch.relu(x @ w1)
            adj = built if once else torch.sparse_coo_tensor(idx, val, (n, n)).coalesce()
            y = torch.relu(torch.sparse.mm(adj.to("cuda"), hid))
            return y.sum().item()
    return dict(call=call, meta={
        "class": 2, "fixed": once, "code": (
            "h = relu(x @ w1); adj = " + ("<built and coalesced once before the loop>" if once else
                                          "sparse_coo_tensor(idx, val, (n, n)).coalesce()") +
            "; y = relu(sparse.mm(adj.to('cuda'), h)); y.sum().item()"),
        "shapes": {"x": [n, f], "w1": [f, h], "idx": [2, nnz], "val": [nnz]}, "work_per_step": {"samples": n},
        "expected": "each call's CPU coalesce holds most of the step, one stream, no stream waits" if not once
                    else "the coalesce gone from the steps"})


def _attention_stack():
    torch = _torch()
    nn, F = torch.nn, torch.nn.functional
    d, h = ATTN["dim"], ATTN["heads"]

    class Block(nn.Module):
        def __init__(self):
            super().__init__()
            self.qkv, self.out, self.ff = nn.Linear(d, 3 * d), nn.Linear(d, d), nn.Linear(d, d)

        def forward(self, x):
            b, n, _ = x.shape
            q, k, v = self.qkv(x).view(b, n, 3, h, d // h).permute(2, 0, 3, 1, 4)
            a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.out(a.transpose(1, 2).reshape(b, n, d))
            return x + F.gelu(self.ff(x))
    torch.manual_seed(0)
    return nn.Sequential(*[Block() for _ in range(ATTN["layers"])]).to("cuda", torch.bfloat16).eval()


def sdpa_lengths(backend):
    torch = _torch()
    from torch.nn.attention import SDPBackend, sdpa_kernel
    model = _attention_stack()
    lengths = SDPA_LENGTHS if backend == "cudnn" else (128,)
    xs = {n: torch.randn(1, n, ATTN["dim"], device="cuda", dtype=torch.bfloat16) for n in lengths}
    which = [SDPBackend.CUDNN_ATTENTION] if backend == "cudnn" else [SDPBackend.MATH]

    def call(i):
        with torch.no_grad(), sdpa_kernel(which), dp._rf("attention_stack"):
            return model(xs[lengths[i % len(lengths)]])
    return dict(call=call, lengths=list(lengths), meta={
        "class": 6, "code": f"with no_grad(), sdpa_kernel([{which[0]}]), record_function('attention_stack'): "
                            "model(x of call i's length)",
        "model": f"{ATTN['layers']} x [Linear qkv, SDPA(is_causal=True), Linear out, Linear ff + GELU], "
                 f"dim {ATTN['dim']}, {ATTN['heads']} heads, bf16, eval", "sdpa_backend_forced": str(which[0]),
        "lengths": list(lengths), "prompt_of_call_i": "lengths[i % len(lengths)]",
        "expected": ("each new length builds a cuDNN plan on the CPU; repeats reuse it" if backend == "cudnn" else
                     "SDPA runs its math path (matmul, softmax, matmul kernels) instead of one fused kernel"),
        "work_per_step": {"sequences": 1}})


def ro_variant(kind):
    torch = _torch()
    wp = dp.wp
    model = wp._mlp3()
    x = torch.randn(wp.MLP_BATCH, wp.MLP_DIM, device="cuda", dtype=torch.bfloat16)
    scale = torch.full((wp.MLP_BATCH, 1), 0.5, dtype=torch.bfloat16)  # on the CPU on purpose
    if kind == "mutated":
        def f(x):
            x.add_(1.0)
            return model(x)
        code = "def f(x): x.add_(1.0); return model(x)"
    elif kind == "cpu":
        def f(x):
            return model(x) * scale.to("cuda")
        code = "scale = CPU tensor; def f(x): return model(x) * scale.to('cuda')"
    else:
        import torch._inductor.config as ic
        ic.graph_partition = True

        def f(x):
            y = model(x)
            z = y.float().cpu().sum(dim=1, keepdim=True)  # a CPU op between the GPU parts
            return model(y + z.to("cuda", torch.bfloat16))
        code = "graph_partition=True; def f(x): y = model(x); z = y.float().cpu().sum(1, keepdim=True); " \
               "return model(y + z.to('cuda', bfloat16))"
    g = torch.compile(f, mode="reduce-overhead")

    def call(i):
        with torch.no_grad(), dp._rf("mlp_forward"):
            return g(x)
    return dict(call=call, meta={"class": 7, "code": code + "; g = torch.compile(f, mode='reduce-overhead')",
                                 "variant": kind, "model": "record_what_if_pairs._mlp3 (3 x Linear(1024,1024)+GELU)",
                                 "work_per_step": {"samples": wp.MLP_BATCH}})


def pointwise_loop():
    torch = _torch()

    @torch.compile
    def block(y):
        return torch.nn.functional.gelu(y * 1.01 + 0.1)
    y0 = torch.randn(256, 256, device="cuda")

    def call(i):
        with dp._rf("loop"):
            y = y0
            for _ in range(LOOP_CALLS):
                y = block(y)
            return y
    return dict(call=call, meta={"class": 8, "code": f"@torch.compile def block(y): gelu(y * 1.01 + 0.1); "
                                                     f"for _ in range({LOOP_CALLS}): y = block(y)",
                                 "expected": "the user's loop is this file's call(); Inductor's generated module "
                                             "in TORCHINDUCTOR_CACHE_DIR is not the user's code",
                                 "work_per_step": {"calls": LOOP_CALLS}})


def readback(fixed):
    torch = _torch()
    nn = torch.nn
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(1024, 2048), nn.GELU(), nn.Linear(2048, 1)).to("cuda", torch.bfloat16).eval()
    x = torch.randn(READBACK_SCORES, 1024, device="cuda", dtype=torch.bfloat16)

    def postprocess(scores):
        if fixed:
            return [round(s, 3) for s in scores.float().tolist()]
        return [round(scores[i].item(), 3) for i in range(scores.shape[0])]

    def call(i):
        with torch.no_grad():
            scores = model(x).squeeze(1)
        return postprocess(scores)
    return dict(call=call, meta={"class": 9, "fixed": fixed, "code": (
        "scores = model(x).squeeze(1); postprocess(scores): " +
        ("[round(s, 3) for s in scores.float().tolist()]" if fixed else
         f"[round(scores[i].item(), 3) for i in range({READBACK_SCORES})]")),
        "syncs_per_step_expected": 1 if fixed else READBACK_SCORES, "work_per_step": {"samples": READBACK_SCORES}})


def dlrm(fused):
    torch = _torch()
    nn = torch.nn
    torch.manual_seed(0)
    c = DLRM

    class Dlrm(nn.Module):
        def __init__(self):
            super().__init__()
            self.tables = nn.ModuleList(nn.EmbeddingBag(c["rows"], c["dim"], mode="sum") for _ in range(c["tables"]))
            dims, layers = (c["tables"] * c["dim"],) + c["mlp"], []
            for a, b in zip(dims, dims[1:]):
                layers += [nn.Linear(a, b), nn.ReLU()]
            self.top = nn.Sequential(*layers, nn.Linear(dims[-1], 1))

        def forward(self, idx):
            return self.top(torch.cat([t(idx[k]) for k, t in enumerate(self.tables)], dim=1)).squeeze(1)
    model = Dlrm().cuda()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3, fused=fused) if fused else \
        torch.optim.Adam(model.parameters(), lr=1e-3)
    fwd = torch.compile(model)
    g = torch.Generator(device="cuda").manual_seed(0)
    idx = torch.randint(0, c["rows"], (c["tables"], c["batch"], c["bag"]), device="cuda", generator=g)
    y = torch.rand(c["batch"], device="cuda", generator=g)

    def call(i):
        with dp._rf("train_step"):
            opt.zero_grad(set_to_none=True)
            loss = torch.nn.functional.binary_cross_entropy_with_logits(fwd(idx), y)
            loss.backward()
            opt.step()
        return loss
    return dict(call=call, meta={"class": 10, "fused": fused, "config": c,
                                 "code": "fwd = torch.compile(model); opt = Adam(lr=1e-3" +
                                         (", fused=True)" if fused else ")  # foreach, the default on CUDA") +
                                         "; step: zero_grad, BCE(fwd(idx), y).backward(), opt.step()",
                                 "parameter_count": sum(p.numel() for p in model.parameters()),
                                 "work_per_step": {"samples": c["batch"]}})


def eval_dropout():
    torch = _torch()
    from transformers import BertConfig, BertModel
    torch.manual_seed(0)
    model = BertModel(dp._sdpa(BertConfig(**dp.BERT))).to("cuda", torch.bfloat16)  # .eval() forgotten
    ids = torch.randint(0, dp.BERT["vocab_size"], (16, dp.BERT_SEQ), device="cuda")

    def call(i):
        with torch.no_grad(), dp._rf("encoder_forward"):
            return model(input_ids=ids).last_hidden_state
    return dict(call=call, meta={"class": 11, "code": "model = BertModel(...) (no .eval()); with no_grad(): "
                                                      "model(input_ids=ids)", "training_mode": model.training,
                                 "config": dp.BERT, "work_per_step": {"samples": 16}})


# ----------------------------------------------------------------------------- the cases
def _case(build, est_s, sched=None, **kw):
    c = dp._case(build, est_s, **kw)
    if sched is not None:
        c["sched"] = sched
    return c


CASES = {
    "cold_convnet": _case(cold_convnet, 20, cold=True),
    "sdpa_cudnn_lengths": _case(lambda: sdpa_lengths("cudnn"), 25, cold=True, sched=COLD8),
    "sdpa_math_fallback": _case(lambda: sdpa_lengths("math"), 15),
    "ro_skip_mutated": _case(lambda: ro_variant("mutated"), 35, compiled=True, with_stack=True, timeout=150),
    "ro_skip_cpu": _case(lambda: ro_variant("cpu"), 35, compiled=True, with_stack=True, timeout=150),
    "ro_partition": _case(lambda: ro_variant("partition"), 40, compiled=True, with_stack=True, timeout=150),
    "inductor_user_cache": _case(pointwise_loop, 30, compiled=True, with_stack=True, timeout=150),
    "item_readback": _case(lambda: readback(False), 15, with_stack=True),
    "item_readback_fixed": _case(lambda: readback(True), 15, with_stack=True),
    "dlrm_adam": _case(lambda: dlrm(False), 40, compiled=True, timeout=150),
    "dlrm_adam_fused": _case(lambda: dlrm(True), 40, compiled=True, timeout=150),
    "aside_eval_dropout": _case(eval_dropout, 20, note="aside: never tune to it"),
    "first_inference_convnet": _case(cold_convnet, 25, cold=True, warm_trace=True, sched=ONE_REQUEST),
    "aside_first_inference_bert": _case(lambda: transformers_first_inference(
                                            "Bert", 8, 128, "the first request pays the kernels' and cuBLAS's first-use "
                                            "costs; the warm one does not"), 35, cold=True, warm_trace=True, sched=ONE_REQUEST,
                                        timeout=150, note="aside: never tune to it"),
    "coalesce_recorded": _case(lambda: coalesce(False), 20),
    "coalesce_once_recorded": _case(lambda: coalesce(True), 20),
    "aside_first_inference_gpt2": _case(lambda: transformers_first_inference(
                                            "GPT2", 4, 64, "the first request pays first-use costs; the warm one does "
                                            "not"), 35, cold=True, warm_trace=True, sched=ONE_REQUEST,
                                        timeout=150, note="aside: never tune to it"),
    # Recorded first as aside_stepless_resnet_loop; the loop rule was changed on it, so it is aside no more.
    "stepless_resnet_loop": _case(resnet_loop, 25, cold=True, sched=SIX_CALLS),
    "cpu_gather_upload": _case(gather_upload, 20),
    "aside_stepless_train_loop": _case(train_loop, 25, cold=True, sched=dict(SIX_CALLS, active=8),
                                       note="aside: never tune to it"),
    # Recorded first as aside_first_inference_compiled; host_sync_in_loop was changed on it.
    "first_inference_compiled": _case(lambda: cold_convnet(compiled=True), 90, cold=True, warm_trace=True,
                                      compiled=True, sched=ONE_REQUEST, timeout=240),
    # Recorded first as aside_first_inference_cudnn_benchmark; the first-call rules were changed on it.
    "first_inference_cudnn_benchmark": _case(lambda: cold_convnet(benchmark=True), 30, cold=True, warm_trace=True,
                                             sched=ONE_REQUEST, timeout=150),
}


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help", "--list"):
        with contextlib.suppress(BrokenPipeError):  # `--help | head`
            print(__doc__)
        return 0 if len(argv) >= 2 else 2
    dp.CASES.update(CASES)  # record_one and the meta writer read the cases from there
    dp.PROG = PROG
    if argv[1] == "--pack":
        os.makedirs(argv[3], exist_ok=True)
    dp._setup()
    args = dp.rf.recorder_args(argv, CASES, dp.record_one, PACK_NAME)
    if args is None:
        return 0
    outdir, names = args
    dp._need_gpu()
    cache_root = tempfile.mkdtemp(prefix="record_truth_round3_caches_")
    user_cache = os.path.join(os.getcwd(), "compile_cache")  # the folder a user would choose

    def env_of(name):
        env = dict(os.environ, PYTHONUNBUFFERED="1", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
        env.pop("TORCH_LOGS", None)
        if CASES[name]["compiled"]:
            inductor = user_cache if name == "inductor_user_cache" else os.path.join(cache_root, name, "inductor")
            env["TORCHINDUCTOR_CACHE_DIR"] = inductor
            env["TRITON_CACHE_DIR"] = os.path.join(cache_root, name, "triton")
        return env

    t0 = time.time()
    failed = dp.rf.run_each(__file__, outdir, names, timeout_of=lambda n: CASES[n]["timeout"], env_of=env_of,
                            budget_s=TOTAL_BUDGET_S)
    with contextlib.suppress(OSError):
        import shutil
        shutil.rmtree(cache_root, ignore_errors=True)
    print(f"{PROG}: {len(names) - len(failed)} of {len(names)} cases in {time.time() - t0:.0f} s; failed: "
          f"{' '.join(failed) or 'none'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
