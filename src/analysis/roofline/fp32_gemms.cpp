#include "analysis/roofline/fp32_gemms.hpp"

#include <algorithm>
#include <string_view>

#include "analysis/core/gemm_precision.hpp"

namespace whyslow {
namespace {

bool matrix_vector(std::string_view name) {
  return name.find("gemv") != std::string_view::npos || name.find("dot_kernel") != std::string_view::npos;
}

}  // namespace

Fp32GemmTime fp32_gemm_time(const Trace& t, const Facts& f, size_t i) {
  Fp32GemmTime out;
  if (i >= f.kernels.size() || i >= f.roofline.kernels.size()) return out;
  const KernelRow& row = f.kernels[i];
  const KernelRoofline& kr = f.roofline.kernels[i];
  if (row.events.empty() || matrix_vector(t.names.view(row.name))) return out;
  const GemmUnit unit = gemm_unit(t, row.events.front());
  bool modelled_fp32 = false;
  for (const RooflineGroup& g : kr.groups)
    modelled_fp32 |= g.cost.unit == MathUnit::Matrix && g.verdict.roof_precision == Precision::FP32;
  if (unit != GemmUnit::Fp32Simt && !(unit == GemmUnit::UnknownGemm && modelled_fp32)) return out;
  int64_t grouped_ns = 0, latency_ns = 0;
  uint64_t grouped_calls = 0, latency_calls = 0;
  for (const RooflineGroup& g : kr.groups) {
    grouped_ns += g.verdict.ns;
    grouped_calls += g.calls;
    if (g.verdict.bound == Bound::Latency || g.verdict.bound == Bound::Unknown) {
      latency_ns += g.verdict.ns;
      latency_calls += g.calls;
    } else {
      out.flops += g.verdict.flops;
      out.modelled_ns += g.verdict.ns;
    }
  }
  // The calls without a model: latency-bound when short on average.
  const int64_t unmodelled_ns = std::max<int64_t>(0, row.total_ns - grouped_ns);
  const uint64_t unmodelled_calls = row.calls > grouped_calls ? row.calls - grouped_calls : 0;
  const bool unmodelled_short =
      unmodelled_calls > 0 && unmodelled_ns / static_cast<int64_t>(unmodelled_calls) < kShortKernelNs;
  const int64_t ns = row.total_ns - latency_ns - (unmodelled_short ? unmodelled_ns : 0);
  if (ns <= 0) return Fp32GemmTime{};
  out.ns = ns;
  out.calls = row.calls - latency_calls - (unmodelled_short ? unmodelled_calls : 0);
  return out;
}

}  // namespace whyslow
