#include "analysis/comm/comm_names.hpp"

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

namespace whyslow {
namespace {

bool contains(std::string_view s, std::string_view p) { return s.find(p) != std::string_view::npos; }

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

// The function a kernel's demangled signature names, with its namespaces, without its return type,
// template arguments or parameters: "void (anonymous namespace)::multimem_all_reduce_kernel<
// c10::BFloat16, 16>(c10::BFloat16*, …)" → "(anonymous namespace)::multimem_all_reduce_kernel".
std::string_view qualified_function(std::string_view n) {
  if (n.starts_with("void ")) n.remove_prefix(5);
  constexpr std::string_view kAnonymous = "(anonymous namespace)::";
  const size_t from = n.starts_with(kAnonymous) ? kAnonymous.size() : 0;
  return n.substr(0, n.find_first_of("<(", from));
}

// DeepEP's kernels under any namespace that ends in `ep`: the library's own deep_ep:: (and its
// legacy:: copy of the first kernels, 2026), and the namespace DeepSeek's published profiles show
// (deepseek-ai/profile-data: "dpsk::ep::internode::dispatch", "dpsk::ep::internode::combine_ll").
// Returns "deep_ep::<module>::<function>", the table's spelling, or "" for any other function.
std::string deep_ep_function(std::string_view q) {
  std::vector<std::string_view> parts;
  for (size_t from = 0;;) {
    const size_t at = q.find("::", from);
    parts.push_back(q.substr(from, at == std::string_view::npos ? std::string_view::npos : at - from));
    if (at == std::string_view::npos) break;
    from = at + 2;
  }
  if (parts.size() < 3) return {};
  size_t ns = parts.size() - 2;  // the namespaces before <module>::<function>
  if (ns >= 2 && parts[ns - 1] == "legacy") --ns;
  if (parts[ns - 1] != "deep_ep" && parts[ns - 1] != "ep") return {};
  return "deep_ep::" + std::string(parts[parts.size() - 2]) + "::" + std::string(parts.back());
}

// Whether a qualified function is the table's `function` (DeepEP's by deep_ep_function).
bool is_function(std::string_view q, std::string_view deep_ep, std::string_view function) {
  return function.starts_with("deep_ep::") ? deep_ep == function : q == function;
}

// Collective kernels of the libraries that bypass NCCL, by qualified function name (exact match:
// a compute kernel never shares one). Sources:
//   PyTorch symmetric memory, torch/csrc/distributed/c10d/symm_mem/CUDASymmetricMemoryOps.cu
//     (static kernels in an anonymous namespace; vLLM's symm_mem all-reduce runs these)
//   vLLM custom all-reduce, csrc/custom_all_reduce.cuh (namespace vllm); SGLang's sgl-kernel copy
//     keeps the names in namespace sglang (as its profiles show them)
//   TensorRT-LLM, cpp/tensorrt_llm/kernels/customAllReduceKernels.cu (namespace tensorrt_llm::kernels)
//   DeepEP, csrc/kernels/{intranode,internode,internode_ll}.cu (moved to csrc/kernels/legacy/ in
//     2026) and deep_ep/include/deep_ep/impls/*.cuh (deep_ep::elastic): dispatch and combine move
//     tokens to and from their experts' ranks, an all-to-all; notify_dispatch exchanges the token
//     counts before it. Local work (get_dispatch_layout, the buffer cleaners, the *_epilogue
//     kernels) is not communication.
struct LibraryKernel {
  std::string_view function;
  CollectiveKind kind;
};
constexpr LibraryKernel kLibraryKernels[] = {
    {"(anonymous namespace)::multimem_all_reduce_kernel", CollectiveKind::AllReduce},
    {"(anonymous namespace)::multimem_one_shot_all_reduce_kernel", CollectiveKind::AllReduce},
    {"(anonymous namespace)::multimem_all_gather_kernel", CollectiveKind::AllGather},
    {"(anonymous namespace)::one_shot_all_reduce_kernel", CollectiveKind::AllReduce},
    {"(anonymous namespace)::two_shot_all_reduce_kernel", CollectiveKind::AllReduce},  // or reduce_scatter, below
    {"(anonymous namespace)::two_shot_all_reduce_kernel_inplace", CollectiveKind::AllReduce},
    {"vllm::cross_device_reduce_1stage", CollectiveKind::AllReduce},
    {"vllm::cross_device_reduce_2stage", CollectiveKind::AllReduce},
    {"vllm::cross_device_reduce_half_butterfly", CollectiveKind::AllReduce},
    {"sglang::cross_device_reduce_1stage", CollectiveKind::AllReduce},
    {"sglang::cross_device_reduce_2stage", CollectiveKind::AllReduce},
    {"tensorrt_llm::kernels::oneShotAllReduceKernel", CollectiveKind::AllReduce},
    {"tensorrt_llm::kernels::twoShotAllReduceKernel", CollectiveKind::AllReduce},
    {"deep_ep::intranode::notify_dispatch", CollectiveKind::AllToAll},
    {"deep_ep::intranode::dispatch", CollectiveKind::AllToAll},
    {"deep_ep::intranode::combine", CollectiveKind::AllToAll},
    {"deep_ep::intranode::cached_notify_dispatch", CollectiveKind::Other},  // barriers around a buffer reset
    {"deep_ep::intranode::cached_notify_combine", CollectiveKind::Other},
    {"deep_ep::intranode::barrier", CollectiveKind::Other},
    {"deep_ep::internode::notify_dispatch", CollectiveKind::AllToAll},
    {"deep_ep::internode::dispatch", CollectiveKind::AllToAll},
    {"deep_ep::internode::combine", CollectiveKind::AllToAll},
    {"deep_ep::internode::cached_notify", CollectiveKind::Other},
    {"deep_ep::internode_ll::dispatch", CollectiveKind::AllToAll},
    {"deep_ep::internode_ll::combine", CollectiveKind::AllToAll},
    // The low-latency kernels' names in DeepSeek's published decode profile (deepseek-ai/DeepEP#348).
    {"deep_ep::internode::dispatch_ll", CollectiveKind::AllToAll},
    {"deep_ep::internode::combine_ll", CollectiveKind::AllToAll},
    {"deep_ep::elastic::dispatch_impl", CollectiveKind::AllToAll},
    {"deep_ep::elastic::combine_impl", CollectiveKind::AllToAll},
    {"deep_ep::elastic::hybrid_dispatch_impl", CollectiveKind::AllToAll},
    {"deep_ep::elastic::hybrid_combine_impl", CollectiveKind::AllToAll},
    {"deep_ep::elastic::pp_send_impl", CollectiveKind::SendRecv},
    {"deep_ep::elastic::pp_recv_impl", CollectiveKind::SendRecv},
    {"deep_ep::elastic::barrier_impl", CollectiveKind::Other},
};

const LibraryKernel* library_kernel(std::string_view kernel_name) {
  const std::string_view q = qualified_function(kernel_name);
  const std::string deep_ep = deep_ep_function(q);
  for (const LibraryKernel& k : kLibraryKernels)
    if (is_function(q, deep_ep, k.function)) return &k;
  return nullptr;
}

// symm_mem's reduce_scatter_out runs two_shot_all_reduce_kernel<T, alignment, world_size,
// reduce_scatter = true, split_last_dim>: its fourth template argument says which collective it is.
bool is_two_shot_reduce_scatter(std::string_view kernel_name) {
  const size_t open = kernel_name.find("two_shot_all_reduce_kernel<");
  if (open == std::string_view::npos) return false;
  std::string_view args = kernel_name.substr(open + std::string_view("two_shot_all_reduce_kernel<").size());
  for (int comma = 0; comma < 3; ++comma) {
    const size_t at = args.find(", ");
    if (at == std::string_view::npos) return false;
    args.remove_prefix(at + 2);
  }
  return args.starts_with("true");
}

// The collective a c10d collective name (allreduce, _allgather_base, reduce_scatter_tensor_coalesced,
// alltoall_base, send, …) or an NCCL kernel name (ncclKernel_AllReduce_RING_LL_…,
// ncclDevKernel_SendRecv) spells out: lower case without '_'.
CollectiveKind kind_in_name(std::string_view name) {
  std::string s = lower(name);
  s.erase(std::remove(s.begin(), s.end(), '_'), s.end());
  if (s.empty()) return CollectiveKind::Other;
  if (contains(s, "allreduce")) return CollectiveKind::AllReduce;
  if (contains(s, "allgather")) return CollectiveKind::AllGather;
  if (contains(s, "reducescatter")) return CollectiveKind::ReduceScatter;
  if (contains(s, "alltoall")) return CollectiveKind::AllToAll;
  if (contains(s, "broadcast")) return CollectiveKind::Broadcast;
  if (contains(s, "sendrecv") || s.starts_with("send") || s.starts_with("recv") || contains(s, "kernelsend") ||
      contains(s, "kernelrecv"))
    return CollectiveKind::SendRecv;
  if (contains(s, "reduce")) return CollectiveKind::Reduce;
  return CollectiveKind::Other;
}

}  // namespace

bool is_nccl_kernel(std::string_view n) {
  return n.starts_with("ncclKernel_") || n.starts_with("ncclDevKernel_") || n.starts_with("rccl");
}

bool is_comm_kernel(std::string_view n) { return is_nccl_kernel(n) || library_kernel(n) != nullptr; }

std::string_view to_string(CollectiveKind k) {
  switch (k) {
    case CollectiveKind::AllReduce: return "all_reduce";
    case CollectiveKind::AllGather: return "all_gather";
    case CollectiveKind::ReduceScatter: return "reduce_scatter";
    case CollectiveKind::Broadcast: return "broadcast";
    case CollectiveKind::Reduce: return "reduce";
    case CollectiveKind::AllToAll: return "all_to_all";
    case CollectiveKind::SendRecv: return "send_recv";
    case CollectiveKind::Other: break;
  }
  return "other";
}

CollectiveKind collective_kind(std::string_view collective_name, std::string_view kernel_name) {
  // What c10d says it asked for first, then a library kernel's own kind, then NCCL's kernel name.
  if (const CollectiveKind k = kind_in_name(collective_name); k != CollectiveKind::Other) return k;
  if (const LibraryKernel* library = library_kernel(kernel_name))
    return is_two_shot_reduce_scatter(kernel_name) ? CollectiveKind::ReduceScatter : library->kind;
  return kind_in_name(kernel_name);
}

double bus_bandwidth_factor(CollectiveKind kind, int32_t n) {
  if (n < 1) return 0;
  const double ranks = n;
  switch (kind) {
    case CollectiveKind::AllReduce: return 2 * (ranks - 1) / ranks;
    case CollectiveKind::AllGather:
    case CollectiveKind::ReduceScatter:
    case CollectiveKind::AllToAll: return (ranks - 1) / ranks;
    case CollectiveKind::Broadcast:
    case CollectiveKind::Reduce:
    case CollectiveKind::SendRecv: return 1;
    case CollectiveKind::Other: break;
  }
  return 0;
}

int64_t dtype_bytes(std::string_view d) {
  const std::string s = lower(d);
  if (s == "double" || s == "long" || s == "complexfloat" || s == "int64") return 8;
  if (s == "float" || s == "int" || s == "float32" || s == "int32") return 4;
  if (s == "bfloat16" || s == "half" || s == "short" || s == "float16" || s == "int16") return 2;
  if (s == "byte" || s == "char" || s == "bool" || s == "int8" || s == "uint8" || s.starts_with("float8")) return 1;
  return 0;
}

bool is_distributed_library_frame(std::string_view n) {
  return n.starts_with("DistributedDataParallel.") || n.starts_with("FullyShardedDataParallel.") ||
         n.starts_with("FSDP") || n.starts_with("c10d::") || n.starts_with("nccl:") || n.starts_with("hccl:") ||
         n == "record_param_comms" || contains(n, "torch/distributed/") ||
         contains(n, "torch/nn/parallel/distributed.py");
}

}  // namespace whyslow
