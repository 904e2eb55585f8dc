// hidden_copy: a device-to-device copy inside an ATen op that is not itself a copy fires
// (docs/JSON.md); a warning from 5 % of the GPU's busy time.
#include "facts_builder.hpp"

namespace whyslow {
namespace {

using namespace testing;

struct Op {
  EventKind kind;
  const char* name;
};

struct Case {
  const char* name;
  std::vector<Op> stack;  // outermost first; the copy's launch carries the innermost's External id
  int64_t copy_ns, gpu_busy_ns;
  Outcome want;
};

constexpr Outcome kInfo = fires(FindingId::hidden_copy, Severity::Info);
constexpr Outcome kWarning = fires(FindingId::hidden_copy, Severity::Warning);
const Op kAddmm{EventKind::CpuOp, "aten::addmm"}, kCopy{EventKind::CpuOp, "aten::copy_"};

const Case kCases[] = {
    // Where the copy comes from.
    {"copy_inside_addmm_fires", {kAddmm, kCopy}, 10'000, 1'000'000, kInfo},
    {"copy_launched_by_addmm_itself_fires", {kAddmm}, 10'000, 1'000'000, kInfo},
    {"clone_is_a_copy_the_user_asked_for", {{EventKind::CpuOp, "aten::clone"}, kCopy}, 10'000, 1'000'000, kSilent},
    {"to_is_a_copy_the_user_asked_for", {{EventKind::CpuOp, "aten::to"}, {EventKind::CpuOp, "aten::_to_copy"}, kCopy},
     10'000, 1'000'000, kSilent},
    {"a_copy_with_no_op_around_it_is_silent", {kCopy}, 10'000, 1'000'000, kSilent},
    {"a_copy_under_a_user_annotation_is_silent", {{EventKind::UserAnnotation, "my_block"}, kCopy}, 10'000, 1'000'000,
     kSilent},
    {"a_copy_under_a_non_aten_op_is_silent", {{EventKind::CpuOp, "mylib::fused"}, kCopy}, 10'000, 1'000'000, kSilent},
    {"a_copy_with_no_launch_op_is_silent", {}, 10'000, 1'000'000, kSilent},
    // kWarningShare = 0.05 of GPU busy time
    {"49_999_ns_of_1_ms_busy_is_info", {kAddmm, kCopy}, 49'999, 1'000'000, kInfo},
    {"50_us_of_1_ms_busy_is_a_warning", {kAddmm, kCopy}, 50'000, 1'000'000, kWarning},
};

class HiddenCopyEdges : public ::testing::TestWithParam<Case> {};

TEST_P(HiddenCopyEdges, FiresAsDocumented) {
  const Case& c = GetParam();
  Trace t;
  Facts f;
  f.gpu_busy_ns = c.gpu_busy_ns;
  EventId op = kNoEvent;
  for (const Op& o : c.stack) op = add_event(t, o.kind, o.name, 0, 100'000, op);
  GpuDetail d;
  d.bytes = 4096;
  const EventId copy = add_gpu_event(t, EventKind::Memcpy, "Memcpy DtoD (Device -> Device)", 10'000, c.copy_ns, d);
  t.op_link[copy] = op;
  f.copies.device_to_device.push_back({copy, t.name[copy], d.bytes, c.copy_ns});
  const auto x = expect_outcome(run_rule(rule_hidden_copy, t, f), c.want, t);
  if (!x) return;
  EXPECT_DOUBLE_EQ(evidence(*x, "copies"), 1);
  EXPECT_DOUBLE_EQ(evidence(*x, "gpu_time_us"), c.copy_ns / 1e3);
  EXPECT_DOUBLE_EQ(evidence(*x, "bytes"), 4096);
  EXPECT_EQ(event_ids(*x), std::vector<EventId>{copy});
}

INSTANTIATE_TEST_SUITE_P(Rules, HiddenCopyEdges, ::testing::ValuesIn(kCases), case_name<Case>);

// Copies are counted over every op that makes them, with one example each.
TEST(HiddenCopy, OneExamplePerOp) {
  Trace t;
  Facts f;
  f.gpu_busy_ns = 10'000'000;
  std::vector<EventId> first_of_op;
  for (const char* name : {"aten::addmm", "aten::addmm", "aten::baddbmm"}) {
    const EventId op = add_event(t, EventKind::CpuOp, name, 0, 100'000);
    const EventId copy = add_gpu_event(t, EventKind::Memcpy, "Memcpy DtoD (Device -> Device)", 10'000, 20'000);
    t.op_link[copy] = op;
    f.copies.device_to_device.push_back({copy, t.name[copy], -1, 20'000});
    if (first_of_op.empty() || std::string_view(name) == "aten::baddbmm") first_of_op.push_back(copy);
  }
  const auto x = expect_outcome(run_rule(rule_hidden_copy, t, f), fires(FindingId::hidden_copy, Severity::Info), t);
  ASSERT_TRUE(x);
  EXPECT_DOUBLE_EQ(evidence(*x, "copies"), 3);
  EXPECT_DOUBLE_EQ(evidence(*x, "gpu_time_us"), 60);
  EXPECT_DOUBLE_EQ(evidence(*x, "bytes"), 0);  // sizes unknown: none counted
  EXPECT_EQ(event_ids(*x), first_of_op);
}

}  // namespace
}  // namespace whyslow
