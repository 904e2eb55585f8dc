// The op table against torch's own key_averages(), saved next to each fixture when the trace was
// recorded on the H200 (tools/record_fixtures.py). Calls must match exactly; times within 1 % or
// 1 µs, the tolerance torch's own float µs rounding needs.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <cmath>
#include <filesystem>
#include <map>

#include "analysis/passes.hpp"
#include "test_support.hpp"

namespace whyslow {
namespace {

struct OracleRow {
  uint64_t count = 0;
  double self_cpu = 0, cpu_total = 0, device_total = 0, self_device = 0;
};
using Key = std::pair<std::string, bool>;  // name, device row

std::map<Key, OracleRow> read_oracle(const std::string& path) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc = parser.load(path);
  std::map<Key, OracleRow> rows;
  for (simdjson::dom::element r : doc["key_averages"].get_array()) {
    const std::string key{std::string_view(r["key"])};
    const bool device = std::string_view(r["device_type"]).find("CPU") == std::string_view::npos;
    OracleRow& o = rows[{key, device}];
    o.count = uint64_t(r["count"].get_int64());
    o.self_cpu = double(r["self_cpu_time_total"]);
    o.cpu_total = double(r["cpu_time_total"]);
    o.device_total = double(r["device_time_total"]);
    o.self_device = double(r["self_device_time_total"]);
  }
  return rows;
}

void expect_close(double oracle_us, int64_t ours_ns, const std::string& what) {
  const double ours_us = ours_ns / 1e3;
  EXPECT_LE(std::fabs(oracle_us - ours_us), std::max(1.0, 0.01 * std::fabs(oracle_us)))
      << what << ": torch " << oracle_us << " µs, whyslow " << ours_us << " µs";
}

// Profiler start-up events to which torch also credits kernel time (see src/analysis/ops/ops.cpp).
bool torch_credits_overhead(const std::map<Key, OracleRow>& oracle) {
  for (const char* name : {"Runtime Triggered Module Loading", "Lazy Function Loading", "Activity Buffer Request"}) {
    auto it = oracle.find({name, false});
    if (it != oracle.end() && it->second.device_total > 0) return true;
  }
  return false;
}

class OpsOracle : public ::testing::TestWithParam<std::string> {};

TEST_P(OpsOracle, MatchesKeyAverages) {
  const std::string name = GetParam();  // "torch/mm_bias_64_fp32", "diff/mlp_bf16", …
  const std::string base = std::string(WHYSLOW_FIXTURES) + "/" + name;
  const auto oracle = read_oracle(base + ".oracle.json");
  const Trace trace = load_trace(base + ".json.gz");
  // Parity holds where the links are sane; a repaired link is whyslow's deliberate difference.
  EXPECT_EQ(trace.repaired_op_links, 0u);
  const std::vector<OpRow> ours = op_table(trace);
  const bool skip_cpu_device = torch_credits_overhead(oracle);

  std::map<Key, const OpRow*> by_key;
  for (const OpRow& r : ours) by_key[{r.name, r.device_row}] = &r;
  EXPECT_EQ(by_key.size(), oracle.size()) << "row count";
  for (const auto& [key, o] : oracle) {
    const std::string what = name + ": " + key.first + (key.second ? " (device)" : "");
    auto it = by_key.find(key);
    ASSERT_NE(it, by_key.end()) << what << " missing";
    const OpRow& r = *it->second;
    EXPECT_EQ(r.calls, o.count) << what;
    expect_close(o.self_cpu, r.self_cpu_ns, what + " self CPU");
    expect_close(o.cpu_total, r.cpu_total_ns, what + " CPU total");
    if (key.second || !skip_cpu_device) {
      expect_close(o.self_device, r.self_device_ns, what + " self device");
      expect_close(o.device_total, r.device_total_ns, what + " device total");
    }
  }
}

std::vector<std::string> fixtures_with_oracle() {
  std::vector<std::string> names;
  for (const char* dir : {"torch", "diff", "legacy"}) {
    for (const auto& entry : std::filesystem::directory_iterator(std::string(WHYSLOW_FIXTURES) + "/" + dir)) {
      const std::string f = entry.path().filename().string();
      const std::string suffix = ".oracle.json";
      if (f.size() > suffix.size() && f.substr(f.size() - suffix.size()) == suffix)
        names.push_back(std::string(dir) + "/" + f.substr(0, f.size() - suffix.size()));
    }
  }
  std::sort(names.begin(), names.end());
  return names;
}

INSTANTIATE_TEST_SUITE_P(TorchFixtures, OpsOracle, ::testing::ValuesIn(fixtures_with_oracle()),
                         [](const auto& info) {
                           std::string n = info.param;
                           std::replace(n.begin(), n.end(), '/', '_');
                           return n;
                         });

}  // namespace
}  // namespace whyslow
