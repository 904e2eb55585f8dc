#include "report/json/diff_window_json.hpp"

namespace whyslow {
namespace {

using report::JsonWriter;
using Layout = JsonWriter::Layout;

void side_by_side(JsonWriter& w, const SideBySide& s) {
  w.key("a_us").microseconds(s.a_ns);
  w.key("b_us").microseconds(s.b_ns);
  w.key("faster");
  if (s.faster.empty()) w.null();
  else w.string(s.faster);
  w.key("ratio").number(s.ratio);
}

void parts(JsonWriter& w, const char* side, const std::vector<OneOffPart>& ps) {
  for (const OneOffPart& p : ps) {
    w.begin_object(Layout::Inline);
    w.key("side").string(side);
    w.key("kind").string(p.kind);
    w.key("count").unsigned_integer(p.count);
    w.key("us").microseconds(p.ns);
    w.key("detail").string(p.detail);
    w.end_object();
  }
}

}  // namespace

void write_window_and_steady(JsonWriter& w, const Diff& d) {
  const Verdict& v = d.verdict;
  w.key("window").begin_object(Layout::Inline);
  side_by_side(w, v.window);
  w.key("a_steps").unsigned_integer(v.window.a_steps);
  w.key("b_steps").unsigned_integer(v.window.b_steps);
  w.end_object();
  w.key("one_off").begin_object();
  w.key("a_us").microseconds(d.a.one_off.ns);
  w.key("b_us").microseconds(d.b.one_off.ns);
  w.key("parts").begin_array();
  parts(w, "a", d.a.one_off.parts);
  parts(w, "b", d.b.one_off.parts);
  w.end_array();
  w.end_object();
  w.key("steady").begin_object(Layout::Inline);
  side_by_side(w, v.steady);
  w.key("basis").begin_object(Layout::Inline);
  w.key("a").string(v.steady.a_basis);
  w.key("b").string(v.steady.b_basis);
  w.end_object();
  w.end_object();
  w.key("caveats").begin_array();
  for (const std::string& c : v.caveats) w.string(c);
  w.end_array();
  w.key("mechanism").begin_array();
  for (const std::string& m : v.mechanism) w.string(m);
  w.end_array();
  w.key("recording_explains").boolean(v.recording_explains);
  w.key("per_unit");
  if (v.per_unit.unit.empty()) {
    w.null();
  } else {
    w.begin_object(Layout::Inline);
    w.key("unit").string(v.per_unit.unit);
    w.key("a_units").number(v.per_unit.a_units);
    w.key("b_units").number(v.per_unit.b_units);
    side_by_side(w, v.per_unit);
    w.key("scaled_work_share").number(v.per_unit.scaled_work_share);
    w.key("evidence").string(v.per_unit.evidence);
    w.end_object();
  }
  w.key("break_even");
  if (v.break_even.status.empty()) {
    w.null();
  } else {
    w.begin_object(Layout::Inline);
    w.key("status").string(v.break_even.status);
    w.key("calls");
    if (v.break_even.status == "after") w.number(v.break_even.calls);
    else w.null();
    w.key("basis").string(v.break_even.basis);
    w.end_object();
  }
}

}  // namespace whyslow
