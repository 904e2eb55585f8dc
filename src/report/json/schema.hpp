// Versions written into every JSON report (docs/JSON.md). The schema version changes only when
// a field is renamed or removed; adding fields keeps it.
#pragma once

#include <string_view>

namespace whyslow {

inline constexpr std::string_view kWhyslowVersion = "0.1.0";  // keep equal to project() in CMakeLists.txt
inline constexpr int kJsonSchemaVersion = 1;

}  // namespace whyslow
