#include "analysis/ranks/rank_digest.hpp"

#include <algorithm>
#include <map>

#include "analysis/ranks/host_collectives.hpp"
#include "analysis/steps/steady_steps.hpp"

namespace whyslow {
namespace {

// A code block under 0.1 % of the step, on CPU and GPU both, is left out of the digest (a
// with_stack trace has thousands of them), and a rank without a block counts it as 0. The cause
// of a straggler exceeds the others by at least half its lateness, itself at least 5 % of a step
// (straggler.cpp), so a block left out moves a comparison by under 1/25 of the smallest cause.
constexpr double kMinCodeBlockShare = 0.001;

RankBlockKind kind_of(BlockKind k) {
  switch (k) {
    case BlockKind::Annotation: return RankBlockKind::Annotation;
    case BlockKind::Module: return RankBlockKind::Module;
    case BlockKind::Function: return RankBlockKind::Function;
  }
  return RankBlockKind::Function;
}

// The user's code per step of the trace (all its steps, as the collectives' lateness is counted):
// block groups of one kind and label together (a module class defined in two files is one name
// here, as the ranks compare names).
void add_code_blocks(const Facts& f, int64_t steps, int64_t step_ns, std::vector<RankBlock>& out) {
  std::map<std::pair<RankBlockKind, std::string>, std::pair<int64_t, int64_t>> sums;  // cpu, gpu
  for (const BlockGroup& g : f.blocks.groups) {
    auto& [cpu, gpu] = sums[{kind_of(g.kind), g.label}];
    cpu += g.total.cpu_total_ns;
    gpu += g.total.gpu_ns;
  }
  const double floor = kMinCodeBlockShare * static_cast<double>(step_ns);
  for (const auto& [key, ns] : sums) {
    const int64_t cpu = ns.first / steps, gpu = ns.second / steps;
    if (static_cast<double>(std::max(cpu, gpu)) >= floor) out.push_back({key.first, key.second, cpu, gpu});
  }
}

}  // namespace

std::string named_file(const RankDigest& d) {
  return d.read_from.empty() ? d.path : d.read_from + " (the digest of " + d.path + ")";
}

std::string_view to_string(RankBlockKind k) {
  switch (k) {
    case RankBlockKind::Annotation: return "annotation";
    case RankBlockKind::Module: return "module";
    case RankBlockKind::Function: return "function";
    case RankBlockKind::CpuCategory: return "cpu_category";
    case RankBlockKind::GpuCompute: return "gpu_compute";
  }
  return "annotation";
}

RankDigest make_digest(const Trace& t, const Facts& f, int32_t rank) {
  RankDigest d;
  d.rank = rank;
  d.world_size = t.distributed.world_size;
  d.path = t.path;
  const auto steps = steady_steps(f);
  d.steps = static_cast<uint32_t>(steps.size());
  d.first_step_start_ns = steps.empty() ? 0 : steps.front()->start_ns;
  d.trace_steps = static_cast<uint32_t>(std::max<size_t>(1, f.steps.size()));
  d.step_ns = median_of(steps, &StepFacts::duration_ns);
  d.compute_ns = median_of(steps, &StepFacts::compute_ns);
  d.comm_ns = median_of(steps, &StepFacts::comm_ns);
  d.exposed_comm_ns = median_of(steps, &StepFacts::exposed_comm_ns);
  for (size_t c = 0; c < kCpuCategories; ++c) d.cpu[c] = median_of(steps, static_cast<CpuCategory>(c));

  for (const CollectiveCall& c : f.comm.calls)
    d.collectives.push_back({c.group != kNoName ? std::string(t.names.view(c.group)) : std::string(), c.seq, c.kind,
                             t.start_ns[c.kernel], t.end_ns(c.kernel)});
  // No communication kernel: the collectives may run on the host (Gloo), and their time is the
  // rank's communication as the cross-rank passes read it.
  if (d.collectives.empty()) {
    d.collectives = host_collectives(t);
    const HostCommTime host = host_comm_time(t, f, d.collectives);
    d.comm_ns = host.comm_ns;
    d.exposed_comm_ns = host.exposed_ns;
  }

  add_code_blocks(f, d.trace_steps, d.step_ns, d.blocks);
  for (size_t c = 0; c < kCpuCategories; ++c)
    d.blocks.push_back({RankBlockKind::CpuCategory, "cpu:" + std::string(to_string(static_cast<CpuCategory>(c))), d.cpu[c], 0});
  d.blocks.push_back({RankBlockKind::GpuCompute, "gpu:compute", d.compute_ns, 0});
  std::sort(d.blocks.begin(), d.blocks.end());
  return d;
}

}  // namespace whyslow
