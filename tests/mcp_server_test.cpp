// `whyslow mcp` through its stdio (issue 46 item 8): scripted JSON-RPC lines in, one answer line
// per request out. Each tool on committed fixtures returns the document the CLI's --json prints
// (byte for byte with `full: true`, trimmed to kMaxResultBytes without); tool failures are
// isError results, protocol problems JSON-RPC errors. tests/mcp/client.mjs drives the same
// server with the official TypeScript SDK.
#include <gtest/gtest.h>
#include <simdjson.h>
#include <sys/wait.h>

#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "cli/mcp_trim.hpp"
#include "loader_test_util.hpp"

namespace whyslow {
namespace {

using testing::TempDir;

const std::string kFixtures = WHYSLOW_FIXTURES;
const std::string kCold = kFixtures + "/torch/mm_bias_64_fp32_cold.json.gz";
const std::string kLogits = kFixtures + "/memory/logits.json.gz";  // its explain document is 121 KB
const std::string kDiffA = kFixtures + "/diff/mlp_bf16.json.gz";
const std::string kDiffB = kFixtures + "/diff/mlp_bf16_compiled.json.gz";

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

struct ServerRun {
  int status = -1;
  std::vector<std::string> lines;  // stdout, one message a line
};

// The server given `messages`, one a line, then the end of its input.
ServerRun serve(const std::vector<std::string>& messages) {
  TempDir dir;
  std::string script;
  for (const std::string& m : messages) script += m + "\n";
  const std::string in = dir.write("in.jsonl", script), out = dir.path("out.jsonl");
  const int status = std::system(("'" WHYSLOW_BINARY "' mcp <'" + in + "' >'" + out + "' 2>/dev/null").c_str());
  ServerRun r{WIFEXITED(status) ? WEXITSTATUS(status) : -1, {}};
  std::istringstream lines(read_all(out));
  for (std::string line; std::getline(lines, line);) r.lines.push_back(line);
  return r;
}

std::string cli_stdout(const std::string& args) {
  TempDir dir;
  const std::string out = dir.path("out");
  std::system(("'" WHYSLOW_BINARY "' " + args + " >'" + out + "' 2>/dev/null").c_str());
  return read_all(out);
}

std::string q(const std::string& s) { return "\"" + s + "\""; }

std::string call(int id, const std::string& tool, const std::string& arguments) {
  return "{\"jsonrpc\":\"2.0\",\"id\":" + std::to_string(id) + ",\"method\":\"tools/call\",\"params\":{\"name\":" + q(tool) +
         ",\"arguments\":" + arguments + "}}";
}

// One answer, parsed; the parser keeps what it holds until its next parse.
struct Answer {
  simdjson::dom::parser parser;
  simdjson::dom::element message;
  explicit Answer(const std::string& line) { message = parser.parse(line); }
  simdjson::dom::element result() const { return message["result"]; }
  int64_t error_code() const { return int64_t(message["error"]["code"]); }
  bool is_error() const { return bool(result()["isError"]); }
  // content[i].text of a tools/call result.
  std::string text(size_t i = 0) const {
    return std::string(std::string_view(simdjson::dom::array(result()["content"]).at(i)["text"]));
  }
};

// A tool's one result line, its server's exit status checked.
std::string one_call(const std::string& tool, const std::string& arguments) {
  const ServerRun r = serve({call(1, tool, arguments)});
  EXPECT_EQ(r.status, 0);
  return r.lines.size() == 1 ? r.lines[0] : std::string("{}");
}

TEST(McpServer, InitializeAgreesOnAVersionAndNamesItsTools) {
  const std::string init =
      R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}})";
  const ServerRun r = serve({init, R"({"jsonrpc":"2.0","method":"notifications/initialized"})",
                       R"({"jsonrpc":"2.0","id":2,"method":"tools/list"})", R"({"jsonrpc":"2.0","id":"p","method":"ping"})"});
  EXPECT_EQ(r.status, 0);
  ASSERT_EQ(r.lines.size(), 3u);  // the notification gets no answer
  const Answer hello(r.lines[0]);
  EXPECT_EQ(std::string_view(hello.result()["protocolVersion"]), "2025-06-18");
  EXPECT_EQ(std::string_view(hello.result()["serverInfo"]["name"]), "whyslow");
  EXPECT_FALSE(bool(hello.result()["capabilities"]["tools"]["listChanged"]));

  const Answer list(r.lines[1]);
  std::vector<std::string> names;
  for (simdjson::dom::element t : simdjson::dom::array(list.result()["tools"])) {
    names.emplace_back(std::string_view(t["name"]));
    EXPECT_EQ(std::string_view(t["inputSchema"]["type"]), "object");
    EXPECT_FALSE(std::string_view(t["description"]).empty());
  }
  EXPECT_EQ(names, (std::vector<std::string>{"explain", "diff", "what_if", "ops", "kernels", "memory"}));

  const Answer ping(r.lines[2]);
  EXPECT_EQ(std::string_view(ping.message["id"]), "p");
  EXPECT_EQ(simdjson::dom::object(ping.result()).size(), 0u);
}

