// no_annotations: without record_function blocks, module events or Python frames, the recipe;
// with Python frames but no record_function, the ≤ 3 user blocks holding 10–90 % of the steps'
// CPU or GPU time (docs/JSON.md); silent when the trace has record_function blocks.
#include "analysis/blocks/block_groups.hpp"
#include "facts_builder.hpp"

namespace whyslow {
namespace {

using namespace testing;

constexpr int64_t kStepCpu = 10'000'000;

void add_place(Trace& t, Facts& f, const char* name, int64_t cpu_ns) {
  BlockRow r;
  r.name = t.names.intern(name);
  r.location = r.name;
  r.calls = 1, r.cpu_total_ns = cpu_ns;
  r.longest_call = add_event(t, EventKind::PythonFunction, name, 0, cpu_ns);
  f.blocks.rows.push_back(r);
  group_blocks(t, f.blocks);  // as code_blocks() leaves them: every row in its group
}

struct Case {
  const char* name;
  uint64_t annotations, modules, frames;
  int64_t block_cpu_ns;  // one user function block of this CPU time (0: none)
  Outcome want;
  double places;         // -1: no `places` evidence (the recipe)
};

constexpr Outcome kInfo = fires(FindingId::no_annotations, Severity::Info);

const Case kCases[] = {
    {"nothing_at_all_gets_the_recipe", 0, 0, 0, 0, kInfo, -1},
    {"record_function_blocks_are_enough", 1, 0, 0, 0, kSilent, 0},
    {"record_function_with_stacks_is_silent", 1, 5, 100, 5'000'000, kSilent, 0},
    {"stacks_with_a_tenth_of_the_step_name_a_place", 0, 0, 100, kStepCpu / 10, kInfo, 1},
    {"stacks_under_a_tenth_are_silent", 0, 0, 100, kStepCpu / 10 - 1, kSilent, 0},
    {"a_block_of_nine_tenths_is_the_whole_step", 0, 0, 100, kStepCpu * 9 / 10, kSilent, 0},
    {"just_under_nine_tenths_is_a_place", 0, 0, 100, kStepCpu * 9 / 10 - 1, kInfo, 1},
    {"modules_without_stacks_have_no_place", 0, 4, 0, 0, kSilent, 0},
};

class NoAnnotationsEdges : public ::testing::TestWithParam<Case> {};

TEST_P(NoAnnotationsEdges, FiresAsDocumented) {
  const Case& c = GetParam();
  Trace t;
  Facts f;
  f.blocks.basis_cpu_ns = kStepCpu;
  f.blocks.annotation_events = c.annotations, f.blocks.module_events = c.modules, f.blocks.python_frames = c.frames;
  if (c.block_cpu_ns > 0) add_place(t, f, "model.py(42): forward", c.block_cpu_ns);
  const auto x = expect_outcome(run_rule(rule_no_annotations, t, f), c.want, t);
  if (!x) return;
  EXPECT_DOUBLE_EQ(evidence(*x, "python_frames"), static_cast<double>(c.frames));
  if (c.places < 0) {
    EXPECT_FALSE(has_evidence(*x, "places"));
    bool recipe = false;
    for (const std::string& s : x->try_next) recipe |= s.find("with_stack=True, with_modules=True") != std::string::npos;
    EXPECT_TRUE(recipe) << "the recipe names the profiler options";
  } else {
    EXPECT_DOUBLE_EQ(evidence(*x, "places"), c.places);
    EXPECT_NE(x->try_next.front().find("model.py:42"), std::string::npos) << x->try_next.front();
  }
}

// A place whose inner place holds half of it is named by the inner one; a module by its class.
TEST(NoAnnotationsPlaces, TheInnerBlockNamesItsParent) {
  Trace t;
  Facts f;
  f.blocks.basis_cpu_ns = kStepCpu, f.blocks.python_frames = 100, f.blocks.module_events = 2;
  auto add = [&](const char* name, uint32_t parent, int64_t cpu_ns) {
    BlockRow r;
    r.name = t.names.intern(name), r.location = t.names.intern("model.py(7): forward");
    r.kind = BlockKind::Module, r.parent = parent, r.calls = 1, r.cpu_total_ns = cpu_ns;
    f.blocks.rows.push_back(r);
    group_blocks(t, f.blocks);
  };
  add("nn.Module: Block_2", UINT32_MAX, 6'000'000);
  add("nn.Module: HeadLoopAttention_0", 0, 3'000'000);  // exactly half of Block_2
  const auto x = expect_outcome(run_rule(rule_no_annotations, t, f), kInfo, t);
  ASSERT_TRUE(x);
  EXPECT_DOUBLE_EQ(evidence(*x, "places"), 1);
  EXPECT_NE(x->try_next.front().find("record_function(\"HeadLoopAttention\")"), std::string::npos) << x->try_next.front();
  f.blocks.rows[1].cpu_total_ns = 2'999'999;  // under half: both are places
  const auto y = expect_outcome(run_rule(rule_no_annotations, t, f), kInfo, t);
  ASSERT_TRUE(y);
  EXPECT_DOUBLE_EQ(evidence(*y, "places"), 2);
}

INSTANTIATE_TEST_SUITE_P(Rules, NoAnnotationsEdges, ::testing::ValuesIn(kCases), case_name<Case>);

}  // namespace
}  // namespace whyslow
