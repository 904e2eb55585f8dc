// torch.compile's own costs in one trace, on the H200 recordings of tests/fixtures/compile/
// (tools/record_compile.py): recompilation inside the steps, CUDA graphs that never replay, and
// compilation confined to warm-up. The oracle is what torch said while recording (NAME.truth.json:
// Dynamo's compile ids and counters, key_averages' cudaGraphLaunch count, the batch per step).
#include <gtest/gtest.h>
#include <simdjson.h>

#include <set>

#include "explain/finding.hpp"
#include "test_support.hpp"

namespace whyslow {
namespace {

using testing::evidence;
using testing::Explained;
using testing::explain_file;
using testing::find;

std::string compile_fixture(const std::string& name) {
  return testing::fixture_in("compile", name + ".json.gz");
}

// The truth file torch's numbers were written to while the trace was recorded.
struct Truth {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  explicit Truth(const std::string& name) {
    root = parser.load(testing::fixture_in("compile", name + ".truth.json"));
  }
  int64_t graph_launches() { return int64_t(root["graph_counts_key_averages"]["cudaGraphLaunch"]); }
  int64_t frames_compiled_in_loop() {
    simdjson::dom::element frames;
    if (root["dynamo_counters_delta_profiled_loop"]["frames"].get(frames)) return 0;
    int64_t total = 0;
    return frames["total"].get(total) ? 0 : total;
  }
  std::vector<int64_t> profiled_batches() {
    std::vector<int64_t> out;
    for (int64_t b : root["profiled_step_batches"].get_array()) out.push_back(b);
    return out;
  }
  std::set<std::string> compile_ids() {
    std::set<std::string> out;
    for (simdjson::dom::element m : root["compilation_metrics"].get_array())
      out.insert(std::string(std::string_view(m["compile_id"])));
    return out;
  }
};

TEST(CompileFindings, RecompilationInEveryStepIsFoundWithItsIdsAndShapes) {
  const Explained e = explain_file(compile_fixture("varshape_static"));
  Truth truth("varshape_static");
  // torch: dynamic=False, automatic_dynamic_shapes=False; batches 24, 40, 56, 72, 88 in calls 0–4,
  // calls 2–4 profiled: Dynamo compiled 5 frames in the loop, 0/3, 0/4, 0/5 in the profiled ones.
  ASSERT_EQ(e.facts.steps.size(), 3u);
  EXPECT_EQ(truth.frames_compiled_in_loop(), 5);
  const std::set<std::string> ids = truth.compile_ids();
  std::vector<std::string> in_steps;
  for (const Compilation& c : e.facts.compile.compilations) {
    ASSERT_TRUE(c.id.known());
    const std::string id = std::to_string(c.id.frame) + "/" + std::to_string(c.id.recompile);
    EXPECT_TRUE(ids.count(id)) << id << " is not one of torch's compile ids";
    if (c.step >= 0) in_steps.push_back(id);
  }
  EXPECT_EQ(in_steps, (std::vector<std::string>{"0/3", "0/4", "0/5"}));
  for (size_t s = 0; s < 3; ++s) EXPECT_EQ(e.facts.compile.per_step[s].compilations, 1u);

  const Finding* f = find(e, FindingId::recompilation);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::Critical);
  EXPECT_EQ(evidence(*f, "compilations"), 3);
  EXPECT_EQ(evidence(*f, "steps_with_compilation"), 3);
  EXPECT_EQ(evidence(*f, "max_recompile_id"), 5);
  EXPECT_GT(evidence(*f, "compile_pct"), 90);  // ~0.7 s of compile in ~0.73 s steps
  // The shapes that change are the batch torch was given in each profiled step.
  const std::vector<int64_t> batches = truth.profiled_batches();
  ASSERT_EQ(batches, (std::vector<int64_t>{56, 72, 88}));
  EXPECT_NE(f->detail.find("[56, 512] → [72, 512] → [88, 512] (dim 0: 56, 72, 88)"), std::string::npos) << f->detail;
  EXPECT_NE(f->try_next.front().find("mark_dynamic(x, 0)"), std::string::npos) << f->try_next.front();
  EXPECT_EQ(e.findings.front().id, FindingId::recompilation);  // it leads
  // compiled_region no longer calls it a one-off.
  const Finding* region = find(e, FindingId::compiled_region);
  ASSERT_NE(region, nullptr);
  EXPECT_EQ(region->severity, Severity::Info);
  EXPECT_NE(region->detail.find("not a one-off cost but a recompilation"), std::string::npos) << region->detail;
}

// The same trace's host waits: 24 inside CachingAutotuner.benchmark_all_configs and the rest the
// harness's per-call cudaDeviceSynchronize. Inductor benchmarking its kernel configs waits while
// torch.compile compiles: the compiler's waits, no read-back of the user's to remove (it was an
// info host_sync_in_loop, "11 host syncs per step", advising to keep values on the GPU).
TEST(CompileFindings, WaitsWhileCompilingAreNotTheUsersSyncs) {
  const Explained e = explain_file(compile_fixture("varshape_static"));
  EXPECT_EQ(find(e, FindingId::host_sync_in_loop), nullptr);
}

TEST(CompileFindings, DynamicShapesCompileOnceAndNothingRecompiles) {
  for (const char* name : {"varshape_dynamic", "mm64_compile", "mlp_compile", "ro_fixed"}) {
    SCOPED_TRACE(name);
    const Explained e = explain_file(compile_fixture(name));
    EXPECT_EQ(Truth(name).frames_compiled_in_loop(), 0);  // torch: no compile in the profiled loop
    EXPECT_TRUE(e.facts.compile.compilations.empty());
    EXPECT_EQ(find(e, FindingId::recompilation), nullptr);
    EXPECT_EQ(find(e, FindingId::cuda_graphs_not_replayed), nullptr);
  }
}

TEST(CompileFindings, CudaGraphsThatNeverReplayAreNamed) {
  // reduce-overhead with a new batch each call: torch's key_averages has no cudaGraphLaunch, and
  // every step runs "cudagraphify.get_container" (the CUDA graph trees) and launches its kernels.
  const Explained e = explain_file(compile_fixture("ro_varying"));
  EXPECT_EQ(Truth("ro_varying").graph_launches(), 0);
  const Finding* f = find(e, FindingId::cuda_graphs_not_replayed);
  ASSERT_NE(f, nullptr);
  EXPECT_EQ(f->severity, Severity::Warning);
  EXPECT_EQ(evidence(*f, "steps_without_replay"), 3);
  EXPECT_EQ(evidence(*f, "steady_steps"), 3);
  EXPECT_EQ(evidence(*f, "launches_per_step"), 7);
  EXPECT_NE(f->detail.find("[56, 512] → [72, 512] → [88, 512]"), std::string::npos) << f->detail;
  // The tree's own timed call is not compilation (before: 3 "compilations" in the window).
  EXPECT_TRUE(e.facts.compile.compilations.empty());
  EXPECT_EQ(find(e, FindingId::recompilation), nullptr);
  // The same mode at a fixed batch replays one graph per step: torch counted 3 cudaGraphLaunch.
  const Explained fixed = explain_file(compile_fixture("ro_fixed"));
  EXPECT_EQ(Truth("ro_fixed").graph_launches(), 3);
  uint32_t replays = 0;
  for (const StepCompile& s : fixed.facts.compile.per_step) replays += s.graph_launches;
  EXPECT_EQ(replays, 3u);
}

}  // namespace
}  // namespace whyslow
