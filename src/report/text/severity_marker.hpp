// How a finding's severity shows in text: a marker in front of its title, and the one-line legend
// that says what the markers mean.
#pragma once

#include <string_view>

#include "explain/finding.hpp"

namespace whyslow {

// "[!!]", "[!] ", "[i] ": four columns each, so the titles after them line up.
std::string_view severity_marker(Severity s);

// A finding's detail, advice and evidence, under its title: past the marker and its space.
inline constexpr std::string_view kFindingIndent = "     ";

// The markers' meaning, said once above the findings.
inline constexpr std::string_view kSeverityLegend = "[!!] critical, [!] warning, [i] information";

}  // namespace whyslow
