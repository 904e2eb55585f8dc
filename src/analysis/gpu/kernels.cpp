// Kernel table: every kernel name with its calls, time statistics and launch configuration.
#include <algorithm>
#include <unordered_map>

#include "analysis/passes.hpp"

namespace whyslow {

std::vector<KernelRow> kernel_table(const Trace& t) {
  std::unordered_map<NameId, size_t> index;
  std::vector<KernelRow> rows;
  for (EventId e = 0; e < t.size(); ++e) {
    if (t.kind[e] != EventKind::Kernel) continue;
    auto [it, inserted] = index.try_emplace(t.name[e], rows.size());
    if (inserted) {
      KernelRow r;
      r.name = t.name[e];
      r.launch = t.gpu_detail[t.detail[e]];
      rows.push_back(std::move(r));
    }
    KernelRow& r = rows[it->second];
    r.events.push_back(e);
    const GpuDetail& d = t.gpu_detail[t.detail[e]];
    if (!std::equal(d.grid, d.grid + 3, r.launch.grid) || !std::equal(d.block, d.block + 3, r.launch.block))
      r.uniform_launch = false;
  }
  for (KernelRow& r : rows) {
    std::vector<int64_t> d;
    d.reserve(r.events.size());
    for (EventId e : r.events) d.push_back(t.dur_ns[e]);
    std::sort(d.begin(), d.end());
    r.calls = d.size();
    r.min_ns = d.front();
    r.max_ns = d.back();
    r.median_ns = d[d.size() / 2];
    for (int64_t x : d) r.total_ns += x;
  }
  std::sort(rows.begin(), rows.end(), [](const KernelRow& a, const KernelRow& b) {
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
  });
  return rows;
}

}  // namespace whyslow
