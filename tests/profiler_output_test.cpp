// The trace file: Kineto's format, written atomically, read back by whyslow's own loader and
// explained like a torch trace.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <regex>
#include <string>
#include <vector>

#include "analysis/facts.hpp"
#include "profiler_test_support.hpp"

namespace whyslow {
namespace {

using testing::read_text;
using testing::ScratchDir;
using Names = std::vector<std::string>;

constexpr int kN = 32;

void matmul(std::vector<float>& c) {
  WHYSLOW_SCOPE("matmul");
  for (int i = 0; i < kN; ++i)
    for (int j = 0; j < kN; ++j)
      for (int k = 0; k < kN; ++k) c[i * kN + j] += 0.5f * static_cast<float>(k);
}

void bias_add(std::vector<float>& c) {
  WHYSLOW_SCOPE("bias_add");
  for (float& x : c) x += 1.0f;
}

// examples/scopes_demo's program: six steps, wait 1, warm-up 1, active 3.
void record_demo(const std::string& path) {
  std::vector<float> c(kN * kN);
  Profiler profiler({.schedule = schedule({.wait = 1, .warmup = 1, .active = 3}),
                     .on_trace_ready = [&](Profiler& p) { p.export_chrome_trace(path); },
                     .gpu = false});
  profiler.start();
  for (int step = 0; step < 6; ++step) {
    matmul(c);
    bias_add(c);
    profiler.step();
  }
  profiler.stop();
}

TEST(ProfilerOutput, RoundTripThroughWhyslowsLoader) {
  ScratchDir dir;
  record_demo(dir.file("demo.json"));
  const Trace t = load_trace(dir.file("demo.json"));
  EXPECT_EQ(testing::names_of(t, EventKind::UserAnnotation),
            (Names{"ProfilerStep#2", "matmul", "bias_add", "ProfilerStep#3", "matmul", "bias_add",
                   "ProfilerStep#4", "matmul", "bias_add"}));
  std::vector<int64_t> ids;
  for (EventId e = 0; e < t.size(); ++e) {
    if (t.kind[e] != EventKind::UserAnnotation) continue;
    ids.push_back(t.external_id[e]);
    const std::string_view name = t.name_of(e);
    if (name == "matmul" || name == "bias_add") {
      ASSERT_NE(t.parent[e], kNoEvent) << name;
      EXPECT_EQ(t.name_of(t.parent[e]).substr(0, 13), "ProfilerStep#");
    }
    EXPECT_EQ(t.tracks[t.track[e]].kind, TrackKind::Cpu);
  }
  std::sort(ids.begin(), ids.end());
  EXPECT_EQ(ids, (std::vector<int64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9}));  // unique, in start order
  EXPECT_EQ(t.tracks[t.track[0]].name.rfind("thread ", 0), 0u);
  EXPECT_GT(t.base_time_ns, 0);
  EXPECT_EQ(t.schema_version, 1);
}

TEST(ProfilerOutput, ExplainSeesTheStepsAndAnnotations) {
  ScratchDir dir;
  record_demo(dir.file("demo.json"));
  const Trace t = load_trace(dir.file("demo.json"));
  const Facts facts = analyze(t);
  ASSERT_EQ(facts.steps.size(), 3u);
  EXPECT_EQ(facts.steps[0].name, "ProfilerStep#2");
  EXPECT_EQ(facts.steps[2].name, "ProfilerStep#4");
  for (const StepFacts& s : facts.steps) {
    EXPECT_GT(s.cpu_ns, 0);
    EXPECT_EQ(s.kernels, 0u);
  }
  std::map<std::string, uint64_t> calls;
  for (const AnnotationRow& a : facts.annotations) calls[a.name] = a.calls;
  EXPECT_EQ(calls["matmul"], 3u);
  EXPECT_EQ(calls["bias_add"], 3u);

  // And the command line, as a user runs it.
  const std::string command = std::string(WHYSLOW_BINARY) + " explain " + dir.file("demo.json");
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, pipe)) output.append(buf, n);
  EXPECT_EQ(pclose(pipe), 0) << output;
  EXPECT_NE(output.find("3 steps"), std::string::npos) << output;
  for (const char* expected : {"ProfilerStep#2", "ProfilerStep#3", "ProfilerStep#4", "matmul", "bias_add"})
    EXPECT_NE(output.find(expected), std::string::npos) << expected << "\n" << output;
}

