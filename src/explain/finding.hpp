// Findings: what whyslow tells the user. Each has a stable id that tools can match on, a
// severity, a one-line title, a paragraph a newcomer understands, the numbers behind it, the
// events that prove it, and what to try. No finding is made without evidence.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/facts.hpp"

namespace whyslow {

enum class Severity : uint8_t { Info, Warning, Critical };
std::string_view to_string(Severity s);

// One number behind a finding: {"step_ms", 83.79, "ms"}. `key` is stable (snake_case).
struct Evidence {
  std::string key;
  double value = 0;
  std::string unit;  // "us", "ms", "%", "x", "count", "GB/s", "MB"
};

// An event that proves the finding, so a reader can find it in Perfetto.
struct EventRef {
  EventId event = kNoEvent;
  std::string role;  // "slowest step", "longest wait", …
};

struct Finding {
  std::string id;  // stable: cold_start, overhead_bound, gpu_bound, launch_queue, sync_wait, …
  Severity severity = Severity::Info;
  std::string title;
  std::string detail;
  std::vector<Evidence> evidence;
  std::vector<EventRef> events;
  std::vector<std::string> try_next;
  int64_t impact_ns = 0;  // time at stake, for ordering findings of equal severity
};

// Runs every rule; findings come back most important first.
std::vector<Finding> explain(const Trace& trace, const Facts& facts);

}  // namespace whyslow
