#include "analysis/cpu/kernel_timing.hpp"

#include "analysis/core/event_names.hpp"
#include "analysis/core/track_range.hpp"

namespace whyslow {
namespace {

// At least this many event records and one host wait on an event: a start and an end event around
// one candidate, then a wait to read them (cuDNN's benchmark mode: 20 records and 21 waits inside
// each new convolution shape's call). A warm call records none.
constexpr int kMinTimingRecords = 2;
constexpr int kMinTimingWaits = 1;

}  // namespace

KernelTiming kernel_timing_inside(const Trace& t, EventId call) {
  int records = 0, waits = 0;
  KernelTiming out;
  for (EventId x : starting_in(t, t.track[call], t.start_ns[call], t.end_ns(call), true)) {
    if (t.end_ns(x) > t.end_ns(call)) continue;
    const std::string_view n = t.name_of(x);
    if (is_host_api(t.kind[x])) {
      records += is_event_record(n);
      waits += is_event_sync(n);
    } else if (t.kind[x] == EventKind::CpuOp && n.find("cudnn_convolution") != std::string_view::npos) {
      out.convolution = true;
    }
  }
  out.timed = records >= kMinTimingRecords && waits >= kMinTimingWaits;
  return out;
}

}  // namespace whyslow