// What a command prints on stdout, and its exit status.
std::pair<std::string, int> run_command(const std::string& command) {
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return {"", -1};
  std::string output;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, pipe)) output.append(buf, n);
  const int status = pclose(pipe);
  return {output, WIFEXITED(status) ? WEXITSTATUS(status) : -1};
}

// Issue 10 item 8: scope names are bytes, not necessarily UTF-8. The profiler wrote them
// verbatim, so whyslow refused its own trace ("not valid UTF-8", exit 2), and a NUL inside a name
// cut it short silently. Now every byte that is not part of valid UTF-8 becomes U+FFFD, a NUL and
// the other control characters are escaped, and whyslow reads back exactly that.
TEST(ProfilerOutput, NamesThatAreNotUtf8RoundTripThroughWhyslow) {
  const std::string fffd = "\xEF\xBF\xBD";
  const std::vector<std::pair<std::string, std::string>> cases = {  // {recorded, read back}
      {"bad\xFF\xFE utf8", "bad" + fffd + fffd + " utf8"},
      {std::string("nul\0inside", 10), std::string("nul\0inside", 10)},
      {std::string("\0", 1), std::string("\0", 1)},
      {"ctl\x01\x1f\x7f", "ctl\x01\x1f\x7f"},
      {"h\xC3\xA9llo \xE2\x9C\x93 \xF0\x9D\x84\x9E", "h\xC3\xA9llo \xE2\x9C\x93 \xF0\x9D\x84\x9E"},  // é ✓ 𝄞
      {"cut \xE2\x82", "cut " + fffd + fffd},             // a sequence that stops short
      {"overlong \xC0\xAF", "overlong " + fffd + fffd},  // '/' in two bytes
      {"surrogate \xED\xA0\x80", "surrogate " + fffd + fffd + fffd},
      {"too high \xF4\x90\x80\x80", "too high " + fffd + fffd + fffd + fffd},
  };
  ScratchDir dir;
  const std::string path = dir.file("names.json");
  {
    Profiler profiler({.gpu = false});
    profiler.start();
    for (const auto& [recorded, expected] : cases) {
      const Scope scope{std::string_view(recorded)};
    }
    profiler.stop();
    profiler.export_chrome_trace(path);
  }
  Trace t;
  ASSERT_NO_THROW(t = load_trace(path));
  std::vector<std::string> expected;
  for (const auto& c : cases) expected.push_back(c.second);
  EXPECT_EQ(testing::names_of(t, EventKind::UserAnnotation), expected);

  // And `whyslow explain --json`, as a user runs it: it reads the file and lists every name.
  const auto [json, status] = run_command(std::string(WHYSLOW_BINARY) + " explain --json " + path);
  ASSERT_EQ(status, 0) << json;
  for (const char* shown : {"\"bad\xEF\xBF\xBD\xEF\xBF\xBD utf8\"", "\"nul\\u0000inside\"", "\"\\u0000\"",
                            "\"ctl\\u0001\\u001f\x7f\"", "\"surrogate \xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\""})
    EXPECT_NE(json.find(shown), std::string::npos) << shown;
}

