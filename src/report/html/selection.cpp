#include "report/html/selection.hpp"

#include <algorithm>
#include <cstdlib>

namespace whyslow::report {
namespace {

// An event at least 1/4000 of the trace long covers a pixel of even a wide screen showing the
// whole trace, so it is embedded wherever it is: the zoomed-out view stays exact.
constexpr int64_t kScreenPixels = 4000;
// Long events may take at most this share of the budget; the rest goes to detail windows.
constexpr size_t kLongEventShareDivisor = 4;
// A window smaller than this many events shows too little context to be worth a place.
constexpr size_t kMinWindowEvents = 500;

using Start = std::pair<int64_t, EventId>;

class Planner {
 public:
  Planner(const Trace& t, size_t budget) : left_(budget) {
    for (EventId e = 0; e < t.size(); ++e)
      if (is_drawable(t, e)) by_start_.emplace_back(t.start_ns[e], e);
    std::sort(by_start_.begin(), by_start_.end());
  }

  size_t drawable() const { return by_start_.size(); }
  size_t left() const { return left_; }
  void spend(size_t n) { left_ -= std::min(left_, n); }
  const std::vector<Start>& by_start() const { return by_start_; }

  // Events starting in [a, b].
  size_t count(int64_t a, int64_t b) const { return index(b + 1) - index(a); }

  // About n events around `at` (half before, half after).
  TimeWindow around(int64_t at, size_t n) const {
    const size_t i = index(at);
    const size_t lo = i > n / 2 ? i - n / 2 : 0;
    const size_t hi = std::min(by_start_.size() - 1, lo + n);
    return {by_start_[lo].first, by_start_[hi].first};
  }
  // The first n events from `a` on.
  TimeWindow from(int64_t a, size_t n) const {
    const size_t hi = std::min(by_start_.size() - 1, index(a) + n);
    return {a, std::max(a, by_start_[hi].first)};
  }

  // Takes `w` if its events fit what is left; returns whether it did.
  bool take(TimeWindow w, std::vector<TimeWindow>& out) {
    const size_t n = count(w.start_ns, w.end_ns);
    if (n > left_) return false;
    out.push_back(w);
    spend(n);
    return true;
  }

 private:
  size_t index(int64_t ts) const {
    return static_cast<size_t>(
        std::lower_bound(by_start_.begin(), by_start_.end(), Start{ts, 0}) - by_start_.begin());
  }
  size_t left_;
  std::vector<Start> by_start_;
};

// The events the findings point at, each with some context around it.
void plan_finding_windows(const Trace& t, const std::vector<Finding>& findings, Planner& p,
                          std::vector<TimeWindow>& out) {
  std::vector<EventId> refs;
  for (const Finding& f : findings)
    for (const EventRef& r : f.events)
      if (r.event < t.size() && std::find(refs.begin(), refs.end(), r.event) == refs.end()) refs.push_back(r.event);
  if (refs.empty()) return;
  // Half the budget at most, so that whole steps still fit.
  const size_t share = std::max(kMinWindowEvents, p.left() / (2 * refs.size()));
  for (EventId e : refs) {
    const int64_t a = t.start_ns[e], b = t.end_ns(e);
    TimeWindow w = p.around(a, std::min(share, p.left()));
    w.start_ns = std::min(w.start_ns, a);
    if (p.count(a, b) <= share) w.end_ns = std::max(w.end_ns, b);  // the whole event when it fits
    if (!p.take(w, out) && p.left() >= kMinWindowEvents) p.take(p.from(a, p.left()), out);
  }
}

// Steps: the outliers first (cold start, slowest, fastest), then the steady-state steps closest
// to the median, each whole (with the GPU work it launched), while they fit.
void plan_step_windows(const Facts& f, Planner& p, std::vector<TimeWindow>& out) {
  const std::vector<StepFacts>& steps = f.steps;
  std::vector<size_t> order(steps.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::vector<int64_t> durations;
  for (const StepFacts& s : steps) durations.push_back(s.duration_ns);
  std::nth_element(durations.begin(), durations.begin() + durations.size() / 2, durations.end());
  const int64_t median = durations[durations.size() / 2];
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return std::llabs(steps[a].duration_ns - median) < std::llabs(steps[b].duration_ns - median);
  });
  auto by_duration = [&](size_t a, size_t b) { return steps[a].duration_ns < steps[b].duration_ns; };
  const size_t slowest = *std::max_element(order.begin(), order.end(), by_duration);
  const size_t fastest = *std::min_element(order.begin(), order.end(), by_duration);
  std::vector<size_t> outliers;
  if (f.cold_start.step_index >= 0) outliers.push_back(static_cast<size_t>(f.cold_start.step_index));
  outliers.push_back(slowest);
  outliers.push_back(fastest);
  // The step whose critical path the page draws (html/path_overlay.cpp), with all its events around the path.
  if (f.graph.path_step >= 0 && static_cast<size_t>(f.graph.path_step) < steps.size())
    outliers.push_back(static_cast<size_t>(f.graph.path_step));
  order.insert(order.begin(), outliers.begin(), outliers.end());

