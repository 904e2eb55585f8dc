#include "report/html/path_overlay.hpp"

#include <array>
#include <string>

#include "report/html/page_schema.hpp"

namespace whyslow::report {

void write_path_overlay(CompactJson& w, const Facts& f, const TimelineIndex& index) {
  using page_schema::at;
  using page_schema::PathField;
  const GraphFacts& g = f.graph;
  w.key("critical_path");
  bool held = !g.path.empty();
  for (const PathSegment& s : g.path) held = held && (s.event == kNoEvent || index.of_event[s.event] >= 0);
  if (!held) {
    w.null();
    return;
  }
  const int64_t t0 = f.window.start_ns;
  const size_t step = static_cast<size_t>(g.path_step);
  const bool stepped = step < f.steps.size();
  // A stepless trace's steps are its loop's iterations (stepless_loop(), graph/step_replay.hpp), else its steady window.
  const std::string name = stepped ? f.steps[step].name
                           : g.steps.size() > 1 ? "iteration " + std::to_string(step + 1)
                                                : std::string("the steady window");
  w.begin_object();
  w.key("step").integer(stepped ? g.path_step : -1);
  w.key("name").string(name);
  w.key("start").integer(g.path.front().start_ns - t0);
  w.key("end").integer(g.path.back().end_ns - t0);
  // The step's end as replayed: later than the path's where kMaxPathSegments cut it.
  w.key("step_end").integer(g.path.front().start_ns + g.steps[step].replay_ns - t0);
  w.key("segments").begin_array();
  for (const PathSegment& s : g.path) {
    std::array<int64_t, at(PathField::Stride)> v{};
    v[at(PathField::Event)] = s.event == kNoEvent ? -1 : index.of_event[s.event];
    v[at(PathField::Lane)] = s.track < index.lane_of_track.size() ? index.lane_of_track[s.track] : -1;
    v[at(PathField::Start)] = s.start_ns - t0;
    v[at(PathField::Duration)] = s.end_ns - s.start_ns;
    v[at(PathField::Kind)] = static_cast<int64_t>(s.kind);
    for (int64_t x : v) w.integer(x);
  }
  w.end_array();
  w.end_object();
}

}  // namespace whyslow::report
