#include "analysis/comm/comm_names.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace whyslow {
namespace {

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool contains(std::string_view s, std::string_view p) { return s.find(p) != std::string_view::npos; }

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return std::tolower(c); });
  return out;
}

}  // namespace

bool is_comm_kernel(std::string_view n) {
  return starts_with(n, "ncclKernel_") || starts_with(n, "ncclDevKernel_") || starts_with(n, "rccl");
}

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
  // Lower case without '_': "allreduce", "allgatherbase", "reducescattertensorcoalesced", …
  auto squash = [](std::string_view s) {
    std::string out = lower(s);
    out.erase(std::remove(out.begin(), out.end(), '_'), out.end());
    return out;
  };
  for (const std::string& s : {squash(collective_name), squash(kernel_name)}) {
    if (s.empty()) continue;
    if (contains(s, "allreduce")) return CollectiveKind::AllReduce;
    if (contains(s, "allgather")) return CollectiveKind::AllGather;
    if (contains(s, "reducescatter")) return CollectiveKind::ReduceScatter;
    if (contains(s, "alltoall")) return CollectiveKind::AllToAll;
    if (contains(s, "broadcast")) return CollectiveKind::Broadcast;
    if (contains(s, "sendrecv") || starts_with(s, "send") || starts_with(s, "recv") ||
        contains(s, "kernelsend") || contains(s, "kernelrecv"))
      return CollectiveKind::SendRecv;
    if (contains(s, "reduce")) return CollectiveKind::Reduce;
  }
  return CollectiveKind::Other;
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
  if (s == "byte" || s == "char" || s == "bool" || s == "int8" || s == "uint8" || starts_with(s, "float8")) return 1;
  return 0;
}

bool is_distributed_library_frame(std::string_view n) {
  return starts_with(n, "DistributedDataParallel.") || starts_with(n, "FullyShardedDataParallel.") ||
         starts_with(n, "FSDP") || starts_with(n, "c10d::") || starts_with(n, "nccl:") ||
         n == "record_param_comms" || contains(n, "torch/distributed/") ||
         contains(n, "torch/nn/parallel/distributed.py");
}

}  // namespace whyslow
