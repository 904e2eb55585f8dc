#include "explain/rules/graph_capture_gain.hpp"

namespace whyslow {

const WhatIf* graph_capture_gain(const Facts& f) {
  const WhatIf* best = nullptr;
  for (const WhatIf& w : f.graph.what_if)
    if (w.edit == "cuda-graphs" && w.per_step && w.step_ns > 0 &&
        static_cast<double>(w.step_ns - w.predicted_step_ns) >= kMinGraphCaptureGainShare * static_cast<double>(w.step_ns) &&
        (!best || w.predicted_step_ns < best->predicted_step_ns))
      best = &w;
  return best;
}

}  // namespace whyslow
