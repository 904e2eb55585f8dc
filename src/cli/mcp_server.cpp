#include "cli/mcp_server.hpp"

#include <fmt/core.h>
#include <simdjson.h>

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "cli/mcp_tools.hpp"
#include "cli/mcp_trim.hpp"
#include "report/json/json_writer.hpp"
#include "report/json/schema.hpp"

namespace whyslow::cli {
namespace {

using report::JsonWriter;
using Layout = JsonWriter::Layout;
using simdjson::dom::element;

// The MCP revisions this server speaks, newest first. Its messages are the same in all of them
// (tools with text content, no batches sent); a client asking for another gets the newest, as
// the specification's version negotiation says, and decides whether it can go on.
constexpr std::string_view kProtocolVersions[] = {"2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"};

// JSON-RPC 2.0's codes for what is wrong with a message itself.
constexpr int kParseError = -32700;
constexpr int kInvalidRequest = -32600;
constexpr int kMethodNotFound = -32601;
constexpr int kInvalidParams = -32602;

// A protocol error to answer with, instead of a result.
struct RpcError {
  int code;
  std::string message;
};

std::string error_response(std::string_view id_json, const RpcError& e) {
  JsonWriter w;
  w.begin_object(Layout::Inline).key("jsonrpc").string("2.0").key("id").raw(id_json);
  w.key("error").begin_object().key("code").integer(e.code).key("message").string(e.message).end_object();
  w.end_object();
  return w.take();
}

void write_initialize(JsonWriter& w, std::optional<std::string_view> asked) {
  const bool known = asked && std::find(std::begin(kProtocolVersions), std::end(kProtocolVersions), *asked) !=
                                  std::end(kProtocolVersions);
  w.key("protocolVersion").string(known ? *asked : kProtocolVersions[0]);
  w.key("capabilities").begin_object().key("tools").begin_object().key("listChanged").boolean(false).end_object().end_object();
  w.key("serverInfo").begin_object().key("name").string("whyslow").key("version").string(kWhyslowVersion).end_object();
  w.key("instructions")
      .string(fmt::format(
          "whyslow reads PyTorch profiler (Kineto) traces and says, with numbers from the trace, why the program is "
          "slow. Start with `explain` on a trace file (.json or .json.gz) or the folder tensorboard_trace_handler "
          "wrote; `diff` compares two runs, `what_if` predicts what a fix gives, `ops`, `kernels` and `memory` give "
          "one table each. Each returns the JSON document of the CLI's --json (schema: docs/JSON.md of whyslow), "
          "trimmed to {} bytes unless called with full: true.",
          kMaxResultBytes));
}

void write_tool_result(JsonWriter& w, const ToolResult& r) {
  w.key("content").begin_array();
  for (const std::string& text : r.texts) w.begin_object().key("type").string("text").key("text").string(text).end_object();
  w.end_array();
  w.key("isError").boolean(r.is_error);
}

std::optional<RpcError> write_tool_call(JsonWriter& w, std::optional<element> params) {
  simdjson::dom::object p;
  std::string_view name;
  if (!params || params->get_object().get(p) || p["name"].get_string().get(name))
    return RpcError{kInvalidParams, "tools/call needs params {\"name\": TOOL, \"arguments\": {…}}"};
  const McpTool* tool = find_tool(name);
  if (!tool) return RpcError{kInvalidParams, fmt::format("unknown tool '{}': tools/list names them", name)};
  std::vector<std::pair<std::string_view, element>> arguments;
  element a;
  if (!p["arguments"].get(a)) {
    simdjson::dom::object obj;
    if (a.get_object().get(obj)) return RpcError{kInvalidParams, "tools/call's arguments must be an object"};
    for (const auto [key, value] : obj) arguments.emplace_back(key, value);
  }
  write_tool_result(w, call_tool(*tool, arguments));
  return std::nullopt;
}

// The answer to a request (it has an id): a result or a protocol error.
std::string answer_request(std::string_view id_json, std::string_view method, std::optional<element> params) {
  JsonWriter w;
  w.begin_object(Layout::Inline).key("jsonrpc").string("2.0").key("id").raw(id_json).key("result").begin_object();
  if (method == "initialize") {
    std::string_view asked;
    const bool has_version = params && !(*params)["protocolVersion"].get_string().get(asked);
    write_initialize(w, has_version ? std::optional(asked) : std::nullopt);
  } else if (method == "tools/list") {
    write_tool_list(w);
  } else if (method == "tools/call") {
    if (std::optional<RpcError> e = write_tool_call(w, params)) return error_response(id_json, *e);
  } else if (method != "ping") {  // ping's result is the empty object
    return error_response(id_json, {kMethodNotFound, fmt::format("method '{}' not found", method)});
  }
  w.end_object().end_object();
  return w.take();
}

// The answer to one line; nothing for a notification (a message without an id), or for a response
// (the server sends no requests, so none is awaited).
std::optional<std::string> answer_line(simdjson::dom::parser& parser, const std::string& line) {
  element message;
  if (parser.parse(line).get(message)) return error_response("null", {kParseError, "parse error: not valid JSON"});
  simdjson::dom::object m;
  if (message.get_object().get(m))
    return error_response("null", {kInvalidRequest, "a message must be one JSON-RPC object (batches are not supported)"});
  element id, method_element, params;
  const bool has_id = !m["id"].get(id);
  std::string_view method;
  if (m["method"].get(method_element)) {
    if (has_id && (!m["result"].error() || !m["error"].error())) return std::nullopt;
    return has_id ? std::optional(error_response("null", {kInvalidRequest, "no method"})) : std::nullopt;
  }
  if (!has_id) return std::nullopt;  // a notification: initialized, cancelled, … need no answer
  if (!id.is_string() && !id.is_int64() && !id.is_uint64())
    return error_response("null", {kInvalidRequest, "the id must be a string or an integer"});
  const std::string id_json = simdjson::minify(id);
  std::string_view version;
  if (m["jsonrpc"].get_string().get(version) || version != "2.0" || method_element.get_string().get(method))
    return error_response(id_json, {kInvalidRequest, "not a JSON-RPC 2.0 request (\"jsonrpc\": \"2.0\", a method name)"});
  const bool has_params = !m["params"].get(params);
  return answer_request(id_json, method, has_params ? std::optional(params) : std::nullopt);
}

}  // namespace

int serve_mcp(std::istream& in, std::ostream& out) {
  simdjson::dom::parser parser;
  for (std::string line; std::getline(in, line);) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;  // a blank line carries no message
    if (const std::optional<std::string> answer = answer_line(parser, line)) {
      out << *answer << std::flush;  // the writer ends the document with its newline: the message's delimiter
      if (!out) return 1;
    }
  }
  return 0;
}

}  // namespace whyslow::cli
