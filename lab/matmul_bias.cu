// The lab: C = A·B + bias (n × n, row-major, bias per column) as eager PyTorch, cuBLASLt's fused
// epilogue, a CUDA graph, or the first call of a fresh process; recorded by the whyslow profiler.
//
//   lab_matmul_bias --size N --dtype fp32|tf32|bf16 --variant separate|fused|graph|cold
//                   --steps S --out TRACE.json.gz
//
//   separate  cublasGemmEx + a bias-add kernel: two launches per step, as eager PyTorch
//   fused     cublasLtMatmul with CUBLASLT_EPILOGUE_BIAS: one launch per step
//   graph     `separate` captured once into a CUDA graph, replayed once per step
//   cold      `separate` in a fresh process, profiled from its first call (no warm-up; the cuBLAS
//             handle is created inside the first step, lazily, as torch does)
//
// Warm variants run one untimed, checked step first, then the schedule wait=1 warmup=1 active=S.
// Before anything is timed the result is checked against a double-precision CPU reference (every
// element up to 256×256, else 1024 sampled elements); a relative error (‖got − ref‖₂ / ‖ref‖₂ over
// the checked elements) above the dtype's tolerance (fp32 1e-4, tf32 5e-3, bf16 2e-2) fails the
// run. The cold variant is checked after its profiled steps (checking first would warm it up).
// Each step prints its GPU time (CUDA events around the step's work) and CPU time (issuing the
// work, without the wait for the GPU); the last line, `RESULT {json}`, summarises the run.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "whyslow/profiler.hpp"

namespace {

[[noreturn]] void die(const char* what, const char* why) {
  std::fprintf(stderr, "lab_matmul_bias: FAILED: %s: %s\n", what, why);
  std::exit(1);
}
void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) die(what, cudaGetErrorString(e));
}
void check(cublasStatus_t s, const char* what) {
  if (s != CUBLAS_STATUS_SUCCESS) die(what, cublasGetStatusString(s));
}
#define CK(call) check((call), #call)

enum class Dtype { fp32, tf32, bf16 };
enum class Variant { separate, fused, graph, cold };

struct Args {
  int n = 1024;
  Dtype dtype = Dtype::fp32;
  Variant variant = Variant::separate;
  int steps = 5;
  std::string out = "matmul_bias.json.gz";
  std::string dtype_name = "fp32", variant_name = "separate";
};

[[noreturn]] void usage() {
  std::fprintf(stderr,
               "usage: lab_matmul_bias --size N --dtype fp32|tf32|bf16 "
               "--variant separate|fused|graph|cold --steps S --out TRACE.json.gz\n");
  std::exit(1);
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (i + 1 >= argc) usage();
    const std::string v = argv[++i];
    if (k == "--size") a.n = std::atoi(v.c_str());
    else if (k == "--steps") a.steps = std::atoi(v.c_str());
    else if (k == "--out") a.out = v;
    else if (k == "--dtype") {
      a.dtype_name = v;
      if (v == "fp32") a.dtype = Dtype::fp32;
      else if (v == "tf32") a.dtype = Dtype::tf32;
      else if (v == "bf16") a.dtype = Dtype::bf16;
      else usage();
    } else if (k == "--variant") {
      a.variant_name = v;
      if (v == "separate") a.variant = Variant::separate;
      else if (v == "fused") a.variant = Variant::fused;
      else if (v == "graph") a.variant = Variant::graph;
      else if (v == "cold") a.variant = Variant::cold;
      else usage();
    } else usage();
  }
  if (a.n < 1 || a.steps < 1) usage();
  return a;
}

// c[i][j] += bias[j], row-major n × n; vectorised by 2 where the type allows nothing more subtle.
template <typename T>
__global__ void bias_add_kernel(T* c, const T* bias, int64_t n) {
  const int64_t total = n * n;
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total;
       i += int64_t(gridDim.x) * blockDim.x) {
    c[i] = T(float(c[i]) + float(bias[i % n]));
  }
}

__global__ void to_bf16_kernel(__nv_bfloat16* dst, const float* src, int64_t count) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < count;
       i += int64_t(gridDim.x) * blockDim.x)
    dst[i] = __float2bfloat16(src[i]);
}

