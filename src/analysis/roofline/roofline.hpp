// Roofline facts: per kernel, the FLOPs and bytes of the op that launched it, the rates it
// achieved, and which roof bounds it (compute, memory, or neither: latency).
//
// Grouping: the kernel table groups calls by kernel name, but one kernel serves many shapes
// (cuBLAS runs the same GEMM kernel for different K), so FLOPs and bytes are computed per call,
// from that call's op, and calls are grouped by (op, input shapes, input types) within each
// kernel. Each group gets its own rates and verdict; the kernel's own fields are the totals over
// its modelled calls, with the verdict of the group that takes the most time.
//
// An op that launches several kernels (split-K GEMMs, cuDNN's layout transforms around a
// convolution) shares its FLOPs and bytes among them in proportion to their durations, so each
// shows the op's average rate; `kernels_per_op` says how many shared. Copies and memsets the op
// launched are not kernels and take no share.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "analysis/roofline/gpu_peaks.hpp"
#include "analysis/roofline/op_cost.hpp"

namespace whyslow {

struct KernelRow;

enum class Bound : uint8_t { Unknown, Compute, Memory, Latency };
enum class L2Fit : uint8_t { Unknown, Fits, Spills };
std::string_view to_string(Bound b);
std::string_view to_string(L2Fit f);

inline constexpr double kNoValue = std::numeric_limits<double>::quiet_NaN();

// The roofs a GPU of the trace is held against.
struct DeviceCeilings {
  int32_t device = -1;             // deviceProperties id
  std::string name;                // as the trace names it
  const Ceilings* datasheet = nullptr;  // nullptr: not in whyslow's table
  std::optional<Ceilings> measured;     // --peaks, when it was measured on this GPU
  int32_t sm_count = 0;            // the trace's numSms, else the datasheet's
  std::string peaks_measured_on;   // the GPU a --peaks file was measured on, when not this one (so not used)
};

// A kernel with fewer blocks than half the SMs leaves most of the GPU idle: it cannot approach
// either roof however good its code. Half, not all: Hopper GEMMs launch clusters of two blocks
// and persistent grids of ~128 blocks on 132 SMs, which do fill the GPU.
inline constexpr double kMinFilledSms = 0.5;

// What a good kernel reaches of the roof that bounds it: tuned library kernels reach 60-90 % of the
// datasheet roof (cuBLAS GEMMs, vectorized elementwise kernels on the H200:
// data/peaks/h200_measured.json and tests/fixtures/roofline). A realistic target, not the roof:
// the low_efficiency rule's saving and the roofline what-if edit both bring a kernel up to it.
inline constexpr double kReachablePct = 75;
// Below this a kernel's time is mostly its fixed cost: an empty kernel takes about 2 µs from
// start to end on an H100/H200 (ramp-up over the SMs, then drain).
inline constexpr int64_t kShortKernelNs = 5'000;
// …and a short kernel under a quarter of both roofs is bound by that fixed cost, not by a roof.
inline constexpr double kFarUnderRoof = 0.25;

// Why a verdict's bound is what it is, as numbers (the renderers word it: report/roofline_words).
enum class BoundReason : uint8_t {
  NotEvaluated,        // no calls with a cost model: nothing to hold against the roofs
  UnknownGpu,          // the trace does not say which GPU ran it
  NoDatasheet,         // gpu_name is not in whyslow's datasheet table
  NoRateForPrecision,  // gpu_name's datasheet has no rate for `precision`
  FewBlocks,           // blocks < kMinFilledSms × sm_count
  ShortCalls,          // mean_call_ns < kShortKernelNs and under kFarUnderRoof of both roofs
  AtOrAboveRidge,      // intensity ≥ ridge: compute-bound
  BelowRidge,          // intensity < ridge: memory-bound
};
struct BoundBasis {
  BoundReason reason = BoundReason::NotEvaluated;
  std::string gpu_name;          // NoDatasheet: the trace's name; NoRateForPrecision: the datasheet's
  Precision precision = Precision::Other;
  int64_t blocks = -1;
  int32_t sm_count = 0;
  int64_t mean_call_ns = 0;
  double intensity = kNoValue, ridge = kNoValue;  // FLOP/B
  double peak_flops = kNoValue, bandwidth = kNoValue;  // the roofs: FLOP/s, B/s
};

// What one set of calls achieved against the roofs.
struct RooflineVerdict {
  double flops = 0, bytes = 0;     // totals over the calls
  int64_t ns = 0;                  // their total duration
  double intensity = kNoValue;     // FLOPs per byte
  double flop_per_s = kNoValue, bytes_per_s = kNoValue;
  Precision roof_precision = Precision::Other;  // whose compute roof applies (TF32 for a TF32 GEMM)
  Bound bound = Bound::Unknown;
  BoundBasis basis;
  double pct_of_peak = kNoValue;       // achieved / the bounding datasheet roof at this intensity, 0–100+
  double pct_of_measured = kNoValue;   // the same against measured ceilings
  double working_set = kNoValue;   // bytes one call touches
  L2Fit l2 = L2Fit::Unknown;
};

// Calls of one kernel launched by the same op on the same shapes.
struct RooflineGroup {
  EventId example = kNoEvent;      // the first call
  EventId op = kNoEvent;           // the op of the first call
  uint64_t calls = 0;
  uint32_t kernels_per_op = 1;     // kernels the op call launched, sharing its cost (first call)
  OpCost cost;                     // of one op call (not yet shared)
  RooflineVerdict verdict;
};

struct KernelRoofline {
  int device = -1;                 // index into RooflineFacts::devices; -1 when unknown
  uint64_t modelled_calls = 0;
  NoModel why_not;                 // why some calls have no model (the reason of the first such call)
  std::vector<RooflineGroup> groups;  // by total time, largest first
  RooflineVerdict total;           // over the modelled calls; bound and L2 from groups.front()
};

// Back-to-back pointwise kernels on one stream, each reading a tensor of the shape the one before
// wrote: a fused kernel would keep those intermediates on chip instead of writing them to device
// memory and reading them back (pointwise_chains.cpp).
struct PointwiseChain {
  std::vector<EventId> kernels;
  int64_t ns = 0;          // their total duration
  double bytes = 0;        // what they move, by their models
  double saved_bytes = 0;  // intermediates written and read back: what a fused kernel would not move
};

struct RooflineFacts {
  std::vector<DeviceCeilings> devices;
  std::vector<KernelRoofline> kernels;  // one per Facts::kernels entry, in the same order
  std::vector<PointwiseChain> chains;   // in trace order
};

std::vector<PointwiseChain> pointwise_chains(const Trace& trace, OpModelCache& models);

// Measured ceilings from --peaks (nullptr: datasheet only).
RooflineFacts roofline(const Trace& trace, const std::vector<KernelRow>& kernels, const Ceilings* measured);

// The compute roof an op's arithmetic runs against on a kernel: fp32 GEMMs whose kernel is a
// TF32 one ("tf32", CUTLASS's "tensorop_s…" single-precision tensor-op GEMMs) use the TF32 rate;
// non-matrix work uses the fp32 rate.
Precision roof_precision(const OpCost& cost, std::string_view kernel_name);

}  // namespace whyslow