TEST(McpServer, AnUnknownProtocolVersionGetsTheNewest) {
  const ServerRun r = serve({R"({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"1999-01-01"}})"});
  ASSERT_EQ(r.lines.size(), 1u);
  EXPECT_EQ(std::string_view(Answer(r.lines[0]).result()["protocolVersion"]), "2025-11-25");
}

TEST(McpServer, FullDocumentsAreTheCliJsonByteForByte) {
  const std::string full = ",\"full\":true}";
  EXPECT_EQ(Answer(one_call("explain", "{\"trace\":" + q(kCold) + full)).text(), cli_stdout("explain --json '" + kCold + "'"));
  EXPECT_EQ(Answer(one_call("explain", "{\"trace\":" + q(kCold) + ",\"step\":2" + full)).text(),
            cli_stdout("explain --json --step 2 '" + kCold + "'"));
  EXPECT_EQ(Answer(one_call("ops", "{\"trace\":" + q(kCold) + full)).text(), cli_stdout("ops --json '" + kCold + "'"));
  EXPECT_EQ(Answer(one_call("kernels", "{\"trace\":" + q(kCold) + full)).text(), cli_stdout("kernels --json '" + kCold + "'"));
  EXPECT_EQ(Answer(one_call("memory", "{\"trace\":" + q(kLogits) + full)).text(), cli_stdout("explain --json '" + kLogits + "'"));
  EXPECT_EQ(Answer(one_call("diff", "{\"a\":" + q(kDiffA) + ",\"b\":" + q(kDiffB) + full)).text(),
            cli_stdout("diff --json '" + kDiffA + "' '" + kDiffB + "'"));
  EXPECT_EQ(Answer(one_call("what_if", "{\"trace\":" + q(kCold) + ",\"edits\":[\"cuda-graphs\"]" + full)).text(),
            cli_stdout("what-if --json '" + kCold + "' --edit cuda-graphs"));
}

TEST(McpServer, EachToolAnswersWithinTheLimit) {
  const std::vector<std::pair<std::string, std::string>> calls = {
      {"explain", "{\"trace\":" + q(kLogits) + "}"},
      {"explain", "{\"trace\":" + q(kFixtures + "/ranks") + "}"},  // a folder of two ranks: explained together
      {"diff", "{\"a\":" + q(kDiffA) + ",\"b\":" + q(kDiffB) + "}"},
      {"what_if", "{\"trace\":" + q(kLogits) + ",\"edits\":[\"cuda-graphs\",\"tensor-cores\"]}"},
      {"ops", "{\"trace\":" + q(kLogits) + "}"},
      {"kernels", "{\"trace\":" + q(kLogits) + ",\"step\":2}"},
      {"memory", "{\"trace\":" + q(kLogits) + "}"}};
  for (const auto& [tool, arguments] : calls) {
    SCOPED_TRACE(tool + " " + arguments);
    const Answer a(one_call(tool, arguments));
    EXPECT_FALSE(a.is_error()) << a.text();
    const std::string document = a.text();
    EXPECT_LE(document.size(), cli::kMaxResultBytes);
    EXPECT_EQ(document.find('\n'), document.size() - 1);  // one line
    simdjson::dom::parser p;
    simdjson::dom::element d;
    EXPECT_FALSE(p.parse(document).get(d));
  }
}

TEST(McpServer, ATrimmedDocumentSaysWhatWasCutAndKeepsTheFindings) {
  const std::string full = cli_stdout("explain --json '" + kLogits + "'");
  ASSERT_GT(full.size(), cli::kMaxResultBytes);
  const Answer a(one_call("explain", "{\"trace\":" + q(kLogits) + "}"));
  EXPECT_NE(a.text(1).find("\"full\": true"), std::string::npos) << a.text(1);
  simdjson::dom::parser p1, p2;
  const simdjson::dom::element trimmed = p1.parse(a.text()), whole = p2.parse(full);
  EXPECT_EQ(uint64_t(trimmed["trimmed"]["full_bytes"]), full.size());
  EXPECT_EQ(uint64_t(trimmed["trimmed"]["limit_bytes"]), cli::kMaxResultBytes);
  const uint64_t rows = trimmed["trimmed"]["rows_per_array"];
  EXPECT_GE(rows, 4u);  // as many as fit, not a fixed cut
  EXPECT_EQ(simdjson::dom::array(trimmed["kernels"]).size(), rows);
  EXPECT_EQ(simdjson::minify(trimmed["kernels"].at(0)), simdjson::minify(whole["kernels"].at(0)));
  EXPECT_EQ(simdjson::minify(trimmed["findings"]), simdjson::minify(whole["findings"]));
  bool kernels_listed = false;
  for (simdjson::dom::element c : simdjson::dom::array(trimmed["trimmed"]["cut_arrays"]))
    if (std::string_view(c["path"]) == "kernels") {
      kernels_listed = true;
      EXPECT_EQ(uint64_t(c["of"]), simdjson::dom::array(whole["kernels"]).size());
    }
  EXPECT_TRUE(kernels_listed);
}

