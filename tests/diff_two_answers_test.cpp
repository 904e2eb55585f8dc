// `whyslow diff` answers two questions (issue 43): over what was profiled (one-off costs included)
// and once warm, with the break-even between them; per unit of work; the mechanism; caveats of
// the recording. Held to torch's own numbers where the recordings kept them (key_averages,
// compilation_metrics, timed steps) and to arithmetic over the raw events.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>
#include <numeric>

#include "analysis/facts.hpp"
#include "loader_test_util.hpp"
#include "diff/diff.hpp"
#include "diff_pair.hpp"
#include "report/markdown/diff_markdown.hpp"
#include "report/text/text_report.hpp"
#include "test_support.hpp"
#include "trace/load_trace.hpp"

namespace whyslow {
namespace {

using Pair = testing::DiffPair;
using testing::diff_pair;

std::string torch_fixture(const std::string& name) { return testing::fixture(name + ".json.gz"); }
std::string compile_fixture(const std::string& name) { return testing::fixture_in("compile", name + ".json.gz"); }

// cpu_time_total (µs) of one key_averages row of a tests/fixtures/torch oracle.
double torch_cpu_total_us(const std::string& name, const std::string& key) {
  simdjson::dom::parser parser;
  const simdjson::dom::element root = parser.load(testing::fixture(name + ".oracle.json"));
  for (simdjson::dom::element r : root["key_averages"].get_array())
    if (std::string_view(r["key"].get_string()) == key) return double(r["cpu_time_total"]);
  ADD_FAILURE() << key << " not in " << name;
  return 0;
}

const OneOffPart* part(const OneOffCosts& c, const std::string& kind) {
  for (const OneOffPart& p : c.parts)
    if (p.kind == kind) return &p;
  return nullptr;
}

bool says(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// torch.compile's first call profiled (schedule wait=0, warmup=0, active=3): the compilation is
// torch's own _compile.compile_inner plus Inductor's autotuning at the first call
// (CachingAutotuner.benchmark_all_configs), 3,245.0 + 84.5 ms by key_averages; the window is
// ProfilerStep*'s total, 3,462.9 ms; what the one-off costs leave is the warm steps.
TEST(DiffTwoAnswers, CompilationIsTorchsOwnCompileTimeAndTheWindowIsTheProfiledSteps) {
  const Pair p = diff_pair(torch_fixture("mm_bias_64_fp32"), torch_fixture("compiled_cold"));
  const OneOffCosts& b = p.d.b.one_off;
  const OneOffPart* compile = part(b, "compilation");
  ASSERT_NE(compile, nullptr);
  EXPECT_EQ(compile->count, 1u);
  const double torch_compile_us = torch_cpu_total_us("compiled_cold", "_compile.compile_inner (dynamo_timed)") +
                                  torch_cpu_total_us("compiled_cold", "CachingAutotuner.benchmark_all_configs (dynamo_timed)");
  // Within 0.5 %: both are unions of the same events, whyslow's also holds the few µs between them.
  EXPECT_NEAR(static_cast<double>(compile->ns) / 1e3, torch_compile_us, 0.005 * torch_compile_us);
  // key_averages' CachingAutotuner.benchmark_all_configs: 85,141 µs (the event around the timed one).
  EXPECT_TRUE(says(compile->detail, "autotuning 85.1 ms")) << compile->detail;
  // The window: ProfilerStep*'s total, within 0.1 % (the gaps between steps are inside the window).
  const double steps_us = torch_cpu_total_us("compiled_cold", "ProfilerStep*");
  EXPECT_NEAR(static_cast<double>(b.window_ns) / 1e3, steps_us, 0.001 * steps_us);
  // The one-off costs account for the window's excess over its steps once warm, within 1 %.
  const double excess = static_cast<double>(b.window_ns) - 3.0 * static_cast<double>(p.d.b.steady_ns);
  EXPECT_NEAR(static_cast<double>(b.ns), excess, 0.01 * excess);
  EXPECT_EQ(p.d.b.steady_basis, "warm_steps");

  const Verdict& v = p.d.verdict;
  EXPECT_EQ(v.window.faster, "a");
  EXPECT_GT(v.window.ratio, 1000);  // 3.46 s against 0.51 ms
  EXPECT_EQ(v.steady.faster, "a");  // once warm the compiled call's fixed cost still loses on a 64×64 matmul
  EXPECT_EQ(v.break_even.status, "at_once");  // A wins both: nothing for B to pay back
  EXPECT_TRUE(says(v.summary, "Over what was profiled")) << v.summary;
  EXPECT_TRUE(says(v.summary, "B's one-off costs are 3.44 s (compilation 3.33 s")) << v.summary;
}

// An eager program profiled from its first call against the same program warm: over the window A
// paid 144 ms once (cuBLAS's first GEMM, module loading); once warm the two are the same program,
// so no side is faster and A's one-off costs never pay for anything.
TEST(DiffTwoAnswers, ACold1stCallIsOneOffAndTheWarmStepsAreTheSame) {
  const Pair p = diff_pair(torch_fixture("mm_bias_64_fp32_cold"), torch_fixture("mm_bias_64_fp32"));
  const Verdict& v = p.d.verdict;
  const OneOffCosts& a = p.d.a.one_off;
  const OneOffPart* first = part(a, "first_call");
  ASSERT_NE(first, nullptr);
  EXPECT_TRUE(says(first->detail, "aten::mm")) << first->detail;
  ASSERT_NE(part(a, "module_loading"), nullptr);
  EXPECT_EQ(p.d.b.one_off.ns, 0);
  // The one-off costs account for the cold window's excess over four warm steps of the warm trace,
  // within 2 %: an independent measure (the other trace's steps).
  const double excess = static_cast<double>(a.window_ns) - 4.0 * static_cast<double>(p.d.b.steady_ns);
  EXPECT_NEAR(static_cast<double>(a.ns), excess, 0.02 * excess);
  EXPECT_EQ(v.window.faster, "b");
  EXPECT_EQ(v.steady.faster, "same");
  EXPECT_EQ(v.break_even.status, "never");
  EXPECT_TRUE(says(v.summary, "Once warm, though, they are not shown to differ")) << v.summary;
  // Both outputs show the two answers side by side.
  const std::string md = render_diff_markdown(p.d, nullptr);
  EXPECT_TRUE(says(md, "| over what was profiled | 146 ms (4 steps) | 512 µs (3 steps) |")) << md;
  EXPECT_TRUE(says(md, "| once warm, per step | 109 µs | 113 µs |")) << md;
  EXPECT_TRUE(says(md, "break-even never")) << md;
  const std::string text = render_diff_text(p.d, TextOptions{});
  EXPECT_TRUE(says(text, "Over what was profiled, and once warm")) << text;
}

// Recompiling every step (dynamic=False, a new batch each call): torch's compilation_metrics list
// 0/3, 0/4, 0/5 inside the profiled loop, each "size mismatch at index 0" (56 → 72 → 88). The
// recompilations' time lies between torch's entire_frame_compile_time_s (1.849 s, frame compile
// only) and the steps' wall time (2.154 s); no step is warm.
TEST(DiffTwoAnswers, RecompilationsAreCountedWithTheInputChangeThatCausedThem) {
  const Pair p = diff_pair(compile_fixture("varshape_eager"), compile_fixture("varshape_static"));
  const OneOffPart* re = part(p.d.b.one_off, "recompilation");
  ASSERT_NE(re, nullptr);
  EXPECT_EQ(re->count, 3u);
  EXPECT_GT(re->ns, 1'849'000'000);
  EXPECT_LT(re->ns, 2'154'000'000);
  EXPECT_TRUE(says(re->detail, "input [72, 512] → [88, 512]")) << re->detail;
  EXPECT_TRUE(says(re->detail, "input [56, 512] → [72, 512]")) << re->detail;
  // 0/3's previous call (batch 40) ran in the warm-up, before the profiler: said, not guessed.
  EXPECT_TRUE(says(re->detail, "input [56, 512] (the call before it was not profiled)")) << re->detail;
  // torch's profiled step walls: 739.05 + 732.95 + 682.23 ms; the window adds the gaps between them.
  EXPECT_NEAR(static_cast<double>(p.d.b.one_off.window_ns) / 1e6, 2154.23, 0.01 * 2154.23);
  // Every B step compiles: what is left of a step still holds the new graph's first call
  // (Inductor's autotuning launches ~155 benchmark kernels a step), so B never runs warm here.
  EXPECT_EQ(p.d.b.steady_basis, "never_warm");
  EXPECT_TRUE(p.d.verdict.steady.faster.empty());
  EXPECT_TRUE(p.d.verdict.break_even.status.empty());
  EXPECT_TRUE(says(p.d.verdict.summary, "B compiles in every step it has, so it never runs warm here")) << p.d.verdict.summary;
  // No CUDA graphs advised against recompilation.
  for (const std::string& t : p.d.verdict.try_next) EXPECT_FALSE(says(t, "CUDA graph")) << t;
  EXPECT_EQ(p.d.verdict.faster, "a");
  EXPECT_EQ(p.d.verdict.cause.kind, "recompilation");
}

// A trace against itself: both answers "same", nothing to pay back.
TEST(DiffTwoAnswers, ATraceAgainstItselfIsTheSameBothWays) {
  const Pair p = diff_pair(compile_fixture("ro_fixed"), compile_fixture("ro_fixed"));
  EXPECT_EQ(p.d.verdict.window.faster, "same");
  EXPECT_EQ(p.d.verdict.steady.faster, "same");
}

// A step that carries a one-off cost (the varying-shape reduce-overhead's 3rd step: a module load)
// leaves the step comparison, named, when two warm steps remain.
TEST(DiffTwoAnswers, AStepWithOneOffCostsIsLeftOutAndNamed) {
  const Pair p = diff_pair(compile_fixture("ro_fixed"), compile_fixture("ro_varying"));
  ASSERT_EQ(p.d.b.one_off_steps.size(), 1u);
  EXPECT_EQ(p.d.b.steps, 2u);
  bool named = false;
  for (const std::string& s : p.d.b.left_out) named |= says(s, "one-off costs");
  EXPECT_TRUE(named);
}

// The same generate() recorded with and without record_shapes (tests/fixtures/inference): the
// program did not change, and the 47 ops both run equally often take 16 ms more per call with
// shapes recorded, 69 % of the 23.3 ms difference: no side is called faster.
TEST(DiffTwoAnswers, DifferentProfilerOptionsAreACaveatAndExplainTheChange) {
  const Pair p = diff_pair(testing::fixture_in("inference", "generate_bare.json.gz"),
                           testing::fixture_in("inference", "generate_shapes.json.gz"));
  const Verdict& v = p.d.verdict;
  EXPECT_FALSE(p.d.a.options.shapes);
  EXPECT_TRUE(p.d.b.options.shapes);
  ASSERT_EQ(v.caveats.size(), 1u);
  EXPECT_TRUE(says(v.caveats[0], "B was recorded with record_shapes and A without")) << v.caveats[0];
  EXPECT_TRUE(v.recording_explains);
  EXPECT_EQ(v.faster, "same");
  EXPECT_EQ(v.basis, "recording");
  // The same options on both sides: no caveat (a trace against itself).
  const Pair same = diff_pair(testing::fixture_in("inference", "generate_shapes.json.gz"),
                              testing::fixture_in("inference", "generate_shapes.json.gz"));
  EXPECT_TRUE(same.d.verdict.caveats.empty());
}

// The mechanism, not the CPU category: fp32 → bf16 moves the GEMM from FFMA to bf16 tensor cores
// (kernel names sm80_xmma_gemm_…_ffma_… and nvjet_… launched by a bf16 aten::mm); key_averages
// give the two GEMMs' device time per call, 2,680 and 175 µs.
TEST(DiffTwoAnswers, TheMechanismNamesTheGemmUnitsAndGraphReplays) {
  const Pair p = diff_pair(torch_fixture("mm_bias_4096_fp32"), torch_fixture("mm_bias_4096_bf16"));
  const Verdict& v = p.d.verdict;
  ASSERT_FALSE(v.mechanism.empty());
  EXPECT_TRUE(says(v.mechanism[0], "The GEMMs moved from FP32 on CUDA cores")) << v.mechanism[0];
  EXPECT_TRUE(says(v.mechanism[0], "to bf16 tensor cores")) << v.mechanism[0];
  EXPECT_EQ(v.cause.kind, "gpu_work");  // not "CPU: sync wait": the wait followed the GPU work

  const Pair g = diff_pair(torch_fixture("mlp_bf16"), torch_fixture("mlp_bf16_reduce_overhead"));
  bool replays = false;
  for (const std::string& m : g.d.verdict.mechanism) replays |= says(m, "B replays 1 CUDA graph per step");
  EXPECT_TRUE(replays);
  // B already replays a CUDA graph: no advice to capture one.
  for (const std::string& t : g.d.verdict.try_next) EXPECT_FALSE(says(t, "capture the step in a CUDA graph")) << t;
}

// Eager attention against scaled_dot_product_attention on the same q, k, v with no
// record_function block around them: no kernel and no launching op's shape is shared, but the
// top-level ops take the same [4, 8, 1024, 64] inputs — one problem solved two ways.
TEST(DiffTwoAnswers, AnOpSwapOnTheSameInputsIsComparable) {
  const Pair p = diff_pair(testing::fixture_in("blocks", "attention_eager.json.gz"),
                           testing::fixture_in("blocks", "attention_sdpa.json.gz"));
  const Verdict& v = p.d.verdict;
  EXPECT_TRUE(v.comparable);
  EXPECT_EQ(v.overlap.basis, "inputs");
  EXPECT_GE(v.overlap.top_input_share, 0.30);
  EXPECT_EQ(v.faster, "b");
}

// Steps of the same work with the same batch get no per-unit comparison (nothing scaled); nor does
// a side whose batch changes from step to step (the varying-shape recordings: 56, 72, 88).
TEST(DiffTwoAnswers, NoPerUnitComparisonWithoutAConsistentScale) {
  EXPECT_TRUE(diff_pair(torch_fixture("mlp_bf16"), torch_fixture("mlp_bf16_compiled")).d.verdict.per_unit.unit.empty());
  EXPECT_TRUE(diff_pair(compile_fixture("ro_fixed"), compile_fixture("varshape_eager")).d.verdict.per_unit.unit.empty());
}

// The same engine on another vendor's GPU: every kernel named otherwise and no shapes recorded, but
// the step's structure is the same (one CUDA graph replay and 9 copies of the same bytes a step).
// Made from vLLM's decode trace (TraceLens) by renaming every kernel and dropping Input Dims.
TEST(DiffTwoAnswers, TheSameStepStructureOnAnotherVendorIsComparable) {
  const std::string a = std::string(WHYSLOW_PUBLIC_TRACES) +
                        "/AMD-AGI__TraceLens/tests__traces__inference__vllm_decode_full__graph_execution.json.gz";
  if (!std::filesystem::exists(a)) GTEST_SKIP() << "no " << a;
  std::string json = testing::gunzip_file(a);
  auto replace_all = [&](const std::string& from, const std::string& to) {
    for (size_t at = json.find(from); at != std::string::npos; at = json.find(from, at + to.size()))
      json.replace(at, from.size(), to);
  };
  replace_all(R"x("cat": "kernel", "name": ")x", R"x("cat": "kernel", "name": "vendor2_)x");
  replace_all(R"x("Input Dims")x", R"x("Input Dims not recorded")x");
  const testing::TempDir dir;
  const Pair p = diff_pair(a, dir.write("vendor2.json", json));
  const Verdict& v = p.d.verdict;
  EXPECT_LT(v.overlap.kernel_share, 0.01);
  EXPECT_TRUE(v.comparable);
  EXPECT_EQ(v.overlap.basis, "structure");
}

}  // namespace
}  // namespace whyslow
