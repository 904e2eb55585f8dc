// The op table's tree rules on hand-built traces, where the oracle fixtures cannot reach:
// torch's _remove_dup_nodes gives a merged parent its only child's kernels in place of its own.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "analysis/passes.hpp"
#include "loader_test_util.hpp"
#include "trace/load_trace.hpp"

namespace whyslow {
namespace {

using testing::TempDir;
using testing::trace_json;

std::map<std::string, OpRow> cpu_rows(const Trace& t) {
  std::map<std::string, OpRow> rows;
  for (const OpRow& r : op_table(t))
    if (!r.device_row) rows[r.name] = r;
  return rows;
}

// aten::foo → aten::foo → aten::foo, each the only child of the one above. The innermost
// launches a 30 µs kernel; the outer two are named by the External id of kernels with no launch
// call in the trace (so no enclosing call to hold them against), 50 and 40 µs. torch merges the
// chain into one row and keeps the innermost node's kernels only: 30 µs, not 120.
TEST(OpTable, MergedDuplicateTakesItsChildsKernelsInPlaceOfItsOwn) {
  TempDir dir;
  const Trace t = load_trace(dir.write("dup.json", trace_json({
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::foo", "pid": 1, "tid": 1, "ts": 0, "dur": 100, "args": {"External id": 1}})",
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::foo", "pid": 1, "tid": 1, "ts": 10, "dur": 80, "args": {"External id": 2}})",
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::foo", "pid": 1, "tid": 1, "ts": 20, "dur": 60, "args": {"External id": 3}})",
      R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 30, "dur": 5, "args": {"correlation": 9, "External id": 3}})",
      R"({"ph": "X", "cat": "kernel", "name": "inner_kernel", "pid": 0, "tid": 7, "ts": 200, "dur": 30, "args": {"correlation": 9, "External id": 3}})",
      R"({"ph": "X", "cat": "kernel", "name": "outer_kernel", "pid": 0, "tid": 7, "ts": 300, "dur": 50, "args": {"External id": 1}})",
      R"({"ph": "X", "cat": "kernel", "name": "middle_kernel", "pid": 0, "tid": 7, "ts": 400, "dur": 40, "args": {"External id": 2}})",
  })));
  ASSERT_EQ(t.repaired_op_links, 0u);
  const auto rows = cpu_rows(t);
  const OpRow& foo = rows.at("aten::foo");
  EXPECT_EQ(foo.calls, 1u);
  EXPECT_EQ(foo.self_device_ns, 30'000);
  EXPECT_EQ(foo.device_total_ns, 30'000);
  EXPECT_EQ(foo.cpu_total_ns, 100'000);
  EXPECT_EQ(foo.self_cpu_ns, 95'000);  // the launch call is the merged row's only child
  EXPECT_EQ(rows.at("cudaLaunchKernel").calls, 1u);
}

// A parent with a second child (here its own launch call, a child in torch's tree) is not merged.
TEST(OpTable, DuplicateWithASiblingIsNotMerged) {
  TempDir dir;
  const Trace t = load_trace(dir.write("sibling.json", trace_json({
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::foo", "pid": 1, "tid": 1, "ts": 0, "dur": 100, "args": {"External id": 1}})",
      R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 5, "dur": 5, "args": {"correlation": 8, "External id": 1}})",
      R"({"ph": "X", "cat": "kernel", "name": "outer_kernel", "pid": 0, "tid": 7, "ts": 300, "dur": 50, "args": {"correlation": 8, "External id": 1}})",
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::foo", "pid": 1, "tid": 1, "ts": 20, "dur": 60, "args": {"External id": 3}})",
      R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 30, "dur": 5, "args": {"correlation": 9, "External id": 3}})",
      R"({"ph": "X", "cat": "kernel", "name": "inner_kernel", "pid": 0, "tid": 7, "ts": 200, "dur": 30, "args": {"correlation": 9, "External id": 3}})",
  })));
  const auto rows = cpu_rows(t);  // the rows outlive the reference into them
  const OpRow& foo = rows.at("aten::foo");
  EXPECT_EQ(foo.calls, 2u);
  EXPECT_EQ(foo.self_device_ns, 80'000);
  EXPECT_EQ(foo.device_total_ns, 50'000 + 30'000 + 30'000);  // the outer's total includes the inner's
}

}  // namespace
}  // namespace whyslow
