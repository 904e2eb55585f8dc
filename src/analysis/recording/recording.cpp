// What the profiler recorded. A trace recorded with ProfilerActivity.CPU alone on a GPU machine
// still holds the CUDA calls (torch 2.11 records cudaLaunchKernel and friends without CUDA
// activity: tests/fixtures/first_minutes/), and one whose CUPTI records were dropped (WSL, a
// container without the driver's profiling rights) holds them too: both have GPU work with no
// record of it on the GPU, and every GPU number (busy, idle, the bound verdict) would be made up.
// A CPU program's trace has no such call (nor a sync); an empty one has none of anything.
#include "analysis/core/event_names.hpp"
#include "analysis/core/name_memo.hpp"
#include "analysis/passes.hpp"

namespace whyslow {

std::string_view to_string(Recorded r) {
  switch (r) {
    case Recorded::Nothing: return "nothing";
    case Recorded::CpuOnly: return "cpu_only";
    case Recorded::GpuNotRecorded: return "gpu_not_recorded";
    case Recorded::Gpu: return "gpu";
  }
  return "nothing";
}

namespace {

// What a host API call's name says it does with the GPU, asked once per name (NameMemo).
enum class GpuCall : uint8_t { None, Work, Sync };
GpuCall gpu_call(std::string_view name) {
  if (is_gpu_work_call(name)) return GpuCall::Work;
  return is_sync_call(name) ? GpuCall::Sync : GpuCall::None;
}

}  // namespace

RecordingFacts recording(const Trace& t) {
  RecordingFacts r;
  NameMemo<GpuCall, GpuCall (*)(std::string_view)> calls(t, gpu_call);
  for (EventId e = 0; e < t.size(); ++e) {
    switch (t.kind[e]) {
      case EventKind::CpuOp: ++r.cpu_ops; break;
      case EventKind::UserAnnotation: ++r.annotations; break;
      case EventKind::PythonFunction: ++r.python_frames; break;
      case EventKind::Runtime:
      case EventKind::Driver:
        switch (calls.of(e)) {
          case GpuCall::Work: ++r.gpu_work_calls; break;
          case GpuCall::Sync: ++r.gpu_sync_calls; break;
          case GpuCall::None: break;
        }
        break;
      case EventKind::Kernel:
      case EventKind::Memcpy:
      case EventKind::Memset: ++r.gpu_records; break;
      default: break;
    }
  }
  r.from_torch = r.cpu_ops > 0 || r.python_frames > 0;
  // A sync alone is not work: torch's profiler makes one when it starts (an empty profile holds
  // it); CPU work that synchronizes with the GPU is a GPU program's.
  const bool cpu_work = r.cpu_ops + r.annotations + r.python_frames > 0;
  if (r.gpu_records > 0) r.what = Recorded::Gpu;
  else if (r.gpu_work_calls > 0 || (cpu_work && r.gpu_sync_calls > 0)) r.what = Recorded::GpuNotRecorded;
  else if (cpu_work) r.what = Recorded::CpuOnly;
  else r.what = Recorded::Nothing;
  return r;
}

}  // namespace whyslow
