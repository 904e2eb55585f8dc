// The MCP server's tools (mcp_server.cpp answers the protocol): explain, diff, what_if, ops, kernels
// and memory, each running the code its CLI subcommand runs and returning its `--json` document,
// trimmed to kMaxResultBytes (mcp_trim.hpp) unless the call says `full: true`.
#pragma once

#include <simdjson.h>

#include <span>
#include <string>
#include <utility>
#include <string_view>
#include <vector>

#include "report/json/json_writer.hpp"

namespace whyslow::cli {

struct McpTool;  // mcp_tools.cpp

// A tools/call's "arguments": each name and its value, as the request holds them.
using McpArguments = std::span<const std::pair<std::string_view, simdjson::dom::element>>;

// tools/list's result: {"tools": [{name, title, description, inputSchema}, …]}.
void write_tool_list(report::JsonWriter& w);

// The tool of that name; nullptr for none (a protocol error, -32602, for the caller).
const McpTool* find_tool(std::string_view name);

// A tools/call's result: content[0] the document (or the error), then notes (what was trimmed,
// what the loader had to tolerate). A tool that fails (arguments its schema refuses, a trace that
// cannot be read, a step the trace does not have) is a result with is_error, so the agent reads why.
struct ToolResult {
  std::vector<std::string> texts;
  bool is_error = false;
};
ToolResult call_tool(const McpTool& tool, McpArguments arguments);

}  // namespace whyslow::cli
