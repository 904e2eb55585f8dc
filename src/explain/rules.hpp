// One function per rule. Each reads facts, appends at most a few findings, and fires only with
// evidence. Thresholds are named constants in each rule's file, with the reason for their value.
#pragma once

#include <string>
#include <vector>

#include "analysis/steps/steady_steps.hpp"
#include "explain/finding.hpp"

namespace whyslow {

void rule_recording(const Trace&, const Facts&, std::vector<Finding>&);  // nothing_recorded / gpu_not_recorded
void rule_cold_start(const Trace&, const Facts&, std::vector<Finding>&);
void rule_first_seen_shapes(const Trace&, const Facts&, std::vector<Finding>&);
void rule_train_mode_inference(const Trace&, const Facts&, std::vector<Finding>&);
void rule_optimizer_step(const Trace&, const Facts&, std::vector<Finding>&);
void rule_data_loading(const Trace&, const Facts&, std::vector<Finding>&);
void rule_alloc_churn(const Trace&, const Facts&, std::vector<Finding>&);
void rule_step_bound(const Trace&, const Facts&, std::vector<Finding>&);  // overhead_bound / gpu_bound
void rule_cpu_bound(const Trace&, const Facts&, std::vector<Finding>&);
void rule_warmup_trace(const Trace&, const Facts&, std::vector<Finding>&);
void rule_gpu_waits(const Trace&, const Facts&, std::vector<Finding>&);   // dependency_wait / cpu_prefix
void rule_launch_queue(const Trace&, const Facts&, std::vector<Finding>&);
void rule_sync_wait(const Trace&, const Facts&, std::vector<Finding>&);
void rule_host_sync_in_loop(const Trace&, const Facts&, std::vector<Finding>&);
void rule_pageable_memcpy(const Trace&, const Facts&, std::vector<Finding>&);
void rule_hidden_copy(const Trace&, const Facts&, std::vector<Finding>&);
void rule_kernel_variance(const Trace&, const Facts&, std::vector<Finding>&);
void rule_compiled_region(const Trace&, const Facts&, std::vector<Finding>&);
void rule_recompilation(const Trace&, const Facts&, std::vector<Finding>&);
void rule_cuda_graphs_not_replayed(const Trace&, const Facts&, std::vector<Finding>&);
void rule_profiler_artifact(const Trace&, const Facts&, std::vector<Finding>&);
void rule_low_efficiency(const Trace&, const Facts&, std::vector<Finding>&);
void rule_fp32_matmul(const Trace&, const Facts&, std::vector<Finding>&);
void rule_unfused_elementwise(const Trace&, const Facts&, std::vector<Finding>&);
void rule_exposed_comm(const Trace&, const Facts&, std::vector<Finding>&);
void rule_comm_wait(const Trace&, const Facts&, std::vector<Finding>&);
void rule_hotspot(const Trace&, const Facts&, std::vector<Finding>&);
void rule_no_annotations(const Trace&, const Facts&, std::vector<Finding>&);
void rule_eager_attention(const Trace&, const Facts&, std::vector<Finding>&);
void rule_memory_peak(const Trace&, const Facts&, std::vector<Finding>&);
void rule_memory_growth(const Trace&, const Facts&, std::vector<Finding>&);

// "each 113 µs step", or "the 96.3 ms profiled (no ProfilerStep annotations)" for a trace without
// steps, whose whole window stands in for a step.
std::string describe_span(const Facts& facts, int64_t step_ns);

}  // namespace whyslow
