// How the events of a window refer to each other, as Kineto writes it:
//  - each scope and step gets an "External id" (1, 2, … in start order);
//  - each runtime/driver call carries the External id of the innermost scope on its thread that
//    encloses it, and the GPU work it launched carries the same id (Kineto pushes the id into
//    CUPTI at every scope; whyslow finds it afterwards by nesting, which is exact because scopes
//    and CUPTI's CPU timestamps come from one clock, and costs the hot path nothing);
//  - each scope that launched GPU work is mirrored on every stream that work ran on
//    (gpu_user_annotation), spanning that work.
#pragma once

#include <cstdint>
#include <vector>

#include "profiler/recorded_trace.hpp"

namespace whyslow::profiler_detail {

struct GpuAnnotation {
  int64_t start_ns = 0, end_ns = 0;  // the first start and last end of the scope's GPU work
  uint32_t range = 0;                // index into RecordedTrace::ranges
  uint32_t device = 0;
  int64_t stream = 0;
};

struct TraceLinks {
  std::vector<uint32_t> range_order;        // ranges by (start, longer first): the write order
  std::vector<int64_t> range_external_id;   // per range
  std::vector<int64_t> api_external_id;     // per API call; 0: outside every scope
  std::vector<int64_t> api_enclosing_range; // per API call; -1: outside every scope
  std::vector<int32_t> activity_api;        // per GPU activity: its launching call, -1 if none
  std::vector<GpuAnnotation> gpu_annotations;
};

TraceLinks link_trace(const RecordedTrace& trace);

}  // namespace whyslow::profiler_detail
