#include "report/json/idle_json.hpp"

#include <string>

namespace whyslow::report {

void write_gpu_idle(JsonWriter& w, const GpuIdle& idle) {
  w.key("gpu_idle").begin_object(JsonWriter::Layout::Inline);
  w.key("busy_us").microseconds(idle.busy_ns);
  for (size_t c = 0; c < kIdleCauses; ++c)
    w.key(std::string(to_string(static_cast<IdleCause>(c))) + "_us").microseconds(idle.ns[c]);
  w.key("gaps").unsigned_integer(idle.gaps);
  w.key("stream_waits").unsigned_integer(idle.stream_waits);
  w.key("submitted_at_wait").unsigned_integer(idle.submitted_at_wait);
  w.end_object();
}

}  // namespace whyslow::report
