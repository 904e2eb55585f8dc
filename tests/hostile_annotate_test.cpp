// Hostile input, second round (issue 32 item 7): `whyslow annotate` on traces built to break it.
// Every output must parse as JSON, keep the findings on a process of their own, and number its
// flows apart from the trace's.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cstdint>
#include <set>
#include <string>

#include "loader_test_util.hpp"
#include "report/annotate/annotate_trace.hpp"
#include "test_support.hpp"
#include "trace/load_error.hpp"

namespace whyslow {
namespace {

using testing::TempDir;
using testing::trace_json;

// Annotates `in` into `out` as the command does.
void annotate(const std::string& in, const std::string& out) {
  const auto e = testing::explain_file(in);
  write_annotated_trace(RereadableInput(in), out, e.trace, e.facts, e.findings);
}

// The output parsed as JSON: the pids of the findings processes, and every flow id.
struct Annotated {
  std::set<int64_t> findings_pids;
  std::multiset<int64_t> flow_ids;
};

Annotated read_back(const std::string& path) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  const auto error = parser.load(path).get(doc);
  EXPECT_FALSE(error) << simdjson::error_message(error);
  Annotated a;
  if (error) return a;
  for (const simdjson::dom::element e : doc["traceEvents"].get_array()) {
    std::string_view name;
    if (!e["name"].get_string().get(name) && name == "process_name") {
      std::string_view label;
      if (!e["args"]["name"].get_string().get(label) && label == "whyslow findings") {
        a.findings_pids.insert(e["pid"].get_int64().value());
        continue;
      }
    }
    int64_t id = 0;
    if (!e["id"].get_int64().get(id)) a.flow_ids.insert(id);
  }
  return a;
}

// A kernel launched by an op, with its flow pair, so annotate has findings and flows to add.
std::vector<std::string> busy_events(const std::string& pid = "1") {
  std::vector<std::string> ev;
  for (int i = 0; i < 20; ++i) {
    const std::string ts = std::to_string(100 * i), c = std::to_string(i + 1);
    ev.push_back(R"({"ph":"X","cat":"cpu_op","name":"aten::mm","pid":)" + pid + R"(,"tid":1,"ts":)" + ts +
                 R"(,"dur":50,"args":{"External id":)" + c + "}}");
    ev.push_back(R"({"ph":"X","cat":"cuda_runtime","name":"cudaLaunchKernel","pid":)" + pid + R"(,"tid":1,"ts":)" + ts +
                 R"(,"dur":5,"args":{"correlation":)" + c + R"(,"External id":)" + c + "}}");
    ev.push_back(R"({"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":)" + std::to_string(100 * i + 10) +
                 R"(,"dur":80,"args":{"correlation":)" + c + R"(,"External id":)" + c + R"(,"device":0,"stream":7}})");
  }
  return ev;
}

TEST(HostileAnnotate, TraceEventsTwiceIsRefusedBeforeAnythingIsWritten) {
  TempDir dir;
  const std::string in = dir.write(
      "t.json", R"({"traceEvents": [{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1}], "traceEvents": []})");
  try {
    annotate(in, dir.path("out.json"));
    ADD_FAILURE() << "annotated";
  } catch (const LoadError& e) {
    EXPECT_NE(std::string(e.what()).find("'traceEvents' appears twice"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(dir.path("out.json")));
}

TEST(HostileAnnotate, TheFindingsTakeAPidThatOnlyMetadataNamesNever) {
  TempDir dir;
  std::vector<std::string> ev = busy_events();
  // Kineto names the processes of idle GPUs too: pid 2 has a process_name and no event.
  ev.push_back(R"({"ph":"M","name":"process_name","pid":2,"tid":0,"args":{"name":"GPU 1"}})");
  const std::string out = dir.path("out.json");
  annotate(dir.write("t.json", trace_json(ev)), out);
  const Annotated a = read_back(out);
  ASSERT_EQ(a.findings_pids.size(), 1u);
  EXPECT_GT(*a.findings_pids.begin(), 2);
}

// Issue 45 item 4: pid 2.0 is process 2 to a viewer, yet the findings took pid 2 beside it.
TEST(HostileAnnotate, APidWrittenWithAFractionOrExponentIsTaken) {
  TempDir dir;
  std::vector<std::string> ev = busy_events();
  for (const std::string pid : {"2.0", "3e0", "4.5"})
    ev.push_back(R"({"ph":"X","cat":"cpu_op","name":"aten::add","pid":)" + pid + R"(,"tid":1,"ts":5,"dur":5})");
  const std::string out = dir.path("out.json");
  annotate(dir.write("t.json", trace_json(ev)), out);
  const Annotated a = read_back(out);
  ASSERT_EQ(a.findings_pids.size(), 1u);
  EXPECT_GT(*a.findings_pids.begin(), 5);  // 4.5 takes 4 and 5
}

TEST(HostileAnnotate, APidOfInt64MaxDoesNotOverflow) {
  TempDir dir;
  const std::string out = dir.path("out.json");
  annotate(dir.write("t.json", trace_json(busy_events("9223372036854775807"))), out);
  const Annotated a = read_back(out);
  ASSERT_EQ(a.findings_pids.size(), 1u);
  const int64_t pid = *a.findings_pids.begin();
  EXPECT_GE(pid, 0);
  EXPECT_NE(pid, 0);          // the GPU's
  EXPECT_NE(pid, INT64_MAX);  // the CPU's
}

TEST(HostileAnnotate, AnnotatingTwiceKeepsFlowIdsApart) {
  TempDir dir;
  const std::string once = dir.path("once.json"), twice = dir.path("twice.json");
  annotate(dir.write("t.json", trace_json(busy_events())), once);
  annotate(once, twice);
  const Annotated a = read_back(twice);
  EXPECT_EQ(a.findings_pids.size(), 2u);
  ASSERT_FALSE(a.flow_ids.empty());
  // Each id once as a start and once as an end: no third use by the second run.
  for (const int64_t id : a.flow_ids) EXPECT_LE(a.flow_ids.count(id), 2u) << id;
}

TEST(HostileAnnotate, AnEscapedTraceEventsKeyIsTheTraceEventsKey) {
  TempDir dir;
  std::string text = trace_json(busy_events());
  text.replace(text.find("\"traceEvents\""), 13, R"("trace\u0045vents")");
  const std::string out = dir.path("out.json");
  annotate(dir.write("t.json", text), out);
  const Annotated a = read_back(out);
  EXPECT_EQ(a.findings_pids.size(), 1u);
  EXPECT_GT(load_trace(out).size(), load_trace(dir.path("t.json")).size());  // the track is in the events
}

}  // namespace
}  // namespace whyslow
