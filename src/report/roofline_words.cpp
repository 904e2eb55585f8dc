#include "report/roofline_words.hpp"

#include <fmt/core.h>

#include "common/units.hpp"

namespace whyslow::report {
namespace {

std::string fmt_intensity(double x) { return x >= 10 ? fmt::format("{:.0f}", x) : fmt::format("{:.2g}", x); }

std::string ridge_terms(const BoundBasis& w, const char* relation) {
  return fmt::format("intensity {} FLOP/B {} ridge {} ({} {} / {})", fmt_intensity(w.intensity), relation,
                     fmt_intensity(w.ridge), human_flop_rate(w.peak_flops), to_string(w.precision),
                     human_rate(w.bandwidth));
}

}  // namespace

std::string describe_bound(const BoundBasis& w) {
  switch (w.reason) {
    case BoundReason::NotEvaluated: return "";
    case BoundReason::UnknownGpu: return "the trace does not say which GPU ran it";
    case BoundReason::NoDatasheet: return fmt::format("no datasheet peaks for '{}' (pass --peaks FILE)", w.gpu_name);
    case BoundReason::NoRateForPrecision:
      return fmt::format("the {} datasheet has no {} rate", w.gpu_name, to_string(w.precision));
    case BoundReason::FewBlocks:
      return fmt::format("{} block{} for {} SMs: most of the GPU idles", w.blocks, w.blocks == 1 ? "" : "s",
                         w.sm_count);
    case BoundReason::ShortCalls:
      return fmt::format("{} per call, under {} of both roofs: start-up and drain dominate",
                         human_duration(w.mean_call_ns), human_percent(kFarUnderRoof));
    case BoundReason::AtOrAboveRidge: return ridge_terms(w, "≥");
    case BoundReason::BelowRidge: return ridge_terms(w, "<");
  }
  return "";
}

}  // namespace whyslow::report
