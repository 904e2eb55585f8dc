// The lab's L2 sweep: an in-place bias add (x[i] += bias[i mod 1024], float4) over working sets
// from 1 MiB to 2 GiB, doubling. Each size runs on the same buffer again and again, so a working
// set that fits in L2 (60 MiB on the H200) is served from L2 after the first pass: the achieved
// bandwidth steps down at the knee where it stops fitting.
//
//   lab_l2_sweep [--min-mib 1] [--max-mib 2048] [--reps 7] [--csv FILE]
//
// Bandwidth = bytes read + written (2 × the working set per pass) / CUDA-event time. Each rep
// times a batch of back-to-back launches (at least 20, and at least ~4 GiB of traffic), so that
// small sizes are not just the launch interval; the table gives the median rep, and the
// per-launch time it implies.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

void check(cudaError_t e, const char* what) {
  if (e == cudaSuccess) return;
  std::fprintf(stderr, "lab_l2_sweep: FAILED: %s: %s\n", what, cudaGetErrorString(e));
  std::exit(1);
}
#define CK(call) check((call), #call)

__global__ void bias_add_inplace(float4* x, const float* __restrict__ bias, int64_t count4) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count4;
       i += int64_t(gridDim.x) * blockDim.x) {
    float4 v = x[i];
    const int j = int((i * 4) & 1023);
    v.x += bias[j];
    v.y += bias[j + 1];
    v.z += bias[j + 2];
    v.w += bias[j + 3];
    x[i] = v;
  }
}

}  // namespace

int main(int argc, char** argv) {
  int64_t min_mib = 1, max_mib = 2048;
  int reps = 7;
  std::string csv;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string k = argv[i], v = argv[i + 1];
    if (k == "--min-mib") min_mib = std::atoll(v.c_str());
    else if (k == "--max-mib") max_mib = std::atoll(v.c_str());
    else if (k == "--reps") reps = std::atoi(v.c_str());
    else if (k == "--csv") csv = v;
    else {
      std::fprintf(stderr, "usage: %s [--min-mib M] [--max-mib M] [--reps R] [--csv FILE]\n", argv[0]);
      return 1;
    }
  }
  cudaDeviceProp prop{};
  CK(cudaGetDeviceProperties(&prop, 0));
  int sms = prop.multiProcessorCount;
  std::printf("GPU: %s, %d SMs, L2 %.1f MiB\n", prop.name, sms, prop.l2CacheSize / 1048576.0);

  const int64_t max_bytes = max_mib << 20;
  float4* x;
  float* bias;
  CK(cudaMalloc(&x, max_bytes));
  CK(cudaMalloc(&bias, 1024 * sizeof(float)));
  CK(cudaMemset(x, 0, max_bytes));
  CK(cudaMemset(bias, 0, 1024 * sizeof(float)));  // adding 0.0: the data stay finite forever
  cudaEvent_t start, stop;
  CK(cudaEventCreate(&start));
  CK(cudaEventCreate(&stop));

  FILE* out = csv.empty() ? nullptr : std::fopen(csv.c_str(), "w");
  if (!csv.empty() && !out) {
    std::fprintf(stderr, "lab_l2_sweep: FAILED: cannot write %s\n", csv.c_str());
    return 1;
  }
  if (out) std::fprintf(out, "working_set_bytes,launches_per_rep,us_per_launch,bytes_per_s\n");
  std::printf("%12s %10s %14s %12s\n", "working set", "launches", "us/launch", "TB/s");
  for (int64_t mib = min_mib; mib <= max_mib; mib *= 2) {
    const int64_t bytes = mib << 20, count4 = bytes / 16;
    const int threads = 256;
    const int blocks = int(std::min<int64_t>((count4 + threads - 1) / threads, int64_t(sms) * 8));
    const int launches = int(std::max<int64_t>(20, (int64_t(4) << 30) / (2 * bytes)));
    for (int w = 0; w < 3; ++w) bias_add_inplace<<<blocks, threads>>>(x, bias, count4);
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    std::vector<double> per_launch_us;
    for (int r = 0; r < reps; ++r) {
      CK(cudaEventRecord(start));
      for (int l = 0; l < launches; ++l) bias_add_inplace<<<blocks, threads>>>(x, bias, count4);
      CK(cudaEventRecord(stop));
      CK(cudaEventSynchronize(stop));
      CK(cudaGetLastError());
      float ms = 0;
      CK(cudaEventElapsedTime(&ms, start, stop));
      per_launch_us.push_back(ms * 1000.0 / launches);
    }
    std::sort(per_launch_us.begin(), per_launch_us.end());
    const double us = per_launch_us[per_launch_us.size() / 2];
    const double bps = 2.0 * double(bytes) / (us * 1e-6);
    std::printf("%9lld MiB %10d %14.3f %12.3f\n", static_cast<long long>(mib), launches, us, bps / 1e12);
    if (out) std::fprintf(out, "%lld,%d,%.4f,%.6g\n", static_cast<long long>(bytes), launches, us, bps);
  }
  if (out) std::fclose(out);
  return 0;
}
