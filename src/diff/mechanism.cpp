// The mechanism of a change, in words and numbers (verdict.mechanism): not "CPU: python moved" but
// what the program does differently per step — kernels launched one by one against CUDA graph
// replays, GEMMs on another precision and unit, elementwise work fused, copies at another
// bandwidth, compiled regions and graph breaks, communication. Each line is said only when the
// two sides differ in it, from the compared steps' events.
#include <fmt/core.h>

#include <algorithm>
#include <cstdlib>
#include <cmath>
#include <map>

#include "analysis/core/gemm_precision.hpp"
#include "analysis/steps/steady_steps.hpp"
#include "common/units.hpp"
#include "diff/diff.hpp"

namespace whyslow {
namespace {

// A GPU family (a GEMM unit, a copy kind) is worth a line when it holds this share of a side's GPU
// time: smaller moves do not change what bounds the step.
constexpr double kFamilyShare = 0.10;
// A bandwidth or speed changed when it moved by half or more: copies of one size vary by far less
// from step to step, pageable against pinned differs 3–10×.
constexpr double kChangedRatio = 1.5;
// A copy direction's bandwidth is said from 1 MiB a step: a copy of a few kB takes its ~10 µs of
// fixed latency whatever the memory kind (0.1 GB/s for 1 kB), so its "bandwidth" says nothing.
constexpr int64_t kMinCopyBytes = 1 << 20;
// After a change, an unchanged kernel is said to dominate when it holds this share of the faster
// side's GPU time: the next thing to work on.
constexpr double kDominantShare = 0.25;
// …and "unchanged" means within this share of its time on the other side.
constexpr double kUnchangedShare = 0.10;

struct SideWork {
  double steps = 0;
  std::map<GemmUnit, int64_t> gemm_ns;             // GEMM time by unit
  std::map<std::string, std::pair<int64_t, int64_t>> copies;  // copy kind → (bytes, ns)
  std::map<std::string, int64_t> kernel_ns;        // by kernel name
  int64_t gpu_ns = 0;
};

// "Memcpy HtoD (Pageable -> Device)" → "host to device (pageable)".
std::string copy_kind(std::string_view name) {
  std::string dir = name.find("HtoD") != std::string_view::npos   ? "host to device"
                    : name.find("DtoH") != std::string_view::npos ? "device to host"
                    : name.find("DtoD") != std::string_view::npos ? "device to device"
                    : name.find("PtoP") != std::string_view::npos ? "peer to peer"
                                                                   : "other";
  if (name.find("Pageable") != std::string_view::npos) dir += " (pageable)";
  else if (name.find("Pinned") != std::string_view::npos) dir += " (pinned)";
  return dir;
}

// "host to device (pageable)" → "pageable".
std::string memory_kind(const std::string& kind) {
  const size_t open = kind.find('(');
  return open == std::string::npos ? "memory kind not recorded" : kind.substr(open + 1, kind.size() - open - 2);
}

// The copy direction without the memory kind: pageable → pinned is one direction's change.
std::string direction_of(const std::string& kind) { return kind.substr(0, kind.find(" (")); }

SideWork side_work(const Trace& t, const Facts& f, const StepProfile& p) {
  SideWork w;
  std::vector<StepFacts> steps;
  for (const StepFacts* s : compared_steps(f, p)) steps.push_back(*s);
  std::sort(steps.begin(), steps.end(), [](const StepFacts& x, const StepFacts& y) { return x.start_ns < y.start_ns; });
  w.steps = static_cast<double>(steps.size());
  if (steps.empty()) return w;
  for (EventId e = 0; e < t.size(); ++e) {
    if (!is_gpu_activity(t.kind[e]) || t.launch_link[e] == kNoEvent) continue;
    if (step_containing(steps, t.start_ns[t.launch_link[e]]) < 0) continue;
    w.gpu_ns += t.dur_ns[e];
    if (t.kind[e] == EventKind::Memcpy) {
      auto& c = w.copies[copy_kind(t.name_of(e))];
      c.first += std::max<int64_t>(0, t.gpu_detail[t.detail[e]].bytes);
      c.second += t.dur_ns[e];
    } else if (t.kind[e] == EventKind::Kernel) {
      w.kernel_ns[std::string(t.name_of(e))] += t.dur_ns[e];
      if (const GemmUnit u = gemm_unit(t, e); u != GemmUnit::NotGemm) w.gemm_ns[u] += t.dur_ns[e];
    }
  }
  return w;
}

int64_t per_step(int64_t total, double steps) { return steps > 0 ? static_cast<int64_t>(static_cast<double>(total) / steps) : 0; }

// The unit that holds most of a side's GEMM time.
GemmUnit main_unit(const SideWork& w, int64_t* ns) {
  GemmUnit best = GemmUnit::NotGemm;
  int64_t most = 0, all = 0;
  for (const auto& [u, t] : w.gemm_ns) {
    all += t;
    if (t > most) best = u, most = t;
  }
  *ns = all;
  return best;
}

double gb_per_s(const std::pair<int64_t, int64_t>& c) {
  return c.second > 0 ? static_cast<double>(c.first) / static_cast<double>(c.second) : 0;  // bytes/ns = GB/s
}

}  // namespace

std::vector<std::string> find_mechanism(const Trace& a, const Facts& fa, const Trace& b, const Facts& fb, const Diff& d) {
  std::vector<std::string> out;
  const StepProfile& pa = d.a;
  const StepProfile& pb = d.b;
  // Launches one by one against CUDA graph replays.
  if (pa.graphs.launches != pb.graphs.launches) {
    auto words = [](const char* side, const StepProfile& p) {
      const double single = static_cast<double>(p.launches.median) - p.graphs.launches;
      if (p.graphs.launches == 0) return fmt::format("{} launches {:.0f} GPU operations one by one per step", side, single);
      return fmt::format("{} replays {:.3g} CUDA graph{} per step ({:.0f} kernels a graph on average){}", side, p.graphs.launches,
                         p.graphs.launches == 1 ? "" : "s", p.graphs.kernels_per_launch,
                         single > 0 ? fmt::format(" and launches {:.0f} more one by one", single) : "");
    };
    out.push_back(fmt::format("{}; {}.", words("A", pa), words("B", pb)));
  }
  const SideWork wa = side_work(a, fa, pa), wb = side_work(b, fb, pb);
  // GEMMs on another unit.
  int64_t ga = 0, gb = 0;
  const GemmUnit ua = main_unit(wa, &ga), ub = main_unit(wb, &gb);
  const bool gemms_matter = static_cast<double>(ga) >= kFamilyShare * static_cast<double>(wa.gpu_ns) ||
                            static_cast<double>(gb) >= kFamilyShare * static_cast<double>(wb.gpu_ns);
  if (ua != ub && ua != GemmUnit::NotGemm && ub != GemmUnit::NotGemm && gemms_matter) {
    const int64_t sa = per_step(ga, wa.steps), sb = per_step(gb, wb.steps);
    const double r = sa > 0 && sb > 0 ? static_cast<double>(std::max(sa, sb)) / static_cast<double>(std::min(sa, sb)) : 0;
    out.push_back(fmt::format("The GEMMs moved from {} ({} per step) to {} ({} per step){}.", describe(ua),
                              human_duration(sa), describe(ub), human_duration(sb),
                              r > 0 ? fmt::format(": {} {}", ratio_words(r), sb < sa ? "faster" : "slower") : ""));
  }
  // Copies per direction: another memory kind or another bandwidth.
  std::map<std::string, bool> directions;  // the copy directions either side runs
  auto largest_kind = [](const SideWork& w, const std::string& dir) {
    std::string best;
    int64_t most = -1;
    for (const auto& [kind, c] : w.copies)
      if (direction_of(kind) == dir && c.first > most) best = kind, most = c.first;
    return best;
  };
  for (const SideWork* w : {&wa, &wb})
    for (const auto& [kind, c] : w->copies) directions[direction_of(kind)] = true;
  for (const auto& [dir, unused] : directions) {
    const std::string ka = largest_kind(wa, dir), kb = largest_kind(wb, dir);
    if (ka.empty() || kb.empty()) continue;
    const double bwa = gb_per_s(wa.copies.at(ka)), bwb = gb_per_s(wb.copies.at(kb));
    // Copies of a few kB per step take their fixed latency, not a bandwidth.
    if (std::min(per_step(wa.copies.at(ka).first, wa.steps), per_step(wb.copies.at(kb).first, wb.steps)) < kMinCopyBytes)
      continue;
    const bool moved = bwa > 0 && bwb > 0 && std::max(bwa, bwb) >= kChangedRatio * std::min(bwa, bwb);
    if (ka == kb && !moved) continue;
    out.push_back(fmt::format("Copies {}: {:.1f} GB/s in A ({}) against {:.1f} GB/s in B ({}).", dir, bwa, memory_kind(ka),
                              bwb, memory_kind(kb)));
  }
  // Compiled regions and graph breaks.
  if (pa.compile.region_calls != pb.compile.region_calls || pa.compile.graph_breaks != pb.compile.graph_breaks) {
    auto words = [](const char* side, const CompileCost& c) {
      if (c.region_calls == 0) return fmt::format("{} runs eagerly (no compiled region)", side);
      return fmt::format("{} calls {:.3g} compiled region{} per step{}", side, c.region_calls, c.region_calls == 1 ? "" : "s",
                         c.graph_breaks > 0 ? fmt::format(" ({:.3g} inside another: graph breaks)", c.graph_breaks) : "");
    };
    out.push_back(fmt::format("{}; {}.", words("A", pa.compile), words("B", pb.compile)));
  }
  // Communication.
  if (pa.comm.median != pb.comm.median && (pa.comm.median > 0 || pb.comm.median > 0))
    out.push_back(fmt::format("Communication kernels take {} per step in A, {} in B.", human_duration(pa.comm.median),
                              human_duration(pb.comm.median)));
  // What now dominates the faster side's GPU time, unchanged.
  const bool b_faster = pb.gpu_busy.median < pa.gpu_busy.median;
  const SideWork& fast = b_faster ? wb : wa;
  const SideWork& slow = b_faster ? wa : wb;
  // Only after a change that cut the GPU work by a quarter or more: then what stayed is what is left.
  const bool gpu_cut = per_step(fast.gpu_ns, fast.steps) <= (1 - kDominantShare) * static_cast<double>(per_step(slow.gpu_ns, slow.steps));
  for (const auto& [name, ns] : fast.kernel_ns) {
    if (!gpu_cut) break;
    const auto other = slow.kernel_ns.find(name);
    if (other == slow.kernel_ns.end() || fast.gpu_ns <= 0) continue;
    const int64_t f_step = per_step(ns, fast.steps), s_step = per_step(other->second, slow.steps);
    const bool unchanged = std::llabs(f_step - s_step) <= kUnchangedShare * static_cast<double>(std::max<int64_t>(s_step, 1));
    const double share = static_cast<double>(ns) / static_cast<double>(fast.gpu_ns);
    if (unchanged && share >= kDominantShare && gemm_unit_of_name(name) == GemmUnit::NotGemm)
      out.push_back(fmt::format("Unchanged, {} is now {} of {}'s GPU time ({} per step): the next thing to work on.",
                                name.size() > 80 ? name.substr(0, 77) + "…" : name, human_percent(share), b_faster ? "B" : "A",
                                human_duration(f_step)));
  }
  return out;
}

}  // namespace whyslow
