// The profiler on a GPU: a cuBLAS matmul and a bias-add kernel per step, recorded with torch's
// classic schedule (wait 1, warm up 1, record 3). The trace shows the kernels under the scopes
// that launched them, with launch flows, on the GPU lane as torch draws it.
//
//   examples/cublas_bias_demo trace.json.gz [N] && whyslow explain trace.json.gz
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "whyslow/profiler.hpp"

namespace {

void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
  std::exit(1);
}

void check(cublasStatus_t s, const char* what) {
  if (s == CUBLAS_STATUS_SUCCESS) return;
  std::fprintf(stderr, "%s: cuBLAS status %d\n", what, static_cast<int>(s));
  std::exit(1);
}

// c[i][j] += bias[j] for an n × n row-major matrix.
__global__ void bias_add_kernel(float* c, const float* bias, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n * n) c[i] += bias[i % n];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s OUT.json[.gz] [N]\n", argv[0]);
    return 1;
  }
  const std::string out = argv[1];
  const int n = argc > 2 ? std::atoi(argv[2]) : 4096;
  const size_t bytes = sizeof(float) * n * n;

  std::vector<float> host(static_cast<size_t>(n) * n, 1.0f), host_bias(n, 0.5f);
  float *a, *b, *c, *bias;
  check(cudaMalloc(&a, bytes), "cudaMalloc");
  check(cudaMalloc(&b, bytes), "cudaMalloc");
  check(cudaMalloc(&c, bytes), "cudaMalloc");
  check(cudaMalloc(&bias, sizeof(float) * n), "cudaMalloc");
  check(cudaMemcpy(a, host.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
  check(cudaMemcpy(b, host.data(), bytes, cudaMemcpyHostToDevice), "cudaMemcpy");
  check(cudaMemcpy(bias, host_bias.data(), sizeof(float) * n, cudaMemcpyHostToDevice), "cudaMemcpy");
  cublasHandle_t handle;
  check(cublasCreate(&handle), "cublasCreate");

  whyslow::Profiler profiler({
      .schedule = whyslow::schedule({.wait = 1, .warmup = 1, .active = 3}),
      .on_trace_ready = [&](whyslow::Profiler& p) { p.export_chrome_trace(out); },
  });
  profiler.start();
  const float one = 1.0f, zero = 0.0f;
  for (int step = 0; step < 6; ++step) {
    {
      WHYSLOW_SCOPE("matmul");
      check(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b, n, a, n, &zero, c, n),
            "cublasSgemm");
    }
    {
      WHYSLOW_SCOPE("bias_add");
      const int threads = 256, blocks = (n * n + threads - 1) / threads;
      bias_add_kernel<<<blocks, threads>>>(c, bias, n);
      check(cudaGetLastError(), "bias_add_kernel");
    }
    check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
    profiler.step();
  }
  profiler.stop();

  float corner = 0;
  check(cudaMemcpy(&corner, c, sizeof corner, cudaMemcpyDeviceToHost), "cudaMemcpy");
  std::printf("cublas_bias_demo: wrote %s (n = %d, c[0] = %g, GPU activity %s)\n", out.c_str(), n,
              corner, profiler.gpu_activity() ? "on" : "off");
  cublasDestroy(handle);
  for (float* p : {a, b, c, bias}) cudaFree(p);
  return 0;
}
