// torch.profiler.schedule() semantics (torch/profiler/profiler.py), step by step:
// skip_first steps do nothing; then, in each cycle of wait + warmup + active steps, the first
// `wait` do nothing, the next `warmup` warm up, the rest record, and the last of those also
// saves. With skip_first_wait the first cycle starts `wait` steps in. After `repeat` cycles
// (when repeat > 0) nothing happens any more.
#include <stdexcept>
#include <string>

#include "profiler/warnings.hpp"
#include "whyslow/profiler.hpp"

namespace whyslow {

std::string_view to_string(ProfilerAction action) {
  switch (action) {
    case ProfilerAction::None: return "NONE";
    case ProfilerAction::Warmup: return "WARMUP";
    case ProfilerAction::Record: return "RECORD";
    case ProfilerAction::RecordAndSave: return "RECORD_AND_SAVE";
  }
  return "NONE";
}

namespace {

ProfilerAction action_at(const Schedule& s, int64_t step) {
  if (step < s.skip_first) return ProfilerAction::None;
  step -= s.skip_first;
  if (s.skip_first_wait) step += s.wait;
  const int64_t cycle = s.wait + s.warmup + s.active;
  if (s.repeat > 0 && step >= s.repeat * cycle) return ProfilerAction::None;
  const int64_t in_cycle = step % cycle;
  if (in_cycle < s.wait) return ProfilerAction::None;
  if (in_cycle < s.wait + s.warmup) return ProfilerAction::Warmup;
  return in_cycle < cycle - 1 ? ProfilerAction::Record : ProfilerAction::RecordAndSave;
}

}  // namespace

ScheduleFunction schedule(const Schedule& s) {
  if (s.wait < 0 || s.warmup < 0 || s.active < 1 || s.repeat < 0 || s.skip_first < 0)
    throw std::invalid_argument(
        "whyslow::schedule: need wait >= 0, warmup >= 0, active >= 1, repeat >= 0 and "
        "skip_first >= 0; got wait=" + std::to_string(s.wait) + ", warmup=" +
        std::to_string(s.warmup) + ", active=" + std::to_string(s.active) + ", repeat=" +
        std::to_string(s.repeat) + ", skip_first=" + std::to_string(s.skip_first));
  if (s.warmup == 0)
    profiler_detail::warn_once("schedule-without-warmup",
                               "a schedule without warmup steps: the first recorded step pays "
                               "the profiler's start-up cost, which can skew its times");
  return [s](int64_t step) {
    if (step < 0) throw std::invalid_argument("whyslow::schedule: negative step " + std::to_string(step));
    return action_at(s, step);
  };
}

}  // namespace whyslow
