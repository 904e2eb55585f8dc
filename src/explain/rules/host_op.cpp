#include "explain/rules/host_op.hpp"

#include <fmt/core.h>

#include <vector>

#include "analysis/core/event_names.hpp"
#include "analysis/core/track_range.hpp"
#include "analysis/cpu/host_waits.hpp"
#include "common/share.hpp"
#include "common/units.hpp"

namespace whyslow {
namespace {

// Most of the host's time: an op holding at least half of the windows holds more than all else in
// them together, so it, not the rest of the step, is where the host's time went (as the hotspot's
// kMostOfParent for blocks).
constexpr double kMostOfHost = 0.5;
// "On every call" needs calls to compare: an op seen in one window (a 200 µs trace of one
// collective) may be a one-off; from two windows on, it is work the loop does again.
constexpr size_t kMinWindows = 2;
// Work that has its own finding and fix is not the user's per-call work: torch.compile compiling
// (recompilation), the DataLoader (data_loading), the profiler's bookkeeping, host collectives
// (Gloo). An op with any of it inside is left to those findings.
// Lazy submission is the trace's way of working when it shows gap after gap: at least once per
// window. A single gap sent by a host wait in several windows can be chance (a kernel that starts
// as a sync begins on Linux, where launches go out at once: tests/fixtures' H200 recordings show
// 1 in 3-4 windows).
constexpr size_t kLazyGapsPerWindow = 1;
bool has_own_finding(std::string_view n) {
  return is_compilation_event(n) || is_dynamo_cache_lookup(n) || is_data_loader_span(n) || is_profiler_bookkeeping(n) ||
         is_host_collective(n) || n.starts_with("record_param_comms");
}

struct Group {
  int64_t ns = 0;
  uint64_t calls = 0, launches = 0;
  bool excluded = false;
  size_t windows = 0, last_window = SIZE_MAX;
  EventId longest = kNoEvent;
};

bool is(std::string_view name, std::string_view op) { return name == op; }

}  // namespace

HostOp dominant_host_op(const Trace& t, const Facts& f, const BoundScope& b) {
  HostOp out;
  if (b.windows.empty() || b.total_ns <= 0) return out;
  std::vector<Group> groups(t.names.size());
  HostWaitNames waits(t);
  std::vector<int8_t> own(t.names.size() + 1, -1);  // per name: has_own_finding, tested once
  const auto excluded = [&](EventId e) {
    int8_t& v = own[t.name_slot(e)];
    if (v < 0) v = t.name[e] != kNoName && has_own_finding(t.name_of(e));
    return v == 1;
  };
  for (size_t wi = 0; wi < b.windows.size(); ++wi) {
    const StepFacts* w = b.windows[wi];
    const TrackId thread = w->event != kNoEvent ? t.track[w->event] : f.window_thread;
    if (thread >= t.tracks.size()) continue;
    // Events of a track nest (parents first): a top-level op is an op that starts after the last
    // one ended; the events before its end are inside it.
    EventId top = kNoEvent;
    int64_t top_end = INT64_MIN;
    for (const EventId e : starting_in(t, thread, w->start_ns, w->end_ns)) {
      if (t.start_ns[e] < top_end) {
        Group& g = groups[t.name[top]];
        if (excluded(e)) g.excluded = true;
        if (!is_host_api(t.kind[e])) continue;
        if (t.is_launch(e)) ++g.launches;
        else if (waits.of(e) != HostWait::None) g.ns -= t.dur_ns[e];
        continue;
      }
      if (t.kind[e] != EventKind::CpuOp || t.name[e] == kNoName || t.end_ns(e) > w->end_ns) continue;
      top = e;
      top_end = t.end_ns(e);
      Group& g = groups[t.name[e]];
      if (excluded(e)) g.excluded = true;
      g.ns += t.dur_ns[e];
      ++g.calls;
      if (g.last_window != wi) g.last_window = wi, ++g.windows;
      if (g.longest == kNoEvent || t.dur_ns[e] > t.dur_ns[g.longest]) g.longest = e;
    }
  }
  size_t best = SIZE_MAX;
  for (size_t n = 0; n < groups.size(); ++n)
    if (groups[n].calls > 0 && (best == SIZE_MAX || groups[n].ns > groups[best].ns)) best = n;
  if (best == SIZE_MAX) return out;
  const Group& g = groups[best];
  const double s = share(g.ns, b.total_ns);
  // Most of the host's time, in every window (the work is redone on every call, not once), and no
  // GPU work launched inside it (its time is the host's own, not the dispatch of kernels).
  if (s < kMostOfHost || g.windows < b.windows.size() || g.windows < kMinWindows || g.launches > 0 || g.excluded)
    return out;
  out.name = static_cast<NameId>(best);
  out.ns = g.ns;
  out.calls = g.calls;
  out.share = s;
  out.windows = g.windows;
  out.longest = g.longest;
  return out;
}

std::string host_op_words(const Trace& t, const Facts& f, const BoundScope& b, const HostOp& op) {
  const int64_t n = static_cast<int64_t>(b.windows.size());
  const std::string unit = b.over_iterations ? "iteration" : f.steps.empty() ? "window" : "step";
  const double calls = static_cast<double>(op.calls) / static_cast<double>(n);
  return fmt::format(
      " {} takes {} of each {} {} ({}), {:.3g} call{} a {}, in every one of the {} {}s, and launches no GPU work: the "
      "host's own work, done again on every call, while the GPU waits for it.",
      t.names.view(op.name), human_duration(op.ns / n), human_duration(b.total_ns / n), unit,
      human_percent(op.share), calls, calls == 1 ? "" : "s", unit, n, unit);
}

std::string host_op_advice(const Trace& t, const BoundScope& b, const HostOp& op) {
  const std::string_view name = t.names.view(op.name);
  const std::string unit = b.over_iterations ? "iteration" : "step";
  if (is(name, "aten::coalesce") || is(name, "aten::_coalesce"))
    return fmt::format(
        "{} sorts a sparse COO tensor's indices and sums their duplicates on the CPU, every {}: coalesce it once "
        "and reuse it (build it coalesced before the loop, or keep the coalesced tensor instead of the raw one), or "
        "keep it in a layout that needs no coalescing (CSR: .to_sparse_csr(), or dense when it is small). If it "
        "changes every {}, build it coalesced where it is made (DataLoader workers, so it overlaps the GPU).",
        name, unit, unit);
  return fmt::format(
      "{} holds most of the host's time on every {} and launches no GPU work: if its inputs are the same every {}, "
      "compute it once before the loop and reuse the result (cache it); if they change, move it off the {} "
      "(DataLoader workers or a background thread, so it overlaps the GPU) or do it on the GPU.",
      name, unit, unit, unit);
}

bool shows_lazy_submission(const BoundScope& b) {
  return !b.windows.empty() && b.idle.submitted_at_wait >= kLazyGapsPerWindow * b.windows.size();
}

std::string lazy_submission_words(const BoundScope& b) {
  if (!shows_lazy_submission(b)) return "";
  return fmt::format(
      " The GPU started queued work only as the host next waited for it ({} gap{} in the {} {}s: lazy submission, "
      "the driver sending batched work when the host synchronizes), so work launched earlier waited for the CPU too: "
      "the host held it back, not a dependency.",
      b.idle.submitted_at_wait, b.idle.submitted_at_wait == 1 ? "" : "s", b.windows.size(),
      b.over_iterations ? "iteration" : b.windows.front()->event != kNoEvent ? "step" : "window");
}

}  // namespace whyslow
