// Hostile input, third round (issue 45): op-model arguments that crashed or overflowed (item 1).
// Every hostile input is generated here.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "analysis/core/op_inputs.hpp"
#include "analysis/facts.hpp"
#include "analysis/roofline/op_cost.hpp"
#include "diff/diff.hpp"
#include "explain/finding.hpp"
#include "loader_test_util.hpp"
#include "op_input_builders.hpp"
#include "report/json/json_report.hpp"
#include "report/roofline_words.hpp"
#include "report/format.hpp"
#include "report/text/tables.hpp"
#include "report/text/text_report.hpp"
#include "test_support.hpp"
#include "trace/load_trace.hpp"

namespace whyslow {
namespace {

using testing::TempDir;
using testing::trace_json;

// As traces write them: a float tensor, and conv's list arguments as Concrete Inputs of a ScalarList.
OpInput tensor(std::vector<int64_t> dims) { return testing::tensor("float", std::move(dims)); }
OpInput scalar(std::string concrete) { return testing::scalar(std::move(concrete), "ScalarList"); }
// conv2d(input, weight, bias, stride, padding, dilation, groups) on a 1×3×56×56 input.
std::string conv2d_no_model(const std::string& stride, const std::string& padding, const std::string& dilation,
                            const std::string& groups = "1") {
  const OpModel m = model_op("aten::conv2d", {tensor({1, 3, 56, 56}), tensor({8, 3, 3, 3}), scalar(""), scalar(stride),
                                              scalar(padding), scalar(dilation), scalar(groups)});
  EXPECT_FALSE(m.ok) << stride << " " << padding << " " << dilation;
  return report::describe_no_model(m.why_not);
}

TEST(HostileRound3, ConvParametersNoConvolutionHasGetNoModel) {
  EXPECT_EQ(conv2d_no_model("[0, 0]", "[0, 0]", "[1, 1]"), "aten::conv2d: stride 0, which no convolution has");
  EXPECT_EQ(conv2d_no_model("0", "0", "1"), "aten::conv2d: stride 0, which no convolution has");
  EXPECT_EQ(conv2d_no_model("[-1, -1]", "[0, 0]", "[1, 1]"), "aten::conv2d: stride -1, which no convolution has");
  EXPECT_EQ(conv2d_no_model("[1, 1]", "[-2, 0]", "[1, 1]"), "aten::conv2d: padding -2, which no convolution has");
  EXPECT_EQ(conv2d_no_model("[1, 1]", "[0, 0]", "[0, 1]"), "aten::conv2d: dilation 0, which no convolution has");
  EXPECT_EQ(conv2d_no_model("[1, 1]", "[0, 0]", "[1, 1]", "0"), "aten::conv2d: groups 0, which no convolution has");
  // 2^62: 2·padding and dilation·(k − 1) overflow int64.
  const std::string huge = "4611686018427387904";
  EXPECT_NE(conv2d_no_model("[1, 1]", "[" + huge + ", 0]", "[1, 1]").find("an output length below 1 or beyond int64"),
            std::string::npos);
  EXPECT_NE(conv2d_no_model("[1, 1]", "[0, 0]", "[" + huge + ", 1]").find("an output length below 1 or beyond int64"),
            std::string::npos);
  // Padding that fits int64 but gives an output larger than any tensor.
  EXPECT_NE(conv2d_no_model("[1, 1]", "[1099511627776, 0]", "[1, 1]").find("an output of 1×8×"), std::string::npos);
  // A kernel wider than the padded input: torch refuses it.
  EXPECT_NE(conv2d_no_model("[1, 1]", "[0, 0]", "[100, 1]").find("below 1"), std::string::npos);
}

TEST(HostileRound3, ConvIntegersThatAreNotInt64GetNoModelNotAnException) {
  // std::stoll threw on these (out_of_range, invalid_argument): SIGABRT.
  for (const std::string stride : {"123456789012345678901234567890", "2x", "-", "1e3", " 1"}) {
    SCOPED_TRACE(stride);
    const OpModel m = model_op("aten::conv2d", {tensor({1, 3, 56, 56}), tensor({8, 3, 3, 3}), scalar(""),
                                                scalar(stride), scalar("0"), scalar("1"), scalar("1")});
    EXPECT_FALSE(m.ok);
    EXPECT_EQ(report::describe_no_model(m.why_not), "aten::conv2d: a stride not made of int64 values, which no convolution has");
  }
  // The other integer arguments too; a stride not written at all is "not recorded".
  const auto conv = [](const std::string& padding, const std::string& groups) {
    return report::describe_no_model(model_op("aten::conv2d", {tensor({1, 3, 56, 56}), tensor({8, 3, 3, 3}), scalar(""),
                                                                scalar("1"), scalar(padding), scalar("1"), scalar(groups)})
                                         .why_not);
  };
  EXPECT_EQ(conv("[99999999999999999999, 0]", "1"), "aten::conv2d: a padding not made of int64 values, which no convolution has");
  EXPECT_EQ(conv("0", "1e400"), "aten::conv2d: a groups not made of int64 values, which no convolution has");
  EXPECT_EQ(report::describe_no_model(model_op("aten::conv2d", {tensor({1, 3, 56, 56}), tensor({8, 3, 3, 3}), scalar(""),
                                                                scalar(""), scalar("0"), scalar("1"), scalar("1")})
                                          .why_not),
            "aten::conv2d: stride, padding or dilation not recorded");
  // A valid conv still has its model: ⌊(56 − 2 − 1)/2⌋ + 1 = 27.
  const OpModel ok = model_op("aten::conv2d", {tensor({1, 3, 56, 56}), tensor({8, 3, 3, 3}), scalar(""), scalar("2"),
                                               scalar("0"), scalar("1"), scalar("1")});
  ASSERT_TRUE(ok.ok);
  EXPECT_DOUBLE_EQ(ok.cost.flops, 2.0 * 8 * 3 * 3 * 3 * 27 * 27);
}

TEST(HostileRound3, IndexSelectDimThatIsNotInt64GetsNoModel) {
  const auto index_select = [](const std::string& dim) {
    OpInput index = tensor({4});
    index.type = "long int";
    return model_op("aten::index_select", {tensor({8, 16}), scalar(dim), index});
  };
  EXPECT_EQ(report::describe_no_model(index_select("123456789012345678901234567890").why_not),
            "aten::index_select with arguments whyslow does not recognise");
  EXPECT_EQ(report::describe_no_model(index_select("abc").why_not),
            "aten::index_select with arguments whyslow does not recognise");
  EXPECT_EQ(report::describe_no_model(index_select("5").why_not), "aten::index_select: dim 5 out of range");
  EXPECT_EQ(report::describe_no_model(index_select("-9223372036854775808").why_not),
            "aten::index_select: dim -9223372036854775808 out of range");
  EXPECT_TRUE(index_select("-1").ok);
}

// Found by fuzz_op_models in 4 minutes: model_op called with a shape of 2^61 × 2^61 elements
// overflowed the softmax model's element count (UBSan); only the trace's path checked shapes.
TEST(HostileRound3, EveryModelRefusesShapesNoTensorHas) {
  const int64_t huge = int64_t{1} << 61;
  for (const char* op : {"aten::_softmax", "aten::sum", "aten::mm", "aten::add", "aten::conv2d", "aten::cat",
                         "aten::index_select", "aten::scaled_dot_product_attention", "aten::no_such_op"}) {
    const OpModel m = model_op(op, {tensor({huge, huge}), tensor({huge, huge}), tensor({huge, huge}), scalar("1")});
    EXPECT_FALSE(m.ok) << op;
    EXPECT_EQ(m.why_not.reason, NoModelReason::ImpossibleShapes) << op;
    EXPECT_EQ(model_op(op, {tensor({4, -8}), tensor({8, 4})}).why_not.reason, NoModelReason::ImpossibleShapes) << op;
  }
}

// The fuzzer's op (CI's sanitizer job, 2026-12-05): an empty dimension broadcast (stride 0) beside
// dimensions whose product overflows int64. The shape check passes it (0 elements); the stored
// size must not multiply the others.
TEST(HostileRound3, AnEmptyBroadcastTensorStoresNothing) {
  OpInput in;
  in.type = "float";
  in.dims = {0, int64_t{1} << 62, 112};
  in.strides = {0, 112, 1};
  EXPECT_EQ(in.stored_numel(), 0);
  EXPECT_EQ(in.numel(), 0);
}

TEST(ParseInt, WholeInt64TextOnly) {
  EXPECT_EQ(parse_int("42"), 42);
  EXPECT_EQ(parse_int("-9223372036854775808"), INT64_MIN);
  EXPECT_EQ(parse_int("9223372036854775808"), std::nullopt);
  EXPECT_EQ(parse_int(""), std::nullopt);
  EXPECT_EQ(parse_int("1 "), std::nullopt);
  EXPECT_EQ(parse_int("+1"), std::nullopt);
}

// The same values through a whole trace: the kernels table and explain run to the end.
TEST(HostileRound3, ConvAndIndexSelectInATraceDoNotAbort) {
  const auto op = [](const std::string& name, const std::string& args) {
    return trace_json({
        R"({"ph":"X","cat":"cpu_op","name":")" + name + R"(","pid":1,"tid":1,"ts":1,"dur":20,"args":{"External id":1)" +
            args + "}}",
        R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":2,"dur":3,"args":{"correlation":5,"External id":1}})",
        R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":10,"dur":100,"args":{"correlation":5,"External id":1,"device":0,"stream":7}})",
    });
  };
  const std::string conv =
      op("aten::conv2d", R"(,"Input Dims":[[1,3,56,56],[8,3,3,3],[],[],[],[],[]],)"
                         R"("Input type":["float","float","","ScalarList","ScalarList","ScalarList","Scalar"],)"
                         R"("Concrete Inputs":["","","","123456789012345678901234567890","[0, 0]","[1, 1]","1"])");
  const std::string stride0 =
      op("aten::conv2d", R"(,"Input Dims":[[1,3,56,56],[8,3,3,3],[],[],[],[],[]],)"
                         R"("Input type":["float","float","","ScalarList","ScalarList","ScalarList","Scalar"],)"
                         R"("Concrete Inputs":["","","","[0, 0]","[0, 0]","[1, 1]","1"])");
  const std::string select =
      op("aten::index_select", R"(,"Input Dims":[[8,16],[],[4]],"Input type":["float","Scalar","long int"],)"
                               R"("Concrete Inputs":["","99999999999999999999999999999",""])");
  for (const std::string* text : {&conv, &stride0, &select}) {
    TempDir dir;
    const Trace t = load_trace(dir.write("t.json", *text));
    const Facts f = analyze(t);
    const std::string kernels = render_kernels_text(t, f, TextOptions{});
    EXPECT_NE(kernels.find("calls without a model"), std::string::npos) << kernels;
  }
}

// Item 4: allocator records whose values no allocator has. They wrapped the sums around ("peaks at
// 8388608 TiB" beside evidence of -8388608 TiB); now they are left out and counted.
TEST(HostileRound3, AllocatorRecordsOutOfRangeAreLeftOutAndCounted) {
  const auto record = [](int ts, const std::string& addr, const std::string& bytes, const std::string& total) {
    return R"({"ph":"i","cat":"cpu_instant_event","name":"[memory]","pid":1,"tid":1,"ts":)" + std::to_string(ts) +
           R"(,"args":{"Addr":)" + addr + R"(,"Bytes":)" + bytes + R"(,"Total Allocated":)" + total +
           R"(,"Total Reserved":4096,"Device Id":0,"Device Type":1}})";
  };
  TempDir dir;
  const std::string path = dir.write(
      "memory.json",
      trace_json({R"({"ph":"X","cat":"cpu_op","name":"aten::empty","pid":1,"tid":1,"ts":10,"dur":100})",
                  record(20, "1", "1024", "1024"),
                  record(30, "2", "-9223372036854775808", "1024"),                  // Bytes INT64_MIN
                  record(40, "3", "-9223372036854775807", "9223372036854775807"),   // Total Allocated INT64_MAX
                  record(50, "4", "4611686018427387904", "-1"),                    // 2^62 bytes, no total
                  record(60, "5", "562949953421312", "2048"),        // 2^49 live, the total says otherwise
                  record(70, "6", "562949953421312", "4096"),        // 2^50 + 1024 live: beyond
                  record(80, "7", "1125899906842624", "-1"),         // 2^50 itself, but the total beyond
                  record(90, "8", "2048", "4096")}));
  const testing::Explained e = testing::explain_file(path);
  ASSERT_EQ(e.facts.memory.devices.size(), 1u);
  const DeviceMemory& d = e.facts.memory.devices.front();
  EXPECT_EQ(d.out_of_range_records, 5u);
  EXPECT_EQ(d.records, 3u);
  EXPECT_EQ(d.peak_allocated, 4096);
  const std::string table = report::memory_table(e.trace, e.facts, report::kDefaultLineWidth);
  EXPECT_NE(table.find("5 records left out"), std::string::npos) << table;
  for (const Finding& f : e.findings)
    for (const Evidence& ev : f.evidence) EXPECT_GE(ev.value, 0) << to_string(f.id) << " " << ev.key;
}

// Item 4: capture begins paired with one far end were each summed to it: 3 × 2^61.8 ns wrapped
// the capture time around. On each thread an end now closes one begin, and the time is the union.
TEST(HostileRound3, CaptureTimeStaysWithinTheWindow) {
  const auto api = [](const std::string& name, int tid, const std::string& ts) {
    return R"({"ph":"X","cat":"cuda_runtime","name":")" + name + R"(","pid":1,"tid":)" + std::to_string(tid) +
           R"(,"ts":)" + ts + R"(,"dur":1})";
  };
  std::vector<std::string> events;
  for (const int tid : {1, 2, 3})
    for (const std::string ts : {"1", "2", "3"}) events.push_back(api("cudaStreamBeginCapture", tid, ts));
  for (const int tid : {1, 2, 3}) events.push_back(api("cudaStreamEndCapture", tid, "4000000000000000"));  // 4e18 ns
  TempDir dir;
  const testing::Explained e = testing::explain_file(dir.write("captures.json", trace_json(events)));
  EXPECT_EQ(e.facts.compile.captures, 3u);  // one per thread: the latest begin before each end
  EXPECT_EQ(e.facts.compile.capture_ns, 4'000'000'000'000'001'000 - 3'000);
  EXPECT_LE(e.facts.compile.capture_ns, e.facts.window.duration_ns);
}

// Item 4: against A's median step of 0 the diff printed "+0.0 %"; delta_pct is now null, the words
// say there is no percentage, and the CI gate fails any shown slowdown.
TEST(HostileRound3, DiffAgainstAZeroMedianHasNoPercentage) {
  Diff d;
  d.a.steps = d.b.steps = 5;
  d.a.step_ns = {0, 0, 0, 0, 0};
  d.b.step_ns = {1000, 1000, 1000, 1000, 1000};
  d.a.step = spread_of(d.a.step_ns);
  d.b.step = spread_of(d.b.step_ns);
  judge(d);
  EXPECT_FALSE(d.verdict.delta_pct.has_value());
  EXPECT_EQ(d.verdict.summary.find("+0.0 %"), std::string::npos) << d.verdict.summary;
  const std::string json = render_diff_json(d);
  EXPECT_NE(json.find("\"delta_pct\": null"), std::string::npos) << json;

  Diff shown;
  shown.verdict.comparable = true;
  shown.verdict.faster = "a";
  shown.verdict.confidence = "medium";
  const GateResult gate = ci_gate(shown, 5);
  EXPECT_TRUE(gate.fails);
  EXPECT_FALSE(gate.slower_pct.has_value());
  EXPECT_EQ(gate.reason, "B is slower than A (no percentage: A's median step is 0) (confidence medium), over the allowed 5 %");
}

// Item 4: a correlation id used twice within one process linked every kernel to the first launch.
// Each kernel now goes to the nearest launch before it, and a driver call inside its runtime call
// (the two share the id) still gives the runtime call.
TEST(HostileRound3, ReusedCorrelationIdLinksTheNearestEarlierLaunch) {
  const auto launch = [](const std::string& name, int ts, int dur) {
    return R"({"ph":"X","cat":")" + std::string(name.starts_with("cu") && !name.starts_with("cuda") ? "cuda_driver" : "cuda_runtime") +
           R"(","name":")" + name + R"(","pid":1,"tid":1,"ts":)" + std::to_string(ts) + R"(,"dur":)" + std::to_string(dur) +
           R"(,"args":{"correlation":7}})";
  };
  const auto kernel = [](const std::string& name, int ts) {
    return R"({"ph":"X","cat":"kernel","name":")" + name + R"(","pid":0,"tid":7,"ts":)" + std::to_string(ts) +
           R"(,"dur":5,"args":{"correlation":7,"device":0,"stream":7}})";
  };
  TempDir dir;
  const Trace t = load_trace(dir.write(
      "reused.json", trace_json({launch("cudaLaunchKernel", 10, 10), launch("cuLaunchKernel", 12, 5), kernel("k1", 30),
                                 launch("cudaLaunchKernel", 1000, 10), launch("cuLaunchKernel", 1002, 5),
                                 kernel("k2", 1030)})));
  const std::vector<EventId> runtime = testing::events_named(t, "cudaLaunchKernel");
  ASSERT_EQ(runtime.size(), 2u);
  EXPECT_EQ(t.launch_link[testing::events_named(t, "k1").at(0)], runtime[0]);
  EXPECT_EQ(t.launch_link[testing::events_named(t, "k2").at(0)], runtime[1]);
}

// The fuzzer's input (CI, 2026-12-05): every GPU record has zero length, so the GPU's merged busy
// time is empty and its first busy instant is "never" (INT64_MAX); launch_queue subtracted that from
// a negative kernel start (signed overflow). A delay with no GPU work shown is not shown idle.
TEST(HostileRound3, LaunchDelayWithNoGpuBusyTimeShowsNoIdle) {
  TempDir dir;
  const Trace t = load_trace(dir.write(
      "zero_length_gpu.json",
      trace_json({R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":1,"tid":1,"ts":-600,"dur":5,"args":{"correlation":3}})",
                  R"({"ph":"X","cat":"kernel","name":"k","pid":0,"tid":7,"ts":-1,"dur":0,"args":{"correlation":3,"device":0,"stream":7}})"})));
  const Facts f = analyze(t);
  EXPECT_EQ(f.launches.linked, 1u);
  EXPECT_EQ(f.launches.max_delay_ns, 599000);
  EXPECT_EQ(f.launches.queued, 1u);
  EXPECT_EQ(f.launches.held, 0u);  // the GPU is never shown busy or idle: not "held back"
}

// Item 4: a trace recompiling on a new shape in each of 20,000 steps listed every size in its
// recompilation finding (131 kB); the list is cut.
TEST(HostileRound3, TwentyThousandRecompilationsMakeABoundedFinding) {
  constexpr int kSteps = 20'000;
  std::vector<std::string> events;
  for (int k = 0; k < kSteps; ++k) {
    const std::string ts = std::to_string(100 * k);
    events.push_back(R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#)" + std::to_string(k) +
                     R"(","pid":1,"tid":1,"ts":)" + ts + R"(,"dur":90})");
    events.push_back(R"({"ph":"X","cat":"cpu_op","name":"Torch-Compiled Region: 0/)" + std::to_string(k) +
                     R"(","pid":1,"tid":1,"ts":)" + ts + R"(.5,"dur":80})");
    events.push_back(R"({"ph":"X","cat":"cpu_op","name":"entire_frame_compile","pid":1,"tid":1,"ts":)" + ts +
                     R"(.6,"dur":50})");
    events.push_back(R"({"ph":"X","cat":"cpu_op","name":"aten::add","pid":1,"tid":1,"ts":)" + std::to_string(100 * k + 60) +
                     R"(,"dur":10,"args":{"Input Dims":[[)" + std::to_string(k + 1) + R"(, 4], [1]],"Input type":["float","float"]}})");
  }
  TempDir dir;
  const testing::Explained e = testing::explain_file(dir.write("recompiles.json", trace_json(events)));
  const Finding* f = testing::find(e, FindingId::recompilation);
  ASSERT_NE(f, nullptr);
  EXPECT_LT(f->title.size() + f->detail.size(), 2'000u) << f->detail.substr(0, 3'000);
  EXPECT_NE(f->detail.find("(20000 sizes)"), std::string::npos) << f->detail.substr(0, 3'000);
}

}  // namespace
}  // namespace whyslow