TEST(McpServer, TheTableToolsKeepTheirFieldsAndTheNumbersAsWritten) {
  simdjson::dom::parser p;
  const Answer ops(one_call("ops", "{\"trace\":" + q(kCold) + "}"));
  std::vector<std::string> keys;
  for (const auto [k, v] : simdjson::dom::object(p.parse(ops.text()))) keys.emplace_back(k);
  EXPECT_EQ(keys, (std::vector<std::string>{"whyslow_version", "schema_version", "trace", "ops", "trimmed"}));
  // The rewrite copies each number's text: exactly three decimals stay three (docs/JSON.md).
  const Answer ranks(one_call("explain", "{\"trace\":" + q(kFixtures + "/ranks") + "}"));
  EXPECT_NE(ranks.text().find("\"step_us\": 14455.000"), std::string::npos);
}

TEST(McpServer, ToolFailuresAreToolResultsWithIsError) {
  const Answer missing(one_call("explain", "{\"trace\":\"/nonexistent/trace.json\"}"));
  EXPECT_TRUE(missing.is_error());
  EXPECT_NE(missing.text().find("/nonexistent/trace.json"), std::string::npos) << missing.text();
  const Answer no_step(one_call("ops", "{\"trace\":" + q(kCold) + ",\"step\":99}"));
  EXPECT_TRUE(no_step.is_error());
  EXPECT_NE(no_step.text().find("no ProfilerStep#99"), std::string::npos) << no_step.text();
  const Answer bad_edit(one_call("what_if", "{\"trace\":" + q(kCold) + ",\"edits\":[\"warp-drive\"]}"));
  EXPECT_TRUE(bad_edit.is_error());
  EXPECT_NE(bad_edit.text().find("unknown edit"), std::string::npos) << bad_edit.text();
  const Answer no_trace(one_call("kernels", "{}"));
  EXPECT_TRUE(no_trace.is_error());
  EXPECT_NE(no_trace.text().find("missing argument 'trace'"), std::string::npos);
  const Answer typo(one_call("diff", "{\"a\":" + q(kDiffA) + ",\"bb\":" + q(kDiffB) + "}"));
  EXPECT_TRUE(typo.is_error());
  EXPECT_NE(typo.text().find("unknown argument 'bb'"), std::string::npos);
  const Answer negative(one_call("explain", "{\"trace\":" + q(kCold) + ",\"step\":-1}"));
  EXPECT_TRUE(negative.is_error());
}

TEST(McpServer, ProtocolProblemsAreJsonRpcErrorsAndTheServerGoesOn) {
  const ServerRun r = serve({"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":", R"({"jsonrpc":"2.0","id":2,"method":"resources/list"})",
                       call(3, "profile", "{}"), R"({"jsonrpc":"2.0","id":4,"method":"tools/call","params":{}})",
                       R"([{"jsonrpc":"2.0","id":5,"method":"ping"}])", R"({"jsonrpc":"2.0","method":"no/such/notification"})",
                       R"({"jsonrpc":"2.0","id":6,"result":{}})", R"({"jsonrpc":"2.0","id":7,"method":"ping"})"});
  EXPECT_EQ(r.status, 0);
  ASSERT_EQ(r.lines.size(), 6u);  // the notification and the response get none
  const Answer parse(r.lines[0]);
  EXPECT_EQ(parse.error_code(), -32700);
  EXPECT_TRUE(parse.message["id"].is_null());
  const Answer method(r.lines[1]);
  EXPECT_EQ(method.error_code(), -32601);
  EXPECT_EQ(int64_t(method.message["id"]), 2);
  EXPECT_EQ(Answer(r.lines[2]).error_code(), -32602);  // no tool of that name
  EXPECT_EQ(Answer(r.lines[3]).error_code(), -32602);  // no name
  EXPECT_EQ(Answer(r.lines[4]).error_code(), -32600);  // a batch
  EXPECT_EQ(int64_t(Answer(r.lines[5]).message["id"]), 7);
}

}  // namespace
}  // namespace whyslow
