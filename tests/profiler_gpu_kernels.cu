#include "profiler_gpu_kernels.hpp"

namespace whyslow_test {

constexpr int kThreads = 256;

__global__ void scale_kernel(float* data, int n, float factor) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= factor;
}

template <int N>
__global__ void add_kernel(float* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += N;
}

__global__ void graph_a(float* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] += 1.0f;
}
__global__ void graph_b(float* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] *= 0.5f;
}
__global__ void graph_c(float* data, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) data[i] -= 1.0f;
}

int blocks_for(int n) { return (n + kThreads - 1) / kThreads; }

void launch_scale(float* data, int n, float factor, cudaStream_t stream) {
  scale_kernel<<<blocks_for(n), kThreads, 0, stream>>>(data, n, factor);
}

void launch_add_one(float* data, int n, cudaStream_t stream) {
  add_kernel<1><<<blocks_for(n), kThreads, 0, stream>>>(data, n);
}

cudaGraphExec_t make_three_kernel_graph(float* data, int n, cudaStream_t stream) {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  if (cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal) != cudaSuccess) return nullptr;
  graph_a<<<blocks_for(n), kThreads, 0, stream>>>(data, n);
  graph_b<<<blocks_for(n), kThreads, 0, stream>>>(data, n);
  graph_c<<<blocks_for(n), kThreads, 0, stream>>>(data, n);
  if (cudaStreamEndCapture(stream, &graph) != cudaSuccess) return nullptr;
  if (cudaGraphInstantiate(&exec, graph, 0) != cudaSuccess) exec = nullptr;
  cudaGraphDestroy(graph);
  return exec;
}

}  // namespace whyslow_test
