// Names of communication: NCCL/RCCL kernels, the collectives torch records, and the calls the
// distributed libraries (DDP, FSDP, c10d) make. Matching rules are documented next to each.
#pragma once

#include <cstdint>
#include <string_view>

#include "trace/name_memo.hpp"
#include "trace/trace.hpp"

namespace whyslow {

// A collective or point-to-point kernel: NCCL's `ncclKernel_*` (≤ 2.18) and `ncclDevKernel_*`
// (2.19+), which RCCL keeps (`ncclDevKernel_Generic`), RCCL's own `rccl*` kernels, and the
// collectives of the libraries that bypass NCCL, matched by their exact function names (PyTorch
// symmetric memory's multimem / one-shot / two-shot all-reduce, vLLM's and SGLang's custom
// all-reduce, TensorRT-LLM's one/two-shot all-reduce, DeepEP's dispatch / combine / notify;
// the table with its sources is in comm_names.cpp and docs/JSON.md).
bool is_comm_kernel(std::string_view kernel_name);
// NCCL's (or RCCL's) own kernels, as against the libraries' that bypass it (custom all-reduce,
// symmetric memory, DeepEP): two populations of one collective kind, with their own timings.
bool is_nccl_kernel(std::string_view kernel_name);

// Which events are communication kernels (a kernel whose name is_comm_kernel), the name asked
// once per name: a pass that tests every kernel otherwise parses each kernel's name against the
// library table again (11 % of the instructions of a whole run on a 542 MB trace, over four
// passes). Belongs to one pass on one thread, as NameMemo does.
class CommKernels {
 public:
  explicit CommKernels(const Trace& t) : t_(t), names_(t, is_comm_kernel) {}
  bool is(EventId e) { return t_.kind[e] == EventKind::Kernel && names_.of(e); }

 private:
  const Trace& t_;
  NameMemo<bool, bool (*)(std::string_view)> names_;
};

enum class CollectiveKind : uint8_t { AllReduce, AllGather, ReduceScatter, Broadcast, Reduce, AllToAll, SendRecv, Other };
std::string_view to_string(CollectiveKind kind);  // "all_reduce", "all_gather", …

// From c10d's "Collective name" (allreduce, _allgather_base, reduce_scatter_tensor_coalesced,
// alltoall_base, send, …); without it, from a library kernel's entry (DeepEP's dispatch and
// combine are all_to_all) or the NCCL kernel name (ncclKernel_AllReduce_RING_LL_…,
// ncclDevKernel_SendRecv, …). Other when none says.
CollectiveKind collective_kind(std::string_view collective_name, std::string_view kernel_name);

// NCCL's bus-bandwidth factor (nccl-tests, doc/PERFORMANCE.md, "Bus bandwidth"): busBw = algBw ×
// factor, with algBw = S / t and S the message size nccl-tests reports. all_reduce 2(n−1)/n;
// all_gather, reduce_scatter, all_to_all (n−1)/n; broadcast, reduce, send/recv 1. 0 when unknown
// (Other, or n < 1).
double bus_bandwidth_factor(CollectiveKind kind, int32_t ranks);

// Bytes of one element of a c10d dtype name ("Float" 4, "BFloat16" 2, …); 0 when unknown.
int64_t dtype_bytes(std::string_view dtype);

// A frame of the distributed libraries, by the name of an op, annotation or Python frame:
// DistributedDataParallel.* / FullyShardedDataParallel.* / FSDP* module calls, c10d:: ops,
// nccl:* annotations (hccl:* on MTIA), record_param_comms, and Python frames in torch/distributed/ or
// torch/nn/parallel/distributed.py.
bool is_distributed_library_frame(std::string_view name);

}  // namespace whyslow