float round_like(float x, Dtype d) {
  if (d == Dtype::bf16) return __bfloat162float(__float2bfloat16(x));
  return x;  // tf32 rounding happens inside the GEMM; the reference keeps fp32 inputs
}

double now_us() {
  return std::chrono::duration<double, std::micro>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

struct Lab {
  Args args;
  int64_t n;
  size_t es;  // element size
  cudaDataType_t type;
  cublasComputeType_t compute;
  cudaStream_t stream{};
  void *a{}, *b{}, *c{}, *bias{}, *workspace{};
  size_t workspace_bytes = 32u << 20;
  cublasHandle_t handle{};
  cublasLtHandle_t lt{};
  cublasLtMatmulDesc_t desc{};
  cublasLtMatrixLayout_t la{}, lb{}, lc{};
  cublasLtMatmulAlgo_t algo{};
  cudaGraphExec_t graph_exec{};
  std::vector<float> ha, hb, hbias;  // the inputs as the GPU sees them (bf16-rounded for bf16)

  explicit Lab(const Args& a) : args(a), n(a.n) {
    es = a.dtype == Dtype::bf16 ? 2 : 4;
    type = a.dtype == Dtype::bf16 ? CUDA_R_16BF : CUDA_R_32F;
    compute = a.dtype == Dtype::tf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  }

  void upload(void* dst, const std::vector<float>& src) {
    const size_t count = src.size();
    if (args.dtype != Dtype::bf16) {
      CK(cudaMemcpy(dst, src.data(), count * 4, cudaMemcpyHostToDevice));
      return;
    }
    float* tmp;
    CK(cudaMalloc(&tmp, count * 4));
    CK(cudaMemcpy(tmp, src.data(), count * 4, cudaMemcpyHostToDevice));
    to_bf16_kernel<<<1024, 256>>>(static_cast<__nv_bfloat16*>(dst), tmp, int64_t(count));
    CK(cudaGetLastError());
    CK(cudaDeviceSynchronize());
    CK(cudaFree(tmp));
  }

  // Buffers and inputs: before the profiler starts, as tensors made before torch.profiler.
  void setup_buffers() {
    CK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    const size_t bytes = es * n * n;
    CK(cudaMalloc(&a, bytes));
    CK(cudaMalloc(&b, bytes));
    CK(cudaMalloc(&c, bytes));
    CK(cudaMalloc(&bias, es * n));
    CK(cudaMalloc(&workspace, workspace_bytes));
    CK(cudaMemset(c, 0, bytes));
    uint64_t s = 0x9E3779B97F4A7C15ull ^ uint64_t(n);
    auto rnd = [&] {  // uniform in [-1, 1)
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      return float(int32_t(s >> 32)) * (1.0f / 2147483648.0f);
    };
    ha.resize(size_t(n) * n);
    hb.resize(size_t(n) * n);
    hbias.resize(n);
    for (auto& x : ha) x = round_like(rnd(), args.dtype);
    for (auto& x : hb) x = round_like(rnd(), args.dtype);
    for (auto& x : hbias) x = round_like(rnd(), args.dtype);
    upload(a, ha);
    upload(b, hb);
    upload(bias, hbias);
  }

  void setup_cublas() {
    CK(cublasCreate(&handle));
    CK(cublasSetStream(handle, stream));
    CK(cublasSetWorkspace(handle, workspace, workspace_bytes));  // no allocation during capture
  }

  // cuBLASLt with the bias epilogue. Row-major C = A·B is column-major Cᵀ = Bᵀ·Aᵀ: the Lt call
  // multiplies b (as the first operand) by a; Cᵀ's rows are C's columns, so the epilogue's
  // per-row bias is C's per-column bias.
  void setup_lt() {
    CK(cublasLtCreate(&lt));
    CK(cublasLtMatmulDescCreate(&desc, compute, CUDA_R_32F));
    const cublasOperation_t op = CUBLAS_OP_N;
    CK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &op, sizeof op));
    CK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &op, sizeof op));
    const cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
    CK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue));
    CK(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
    CK(cublasLtMatrixLayoutCreate(&la, type, n, n, n));
    CK(cublasLtMatrixLayoutCreate(&lb, type, n, n, n));
    CK(cublasLtMatrixLayoutCreate(&lc, type, n, n, n));
    cublasLtMatmulPreference_t pref;
    CK(cublasLtMatmulPreferenceCreate(&pref));
    CK(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                            &workspace_bytes, sizeof workspace_bytes));
    cublasLtMatmulHeuristicResult_t result{};
    int found = 0;
    CK(cublasLtMatmulAlgoGetHeuristic(lt, desc, lb, la, lc, lc, pref, 1, &result, &found));
    if (found < 1) die("cublasLtMatmulAlgoGetHeuristic", "no algorithm for the bias epilogue");
    algo = result.algo;
    CK(cublasLtMatmulPreferenceDestroy(pref));
  }

  void gemm() {
    const float one = 1.0f, zero = 0.0f;
    CK(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, int(n), int(n), int(n), &one, b, type, int(n),
                    a, type, int(n), &zero, c, type, int(n), compute, CUBLAS_GEMM_DEFAULT));
  }
  void bias_add() {
    const int threads = 256;
    const int64_t blocks = std::min<int64_t>((n * n + threads - 1) / threads, 132 * 16);
    if (args.dtype == Dtype::bf16)
      bias_add_kernel<<<int(blocks), threads, 0, stream>>>(
          static_cast<__nv_bfloat16*>(c), static_cast<const __nv_bfloat16*>(bias), n);
    else
      bias_add_kernel<<<int(blocks), threads, 0, stream>>>(static_cast<float*>(c),
                                                           static_cast<const float*>(bias), n);
    CK(cudaGetLastError());
  }
  void fused() {
    const float one = 1.0f, zero = 0.0f;
    CK(cublasLtMatmul(lt, desc, &one, b, lb, a, la, &zero, c, lc, c, lc, &algo, workspace,
                      workspace_bytes, stream));
  }

  void capture() {
    gemm();  // once eagerly first: cuBLAS's lazy set-up and module loading stay out of the capture
    bias_add();
    CK(cudaStreamSynchronize(stream));
    cudaGraph_t graph;
    CK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    gemm();
    bias_add();
    CK(cudaStreamEndCapture(stream, &graph));
    CK(cudaGraphInstantiate(&graph_exec, graph, 0));
    CK(cudaGraphDestroy(graph));
  }

  // One step's work, under the lab's scopes.
  void step_work(bool lazy_handle) {
    switch (args.variant) {
      case Variant::separate:
      case Variant::cold: {
        {
          WHYSLOW_SCOPE("matmul");
          if (lazy_handle && !handle) setup_cublas();
          gemm();
        }
        {
          WHYSLOW_SCOPE("bias_add");
          bias_add();
        }
        break;
      }
      case Variant::fused: {
        WHYSLOW_SCOPE("matmul");  // the bias is added in the GEMM's epilogue: no bias_add scope
        fused();
        break;
      }
      case Variant::graph: {
        WHYSLOW_SCOPE("matmul+bias_add (CUDA graph replay)");
        CK(cudaGraphLaunch(graph_exec, stream));
        break;
      }
    }
  }

  // ‖got − ref‖₂ / ‖ref‖₂ over every element (n ≤ 256) or 1024 sampled ones.
  double check_result() {
    CK(cudaStreamSynchronize(stream));
    std::vector<float> got(size_t(n) * n);
    if (args.dtype == Dtype::bf16) {
      std::vector<__nv_bfloat16> raw(size_t(n) * n);
      CK(cudaMemcpy(raw.data(), c, raw.size() * 2, cudaMemcpyDeviceToHost));
      for (size_t i = 0; i < raw.size(); ++i) got[i] = __bfloat162float(raw[i]);
    } else {
      CK(cudaMemcpy(got.data(), c, got.size() * 4, cudaMemcpyDeviceToHost));
    }
    std::vector<int64_t> idx;
    if (n <= 256) {
      for (int64_t i = 0; i < n * n; ++i) idx.push_back(i);
    } else {
      uint64_t s = 12345;
      for (int k = 0; k < 1024; ++k) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        idx.push_back(int64_t((s >> 17) % uint64_t(n * n)));
      }
    }
    double err2 = 0, ref2 = 0;
    for (int64_t e : idx) {
      const int64_t i = e / n, j = e % n;
      double ref = hbias[j];
      for (int64_t k = 0; k < n; ++k) ref += double(ha[i * n + k]) * double(hb[k * n + j]);
      const double d = double(got[e]) - ref;
      if (!std::isfinite(got[e])) return INFINITY;
      err2 += d * d;
      ref2 += ref * ref;
    }
    return std::sqrt(err2 / std::max(ref2, 1e-300));
  }

  double tolerance() const {
    return args.dtype == Dtype::fp32 ? 1e-4 : args.dtype == Dtype::tf32 ? 5e-3 : 2e-2;
  }
  void verify_or_die(double rel) {
    std::printf("check: relative error %.3g (tolerance %.0e, %s elements) -> %s\n", rel,
                tolerance(), n <= 256 ? "all" : "1024 sampled", rel <= tolerance() ? "ok" : "FAIL");
    if (!(rel <= tolerance())) {
      std::fprintf(stderr, "lab_matmul_bias: FAILED: result check: relative error %.3g > %.0e\n",
                   rel, tolerance());
      std::exit(2);
    }
  }
};

