#include "report/annotate/annotate_events.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <type_traits>

#include "common/checked_math.hpp"
#include "report/json/json_writer.hpp"
#include "trace/number_text.hpp"

namespace whyslow::report {
namespace {

using Layout = JsonWriter::Layout;

// Flow ids of the arrows whyslow adds. Perfetto keys flows by category and id, so the "whyslow"
// category alone keeps them apart from the trace's own ac2g flows; starting at 2^40 also keeps them
// apart from launch correlation ids (which count up from 1) for readers that key on the id alone.
constexpr int64_t kFlowIdBase = int64_t{1} << 40;
constexpr std::string_view kCategory = "whyslow";

std::optional<int64_t> integer_text(std::string_view s) {
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || end != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

// One event per line in the output (the writer ends a document with a newline).
std::string one_line(JsonWriter& w) {
  std::string s = w.take();
  while (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

// A pid or tid as the trace wrote it: a number when its text is one ("10.0" stays 10.0, the
// process a viewer files its events under), else a string ("stream 7").
void write_id(JsonWriter& w, std::string_view text) {
  if (const auto v = integer_text(text)) w.integer(*v);
  else if (is_json_number(text)) w.raw(text);
  else w.string(text);
}

// The integer pids a pid's text names for a viewer: its value when it is an integer however it is
// written ("10", "10.0", "1e1" are one process to Perfetto), both integers around a fraction.
void add_pids_named(std::string_view text, std::vector<int64_t>& used) {
  if (const auto v = integer_text(text)) return used.push_back(*v);
  if (!is_json_number(text)) return;
  // Beyond ±2^62 a double's integers are far apart and no free pid is near: leave them out.
  constexpr double kFarPid = 4.6e18;
  const double value = std::strtod(std::string(text).c_str(), nullptr);
  if (!(std::fabs(value) < kFarPid)) return;
  used.push_back(static_cast<int64_t>(std::floor(value)));
  used.push_back(static_cast<int64_t>(std::ceil(value)));
}

// A process id no event of the trace uses (tracks, and processes that only metadata names), so
// the findings get a process of their own: one above the largest, or where that would not fit
// in int64 (a pid of INT64_MAX), the smallest non-negative one free.
int64_t free_pid(const Trace& t) {
  std::vector<int64_t> used = {0};
  for (const Track& tr : t.tracks) add_pids_named(tr.pid, used);
  for (const NameId pid : t.metadata_pids) add_pids_named(t.names.view(pid), used);
  std::sort(used.begin(), used.end());
  if (const auto above = checked_add(used.back(), 1)) return *above;
  int64_t pid = 0;
  for (const int64_t u : used)
    if (u == pid) ++pid;  // sorted: the first gap at or above 0
    else if (u > pid) break;
  return pid;
}

// The first flow id whyslow's arrows take: above every flow id of the trace, so a trace annotated
// twice (or holding another tool's flows that high) keeps its ids apart. Ids beyond 2^62 are
// hostile, not another tool's: counting up from them could overflow, so the base is kept.
int64_t first_flow_id(const Trace& t) {
  constexpr int64_t kHighestBase = int64_t{1} << 62;
  return t.flows.max_id >= kFlowIdBase && t.flows.max_id < kHighestBase ? t.flows.max_id + 1 : kFlowIdBase;
}

// A metadata event: {"name": what, "ph": "M", "pid": …, "tid": …, "args": {key: value}}.
template <typename Value>
std::string metadata(int64_t pid, int64_t tid, std::string_view what, std::string_view key, Value value) {
  JsonWriter w;
  w.begin_object(Layout::Inline).key("name").string(what).key("ph").string("M");
  w.key("pid").integer(pid).key("tid").integer(tid).key("args").begin_object(Layout::Inline).key(key);
  if constexpr (std::is_integral_v<Value>) w.integer(value);
  else w.string(value);
  w.end_object().end_object();
  return one_line(w);
}

class TrackWriter {
 public:
  TrackWriter(const Trace& t, const Facts& f, FindingsTrack& out) : t_(t), f_(f), out_(out) {}

  void finding(const Finding& x, int64_t tid) {
    out_.events.push_back(metadata(out_.pid, tid, "thread_name", "name",
                                   fmt::format("{}. [{}] {}", tid, to_string(x.severity), to_string(x.id))));
    out_.events.push_back(metadata(out_.pid, tid, "thread_sort_index", "sort_index", tid));
    std::vector<EventId> refs;
    std::vector<std::string> roles;
    for (const EventRef& r : x.events) {
      if (r.event >= t_.size() || std::find(refs.begin(), refs.end(), r.event) != refs.end()) continue;
      refs.push_back(r.event);
      roles.push_back(r.role);
    }
    summary(x, tid, refs);
    // The named events, sorted as slices nest: each becomes a slice when it nests within (or
    // follows) the ones placed before it, else an instant, since a partial overlap would break
    // the thread's nesting in Perfetto.
    std::vector<size_t> order(refs.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      const EventId x1 = refs[a], x2 = refs[b];
      if (t_.start_ns[x1] != t_.start_ns[x2]) return t_.start_ns[x1] < t_.start_ns[x2];
      return t_.dur_ns[x1] > t_.dur_ns[x2];
    });
    std::vector<EventId> open;
    for (size_t i : order) {
      const EventId e = refs[i];
      while (!open.empty() && t_.end_ns(open.back()) <= t_.start_ns[e]) open.pop_back();
      const bool nests = open.empty() || t_.end_ns(e) <= t_.end_ns(open.back());
      named_event(e, roles[i], tid, nests);
      if (nests) {
        open.push_back(e);
        flow(e, tid);
      }
    }
  }

 private:
  // One slice over everything the finding names (or the whole window when it names nothing).
  void summary(const Finding& x, int64_t tid, const std::vector<EventId>& refs) {
    int64_t start = f_.window.start_ns, end = f_.window.end_ns;
    if (!refs.empty()) {
      start = INT64_MAX;
      end = INT64_MIN;
      for (EventId e : refs) {
        start = std::min(start, t_.start_ns[e]);
        end = std::max(end, t_.end_ns(e));
      }
    }
    JsonWriter w;
    w.begin_object(Layout::Inline).key("ph").string("X").key("cat").string(kCategory);
    w.key("name").string(fmt::format("{}: {}", to_string(x.id), x.title));
    w.key("pid").integer(out_.pid).key("tid").integer(tid);
    w.key("ts").microseconds(start).key("dur").microseconds(end - start);
    w.key("args").begin_object().key("id").string(to_string(x.id)).key("severity").string(to_string(x.severity));
    w.key("title").string(x.title).key("detail").string(x.detail);
    w.key("evidence").begin_object();
    for (const Evidence& e : x.evidence) w.key(e.key).string(fmt::format("{} {}", e.value, e.unit));
    w.end_object();
    w.key("try").begin_array();
    for (const std::string& s : x.try_next) w.string(s);
    w.end_array().end_object().end_object();
    out_.events.push_back(one_line(w));
  }

  void named_event(EventId e, const std::string& role, int64_t tid, bool as_slice) {
    JsonWriter w;
    w.begin_object(Layout::Inline).key("ph").string(as_slice ? "X" : "i").key("cat").string(kCategory);
    // The event's name in quotes: a name that began or ended like the event's own would be
    // counted as that event by name matchers (whyslow's own count "… (dynamo_timed)" as compilation).
    w.key("name").string(fmt::format("{}: \"{}\"", role, t_.name_of(e)));
    w.key("pid").integer(out_.pid).key("tid").integer(tid).key("ts").microseconds(t_.start_ns[e]);
    if (as_slice) w.key("dur").microseconds(t_.dur_ns[e]);
    else w.key("s").string("t");
    w.key("args").begin_object().key("role").string(role);
    w.key("event").string(t_.name_of(e)).key("track").string(t_.tracks[t_.track[e]].name);
    w.end_object().end_object();
    out_.events.push_back(one_line(w));
  }

  // From the finding's slice to the event on its own thread or stream ("bp": "e" binds the arrow's
  // head to the slice enclosing the timestamp: the event itself).
  void flow(EventId e, int64_t tid) {
    const int64_t id = first_flow_id_ + next_flow_++;
    const Track& tr = t_.tracks[t_.track[e]];
    JsonWriter s;
    s.begin_object(Layout::Inline).key("ph").string("s").key("cat").string(kCategory).key("name").string("whyslow finding");
    s.key("id").integer(id).key("pid").integer(out_.pid).key("tid").integer(tid).key("ts").microseconds(t_.start_ns[e]);
    s.end_object();
    out_.events.push_back(one_line(s));
    JsonWriter f;
    f.begin_object(Layout::Inline).key("ph").string("f").key("bp").string("e").key("cat").string(kCategory);
    f.key("name").string("whyslow finding").key("id").integer(id).key("pid");
    write_id(f, tr.pid);
    f.key("tid");
    write_id(f, tr.tid);
    f.key("ts").microseconds(t_.start_ns[e]).end_object();
    out_.events.push_back(one_line(f));
  }

  const Trace& t_;
  const Facts& f_;
  FindingsTrack& out_;
  const int64_t first_flow_id_ = first_flow_id(t_);
  int64_t next_flow_ = 0;
};

}  // namespace

FindingsTrack findings_track(const Trace& t, const Facts& f, const std::vector<Finding>& findings) {
  FindingsTrack out;
  out.pid = free_pid(t);
  out.events.push_back(metadata(out.pid, 0, "process_name", "name", std::string_view("whyslow findings")));
  // Kineto sorts CPU processes by pid and GPUs after them; -1 puts the findings on top.
  out.events.push_back(metadata(out.pid, 0, "process_sort_index", "sort_index", int64_t{-1}));
  TrackWriter writer(t, f, out);
  for (size_t i = 0; i < findings.size(); ++i) writer.finding(findings[i], static_cast<int64_t>(i + 1));
  return out;
}

}  // namespace whyslow::report
