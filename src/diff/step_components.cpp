// Which part of the step changed: the same per-step quantities on both sides, from one table,
// and the step's top-level blocks by name (what the user's loop calls: the DataLoader's
// `enumerate(DataLoader)#…`, the model's forward, `Optimizer.step#…`), so the diff can say
// "DataLoader: 69.8 ms → 1.25 ms per step" rather than only "the CPU time fell".
#include <algorithm>
#include <map>

#include "analysis/steps/steady_steps.hpp"
#include "diff/diff.hpp"

namespace whyslow {
namespace {

// One per-step quantity of StepFacts. A new per-step measure (a CPU category) is one row here.
struct ComponentRow {
  const char* key;
  const char* label;
  Quantity unit;
  int64_t (*of)(const StepFacts&);
};

const ComponentRow kComponentRows[] = {
    {"step_us", "step", Quantity::Time, [](const StepFacts& s) { return s.duration_ns; }},
    {"cpu_us", "CPU (not blocked)", Quantity::Time, [](const StepFacts& s) { return s.cpu_ns; }},
    {"sync_wait_us", "blocked on the GPU", Quantity::Time, [](const StepFacts& s) { return s.sync_wait_ns; }},
    {"gpu_busy_us", "GPU busy", Quantity::Time, [](const StepFacts& s) { return s.gpu_busy_ns; }},
    {"gpu_idle_us", "GPU idle", Quantity::Time,
     [](const StepFacts& s) { return std::max<int64_t>(0, s.duration_ns - s.gpu_busy_ns); }},
    {"kernels", "kernels", Quantity::Count, [](const StepFacts& s) { return static_cast<int64_t>(s.kernels); }},
    {"launches", "launches", Quantity::Count, [](const StepFacts& s) { return static_cast<int64_t>(s.launches); }},
    {"memcpys", "memcpys", Quantity::Count, [](const StepFacts& s) { return static_cast<int64_t>(s.memcpys); }},
    {"memsets", "memsets", Quantity::Count, [](const StepFacts& s) { return static_cast<int64_t>(s.memsets); }},
};

std::vector<StepFacts> steady_in_time_order(const Facts& f, const StepProfile& p) {
  std::vector<StepFacts> out;
  for (const StepFacts* s : compared_steps(f, p)) out.push_back(*s);
  std::sort(out.begin(), out.end(), [](const StepFacts& x, const StepFacts& y) { return x.start_ns < y.start_ns; });
  return out;
}

// Time per step of each top-level block: the CPU events directly inside the step annotation
// (for a trace without steps, the events at the top of a CPU thread), summed by block_key. A
// step without the block counts 0.
std::map<std::string, std::vector<int64_t>> block_time(const Trace& t, const Facts& f, const StepProfile& p) {
  const std::vector<StepFacts> steps = steady_in_time_order(f, p);
  std::map<std::string, std::vector<int64_t>> out;
  for (EventId e = 0; e < t.size(); ++e) {
    if (t.tracks[t.track[e]].kind != TrackKind::Cpu || t.dur_ns[e] <= 0) continue;
    const int s = step_containing(steps, t.start_ns[e]);
    if (s < 0 || e == steps[s].event || t.parent[e] != steps[s].event) continue;
    auto& per_step = out[block_key(t.name_of(e))];
    per_step.resize(steps.size());
    per_step[s] += t.dur_ns[e];
  }
  return out;
}

}  // namespace

// torch names an iterator's block `enumerate(DataLoader)#<iterator class>.__next__` and an
// optimizer's `Optimizer.step#<class>.step`: the part after '#' is which implementation, so A's
// single-process loader and B's multi-process one are one block. Names that start with '#'
// ("## forward ##") are kept whole.
std::string block_key(std::string_view name) {
  const size_t hash = name.find('#');
  return std::string(hash == 0 || hash == std::string_view::npos ? name : name.substr(0, hash));
}

void compare_components(const Trace& a, const Facts& fa, const Trace& b, const Facts& fb, Diff& d) {
  const std::vector<StepFacts> sa = steady_in_time_order(fa, d.a), sb = steady_in_time_order(fb, d.b);
  for (const ComponentRow& row : kComponentRows) {
    std::vector<int64_t> va, vb;
    for (const StepFacts& s : sa) va.push_back(row.of(s));
    for (const StepFacts& s : sb) vb.push_back(row.of(s));
    d.components.push_back({row.key, row.label, row.unit, spread_of(va), spread_of(vb)});
  }
  // The step thread's CPU time by category (steps[].cpu_breakdown_us): which kind of CPU work changed.
  for (size_t c = 0; c < kCpuCategories; ++c) {
    std::vector<int64_t> va, vb;
    for (const StepFacts& s : sa) va.push_back(s.cpu_breakdown[c]);
    for (const StepFacts& s : sb) vb.push_back(s.cpu_breakdown[c]);
    if (std::all_of(va.begin(), va.end(), [](int64_t x) { return x == 0; }) &&
        std::all_of(vb.begin(), vb.end(), [](int64_t x) { return x == 0; }))
      continue;
    const std::string name(to_string(static_cast<CpuCategory>(c)));
    std::string label = "  CPU: " + name;
    std::replace(label.begin(), label.end(), '_', ' ');
    d.components.push_back({"cpu_" + name + "_us", label, Quantity::Time, spread_of(va), spread_of(vb)});
  }
  // GPU busy split into compute and communication (steps[].compute_us …), when either side communicates.
  const ComponentRow comm_rows[] = {
      {"compute_us", "  GPU: compute", Quantity::Time, [](const StepFacts& s) { return s.compute_ns; }},
      {"comm_us", "  GPU: communication", Quantity::Time, [](const StepFacts& s) { return s.comm_ns; }},
      {"exposed_comm_us", "  GPU: exposed comm", Quantity::Time, [](const StepFacts& s) { return s.exposed_comm_ns; }},
  };
  auto communicates = [](const std::vector<StepFacts>& v) {
    return std::any_of(v.begin(), v.end(), [](const StepFacts& s) { return s.comm_ns > 0; });
  };
  if (communicates(sa) || communicates(sb))
    for (const ComponentRow& row : comm_rows) {
      std::vector<int64_t> va, vb;
      for (const StepFacts& s : sa) va.push_back(row.of(s));
      for (const StepFacts& s : sb) vb.push_back(row.of(s));
      d.components.push_back({row.key, row.label, row.unit, spread_of(va), spread_of(vb)});
    }
  const auto ba = block_time(a, fa, d.a), bb = block_time(b, fb, d.b);
  std::map<std::string, Component> blocks;
  for (const auto& [key, v] : ba) blocks[key] = {key, key, Quantity::Time, spread_of(v), {}};
  for (const auto& [key, v] : bb) {
    Component& c = blocks.try_emplace(key, Component{key, key, Quantity::Time, {}, {}}).first->second;
    c.b = spread_of(v);
  }
  for (auto& [key, c] : blocks) d.blocks.push_back(std::move(c));
  std::stable_sort(d.blocks.begin(), d.blocks.end(),
                   [](const Component& x, const Component& y) { return std::llabs(x.delta()) > std::llabs(y.delta()); });
}

Spread spread_of(std::vector<int64_t> v) {
  if (v.empty()) return {};
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v.front(), v.back()};
}

}  // namespace whyslow
