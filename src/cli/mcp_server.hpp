// `whyslow mcp`: a Model Context Protocol server for coding agents, on the stdio transport: one
// JSON-RPC 2.0 message per line on `in`, one answer per request line on `out`. It answers
// initialize, ping, tools/list and tools/call (the tools: mcp_tools.hpp); notifications get no
// answer. It reads only the trace files the tools are given and opens no socket.
#pragma once

#include <istream>
#include <ostream>

namespace whyslow::cli {

// Serves until `in` ends: 0, or 1 when `out` can no longer be written.
int serve_mcp(std::istream& in, std::ostream& out);

}  // namespace whyslow::cli
