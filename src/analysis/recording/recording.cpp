// What the profiler recorded. A trace recorded with ProfilerActivity.CPU alone on a GPU machine
// still holds the CUDA calls (torch 2.11 records cudaLaunchKernel and friends without CUDA
// activity: tests/fixtures/first_minutes/), and one whose CUPTI records were dropped (WSL, a
// container without the driver's profiling rights) holds them too: both have GPU work with no
// record of it on the GPU, and every GPU number (busy, idle, the bound verdict) would be made up.
// A CPU program's trace has no such call (nor a sync); an empty one has none of anything. A trace
// cut down to its CPU ops (HTA's test data is one) has no CUDA call left, but ops that run only
// with a GPU (NCCL's collectives, record_stream) or a GPU-only distributed backend still say that
// a GPU did the work, and so do matrix ops whose shapes give more FLOPs per second than a CPU has.
#include "analysis/core/event_names.hpp"
#include "trace/name_memo.hpp"
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
enum class GpuCall : uint8_t { None, Work, Sync, GpuOnlyOp };
GpuCall gpu_call(std::string_view name) {
  if (is_gpu_work_call(name)) return GpuCall::Work;
  if (is_sync_call(name)) return GpuCall::Sync;
  return is_gpu_only_op(name) ? GpuCall::GpuOnlyOp : GpuCall::None;
}

// Backends of torch.distributed that run only on GPUs ("nccl" is also ROCm's RCCL under torch).
bool is_gpu_only_backend(std::string_view backend) { return backend == "nccl" || backend == "rccl"; }

}  // namespace

RecordingFacts recording(const Trace& t) {
  RecordingFacts r;
  NameMemo<GpuCall, GpuCall (*)(std::string_view)> calls(t, gpu_call);
  // The op quoted: an NCCL collective when there is one (it says "GPU" to anyone who reads it), else
  // the first by name; the same whatever the events' order.
  const auto quoted_before = [](std::string_view a, std::string_view b) {
    const bool a_nccl = a.substr(0, 5) == "nccl:", b_nccl = b.substr(0, 5) == "nccl:";
    return a_nccl != b_nccl ? a_nccl : a < b;
  };
  const auto note_gpu_only_op = [&](EventId e) {
    if (calls.of(e) != GpuCall::GpuOnlyOp) return;
    if (r.gpu_only_ops++ == 0 || quoted_before(t.name_of(e), r.gpu_only_op)) r.gpu_only_op = t.name_of(e);
  };
  for (EventId e = 0; e < t.size(); ++e) {
    switch (t.kind[e]) {
      case EventKind::CpuOp: ++r.cpu_ops; note_gpu_only_op(e); break;
      case EventKind::UserAnnotation: ++r.annotations; note_gpu_only_op(e); break;
      case EventKind::PythonFunction: ++r.python_frames; break;
      case EventKind::Runtime:
      case EventKind::Driver:
        switch (calls.of(e)) {
          case GpuCall::Work: ++r.gpu_work_calls; break;
          case GpuCall::Sync: ++r.gpu_sync_calls; break;
          case GpuCall::None:
          case GpuCall::GpuOnlyOp: break;
        }
        break;
      case EventKind::Kernel:
      case EventKind::Memcpy:
      case EventKind::Memset: ++r.gpu_records; break;
      default: break;
    }
  }
  r.from_torch = r.cpu_ops > 0 || r.python_frames > 0;
  if (is_gpu_only_backend(t.distributed.backend)) r.gpu_backend = t.distributed.backend;
  // A sync is not work: torch's profiler makes one when it starts (an empty profile holds it), and
  // a CPU program may query the devices and synchronize once at its end with nothing launched. GPU
  // work is what says a GPU ran the program: a launch, a copy, an op or a backend that runs only there.
  const bool cpu_work = r.cpu_ops + r.annotations + r.python_frames > 0;
  if (r.gpu_records > 0) r.what = Recorded::Gpu;
  else if (r.gpu_work_calls > 0 || (cpu_work && (r.gpu_only_ops > 0 || !r.gpu_backend.empty())))
    r.what = Recorded::GpuNotRecorded;
  else if (cpu_work) r.what = Recorded::CpuOnly;
  else r.what = Recorded::Nothing;
  // No CUDA call, yet matrix work faster than any CPU: the GPU ran it, unrecorded (beyond_cpu.cpp).
  if (r.what == Recorded::CpuOnly) {
    r.beyond_cpu = beyond_cpu(t);
    if (!r.beyond_cpu.op.empty()) r.what = Recorded::GpuNotRecorded;
  }
  return r;
}

}  // namespace whyslow
