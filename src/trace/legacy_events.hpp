// torch's legacy (pre-Kineto) profiler format, still written by torch builds without Kineto
// (Debian's python3-torch 1.13, CPU-only): `export_chrome_trace` writes a bare JSON array of
// "X" events with no `cat`, every CPU event under `"pid": "CPU functions"`, integer µs. The
// event's name is all there is to say what it was.
#pragma once

#include <string_view>

#include "trace/trace.hpp"

namespace whyslow {

// The process name the legacy profiler writes for every CPU event (torch/autograd/profiler_util.py,
// EventList.export_chrome_trace).
inline constexpr std::string_view kLegacyCpuPid = "CPU functions";

// The kind of a cat-less CPU event of a legacy trace, from its name:
//  - an operator (its schema name has a namespace: "aten::addmm", "autograd::engine::…",
//    "torch::autograd::AccumulateGrad") or an autograd node ("AddmmBackward0") → CpuOp;
//  - anything else → UserAnnotation: torch.profiler's ProfilerStep#N, record_function blocks and
//    the record_function scopes torch itself opens from Python ("Optimizer.step#SGD.step",
//    "enumerate(DataLoader)#…"), all user_annotation in a Kineto trace of the same program.
// The legacy format does not keep the RecordFunction scope, so a user's record_function named
// like an operator ("my::block") reads as an op, and the few scopes torch names without a
// namespace ("detach_") read as blocks; the op table counts both kinds alike. GPU events
// ("pid": "CUDA functions", linked by flow events) are left unread: no such trace to test on.
EventKind legacy_cpu_event_kind(std::string_view name);

}  // namespace whyslow
