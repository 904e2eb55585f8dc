// One trace's steady-state step, measured per step so that medians and ranges show the noise:
// times, work and launches (by launch API), copies, torch.compile's own cost, CUDA graph replay.
#include <fmt/core.h>

#include <algorithm>
#include <set>

#include "analysis/core/event_names.hpp"
#include "analysis/core/median.hpp"
#include "analysis/core/nearest_ancestor.hpp"
#include "analysis/steps/steady_steps.hpp"
#include "common/units.hpp"
#include "diff/diff.hpp"

namespace whyslow {
namespace {

int64_t mad_of(const std::vector<int64_t>& v) {
  if (v.empty()) return 0;
  const int64_t m = spread_of(v).median;
  std::vector<int64_t> dev;
  for (int64_t x : v) dev.push_back(x > m ? x - m : m - x);
  return spread_of(dev).median;
}

// Per-step counters, one slot per steady step.
struct PerStep {
  explicit PerStep(size_t n) : kernels(n), launches(n), memcpys(n), memcpy_bytes(n), memsets(n), memset_bytes(n),
                               regions(n), region_ns(n), lookups(n), lookup_ns(n), prologue_ns(n), graph_calls(n),
                               graph_call_ns(n), graph_in_region_ns(n), nested(n), graph_launches(n), graph_kernels(n) {}
  std::vector<int64_t> kernels, launches, memcpys, memcpy_bytes, memsets, memset_bytes;
  std::map<std::string, std::vector<int64_t>> by_api;
  std::vector<int64_t> regions, region_ns, lookups, lookup_ns, prologue_ns, graph_calls, graph_call_ns,
      graph_in_region_ns, nested, graph_launches, graph_kernels;
};

double mean(const std::vector<int64_t>& v) {
  if (v.empty()) return 0;
  double s = 0;
  for (int64_t x : v) s += static_cast<double>(x);
  return s / static_cast<double>(v.size());
}
int64_t mean_ns(const std::vector<int64_t>& v) { return static_cast<int64_t>(mean(v)); }

// A steady step whose one-off costs (a recompilation, a plan built for a new shape) take this
// share of it is not warm: over twice the 2 % a whole program drifts between runs, so the one-off
// work visibly moved the step.
constexpr double kOneOffStepShare = 0.05;
// Steps carrying one-off costs leave the comparison only when this many warm steps remain: one
// step has no spread to judge by.
constexpr size_t kMinWarmSteps = 2;

int64_t one_off_in(const Facts& f, const StepProfile& p, const StepFacts* s) {
  if (p.whole_window || f.steps.empty()) return 0;
  const size_t i = static_cast<size_t>(s - f.steps.data());
  return i < p.one_off.per_step_ns.size() ? p.one_off.per_step_ns[i] : 0;
}

bool warm(const Facts& f, const StepProfile& p, const StepFacts* s) {
  return static_cast<double>(one_off_in(f, p, s)) < kOneOffStepShare * static_cast<double>(s->duration_ns);
}

// The steps compared, and the steady step once warm (StepProfile::steady_ns): steps that carry
// one-off costs leave when enough warm ones remain, each named in left_out.
void choose_warm_steps(const Facts& f, StepProfile& p, std::vector<const StepFacts*>& steps) {
  if (p.whole_window) {
    p.steady_ns = std::max<int64_t>(0, p.one_off.window_ns - p.one_off.ns);
    p.steady_basis = "window_without_one_off";
    return;
  }
  std::vector<const StepFacts*> kept;
  for (const StepFacts* s : steps)
    if (warm(f, p, s)) kept.push_back(s);
  if (kept.size() >= kMinWarmSteps && kept.size() < steps.size()) {
    for (const StepFacts* s : steps)
      if (!warm(f, p, s)) {
        p.one_off_steps.push_back(s->event);
        p.left_out.push_back(fmt::format("{} (one-off costs {} of its {})", s->name, human_duration(one_off_in(f, p, s)),
                                         human_duration(s->duration_ns)));
      }
    steps = kept;
  }
  // Compiling in every step it has, a side never runs warm here: what is left of a step once the
  // compilation is taken out still holds the new graph's first call (autotuning, loading), so no
  // steady step can be told.
  bool compiles_always = !steps.empty() && kept.size() < kMinWarmSteps;
  for (const StepFacts* s : steps) {
    const size_t i = static_cast<size_t>(s - f.steps.data());
    compiles_always &= i < f.compile.per_step.size() && f.compile.per_step[i].compilations > 0;
  }
  if (compiles_always) {
    p.steady_ns = 0;
    p.steady_basis = "never_warm";
    return;
  }
  std::vector<int64_t> warm_ns;
  bool all_warm = true;
  for (const StepFacts* s : steps) {
    warm_ns.push_back(std::max<int64_t>(0, s->duration_ns - one_off_in(f, p, s)));
    all_warm &= warm(f, p, s);
  }
  p.steady_ns = median(warm_ns);
  p.steady_basis = all_warm ? "warm_steps" : "steps_without_one_off";
  if (all_warm) {
    std::vector<int64_t> measured;
    for (const StepFacts* s : steps) measured.push_back(s->duration_ns);
    p.steady_ns = spread_of(measured).median;
  }
}

}  // namespace

std::vector<const StepFacts*> compared_steps(const Facts& f, const StepProfile& p) {
  std::vector<const StepFacts*> out = steady_steps(f);
  std::erase_if(out, [&](const StepFacts* s) {
    return std::find(p.one_off_steps.begin(), p.one_off_steps.end(), s->event) != p.one_off_steps.end();
  });
  return out;
}

StepProfile profile_steps(const Trace& t, const Facts& f) {
  StepProfile p;
  p.path = t.path;
  p.device = t.devices.empty() ? std::string() : t.devices.front().name;
  p.rank = t.distributed.rank;
  p.world_size = t.distributed.world_size;
  std::vector<const StepFacts*> steps = steady_steps(f);
  p.whole_window = f.steps.empty();
  p.one_off = one_off_costs(t, f);
  if (f.cold_start.step_index >= 0) {
    const StepFacts& cold = f.steps[f.cold_start.step_index];
    p.left_out.push_back(fmt::format("{} (cold start, {})", cold.name, human_duration(cold.duration_ns)));
  }
  choose_warm_steps(f, p, steps);
  p.what_if = f.graph.what_if;
  p.options = recording_options(t);
  p.steps = steps.size();
  if (steps.empty()) return p;

  std::vector<int64_t> dur, cpu, busy, idle, wait, compute, comm;
  for (const StepFacts* s : steps) {
    compute.push_back(s->compute_ns);
    comm.push_back(s->comm_ns);
    dur.push_back(s->duration_ns);
    cpu.push_back(s->cpu_ns);
    busy.push_back(s->gpu_busy_ns);
    idle.push_back(std::max<int64_t>(0, s->duration_ns - s->gpu_busy_ns));
    wait.push_back(s->sync_wait_ns);
  }
  p.step = spread_of(dur);
  p.cpu = spread_of(cpu);
  p.gpu_busy = spread_of(busy);
  p.gpu_idle = spread_of(idle);
  p.sync_wait = spread_of(wait);
  p.compute = spread_of(compute);
  p.comm = spread_of(comm);
  p.step_mad_ns = mad_of(dur);

  // Steady steps in time order, to find the step an event belongs to.
  std::vector<StepFacts> order;
  for (const StepFacts* s : steps) order.push_back(*s);
  std::sort(order.begin(), order.end(), [](const StepFacts& x, const StepFacts& y) { return x.start_ns < y.start_ns; });
  for (const StepFacts& s : order) {
    p.step_ns.push_back(s.duration_ns);
    p.step_names.push_back(s.name);
  }
  std::vector<uint64_t> op_calls(t.names.size() + 1);
  auto step_of = [&](int64_t ts) { return step_containing(order, ts); };
  // Inside a compiled region: memoized, so a chain of 100,000 nested events is walked once (each
  // event walking to the root made `diff` of such a trace take 8 s).
  NearestAncestor region(t, [&t](EventId a) { return is_compiled_region(t.name_of(a)); });
  const auto inside_region = [&](EventId e) { return region.of(t.parent[e]) != kNoEvent; };

  PerStep c(order.size());
  for (EventId e = 0; e < t.size(); ++e) {
    const EventKind k = t.kind[e];
    const std::string_view name = t.name_of(e);
    if (is_host_api(k)) {
      const int s = step_of(t.start_ns[e]);
      if (s < 0 || !t.is_launch(e)) continue;
      ++c.launches[s];
      auto& api = c.by_api[std::string(name)];
      api.resize(order.size());
      ++api[s];
      if (is_graph_launch(name)) ++c.graph_launches[s];
    } else if (is_gpu_activity(k)) {
      const EventId host = t.launch_link[e];
      if (host == kNoEvent) continue;
      const int s = step_of(t.start_ns[host]);
      if (s < 0) continue;
      const int64_t bytes = std::max<int64_t>(0, t.gpu_detail[t.detail[e]].bytes);
      if (k == EventKind::Kernel) {
        ++c.kernels[s];
        if (is_graph_launch(t.name_of(host))) ++c.graph_kernels[s];
      } else if (k == EventKind::Memcpy) {
        ++c.memcpys[s];
        c.memcpy_bytes[s] += bytes;
      } else {
        ++c.memsets[s];
        c.memset_bytes[s] += bytes;
      }
    } else if (k == EventKind::CpuOp || k == EventKind::UserAnnotation) {
      const int s = step_of(t.start_ns[e]);
      if (s < 0) continue;
      if (k == EventKind::CpuOp) ++op_calls[t.name_slot(e)];
      if (is_compiled_region(name)) {
        ++c.regions[s];
        c.region_ns[s] += t.dur_ns[e];
        if (inside_region(e)) ++c.nested[s];
      } else if (is_dynamo_cache_lookup(name)) {
        ++c.lookups[s];
        c.lookup_ns[s] += t.dur_ns[e];
      } else if (name == "AOTDispatcher Runtime Wrapper Prologue") {
        c.prologue_ns[s] += t.dur_ns[e];
      } else if (is_compiled_graph_call(name)) {
        ++c.graph_calls[s];
        c.graph_call_ns[s] += t.dur_ns[e];
        if (inside_region(e)) c.graph_in_region_ns[s] += t.dur_ns[e];
      }
    }
  }
  p.kernels = spread_of(c.kernels);
  p.launches = spread_of(c.launches);
  p.memcpys = spread_of(c.memcpys);
  p.memcpy_bytes = spread_of(c.memcpy_bytes);
  p.memsets = spread_of(c.memsets);
  p.memset_bytes = spread_of(c.memset_bytes);
  for (auto& [api, counts] : c.by_api) p.launches_by_api[api] = spread_of(counts);

  CompileCost& cc = p.compile;
  cc.region_calls = mean(c.regions);
  cc.region_ns = mean_ns(c.region_ns);
  cc.cache_lookups = mean(c.lookups);
  cc.cache_lookup_ns = mean_ns(c.lookup_ns);
  cc.wrapper_prologue_ns = mean_ns(c.prologue_ns);
  cc.graph_calls = mean(c.graph_calls);
  cc.graph_call_ns = mean_ns(c.graph_call_ns);
  cc.outside_graph_ns = std::max<int64_t>(0, cc.region_ns - mean_ns(c.graph_in_region_ns));
  cc.graph_breaks = mean(c.nested);
  cc.compile_ns = f.compile.compile_ns;
  // "Torch-Compiled Region: <frame>/<compile>": each compile id above 0 called is a recompilation.
  std::set<std::pair<int32_t, int32_t>> recompiled;
  for (const CompiledCall& call : f.compile.calls)
    if (call.id.recompile > 0) recompiled.emplace(call.id.frame, call.id.recompile);
  cc.recompilations = recompiled.size();

  for (EventId e = 0; e < t.size(); ++e)  // the first event of each name gives its text
    if (uint64_t& n = op_calls[t.name_slot(e)]; n > 0 && t.kind[e] == EventKind::CpuOp) {
      p.ops_per_step[std::string(t.name_of(e))] = static_cast<double>(n) / static_cast<double>(order.size());
      n = 0;
    }
  // Compilation and CUDA graph trees per steady step, from the compile pass's per-step facts.
  std::vector<int64_t> compiling;
  uint64_t tree_events = 0;
  std::map<EventId, size_t> index_of;
  for (size_t i = 0; i < f.steps.size() && i < f.compile.per_step.size(); ++i) index_of[f.steps[i].event] = i;
  for (const StepFacts& s : order) {
    const auto it = index_of.find(s.event);
    if (it == index_of.end()) continue;
    const StepCompile& sc = f.compile.per_step[it->second];
    tree_events += sc.cudagraph_tree_events;
    if (sc.compilations == 0) continue;
    ++cc.steps_compiling;
    cc.compilations += sc.compilations;
    compiling.push_back(sc.compile_ns);
  }
  if (!compiling.empty()) cc.compile_per_step_ns = spread_of(compiling).median;

  GraphReplay& g = p.graphs;
  g.tree_events = static_cast<double>(tree_events) / static_cast<double>(order.size());
  g.launches = mean(c.graph_launches);
  const double launches_total = mean(c.graph_launches) * static_cast<double>(order.size());
  double kernels_total = 0;
  for (int64_t k : c.graph_kernels) kernels_total += static_cast<double>(k);
  g.kernels_per_launch = launches_total > 0 ? kernels_total / launches_total : 0;
  g.copies = g.launches > 0 ? mean(c.memcpys) : 0;
  return p;
}

}  // namespace whyslow
