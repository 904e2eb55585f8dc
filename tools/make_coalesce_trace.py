#!/usr/bin/env python3
"""Make a Kineto trace of a loop whose host re-coalesces a sparse COO tensor on every call (issue 44
class 2): one stream, lazy submission, and most of the host's time in one op of the user's.

    python3 tools/make_coalesce_trace.py OUT.json[.gz] [--steps N] [--seed S]

No GPU here records a Kineto trace, so this is generated, modelled event by event on torch's own
recordings in tests/fixtures/torch/ (torch 2.11 on the H200: ProfilerStep#N user annotations and
their gpu_user_annotation mirror on stream 7, cpu_op events with External id, Input Dims / Input type,
cuda_runtime cudaLaunchKernel / cudaMemcpyAsync / cudaStreamSynchronize with a correlation id and
ac2g flows to the kernel and memcpy records) and on torch 1.13's own CPU recording of
`s.coalesce()` (Debian's python3-torch: aten::coalesce › aten::_coalesce › is_coalesced, _nnz,
_indices, _values, sparse_dim, dense_dim, to, mul, sum, empty, sort › copy_, arange, … ,
_coalesced_, narrow › slice › as_strided; its sort holds about 60 % of it).

The workload, one inference step of a graph layer (steps ProfilerStep#2 … of a schedule
wait=1, warmup=1, active=N):

    h = torch.relu(x @ w1)                                    # x (4096, 256), w1 (256, 64): 2 kernels
    adj = torch.sparse_coo_tensor(idx, val, (4096, 4096))   # idx (2, 50000) int64, val (50000,) float
    adj = adj.coalesce()                                      # ~7 ms on the CPU, every call
    adj = adj.to("cuda")                                      # indices and values: two pageable copies
    y = torch.relu(torch.sparse.mm(adj, h))                   # 4 kernels
    loss = y.sum().item()                                     # a read-back: the host waits

The host's coalesce (a CPU sort and merge of 50,000 indices) takes about 80 % of each ~9 ms step;
the GPU's work is about 60 µs of kernels and 110 µs of copies a step. Lazy submission: a launched
kernel starts only when the host next waits on the stream (the pageable copy, the read-back's
cudaMemcpyAsync DtoH + cudaStreamSynchronize), on the one stream, with no stream wait or event
call anywhere: the dense layer's two kernels sit queued through the whole coalesce.
--coalesce-first leaves the dense layer out (the coalesce is then CPU work before each step's
first launch). --coalesce-once is the fix: the tensor is built and coalesced once before the loop
(outside the steps), each step copies it up and runs the rest as before. Times carry a seeded jitter
(±3 %).
"""
import argparse
import gzip
import json
import random

PID, TID, STREAM = 2411, 2411, 7
NNZ, ROWS, FEAT = 50000, 4096, 64
BASE_US = 6012874400000.0  # a Kineto-like clock (µs since boot)

K_FILL = ("void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>, std::array<char*, 1ul> >"
          "(int, at::native::FillFunctor<float>, std::array<char*, 1ul>)")
K_COO2CSR = ("void at::native::(anonymous namespace)::convert_indices_from_coo_to_csr_cuda_kernel<int, long>"
             "(int*, long const*, long, long)")
K_SPMM = ("void cusparse::csrmm_alg2_kernel<cusparse::CsrMMPolicy<128, 64, 2, 4, 8, float, float, float>, false, int, "
          "float, float, float>(int, int, int, int, float, int const*, int const*, float const*, float const*, long, "
          "float, float*, long)")
K_RELU = ("void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::launch_clamp_scalar("
          "at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()"
          "() const::{lambda()#7}::operator()() const::{lambda(float)#1}, std::array<char*, 2ul> >(int, at::native::"
          "(anonymous namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, c10::Scalar, at::native::"
          "detail::ClampLimits)::{lambda()#1}::operator()() const::{lambda()#7}::operator()() const::{lambda(float)#1}, "
          "std::array<char*, 2ul>)")
