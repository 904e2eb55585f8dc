#include "analysis/ranks/rank_digest.hpp"

#include <algorithm>
#include <map>

#include "analysis/steps/steady_steps.hpp"
#include "trace/steps.hpp"

namespace whyslow {

RankDigest make_digest(const Trace& t, const Facts& f, int32_t rank) {
  RankDigest d;
  d.rank = rank;
  d.world_size = t.distributed.world_size;
  d.path = t.path;
  const auto steps = steady_steps(f);
  d.steps = static_cast<uint32_t>(steps.size());
  d.first_step_start_ns = steps.empty() ? 0 : steps.front()->start_ns;
  d.trace_steps = static_cast<uint32_t>(std::max<size_t>(1, f.steps.size()));
  d.step_ns = median_of(steps, &StepFacts::duration_ns);
  d.compute_ns = median_of(steps, &StepFacts::compute_ns);
  d.comm_ns = median_of(steps, &StepFacts::comm_ns);
  d.exposed_comm_ns = median_of(steps, &StepFacts::exposed_comm_ns);
  for (size_t c = 0; c < kCpuCategories; ++c) d.cpu[c] = median_of(steps, static_cast<CpuCategory>(c));

  for (const CollectiveCall& c : f.comm.calls)
    d.collectives.push_back({c.group != kNoName ? std::string(t.names.view(c.group)) : std::string(), c.seq, c.kind,
                             t.start_ns[c.kernel], t.end_ns(c.kernel)});

  // Blocks: record_function spans inside the steady steps (each span once, nested repeats of
  // one name included), per steady step.
  std::map<std::string, int64_t> total;
  const int64_t n = std::max<int64_t>(1, static_cast<int64_t>(steps.size()));
  // The steady step an event starts in: a binary search over the trace's steps (or its one window).
  std::vector<const StepFacts*> steady_of(f.steps.size(), nullptr);
  for (const StepFacts* s : steps)
    if (!f.steps.empty()) steady_of[static_cast<size_t>(s - f.steps.data())] = s;
  auto step_of = [&](int64_t ts) -> const StepFacts* {
    if (f.steps.empty()) return !steps.empty() && ts >= steps[0]->start_ns && ts < steps[0]->end_ns ? steps[0] : nullptr;
    const int i = step_containing(f.steps, ts);
    return i < 0 ? nullptr : steady_of[static_cast<size_t>(i)];
  };
  for (EventId e = 0; e < t.size(); ++e) {
    if (t.kind[e] != EventKind::UserAnnotation || is_profiler_step(t, e)) continue;
    if (const StepFacts* s = step_of(t.start_ns[e]))
      total[std::string(t.name_of(e))] += std::min(t.end_ns(e), s->end_ns) - t.start_ns[e];
  }
  for (auto& [name, ns] : total) d.blocks.push_back({name, ns / n});
  for (size_t c = 0; c < kCpuCategories; ++c)
    d.blocks.push_back({"cpu:" + std::string(to_string(static_cast<CpuCategory>(c))), d.cpu[c]});
  d.blocks.push_back({"gpu:compute", d.compute_ns});
  std::sort(d.blocks.begin(), d.blocks.end(), [](const RankBlock& a, const RankBlock& b) { return a.name < b.name; });
  return d;
}

}  // namespace whyslow
