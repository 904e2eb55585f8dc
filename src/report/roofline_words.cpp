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

std::string describe_no_model(const NoModel& w) {
  switch (w.reason) {
    case NoModelReason::None: return "";
    case NoModelReason::UnknownOp: return fmt::format("no model for {}", w.op);
    case NoModelReason::ShapesNotRecorded: return fmt::format("{}: input shapes not recorded (record_shapes=False)", w.op);
    case NoModelReason::UnrecognisedArguments: return fmt::format("{} with arguments whyslow does not recognise", w.op);
    case NoModelReason::ScalarMatmul: return fmt::format("{} of a scalar", w.op);
    case NoModelReason::BatchDimsDoNotBroadcast: return fmt::format("{} with batch dims that do not broadcast", w.op);
    case NoModelReason::ReducedDimsNotRecorded: return fmt::format("{}: the reduced dims are not recorded", w.op);
    case NoModelReason::DimOutOfRange: return fmt::format("{}: dim {} out of range", w.op, w.value);
    case NoModelReason::NormalizedShapeNotRecorded: return fmt::format("{}: normalized_shape not recorded", w.op);
    case NoModelReason::NoTensorInput: return fmt::format("{} without a tensor input", w.op);
    case NoModelReason::IndexShapesNotRecorded:
      return fmt::format("{}: the profiler does not record the index tensors' shapes", w.op);
    case NoModelReason::ListElementSizeUnknown:
      return fmt::format("{}: the element size of its tensors is not recorded (TensorList) and its kernel's name does not give it", w.op);
    case NoModelReason::PackedSequences:
      return fmt::format("{} on packed variable-length sequences (lengths not in the trace)", w.op);
    case NoModelReason::ConvParamsNotRecorded: return fmt::format("{}: stride, padding or dilation not recorded", w.op);
    case NoModelReason::ImpossibleConvParams: return fmt::format("{}: {}, which no convolution has", w.op, w.detail);
    case NoModelReason::UnsupportedTensorType: return fmt::format("{} on a tensor of type '{}'", w.op, w.detail);
    case NoModelReason::NoTensorOperands: return fmt::format("{} without tensor operands", w.op);
    case NoModelReason::ShapesDoNotBroadcast: return fmt::format("{} on shapes that do not broadcast", w.op);
    case NoModelReason::NoLinkedOp: return "no op linked to the launch (no External id)";
    case NoModelReason::NotLaunchedByAtenOp: return fmt::format("launched inside '{}', not by an ATen op", w.op);
    case NoModelReason::ImpossibleShapes:
      return fmt::format("{}: input shapes no tensor has (a negative dim, or more than 2^40 elements)", w.op);
  }
  return "";
}

std::string describe_unused_peaks(const DeviceCeilings& d) {
  if (d.peaks_measured_on.empty()) return "";
  return fmt::format("--peaks was measured on {}, not on this {}: not used", d.peaks_measured_on, d.name);
}

}  // namespace whyslow::report
