#include "analysis/ranks/host_collectives.hpp"

#include <algorithm>

#include "analysis/core/event_names.hpp"
#include "analysis/core/intervals.hpp"
#include "analysis/core/median.hpp"
#include "analysis/steps/steady_steps.hpp"

namespace whyslow {

std::vector<RankCollective> host_collectives(const Trace& t) {
  std::vector<RankCollective> out;
  for (EventId e = 0; e < t.size(); ++e) {
    if (t.kind[e] != EventKind::UserAnnotation) continue;
    const std::string_view name = t.name_of(e);
    if (is_host_collective(name))
      out.push_back({"", -1, collective_kind(host_collective_kind(name), ""), t.start_ns[e], t.end_ns(e)});
  }
  // In time order, as the ranks issue them (events are stored thread by thread, and Gloo runs
  // collectives on several worker threads): the n-th on one rank is the n-th on every other.
  std::sort(out.begin(), out.end(), [](const RankCollective& a, const RankCollective& b) { return a.start_ns < b.start_ns; });
  return out;
}

HostCommTime host_comm_time(const Trace& t, const Facts& f, const std::vector<RankCollective>& collectives) {
  std::vector<Interval> gpu;
  for (EventId e = 0; e < t.size(); ++e)
    if (is_gpu_activity(t.kind[e])) gpu.emplace_back(t.start_ns[e], t.end_ns(e));
  merge_intervals(gpu);
  std::vector<int64_t> comm, exposed;
  for (const StepFacts* s : steady_steps(f)) {
    std::vector<Interval> spans;
    for (const RankCollective& c : collectives)
      if (c.start_ns >= s->start_ns && c.start_ns < s->end_ns) spans.emplace_back(c.start_ns, c.end_ns);
    merge_intervals(spans);
    exposed.push_back(exposed_length(spans, gpu));
    comm.push_back(union_length(spans));
  }
  return {median(std::move(comm)), median(std::move(exposed))};
}

}  // namespace whyslow