TEST(ProfilerOutput, KinetoFormatDetails) {
  ScratchDir dir;
  record_demo(dir.file("demo.json"));
  const std::string text = read_text(dir.file("demo.json"));
  // Top-level keys in Kineto's order.
  const size_t schema = text.find("\"schemaVersion\": 1"), devices = text.find("\"deviceProperties\""),
               base = text.find("\"baseTimeNanoseconds\""), events = text.find("\"traceEvents\""),
               name = text.find("\"traceName\"");
  ASSERT_NE(name, std::string::npos);
  EXPECT_LT(schema, devices);
  EXPECT_LT(devices, base);
  EXPECT_LT(base, events);
  EXPECT_LT(events, name);
  // Times as <µs>.<3 digits>, relative to a base floored to 7,889,238 s.
  const std::regex time_field("\"(ts|dur)\": (-?[0-9.]+)");
  int times = 0;
  for (auto it = std::sregex_iterator(text.begin(), text.end(), time_field); it != std::sregex_iterator(); ++it) {
    EXPECT_TRUE(std::regex_match((*it)[2].str(), std::regex("[0-9]+\\.[0-9]{3}"))) << (*it)[0];
    ++times;
  }
  EXPECT_GT(times, 20);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(text, m, std::regex("\"baseTimeNanoseconds\": ([0-9]+)")));
  EXPECT_EQ(std::stoll(m[1].str()) % (7'889'238LL * 1'000'000'000LL), 0);
  for (const char* expected :
       {"\"cat\": \"user_annotation\"", "\"External id\": 1,", "\"ph\": \"M\"", "\"process_labels\"",
        "\"labels\": \"CPU\"", "\"thread_name\"", "\"cat\": \"Trace\"", "\"Record Window End\""})
    EXPECT_NE(text.find(expected), std::string::npos) << expected;
}

TEST(ProfilerOutput, GzipWhenThePathSaysSo) {
  ScratchDir dir;
  record_demo(dir.file("demo.json.gz"));
  const std::string bytes = read_text(dir.file("demo.json.gz"));
  ASSERT_GE(bytes.size(), 2u);
  EXPECT_EQ(static_cast<unsigned char>(bytes[0]), 0x1f);  // gzip magic
  EXPECT_EQ(static_cast<unsigned char>(bytes[1]), 0x8b);
  EXPECT_EQ(testing::step_names(load_trace(dir.file("demo.json.gz"))),
            (Names{"ProfilerStep#2", "ProfilerStep#3", "ProfilerStep#4"}));
}

TEST(ProfilerOutput, ExportReplacesAnOldFileAndLeavesNoTemporaryFiles) {
  ScratchDir dir;
  std::FILE* old = std::fopen(dir.file("demo.json").c_str(), "w");
  std::fputs("old content", old);
  std::fclose(old);
  record_demo(dir.file("demo.json"));
  EXPECT_EQ(dir.entries(), Names{"demo.json"});
  EXPECT_EQ(testing::step_names(load_trace(dir.file("demo.json"))).size(), 3u);
}

// A process killed while it writes a trace leaves the old file (or none), never a torn one.
TEST(ProfilerOutput, KilledMidWriteLeavesTheOldFileWhole) {
  ScratchDir dir;
  const std::string path = dir.file("big.json");
  record_demo(path);  // the "old" trace, complete
  const std::string old_text = read_text(path);

  int ready[2];
  ASSERT_EQ(pipe(ready), 0);
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    Profiler profiler({.gpu = false});
    profiler.start();
    for (int i = 0; i < 400'000; ++i) {
      WHYSLOW_SCOPE("many_small_scopes");
    }
    profiler.stop();
    const char go = 'g';
    if (write(ready[1], &go, 1) != 1) _exit(2);
    for (;;) profiler.export_chrome_trace(path);  // ~60 MB each time, until killed
  }
  char go = 0;
  ASSERT_EQ(read(ready[0], &go, 1), 1);
  usleep(150'000);  // well inside a write
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  close(ready[0]);
  close(ready[1]);

  // Either the old trace or a complete new one; both load.
  const std::string now = read_text(path);
  if (now == old_text) {
    SUCCEED();
  } else {
    EXPECT_EQ(testing::count_named(load_trace(path), EventKind::UserAnnotation, "many_small_scopes"), 400'000u);
  }
  // Whatever the kill interrupted is a temporary file beside it, never the trace itself.
  for (const std::string& name : dir.entries())
    EXPECT_TRUE(name == "big.json" || name.rfind("big.json.tmp-", 0) == 0) << name;
}

}  // namespace
}  // namespace whyslow