double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

}  // namespace

int main(int argc, char** argv) {
  const Args args = parse(argc, argv);
  Lab lab(args);
  const bool cold = args.variant == Variant::cold;
  lab.setup_buffers();  // cudaMalloc creates the context: that part of the cold start is not ours
  if (!cold) {
    lab.setup_cublas();
    if (args.variant == Variant::fused) lab.setup_lt();
    if (args.variant == Variant::graph) lab.capture();
    lab.step_work(false);  // the untimed, checked step (also the warm-up)
    lab.verify_or_die(lab.check_result());
  }

  whyslow::Schedule sched = cold ? whyslow::Schedule{.wait = 0, .warmup = 0, .active = args.steps, .repeat = 1}
                                 : whyslow::Schedule{.wait = 1, .warmup = 1, .active = args.steps, .repeat = 1};
  const int total_steps = int(sched.wait + sched.warmup + sched.active);
  bool exported = false;
  whyslow::Profiler prof({.schedule = whyslow::schedule(sched),
                          .on_trace_ready = [&](whyslow::Profiler& p) {
                            p.export_chrome_trace(args.out);
                            exported = true;
                          }});
  cudaEvent_t start, stop;
  CK(cudaEventCreate(&start));
  CK(cudaEventCreate(&stop));

  std::vector<double> gpu_us, cpu_us, wall_us;
  prof.start();
  for (int s = 0; s < total_steps; ++s) {
    const double t0 = now_us();
    CK(cudaEventRecord(start, lab.stream));
    lab.step_work(cold);
    CK(cudaEventRecord(stop, lab.stream));
    const double t1 = now_us();
    CK(cudaEventSynchronize(stop));
    const double t2 = now_us();
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, start, stop));
    const bool recorded = s >= sched.wait + sched.warmup;
    std::printf("step %d%s: GPU %.2f us  CPU (issuing) %.2f us  wall %.2f us\n", s,
                recorded ? " (recorded)" : "", ms * 1000.0, t1 - t0, t2 - t0);
    if (recorded) {
      gpu_us.push_back(ms * 1000.0);
      cpu_us.push_back(t1 - t0);
      wall_us.push_back(t2 - t0);
    }
    prof.step();
  }
  prof.stop();
  if (cold) lab.verify_or_die(lab.check_result());
  if (!exported) die("profiler", "no trace was handed to on_trace_ready");

  // Steady numbers: the median of the recorded steps (for cold, of the steps after the first).
  auto steady = [&](const std::vector<double>& v) {
    return cold && v.size() > 1 ? median(std::vector<double>(v.begin() + 1, v.end())) : median(v);
  };
  std::printf(
      "RESULT {\"size\": %d, \"dtype\": \"%s\", \"variant\": \"%s\", \"steps\": %zu, "
      "\"gpu_us\": %.4f, \"cpu_us\": %.4f, \"wall_us\": %.4f, \"first_gpu_us\": %.4f, "
      "\"first_cpu_us\": %.4f, \"first_wall_us\": %.4f, \"element_bytes\": %zu, "
      "\"gpu_activity\": %s, \"trace\": \"%s\"}\n",
      args.n, args.dtype_name.c_str(), args.variant_name.c_str(), gpu_us.size(), steady(gpu_us),
      steady(cpu_us), steady(wall_us), gpu_us[0], cpu_us[0], wall_us[0], lab.es,
      prof.gpu_activity() ? "true" : "false", args.out.c_str());
  return 0;
}
