// The one op of the user's that holds most of the host's time in the windows a bound verdict
// speaks about, on every call: a top-level op on the window's thread (called by the user's code,
// not inside another op) that launches no GPU work, so its time is the host's own work (a sparse
// COO tensor coalesced on the CPU every step: aten::coalesce, 80 % of the step). The verdicts in
// which the GPU waits for the CPU (cpu_prefix, overhead_bound) name it, with advice that fits it.
#pragma once

#include <string>

#include "explain/rules/bound_scope.hpp"

namespace whyslow {

struct HostOp {
  NameId name = kNoName;
  int64_t ns = 0;               // its calls' time in the windows, less host waits inside them
  uint64_t calls = 0;           // in the windows
  double share = 0;             // ns of the windows' total duration
  size_t windows = 0;           // the windows it ran in (all of them when found)
  EventId longest = kNoEvent;   // its longest call
  bool found() const { return name != kNoName; }
};

// The op, or none (found() false) where no op holds most of the windows or one misses a window.
HostOp dominant_host_op(const Trace& trace, const Facts& facts, const BoundScope& scope);

// "aten::coalesce takes 7.34 ms of each 8.86 ms step (83 %), 1 call a step, in every one of the 5
// steps, and launches no GPU work: …" — a sentence for the detail.
std::string host_op_words(const Trace& trace, const Facts& facts, const BoundScope& scope, const HostOp& op);
// What to do about it: the op's own fix where whyslow knows one (coalesce), else the per-call rule.
std::string host_op_advice(const Trace& trace, const BoundScope& scope, const HostOp& op);

// Whether the windows show lazy submission: queued work sent by a host wait (GpuIdle::
// submitted_at_wait) at least once per window, not by chance once in a few.
bool shows_lazy_submission(const BoundScope& scope);
// " The GPU started queued work only as the host next waited for it (…): lazy submission …" when
// the windows show it, else "".
std::string lazy_submission_words(const BoundScope& scope);

}  // namespace whyslow
