// Communication: each NCCL/RCCL kernel with the parameters of the collective that launched it
// (its record_param_comms op), its message size and the time that size needs on the GPU's link.
#include <algorithm>

#include "analysis/comm/link_peaks.hpp"
#include "analysis/core/nearest_ancestor.hpp"
#include "analysis/passes.hpp"
#include "analysis/steps/steady_steps.hpp"

namespace whyslow {
namespace {

const CommArgs* args_of(const Trace& t, EventId op) {
  auto it = std::lower_bound(t.comm_args.begin(), t.comm_args.end(), op,
                             [](const CommArgs& a, EventId e) { return a.event < e; });
  return it != t.comm_args.end() && it->event == op ? &*it : nullptr;
}

// The name the kernel's own GPU reports, else the trace's first GPU.
std::string_view device_name(const Trace& t, EventId kernel) {
  const int32_t id = t.tracks[t.track[kernel]].device;
  for (const DeviceInfo& d : t.devices)
    if (d.id == id) return d.name;
  return t.devices.empty() ? std::string_view() : std::string_view(t.devices.front().name);
}

}  // namespace

double bus_bytes_per_s(const CollectiveCall& c, int64_t dur_ns) {
  const double factor = bus_bandwidth_factor(c.kind, c.ranks);
  if (c.bytes < 0 || dur_ns <= 0 || factor <= 0) return 0;
  return static_cast<double>(c.bytes) * factor / (static_cast<double>(dur_ns) * 1e-9);
}

CommFacts communication(const Trace& t, const std::vector<StepFacts>& steps) {
  CommFacts f;
  // The record_param_comms op above a comm kernel: up from the op its External id names, else up
  // from its launch call (c10d::allreduce_ → record_param_comms → nccl:all_reduce → the launch).
  const NameId record_param_comms = t.names.find("record_param_comms");
  NearestAncestor param_op(t, [&](EventId a) { return t.name[a] == record_param_comms; });
  auto collective_op = [&](EventId kernel) {
    const EventId from_op = param_op.of(t.op_link[kernel]);
    return from_op != kNoEvent ? from_op : param_op.of(t.launch_link[kernel]);
  };
  std::vector<Interval> compute;
  CommKernels comm_kernels(t);
  for (EventId e = 0; e < t.size(); ++e)
    if (is_gpu_activity(t.kind[e]) && !comm_kernels.is(e)) compute.emplace_back(t.start_ns[e], t.end_ns(e));
  merge_intervals(compute);
  for (EventId e = 0; e < t.size(); ++e) {
    if (!comm_kernels.is(e)) continue;
    CollectiveCall c;
    c.kernel = e;
    c.op = record_param_comms == kNoName ? kNoEvent : collective_op(e);
    const CommArgs* a = c.op == kNoEvent ? nullptr : args_of(t, c.op);
    // Without a "Collective name" (2023 traces), the c10d op around record_param_comms names it:
    // c10d::alltoall_base_ runs as NCCL SendRecv kernels but is an all-to-all.
    std::string_view collective = a && a->collective != kNoName ? t.names.view(a->collective) : "";
    if (collective.empty() && c.op != kNoEvent && t.parent[c.op] != kNoEvent &&
        t.name_of(t.parent[c.op]).starts_with("c10d::"))
      collective = t.name_of(t.parent[c.op]);
    c.kind = collective_kind(collective, t.name_of(e));
    if (a) {
      c.group = a->group;
      c.seq = a->seq;
      c.ranks = a->group_size;
      const int64_t elem = a->dtype != kNoName ? dtype_bytes(t.names.view(a->dtype)) : 0;
      const int64_t nelems = std::max(a->in_nelems, a->out_nelems);
      if (elem > 0 && nelems >= 0) c.bytes = nelems * elem;
    }
    if (c.ranks < 0) c.ranks = t.distributed.world_size;
    if (const LinkPeak* peak = link_peak(device_name(t, e))) {
      if (f.link.empty()) {
        f.link = std::string(peak->link);
        f.link_bytes_per_s = peak->bytes_per_s;
      }
      const double factor = bus_bandwidth_factor(c.kind, c.ranks);
      if (c.bytes >= 0 && factor > 0)
        c.link_ns = static_cast<int64_t>(static_cast<double>(c.bytes) * factor / peak->bytes_per_s * 1e9);
    }
    c.exposed_ns = t.dur_ns[e] - covered_length(compute, t.start_ns[e], t.end_ns(e));
    const EventId launch = t.launch_link[e];
    c.step = step_containing(steps, launch != kNoEvent ? t.start_ns[launch] : t.start_ns[e]);
    f.calls.push_back(c);
  }
  return f;
}

}  // namespace whyslow
