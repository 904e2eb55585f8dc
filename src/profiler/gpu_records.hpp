// GPU activity of one recording window, as CUPTI reported it, in the profiler's clock (ns).
// Plain data with no CUDA types, so the trace writer builds without the CUDA toolkit.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "profiler/name_table.hpp"

namespace whyslow::profiler_detail {

// A CUDA runtime or driver API call on a CPU thread.
struct ApiCall {
  int64_t start_ns = 0, end_ns = 0;
  uint32_t name = 0;  // in GpuRecords::names
  uint32_t cbid = 0;
  uint32_t correlation = 0;
  int32_t tid = 0;  // the OS thread id (CUPTI is told to report gettid())
  bool driver = false;
};

// What runs on a GPU stream: kernels, copies, memsets and synchronization records.
enum class GpuKind : uint8_t { Kernel, Memcpy, Memset, Sync };

struct GpuActivity {
  GpuKind kind = GpuKind::Kernel;
  int64_t start_ns = 0, end_ns = 0;
  uint32_t name = 0;  // demangled kernel name, "Memcpy HtoD (Pageable -> Device)", "Stream Sync", …
  uint32_t device = 0, context = 0;
  int64_t stream = 0;  // -1 where a sync applies to no single stream
  uint32_t correlation = 0;
  // kernels
  int32_t grid[3] = {0, 0, 0};
  int32_t block[3] = {0, 0, 0};
  int32_t registers = 0;
  int32_t shared_memory = 0;  // static + dynamic bytes per block
  int32_t static_shared_memory = 0;  // the part declared in the kernel (the occupancy needs it)
  uint32_t graph_id = 0;      // 0: not launched from a CUDA graph
  uint64_t graph_node_id = 0;
  // Kineto's "est. achieved occupancy %": the resident warps this launch can reach per SM
  // (limited by its size and by the occupancy calculator) over the SM's warp slots; -1 unknown.
  int occupancy_percent = -1;
  // copies and memsets
  uint64_t bytes = 0;
  // synchronization
  uint32_t event_id = UINT32_MAX;           // the CUDA event waited on, where there is one
  int64_t wait_on_stream = -1;              // the stream that recorded that event
  int64_t wait_on_event_correlation = -1;   // the cudaEventRecord call that recorded it
  uint64_t event_sync_id = 0;               // CUPTI's id tying the sync to that event record
};

// CUPTI's own work that shows in the trace: buffer requests, module loading, …
struct GpuOverhead {
  int64_t start_ns = 0, end_ns = 0;
  uint32_t name = 0;
};

struct DeviceProperties {
  int id = 0;
  std::string name;
  uint64_t total_global_mem = 0;
  int compute_major = 0, compute_minor = 0;
  int max_threads_per_block = 0, max_threads_per_multiprocessor = 0;
  int regs_per_block = 0, warp_size = 0;
  uint64_t shared_mem_per_block = 0;
  int num_sms = 0;
  int regs_per_multiprocessor = 0;
  uint64_t shared_mem_per_block_optin = 0, shared_mem_per_multiprocessor = 0;
};

struct GpuRecords {
  NameTable names;
  std::vector<ApiCall> api_calls;
  std::vector<GpuActivity> activities;
  std::vector<GpuOverhead> overheads;
  std::vector<DeviceProperties> devices;
  uint32_t cupti_version = 0;
  int cuda_runtime_version = 0, cuda_driver_version = 0;
  uint64_t dropped_records = 0;
};

}  // namespace whyslow::profiler_detail
