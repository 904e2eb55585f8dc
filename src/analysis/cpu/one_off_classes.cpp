// The slow one-off calls the one-off classes match by duration.
#include "analysis/cpu/host_waits.hpp"
#include "analysis/cpu/one_off_classes.hpp"

namespace whyslow {

OneOffInput find_slow_calls(const Trace& t, const std::vector<Interval>& gpu_busy) {
  OneOffInput in{t, {}, kNoEvent};
  HostWaitNames waits(t);
  for (EventId e = 0; e < t.size(); ++e) {
    if (!is_host_api(t.kind[e]) || !is_cuda_or_hip_api(t.name_of(e))) continue;
    if (in.first_api_call == kNoEvent || t.start_ns[e] < t.start_ns[in.first_api_call]) in.first_api_call = e;
    if (t.dur_ns[e] < kSlowCallNs || waits.of(e) != HostWait::None || is_copy_call(t.name_of(e))) continue;
    const int64_t busy = covered_length(gpu_busy, t.start_ns[e], t.end_ns(e));
    if (static_cast<double>(busy) > kSlowCallMaxGpuBusyShare * static_cast<double>(t.dur_ns[e])) continue;
    in.slow_calls.push_back(e);
  }
  return in;
}

}  // namespace whyslow
