// Loops inside steps (analysis/steps/loops.cpp) against what the fixtures are known to hold by
// construction (tests/fixtures/blocks/README.md): each llama step is one generate() of 10 forward
// passes, 1 prefill of input_ids [2, 16] + 9 decodes of [2, 1]; in llama_generate_static the 9
// decodes are compiled regions replaying a CUDA graph; blocks_plain's slow block loops over 16
// heads. Steps that do not repeat get no loop. (Per-iteration times against Python sums over the
// raw events: tests/loops_oracle.py.)
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "analysis/passes.hpp"
#include "report/format.hpp"
#include "report/text/tables.hpp"
#include "rules/facts_builder.hpp"
#include "test_support.hpp"

namespace whyslow {
namespace {

std::string blocks_fixture(const std::string& name) { return std::string(WHYSLOW_FIXTURES) + "/blocks/" + name; }

class LlamaGenerate : public ::testing::TestWithParam<const char*> {};

TEST_P(LlamaGenerate, OneStepIsOnePrefillAndNineDecodes) {
  const auto e = testing::explain_file(blocks_fixture(GetParam()));
  ASSERT_EQ(e.facts.steps.size(), 1u);
  ASSERT_EQ(e.facts.loops.size(), 1u);
  const LoopFacts& l = e.facts.loops.front();
  EXPECT_EQ(l.step, 0u);
  EXPECT_EQ(l.iterations.size(), 10u);  // forwards_by_hook in the meta file
  EXPECT_EQ(l.first_tokens, 32);        // [2, 16]
  EXPECT_EQ(l.tokens_per_iteration, 2); // [2, 1]: one token per sequence
  // Iterations tile their span: each ends where the next begins.
  for (size_t i = 1; i < l.iterations.size(); ++i) EXPECT_EQ(l.iterations[i - 1].end_ns, l.iterations[i].start_ns);
  const StepFacts& step = e.facts.steps.front();
  EXPECT_GE(l.iterations.front().start_ns, step.start_ns);
  EXPECT_LE(l.iterations.back().end_ns, step.end_ns);
  // The medians are over iterations 2..10.
  std::vector<int64_t> rest;
  for (size_t i = 1; i < l.iterations.size(); ++i) rest.push_back(l.iterations[i].duration_ns);
  std::sort(rest.begin(), rest.end());
  EXPECT_EQ(l.median_ns, rest[rest.size() / 2]);
  // All 10 greedy picks (aten::argmax, one per forward) fall inside the loop.
  int argmax = 0;
  for (EventId ev = 0; ev < e.trace.size(); ++ev)
    if (e.trace.name_of(ev) == "aten::argmax" && e.trace.start_ns[ev] >= l.iterations.front().start_ns &&
        e.trace.end_ns(ev) <= l.iterations.back().end_ns)
      ++argmax;
  EXPECT_EQ(argmax, 10);
}

INSTANTIATE_TEST_SUITE_P(Fixtures, LlamaGenerate,
                         ::testing::Values("llama_generate_eager.json.gz", "llama_generate_static_nocompile.json.gz",
                                           "llama_generate_static.json.gz"));

// With a static cache and transformers' own torch.compile, each decode pass is one compiled region
// replaying a CUDA graph: iterations 2..10 hold one region and one cudaGraphLaunch each, the prefill
// none.
TEST(Loops, CompiledDecodeIterationsHoldOneGraphReplayEach) {
  const auto e = testing::explain_file(blocks_fixture("llama_generate_static.json.gz"));
  ASSERT_EQ(e.facts.loops.size(), 1u);
  const LoopFacts& l = e.facts.loops.front();
  ASSERT_EQ(l.iterations.size(), 10u);
  for (size_t i = 0; i < l.iterations.size(); ++i) {
    int regions = 0, graph_launches = 0;
    for (EventId ev = 0; ev < e.trace.size(); ++ev) {
      if (e.trace.start_ns[ev] < l.iterations[i].start_ns || e.trace.start_ns[ev] >= l.iterations[i].end_ns) continue;
      regions += e.trace.name_of(ev) == "Torch-Compiled Region: 1/0";
      graph_launches += e.trace.name_of(ev) == "cudaGraphLaunch";
    }
    EXPECT_EQ(regions, i == 0 ? 0 : 1) << "iteration " << i + 1;
    EXPECT_EQ(graph_launches, i == 0 ? 0 : 1) << "iteration " << i + 1;
  }
}

// blocks_plain has no modules: the slow block's Python loop over 16 heads is the step's top-level
// work for more than half of it, and is found as such; no tokens (no prefill → decode shapes).
TEST(Loops, HeadLoopIsSixteenIterations) {
  const auto e = testing::explain_file(blocks_fixture("blocks_plain.json.gz"));
  ASSERT_EQ(e.facts.loops.size(), e.facts.steps.size());
  for (const LoopFacts& l : e.facts.loops) {
    EXPECT_EQ(l.iterations.size(), 16u);
    EXPECT_EQ(l.tokens_per_iteration, 0);
    EXPECT_EQ(l.first_tokens, 0);
  }
}

// Steps that do not repeat get no loop: every torch fixture, the attention fixtures, and the
// module-annotated transformer (its head loop is inside a module, not the step's top level).
// The first_minutes traces (with_stack): each step's record_function blocks (forward, backward,
// optimizer; cpu_conv_train's data first) are entered through the same profiler.py __init__ /
// __enter__ / __exit__ frames, and each block starts inside __enter__'s span. Found by time, the
// blocks were skipped as __enter__'s descendants and the step read as three (four) iterations of
// [__init__, __enter__, __exit__]; found by nesting, they are different blocks.
TEST(Loops, NoneWhereStepsDoNotRepeat) {
  const std::string first_minutes = std::string(WHYSLOW_FIXTURES) + "/first_minutes/";
  std::vector<std::string> paths = {blocks_fixture("attention_eager.json.gz"), blocks_fixture("attention_sdpa.json.gz"),
                                    blocks_fixture("blocks_modules_stack.json.gz"), first_minutes + "cpu_train.json.gz",
                                    first_minutes + "gpu_train_cpu_activity.json.gz",
                                    first_minutes + "holdout/cpu_conv_train.json.gz"};
  for (const auto& entry : std::filesystem::directory_iterator(std::string(WHYSLOW_FIXTURES) + "/torch"))
    if (entry.path().string().ends_with(".json.gz") && entry.path().filename() != "mlp_dataloader_cpu.json.gz")
      paths.push_back(entry.path().string());
  for (const std::string& p : paths) {
    const auto e = testing::explain_file(p);
    EXPECT_TRUE(e.facts.loops.empty()) << p << ": " << e.facts.loops.size() << " loops";
  }
}

// A step that does repeat: mlp_dataloader_cpu's DataLoader span fills each step and fetches its 32
// samples one by one (a single-process DataLoader, each sample a randn and a 1 ms sleep): one
// iteration per sample.
TEST(Loops, ADataLoaderFetchingSampleBySampleIsALoop) {
  const auto e = testing::explain_file(std::string(WHYSLOW_FIXTURES) + "/torch/mlp_dataloader_cpu.json.gz");
  ASSERT_EQ(e.facts.loops.size(), e.facts.steps.size());
  for (const LoopFacts& l : e.facts.loops) {
    EXPECT_EQ(l.iterations.size(), 32u);
    EXPECT_EQ(e.trace.name_of(l.block).substr(0, 17), "enumerate(DataLoa");
    EXPECT_EQ(l.tokens_per_iteration, 0);
  }
}

// The loops table has a GPU busy column only where the trace records the GPU: mlp_dataloader_cpu
// runs on the CPU, where "GPU busy 0 µs" would read as an idle GPU.
TEST(Loops, TableHasNoGpuColumnWithoutGpuRecords) {
  const auto cpu = testing::explain_file(std::string(WHYSLOW_FIXTURES) + "/torch/mlp_dataloader_cpu.json.gz");
  ASSERT_EQ(cpu.facts.recording.what, Recorded::CpuOnly);
  const std::string cpu_table = report::loops_table(cpu.trace, cpu.facts, report::kDefaultLineWidth);
  ASSERT_NE(cpu_table.find("iterations"), std::string::npos);
  EXPECT_EQ(cpu_table.find("GPU busy"), std::string::npos) << cpu_table;
  const auto gpu = testing::explain_file(blocks_fixture("llama_generate_eager.json.gz"));
  ASSERT_EQ(gpu.facts.recording.what, Recorded::Gpu);
  EXPECT_NE(report::loops_table(gpu.trace, gpu.facts, report::kDefaultLineWidth).find("GPU busy"), std::string::npos);
}

// A synthetic step of 200,000 top-level ops: a loop of 20,000 iterations of 10 ops after a
// set-up of 7, found whole. A *Scaling suite: the TIMEOUT tests/CMakeLists.txt gives those is what
// fails a return to quadratic time (every period tried would not finish); linear, it takes ~0.1 s.
TEST(LoopsScaling, LargeLoopIsFoundWhole) {
  Trace t;
  const auto add = [&](const std::string& name, int64_t start, int64_t dur, EventId parent) {
    return testing::add_event(t, name.starts_with("ProfilerStep") ? EventKind::UserAnnotation : EventKind::CpuOp, name,
                              start, dur, parent);
  };
  constexpr int kSetup = 7, kIterations = 20'000, kPeriod = 10;
  const int64_t total = (kSetup + int64_t{kIterations} * kPeriod) * 100;
  const EventId step = add("ProfilerStep#1", 0, total, kNoEvent);
  int64_t at = 0;
  for (int i = 0; i < kSetup; ++i, at += 100) add("setup_" + std::to_string(i), at, 50, step);
  const char* body[kPeriod] = {"aten::embedding", "aten::linear", "aten::mul", "aten::add", "aten::linear",
                               "aten::silu", "aten::mul", "aten::linear", "aten::argmax", "aten::cat"};
  for (int i = 0; i < kIterations; ++i)
    for (const char* n : body) {
      add(n, at, 50, step);
      at += 100;
    }
  const std::vector<StepFacts> steps = measure_steps(t);
  const std::vector<LoopFacts> loops = find_loops(t, steps, StepFacts{}, UINT32_MAX);
  ASSERT_EQ(loops.size(), 1u);
  EXPECT_EQ(loops[0].iteration_count, static_cast<size_t>(kIterations));
  EXPECT_EQ(loops[0].iterations.size(), kMaxLoopIterationsKept);  // the first ones, measured one by one
  EXPECT_EQ(loops[0].period, static_cast<uint32_t>(kPeriod));
  EXPECT_EQ(loops[0].median_ns, kPeriod * 100);
}

}  // namespace
}  // namespace whyslow
