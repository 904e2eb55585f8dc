// The roofline against the truth recorded on an H200 (tests/fixtures/roofline/, made by
// tools/record_roofline.py): x @ w + b for n = 64 … 8192 in fp32 and bf16, traced with
// torch.profiler and timed again without the profiler with CUDA events (timings.json), and an
// in-place add swept across the 60 MiB L2. Measured ceilings: data/peaks/h200_measured.json.
#include <gtest/gtest.h>
#include <fmt/core.h>
#include <simdjson.h>

#include <cmath>
#include <map>

#include "test_support.hpp"

namespace whyslow {
namespace {

const std::string kDir = std::string(WHYSLOW_FIXTURES) + "/roofline/";
const std::string kPeaks = std::string(WHYSLOW_FIXTURES) + "/../../data/peaks/h200_measured.json";

struct Analyzed {
  Trace trace;
  Facts facts;
};

Analyzed analyze_fixture(const std::string& name) {
  static const Ceilings measured = load_ceilings_file(kPeaks);
  Analyzed a{load_trace(kDir + name + ".json.gz"), {}};
  a.facts = analyze(a.trace, {&measured});
  return a;
}

// Every shape group of every kernel launched by `op` (split-K GEMMs run two kernels per call).
std::vector<const RooflineGroup*> groups_of(const Analyzed& a, std::string_view op) {
  std::vector<const RooflineGroup*> out;
  for (const KernelRoofline& k : a.facts.roofline.kernels)
    for (const RooflineGroup& g : k.groups)
      if (a.trace.name_of(g.op) == op) out.push_back(&g);
  return out;
}

// The op's kernels taken together: total FLOPs, bytes and time over the calls.
struct OpTotals {
  double flops = 0, bytes = 0;
  int64_t ns = 0;
  uint64_t op_calls = 0;
  Bound bound = Bound::Unknown;
};
OpTotals totals(const Analyzed& a, std::string_view op) {
  OpTotals t;
  for (const RooflineGroup* g : groups_of(a, op)) {
    t.flops += g->verdict.flops;
    t.bytes += g->verdict.bytes;
    t.ns += g->verdict.ns;
    t.op_calls = g->calls;  // each op call runs each of its kernels once
    if (t.bound == Bound::Unknown || g->verdict.ns > 0) t.bound = g->verdict.bound;
  }
  return t;
}

simdjson::dom::element json_file(const std::string& path) {
  static simdjson::dom::parser parser;  // one document alive at a time is all the tests need
  static std::map<std::string, simdjson::padded_string> files;
  auto [it, inserted] = files.try_emplace(path);
  if (inserted) it->second = simdjson::padded_string::load(path).value();
  return parser.parse(it->second).value();
}

constexpr int kSizes[] = {64, 128, 256, 512, 1024, 2048, 4096, 8192};

TEST(RooflineSweep, ClassifiesEachKernelOfTheSweep) {
  for (const char* dtype : {"fp32", "bf16"}) {
    for (int n : kSizes) {
      const Analyzed a = analyze_fixture(fmt::format("mm_bias_{}_{}", n, dtype));
      const OpTotals mm = totals(a, "aten::mm"), add = totals(a, "aten::add");
      SCOPED_TRACE(fmt::format("{} {}", n, dtype));
      ASSERT_EQ(mm.op_calls, 3u);
      ASSERT_EQ(add.op_calls, 3u);
      // Every call modelled: FLOPs as the script counted them by hand (2·n³ and n² per call).
      EXPECT_DOUBLE_EQ(mm.flops, 3 * 2.0 * n * n * n);
      EXPECT_DOUBLE_EQ(add.flops, 3.0 * n * n);
      if (n <= 256) {
        // A few µs on a handful of blocks: neither roof is in reach.
        EXPECT_EQ(mm.bound, Bound::Latency);
        EXPECT_EQ(add.bound, Bound::Latency);
      }
      if (n >= 2048) {
        EXPECT_EQ(mm.bound, Bound::Compute);  // intensity n/6 (fp32) or n/3 (bf16) FLOP/B, above the ridge
        EXPECT_EQ(add.bound, Bound::Memory);  // 1/8 or 1/4 FLOP/B
      }
    }
  }
  // The headline cases, with the reasons whyslow gives.
  const Analyzed bf16 = analyze_fixture("mm_bias_4096_bf16");
  const RooflineGroup& gemm = *groups_of(bf16, "aten::mm").front();
  EXPECT_EQ(gemm.verdict.bound, Bound::Compute);
  EXPECT_EQ(gemm.verdict.roof_precision, Precision::BF16);
  EXPECT_NEAR(gemm.verdict.pct_of_peak, 79, 2);      // 779 TFLOP/s of the datasheet's 989.5
  EXPECT_NEAR(gemm.verdict.pct_of_measured, 99, 2);  // of the 789 measured on the same GPU
  EXPECT_EQ(gemm.verdict.l2, L2Fit::Spills);         // 96 MiB of operands and result
  const RooflineGroup& add = *groups_of(bf16, "aten::add").front();
  EXPECT_EQ(add.verdict.bound, Bound::Memory);
  EXPECT_NEAR(add.verdict.bytes_per_s / 1e12, 1.62, 0.03);
  const Analyzed tiny = analyze_fixture("mm_bias_64_fp32");
  const BoundBasis& why = groups_of(tiny, "aten::mm").front()->verdict.basis;
  EXPECT_EQ(why.reason, BoundReason::FewBlocks);
  EXPECT_EQ(why.blocks, 4);
  EXPECT_EQ(why.sm_count, 132);
}

TEST(RooflineSweep, Tf32GemmIsHeldAgainstTheTf32Roof) {
  // Same fp32 tensors; with TF32 allowed cuBLAS picks a tf32 kernel, and the roof follows it.
  const Analyzed tf32 = analyze_fixture("mm_bias_4096_tf32");
  const RooflineGroup& g = *groups_of(tf32, "aten::mm").front();
  EXPECT_EQ(g.verdict.roof_precision, Precision::TF32);
  EXPECT_NEAR(g.verdict.flop_per_s / 1e12, 366, 5);
  const Analyzed fp32 = analyze_fixture("mm_bias_4096_fp32");
  EXPECT_EQ(groups_of(fp32, "aten::mm").front()->verdict.roof_precision, Precision::FP32);
}

// whyslow's achieved rates (FLOPs from the shapes over the kernel times in the trace) against the
// same FLOPs over the time CUDA events measured without the profiler. The event pair adds the
// GPU's ~2 µs gap between the events and the kernel, so only kernels of 20 µs and more can agree
// within 10 %.
TEST(RooflineSweep, AchievedRatesAgreeWithCudaEventTiming) {
  const auto timings = json_file(kDir + "timings.json");
  int compared = 0;
  for (const char* dtype : {"fp32", "bf16", "tf32"}) {
    for (int n : kSizes) {
      const std::string name = fmt::format("mm_bias_{}_{}", n, dtype);
      simdjson::dom::element entry;
      if (timings[name].get(entry)) continue;  // tf32: 4096 only
      const Analyzed a = analyze_fixture(name);
      for (auto [key, op] : {std::pair{"mm", "aten::mm"}, std::pair{"add", "aten::add"}}) {
        const OpTotals t = totals(a, op);
        const double flops = entry[key]["flops"].get_double().value();
        const double event_s = entry[key]["event_ms"].get_double().value() / 1e3;
        const double whyslow_rate = t.flops / (static_cast<double>(t.ns) * 1e-9);
        EXPECT_DOUBLE_EQ(t.flops / 3, flops) << name << " " << key;
        if (static_cast<double>(t.ns) / 3 < 20'000) continue;
        double tolerance = 0.10;
        // The 8192 bf16 pair: the event timing ran 50 GEMMs back to back at ~700 W and the GPU
        // clocked down (12.5 % slower; the add, timed right after, 13 %). measure_ceilings.py
        // timed the same GEMM without that sustained load at 1.3935 ms: it is checked against
        // that below, and this pair within 15 %.
        if (name == "mm_bias_8192_bf16") tolerance = 0.15;
        EXPECT_NEAR(whyslow_rate / (flops / event_s), 1.0, tolerance) << name << " " << key;
        ++compared;
      }
    }
  }
  // GEMMs from 1024 (fp32) or 2048 (bf16) up, adds from 4096 up, and the 4096 tf32 pair.
  EXPECT_EQ(compared, 13);
  const auto peaks = json_file(kPeaks);
  const double ceiling_s = peaks["details"]["gemm_bf16_8192"]["ms"].get_double().value() / 1e3;
  const Analyzed a = analyze_fixture("mm_bias_8192_bf16");
  const OpTotals mm = totals(a, "aten::mm");
  EXPECT_NEAR(mm.flops / (static_cast<double>(mm.ns) * 1e-9) / (2.0 * 8192 * 8192 * 8192 / ceiling_s), 1.0, 0.10);
}

// Working sets across the L2: the vectorized in-place add (x += y) runs above device-memory
// bandwidth while x and y fit in the 60 MiB L2, and at device-memory speed once they do not.
TEST(RooflineSweep, L2KneeInTheAddSweep) {
  const auto measured = load_ceilings_file(kPeaks);
  const Analyzed a = analyze_fixture("l2_sweep_contiguous");
  ASSERT_EQ(a.facts.roofline.kernels.size(), 1u);  // one kernel, twelve shapes
  const KernelRoofline& k = a.facts.roofline.kernels.front();
  ASSERT_EQ(k.groups.size(), 12u);
  const double hbm = a.facts.roofline.devices.front().datasheet->bytes_per_s;
  std::map<double, const RooflineVerdict*> by_working_set;
  for (const RooflineGroup& g : k.groups) by_working_set[g.verdict.working_set] = &g.verdict;
  constexpr double MiB = 1 << 20;
  for (auto [ws, v] : by_working_set) {
    SCOPED_TRACE(ws / MiB);
    EXPECT_EQ(v->l2, ws <= 60 * MiB ? L2Fit::Fits : L2Fit::Spills);
    if (ws > 60 * MiB) {  // from device memory: within 5 % of the measured copy bandwidth
      EXPECT_NEAR(v->bytes_per_s / measured.bytes_per_s, 1.0, 0.05);
      EXPECT_LT(v->bytes_per_s, hbm);
    }
  }
  // The knee: 32 MiB fits and runs 39 % above the datasheet's 4.8 TB/s; 64 MiB spills and does not.
  EXPECT_GT(by_working_set[32 * MiB]->bytes_per_s, 1.3 * hbm);
  EXPECT_GT(by_working_set[32 * MiB]->bytes_per_s, 1.4 * by_working_set[64 * MiB]->bytes_per_s);
  // The broadcast bias add's kernel is slower (index arithmetic), but shows the same step.
  const Analyzed bias = analyze_fixture("l2_sweep");
  std::map<double, const RooflineVerdict*> bias_ws;
  for (const RooflineGroup& g : bias.facts.roofline.kernels.front().groups) bias_ws[g.verdict.working_set] = &g.verdict;
  EXPECT_GT(bias_ws[32 * MiB + 16 * 1024]->bytes_per_s, 1.1 * bias_ws[64 * MiB + 16 * 1024]->bytes_per_s);
}

TEST(RooflineSweep, L2SweepRatesAgreeWithCudaEventTiming) {
  const auto timings = json_file(kDir + "timings.json");
  for (const char* sweep : {"l2_sweep", "l2_sweep_contiguous"}) {
    const Analyzed a = analyze_fixture(sweep);
    std::map<double, const RooflineVerdict*> by_bytes;
    for (const RooflineGroup& g : a.facts.roofline.kernels.front().groups)
      by_bytes[g.verdict.bytes / static_cast<double>(g.calls)] = &g.verdict;
    simdjson::dom::object sizes = timings[sweep].get_object().value();
    for (auto [mib, entry] : sizes) {
      const double bytes = entry["bytes"].get_double().value();
      const double event_s = entry["event_ms"].get_double().value() / 1e3;
      ASSERT_TRUE(by_bytes.count(bytes)) << sweep << " " << mib;  // whyslow's bytes = the script's count
      const RooflineVerdict& v = *by_bytes[bytes];
      if (static_cast<double>(v.ns) / 20 < 20'000) continue;  // 20 calls per size
      EXPECT_NEAR(v.bytes_per_s / (bytes / event_s), 1.0, 0.10) << sweep << " " << mib << " MiB";
    }
  }
}

}  // namespace
}  // namespace whyslow
