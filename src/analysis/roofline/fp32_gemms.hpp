// The fp32 GEMM time that tensor cores would speed up, per kernel row: one answer for the
// fp32_matmul finding (its time and its TF32 estimate) and the tensor-cores what-if edit (what the
// replay shrinks), so the finding's text and its replay price the same kernels.
#pragma once

#include <cstddef>
#include <cstdint>

#include "analysis/facts.hpp"
#include "trace/trace.hpp"

namespace whyslow {

struct Fp32GemmTime {
  int64_t ns = 0;           // the row's calls that qualify: fp32 on CUDA cores, not latency-bound
  uint64_t calls = 0;
  double flops = 0;         // of the qualifying calls the roofline models
  int64_t modelled_ns = 0;  // their time
};

// Kernel row `i` of f.kernels: counted by the kernel's own name (sgemm, *_ffma, CUTLASS simt:
// gemm_precision), or, where the name is silent, by its roofline model's fp32 matrix inputs; never
// a kernel whose name says tensor cores, nor a matrix-vector kernel (gemv, dot: no tensor-core
// version). Latency-bound calls are too small for faster arithmetic to matter: the roofline's
// verdict where it has a model, else a mean call under kShortKernelNs. Zero when none qualify.
Fp32GemmTime fp32_gemm_time(const Trace& t, const Facts& f, size_t i);

}  // namespace whyslow