  std::vector<uint8_t> taken(steps.size(), 0);
  bool any = false;
  for (size_t i : order) {
    if (taken[i] || p.left() < kMinWindowEvents) continue;
    const StepFacts& s = steps[i];
    const TimeWindow whole{s.start_ns, std::max(s.end_ns, s.gpu_end_ns)};
    if (p.take(whole, out)) {
      taken[i] = 1;
      any = true;
    } else if (!any) {  // even one step is too large: its beginning
      p.take(p.from(s.start_ns, p.left()), out);
      any = true;
    }
  }
}

void merge(std::vector<TimeWindow>& w) {
  std::sort(w.begin(), w.end(), [](const TimeWindow& a, const TimeWindow& b) { return a.start_ns < b.start_ns; });
  std::vector<TimeWindow> merged;
  for (const TimeWindow& x : w) {
    if (!merged.empty() && x.start_ns <= merged.back().end_ns)
      merged.back().end_ns = std::max(merged.back().end_ns, x.end_ns);
    else
      merged.push_back(x);
  }
  w = std::move(merged);
}

// Whether [start, end] touches one of the (merged, ascending) windows.
bool touches(const std::vector<TimeWindow>& w, int64_t start, int64_t end) {
  auto it = std::upper_bound(w.begin(), w.end(), start,
                             [](int64_t ts, const TimeWindow& x) { return ts < x.start_ns; });
  if (it != w.begin() && start <= std::prev(it)->end_ns) return true;
  return it != w.end() && it->start_ns <= end;
}

// Embeds every event touching the windows, and counts what is embedded.
void mark(const Trace& t, const Planner& p, Selection& s) {
  for (const Start& x : p.by_start())
    if (touches(s.windows, x.first, t.end_ns(x.second))) s.embedded[x.second] = 1;
  for (uint8_t m : s.embedded) s.embedded_count += m;
}

}  // namespace

bool is_drawable(const Trace& t, EventId e) {
  return t.kind[e] != EventKind::Instant && t.kind[e] != EventKind::TraceSpan;
}

Selection select_window(const Trace& t, TimeWindow window, size_t budget) {
  Selection s;
  s.embedded.assign(t.size(), 0);
  Planner p(t, budget);
  s.drawable = p.drawable();
  if (!p.take(window, s.windows) && s.drawable > 0) p.take(p.from(window.start_ns, budget), s.windows);
  mark(t, p, s);
  return s;
}

Selection select_events(const Trace& t, const Facts& f, const std::vector<Finding>& findings, size_t budget) {
  Selection s;
  s.embedded.assign(t.size(), 0);
  Planner p(t, budget);
  s.drawable = p.drawable();
  if (s.drawable <= budget) {
    for (EventId e = 0; e < t.size(); ++e) s.embedded[e] = is_drawable(t, e);
    s.embedded_count = s.drawable;
    s.windows = {{f.window.start_ns, f.window.end_ns}};
    s.complete = true;
    return s;
  }

  const int64_t long_ns = std::max<int64_t>(1, f.window.duration_ns / kScreenPixels);
  std::vector<EventId> long_events;
  for (const Start& x : p.by_start())
    if (t.dur_ns[x.second] >= long_ns) long_events.push_back(x.second);
  const size_t max_long = budget / kLongEventShareDivisor;
  if (long_events.size() > max_long) {
    std::nth_element(long_events.begin(), long_events.begin() + max_long, long_events.end(),
                     [&](EventId a, EventId b) { return t.dur_ns[a] > t.dur_ns[b]; });
    long_events.resize(max_long);
  }
  p.spend(long_events.size());
  // The critical path's events, one by one wherever the budget leaves its step: the page draws the path on them.
  std::vector<EventId> path_events;
  for (const PathSegment& x : f.graph.path)
    if (x.event != kNoEvent && is_drawable(t, x.event)) path_events.push_back(x.event);
  p.spend(path_events.size());

  plan_finding_windows(t, findings, p, s.windows);
  if (f.steps.size() >= 2) plan_step_windows(f, p, s.windows);
  else if (p.left() >= kMinWindowEvents)  // no steps to choose from: the middle of the trace
    s.windows.push_back(p.around(f.window.start_ns + f.window.duration_ns / 2, p.left()));
  merge(s.windows);

  for (EventId e : long_events) s.embedded[e] = 1;
  for (EventId e : path_events) s.embedded[e] = 1;
  mark(t, p, s);
  return s;
}

}  // namespace whyslow::report
