// The "whyslow findings" track that `whyslow annotate` adds to a trace, for people who read
// traces in Perfetto: a process of its own, one thread per finding (named "1. [critical]
// cold_start"), a slice spanning the events the finding names (its title, detail, evidence and
// what to try as args), a slice or instant per named event, and a flow arrow from each of those
// to the event itself on its own thread or GPU stream.
#pragma once

#include <string>
#include <vector>

#include "explain/finding.hpp"

namespace whyslow::report {

struct FindingsTrack {
  std::vector<std::string> events;  // Chrome-trace event objects, one JSON object each
  int64_t pid = 0;                  // the process they are on
};

FindingsTrack findings_track(const Trace& trace, const Facts& facts, const std::vector<Finding>& findings);

}  // namespace whyslow::report
