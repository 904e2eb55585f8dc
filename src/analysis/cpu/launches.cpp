// Launch queue: how long each piece of GPU work waited between its launch call starting on the
// CPU and its start on the GPU. Asynchronous dispatch makes this delay the queue's length.
#include <algorithm>

#include "analysis/passes.hpp"

namespace whyslow {

LaunchFacts launch_queue(const Trace& t) {
  LaunchFacts f;
  for (EventId e = 0; e < t.size(); ++e) {
    if (t.is_launch(e)) ++f.launches;
    if (!is_gpu_activity(t.kind[e])) continue;
    const EventId host = t.launch_link[e];
    if (host == kNoEvent) {
      ++f.unlinked_gpu;
      continue;
    }
    ++f.linked;
    const int64_t delay = t.start_ns[e] - t.start_ns[host];
    f.delays_ns.push_back(delay);
    if (f.max_delay_kernel == kNoEvent || delay > f.max_delay_ns) {
      f.max_delay_ns = delay;
      f.max_delay_kernel = e;
    }
  }
  std::sort(f.delays_ns.begin(), f.delays_ns.end());
  return f;
}

}  // namespace whyslow
