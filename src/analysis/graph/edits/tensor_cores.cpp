// fp32 GEMMs on tensor cores. Model: each kernel whose calls are fp32 matrix products on the CUDA
// cores, by its name or its roofline model, and not latency-bound (too small for faster arithmetic
// to matter: analysis/roofline/fp32_gemms.hpp, the same kernels the fp32_matmul finding counts)
// runs at the same share of the TF32 (or bf16) compute roof as it now reaches of the fp32 one:
// its duration times fp32 peak / target peak, on the datasheet (or --peaks) of its GPU. A kernel
// row of which only some calls qualify shrinks in proportion to their share of its time. Only the
// GEMMs change: bf16's halved bytes elsewhere (elementwise kernels, copies) are not modelled.
#include <fmt/core.h>

#include <unordered_map>

#include "analysis/graph/edits/edits.hpp"
#include "analysis/roofline/fp32_gemms.hpp"

namespace whyslow {

EditOutcome edit_tensor_cores(const EditContext& c, std::string_view param, GraphState& s) {
  EditOutcome out;
  if (!param.empty() && param != "tf32" && param != "bf16") {
    out.why_not = fmt::format("tensor-cores takes \"tf32\" (the default) or \"bf16\", not \"{}\"", param);
    return out;
  }
  const Precision target = param == "bf16" ? Precision::BF16 : Precision::TF32;
  const Facts& f = c.facts;
  // Per kernel name: the factor its calls' durations take.
  std::unordered_map<NameId, double> factor;
  double unavailable = 0;
  for (size_t i = 0; i < f.kernels.size() && i < f.roofline.kernels.size(); ++i) {
    const KernelRoofline& kr = f.roofline.kernels[i];
    if (kr.device < 0 || static_cast<size_t>(kr.device) >= f.roofline.devices.size()) continue;
    const DeviceCeilings& dev = f.roofline.devices[kr.device];
    const Ceilings* ceil = dev.measured && dev.measured->flops(Precision::FP32) > 0 && dev.measured->flops(target) > 0
                               ? &*dev.measured
                               : dev.datasheet;
    const int64_t qualifying = fp32_gemm_time(c.trace, f, i).ns;
    if (qualifying <= 0 || f.kernels[i].total_ns <= 0) continue;
    if (!ceil || ceil->flops(Precision::FP32) <= 0 || ceil->flops(target) <= ceil->flops(Precision::FP32)) {
      unavailable += static_cast<double>(qualifying);
      continue;
    }
    const double q = std::min(1.0, static_cast<double>(qualifying) / static_cast<double>(f.kernels[i].total_ns));
    factor[f.kernels[i].name] = 1.0 - q + q * ceil->flops(Precision::FP32) / ceil->flops(target);
  }
  if (factor.empty()) {
    out.why_not = unavailable > 0 ? fmt::format("this GPU has no {} tensor cores faster than its fp32 units",
                                                target == Precision::BF16 ? "bf16" : "TF32")
                                  : "no kernel runs fp32 matrix products large enough for tensor cores to matter";
    return out;
  }
  const Graph& g = c.graph;
  int64_t before = 0, after = 0;
  for (size_t i : c.steady) {
    const StepSpan& sp = c.spans[i];
    if (sp.empty()) continue;
    for (NodeId w : step_work(g, sp)) {
      const auto it = factor.find(c.trace.name[g.nodes[w].event]);
      if (it == factor.end()) continue;
      before += s.dur[w];
      s.dur[w] = static_cast<int64_t>(static_cast<double>(s.dur[w]) * it->second);
      after += s.dur[w];
    }
  }
  if (before == 0) {
    out.why_not = "the steady steps launch none of the fp32 GEMMs";
    return out;
  }
  out.applies = true;
  const double steps = static_cast<double>(c.steady.size());
  out.change = fmt::format("fp32 GEMMs on {} tensor cores: {:.0f} → {:.0f} µs of GEMM time per step",
                           target == Precision::BF16 ? "bf16" : "TF32", static_cast<double>(before) / steps / 1e3,
                           static_cast<double>(after) / steps / 1e3);
  return out;
}

}  // namespace whyslow
