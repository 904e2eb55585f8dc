#include "report/html/findings.hpp"

namespace whyslow::report {
namespace {

// The page's index of each highlighted event it holds: events left out of a large trace's page
// are not drawn (the rules' caps already keep these lists short).
class PageEvents {
 public:
  explicit PageEvents(const TimelineIndex& index) : index_(index) {}
  int32_t operator()(EventId e) const { return e < index_.of_event.size() ? index_.of_event[e] : -1; }
  std::vector<int32_t> of(const std::vector<EventId>& events) const {
    std::vector<int32_t> out;
    for (EventId e : events)
      if ((*this)(e) >= 0) out.push_back((*this)(e));
    return out;
  }

 private:
  const TimelineIndex& index_;
};

void write_highlights(CompactJson& w, const Highlights& h, const PageEvents& page, int64_t t0) {
  w.key("shade").begin_array();
  for (const auto& [a, b] : h.shade) w.begin_array().integer(a - t0).integer(b - t0).end_array();
  w.end_array();
  w.key("shade_strong").boolean(h.shade_emphasis == ShadeEmphasis::Strong);
  w.key("mark").integers(page.of(h.mark));
  w.key("marks_are_waits").boolean(h.marks_are_waits);
  w.key("cover").integers(page.of(h.cover));
  std::vector<int32_t> queue;  // launch, gpu, launch, gpu, …: pairs the page holds both ends of
  for (const auto& [launch, gpu] : h.queue)
    if (page(launch) >= 0 && page(gpu) >= 0) {
      queue.push_back(page(launch));
      queue.push_back(page(gpu));
    }
  w.key("queue").integers(queue);
}

}  // namespace

void write_findings(CompactJson& w, const Trace& t, const Facts& f, const std::vector<Finding>& findings,
                    const TimelineIndex& index) {
  const int64_t t0 = f.window.start_ns;
  const PageEvents page(index);
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
    w.key("code").begin_array();
    for (const CodeSnippet& c : x.code) w.begin_object().key("caption").string(c.caption).key("text").string(c.text).end_object();
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
    write_highlights(w, x.highlights, page, t0);
    w.end_object();
  }
  w.end_array();
}

}  // namespace whyslow::report
