// Small helpers that keep the rules readable: evidence in the units the JSON promises.
#pragma once

#include "explain/finding.hpp"

namespace whyslow {

inline Evidence us(std::string key, int64_t ns) { return {std::move(key), ns / 1e3, "us"}; }
inline Evidence count(std::string key, uint64_t n) { return {std::move(key), static_cast<double>(n), "count"}; }
inline Evidence percent(std::string key, double fraction) { return {std::move(key), fraction * 100, "%"}; }
inline Evidence ratio(std::string key, double x) { return {std::move(key), x, "x"}; }

}  // namespace whyslow
