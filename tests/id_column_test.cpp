// IdColumn: 32-bit storage while every id fits, every id kept exactly once one does not.
#include "trace/id_column.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "loader_test_util.hpp"
#include "trace/load_trace.hpp"

namespace whyslow {
namespace {

using testing::column_values;

TEST(IdColumn, StaysNarrowForIdsThatFitIn32Bits) {
  IdColumn c;
  c.reserve(4);
  for (int64_t id : {int64_t{0}, int64_t{1}, int64_t{UINT32_MAX}, int64_t{7}}) c.push_back(id);
  EXPECT_FALSE(c.is_wide());
  EXPECT_EQ(column_values(c), (std::vector<int64_t>{0, 1, UINT32_MAX, 7}));
}

TEST(IdColumn, WidensOnceOnAnIdOutside32BitsAndKeepsTheEarlierIds) {
  for (int64_t outside : {int64_t{UINT32_MAX} + 1, int64_t{-1}, INT64_MAX, INT64_MIN}) {
    IdColumn c;
    c.push_back(5);
    c.push_back(UINT32_MAX);
    c.push_back(outside);
    c.push_back(9);
    EXPECT_TRUE(c.is_wide()) << outside;
    EXPECT_EQ(column_values(c), (std::vector<int64_t>{5, UINT32_MAX, outside, 9})) << outside;
  }
}

// A trace whose External ids pass 2^32 mid-file links exactly as one whose ids are small.
TEST(IdColumn, LinksAcrossTheWideningInALoadedTrace) {
  const int64_t big = int64_t{1} << 40;
  const std::string b = std::to_string(big);
  testing::TempDir dir;
  const Trace t = load_trace(dir.write("wide_ids.json", testing::trace_json({
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1, "dur": 20, "args": {"External id": 3}})",
      R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 2, "dur": 5, "args": {"correlation": 11, "External id": 3}})",
      R"({"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 30, "dur": 10, "args": {"correlation": 11, "External id": 3}})",
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::add", "pid": 1, "tid": 1, "ts": 50, "dur": 20, "args": {"External id": )" + b + "}}",
      R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 51, "dur": 5, "args": {"correlation": )" +
          b + R"(, "External id": )" + b + "}}",
      R"({"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 80, "dur": 10, "args": {"correlation": )" + b +
          R"(, "External id": )" + b + "}}",
  })));
  ASSERT_EQ(t.size(), 6u);
  EXPECT_TRUE(t.correlation.is_wide());
  EXPECT_TRUE(t.external_id.is_wide());
  EXPECT_EQ(t.external_id[3], big);
  EXPECT_EQ(t.launch_link[2], 1u);
  EXPECT_EQ(t.op_link[2], 0u);
  EXPECT_EQ(t.launch_link[5], 4u);
  EXPECT_EQ(t.op_link[5], 3u);
}

}  // namespace
}  // namespace whyslow
