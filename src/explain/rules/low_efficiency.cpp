// low_efficiency: a kernel that takes a real share of the GPU's time yet runs far under the roof
// that bounds it: the kernel (or how the op calls it) wastes the hardware, and a better one would
// save time. Latency-bound kernels are left out: their problem is size, not efficiency; so are
// short calls and memory-bound kernels whose data fits in L2 (see the constants).
#include <fmt/core.h>

#include <algorithm>
#include <cmath>

#include "common/units.hpp"
#include "explain/evidence.hpp"
#include "explain/rules.hpp"

namespace whyslow {
namespace {

// Tuned library kernels reach 60–90 % of the datasheet roof (cuBLAS GEMMs, vectorized
// elementwise kernels on the H200: data/peaks/h200_measured.json and tests/fixtures/roofline);
// under a quarter something is wrong.
constexpr double kFarUnderPct = 25;
// A kernel under a tenth of the GPU's busy time is not worth the user's attention here.
constexpr double kMinSlowKernelShareOfGpu = 0.10;
// Shorter calls spend a tenth or more of their time in fixed start-up and drain (~2 µs).
constexpr int64_t kMinCallNs = 20'000;
constexpr size_t kMaxSlowKernelsReported = 3;

}  // namespace

void rule_low_efficiency(const Trace& t, const Facts& f, std::vector<Finding>& out) {
  struct Slow {
    const KernelRow* row;
    const RooflineGroup* group;
    int64_t saving_ns;
  };
  std::vector<Slow> slow;
  for (size_t i = 0; i < f.roofline.kernels.size(); ++i) {
    for (const RooflineGroup& g : f.roofline.kernels[i].groups) {
      const RooflineVerdict& v = g.verdict;
      if ((v.bound != Bound::Compute && v.bound != Bound::Memory) || std::isnan(v.pct_of_peak) ||
          v.pct_of_peak >= kFarUnderPct || static_cast<double>(v.ns) < kMinSlowKernelShareOfGpu * static_cast<double>(f.gpu_busy_ns) ||
          v.ns < kMinCallNs * static_cast<int64_t>(g.calls))
        continue;
      // A working set that fits in L2 can be served faster than device memory: the memory roof
      // whyslow knows (device bandwidth) is then not the one that bounds it.
      if (v.bound == Bound::Memory && v.l2 != L2Fit::Spills) continue;
      const int64_t saving = v.ns - static_cast<int64_t>(static_cast<double>(v.ns) * v.pct_of_peak / kReachablePct);
      slow.push_back({&f.kernels[i], &g, saving});
    }
  }
  if (slow.empty()) return;
  std::sort(slow.begin(), slow.end(), [](const Slow& a, const Slow& b) { return a.saving_ns > b.saving_ns; });
  const Slow& top = slow.front();
  const RooflineVerdict& v = top.group->verdict;
  const bool compute = v.bound == Bound::Compute;
  int64_t saving = 0;
  std::string list;
  Finding x;
  for (size_t i = 0; i < slow.size(); ++i) {
    saving += slow[i].saving_ns;
    if (i >= kMaxSlowKernelsReported) continue;
    const RooflineVerdict& s = slow[i].group->verdict;
    list += fmt::format("\n  - {} ({}, {} calls, {}): {} = {:.0f} % of its {} roof",
                        std::string(t.names.view(slow[i].row->name)).substr(0, 80), t.name_of(slow[i].group->op),
                        slow[i].group->calls, human_duration(s.ns),
                        s.bound == Bound::Compute ? human_flop_rate(s.flop_per_s) : human_rate(s.bytes_per_s),
                        s.pct_of_peak, to_string(s.bound));
    x.events.push_back({slow[i].group->example, "a call far under its roof"});
  }
  x.id = FindingId::low_efficiency;
  x.severity = Severity::Warning;
  x.title = fmt::format("{} runs at {:.0f} % of its {} roof for {} of GPU time: {}",
                        std::string(t.names.view(top.row->name)).substr(0, 60), v.pct_of_peak,
                        compute ? "compute" : "memory", human_duration(v.ns),
                        compute ? human_flop_rate(v.flop_per_s) : human_rate(v.bytes_per_s));
  x.detail = fmt::format(
      "From the shapes of the ops that launched them, each kernel below has enough work to reach the roof that "
      "bounds it (compute or memory), yet runs under {:.0f} % of it (the datasheet's), where tuned kernels reach "
      "{:.0f} % or more:{}\nAt {:.0f} % of their roofs they would save about {}.",
      kFarUnderPct, kReachablePct, list, kReachablePct, human_duration(saving));
  x.evidence = {us("kernel_us", v.ns), percent("pct_of_peak", v.pct_of_peak / 100), us("possible_saving_us", saving),
                count("kernels_affected", slow.size())};
  if (!std::isnan(v.pct_of_measured)) x.evidence.push_back(percent("pct_of_measured", v.pct_of_measured / 100));
  if (compute) x.evidence.push_back({"achieved_tflops", v.flop_per_s / 1e12, "TFLOP/s"});
  else x.evidence.push_back({"achieved_bandwidth", v.bytes_per_s / 1e9, "GB/s"});
  x.try_next = {"Check the op's layouts and dtypes: non-contiguous or mixed-dtype inputs push PyTorch onto slow "
                "generic kernels; .contiguous() or matching dtypes may select a fast one.",
                "Shapes that are not multiples of 8/16 keep GEMMs off the fast tensor-core paths: pad them.",
                f.recording.from_torch ? "torch.compile can generate a fused, vectorized kernel for memory-bound chains."
                                       : "A fused, vectorized kernel moves memory-bound chains' bytes once."};
  x.impact_ns = saving;
  x.impact_what = "the kernels' GPU time above their roofline ceiling";
  x.impact_is_gpu_time = true;
  out.push_back(std::move(x));
}

}  // namespace whyslow
