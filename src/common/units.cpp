#include "common/units.hpp"

#include <fmt/core.h>

#include <cmath>

namespace whyslow {
namespace {

// Three significant digits, trailing zeros kept so a column of numbers lines up by width:
// 2.944 → "2.94", 83.79 → "83.8", 512.4 → "512". For v in [1, 999.5).
std::string three_digits(double v) {
  const int decimals = v < 9.995 ? 2 : v < 99.95 ? 1 : 0;
  return fmt::format("{:.{}f}", v, decimals);
}

// Steps `value` (≥ 1000) through `units`, each `factor` times the previous, to the first unit
// where it shows as less than 1000 at three significant digits (999.6 µs → "1.00 ms").
template <size_t N>
std::string scaled(double value, double factor, const char* const (&units)[N]) {
  for (size_t i = 0; i < N; ++i) {
    value /= factor;
    if (value < 999.5 || i + 1 == N) return three_digits(value) + " " + units[i];
  }
  return {};  // unreachable: the loop returns at its last unit
}

}  // namespace

namespace {

// |v| as unsigned, defined for INT64_MIN too (whose negation overflows int64).
uint64_t magnitude(int64_t v) { return v < 0 ? 0 - static_cast<uint64_t>(v) : static_cast<uint64_t>(v); }

std::string duration_magnitude(uint64_t ns) {
  if (ns < 1000) return fmt::format("{} ns", ns);
  static constexpr const char* kUnits[] = {"µs", "ms", "s"};
  return scaled(static_cast<double>(ns), 1000.0, kUnits);
}

std::string bytes_magnitude(uint64_t bytes) {
  if (bytes < 1024) return fmt::format("{} B", bytes);
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
  return scaled(static_cast<double>(bytes), 1024.0, kUnits);
}

}  // namespace

std::string human_duration(int64_t ns) {
  if (ns == 0) return "0";  // no unit to pick: "+0" reads better than "+0 ns"
  return fmt::format("{}{}", ns < 0 ? "-" : "", duration_magnitude(magnitude(ns)));
}

std::string human_bytes(int64_t bytes) {
  return fmt::format("{}{}", bytes < 0 ? "-" : "", bytes_magnitude(magnitude(bytes)));
}

std::string human_rate(double bytes_per_second) {
  if (bytes_per_second < 1e3) return fmt::format("{:.0f} B/s", bytes_per_second);
  static constexpr const char* kUnits[] = {"kB/s", "MB/s", "GB/s", "TB/s"};
  return scaled(bytes_per_second, 1000.0, kUnits);
}

std::string human_flops(double flops) {
  if (flops < 1e3) return fmt::format("{:.0f} FLOP", flops);
  static constexpr const char* kUnits[] = {"kFLOP", "MFLOP", "GFLOP", "TFLOP", "PFLOP"};
  return scaled(flops, 1000.0, kUnits);
}

std::string human_flop_rate(double per_second) {
  if (per_second < 1e3) return fmt::format("{:.0f} FLOP/s", per_second);
  static constexpr const char* kUnits[] = {"kFLOP/s", "MFLOP/s", "GFLOP/s", "TFLOP/s", "PFLOP/s"};
  return scaled(per_second, 1000.0, kUnits);
}

std::string human_percent(double f) {
  const double p = f * 100;
  if (std::fabs(p) < 10) return fmt::format("{:.1f} %", p);
  return fmt::format("{:.0f} %", p);
}

std::string human_ratio(double x) {
  if (x >= 10) return fmt::format("{:.0f}×", x);
  return fmt::format("{:.1f}×", x);
}

}  // namespace whyslow
