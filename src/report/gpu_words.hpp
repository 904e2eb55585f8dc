// The GPU's part of a trace's one-line summary, shared by `explain`'s header and the HTML page's:
// "GPU busy 18.6 µs (0.0128 %)" only where the trace records the GPU. A trace without its records
// must not read as an idle GPU, and a CPU-only run has no GPU to be busy ("GPU busy 0 ns").
#pragma once

#include <string>

#include "analysis/facts.hpp"

namespace whyslow::report {

// "GPU busy 58.6 ms (29.8 %)", "no GPU work", "GPU work launched, not recorded", "GPU work not
// recorded" or "nothing recorded".
std::string gpu_summary(const Facts& facts);

}  // namespace whyslow::report
