#include "profiler/trace_links.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <tuple>
#include <unordered_map>

namespace whyslow::profiler_detail {
namespace {

// Ranges first by start, then the longer (the parent) first: a parent precedes its children.
// Raw ticks decide, since two ticks apart can be the same nanosecond.
bool range_before(const CpuRange& a, const CpuRange& b) {
  if (a.start_ticks != b.start_ticks) return a.start_ticks < b.start_ticks;
  return a.end_ticks > b.end_ticks;
}

// For each API call, the innermost range on its thread that encloses it (-1 when none).
std::vector<int64_t> enclosing_ranges(const RecordedTrace& trace, const std::vector<uint32_t>& order) {
  const auto& calls = trace.gpu.api_calls;
  std::vector<int64_t> result(calls.size(), -1);
  std::unordered_map<int32_t, std::vector<uint32_t>> ranges_by_tid, calls_by_tid;
  for (uint32_t r : order) ranges_by_tid[trace.ranges[r].tid].push_back(r);
  for (uint32_t c = 0; c < calls.size(); ++c) calls_by_tid[calls[c].tid].push_back(c);

  for (auto& [tid, thread_calls] : calls_by_tid) {
    std::sort(thread_calls.begin(), thread_calls.end(),
              [&](uint32_t a, uint32_t b) { return calls[a].start_ns < calls[b].start_ns; });
    const std::vector<uint32_t>& ranges = ranges_by_tid[tid];
    std::vector<uint32_t> open;  // enclosing ranges, innermost last
    size_t next = 0;
    for (uint32_t c : thread_calls) {
      const ApiCall& call = calls[c];
      // Open every range that starts no later than the call; a range that began first encloses
      // the call when the start times tie (the scope was entered before the call was made).
      for (; next < ranges.size() && trace.ranges[ranges[next]].start_ns <= call.start_ns; ++next) {
        const CpuRange& r = trace.ranges[ranges[next]];
        while (!open.empty() && trace.ranges[open.back()].end_ns < r.start_ns) open.pop_back();
        open.push_back(ranges[next]);
      }
      while (!open.empty() && trace.ranges[open.back()].end_ns < call.start_ns) open.pop_back();
      for (size_t i = open.size(); i-- > 0;) {
        if (trace.ranges[open[i]].end_ns >= call.end_ns) {
          result[c] = open[i];
          break;
        }
      }
    }
  }
  return result;
}

}  // namespace

TraceLinks link_trace(const RecordedTrace& trace) {
  TraceLinks links;
  links.range_order.resize(trace.ranges.size());
  std::iota(links.range_order.begin(), links.range_order.end(), 0u);
  std::stable_sort(links.range_order.begin(), links.range_order.end(), [&](uint32_t a, uint32_t b) {
    return range_before(trace.ranges[a], trace.ranges[b]);
  });
  links.range_external_id.resize(trace.ranges.size());
  for (size_t i = 0; i < links.range_order.size(); ++i)
    links.range_external_id[links.range_order[i]] = static_cast<int64_t>(i + 1);

  const auto& calls = trace.gpu.api_calls;
  links.api_enclosing_range = enclosing_ranges(trace, links.range_order);
  links.api_external_id.assign(calls.size(), 0);
  std::unordered_map<uint32_t, int32_t> call_by_correlation;
  for (uint32_t c = 0; c < calls.size(); ++c) {
    if (links.api_enclosing_range[c] >= 0)
      links.api_external_id[c] = links.range_external_id[links.api_enclosing_range[c]];
    call_by_correlation.emplace(calls[c].correlation, static_cast<int32_t>(c));
  }

  const auto& activities = trace.gpu.activities;
  links.activity_api.assign(activities.size(), -1);
  // (range, device, stream) → the span of that scope's work on that stream, in a stable order.
  std::map<std::tuple<uint32_t, uint32_t, int64_t>, GpuAnnotation> spans;
  for (size_t a = 0; a < activities.size(); ++a) {
    const GpuActivity& g = activities[a];
    auto it = call_by_correlation.find(g.correlation);
    if (it == call_by_correlation.end()) continue;
    links.activity_api[a] = it->second;
    const int64_t range = links.api_enclosing_range[it->second];
    if (range < 0 || g.kind == GpuKind::Sync) continue;
    const auto key = std::make_tuple(static_cast<uint32_t>(range), g.device, g.stream);
    auto [span, inserted] = spans.try_emplace(key, GpuAnnotation{g.start_ns, g.end_ns,
                                                                 static_cast<uint32_t>(range),
                                                                 g.device, g.stream});
    if (!inserted) {
      span->second.start_ns = std::min(span->second.start_ns, g.start_ns);
      span->second.end_ns = std::max(span->second.end_ns, g.end_ns);
    }
  }
  for (auto& [key, span] : spans) links.gpu_annotations.push_back(span);
  return links;
}

}  // namespace whyslow::profiler_detail
