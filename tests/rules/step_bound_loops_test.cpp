// overhead_bound when every steady step is a loop (loops[]): the finding speaks per iteration —
// evidence `iterations`, `iteration_us`, `iteration_gpu_busy_us` and the detail's first vs the rest —
// and, for a generate() (tokens show a prefill → decode loop) waiting on launches without compiled
// regions, advises a static cache and CUDA graphs first. A step without a loop gets none of it.
#include "facts_builder.hpp"

namespace whyslow {
namespace {

using namespace testing;

LoopFacts loop_of(const Facts& f, size_t step, int64_t first_tokens) {
  LoopFacts l;
  l.step = step;
  l.block = f.steps[step].event;
  const int64_t first = 2'000'000, each = 1'000'000;
  int64_t at = f.steps[step].start_ns;
  for (int i = 0; i < 10; ++i) {
    StepFacts it;
    it.start_ns = at;
    it.duration_ns = i == 0 ? first : each;
    it.end_ns = at += it.duration_ns;
    l.iterations.push_back(it);
  }
  l.iteration_count = l.iterations.size();
  l.end_ns = at;
  l.median_ns = each;
  l.cpu_median_ns = each;
  l.gpu_median_ns = 50'000;
  l.first_tokens = first_tokens;
  l.tokens_per_iteration = first_tokens > 0 ? 2 : 0;
  return l;
}

Facts overhead_bound_steps(Trace& t) {
  Facts f;
  add_steps(t, f, 3, {11'000'000, 500'000, 0});
  for (StepFacts& s : f.steps) s.cpu_breakdown[static_cast<size_t>(CpuCategory::Dispatch)] = s.duration_ns;
  return f;
}

bool advises_static_cache(const Finding& x) {
  for (const std::string& s : x.try_next)
    if (s.find("static KV cache") != std::string::npos) return true;
  return false;
}

TEST(StepBoundLoops, EveryStepALoopSpeaksPerIteration) {
  Trace t;
  Facts f = overhead_bound_steps(t);
  for (size_t i = 0; i < f.steps.size(); ++i) f.loops.push_back(loop_of(f, i, 32));
  const auto x = expect_outcome(run_rule(rule_step_bound, t, f), fires(FindingId::overhead_bound, Severity::Warning), t);
  ASSERT_TRUE(x);
  EXPECT_DOUBLE_EQ(evidence(*x, "iterations"), 10);
  EXPECT_DOUBLE_EQ(evidence(*x, "iteration_us"), 1'000);
  EXPECT_DOUBLE_EQ(evidence(*x, "iteration_gpu_busy_us"), 50);
  EXPECT_NE(x->detail.find("a loop of 10 iterations"), std::string::npos) << x->detail;
  EXPECT_NE(x->detail.find("prefill"), std::string::npos) << x->detail;
  EXPECT_TRUE(advises_static_cache(*x));
  // Already compiled (decode passes as compiled regions): no advice to compile.
  f.compile.compiled_regions = 9;
  const auto y = expect_outcome(run_rule(rule_step_bound, t, f), fires(FindingId::overhead_bound, Severity::Warning), t);
  ASSERT_TRUE(y);
  EXPECT_FALSE(advises_static_cache(*y));
}

TEST(StepBoundLoops, LoopWithoutTokensIsNotCalledAGenerate) {
  Trace t;
  Facts f = overhead_bound_steps(t);
  for (size_t i = 0; i < f.steps.size(); ++i) f.loops.push_back(loop_of(f, i, 0));
  const auto x = expect_outcome(run_rule(rule_step_bound, t, f), fires(FindingId::overhead_bound, Severity::Warning), t);
  ASSERT_TRUE(x);
  EXPECT_DOUBLE_EQ(evidence(*x, "iterations"), 10);
  EXPECT_EQ(x->detail.find("prefill"), std::string::npos) << x->detail;
  EXPECT_FALSE(advises_static_cache(*x));
}

TEST(StepBoundLoops, AStepWithoutALoopGetsNoIterationWords) {
  Trace t;
  Facts f = overhead_bound_steps(t);
  f.loops.push_back(loop_of(f, 0, 32));  // one steady step of three is a loop: not every step is one
  const auto x = expect_outcome(run_rule(rule_step_bound, t, f), fires(FindingId::overhead_bound, Severity::Warning), t);
  ASSERT_TRUE(x);
  for (const Evidence& e : x->evidence) EXPECT_NE(e.key, "iterations");
  EXPECT_EQ(x->detail.find("iterations"), std::string::npos);
}

}  // namespace
}  // namespace whyslow
