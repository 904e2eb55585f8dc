// Pageable copies pinned. Model: each steady step's copies to or from pageable host memory run at
// the link's pinned bandwidth (the trace's own pinned copies of 1 MiB or more, else the PCIe
// generation's, below); a host-to-device copy issued with non_blocking=True no longer holds the
// thread (its wait for the copy goes); a device-to-host copy still does (the host reads the data).
#include <fmt/core.h>

#include <algorithm>

#include "analysis/core/median.hpp"
#include "analysis/graph/edits/edits.hpp"

namespace whyslow {
namespace {

// Copies this large show the link's bandwidth rather than the per-copy latency.
constexpr int64_t kBandwidthCopyBytes = 1 << 20;
// Pinned host↔device bandwidth by PCIe generation, one direction, as CUDA's bandwidthTest and
// nvbandwidth measure it: Gen5 x16 (Hopper, Blackwell) ~50 GB/s (an H200's pinned input copies
// ran at 54 GB/s in issue 43's recording), Gen4 x16 (Ampere) ~25 GB/s, Gen3 x16 ~12 GB/s.
constexpr double kPinnedGen5BytesPerS = 50e9, kPinnedGen4BytesPerS = 25e9, kPinnedGen3BytesPerS = 12e9;

bool pageable(std::string_view name) { return name.find("Pageable") != std::string_view::npos; }
bool host_to_device(std::string_view name) { return name.find("HtoD") != std::string_view::npos; }

double pinned_bandwidth(const EditContext& c) {
  std::vector<double> bw;
  for (const GraphNode& n : c.graph.nodes) {
    if (n.kind != NodeKind::GpuWork || c.trace.kind[n.event] != EventKind::Memcpy) continue;
    const std::string_view name = c.trace.name_of(n.event);
    const int64_t bytes = c.trace.gpu_detail[c.trace.detail[n.event]].bytes;
    if (pageable(name) || bytes < kBandwidthCopyBytes || n.dur_ns <= 0) continue;
    if (host_to_device(name) || name.find("DtoH") != std::string_view::npos)
      bw.push_back(static_cast<double>(bytes) * 1e9 / static_cast<double>(n.dur_ns));
  }
  if (!bw.empty()) return median(bw);
  const int major = c.trace.devices.empty() ? -1 : c.trace.devices.front().compute_major;
  return major >= 9 ? kPinnedGen5BytesPerS : major == 8 ? kPinnedGen4BytesPerS : kPinnedGen3BytesPerS;
}

}  // namespace

EditOutcome edit_pin(const EditContext& c, std::string_view, GraphState& s) {
  EditOutcome out;
  const Graph& g = c.graph;
  const double bandwidth = pinned_bandwidth(c);
  uint64_t copies = 0;
  int64_t before = 0, after = 0;
  for (size_t i : c.steady) {
    const StepSpan& sp = c.spans[i];
    if (sp.empty()) continue;
    for (NodeId w : step_work(g, sp)) {
      const EventId e = g.nodes[w].event;
      const std::string_view name = c.trace.name_of(e);
      const int64_t bytes = c.trace.gpu_detail[c.trace.detail[e]].bytes;
      if (c.trace.kind[e] != EventKind::Memcpy || !pageable(name) || bytes <= 0) continue;
      const int64_t pinned = std::max<int64_t>(1, static_cast<int64_t>(static_cast<double>(bytes) * 1e9 / bandwidth));
      before += s.dur[w];
      s.dur[w] = std::min(s.dur[w], pinned);
      after += s.dur[w];
      ++copies;
      if (!host_to_device(name)) continue;
      // non_blocking=True: the call that issued it no longer waits for it.
      for (uint32_t k = g.edge_begin[w]; k < g.edge_begin[w + 1]; ++k) {
        if (g.edges[k].kind != EdgeKind::Launch) continue;
        const NodeId call = g.edges[k].from;
        for (uint32_t j = g.edge_begin[call]; j < g.edge_begin[call + 1]; ++j)
          if (g.edges[j].kind == EdgeKind::HostSync && g.edges[j].from == w) s.edge_lag[j] = kEdgeRemoved;
      }
    }
  }
  if (copies == 0) {
    out.why_not = "the steady steps copy nothing to or from pageable memory";
    return out;
  }
  out.applies = true;
  const double steps = static_cast<double>(c.steady.size());
  out.change = fmt::format("{:.0f} pageable copies per step at {:.0f} GB/s: {:.0f} → {:.0f} µs of copying per step",
                           static_cast<double>(copies) / steps, bandwidth / 1e9, static_cast<double>(before) / steps / 1e3,
                           static_cast<double>(after) / steps / 1e3);
  return out;
}

}  // namespace whyslow
