// The collector of a build without the CUDA toolkit: GPU activity is always off.
#include "profiler/gpu_collector.hpp"

namespace whyslow::profiler_detail {

std::string enable_gpu_collection() {
  return "this build of whyslow has no CUDA support (configure it where CMake finds the CUDA "
         "toolkit with CUPTI, or with -DWHYSLOW_CUDA=ON)";
}

void discard_gpu_records() {}

GpuRecords finish_gpu_collection(int64_t, int64_t) { return {}; }

}  // namespace whyslow::profiler_detail
