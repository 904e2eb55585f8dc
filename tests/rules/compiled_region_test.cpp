// compiled_region: fires when torch.compile regions, CompiledFxGraph calls or Triton kernels are
// present (docs/JSON.md); a warning when the graph broke (nested regions) or compilation ran
// inside the profiled window, info otherwise.
#include <algorithm>

#include "facts_builder.hpp"

namespace whyslow {
namespace {

using namespace testing;

struct Case {
  const char* name;
  uint64_t regions, nested, graph_calls, triton_kernels;
  int64_t wrapper_ns, compile_ns;
  Outcome want;
};

constexpr Outcome kInfo = fires(FindingId::compiled_region, Severity::Info);
constexpr Outcome kWarning = fires(FindingId::compiled_region, Severity::Warning);

const Case kCases[] = {
    {"no_compiled_code_is_silent", 0, 0, 0, 0, 0, 0, kSilent},
    {"compilation_without_compiled_calls_is_silent", 0, 0, 0, 0, 0, 5'000'000, kSilent},
    {"compiled_regions_are_info", 10, 0, 10, 40, 50'000, 0, kInfo},
    {"graph_calls_alone_are_info", 0, 0, 10, 0, 0, 0, kInfo},
    {"triton_kernels_alone_are_info", 0, 0, 0, 1, 0, 0, kInfo},
    {"one_graph_break_is_a_warning", 10, 1, 10, 40, 50'000, 0, kWarning},
    {"one_ns_of_compilation_is_a_warning", 10, 0, 10, 40, 50'000, 1, kWarning},
};

class CompiledRegionEdges : public ::testing::TestWithParam<Case> {};

TEST_P(CompiledRegionEdges, FiresAsDocumented) {
  const Case& c = GetParam();
  Trace t;
  Facts f;
  CompileFacts& k = f.compile;
  k.compiled_regions = c.regions, k.nested_regions = c.nested, k.graph_calls = c.graph_calls;
  k.triton_kernels = c.triton_kernels, k.wrapper_ns = c.wrapper_ns, k.compile_ns = c.compile_ns;
  const auto x = expect_outcome(run_rule(rule_compiled_region, t, f), c.want, t);
  if (!x) return;
  EXPECT_DOUBLE_EQ(evidence(*x, "compiled_region_calls"), c.regions);
  EXPECT_DOUBLE_EQ(evidence(*x, "graph_breaks"), c.nested);
  EXPECT_DOUBLE_EQ(evidence(*x, "graph_calls"), c.graph_calls);
  EXPECT_DOUBLE_EQ(evidence(*x, "triton_kernels"), c.triton_kernels);
  EXPECT_DOUBLE_EQ(evidence(*x, "compile_us"), c.compile_ns / 1e3);
  // Per compiled-region call; with no region calls, the wrapper time as it is.
  EXPECT_DOUBLE_EQ(evidence(*x, "wrapper_per_call_us"), c.wrapper_ns / std::max<uint64_t>(1, c.regions) / 1e3);
}

INSTANTIATE_TEST_SUITE_P(Rules, CompiledRegionEdges, ::testing::ValuesIn(kCases), case_name<Case>);

}  // namespace
}  // namespace whyslow
