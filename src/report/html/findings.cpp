#include "report/html/findings.hpp"

#include <algorithm>

#include "analysis/event_names.hpp"
#include "analysis/intervals.hpp"

namespace whyslow::report {
namespace {

// Enough outlines to show the pattern; a trace with 100 000 syncs should not double the page.
constexpr size_t kMaxMarks = 5000;
// The longest queue delays drawn for launch_queue: the worst cases, not every launch.
constexpr size_t kMaxQueuePairs = 50;

struct Marks {
  std::vector<Interval> shade;                // spans to shade across all lanes
  std::vector<int32_t> mark, cover, queue;    // page indices; queue: launch, gpu, launch, gpu, …
};

class MarkBuilder {
 public:
  MarkBuilder(const Trace& t, const Facts& f, const TimelineIndex& index) : t_(t), f_(f), index_(index) {}

  Marks build(const Finding& x) {
    Marks m;
    for (const EventRef& r : x.events) {
      if (r.event >= t_.size()) continue;
      if (is_profiler_step(t_.name_of(r.event))) m.shade.emplace_back(t_.start_ns[r.event], t_.end_ns(r.event));
      else mark(m, r.event);
    }
    if (x.id == FindingId::sync_wait || x.id == FindingId::host_sync_in_loop) {
      waits(m);
    } else if (x.id == FindingId::launch_queue) {
      queue(m);
    } else if (x.id == FindingId::pageable_memcpy) {
      for (const CopyRow& c : f_.copies.pageable) {
        mark(m, c.event);
        mark(m, t_.launch_link[c.event]);
      }
    } else if (x.id == FindingId::hidden_copy) {
      for (const CopyRow& c : f_.copies.device_to_device) mark(m, c.event);
    } else if (x.id == FindingId::compiled_region) {
      for (EventId e = 0; e < t_.size(); ++e)
        if (t_.kind[e] == EventKind::UserAnnotation && is_compiled_region(t_.name_of(e))) mark(m, e);
    } else if (x.id == FindingId::profiler_artifact) {
      for (EventId e : f_.profiler.events) mark(m, e);
    }
    return m;
  }

 private:
  int32_t page_index(EventId e) const { return e < t_.size() ? index_.of_event[e] : -1; }

  void mark(Marks& m, EventId e) {
    const int32_t i = page_index(e);
    if (i >= 0 && m.mark.size() < kMaxMarks && std::find(m.mark.begin(), m.mark.end(), i) == m.mark.end())
      m.mark.push_back(i);
  }

  // Every blocking call, and the GPU work that ran while the CPU sat in one: often very little.
  void waits(Marks& m) {
    std::vector<Interval> spans;
    for (const SyncCall& c : f_.syncs.calls) {
      mark(m, c.event);
      spans.emplace_back(t_.start_ns[c.event], t_.end_ns(c.event));
    }
    merge_intervals(spans);
    for (EventId e = 0; e < t_.size() && m.cover.size() < kMaxMarks; ++e)
      if (is_gpu_activity(t_.kind[e]) && page_index(e) >= 0 && covered_length(spans, t_.start_ns[e], t_.end_ns(e)) > 0)
        m.cover.push_back(page_index(e));
  }

  void queue(Marks& m) {
    std::vector<std::pair<int64_t, EventId>> delays;
    for (EventId e = 0; e < t_.size(); ++e) {
      const EventId host = t_.launch_link[e];
      if (!is_gpu_activity(t_.kind[e]) || host == kNoEvent || page_index(e) < 0 || page_index(host) < 0) continue;
      delays.emplace_back(t_.start_ns[e] - t_.start_ns[host], e);
    }
    const size_t n = std::min(kMaxQueuePairs, delays.size());
    std::partial_sort(delays.begin(), delays.begin() + static_cast<ptrdiff_t>(n), delays.end(),
                      [](const auto& a, const auto& b) { return a.first > b.first; });
    for (size_t i = 0; i < n; ++i) {
      m.queue.push_back(page_index(t_.launch_link[delays[i].second]));
      m.queue.push_back(page_index(delays[i].second));
    }
  }

  const Trace& t_;
  const Facts& f_;
  const TimelineIndex& index_;
};

}  // namespace

void write_findings(CompactJson& w, const Trace& t, const Facts& f, const std::vector<Finding>& findings,
                    const TimelineIndex& index) {
  const int64_t t0 = f.window.start_ns;
  MarkBuilder marks(t, f, index);
  w.key("findings").begin_array();
  for (const Finding& x : findings) {
    w.begin_object();
    w.key("id").string(to_string(x.id));
    w.key("severity").string(to_string(x.severity));
    w.key("title").string(x.title);
    w.key("detail").string(x.detail);
    w.key("impact_ns").integer(x.impact_ns);
    w.key("evidence").begin_array();
    for (const Evidence& e : x.evidence) w.begin_array().string(e.key).number(e.value).string(e.unit).end_array();
    w.end_array();
    w.key("try").begin_array();
    for (const std::string& s : x.try_next) w.string(s);
    w.end_array();
    w.key("events").begin_array();
    for (const EventRef& r : x.events) {
      if (r.event >= t.size()) continue;  // a rule that found no event leaves kNoEvent
      w.begin_object();
      w.key("role").string(r.role);
      w.key("name").string(t.name_of(r.event));
      w.key("track").string(t.tracks[t.track[r.event]].name);
      w.key("start").integer(t.start_ns[r.event] - t0);
      w.key("dur").integer(t.dur_ns[r.event]);
      w.key("i").integer(index.of_event[r.event]);
      w.end_object();
    }
    w.end_array();
    const Marks m = marks.build(x);
    w.key("shade").begin_array();
    for (const Interval& s : m.shade) w.begin_array().integer(s.first - t0).integer(s.second - t0).end_array();
    w.end_array();
    w.key("mark").integers(m.mark);
    w.key("cover").integers(m.cover);
    w.key("queue").integers(m.queue);
    w.end_object();
  }
  w.end_array();
}

}  // namespace whyslow::report
