// kernel_variance: the same kernel with the same launch configuration, launched by the same op on
// the same input shapes, taking very different times in different steps. Same code on the same
// shapes should take the same time; when it does not, something outside the kernel changed:
// contention from another stream or process, clocks (power/thermal), or cold caches.
#include <fmt/core.h>

#include <algorithm>
#include <array>
#include <map>

#include "common/units.hpp"
#include "explain/evidence.hpp"
#include "explain/rules.hpp"

namespace whyslow {
namespace {

// Fewer calls than this give no usable median.
constexpr size_t kMinCalls = 3;
// Run-to-run noise of a kernel on an idle GPU is a few percent; 1.5× the median is far beyond it.
constexpr double kSlowRatio = 1.5;
// …and the slow call must lose at least 5 µs: tiny kernels jitter by a few µs in absolute terms.
constexpr int64_t kMinExcessNs = 5'000;
// Report the few worst groups, not every kernel.
constexpr size_t kMaxReported = 3;

// Collective kernels wait inside the kernel for the other ranks, so their time is the slowest
// peer's arrival, not their own work: variance there is a load-balance question, not this rule's.
bool is_collective(std::string_view n) {
  for (std::string_view marker : {"nccl", "rccl", "all_reduce", "AllReduce", "all_gather", "AllGather",
                                  "reduce_scatter", "ReduceScatter", "SendRecv", "multimem"})
    if (n.find(marker) != std::string_view::npos) return true;
  return false;
}

}  // namespace

void rule_kernel_variance(const Trace& t, const Facts& f, std::vector<Finding>& out) {
  const StepFacts* cold = f.cold_start.step_index >= 0 ? &f.steps[f.cold_start.step_index] : nullptr;
  auto in_cold = [&](EventId k) {
    const EventId h = t.launch_link[k];
    return cold && h != kNoEvent && t.start_ns[h] >= cold->start_ns && t.start_ns[h] <= cold->end_ns;
  };
  struct Group {
    NameId name, op;
    std::vector<EventId> calls;
    int64_t median = 0, excess = 0;
    EventId slowest = kNoEvent;
  };
  std::vector<Group> flagged;
  for (const KernelRow& row : f.kernels) {
    if (is_collective(t.names.view(row.name))) continue;
    // Same launch configuration, same linked op and same op input shapes (record_shapes): the
    // same GEMM kernel also serves other ops and other shapes on the same grid (a different K),
    // which take different times. A call with no linked op has no known workload to compare
    // (Qwen H100: the GEMMs launched before the first step, outside any op, next to a different-K
    // GEMM), so it is left out; without record_shapes the op name is what separates workloads.
    std::map<std::array<int64_t, 8>, std::vector<EventId>> by_launch;
    for (EventId e : row.events) {
      const EventId op = t.op_link[e];
      if (op == kNoEvent || in_cold(e)) continue;
      const GpuDetail& d = t.gpu_detail[t.detail[e]];
      const int64_t shapes = t.detail[op] != UINT32_MAX ? t.op_shapes[t.detail[op]].input_dims : -1;
      by_launch[{d.grid[0], d.grid[1], d.grid[2], d.block[0], d.block[1], d.block[2], t.name[op], shapes}]
          .push_back(e);
    }
    for (auto& [launch, calls] : by_launch) {
      if (calls.size() < kMinCalls) continue;
      std::vector<int64_t> d;
      for (EventId e : calls) d.push_back(t.dur_ns[e]);
      std::nth_element(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(d.size() / 2), d.end());
      const int64_t median = d[d.size() / 2];  // the value a full sort puts there, in linear time
      Group g{row.name, t.name[t.op_link[calls.front()]], calls, median, 0, kNoEvent};
      for (EventId e : calls) {
        const int64_t x = t.dur_ns[e];
        if (x >= kSlowRatio * static_cast<double>(median) && x - median >= kMinExcessNs) {
          g.excess += x - median;
          if (g.slowest == kNoEvent || x > t.dur_ns[g.slowest]) g.slowest = e;
        }
      }
      if (g.slowest != kNoEvent) flagged.push_back(std::move(g));
    }
  }
  if (flagged.empty()) return;
  std::sort(flagged.begin(), flagged.end(), [](const Group& a, const Group& b) { return a.excess > b.excess; });
  const Group& top = flagged.front();
  Finding x = make_finding(FindingId::kernel_variance);
  x.title = fmt::format("The same kernel, launched by the same op on the same shapes, varies from {} to {}: {}",
                        human_duration(top.median), human_duration(t.dur_ns[top.slowest]),
                        std::string(t.names.view(top.name)).substr(0, 80));
  std::string list;
  int64_t excess = 0;
  for (size_t i = 0; i < flagged.size(); ++i) {
    excess += flagged[i].excess;
    if (i >= kMaxReported) continue;
    const Group& g = flagged[i];
    list += fmt::format("\n  - {} ({} calls in {}): median {}, slowest {}, {} lost to slow calls",
                        std::string(t.names.view(g.name)).substr(0, 80), g.calls.size(), t.names.view(g.op),
                        human_duration(g.median), human_duration(t.dur_ns[g.slowest]), human_duration(g.excess));
    x.events.push_back({g.slowest, "slowest call"});
  }
  x.detail = fmt::format(
      "A kernel that runs the same code on the same shapes should take the same time in every step (within a "
      "few percent). These calls took at least {} their median, outside the cold-start step:{}\nLook at what "
      "else ran at the same time: other streams or processes sharing the GPU, data-dependent work, or the GPU "
      "clocking down.",
      human_ratio(kSlowRatio), list);
  x.evidence = {count("kernels_affected", flagged.size()), us("excess_us", excess), us("median_us", top.median),
                us("slowest_us", t.dur_ns[top.slowest])};
  x.try_next = {"Check for concurrent work on other streams or processes during the slow calls (the GPU lanes "
                "of the trace; nvidia-smi for other processes).",
                "Watch clocks and temperature while it runs (nvidia-smi dmon -s pc): a power or thermal limit "
                "slows every kernel.",
                "If the inputs' values matter (sparsity, data-dependent loops), the variance may be real work."};
  x.impact_ns = excess;
  x.impact_what = "the slower calls' GPU time above the kernel's fastest runs";
  x.impact_is_gpu_time = true;
  out.push_back(std::move(x));
}

}  // namespace whyslow
