// `gpu_idle`: a window's GPU time split into busy and the causes of its idle gaps
// (analysis/gpu/idle_gaps.cpp), for steps, loop iterations and the trace window.
#pragma once

#include "analysis/facts.hpp"
#include "report/json/json_writer.hpp"

namespace whyslow::report {

void write_gpu_idle(JsonWriter& w, const GpuIdle& idle);

}  // namespace whyslow::report
