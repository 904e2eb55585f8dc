// GPU activity collection (CUPTI's Activity API). Process-wide, like CUPTI itself; the Profiler
// uses it from one running profiler at a time. Two implementations: gpu_collector_cupti.cpp
// (built with the CUDA toolkit) and gpu_collector_off.cpp (built without).
#pragma once

#include <cstdint>
#include <string>

#include "profiler/gpu_records.hpp"

namespace whyslow::profiler_detail {

// Turns collection on (torch's "prepare": the warm-up). Returns "" when GPU activity is being
// collected, otherwise why not, in words ("no CUDA device: …").
std::string enable_gpu_collection();

// Forgets everything collected so far: the warm-up's records. Called when recording starts.
void discard_gpu_records();

// Waits for the GPU work launched so far, turns collection off and returns the API calls made
// in [window_start_ns, window_end_ns] with the GPU work they launched, plus CUPTI's overhead
// records in the window and the properties of the devices involved.
GpuRecords finish_gpu_collection(int64_t window_start_ns, int64_t window_end_ns);

}  // namespace whyslow::profiler_detail
