// One recording window: everything a trace file is written from, owned (names copied), so it
// stays valid after the threads and CUPTI buffers it came from have moved on.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "profiler/gpu_records.hpp"
#include "profiler/name_table.hpp"

namespace whyslow::profiler_detail {

// A scope or a ProfilerStep#N on a CPU thread, in the profiler's clock (ns).
struct CpuRange {
  int64_t start_ns = 0, end_ns = 0;
  // The raw clock readings: they order a parent before a child that starts in the same ns.
  uint64_t start_ticks = 0, end_ticks = 0;
  uint32_t name = 0;  // in RecordedTrace::names
  int32_t tid = 0;
};

struct ThreadInfo {
  int32_t tid = 0;
  std::string name;  // pthread name, "" when unnamed
};

struct RecordedTrace {
  NameTable names;
  std::vector<CpuRange> ranges;
  std::vector<ThreadInfo> threads;
  GpuRecords gpu;
  bool gpu_collected = false;
  int64_t start_ns = 0, end_ns = 0;  // the window
  int64_t unix_offset_ns = 0;        // Unix ns = profiler ns + this
  int32_t pid = 0;
  std::string process_name;
};

}  // namespace whyslow::profiler_detail
