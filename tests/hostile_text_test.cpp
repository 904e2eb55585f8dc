// Hostile input, second round (issue 32): op names that drove the terminal from the roofline's
// "calls without a model" line (item 3), and record_shapes dims no tensor has (item 8).
#include <gtest/gtest.h>

#include <string>

#include "analysis/core/op_inputs.hpp"
#include "analysis/facts.hpp"
#include "common/terminal_text.hpp"
#include "explain/finding.hpp"
#include "loader_test_util.hpp"
#include "report/text/text_report.hpp"
#include "trace/load_trace.hpp"

namespace whyslow {
namespace {

using testing::TempDir;
using testing::trace_json;

// One op (name and args as JSON) launching one kernel, linked by correlation and External id.
std::string op_with_kernel(const std::string& op_name_json, const std::string& op_args = "") {
  return trace_json({
      R"({"ph":"X","cat":"cpu_op","name":)" + op_name_json + R"(,"pid":1,"tid":1,"ts":1,"dur":20,"args":{"External id":1)" +
          op_args + "}}",
      R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":2,"dur":3,"args":{"correlation":5,"External id":1}})",
      R"({"ph":"X","cat":"kernel","name":"gemm_kernel","pid":0,"tid":7,"ts":10,"dur":100,"args":{"correlation":5,"External id":1,"device":0,"stream":7}})",
  });
}

struct Rendered {
  std::string explain, kernels;
};

Rendered render(const std::string& text) {
  TempDir dir;
  const Trace t = load_trace(dir.write("t.json", text));
  const Facts f = analyze(t);
  return {render_explain_text(t, f, explain(t, f), TextOptions{}), render_kernels_text(t, f, TextOptions{})};
}

void expect_no_terminal_controls(const std::string& out) {
  for (const char c : {'\x1b', '\x07', '\0', '\r', '\x7f'}) EXPECT_EQ(out.find(c), std::string::npos) << int(c);
  EXPECT_EQ(out.find("\xE2\x80\xAE"), std::string::npos);  // right-to-left override
  EXPECT_EQ(out.find("\xC2\x9B"), std::string::npos);      // C1 CSI
}

TEST(HostileText, OpNamesInTheRooflinesNoModelLineAreCleaned) {
  // ESC ] title BEL, NUL, CR, DEL, RLO and C1 CSI in an op name without a model.
  const Rendered r = render(op_with_kernel(R"("aten::evil\u001b]0;owned\u0007\u0000\r\u007f\u202e\u009b2J")"));
  for (const std::string* out : {&r.explain, &r.kernels}) {
    SCOPED_TRACE(out == &r.explain ? "explain" : "kernels");
    EXPECT_NE(out->find("calls without a model"), std::string::npos) << *out;
    expect_no_terminal_controls(*out);
    EXPECT_NE(out->find("aten::evil\\x1B]0;owned\\x07"), std::string::npos) << *out;
  }
}

TEST(PrintableText, KeepsLineBreaksAndEscapesTheRest) {
  EXPECT_EQ(printable_text("a\nb\n"), "a\nb\n");
  EXPECT_EQ(printable_text("a\r\nb\x1b[2J\t"), "a\\x0D\nb\\x1B[2J\\x09");
  EXPECT_EQ(printable_text("µs · → …"), "µs · → …");
  EXPECT_EQ(printable_text(printable_text("x\x07")), printable_text("x\x07"));  // idempotent
}

TEST(HostileText, ShapesNoTensorHasGetNoModel) {
  for (const std::string dims : {R"([[-8, 16], [16, 8]])", R"([[9223372036854775807, 2], [2, 9223372036854775807]])",
                                 R"([[4294967296, 4294967296], [4294967296, 1]])"}) {
    SCOPED_TRACE(dims);
    const Rendered r =
        render(op_with_kernel(R"("aten::mm")", R"(,"Input Dims":)" + dims + R"(,"Input type":["float","float"])"));
    EXPECT_NE(r.kernels.find("input shapes no tensor has"), std::string::npos) << r.kernels;
    EXPECT_EQ(r.kernels.find("-128"), std::string::npos) << r.kernels;  // "-128 FLOP"
    EXPECT_EQ(r.kernels.find("TiB"), std::string::npos) << r.kernels;   // "-8388608 TiB"
  }
  // A real shape still has its model.
  const Rendered ok = render(op_with_kernel(R"("aten::mm")", R"(,"Input Dims":[[8, 16], [16, 8]],"Input type":["float","float"])"));
  EXPECT_EQ(ok.kernels.find("calls without a model"), std::string::npos) << ok.kernels;
}

// "Input Dims" given as a string of 50,000 nested '[' (issue 45): the shape reader recursed once a
// level and overflowed the stack; it now refuses past eight levels (torch writes three at most).
TEST(HostileText, DeeplyNestedInputDimsAreRefusedNotRecursed) {
  const std::string dims = "\"" + std::string(50'000, '[') + "\"";
  const Rendered r = render(op_with_kernel(R"("aten::mm")", R"(,"Input Dims":)" + dims + R"(,"Input type":["float","float"])"));
  EXPECT_EQ(r.kernels.find("FLOP/s"), std::string::npos) << r.kernels;  // no model from an unreadable shape
}

TEST(ElementCount, RefusesNegativeAndHugeShapes) {
  EXPECT_EQ(element_count({}), std::optional<int64_t>(1));
  EXPECT_EQ(element_count({4, 0, 5}), std::optional<int64_t>(0));
  EXPECT_EQ(element_count({1 << 20, 1 << 20}), std::optional<int64_t>(kMaxTensorElements));
  EXPECT_EQ(element_count({(1 << 20) + 1, 1 << 20}), std::nullopt);
  EXPECT_EQ(element_count({-1}), std::nullopt);
  EXPECT_EQ(element_count({INT64_MAX, INT64_MAX}), std::nullopt);
}

}  // namespace
}  // namespace whyslow
