// The classes of one-off (start-up) events, shared by cold_start (the cold step's causes) and
// one_off_costs (every one-off cost of a trace, for diff): one list, one claiming order.
#pragma once

#include <algorithm>
#include <vector>

#include "analysis/core/event_names.hpp"
#include "analysis/core/intervals.hpp"
#include "analysis/facts.hpp"

namespace whyslow {

// A single CUDA/HIP runtime or driver call this long is a one-off start-up cost when the GPU sits
// idle through it: warm, the calls that are not waits (launches, allocations, stream creation,
// queries) return in microseconds, 10^4 times less, while the first ones create the device context
// (alexnet, HTA: 29.9 s of cudaDeviceGetStreamPriorityRange), load a kernel's module (its 3.06 s
// second cudaLaunchKernel) or reserve memory (PARAM resnet: a 788 ms first cudaFree). Whether the
// call is the first of its name does not decide it: the slow launch is often the first of a given
// kernel, not the first launch (alexnet, and every new kernel of a ROCm layer test).
constexpr int64_t kSlowCallNs = 100'000'000;
// …and the GPU is busy at most this share of the call: a call the GPU works through is waiting for
// it (cudaFree synchronizes the device; a steady-state free behind 100 ms of queued kernels is
// alloc_churn's business, not start-up). Start-up calls in the corpus see an idle GPU.
constexpr double kSlowCallMaxGpuBusyShare = 0.10;

// What the classes look at besides the event itself.
struct OneOffInput {
  const Trace& t;
  std::vector<EventId> slow_calls;  // ascending
  EventId first_api_call = kNoEvent;  // the trace's first CUDA/HIP runtime or driver call
  bool slow(EventId e) const { return std::binary_search(slow_calls.begin(), slow_calls.end(), e); }
};

// The slow one-off calls of the trace (kSlowCallNs, kSlowCallMaxGpuBusyShare) and its first CUDA/HIP call.
OneOffInput find_slow_calls(const Trace& t, const std::vector<Interval>& gpu_busy);

struct OneOffClass {
  ColdCauseKind kind;
  bool (*matches)(const OneOffInput&, EventId);
};

inline bool overhead_named(const Trace& t, EventId e, std::string_view n) {
  return t.kind[e] == EventKind::Overhead && t.name_of(e) == n;
}

// In claiming order: the profiler's own records of module loading come before the slow call they
// happen in, so the call keeps only the time they do not explain; a slow call is claimed as such
// before the name classes, which describe the steady cost of many small calls.
inline const OneOffClass kOneOffClasses[] = {
    {ColdCauseKind::Compilation,
     [](const OneOffInput& in, EventId e) { return is_compilation_event(in.t.name_of(e)); }},
    {ColdCauseKind::ModuleLoading,
     [](const OneOffInput& in, EventId e) { return overhead_named(in.t, e, kModuleLoadingEvent); }},
    {ColdCauseKind::LazyLoading,
     [](const OneOffInput& in, EventId e) { return overhead_named(in.t, e, kLazyFunctionLoadingEvent); }},
    {ColdCauseKind::ProfilerBuffers,
     [](const OneOffInput& in, EventId e) {
       return in.t.kind[e] == EventKind::Overhead && is_profiler_buffer_request(in.t.name_of(e));
     }},
    {ColdCauseKind::ContextCreation,
     [](const OneOffInput& in, EventId e) { return e == in.first_api_call && in.slow(e); }},
    {ColdCauseKind::SlowFirstUse,
     [](const OneOffInput& in, EventId e) { return e != in.first_api_call && in.slow(e); }},
    {ColdCauseKind::MemoryAllocation,
     [](const OneOffInput& in, EventId e) { return is_host_api(in.t.kind[e]) && is_allocator_call(in.t.name_of(e)); }},
    {ColdCauseKind::StreamEventCreation,
     [](const OneOffInput& in, EventId e) {
       return is_host_api(in.t.kind[e]) && is_stream_or_event_creation(in.t.name_of(e));
     }},
    {ColdCauseKind::LibrarySetup,
     [](const OneOffInput& in, EventId e) { return is_host_api(in.t.kind[e]) && is_library_setup_call(in.t.name_of(e)); }},
};


}  // namespace whyslow
