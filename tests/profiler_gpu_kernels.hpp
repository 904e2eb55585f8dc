// Kernels for the profiler's GPU tests, behind plain C++ functions so the tests compile with g++.
#pragma once

#include <cuda_runtime_api.h>

namespace whyslow_test {

// The demangled names CUPTI reports and the profiler writes.
inline constexpr const char* kScaleKernel = "whyslow_test::scale_kernel(float*, int, float)";
inline constexpr const char* kAddOneKernel = "void whyslow_test::add_kernel<1>(float*, int)";
inline constexpr const char* kGraphKernels[] = {"whyslow_test::graph_a(float*, int)",
                                                "whyslow_test::graph_b(float*, int)",
                                                "whyslow_test::graph_c(float*, int)"};

void launch_scale(float* data, int n, float factor, cudaStream_t stream);
void launch_add_one(float* data, int n, cudaStream_t stream);
// A graph of graph_a → graph_b → graph_c over `data`, captured on `stream`, ready to launch.
cudaGraphExec_t make_three_kernel_graph(float* data, int n, cudaStream_t stream);

}  // namespace whyslow_test
