// `whyslow info --json` (docs/JSON.md, "whyslow info --json"): the loaded trace's tracks and devices.
#include "report/json/json_report.hpp"
#include "report/json/json_writer.hpp"

namespace whyslow {

std::string render_info_json(const Trace& trace) {
  report::JsonWriter w;
  w.begin_object();
  w.key("path").string(trace.path);
  w.key("events").unsigned_integer(trace.size());
  w.key("input_bytes").unsigned_integer(trace.input_bytes);
  w.key("relinked_launches").unsigned_integer(trace.repaired_op_links);
  w.key("tracks").begin_array();
  for (const Track& t : trace.tracks) {
    w.begin_object(report::JsonWriter::Layout::Inline);
    w.key("kind").string(to_string(t.kind));
    w.key("pid").string(t.pid);
    w.key("tid").string(t.tid);
    w.key("name").string(t.name);
    w.key("events").unsigned_integer(t.events.size());
    w.end_object();
  }
  w.end_array();
  w.key("devices").begin_array();
  for (const DeviceInfo& d : trace.devices) {
    w.begin_object(report::JsonWriter::Layout::Inline);
    w.key("id").integer(d.id);
    w.key("name").string(d.name);
    w.key("sms").integer(d.num_sms);
    w.key("memory_bytes").integer(d.total_global_mem);
    w.key("compute_capability").string(d.compute_major < 0 ? "" : std::to_string(d.compute_major) + "." +
                                                                     std::to_string(d.compute_minor));
    w.end_object();
  }
  w.end_array();
  w.end_object();
  return w.take() + "\n";
}

}  // namespace whyslow
