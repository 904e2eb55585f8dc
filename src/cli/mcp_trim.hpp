// The MCP server's tool results (mcp_tools.cpp): a `--json` document cut to a size an agent can
// hold in its context, saying what was cut and how to get all of it.
#pragma once

#include <cstddef>
#include <span>
#include <string>
#include <string_view>

namespace whyslow::cli {

// The most bytes of JSON a tool result holds unless the call asks for `full`. Claude Code, the
// agent most users register MCP servers with, keeps a result in the conversation only under
// 50,000 characters (a larger one goes to a file the model must read back) and refuses one over
// 25,000 tokens; whyslow's JSON, mostly numbers and short names, runs 2.5–3 characters a token.
// 40,000 bytes (about 15,000 tokens) stays under both, with room for the note on what was cut.
inline constexpr size_t kMaxResultBytes = 40'000;

struct TrimmedDocument {
  std::string json;  // one line
  // What was left out, in a sentence that says how to get it; "" when the document is whole.
  std::string what_was_cut;
};

// `document` (a JSON object, as a `--json` renderer wrote it) on one line and at most `max_bytes`:
// only the top-level fields named in `keep` (all of them when empty), then, when it is still too
// large, every array cut to its first N elements, N as large as fits (the arrays are ordered most
// important first: the largest kernels and ops, the steps in time order); the findings are cut
// only when nothing else fits. When anything was left out, a last field "trimmed" says what and
// how to get the whole document (the tool's `full: true`).
TrimmedDocument trim_document(std::string_view document, std::span<const std::string_view> keep, size_t max_bytes);

}  // namespace whyslow::cli
