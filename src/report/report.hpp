// Rendering: the same facts and findings as terminal text or as JSON (schema: docs/JSON.md).
#pragma once

#include <string>
#include <vector>

#include "analysis/facts.hpp"
#include "explain/finding.hpp"

namespace whyslow {

struct TextOptions {
  size_t max_rows = 15;  // rows per table; 0 = all
};

// `whyslow explain`: findings first, then the steps, kernels, ops and annotation tables.
std::string render_explain_text(const Trace& trace, const Facts& facts,
                                const std::vector<Finding>& findings, const TextOptions& options);
// `whyslow ops`: the key_averages() table.
std::string render_ops_text(const Facts& facts, const TextOptions& options);
// `whyslow kernels`: the kernel table.
std::string render_kernels_text(const Trace& trace, const Facts& facts, const TextOptions& options);

// `--json`: the documented, stable schema (docs/JSON.md).
std::string render_json(const Trace& trace, const Facts& facts, const std::vector<Finding>& findings);

}  // namespace whyslow
