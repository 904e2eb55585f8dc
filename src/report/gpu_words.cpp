#include "report/gpu_words.hpp"

#include <fmt/core.h>

#include "common/units.hpp"
#include "report/format.hpp"

namespace whyslow::report {

std::string gpu_summary(const Facts& facts) {
  switch (facts.recording.what) {
    case Recorded::Gpu:
      return fmt::format("GPU busy {} ({})", human_duration(facts.gpu_busy_ns),
                         format_percent(facts.gpu_busy_ns, facts.window.duration_ns));
    case Recorded::GpuNotRecorded:
      return facts.recording.gpu_work_calls > 0 ? "GPU work launched, not recorded" : "GPU work not recorded";
    case Recorded::CpuOnly: return "no GPU work";
    case Recorded::Nothing: break;
  }
  return "nothing recorded";
}

}  // namespace whyslow::report
