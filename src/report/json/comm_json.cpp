#include "report/json/comm_json.hpp"

namespace whyslow::report {

using Layout = JsonWriter::Layout;

void write_trace_comm(JsonWriter& w, const Trace&, const Facts& facts) {
  write_step_comm(w, facts.window);
  w.key("link");
  if (facts.comm.link.empty()) {
    w.null();
  } else {
    w.begin_object(Layout::Inline);
    w.key("name").string(facts.comm.link).key("peak_gbps").number(facts.comm.link_bytes_per_s / 1e9);
    w.end_object();
  }
}

void write_step_comm(JsonWriter& w, const StepFacts& s) {
  w.key("compute_us").microseconds(s.compute_ns);
  w.key("comm_us").microseconds(s.comm_ns);
  w.key("exposed_comm_us").microseconds(s.exposed_comm_ns);
}

void write_collectives(JsonWriter& w, const Trace& t, const Facts& facts) {
  w.key("collectives").begin_array();
  for (const CollectiveCall& c : facts.comm.calls) {
    const EventId k = c.kernel;
    w.begin_object(Layout::Inline);
    w.key("kernel").string(t.name_of(k));
    w.key("collective").string(to_string(c.kind));
    w.key("group");
    if (c.group != kNoName) w.string(t.names.view(c.group));
    else w.null();
    w.key("seq");
    if (c.seq >= 0) w.integer(c.seq);
    else w.null();
    w.key("ranks");
    if (c.ranks >= 0) w.integer(c.ranks);
    else w.null();
    w.key("bytes");
    if (c.bytes >= 0) w.integer(c.bytes);
    else w.null();
    w.key("start_us").microseconds(t.start_ns[k]);
    w.key("dur_us").microseconds(t.dur_ns[k]);
    const double bus = bus_bytes_per_s(c, t.dur_ns[k]);
    w.key("bus_gbps");
    if (bus > 0) w.number(bus / 1e9);
    else w.null();
    w.key("link_us");
    if (c.link_ns > 0) w.microseconds(c.link_ns);
    else w.null();
    w.key("step").integer(c.step);
    w.end_object();
  }
  w.end_array();
}

}  // namespace whyslow::report
