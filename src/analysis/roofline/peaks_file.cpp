// `--peaks FILE`: ceilings measured on the machine (tools/measure_ceilings.py writes them), in
// the format docs/JSON.md describes under "Peaks files". Unknown keys are ignored, so the
// measuring script may keep its raw timings in the same file.
#include <fmt/core.h>
#include <simdjson.h>

#include <algorithm>
#include <stdexcept>

#include "analysis/roofline/gpu_peaks.hpp"

namespace whyslow {
namespace {

constexpr std::pair<std::string_view, Precision> kPrecisionKeys[] = {
    {"fp64", Precision::FP64}, {"fp32", Precision::FP32}, {"tf32", Precision::TF32}, {"fp16", Precision::FP16},
    {"bf16", Precision::BF16}, {"fp8", Precision::FP8},   {"int8", Precision::INT8},
};

// What a measured ceiling can be, so that a typo or a hostile file cannot print "inf %" (5e-324)
// or a 300-digit rate (1e308), nor overflow the int conversions. Rates: from 1e6 (a MFLOP/s, a
// MB/s) to 1e18 (an EFLOP/s, ~500× the fastest GPU's dense peak today). L2: 1 KiB to 1 TiB.
// SMs: 1 to a million (an H200 has 132).
constexpr double kMinRate = 1e6, kMaxRate = 1e18;
constexpr double kMinL2Bytes = 1024, kMaxL2Bytes = 1099511627776.0;
constexpr double kMinSms = 1, kMaxSms = 1e6;

}  // namespace

Ceilings load_ceilings_file(const std::string& path) {
  const auto fail = [&](const std::string& what) {
    return std::runtime_error(fmt::format("peaks file {}: {}", path, what));
  };
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (auto err = parser.load(path).get(doc)) throw fail(simdjson::error_message(err));
  simdjson::dom::object obj;
  if (doc.get_object().get(obj)) throw fail("expected a JSON object");
  Ceilings c;
  const auto number = [&](simdjson::dom::element e, std::string_view key, double lo, double hi) {
    double v = 0;
    if (e.get_double().get(v) || !(v >= lo && v <= hi))
      throw fail(fmt::format("'{}' must be a positive number, from {:g} to {:g}", key, lo, hi));
    return v;
  };
  for (auto [key, value] : obj) {
    std::string_view s;
    if (key == "name" && !value.get_string().get(s)) c.name = std::string(s);
    else if (key == "memory_bytes_per_s") c.bytes_per_s = number(value, key, kMinRate, kMaxRate);
    else if (key == "l2_bytes" && !value.is_null()) c.l2_bytes = static_cast<int64_t>(number(value, key, kMinL2Bytes, kMaxL2Bytes));
    else if (key == "sm_count") c.sm_count = static_cast<int32_t>(number(value, key, kMinSms, kMaxSms));
    else if (key == "peak_flop_per_s") {
      simdjson::dom::object rates;
      if (value.get_object().get(rates)) throw fail("'peak_flop_per_s' must be an object such as {\"bf16\": 7.9e14}");
      for (auto [p, rate] : rates) {
        bool known = false;
        for (const auto& [k, precision] : kPrecisionKeys)
          if (p == k) {
            c.flop_per_s[static_cast<size_t>(precision)] = number(rate, p, kMinRate, kMaxRate);
            known = true;
          }
        if (!known) throw fail(fmt::format("unknown precision '{}' in 'peak_flop_per_s' (fp64, fp32, tf32, fp16, bf16, fp8, int8)", p));
      }
    }
  }
  if (c.bytes_per_s <= 0 && std::all_of(c.flop_per_s.begin(), c.flop_per_s.end(), [](double v) { return v <= 0; }))
    throw fail("it holds neither 'memory_bytes_per_s' nor 'peak_flop_per_s'");
  std::string when;
  for (std::string_view key : {"date", "driver"}) {
    std::string_view v;
    if (!obj[key].get_string().get(v)) when += fmt::format("{}{} {}", when.empty() ? "" : ", ", key, v);
  }
  c.source = when.empty() ? path : fmt::format("{} ({})", path, when);
  return c;
}

}  // namespace whyslow
