// Rendering of `whyslow diff A B`: terminal text and JSON (schema: docs/JSON.md, "whyslow diff").
#pragma once

#include <string>

#include "diff/diff.hpp"
#include "report/report.hpp"

namespace whyslow {

std::string render_diff_text(const Diff& diff, const TextOptions& options);
std::string render_diff_json(const Diff& diff);

}  // namespace whyslow
