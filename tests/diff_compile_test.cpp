// `whyslow diff` on the comparisons people make, recorded on an H200 with the schedule everyone
// copies (wait=1, warmup=1, active=3: three steps a side; tests/fixtures/compile/,
// tools/record_compile.py). torch's own step times (synchronize + perf_counter around each
// profiled call, NAME.truth.json) are the oracle for which side is faster; the verdict must agree
// with them, name the cause an expert reading the events names, and stay "same" on the negative
// controls (a trace against itself, one script recorded twice).
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>
#include <filesystem>

#include "analysis/facts.hpp"
#include "diff/diff.hpp"
#include "diff_pair.hpp"
#include "test_support.hpp"
#include "trace/load_trace.hpp"

namespace whyslow {
namespace {

std::string fixture(const std::string& name) { return testing::fixture_in("compile", name + ".json.gz"); }

// torch's wall time of each profiled step call, ms, in order.
std::vector<double> torch_steps_ms(const std::string& name) {
  simdjson::dom::parser parser;
  const simdjson::dom::element root = parser.load(testing::fixture_in("compile", name + ".truth.json"));
  std::vector<double> out;
  for (double ms : root["profiled_step_wall_ms"].get_array()) out.push_back(ms);
  return out;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

using Pair = testing::DiffPair;
Pair diff_pair(const std::string& a, const std::string& b) { return testing::diff_pair(fixture(a), fixture(b)); }

bool says(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

struct Case {
  const char *a, *b;
  const char* faster;
  const char* basis;
  const char* cause;  // Cause::kind
};

// Each verdict, what decides it and why, as an expert reads the raw events (the comments give
// torch's own step times, ms, ProfilerStep#2/#3/#4):
const Case kCases[] = {
    // 0.18/0.09/0.08 vs 0.37/0.24/0.16: each compiled step slower than the same eager step; the
    // compiled call's guards and wrapper cost ~180 µs of CPU for 3 µs of GPU work.
    {"mm64_eager", "mm64_compile", "a", "paired_steps", "compiled_call_overhead"},
    // 0.32/0.27/0.29 vs 0.62/0.49/0.50: every compiled step longer; ~300 µs of compiled-call CPU
    // against 176 µs of GPU work in a step that syncs.
    {"mm4096_eager", "mm4096_compile", "a", "ranges_disjoint", "compiled_call_overhead"},
    {"mlp_eager", "mlp_compile", "a", "ranges_disjoint", "compiled_call_overhead"},
    // 0.80/0.70/0.67 vs 0.23/0.16/0.17: SDPA replaces matmul → softmax → matmul on the same q, k, v.
    {"attn_eager", "attn_sdpa", "b", "ranges_disjoint", "gpu_work"},
    // 0.84/0.37/0.37 vs 739/733/682: dynamic=False recompiles for every new batch.
    {"varshape_eager", "varshape_static", "a", "ranges_disjoint", "recompilation"},
    {"varshape_dynamic", "varshape_static", "a", "ranges_disjoint", "recompilation"},
    // 0.48/0.31/0.23 vs 4.00/8.94/3.72: a new batch each call, so the CUDA graphs never replay.
    {"ro_fixed", "ro_varying", "a", "ranges_disjoint", "cuda_graphs_not_replayed"},
};

TEST(DiffCompile, VerdictAndCauseAgreeWithTorchsOwnStepTimes) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(std::string(c.a) + " vs " + c.b);
    const Pair p = diff_pair(c.a, c.b);
    const Verdict& v = p.d.verdict;
    ASSERT_TRUE(v.comparable) << v.summary;
    const double ta = median(torch_steps_ms(c.a)), tb = median(torch_steps_ms(c.b));
    EXPECT_EQ(std::string(tb > ta ? "a" : "b"), c.faster) << "torch's medians: " << ta << " vs " << tb << " ms";
    EXPECT_EQ(v.faster, c.faster) << v.summary;
    EXPECT_EQ(v.basis, c.basis) << v.summary;
    EXPECT_FALSE(v.confidence.empty());
    EXPECT_EQ(v.cause.kind, c.cause) << v.summary;
    EXPECT_TRUE(says(v.summary, " Because ")) << v.summary;
    ASSERT_FALSE(v.try_next.empty());
    // Recompilation and graphs that never replay are never answered with "use CUDA graphs".
    if (v.cause.kind == "recompilation" || v.cause.kind == "cuda_graphs_not_replayed") {
      for (const std::string& t : v.try_next) EXPECT_FALSE(says(t, "replay the whole step with one launch")) << t;
    }
  }
}

TEST(DiffCompile, CausesAreWordedWithTheirNumbers) {
  const Pair tiny = diff_pair("mm64_eager", "mm64_compile");
  EXPECT_TRUE(says(tiny.d.verdict.summary, "the fixed CPU cost of a compiled call outweighs a workload this small"))
      << tiny.d.verdict.summary;
  EXPECT_TRUE(says(tiny.d.verdict.try_next.front(), "keep A here")) << tiny.d.verdict.try_next.front();
  const Pair recompiles = diff_pair("varshape_dynamic", "varshape_static");
  EXPECT_TRUE(says(recompiles.d.verdict.summary, "B recompiles in 3 of its 3 steps (3 compilations"))
      << recompiles.d.verdict.summary;
  EXPECT_TRUE(says(recompiles.d.verdict.try_next.front(), "dynamic=True")) << recompiles.d.verdict.try_next.front();
  const Pair sdpa = diff_pair("attn_eager", "attn_sdpa");
  EXPECT_TRUE(says(sdpa.d.verdict.summary, "became 2 in B (aten::scaled_dot_product_attention")) << sdpa.d.verdict.summary;
}

TEST(DiffCompile, AnOpSwapIsComparableByItsInputs) {
  // Eager attention and SDPA share no kernel and no op shape, but the same record_function block
  // is given the same q: one problem solved two ways.
  const Pair p = diff_pair("attn_eager", "attn_sdpa");
  const WorkloadOverlap& o = p.d.verdict.overlap;
  EXPECT_LT(o.kernel_share, 0.30);
  EXPECT_LT(o.shape_share, 0.30);
  EXPECT_TRUE(o.inputs_agree);
  EXPECT_EQ(o.basis, "inputs");
  EXPECT_EQ(o.agreeing_inputs, (std::vector<std::string>{"attention: [8, 16, 1024, 64]"}));
}

TEST(DiffCompile, NegativeControlsStayTheSame) {
  // One script recorded twice: torch's medians 0.28 and 0.31 ms (+11 %), whyslow's 294 and 355 µs
  // (+21 %), every step of B longer than the same step of A — but the same ops and kernels in every
  // step, and the time spread over dispatch, launches and the rest: the machine, not the program.
  const Pair twice = diff_pair("control_a", "control_b");
  EXPECT_EQ(twice.d.verdict.faster, "same") << twice.d.verdict.summary;
  EXPECT_EQ(twice.d.verdict.basis, "same_work");
  EXPECT_TRUE(twice.d.verdict.confidence.empty());
  EXPECT_TRUE(twice.d.verdict.cause.kind.empty());
  // Two ranks of one balanced DDP job on two H200s (../shared/traces/h200_2gpu/, when present):
  // 8.11 ms against 8.11 ms.
  const std::string ddp = std::string(WHYSLOW_PUBLIC_TRACES) + "/../h200_2gpu/c_ddp_rank";
  if (std::filesystem::exists(ddp + "0.pt.trace.json.gz")) {
    Pair ranks{load_trace(ddp + "0.pt.trace.json.gz"), load_trace(ddp + "1.pt.trace.json.gz"), {}, {}, {}};
    ranks.fa = analyze(ranks.ta);
    ranks.fb = analyze(ranks.tb);
    ranks.d = diff_traces(ranks.ta, ranks.fa, ranks.tb, ranks.fb);
    EXPECT_TRUE(ranks.d.verdict.same_job);
    EXPECT_EQ(ranks.d.verdict.faster, "same") << ranks.d.verdict.summary;
  }
  for (const char* name : {"control_a", "mm64_compile", "varshape_static"}) {
    const Pair self = diff_pair(name, name);
    EXPECT_EQ(self.d.verdict.faster, "same") << name;
    EXPECT_EQ(self.d.verdict.basis, "min_change") << name;
  }
}

}  // namespace
}  // namespace whyslow
