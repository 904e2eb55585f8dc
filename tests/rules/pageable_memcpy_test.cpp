// pageable_memcpy at its edges: pageable copies taking ≥ 50 µs in total and moving ≥ 64 KiB
// fire (docs/JSON.md); a warning from 10 % of the profiled window.
#include "facts_builder.hpp"

namespace whyslow {
namespace {

using namespace testing;

struct Case {
  const char* name;
  int copies;
  int64_t dur_ns;    // each copy's GPU time
  int64_t bytes;     // each copy's size; -1 when the trace does not record it
  int64_t window_ns;
  Outcome want;
};

constexpr Outcome kInfo = fires(FindingId::pageable_memcpy, Severity::Info);
constexpr Outcome kWarning = fires(FindingId::pageable_memcpy, Severity::Warning);
constexpr int64_t kMiB = 1 << 20;

const Case kCases[] = {
    // kMinTotalNs = 50 µs, over all copies
    {"one_copy_of_49_999_ns_is_silent", 1, 49'999, kMiB, 100'000'000, kSilent},
    {"one_copy_of_50_us_fires", 1, 50'000, kMiB, 100'000'000, kInfo},
    {"two_copies_of_25_us_fire", 2, 25'000, kMiB, 100'000'000, kInfo},
    // kMinTotalBytes = 64 KiB, over all copies
    {"65_535_bytes_are_silent", 1, 100'000, 65'535, 100'000'000, kSilent},
    {"64_kib_fire", 1, 100'000, 65'536, 100'000'000, kInfo},
    {"two_copies_of_32_kib_fire", 2, 100'000, 32'768, 100'000'000, kInfo},
    {"unknown_sizes_fire_on_time_alone", 1, 100'000, -1, 100'000'000, kInfo},
    // kWarningShare = 0.10 of the window
    {"100_us_of_1_000_001_ns_is_info", 1, 100'000, kMiB, 1'000'001, kInfo},
    {"100_us_of_1_ms_is_a_warning", 1, 100'000, kMiB, 1'000'000, kWarning},
};

class PageableMemcpyEdges : public ::testing::TestWithParam<Case> {};

TEST_P(PageableMemcpyEdges, FiresAsDocumented) {
  const Case& c = GetParam();
  Trace t;
  Facts f;
  set_window(f, {c.window_ns, 0, 0});
  constexpr int64_t kCallNs = 3'000;  // the host call outlasts the copy it stages
  EventId longest = kNoEvent;
  for (int i = 0; i < c.copies; ++i) {
    const int64_t at = i * 1'000'000;
    const EventId call = add_event(t, EventKind::Runtime, "cudaMemcpyAsync", at, c.dur_ns + i + kCallNs);
    GpuDetail d;
    d.bytes = c.bytes;
    // Each copy 1 ns longer than the one before: the last is the slowest.
    const EventId copy = add_gpu_event(t, EventKind::Memcpy, "Memcpy HtoD (Pageable -> Device)", at + 1'000, c.dur_ns + i, d);
    link_launch(t, call, copy);
    f.copies.pageable.push_back({copy, t.name[copy], c.bytes, c.dur_ns + i});
    longest = copy;
  }
  const auto x = expect_outcome(run_rule(rule_pageable_memcpy, t, f), c.want, t);
  if (!x) return;
  const int64_t total_ns = c.copies * c.dur_ns + c.copies * (c.copies - 1) / 2;
  EXPECT_DOUBLE_EQ(evidence(*x, "copies"), c.copies);
  EXPECT_DOUBLE_EQ(evidence(*x, "gpu_time_us"), total_ns / 1e3);
  EXPECT_DOUBLE_EQ(evidence(*x, "host_blocked_us"), (total_ns + c.copies * kCallNs) / 1e3);
  if (c.bytes >= 0) {
    EXPECT_DOUBLE_EQ(evidence(*x, "bytes"), static_cast<double>(c.copies * c.bytes));
    EXPECT_DOUBLE_EQ(evidence(*x, "bandwidth"), static_cast<double>(c.copies * c.bytes) / total_ns);  // GB/s
  } else {
    EXPECT_FALSE(has_evidence(*x, "bytes"));
    EXPECT_FALSE(has_evidence(*x, "bandwidth"));
  }
  EXPECT_EQ(event_ids(*x), std::vector<EventId>{longest});
}

INSTANTIATE_TEST_SUITE_P(Rules, PageableMemcpyEdges, ::testing::ValuesIn(kCases), case_name<Case>);

}  // namespace
}  // namespace whyslow
