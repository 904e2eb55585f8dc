// fp32_matmul: matrix products in plain fp32 on a GPU with tensor cores. PyTorch runs fp32 GEMMs
// on the CUDA cores unless TF32 is allowed (torch.backends.cuda.matmul.allow_tf32, or
// torch.set_float32_matmul_precision("high")); the tensor cores do TF32 several times faster,
// and bf16 faster still.
#include <fmt/core.h>

#include "analysis/roofline/fp32_gemms.hpp"
#include "common/units.hpp"
#include "explain/evidence.hpp"
#include "explain/rules.hpp"

namespace whyslow {
namespace {

// Below a tenth of the GPU's busy time the GEMMs are not where the time goes.
constexpr double kMinFp32ShareOfGpu = 0.10;
// When the GEMMs take half the profiled time, they set the program's pace: a warning.
constexpr double kWarningShareOfWindow = 0.5;

// The FP32 GEMMs tensor cores would speed up, over all kernels (analysis/roofline/fp32_gemms.hpp:
// the tensor-cores what-if edit replays the same kernels).
struct Fp32Gemms {
  int64_t ns = 0;
  uint64_t calls = 0;
  double flops = 0;           // of the modelled calls
  int64_t modelled_ns = 0;    // their time
  int device = -1;
  EventId slowest = kNoEvent;
};

Fp32Gemms fp32_gemms(const Trace& t, const Facts& f) {
  Fp32Gemms out;
  for (size_t i = 0; i < f.kernels.size() && i < f.roofline.kernels.size(); ++i) {
    const Fp32GemmTime k = fp32_gemm_time(t, f, i);
    if (k.ns <= 0) continue;
    out.ns += k.ns;
    out.calls += k.calls;
    out.flops += k.flops;
    out.modelled_ns += k.modelled_ns;
    if (out.device < 0) out.device = f.roofline.kernels[i].device;
    for (EventId e : f.kernels[i].events)
      if (out.slowest == kNoEvent || t.dur_ns[e] > t.dur_ns[out.slowest]) out.slowest = e;
  }
  return out;
}

}  // namespace

void rule_fp32_matmul(const Trace& t, const Facts& f, std::vector<Finding>& out) {
  const Fp32Gemms g = fp32_gemms(t, f);
  const int64_t ns = g.ns;
  const uint64_t calls = g.calls;
  const EventId slowest = g.slowest;
  const DeviceCeilings* dev = g.device >= 0 && static_cast<size_t>(g.device) < f.roofline.devices.size()
                                  ? &f.roofline.devices[g.device]
                                  : nullptr;
  if (dev && !dev->datasheet && !dev->measured) dev = nullptr;
  if (!dev || ns < kMinFp32ShareOfGpu * static_cast<double>(f.gpu_busy_ns)) return;
  // Measured ceilings say what this machine really does; else the datasheet.
  const Ceilings& c = dev->measured && dev->measured->flops(Precision::FP32) > 0 &&
                              dev->measured->flops(Precision::TF32) > 0
                          ? *dev->measured
                          : *dev->datasheet;
  const double fp32 = c.flops(Precision::FP32), tf32 = c.flops(Precision::TF32), bf16 = c.flops(Precision::BF16);
  if (fp32 <= 0 || tf32 <= fp32) return;  // no tensor cores that take TF32
  // The rate the modelled calls reach (the name-only ones have no FLOP count).
  const double achieved = g.modelled_ns > 0 ? g.flops / (static_cast<double>(g.modelled_ns) * 1e-9) : 0;
  // At the same fraction of the TF32 roof as they now reach of the fp32 one.
  const double tf32_ns = static_cast<double>(ns) * fp32 / tf32;
  const bool measured = &c != dev->datasheet;
  Finding x = make_finding(FindingId::fp32_matmul);
  x.severity = ns >= kWarningShareOfWindow * static_cast<double>(f.window.duration_ns) ? Severity::Warning : Severity::Info;
  x.title = fmt::format("Matrix products run in plain fp32 ({} in {} calls{}): TF32 tensor cores would run them up "
                        "to {} faster",
                        human_duration(ns), calls, achieved > 0 ? ", " + human_flop_rate(achieved) : std::string(),
                        human_ratio(tf32 / fp32));
  x.detail = fmt::format(
      "These GEMMs multiply fp32 matrices on the CUDA cores, whose roof on this {} is {}. Its tensor cores run the "
      "same products in TF32 (fp32's range, a 10-bit mantissa) at up to {}, and in bf16 at up to {}; PyTorch keeps "
      "fp32 matmuls off the tensor cores unless told otherwise. At the share of the TF32 roof they now reach of the "
      "fp32 one, these calls would take about {} instead of {}. (Rates: {}, {}.)",
      dev->name, human_flop_rate(fp32), human_flop_rate(tf32), human_flop_rate(bf16),
      human_duration(static_cast<int64_t>(tf32_ns)), human_duration(ns),
      measured ? "measured ceilings" : "datasheet peaks", c.source);
  x.evidence = {us("fp32_gemm_us", ns), count("calls", calls), {"achieved_tflops", achieved / 1e12, "TFLOP/s"},
                {"fp32_peak_tflops", fp32 / 1e12, "TFLOP/s"}, {"tf32_peak_tflops", tf32 / 1e12, "TFLOP/s"},
                ratio("tf32_speedup", tf32 / fp32), us("tf32_estimate_us", static_cast<int64_t>(tf32_ns)),
                percent("gpu_share", static_cast<double>(ns) / static_cast<double>(f.gpu_busy_ns))};
  if (bf16 > 0) x.evidence.push_back(ratio("bf16_speedup", bf16 / fp32));
  x.events = {{slowest, "longest fp32 GEMM"}};
  x.try_next = {"torch.set_float32_matmul_precision(\"high\") (or torch.backends.cuda.matmul.allow_tf32 = True): "
                "TF32 tensor cores for fp32 matmuls, ~1e-3 relative error instead of ~1e-6.",
                "Run the model in bf16 (torch.autocast(\"cuda\", dtype=torch.bfloat16)) where its accuracy allows."};
  x.impact_ns = ns - static_cast<int64_t>(tf32_ns);
  x.impact_what = "the fp32 GEMMs' GPU time beyond what TF32 would take";
  x.impact_is_gpu_time = true;
  out.push_back(std::move(x));
}

}  // namespace whyslow
