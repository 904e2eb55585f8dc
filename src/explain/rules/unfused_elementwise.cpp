// unfused_elementwise: pointwise kernels run back to back, each writing its whole result to
// device memory for the next one to read back (y = relu(x * 2 + 1) in eager mode). A fused
// kernel (torch.compile, or one custom op) reads the inputs once and writes the result once.
#include <fmt/core.h>

#include "common/units.hpp"
#include "explain/evidence.hpp"
#include "explain/rules.hpp"

namespace whyslow {
namespace {

// The intermediates must cost real time: 10 µs over the trace and 2 % of the GPU's busy time.
constexpr int64_t kMinFusionSavingNs = 10'000;
constexpr double kMinFusionShareOfGpu = 0.02;

}  // namespace

void rule_unfused_elementwise(const Trace& t, const Facts& f, std::vector<Finding>& out) {
  uint64_t chains = 0, kernels = 0;
  double saved_bytes = 0, bytes = 0;
  int64_t ns = 0;
  const PointwiseChain* largest = nullptr;
  for (const PointwiseChain& c : f.roofline.chains) {
    ++chains;
    kernels += c.kernels.size();
    saved_bytes += c.saved_bytes;
    bytes += c.bytes;
    ns += c.ns;
    if (!largest || c.saved_bytes > largest->saved_bytes) largest = &c;
  }
  if (!largest || bytes <= 0) return;
  // The chain's own bandwidth times the bytes that fusion removes.
  const int64_t saving = static_cast<int64_t>(static_cast<double>(ns) * saved_bytes / bytes);
  if (saving < kMinFusionSavingNs || saving < kMinFusionShareOfGpu * static_cast<double>(f.gpu_busy_ns)) return;
  std::string names;
  for (EventId k : largest->kernels) names += (names.empty() ? "" : " → ") + std::string(t.name_of(t.op_link[k]));
  Finding x = make_finding(FindingId::unfused_elementwise);
  x.title = fmt::format("{} chain{} of back-to-back pointwise kernels ({} kernels, {}) move up to {} of "
                        "intermediates that a fused kernel would keep on chip",
                        chains, chains == 1 ? "" : "s", kernels, human_duration(ns),
                        human_bytes(static_cast<int64_t>(saved_bytes)));
  x.detail = fmt::format(
      "Each of these memory-bound kernels writes its whole result to device memory, and the next one reads it "
      "back: {} here. Fused into one kernel, the chain would read its inputs once and write one result, moving "
      "as little as {} instead of {} and saving up to {} at the bandwidth the chain reaches now. (The trace has "
      "no tensor addresses: a kernel is taken to read the previous one's result when it takes a tensor of that "
      "shape. Where it reads another tensor of the same shape instead, fusion saves the re-reads of shared "
      "inputs but not the writes, so less.)",
      names, human_bytes(static_cast<int64_t>(bytes - saved_bytes)), human_bytes(static_cast<int64_t>(bytes)),
      human_duration(saving));
  x.evidence = {count("chains", chains), count("kernels", kernels), us("chain_us", ns),
                {"bytes", bytes, "bytes"}, {"bytes_saved", saved_bytes, "bytes"}, us("possible_saving_us", saving)};
  x.events = {{largest->kernels.front(), "first kernel of the largest chain"},
              {largest->kernels.back(), "last kernel of the largest chain"}};
  if (f.recording.from_torch)
    x.try_next = {"torch.compile the function: Inductor fuses pointwise chains into one Triton kernel.",
                  "Use a fused op where one exists (F.gelu with approximate, torch.addcmul, torch.lerp, fused "
                  "optimizers), or write the chain as one custom kernel."};
  else
    x.try_next = {"Write the chain as one kernel that reads the inputs once and writes the result once (or use a "
                  "library's fused epilogue, such as cuBLASLt's bias and activation)."};
  x.impact_ns = saving;
  x.impact_what = "the pointwise chains' GPU time beyond one fused kernel";
  x.impact_is_gpu_time = true;
  out.push_back(std::move(x));
}

}  // namespace whyslow
