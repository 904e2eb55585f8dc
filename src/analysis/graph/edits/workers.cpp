// Data loading moved to worker processes. Model: a step's DataLoader time D on the main thread
// (its CPU time inside enumerate(DataLoader) spans) is the time one process takes to make a
// batch; N workers make N batches in that time, in parallel with the step, so the main thread
// waits only for what the rest of the step R does not hide: max(0, D / N − R), plus the hand-off
// of a batch from a worker. The DataLoader part of each CPU node shrinks in proportion.
#include <fmt/core.h>

#include <algorithm>
#include <charconv>

#include "analysis/core/event_names.hpp"
#include "analysis/graph/edits/edits.hpp"

namespace whyslow {
namespace {

constexpr int kDefaultWorkers = 4;
constexpr int kMaxWorkers = 1024;
// Taking a ready batch from a worker (queue, unpickling the tensors' handles): the main thread's
// DataLoader span with 4 workers that keep up lasts 25-57 µs (median 25 µs) on
// tests/fixtures/cpu/dataloader_workers4.json.gz.
constexpr int64_t kWorkerHandoffNs = 25'000;

}  // namespace

EditOutcome edit_workers(const EditContext& c, std::string_view param, GraphState& s) {
  EditOutcome out;
  int workers = kDefaultWorkers;
  if (!param.empty()) {
    const auto [end, ec] = std::from_chars(param.data(), param.data() + param.size(), workers);
    if (ec != std::errc() || end != param.data() + param.size() || workers < 1 || workers > kMaxWorkers) {
      out.why_not = fmt::format("workers takes a number of workers from 1 to {}, not \"{}\"", kMaxWorkers, param);
      return out;
    }
  }
  const Graph& g = c.graph;
  // A DataLoader that already loads in worker processes: its wait is for workers that cannot keep
  // up, and how many there are is not in the trace, so what more would give cannot be said.
  for (size_t i : c.steady) {
    const StepSpan& sp = c.spans[i];
    if (sp.empty()) continue;
    const Track& tr = c.trace.tracks[g.lanes[sp.lane].track];
    const int64_t from = g.nodes[sp.first].start_ns, to = g.nodes[sp.last].end_ns;
    auto it = std::lower_bound(tr.events.begin(), tr.events.end(), from,
                               [&](EventId e, int64_t ts) { return c.trace.start_ns[e] < ts; });
    for (; it != tr.events.end() && c.trace.start_ns[*it] < to; ++it)
      if (loads_in_workers(c.trace.name_of(*it))) {
        out.why_not = "the DataLoader already loads in worker processes (_MultiProcessingDataLoaderIter) and the trace does "
                      "not say how many: what more workers would give cannot be replayed";
        out.unmodelled = true;
        return out;
      }
  }
  int64_t before = 0, after = 0;
  for (size_t i : c.steady) {
    const StepSpan& sp = c.spans[i];
    if (sp.empty()) continue;
    int64_t loading = 0, step = 0;
    for (NodeId n = sp.first; n <= sp.last; ++n) {
      loading += g.data_loading_ns[n];
      step += g.nodes[n].end_ns - g.nodes[n].start_ns;
    }
    if (loading <= 0) continue;
    const int64_t rest = step - loading;
    const int64_t wait = std::max<int64_t>(0, loading / workers - rest) + kWorkerHandoffNs;
    if (wait >= loading) continue;
    const double keep = static_cast<double>(wait) / static_cast<double>(loading);
    for (NodeId n = sp.first; n <= sp.last; ++n) {
      const int64_t d = g.data_loading_ns[n];
      if (d > 0) s.dur[n] -= d - static_cast<int64_t>(static_cast<double>(d) * keep);
    }
    before += loading;
    after += wait;
  }
  if (before == 0) {
    out.why_not = "the steady steps spend no time loading data on their thread that workers would hide";
    return out;
  }
  out.applies = true;
  const double steps = static_cast<double>(c.steady.size());
  out.change = fmt::format("{} workers: data loading on the step's thread {:.1f} → {:.2f} ms per step", workers,
                           static_cast<double>(before) / steps / 1e6, static_cast<double>(after) / steps / 1e6);
  return out;
}

}  // namespace whyslow