K_GEMM = ("void cutlass::Kernel2<cutlass_80_tensorop_s1688gemm_64x64_16x6_nn_align4>(cutlass_80_tensorop_s1688gemm_"
          "64x64_16x6_nn_align4::Params)")
K_SUM = ("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<float, "
         "at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, "
         "unsigned int, float, 4, 4> >(at::native::ReduceOp<float, at::native::func_wrapper_t<float, at::native::"
         "sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, "
         "float, 4, 4>)")


class Gen:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.events = []
        self.ext = 0
        self.corr = 1000
        self.ev_idx = 0
        self.gpu_free = 0.0  # when the stream's last record ends
        self.pending = []    # launched kernels not yet started (lazy submission)

    def j(self, us):
        return us * self.rng.uniform(0.97, 1.03)

    def next_ext(self):
        self.ext += 1
        return self.ext

    def op(self, name, ts, dur, dims=None, types=None, cat="cpu_op"):
        ext = self.next_ext()
        args = {"External id": ext, "Record function id": 0, "Ev Idx": self.ev_idx}
        if cat == "cpu_op":
            args.update({"Sequence number": 0, "Fwd thread id": 0} if dims is not None else {})
            args["Input Dims"] = dims if dims is not None else []
            args["Input type"] = types if types is not None else [""] * len(args["Input Dims"])
            args["Input Strides"] = [[] for _ in args["Input Dims"]]
            args["Concrete Inputs"] = ["" for _ in args["Input Dims"]]
        self.ev_idx += 1
        self.events.append({"ph": "X", "cat": cat, "name": name, "pid": PID, "tid": TID, "ts": round(ts, 3),
                            "dur": round(dur, 3), "args": args})
        return ext

    def runtime(self, name, ts, dur, ext, cbid):
        self.corr += 1
        self.events.append({"ph": "X", "cat": "cuda_runtime", "name": name, "pid": PID, "tid": TID, "ts": round(ts, 3),
                            "dur": round(dur, 3), "args": {"External id": ext, "cbid": cbid, "correlation": self.corr}})
        return self.corr

    def flow(self, corr, launch_ts, gpu_ts):
        self.events.append({"ph": "s", "id": corr, "pid": PID, "tid": TID, "ts": round(launch_ts, 3), "cat": "ac2g",
                            "name": "ac2g"})
        self.events.append({"ph": "f", "id": corr, "pid": 0, "tid": STREAM, "ts": round(gpu_ts, 3), "cat": "ac2g",
                            "name": "ac2g", "bp": "e"})

    def gpu(self, cat, name, ts, dur, ext, corr, extra):
        args = {"External id": ext, "device": 0, "context": 1, "stream": STREAM, "correlation": corr}
        args.update(extra)
        self.events.append({"ph": "X", "cat": cat, "name": name, "pid": 0, "tid": STREAM, "ts": round(ts, 3),
                            "dur": round(dur, 3), "args": args})
        self.gpu_free = ts + dur

    def launch(self, ts, ext, kernel, kdur, grid, block):
        """cudaLaunchKernel at ts; the kernel waits in the driver until the next host sync (lazy)."""
        d = self.j(5.5)
        corr = self.runtime("cudaLaunchKernel", ts, d, ext, 211)
        self.pending.append((corr, ts, ext, kernel, kdur, grid, block))
        return ts + d

    def flush(self, at):
        """The host's sync arrives at `at`: the queued kernels run now, one after another."""
        t = max(at + self.j(4.0), self.gpu_free + 1.0)
        for corr, lts, ext, kernel, kdur, grid, block in self.pending:
            dur = self.j(kdur)
            self.gpu("kernel", kernel, t, dur, ext, corr,
                     {"queued": 0, "registers per thread": 32, "shared memory": 0, "grid": grid, "block": block,
                      "blocks per SM": round(grid[0] / 132, 6), "warps per SM": round(grid[0] * block[0] / 32 / 132, 6),
                      "est. achieved occupancy %": 50})
            self.flow(corr, lts, t)
            t += dur + self.j(1.5)
        self.pending = []

    def memcpy_h2d(self, ts, ext, nbytes):
        """A pageable host-to-device copy: the call returns once the GPU has copied it."""
        gbps = self.j(9.0)
        copy = nbytes / gbps / 1e3
        start = max(ts + self.j(14.0), self.gpu_free + 1.0)
        end_call = start + copy + self.j(6.0)
        corr = self.runtime("cudaMemcpyAsync", ts, end_call - ts, ext, 41)
        self.gpu("gpu_memcpy", "Memcpy HtoD (Pageable -> Device)", start, copy, ext, corr,
                 {"bytes": nbytes, "memory bandwidth (GB/s)": gbps})
        self.flow(corr, ts, start)
        return end_call

    # --- the ops of one step ---------------------------------------------------------------------

    def coalesce(self, t):
        """torch's CPU coalesce, its children as torch records them; returns its end."""
        dims_idx, dims_val = [2, NNZ], [NNZ]
        begin = t
        outer = len(self.events)
        self.op("aten::coalesce", t, 0, [[ROWS, ROWS]], ["float"])
        t += self.j(2.0)
        self.op("aten::is_coalesced", t, self.j(1.2), [[ROWS, ROWS]], ["float"])
        t += self.j(4.0)
        inner = len(self.events)
        self.op("aten::_coalesce", t, 0, [[ROWS, ROWS]], ["float"])
        t += self.j(3.0)
        for name in ("aten::is_coalesced", "aten::_nnz", "aten::_indices", "aten::_values", "aten::sparse_dim",
                     "aten::dense_dim", "aten::_nnz"):
            d = self.j(0.6)
            self.op(name, t, d, [[ROWS, ROWS]], ["float"])
            t += d + self.j(1.0)
        d = self.j(4.0)
        self.op("aten::to", t, d, [dims_idx, [], [], [], [], [], [], []], ["long int", "", "", "", "", "Scalar", "Scalar", ""])
        t += d + self.j(8.0)
        # the flat index: indices[0] * ncols + indices[1]
        d = self.j(420.0)
        self.op("aten::mul", t, d, [[NNZ], []], ["long int", "Scalar"])
        t += d + self.j(6.0)
        s = len(self.events)
        self.op("aten::sum", t, 0, [[2, NNZ], [], []], ["long int", "", "Scalar"])
        a = t + self.j(30.0)
        self.op("aten::as_strided", a, self.j(3.0), [[NNZ], [], [], []], ["long int", "", "", ""])
        f = a + self.j(20.0)
        self.op("aten::fill_", f, self.j(8.0), [[NNZ], []], ["long int", "Scalar"])
        d = self.j(380.0)
        self.events[s]["dur"] = round(d, 3)
        t += d + self.j(12.0)
        for _ in range(3):
            d = self.j(2.0)
            self.op("aten::empty", t, d, [[], [], [], [], [], []], ["ScalarList", "Scalar", "", "", "", ""])
            t += d + self.j(1.5)
        self.op("aten::resize_", t, self.j(0.5), [[NNZ], []], ["long int", "ScalarList"])
        t += self.j(3.0)
        # the sort of the flat index (a CPU sort of 50,000 keys with their permutation)
        s = len(self.events)
        self.op("aten::sort", t, 0, [[NNZ], [], [], []], ["long int", "Scalar", "Scalar", "Scalar"])
        c = t + self.j(30.0)
        d = self.j(200.0)
        self.op("aten::copy_", c, d, [[NNZ], [NNZ], []], ["long int", "long int", "Scalar"])
        c += d + self.j(10.0)
        ar = len(self.events)
        self.op("aten::arange", c, 0, [[], [], [], [], [], []], ["Scalar", "Scalar", "", "", "", ""])
        self.op("aten::empty", c + 4.0, self.j(0.8), [[], [], [], [], [], []], ["ScalarList", "Scalar", "", "", "", ""])
        a2 = len(self.events)
        self.op("aten::arange", c + 8.0, 0, [[], [], [], [NNZ]], ["Scalar", "Scalar", "Scalar", "long int"])
        self.op("aten::resize_", c + 11.0, self.j(5.0), [[NNZ], []], ["long int", "ScalarList"])
        d2 = self.j(180.0)
        self.events[a2]["dur"] = round(d2, 3)
        self.events[ar]["dur"] = round(d2 + 12.0, 3)
        c += d2 + 14.0
        self.op("aten::as_strided", c, self.j(1.0), [[NNZ], [], [], []], ["long int", "", "", ""])
        c += self.j(3.0)
        d = self.j(240.0)
        self.op("aten::copy_", c, d, [[NNZ], [NNZ], []], ["long int", "long int", "Scalar"])
        d = self.j(4700.0)
        self.events[s]["dur"] = round(d, 3)
        t += d + self.j(6.0)
        # the merge of duplicate indices: _coalesce's own loop, then the result's views
        t += self.j(1650.0)
        self.op("aten::_coalesced_", t, self.j(1.0), [[ROWS, ROWS], []], ["float", "Scalar"])
        t += self.j(12.0)
        for _ in range(2):
            n = len(self.events)
            self.op("aten::narrow", t, 0, [[2, NNZ], [], [], []], ["long int", "", "", ""])
            sl = len(self.events)
            self.op("aten::slice", t + 1.0, 0, [[2, NNZ], [], [], [], []], ["long int", "", "", "", ""])
            self.op("aten::as_strided", t + 2.0, self.j(3.0), [[2, NNZ], [], [], []], ["long int", "", "", ""])
            self.events[sl]["dur"] = round(6.0, 3)
            self.events[n]["dur"] = round(9.0, 3)
            t += 11.0
        t += self.j(6.0)
        self.events[inner]["dur"] = round(t - self.events[inner]["ts"], 3)
        t += self.j(3.0)
        self.events[outer]["dur"] = round(t - begin, 3)
        return t

    def relu(self, t):
        """torch.relu(h): aten::relu over aten::clamp_min and its kernel, launched and queued; returns the end."""
        r = len(self.events)
        self.op("aten::relu", t, 0, [[ROWS, FEAT]], ["float"])
        ext = self.op("aten::clamp_min", t + 4.0, 0, [[ROWS, FEAT], []], ["float", "Scalar"])
        e = self.launch(t + 10.0, ext, K_RELU, 2.6, [256, 1, 1], [128, 1, 1])
        self.events[r + 1]["dur"] = round(e + 2.0 - (t + 4.0), 3)
        self.events[r]["dur"] = round(e + 4.0 - t, 3)
        return e + 4.0

    def dense(self, t):
        """h = torch.relu(x @ w1): a GEMM and a clamp, launched and queued (lazy); returns the end."""
        mm = len(self.events)
        ext = self.op("aten::mm", t, 0, [[ROWS, 256], [256, FEAT]], ["float", "float"])
        e = self.launch(t + 14.0, ext, K_GEMM, 11.5, [32, 2, 1], [256, 1, 1])
        self.events[mm]["dur"] = round(e + 4.0 - t, 3)
        t = e + 4.0 + self.j(22.0)
        return self.relu(t)

    def build(self, t):
        """adj = torch.sparse_coo_tensor(idx, val, size).coalesce(); returns the end."""
        t = self.sparse_coo_tensor(t) + self.j(220.0)  # Python between the lines
        return self.coalesce(t) + self.j(180.0)

    def step(self, n, t0, coalesce_first, coalesce_once=False):
        step_ext = self.op(f"ProfilerStep#{n}", t0, 0, cat="user_annotation")
        step_i = len(self.events) - 1
        gpu_first = None
        t = t0 + self.j(40.0)
        if not coalesce_first:
            t = self.dense(t) + self.j(30.0)
        if not coalesce_once:
            t = self.build(t)
        return self.rest_of_step(n, t0, t, step_ext, step_i)

    def sparse_coo_tensor(self, t):
        # adj = torch.sparse_coo_tensor(idx, val, size): the arguments' checks (min/max of the indices)
        s = len(self.events)
        self.op("aten::sparse_coo_tensor", t, 0, [[2, NNZ], [NNZ], [], [], [], [], []],
                ["long int", "float", "ScalarList", "", "", "", ""])
        v = len(self.events)
        self.op("aten::_validate_sparse_coo_tensor_args", t + 6.0, 0, [[2, NNZ], [NNZ], [], []],
                ["long int", "float", "ScalarList", ""])
        c = t + 12.0
        for name in ("aten::min", "aten::max"):
            d = self.j(150.0)
            self.op(name, c, d, [[2, NNZ], [], []], ["long int", "Scalar", "Scalar"])
            c += d + self.j(8.0)
        self.events[v]["dur"] = round(c - self.events[v]["ts"], 3)
        c += self.j(5.0)
        d = self.j(9.0)
        self.op("aten::_sparse_coo_tensor_with_dims_and_tensors", c, d, [[], [], [], [2, NNZ], [NNZ], [], [], [], []],
                ["", "", "ScalarList", "long int", "float", "", "", "", ""])
        c += d + 3.0
        self.events[s]["dur"] = round(c - t, 3)
        return c

    def rest_of_step(self, n, t0, t, step_ext, step_i):
        # adj = adj.to("cuda"): its indices and values, each a pageable copy
        s = len(self.events)
        self.op("aten::to", t, 0, [[ROWS, ROWS], [], [], [], [], [], [], []],
                ["float", "Scalar", "Scalar", "", "", "Scalar", "Scalar", ""])
        tc = len(self.events)
        self.op("aten::_to_copy", t + 3.0, 0, [[ROWS, ROWS], [], [], [], [], [], []],
                ["float", "Scalar", "Scalar", "", "", "Scalar", ""])
        c = t + 8.0
        for dims, tp, nbytes in (([2, NNZ], "long int", 2 * NNZ * 8), ([NNZ], "float", NNZ * 4)):
            d = self.j(4.0)
            self.op("aten::empty_strided", c, d, [[], [], [], [], [], []], ["ScalarList", "ScalarList", "Scalar", "", "", ""])
            c += d + self.j(3.0)
            cp = len(self.events)
            ext = self.op("aten::copy_", c, 0, [dims, dims, []], [tp, tp, "Scalar"])
            call = c + self.j(9.0)
            self.flush(call)  # a pageable copy waits for the stream: the queued kernels run as it arrives
            end = self.memcpy_h2d(call, ext, nbytes)
            self.events[cp]["dur"] = round(end + self.j(3.0) - c, 3)
            c = end + self.j(8.0)
        d = self.j(8.0)
        self.op("aten::_sparse_coo_tensor_with_dims_and_tensors", c, d, [[], [], [], [2, NNZ], [NNZ], [], [], [], []],
                ["", "", "ScalarList", "long int", "float", "", "", "", ""])
        c += d + 3.0
        self.events[tc]["dur"] = round(c - self.events[tc]["ts"], 3)
        self.events[s]["dur"] = round(c + 2.0 - t, 3)
        t = c + 2.0 + self.j(60.0)
        # y = torch.relu(torch.sparse.mm(adj, w))
        s = len(self.events)
        self.op("aten::_sparse_mm", t, 0, [[ROWS, ROWS], [ROWS, FEAT]], ["float", "float"])
        z = len(self.events)
        c = t + 6.0
        ext = self.op("aten::zeros", c, 0, [[], [], [], [], []], ["ScalarList", "Scalar", "", "", ""])
        self.op("aten::empty", c + 2.0, self.j(3.0), [[], [], [], [], [], []], ["ScalarList", "Scalar", "", "", "", ""])
        zz = len(self.events)
        ext = self.op("aten::zero_", c + 7.0, 0, [[ROWS, FEAT]], ["float"])
        fl = len(self.events)
        ext = self.op("aten::fill_", c + 8.0, 0, [[ROWS, FEAT], []], ["float", "Scalar"])
        e = self.launch(c + 12.0, ext, K_FILL, 2.1, [256, 1, 1], [128, 1, 1])
        self.events[fl]["dur"] = round(e + 1.0 - (c + 8.0), 3)
        self.events[zz]["dur"] = round(e + 2.0 - (c + 7.0), 3)
        self.events[z]["dur"] = round(e + 3.0 - c, 3)
        c = e + 6.0
        a = len(self.events)
        self.op("aten::_sparse_addmm", c, 0, [[ROWS, FEAT], [ROWS, ROWS], [ROWS, FEAT], [], []],
                ["float", "float", "float", "Scalar", "Scalar"])
        m = len(self.events)
        ext = self.op("aten::addmm", c + 5.0, 0, [[ROWS, FEAT], [ROWS, ROWS], [ROWS, FEAT], [], []],
                      ["float", "float", "float", "Scalar", "Scalar"])
        e = self.launch(c + 20.0, ext, K_COO2CSR, 4.2, [40, 1, 1], [256, 1, 1])
        e = self.launch(e + 14.0, ext, K_SPMM, 38.0, [64, 1, 1], [128, 1, 1])
        self.events[m]["dur"] = round(e + 4.0 - (c + 5.0), 3)
        self.events[a]["dur"] = round(e + 6.0 - c, 3)
        self.events[s]["dur"] = round(e + 8.0 - t, 3)
        t = e + 8.0 + self.j(25.0)
        t = self.relu(t) + self.j(20.0)
        # loss = y.sum().item()
        ext = self.op("aten::sum", t, 0, [[ROWS, FEAT], []], ["float", ""])
        sm = len(self.events) - 1
        self.op("aten::as_strided", t + 18.0, self.j(3.0), [[], [], [], []], ["float", "", "", ""])
        e = self.launch(t + 26.0, ext, K_SUM, 5.8, [1, 1, 1], [512, 1, 1])
        self.events[sm]["dur"] = round(e + 3.0 - t, 3)
        t = e + 3.0 + self.j(18.0)
        it = len(self.events)
        self.op("aten::item", t, 0, [[]], ["float"])
        lsd = len(self.events)
        ext = self.op("aten::_local_scalar_dense", t + 3.0, 0, [[]], ["float"])
        c = t + 12.0
        d = self.j(9.0)
        corr = self.runtime("cudaMemcpyAsync", c, d, ext, 41)
        copy_call = c
        c += d + 0.5
        self.flush(c)  # lazy submission: the queued kernels start as the host's sync arrives
        cstart = self.gpu_free + 1.2
        self.gpu("gpu_memcpy", "Memcpy DtoH (Device -> Pinned)", cstart, 1.6, ext, corr,
                 {"bytes": 4, "memory bandwidth (GB/s)": 0.0025})
        self.flow(corr, copy_call, cstart)
        sync_end = max(c + 5.0, cstart + 1.6 + self.j(3.0))
        self.runtime("cudaStreamSynchronize", c, sync_end - c, ext, 131)
        self.events[lsd]["dur"] = round(sync_end + 2.0 - (t + 3.0), 3)
        self.events[it]["dur"] = round(sync_end + 4.0 - t, 3)
        t = sync_end + 4.0 + self.j(160.0)  # the loop's Python: the result into a list, the next batch
        self.events[step_i]["dur"] = round(t - t0, 3)
        gpu_first = min(e["ts"] for e in self.events[step_i:] if e.get("pid") == 0 and e["cat"] != "gpu_user_annotation")
        self.events.append({"ph": "X", "cat": "gpu_user_annotation", "name": f"ProfilerStep#{n}", "pid": 0,
                            "tid": STREAM, "ts": round(gpu_first, 3), "dur": round(self.gpu_free - gpu_first, 3),
                            "args": {"External id": step_ext}})
        return t + self.j(30.0)


