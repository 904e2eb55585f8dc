// Inference and loops as people record them (issue 26), on the H200 recordings of
// tests/fixtures/inference/ (tools/record_inference.py). The oracle is what the recorder measured
// beside the profiler (NAME.truth.json): forward hooks counting and timing HF generate()'s
// forwards, perf_counter around a training loop's iterations, the host function holding a stream
// back, the CPU preprocessing before a step's first launch, and its own Python pass over the
// exported events. The public traces whose verdicts hang on why the GPU idles are checked when the
// corpus is beside the checkout.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <algorithm>

#include "test_support.hpp"

namespace whyslow {
namespace {

using testing::evidence;
using testing::Explained;
using testing::explain_file;
using testing::find;

std::string inference(const std::string& name) { return testing::fixture_in("inference", name + ".json.gz"); }

struct Truth {
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  explicit Truth(const std::string& name) : root(parser.load(testing::fixture_in("inference", name + ".truth.json"))["truth"]) {}
  double number(const char* key) { return double(root[key]); }
};

const LoopFacts& window_loop(const Explained& e) {
  EXPECT_EQ(e.facts.loops.size(), 1u);
  const LoopFacts& l = e.facts.loops.at(0);
  EXPECT_EQ(l.step, kLoopOverWindow);  // a stepless trace: the loop is over its main thread
  return l;
}

double ms(int64_t ns) { return static_cast<double>(ns) / 1e6; }

// generate() under a bare profile(): one iteration per forward the hooks counted, the first the
// prefill; the decode passes' median within 5 % of the hooks' entry-to-entry median (the loop's
// iterations open at another op of the same loop, so single iterations differ, not their median).
TEST(Inference, BareGenerateIsOneIterationPerForward) {
  for (const char* name : {"generate_bare", "generate_shapes"}) {
    SCOPED_TRACE(name);
    const Explained e = explain_file(inference(name));
    Truth truth(name);
    EXPECT_TRUE(e.facts.steps.empty());
    const LoopFacts& l = window_loop(e);
    EXPECT_EQ(static_cast<double>(l.iterations.size()), truth.number("forwards"));
    EXPECT_TRUE(l.forward_passes);
    EXPECT_NEAR(ms(l.median_ns), truth.number("median_rest_iteration_ms"), 0.05 * truth.number("median_rest_iteration_ms"));
    const Finding* x = find(e, FindingId::overhead_bound);
    ASSERT_TRUE(x);
    EXPECT_EQ(x->severity, Severity::Warning);
    EXPECT_NE(x->title.find("decode pass"), std::string::npos) << x->title;
    EXPECT_EQ(evidence(*x, "iterations"), truth.number("forwards"));
    EXPECT_NE(x->try_next.front().find("cache_implementation=\"static\""), std::string::npos);
  }
}

// With record_shapes the tokens are the embedding's inputs: [2, 128] in the prefill, [2, 1] per
// decode pass; tokens/s within 5 % of the hooks' decode tokens over decode time.
TEST(Inference, ShapesGiveTheTokens) {
  const Explained e = explain_file(inference("generate_shapes"));
  Truth truth("generate_shapes");
  const LoopFacts& l = window_loop(e);
  EXPECT_EQ(l.first_tokens, 2 * 128);
  EXPECT_EQ(l.tokens_per_iteration, 2);
  const double want = truth.number("decode_tokens_per_s");
  EXPECT_NEAR(tokens_per_s(l), want, 0.05 * want);
  EXPECT_NEAR(evidence(*find(e, FindingId::overhead_bound), "tokens_per_s"), tokens_per_s(l), 1e-9);
  // Without shapes there are no token counts, only passes.
  const Explained bare = explain_file(inference("generate_bare"));
  EXPECT_EQ(window_loop(bare).first_tokens, 0);
  EXPECT_EQ(window_loop(bare).tokens_per_iteration, 0);
}

// A beginner's training loop inside `with profile():`: five iterations, not one window, and not
// called a generate() (its iterations run a backward).
TEST(Inference, SteplessTrainingLoopIsFoundPerIteration) {
  const Explained e = explain_file(inference("train_stepless"));
  Truth truth("train_stepless");
  const LoopFacts& l = window_loop(e);
  EXPECT_EQ(static_cast<double>(l.iterations.size()), truth.number("iterations"));
  EXPECT_FALSE(is_decode(l));
  EXPECT_NEAR(ms(l.iterations.front().duration_ns), truth.number("first_iteration_ms"), 0.5);
}

// A second stream waits on an event recorded after a 100 ms host function: queued work held back,
// not CPU overhead. Every step's idle split sums to its duration; the dependency part is the
// recorder's longest GPU-idle gap less the part before the held-back memset was queued.
TEST(Inference, StreamWaitingOnAnEventIsADependency) {
  for (const char* name : {"stream_wait", "stream_wait_sync_events"}) {
    SCOPED_TRACE(name);
    const Explained e = explain_file(inference(name));
    Truth truth(name);
    ASSERT_EQ(e.facts.steps.size(), 3u);
    size_t i = 0;
    for (simdjson::dom::element s : truth.root["trace_steps"].get_array()) {
      const StepFacts& step = e.facts.steps[i++];
      int64_t sum = step.idle.busy_ns;
      for (int64_t ns : step.idle.ns) sum += ns;
      EXPECT_EQ(sum, step.duration_ns);
      EXPECT_NEAR(ms(step.idle.busy_ns), double(s["gpu_busy_ms"]), 0.001);
      const double gap = double(s["longest_gap"]["len_ms"]);
      EXPECT_NEAR(ms(step.idle.ns[static_cast<size_t>(IdleCause::Dependency)]), gap, 0.01 * gap);
      EXPECT_EQ(step.idle.longest_cause, IdleCause::Dependency);
      EXPECT_EQ(step.idle.stream_waits, 1u);
    }
    const Finding* x = find(e, FindingId::dependency_wait);
    ASSERT_TRUE(x);
    EXPECT_EQ(x->severity, Severity::Warning);
    EXPECT_FALSE(find(e, FindingId::overhead_bound));
    for (const std::string& advice : x->try_next) EXPECT_EQ(advice.find("CUDA graphs (torch.compile"), std::string::npos);
  }
}

// ~200 ms of CPU preprocessing before each step's first launch: one block of CPU work, named, not
// per-launch overhead. The prefix equals the recorder's step start → first GPU work to 1 µs.
TEST(Inference, CpuPrefixIsOneBlockOfCpuWork) {
  const Explained e = explain_file(inference("cpu_prefix"));
  Truth truth("cpu_prefix");
  ASSERT_EQ(e.facts.steps.size(), 3u);
  size_t i = 0;
  for (simdjson::dom::element s : truth.root["trace_steps"].get_array()) {
    const StepFacts& step = e.facts.steps[i++];
    EXPECT_NEAR(ms(step.idle.ns[static_cast<size_t>(IdleCause::Prefix)]), double(s["step_start_to_first_gpu_ms"]), 0.001);
    EXPECT_NEAR(ms(step.idle.busy_ns), double(s["gpu_busy_ms"]), 0.001);
  }
  const Finding* x = find(e, FindingId::cpu_prefix);
  ASSERT_TRUE(x);
  EXPECT_EQ(x->severity, Severity::Warning);
  EXPECT_FALSE(find(e, FindingId::overhead_bound));
  EXPECT_NE(x->title.find("before the first GPU launch"), std::string::npos) << x->title;
}

// Kept aside while the rules were written (tests/fixtures/inference/holdout/): a GPT-2 generate()
// and a CNN training loop, both under a bare profile().
TEST(Inference, HoldoutRecordings) {
  {
    const Explained e = explain_file(testing::fixture_in("inference", "holdout/holdout_gpt2_generate.json.gz"));
    const LoopFacts& l = window_loop(e);
    EXPECT_EQ(l.iterations.size(), 24u);  // the hooks' forwards
    EXPECT_TRUE(l.forward_passes);
    ASSERT_TRUE(find(e, FindingId::overhead_bound));
  }
  {
    const Explained e = explain_file(testing::fixture_in("inference", "holdout/holdout_cnn_stepless.json.gz"));
    const LoopFacts& l = window_loop(e);
    EXPECT_EQ(l.iterations.size(), 4u);
    EXPECT_FALSE(is_decode(l));
    ASSERT_TRUE(find(e, FindingId::gpu_bound));  // no sync in the loop: the GPU runs behind, busy
  }
}

// The public traces an expert reads as: SGLang's stream waiting on an event (dependency, then
// GPU-bound), SD3.5 on MI300X launch-bound at 60 % busy, vLLM's graph replays GPU-bound behind a
// backlog, TimeSformer's 218 ms of preprocessing before the GPU starts.
TEST(Inference, PublicTracesGetTheExpertsVerdict) {
  const struct {
    const char* path;
    FindingId verdict;
  } cases[] = {
      {"AMD-AGI__TraceLens/tests__traces__inference__sglang_prefilldecode__sglang_Qwen3-8B_prefilldecode.json.gz",
       FindingId::dependency_wait},
      {"AMD-AGI__TraceLens/tests__traces__inference__sglang_decode__sglang_Qwen3-8B_decode.json.gz",
       FindingId::dependency_wait},
      {"AMD-AGI__TraceLens/tests__traces__inference__xdit_sd_3.5__profile_trace_rank_0.json.gz",
       FindingId::overhead_bound},
      {"AMD-AGI__TraceLens/tests__traces__inference__vllm_decode_full__graph_execution.json.gz", FindingId::gpu_bound},
      {"AMD-AGI__TraceLens/tests__traces__inference__vllm_prefilldecode_piecewise__graph_execution.json.gz",
       FindingId::gpu_bound},
      {"AMD-AGI__TraceLens/tests__traces__h100__facebook_timesformer-base-finetuned-k400__1016002.json.gz",
       FindingId::cpu_prefix},
  };
  size_t loaded = 0;
  for (const auto& c : cases) {
    Explained e;
    if (!testing::load_public(c.path, e)) continue;
    SCOPED_TRACE(c.path);
    ++loaded;
    const FindingId verdicts[] = {FindingId::gpu_bound, FindingId::overhead_bound, FindingId::dependency_wait,
                                  FindingId::cpu_prefix};
    for (FindingId v : verdicts) EXPECT_EQ(find(e, v) != nullptr, v == c.verdict) << to_string(v);
  }
  if (loaded == 0) GTEST_SKIP() << "public corpus absent";
}

}  // namespace
}  // namespace whyslow
