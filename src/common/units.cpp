#include "common/units.hpp"

#include <fmt/core.h>

#include <cmath>

namespace whyslow {
namespace {

// Three significant digits: 2.94, 29.4, 294.
std::string three_digits(double v) {
  const double a = std::fabs(v);
  if (a >= 100) return fmt::format("{:.0f}", v);
  if (a >= 10) return fmt::format("{:.1f}", v);
  return fmt::format("{:.2f}", v);
}

}  // namespace

std::string human_duration(int64_t ns) {
  const double a = std::fabs(static_cast<double>(ns));
  if (a < 1e3) return fmt::format("{} ns", ns);
  if (a < 1e6) return three_digits(ns / 1e3) + " µs";
  if (a < 1e9) return three_digits(ns / 1e6) + " ms";
  return three_digits(ns / 1e9) + " s";
}

std::string human_bytes(int64_t b) {
  const double a = std::fabs(static_cast<double>(b));
  if (a < 1e3) return fmt::format("{} B", b);
  if (a < 1e6) return three_digits(b / 1e3) + " kB";
  if (a < 1e9) return three_digits(b / 1e6) + " MB";
  return three_digits(b / 1e9) + " GB";
}

std::string human_rate(double bps) {
  if (bps < 1e9) return three_digits(bps / 1e6) + " MB/s";
  return three_digits(bps / 1e9) + " GB/s";
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