def metadata(start):
    out = []
    for pid, name, labels, sort in ((PID, "python3", "CPU", PID), (0, "python3", "GPU 0", 5000000)):
        out.append({"name": "process_name", "ph": "M", "ts": start, "pid": pid, "tid": 0, "args": {"name": name}})
        out.append({"name": "process_labels", "ph": "M", "ts": start, "pid": pid, "tid": 0, "args": {"labels": labels}})
        out.append({"name": "process_sort_index", "ph": "M", "ts": start, "pid": pid, "tid": 0, "args": {"sort_index": sort}})
    out.append({"name": "thread_name", "ph": "M", "ts": start, "pid": 0, "tid": STREAM, "args": {"name": "stream 7 "}})
    out.append({"name": "thread_sort_index", "ph": "M", "ts": start, "pid": 0, "tid": STREAM, "args": {"sort_index": STREAM}})
    out.append({"name": "thread_name", "ph": "M", "ts": start, "pid": PID, "tid": TID,
                "args": {"name": f"thread {TID} (python3)"}})
    out.append({"name": "thread_sort_index", "ph": "M", "ts": start, "pid": PID, "tid": TID, "args": {"sort_index": TID}})
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--steps", type=int, default=5)
    ap.add_argument("--seed", type=int, default=44)
    ap.add_argument("--coalesce-first", action="store_true",
                    help="no dense layer before the coalesce: it is CPU work before each step's first launch")
    ap.add_argument("--coalesce-once", action="store_true",
                    help="the fix: build and coalesce the sparse tensor once, before the loop (outside the steps)")
    a = ap.parse_args()
    g = Gen(a.seed)
    t = BASE_US + 120.0
    if a.coalesce_once:
        t = g.build(t) + 200.0
    for n in range(2, 2 + a.steps):
        t = g.step(n, t, a.coalesce_first, a.coalesce_once)
    end = t
    events = metadata(BASE_US + 80.0) + sorted(g.events, key=lambda e: (e["ts"], -e.get("dur", 0)))
    events.append({"ph": "X", "cat": "Trace", "ts": BASE_US, "dur": round(end + 50.0 - BASE_US, 3), "pid": "Spans",
                   "tid": "PyTorch Profiler", "name": "PyTorch Profiler (0)", "args": {"Op count": 0}})
    events.append({"name": "Iteration Start: PyTorch Profiler", "ph": "i", "s": "g", "pid": "Traces",
                   "tid": "Trace PyTorch Profiler", "ts": BASE_US})
    events.append({"name": "Record Window End", "ph": "i", "s": "g", "pid": "", "tid": "", "ts": round(end + 60.0, 3)})
    doc = {
        "schemaVersion": 1,
        "deviceProperties": [{"id": 0, "name": "NVIDIA H200", "totalGlobalMem": 150109880320, "computeMajor": 9,
                              "computeMinor": 0, "maxThreadsPerBlock": 1024, "maxThreadsPerMultiprocessor": 2048,
                              "regsPerBlock": 65536, "warpSize": 32, "sharedMemPerBlock": 49152, "numSms": 132,
                              "regsPerMultiprocessor": 65536, "sharedMemPerBlockOptin": 232448,
                              "sharedMemPerMultiprocessor": 233472}],
        "record_shapes": 1,
        "cuda_driver_version": 13000,
        "cuda_runtime_version": 13000,
        "displayTimeUnit": "ms",
        "baseTimeNanoseconds": 1790857026000000000,
        "traceEvents": events,
        "traceName": "coalesce_once.json" if a.coalesce_once else "coalesce_every_call.json",
    }
    text = json.dumps(doc, indent=1)
    if a.out.endswith(".gz"):
        with open(a.out, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as f:
            f.write(text.encode())  # no name, no time in the header: the same bytes every run
    else:
        with open(a.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
