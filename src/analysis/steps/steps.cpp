// Steps: each ProfilerStep#N window, the CPU time inside it, the time the CPU sat blocked in
// synchronizing calls, and the GPU work launched from inside it.
#include <algorithm>

#include "analysis/comm/comm_names.hpp"
#include "analysis/core/event_names.hpp"
#include "trace/steps.hpp"
#include "analysis/cpu/host_waits.hpp"
#include "analysis/passes.hpp"
#include "analysis/steps/steady_steps.hpp"

namespace whyslow {
namespace {

constexpr TrackId kAnyTrack = UINT32_MAX;

}  // namespace

void measure_windows(const Trace& t, std::vector<StepFacts>& windows, const std::vector<TrackId>& owners) {
  if (windows.empty()) return;
  StepLookup window_at(windows);  // the window holding a time
  std::vector<std::vector<Interval>> compute(windows.size()), comm(windows.size());
  HostWaitNames waits(t);
  CommKernels comm_kernels(t);
  for (EventId e = 0; e < t.size(); ++e) {
    const EventKind k = t.kind[e];
    if (is_host_api(k)) {
      const int w = window_at.of(t.start_ns[e]);
      if (w < 0) continue;
      if (t.is_launch(e)) ++windows[w].launches;
      if ((owners[w] == kAnyTrack || owners[w] == t.track[e]) &&
          waits.of(e) != HostWait::None)
        windows[w].sync_wait_ns += std::min(t.end_ns(e), windows[w].end_ns) - t.start_ns[e];
    } else if (is_gpu_activity(k)) {
      // GPU work belongs to the step that launched it; work with no launch in the trace (MTIA's
      // DMA transfers, which carry no correlation) to the step it starts in.
      const EventId host = t.launch_link[e];
      const int w = window_at.of(host != kNoEvent ? t.start_ns[host] : t.start_ns[e]);
      if (w < 0) continue;
      StepFacts& s = windows[w];
      if (k == EventKind::Kernel) ++s.kernels;
      else if (k == EventKind::Memcpy) ++s.memcpys;
      else ++s.memsets;
      const bool is_comm = comm_kernels.is(e);
      (is_comm ? comm : compute)[w].emplace_back(t.start_ns[e], t.end_ns(e));
      s.gpu_end_ns = std::max(s.gpu_end_ns, t.end_ns(e));
    }
  }
  for (size_t i = 0; i < windows.size(); ++i) {
    StepFacts& s = windows[i];
    s.duration_ns = s.end_ns - s.start_ns;
    s.cpu_ns = std::max<int64_t>(0, s.duration_ns - s.sync_wait_ns);
    s.compute_ns = union_length(compute[i]);
    s.comm_ns = union_length(comm[i]);
    s.exposed_comm_ns = exposed_length(comm[i], compute[i]);
    // Busy = compute ∪ communication = compute + the communication compute does not cover: no
    // third list of every GPU interval to sort.
    s.gpu_busy_ns = s.compute_ns + s.exposed_comm_ns;
  }
}

std::vector<Interval> gpu_busy_intervals(const Trace& t) {
  std::vector<Interval> v;
  for (EventId e = 0; e < t.size(); ++e)
    if (is_gpu_activity(t.kind[e])) v.emplace_back(t.start_ns[e], t.end_ns(e));
  merge_intervals(v);
  return v;
}

std::vector<StepFacts> measure_steps(const Trace& t) {
  std::vector<StepFacts> steps;
  std::vector<TrackId> owners;
  for (EventId e : profiler_steps(t)) {
    StepFacts s;
    s.event = e;
    s.name = std::string(t.name_of(e));
    s.start_ns = t.start_ns[e];
    s.end_ns = t.end_ns(e);
    steps.push_back(std::move(s));
  }
  for (const StepFacts& s : steps) owners.push_back(t.track[s.event]);
  measure_windows(t, steps, owners);
  return steps;
}

StepFacts measure_window(const Trace& t, TrackId thread, int64_t from_ns) {
  std::vector<StepFacts> one(1);
  StepFacts& w = one[0];
  w.name = from_ns == INT64_MIN ? "whole trace" : "after start-up";
  w.start_ns = INT64_MAX;
  w.end_ns = INT64_MIN;
  for (EventId e = 0; e < t.size(); ++e) {
    const EventKind k = t.kind[e];
    if (k == EventKind::Instant || k == EventKind::TraceSpan) continue;
    w.start_ns = std::min(w.start_ns, t.start_ns[e]);
    w.end_ns = std::max(w.end_ns, t.end_ns(e));
  }
  w.start_ns = std::max(w.start_ns, from_ns);
  if (w.start_ns > w.end_ns) return StepFacts{};
  measure_windows(t, one, {thread == UINT32_MAX ? kAnyTrack : thread});
  return w;
}

}  // namespace whyslow
