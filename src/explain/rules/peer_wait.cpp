#include "explain/rules/peer_wait.hpp"

#include <algorithm>
#include <map>
#include <tuple>

#include "analysis/comm/comm_names.hpp"
#include "analysis/core/median.hpp"

namespace whyslow {
namespace {

// What a collective may take without waiting: its bytes at half the link's peak bus bandwidth
// (NCCL reaches 70–90 % of NVLink's peak on large messages, so half is generous), plus a fixed
// 50 µs for NCCL's launch and protocol latency (its small-message all-reduce takes 10–30 µs on one
// NVLink node).
constexpr double kAchievableLinkShare = 0.5;
// Waiting under 5 % of a step or 100 µs is within the jitter of a healthy job: not reported.
constexpr double kMinReportedWaitShare = 0.05;
constexpr int64_t kMinReportedWaitNs = 100'000;
constexpr int64_t kCollectiveLatencyNs = 50'000;
// Without sizes, a call is judged against the median of its kind and group, which needs at least
// 3 calls so that the median is never the call itself (one outlier among 3 is not the middle).
constexpr size_t kMinPatternCalls = 3;
// ... and waits only when it takes 4× that median or more: the calls of one kind and group in a
// step move messages of like sizes (DDP's equal buckets, FSDP's like layers, DLRM's per-table
// all-to-alls), and a collective's time grows more slowly than its size (latency below a few
// hundred kB), so a call 4× its kind's median is not one that merely moves more data.
constexpr double kPatternFactor = 4.0;
// ... and only while such calls are few: a late peer makes a few calls long (the first collective
// after its slow part); where more than a quarter of a kind's calls take 4× its median, the kind
// moves messages of several sizes and its median says nothing of what one needs (HTA's
// df_index_resolver trace: 2,020 all-reduces, half under 11 µs, a quarter over 276 µs, the same
// 1.3–5 ms ones in every step).
constexpr double kMaxOutlierShare = 0.25;

// Calls are judged against others of their kind, group and library: NCCL's kernels apart from a
// custom all-reduce's (pooled, the short custom all-reduces of a serving trace made its NCCL calls
// look late: a 16.9 ms wait no peer caused), each other library's kernel apart by its name.
using Pattern = std::tuple<CollectiveKind, NameId, NameId>;
Pattern pattern_of(const Trace& t, const CollectiveCall& c) {
  const NameId kernel = t.name[c.kernel];
  return {c.kind, c.group, is_nccl_kernel(t.names.view(kernel)) ? kNoName : kernel};
}

}  // namespace

std::vector<PeerWait> peer_waits(const Trace& t, const Facts& f, const SteadyCalls& calls) {
  std::vector<PeerWait> out(calls.calls.size());
  std::map<Pattern, std::vector<int64_t>> durations;  // the calls without a wait judged by bytes
  for (size_t i = 0; i < calls.calls.size(); ++i) {
    const CollectiveCall& c = *calls.calls[i];
    if (c.link_ns > 0 && f.comm.link_bytes_per_s > 0) {
      const int64_t needed = static_cast<int64_t>(static_cast<double>(c.link_ns) / kAchievableLinkShare) + kCollectiveLatencyNs;
      out[i] = {std::max<int64_t>(0, t.dur_ns[c.kernel] - needed), 0, WaitBasis::Bytes};
    } else {
      durations[pattern_of(t, c)].push_back(t.dur_ns[c.kernel]);
    }
  }
  std::map<Pattern, int64_t> typical;
  for (auto& [key, d] : durations) {
    if (d.size() < kMinPatternCalls) continue;
    const int64_t m = median(d);
    const auto long_calls = std::count_if(d.begin(), d.end(), [&](int64_t ns) {
      return static_cast<double>(ns) >= kPatternFactor * static_cast<double>(m);
    });
    if (m > 0 && static_cast<double>(long_calls) <= kMaxOutlierShare * static_cast<double>(d.size())) typical[key] = m;
  }
  for (size_t i = 0; i < calls.calls.size(); ++i) {
    const CollectiveCall& c = *calls.calls[i];
    if (out[i].basis == WaitBasis::Bytes) continue;
    const auto it = typical.find(pattern_of(t, c));
    if (it == typical.end()) continue;
    const int64_t dur = t.dur_ns[c.kernel];
    if (static_cast<double>(dur) >= kPatternFactor * static_cast<double>(it->second))
      out[i] = {dur - it->second, it->second, WaitBasis::Pattern};
  }
  return out;
}

int64_t median_wait_per_step(const SteadyCalls& calls, const std::vector<PeerWait>& waits) {
  std::vector<int64_t> sums(calls.steps, 0);
  for (size_t i = 0; i < waits.size(); ++i) sums[static_cast<size_t>(calls.step_of_call[i])] += waits[i].wait_ns;
  return median(std::move(sums));
}

bool peer_wait_reported(int64_t wait_ns, int64_t step_ns) {
  return step_ns > 0 && wait_ns >= kMinReportedWaitNs &&
         static_cast<double>(wait_ns) >= kMinReportedWaitShare * static_cast<double>(step_ns);
}

}  // namespace whyslow
