#include "report/json/graph_json.hpp"

#include "analysis/graph/what_if.hpp"
#include "report/json/json_report.hpp"

namespace whyslow::report {

using Layout = JsonWriter::Layout;

void write_critical_path(JsonWriter& w, const std::vector<PathPart>& path) {
  w.begin_array();
  for (const PathPart& p : path) {
    w.begin_object(Layout::Inline);
    w.key("kind").string(to_string(p.kind)).key("what").string(p.what).key("us").microseconds(p.ns);
    w.end_object();
  }
  w.end_array();
}

void write_step_replay(JsonWriter& w, const Facts& facts, size_t step) {
  const GraphFacts& g = facts.graph;
  if (!g.built || facts.steps.empty() || step >= g.steps.size() || g.steps[step].measured_ns == 0) {
    w.key("replay_us").null();
    w.key("critical_path").begin_array(Layout::Inline).end_array();
    return;
  }
  w.key("replay_us").microseconds(g.steps[step].replay_ns);
  w.key("critical_path");
  write_critical_path(w, g.steps[step].critical_path);
}

void write_what_if(JsonWriter& w, const WhatIf& x) {
  w.begin_object(Layout::Inline);
  w.key("edit").string(x.edit).key("param").string(x.param).key("title").string(x.title).key("change").string(x.change);
  w.key("scope").string(x.scope);
  w.key("step_us").microseconds(x.step_ns).key("predicted_step_us").microseconds(x.predicted_step_ns);
  w.key("saved_us").microseconds(x.step_ns - x.predicted_step_ns);
  w.end_object();
}

void write_replay(JsonWriter& w, const Facts& facts) {
  const GraphFacts& g = facts.graph;
  w.key("replay");
  if (!g.built) {
    w.null();
  } else {
    w.begin_object();
    w.key("nodes").unsigned_integer(g.nodes).key("edges").unsigned_integer(g.edges);
    w.key("steady_step_us").microseconds(g.steady_step_ns).key("steady_replay_us").microseconds(g.steady_replay_ns);
    w.key("worst_step_error").number(g.worst_replay_error);
    w.key("nominal").begin_object(Layout::Inline);
    w.key("launch_us").microseconds(g.nominal.launch_ns).key("stream_gap_us").microseconds(g.nominal.stream_gap_ns);
    w.key("wake_us").microseconds(g.nominal.wake_ns).key("wait_call_us").microseconds(g.nominal.wait_call_ns);
    w.end_object();
    // A stepless trace has no steps[] to carry it: its window's path is here.
    w.key("critical_path");
    if (facts.steps.empty() && !g.steps.empty()) write_critical_path(w, g.steps.front().critical_path);
    else w.null();
    w.end_object();
  }
  w.key("what_if").begin_array();
  for (const WhatIf& x : g.what_if) write_what_if(w, x);
  if (!g.all_together.edit.empty()) write_what_if(w, g.all_together);
  w.end_array();
}

}  // namespace whyslow::report

namespace whyslow {

std::string render_what_if_json(const WhatIfAnswer& answer) {
  report::JsonWriter w;
  w.begin_object();
  w.key("what_if");
  report::write_what_if(w, answer.result);
  w.key("changes").begin_array();
  for (const std::string& c : answer.changes) w.string(c);
  w.end_array();
  w.key("critical_path");
  report::write_critical_path(w, answer.critical_path);
  w.end_object();
  return w.take();
}

}  // namespace whyslow
