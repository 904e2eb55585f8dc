#include "analysis/blocks/block_groups.hpp"

#include <fmt/core.h>

#include <algorithm>
#include <unordered_map>

#include "analysis/blocks/code_origin.hpp"

namespace whyslow {

std::string_view module_class(std::string_view name) {
  if (!is_module_event_name(name)) return name;
  name.remove_prefix(std::string_view("nn.Module: ").size());
  const size_t underscore = name.rfind('_');
  if (underscore == std::string_view::npos || underscore + 1 == name.size()) return name;
  for (size_t i = underscore + 1; i < name.size(); ++i)
    if (name[i] < '0' || name[i] > '9') return name;
  return name.substr(0, underscore);
}

BlockRow sum_rows(const Trace& t, const std::vector<BlockRow>& rows, const std::vector<uint32_t>& which) {
  BlockRow s = rows[which.front()];
  auto keep_longer = [&](EventId& into, EventId e) {
    if (e != kNoEvent && (into == kNoEvent || t.dur_ns[e] > t.dur_ns[into])) into = e;
  };
  for (size_t k = 1; k < which.size(); ++k) {
    const BlockRow& r = rows[which[k]];
    s.calls += r.calls;
    s.cpu_total_ns += r.cpu_total_ns;
    s.self_cpu_ns += r.self_cpu_ns;
    s.gpu_ns += r.gpu_ns;
    s.other_thread_gpu_ns += r.other_thread_gpu_ns;
    s.kernels += r.kernels;
    s.launches += r.launches;
    for (size_t c = 0; c < kCpuCategories; ++c) s.cpu_breakdown[c] += r.cpu_breakdown[c];
    s.backward_cpu_ns += r.backward_cpu_ns;
    s.backward_gpu_ns += r.backward_gpu_ns;
    s.backward_ops += r.backward_ops;
    s.backward_kernels += r.backward_kernels;
    s.repeated_calls = std::max(s.repeated_calls, r.repeated_calls);
    s.threads = std::max(s.threads, r.threads);
    s.attribution |= r.attribution;
    keep_longer(s.longest_call, r.longest_call);
    keep_longer(s.longest_kernel, r.longest_kernel);
  }
  return s;
}

namespace {

// Per row: whether a row of its own group encloses it. One pass over the rows in their depth-first
// order with the open ancestors on a stack and a count of them per group: walking up from each row
// was quadratic under a deep chain of blocks (100,000 nested record_function blocks, a leaf of
// another group in each). A row whose parent is not open (rows not in depth-first order, as a test
// may build them) is answered by walking up, and so are the rows below it.
std::vector<bool> inside_own_group(const BlockFacts& b) {
  std::vector<bool> out(b.rows.size());
  std::vector<uint32_t> open;                      // the ancestors of the row visited, outermost first
  std::vector<uint32_t> open_in(b.groups.size());  // how many of them are in each group
  for (uint32_t i = 0; i < b.rows.size(); ++i) {
    const BlockRow& r = b.rows[i];
    while (!open.empty() && open.back() != r.parent) {
      --open_in[b.rows[open.back()].group];
      open.pop_back();
    }
    if (open.empty() && r.parent != UINT32_MAX) {
      for (uint32_t p = r.parent; p != UINT32_MAX && !out[i]; p = b.rows[p].parent) out[i] = b.rows[p].group == r.group;
      continue;
    }
    out[i] = open_in[r.group] > 0;
    open.push_back(i);
    ++open_in[r.group];
  }
  return out;
}

}  // namespace

void group_blocks(const Trace& t, BlockFacts& b) {
  b.groups.clear();
  // The key: kind, label and location; a module class defined in two files is two groups.
  std::unordered_map<std::string, uint32_t> by_key;
  for (uint32_t i = 0; i < b.rows.size(); ++i) {
    BlockRow& r = b.rows[i];
    const std::string_view label = r.kind == BlockKind::Module ? module_class(t.names.view(r.name)) : t.names.view(r.name);
    std::string key = fmt::format("{}\x1f{}\x1f{}", static_cast<int>(r.kind), label, r.location);
    auto [it, added] = by_key.try_emplace(std::move(key), static_cast<uint32_t>(b.groups.size()));
    if (added) {
      BlockGroup g;
      g.label = std::string(label);
      g.kind = r.kind;
      g.location = r.location;
      g.user_code = r.user_code;
      b.groups.push_back(std::move(g));
    }
    r.group = it->second;
    b.groups[r.group].rows.push_back(i);
  }
  const std::vector<bool> nested = inside_own_group(b);
  for (BlockGroup& g : b.groups) {
    std::vector<NameId> names;
    std::vector<uint32_t> outermost;  // rows not inside another row of the group: their time holds the inner ones'
    for (const uint32_t i : g.rows) {
      names.push_back(b.rows[i].name);
      if (!nested[i]) outermost.push_back(i);
    }
    g.total = sum_rows(t, b.rows, outermost);
    std::sort(names.begin(), names.end());
    g.instances = static_cast<uint32_t>(std::unique(names.begin(), names.end()) - names.begin());
  }
  // Heaviest first, rows renumbered to the new order.
  std::vector<uint32_t> order(b.groups.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t x, uint32_t y) { return b.groups[x].total.cpu_total_ns > b.groups[y].total.cpu_total_ns; });
  std::vector<uint32_t> place(order.size());
  std::vector<BlockGroup> sorted;
  sorted.reserve(order.size());
  for (uint32_t k = 0; k < order.size(); ++k) {
    place[order[k]] = k;
    sorted.push_back(std::move(b.groups[order[k]]));
  }
  b.groups = std::move(sorted);
  for (BlockRow& r : b.rows) r.group = place[r.group];
}

std::string group_title(const BlockGroup& g) {
  return g.instances > 1 ? fmt::format("{} ×{}", g.label, g.instances) : g.label;
}

}  // namespace whyslow
