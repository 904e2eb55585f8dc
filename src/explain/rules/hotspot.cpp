// hotspot: the user's code that holds the step. From the steps down, the children of the current
// blocks are grouped by the code they run (a module class over its instances, a record_function
// name, a Python function: block_groups.hpp); a group holding most of its parent's time (GPU or
// CPU time, whichever sets the pace) is where the parent's time went, and the descent goes on
// inside its blocks. It stops where the time spreads over several groups. The hotspot is the
// deepest user code on that path (library modules such as nn.Linear may hold it below), with the
// library frame its own time goes to; where it is autograd's backward, the module whose backward
// takes it. Then: what kind of cost it is, with the file:line and what to try. A hotspot that
// holds (nearly) all of the step says nothing by itself: it is given as the split of its time.
#include <fmt/core.h>

#include <algorithm>
#include <functional>
#include <string>
#include <vector>

#include "analysis/blocks/block_groups.hpp"
#include "analysis/blocks/code_origin.hpp"
#include "analysis/core/event_names.hpp"
#include "common/share.hpp"
#include "common/units.hpp"
#include "explain/evidence.hpp"
#include "explain/highlights.hpp"
#include "explain/rules.hpp"
#include "explain/rules/bound_scope.hpp"
#include "explain/rules/graph_capture_gain.hpp"

namespace whyslow {
namespace {

// A child holding at least half of its parent's time holds more than all its siblings together:
// it, not the parent, is where that time went. Below half, no one child explains the parent.
// The time is the one that sets the steps' pace: GPU time when the GPU work launched in the steps
// is at least their duration (the CPU is ahead, waiting), CPU time otherwise.
constexpr double kMostOfParent = 0.5;
// A block holding 90 % or more of the steps is the step's wrapper (a train_step function, the
// harness's run_on_input): naming it tells the user nothing they did not know, so the finding
// gives how its time splits instead.
constexpr double kWholeStep = 0.9;
// Many small launches: a Python loop issuing kernels one by one. 16 launches a call is more
// than any single layer's forward issues (a Linear: 1–2, an attention: ≤ 10); a kernel of ≤ 10 µs
// of GPU work is about what it costs the CPU to issue it (a few µs of launch plus Python and
// dispatch), so the GPU waits on the loop rather than the loop on the GPU.
constexpr double kManyLaunchesPerCall = 16;
constexpr int64_t kSmallKernelNs = 10'000;
// A loop in the block's own code: one name called 8 times or more directly beneath one call.
// Straight-line forward code calls one op a few times at most (q, k, v views: 3–4).
constexpr uint32_t kLoopRepeats = 8;
// A block blocked in syncs for at least half its CPU time is spent waiting, not working.
constexpr double kSyncShare = 0.5;
// Many launches a call that are mostly copies (fewer kernels than half the launches) while the
// block blocks on the GPU for a tenth of its time or more: read-backs one element at a time (.item()
// in a loop, each a device-to-host copy and a wait), not kernels to batch or capture in a graph —
// a CUDA graph cannot hold a copy the host waits for.
constexpr double kReadBackSyncShare = 0.10;
// One kernel of at least half the block's GPU time is the block's GPU cost.
constexpr double kOneKernelShare = 0.5;
// The split of a wrapper names its three largest parts: enough to see where the time goes.
constexpr size_t kSplitParts = 3;
// ... each holding at least 1 % of the whole: a smaller part prints as "0 %" and points nowhere.
constexpr double kSplitPartMinShare = 0.01;
// A split of one part (one block under half of the steps, the rest in no block) says nothing the
// blocks table does not: the steps' split is a finding from two parts on, and only when the parts
// it names hold most of the steps (a few % each of fifty parts, or two blocks holding 5 % of a
// GPU-bound step, leave the time unexplained).
constexpr size_t kMinSplitParts = 2;
constexpr double kSplitExplains = 0.5;

enum class Cost { ManySmallLaunches, Sync, OneKernel, GpuWork, CpuWork, ColdStart, HostCollective };


bool gpu_sets_the_pace(const BlockFacts& b) { return b.basis_gpu_ns > 0 && b.basis_gpu_ns >= b.basis_cpu_ns; }

bool is_users(const BlockGroup& g) { return g.kind != BlockKind::Module || g.user_code; }

// Children lists of a forest given by parent indices (UINT32_MAX: a root, listed under `size`):
// first child and next sibling, so that a descent visits each row once however deep the tree.
struct Children {
  std::vector<uint32_t> first, next;
  template <typename Parent>
  Children(size_t size, Parent parent_of) : first(size + 1, UINT32_MAX), next(size, UINT32_MAX) {
    for (size_t i = size; i-- > 0;) {
      const uint32_t p = parent_of(i);
      if (p == kSkip) continue;
      const size_t slot = p == UINT32_MAX ? size : p;
      next[i] = first[slot];
      first[slot] = static_cast<uint32_t>(i);
    }
  }
  static constexpr uint32_t kSkip = UINT32_MAX - 1;  // a row outside the forest
};

using RowTime = std::function<int64_t(const BlockRow&)>;

// One group's part of a level: its rows there and their time.
struct Part {
  uint32_t group = UINT32_MAX;
  std::vector<uint32_t> rows;
  int64_t ns = 0;
};

// The children of `rows` (the top level when empty) by group, heaviest first.
std::vector<Part> parts_below(const BlockFacts& b, const Children& children, const std::vector<uint32_t>& rows,
                              const RowTime& time) {
  std::vector<Part> parts;
  std::vector<uint32_t> slot_of;  // group → index in parts, UINT32_MAX: none yet
  auto visit = [&](size_t slot) {
    for (uint32_t c = children.first[slot]; c != UINT32_MAX; c = children.next[c]) {
      const uint32_t g = b.rows[c].group;
      if (slot_of.size() <= g) slot_of.resize(g + 1, UINT32_MAX);
      if (slot_of[g] == UINT32_MAX) slot_of[g] = static_cast<uint32_t>(parts.size()), parts.push_back({g, {}, 0});
      Part& p = parts[slot_of[g]];
      p.rows.push_back(c);
      p.ns += time(b.rows[c]);
    }
  };
  if (rows.empty()) visit(b.rows.size());
  for (const uint32_t r : rows) visit(r);
  std::stable_sort(parts.begin(), parts.end(), [](const Part& x, const Part& y) { return x.ns > y.ns; });
  return parts;
}

// The path of groups that each hold most of their parent's time (`top_ns` at the top), the
// innermost user group on it, and the parts of the level where it stopped.
struct Descent {
  std::vector<Part> path;                 // top to bottom
  size_t hotspot = SIZE_MAX;              // index into path: the innermost user group; SIZE_MAX: none
  std::vector<Part> split;                // the parts beneath path.back() (the top), none holding most of it
  const Part& at() const { return path[hotspot]; }
  bool found() const { return hotspot != SIZE_MAX; }
};
Descent descend(const BlockFacts& b, const Children& children, const RowTime& time, int64_t top_ns) {
  Descent d;
  int64_t parent_ns = top_ns;
  for (;;) {
    std::vector<Part> parts =
        parts_below(b, children, d.path.empty() ? std::vector<uint32_t>{} : d.path.back().rows, time);
    if (parts.empty() || share(parts.front().ns, parent_ns) < kMostOfParent) {
      d.split = std::move(parts);
      return d;
    }
    parent_ns = parts.front().ns;
    if (is_users(b.groups[parts.front().group])) d.hotspot = d.path.size();
    d.path.push_back(std::move(parts.front()));
  }
}

// Where the block's time goes in the library code folded into it: the deepest library frame whose
// own time (less the blocks it calls) still holds most of the block's CPU time, preferring a frame
// with a file:line to the builtin inside it; UINT32_MAX when none does.
uint32_t library_hotspot(const Trace& t, const BlockFacts& b, uint32_t block) {
  const std::vector<LibraryFrameRow>& frames = b.library_frames;
  auto own = [&](uint32_t i) { return frames[i].cpu_total_ns - frames[i].block_ns; };
  const Children children(frames.size(), [&](size_t i) { return frames[i].block == block ? frames[i].parent : Children::kSkip; });
  uint32_t at = static_cast<uint32_t>(frames.size()), found = UINT32_MAX, found_located = UINT32_MAX;
  const int64_t block_ns = b.rows[block].cpu_total_ns;
  for (;;) {
    uint32_t best = UINT32_MAX;
    for (uint32_t i = children.first[at]; i != UINT32_MAX; i = children.next[i]) {
      if (share(own(i), block_ns) < kMostOfParent) continue;
      if (best == UINT32_MAX || own(i) > own(best)) best = i;
    }
    if (best == UINT32_MAX) return found_located != UINT32_MAX ? found_located : found;
    found = at = best;
    if (parse_frame_name(t.names.view(frames[at].name)).ok) found_located = at;
  }
}

// "the replay of the steps with their launches in one CUDA graph saves 128 µs a step (`whyslow what-if
// TRACE --edit cuda-graphs`)". TRACE, not the path: a finding's words do not depend on where the file is.
std::string replay_words(const WhatIf& w) {
  return fmt::format("the replay of the steps with their launches in one CUDA graph saves {} a step (`whyslow what-if "
                     "{} --edit {}{}`)",
                     human_duration(w.step_ns - w.predicted_step_ns), "TRACE", w.edit, w.param.empty() ? "" : "=" + w.param);
}

// Whether the block already runs torch.compile's code: a compiled region starts inside its longest
// call. Then "torch.compile it" is no advice; compiling for CUDA graphs (mode="reduce-overhead") is.
bool runs_compiled_code(const Trace& t, const Facts& f, const BlockRow& r) {
  if (r.longest_call == kNoEvent) return false;
  const std::vector<CompiledCall>& calls = f.compile.calls;  // in time order
  const auto at = std::lower_bound(calls.begin(), calls.end(), t.start_ns[r.longest_call],
                                   [&](const CompiledCall& c, int64_t ts) { return t.start_ns[c.event] < ts; });
  return at != calls.end() && t.start_ns[at->event] < t.end_ns(r.longest_call);
}

// What to do with a block's own CPU work: the fix that fits where it runs and that the trace's
// replay says would pay. A CPU program gets no CUDA graphs; a native program (the whyslow
// profiler's scopes, no torch ops) no torch.compile; a block that launches no GPU work, or a trace
// whose replay gains nothing from graphs, none either; a block that runs compiled code is told to
// compile for graphs, not to compile.
std::string cpu_work_advice(const Trace& t, const Facts& f, const BlockRow& r) {
  if (f.recording.what == Recorded::CpuOnly && !f.recording.from_torch)
    // A native program's scope: torch.compile has nothing to compile, and its own time (a sleep, a
    // wait, a loop) is as opaque to the trace as to whyslow.
    return "Add WHYSLOW_SCOPE(\"name\") blocks inside it to see where its own time goes (a loop, a wait, a sleep), then "
           "make that cheaper or move it off the step.";
  if (f.recording.what == Recorded::CpuOnly)
    return "torch.compile it (Inductor's CPU backend fuses its ops into generated C++ loops and drops the Python "
           "between them), or move its work to a GPU.";
  const WhatIf* graphs = r.launches > 0 ? graph_capture_gain(f) : nullptr;
  if (!graphs)
    return r.launches > 0 ? "Make its CPU work cheaper or move it off the step (a background thread, DataLoader "
                            "workers for input preparation, once before the loop): the trace's replay gains nothing "
                            "from capturing its launches in CUDA graphs."
                          : "Make its CPU work cheaper or move it off the step (a background thread, DataLoader workers "
                            "for input preparation, once before the loop): it launches no GPU work, so CUDA graphs "
                            "would not shorten it.";
  if (!f.recording.from_torch)
    return "Capture its launches in a CUDA graph (cudaStreamBeginCapture … cudaGraphLaunch: one launch replays them): " +
           replay_words(*graphs) + ". Or move its CPU work off the step.";
  if (runs_compiled_code(t, f, r))
    return "It runs torch.compile's code already: compile it with mode=\"reduce-overhead\", so its launches replay "
           "as CUDA graphs and the dispatch around them goes away: " + replay_words(*graphs) +
           ". Or move its CPU work off the step.";
  return "Capture the block in CUDA graphs or torch.compile it, so Python and dispatch overhead go away: " +
         replay_words(*graphs) + ". Or move its CPU work off the step.";
}

// Most of a block's CPU time in one call inside the cold first step that the cold_start finding
// reports (the demo's matmul: one 124 ms call in ProfilerStep#0 of its 124 ms): one-off start-up
// work (module loading, library set-up), not the Python and dispatch that CUDA graphs or
// torch.compile would remove — that advice would contradict cold_start, which says the steady
// steps do not pay it again.
bool mostly_cold_start(const Trace& t, const Facts& f, const std::vector<Finding>& out, const BlockRow& r) {
  const int cold = f.cold_start.step_index;
  if (cold < 0 || static_cast<size_t>(cold) >= f.steps.size() || r.longest_call == kNoEvent) return false;
  if (std::none_of(out.begin(), out.end(), [](const Finding& x) { return x.id == FindingId::cold_start; })) return false;
  const StepFacts& s = f.steps[static_cast<size_t>(cold)];
  const EventId c = r.longest_call;
  return t.start_ns[c] >= s.start_ns && t.start_ns[c] < s.end_ns && share(t.dur_ns[c], r.cpu_total_ns) >= kMostOfParent;
}

Cost cost_of(const Trace& t, const BlockRow& r) {
  const double launches_per_call = r.calls ? static_cast<double>(r.launches) / static_cast<double>(r.calls) : 0;
  const int64_t mean_kernel = r.kernels ? r.gpu_ns / static_cast<int64_t>(r.kernels) : 0;
  const double sync = share(r.cpu_breakdown[static_cast<size_t>(CpuCategory::SyncWait)], r.cpu_total_ns);
  if (sync >= kSyncShare) return Cost::Sync;
  const bool mostly_copies = 2 * r.kernels < r.launches;
  if (launches_per_call >= kManyLaunchesPerCall && mostly_copies && sync >= kReadBackSyncShare) return Cost::Sync;
  if (launches_per_call >= kManyLaunchesPerCall && mean_kernel <= kSmallKernelNs && r.gpu_ns < r.cpu_total_ns)
    return Cost::ManySmallLaunches;
  if (r.gpu_ns >= r.cpu_total_ns) {
    if (r.longest_kernel != kNoEvent && share(t.dur_ns[r.longest_kernel], r.gpu_ns) >= kOneKernelShare) return Cost::OneKernel;
    return Cost::GpuWork;
  }
  return Cost::CpuWork;
}

// "Rotary ×4 (model.py:70)": the group's name, its instances among `rows` (a part counts its own,
// not the class's in the whole model) and where its code is (a user's; a function's name has it).
std::string part_title(const Trace& t, const BlockFacts& b, const Part& p) {
  const BlockGroup& g = b.groups[p.group];
  std::vector<NameId> names;
  for (const uint32_t r : p.rows) names.push_back(b.rows[r].name);
  std::sort(names.begin(), names.end());
  const size_t instances = static_cast<size_t>(std::unique(names.begin(), names.end()) - names.begin());
  const std::string name = instances > 1 ? fmt::format("{} ×{}", g.label, instances) : g.label;
  if (g.kind == BlockKind::Function || !is_users(g)) return name;
  const FrameName frame = g.location == kNoName ? FrameName{} : parse_frame_name(t.names.view(g.location));
  return frame.ok ? fmt::format("{} ({}:{})", name, frame.file, frame.line) : name;
}

// "backward 66 %, forward 28 %, torch/_tensor.py(626): backward (library) 20 %": the largest of the
// parts and of the library frames directly in `block` (its own time), as shares of `whole_ns`.
std::string split_words(const Trace& t, const BlockFacts& b, const std::vector<Part>& parts, uint32_t block,
                        int64_t whole_ns) {
  std::vector<std::pair<int64_t, std::string>> items;
  for (const Part& p : parts) items.emplace_back(p.ns, part_title(t, b, p));
  for (const LibraryFrameRow& l : b.library_frames)
    if (l.block == block && l.parent == UINT32_MAX)
      items.emplace_back(l.cpu_total_ns - l.block_ns, fmt::format("{} (library)", t.names.view(l.name)));
  std::stable_sort(items.begin(), items.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  std::string out;
  for (size_t i = 0; i < items.size() && i < kSplitParts && share(items[i].first, whole_ns) >= kSplitPartMinShare; ++i)
    out += fmt::format("{}{} {:.0f} %", i ? ", " : "", items[i].second, share(items[i].first, whole_ns) * 100);
  return out;
}

// The findings already made that say what limits the step, for a wrapper's hotspot to point to:
// only those in the output ("overhead_bound" where none was found would send the reader nowhere).
// "the overhead_bound finding says", "the data_loading and cpu_bound findings say"; "" for none.
std::string limit_findings(const std::vector<Finding>& out) {
  std::vector<std::string_view> ids;
  for (const Finding& x : out)
    if (x.id == FindingId::data_loading || x.id == FindingId::overhead_bound || x.id == FindingId::gpu_bound ||
        x.id == FindingId::dependency_wait || x.id == FindingId::cpu_bound)
      ids.push_back(to_string(x.id));
  if (ids.empty()) return "";
  std::string names;
  for (size_t i = 0; i < ids.size(); ++i) names += std::string(i == 0 ? "" : i + 1 == ids.size() ? " and " : ", ") + std::string(ids[i]);
  return fmt::format("the {} finding{}", names, ids.size() == 1 ? " says" : "s say");
}

// "BertModel 97 % › … › BertAttention ×4 43 % › BertSelfAttention ×4 29 %": the path below the
// hotspot (library groups), each as a share of `whole_ns`: its first part and its deepest.
std::string path_words(const Trace& t, const BlockFacts& b, const Descent& d, int64_t whole_ns) {
  std::string out;
  const size_t first = d.hotspot + 1, n = d.path.size() - first;
  for (size_t i = first; i < d.path.size(); ++i) {
    const size_t k = i - first;
    if (n > kSplitParts && k > 0 && k < n - (kSplitParts - 1)) {
      if (k == 1) out += " › …";
      continue;
    }
    out += fmt::format("{}{} {:.0f} %", k ? " › " : "", part_title(t, b, d.path[i]), share(d.path[i].ns, whole_ns) * 100);
  }
  return out;
}

// Where the backward the block ran spends its time: autograd's backward ops of the steps, linked
// to the forward ops that made them, descended like the blocks. The innermost user group below the
// hotspot's own group, else the innermost group of all (a library module's backward still says
// where); nullptr when the block holds no backward or the descent says nothing new.
const Part* backward_target(const Descent& backward, uint32_t hotspot_group) {
  if (backward.path.empty()) return nullptr;
  size_t below = SIZE_MAX;  // the hotspot's own group on the backward path
  for (size_t i = 0; i < backward.path.size(); ++i)
    if (backward.path[i].group == hotspot_group) below = i;
  const size_t pick = backward.found() && (below == SIZE_MAX || backward.hotspot > below) ? backward.hotspot
                                                                                        : backward.path.size() - 1;
  if (below != SIZE_MAX && pick <= below) return nullptr;
  return &backward.path[pick];
}

// No group holds most of the steps: their split is the answer ("backward 46 %, forward 30 %,
// optimizer 17 %"), information only.
void rule_spread(const Trace& t, const Facts& f, const std::vector<Part>& parts, bool by_gpu, std::vector<Finding>& out) {
  const BlockFacts& b = f.blocks;
  if (parts.size() < kMinSplitParts) return;
  const int64_t whole = by_gpu ? b.basis_gpu_ns : b.basis_cpu_ns;
  int64_t named = 0;
  for (size_t i = 0; i < parts.size() && i < kSplitParts; ++i) named += parts[i].ns;
  if (share(named, whole) < kSplitExplains) return;
  Finding x = make_finding(FindingId::hotspot);
  const std::string span = f.steps.empty() ? "the window's" : "the steps'";
  x.title = fmt::format("No one block holds {} {} time: {}", span, by_gpu ? "GPU" : "CPU",
                        split_words(t, b, parts, UINT32_MAX, whole));
  x.detail = fmt::format(
      "At the top of the blocks (code of one module class, record_function name or function taken together) the "
      "largest holds {:.0f} % of {} {} time: less than half, so no one of them is where the time went. The split "
      "is where to look; the bound finding says what limits the step.",
      share(parts.front().ns, whole) * 100, span, by_gpu ? "GPU" : "CPU");
  x.evidence = {percent("largest_pct", share(parts.front().ns, whole)), count("parts", parts.size())};
  const BlockRow largest = sum_rows(t, b.rows, parts.front().rows);
  if (largest.longest_call != kNoEvent) x.events.push_back({largest.longest_call, "largest part's longest call"});
  x.try_next = {"Look inside the largest part: its rows in `whyslow explain --json` (blocks[]), or finer "
                "record_function blocks around its code; the bound finding says what limits the step."};
  x.impact_what = "where the time is, not a saving: the other findings measure what a fix gives back";
  out.push_back(std::move(x));
}

}  // namespace

void rule_hotspot(const Trace& t, const Facts& f, std::vector<Finding>& out) {
  const BlockFacts& b = f.blocks;
  if (b.rows.empty()) return;
  const bool by_gpu = gpu_sets_the_pace(b);
  const Children children(b.rows.size(), [&](size_t i) { return b.rows[i].parent; });
  const Descent d = descend(
      b, children, [by_gpu](const BlockRow& r) { return by_gpu ? r.gpu_ns : r.cpu_total_ns; },
      by_gpu ? b.basis_gpu_ns : b.basis_cpu_ns);
  if (!d.found()) {
    if (d.path.empty()) rule_spread(t, f, d.split, by_gpu, out);
    return;
  }
  const Part& h = d.at();
  const BlockGroup& g = b.groups[h.group];
  const BlockRow r = sum_rows(t, b.rows, h.rows);
  const FrameName frame = g.location == kNoName ? FrameName{} : parse_frame_name(t.names.view(g.location));
  const std::string where = frame.ok ? fmt::format("{}:{}", frame.file, frame.line) : std::string("its call site");
  const std::string title = part_title(t, b, h);
  const uint64_t calls = std::max<uint64_t>(1, r.calls);
  const double kernels_per_call = static_cast<double>(r.kernels) / static_cast<double>(calls);
  const double launches_per_call = static_cast<double>(r.launches) / static_cast<double>(calls);
  const int64_t mean_kernel = r.kernels ? r.gpu_ns / static_cast<int64_t>(r.kernels) : 0;
  const int64_t sync_ns = r.cpu_breakdown[static_cast<size_t>(CpuCategory::SyncWait)];
  const int64_t python_ns = r.cpu_breakdown[static_cast<size_t>(CpuCategory::Python)];
  // Its CPU time is a share of the steps' time on each thread it ran on, never of one thread's.
  const int64_t cpu_basis = b.basis_cpu_ns * std::max<uint32_t>(1, r.threads);
  const double cpu_share = share(r.cpu_total_ns, cpu_basis), gpu_share = share(r.gpu_ns, b.basis_gpu_ns);
  const double paced_share = by_gpu ? gpu_share : cpu_share;
  const bool wrapper = paced_share >= kWholeStep;
  const Cost cost = is_host_collective(g.label)          ? Cost::HostCollective
                    : mostly_cold_start(t, f, out, r) ? Cost::ColdStart
                                                      : cost_of(t, r);
  const bool on_cpu = f.recording.what == Recorded::CpuOnly;
  const bool loop = r.repeated_calls >= kLoopRepeats;
  // Most of the block's time in library code it calls (of its heaviest row, where the frames are kept).
  const uint32_t heaviest = *std::max_element(h.rows.begin(), h.rows.end(), [&](uint32_t x, uint32_t y) {
    return b.rows[x].cpu_total_ns < b.rows[y].cpu_total_ns;
  });
  const uint32_t lib = library_hotspot(t, b, heaviest);
  const int64_t lib_ns = lib == UINT32_MAX ? 0 : b.library_frames[lib].cpu_total_ns - b.library_frames[lib].block_ns;
  std::string split;  // a wrapper's: how its time splits
  if (wrapper) {
    const int64_t whole = by_gpu ? r.gpu_ns : r.cpu_total_ns;
    const bool below = d.hotspot + 1 < d.path.size();  // library groups hold it further down
    split = below ? fmt::format("{}{}", path_words(t, b, d, whole),
                                d.split.empty() ? "" : "; there: " + split_words(t, b, d.split, UINT32_MAX, whole))
                  : split_words(t, b, d.split, heaviest, whole);
  }
  // The DataLoader's fetch is the data_loading finding's, with its fix: a hotspot that names it with
  // nothing more (no library code its time goes to, no part of it worth a percent) is a second
  // headline for the same time. One that finds where inside the fetch the time goes (OWLv2's
  // scipy zoom) says what data_loading cannot.
  if (is_data_loader_span(g.label) && lib == UINT32_MAX && (!wrapper || split.empty()) &&
      std::any_of(out.begin(), out.end(), [](const Finding& x) { return x.id == FindingId::data_loading; }))
    return;
  const std::string in_library =
      lib == UINT32_MAX ? std::string()
                        : fmt::format(" Most of its time is in library code it calls: {} takes {} ({:.0f} % of {}).",
                                      t.names.view(b.library_frames[lib].name), human_duration(lib_ns),
                                      share(lib_ns, b.rows[heaviest].cpu_total_ns) * 100,
                                      h.rows.size() > 1 ? "its heaviest instance" : "the block");
  // The backward it ran (autograd's thread, while it was open): whose forward made its time.
  const Part* bw = nullptr;
  Descent backward;
  if ((r.attribution & kForwardBackwardLink) && b.basis_backward_ns > 0) {
    backward = descend(b, children, [](const BlockRow& x) { return x.backward_cpu_ns; }, b.basis_backward_ns);
    bw = backward_target(backward, h.group);
  }
  const BlockRow bw_sum = bw ? sum_rows(t, b.rows, bw->rows) : BlockRow{};
  const std::string bw_title = bw ? part_title(t, b, *bw) : std::string();
  // The backward's code has a loop in its forward that issues many small launches: both passes pay.
  const bool bw_loop = bw && bw_sum.repeated_calls >= kLoopRepeats && cost_of(t, bw_sum) == Cost::ManySmallLaunches;
  const std::string backward_text =
      bw ? fmt::format(" Autograd's backward ran while it was open: of the {} of backward ops in the steps, those made "
                       "by {}'s forward take {} ({:.0f} %), with {} of GPU work in {} kernels{}.",
                       human_duration(b.basis_backward_ns), bw_title, human_duration(bw_sum.backward_cpu_ns),
                       share(bw_sum.backward_cpu_ns, b.basis_backward_ns) * 100, human_duration(bw_sum.backward_gpu_ns),
                       bw_sum.backward_kernels,
                       bw_loop ? fmt::format("; its forward is a loop too ({} calls of one name in one call, {} of CPU "
                                             "time): the loop costs in both passes",
                                             bw_sum.repeated_calls, human_duration(bw_sum.cpu_total_ns))
                               : std::string())
         : std::string();
  const std::string span = f.steps.empty() ? "the window's" : "the steps'";
  const std::string threads = r.threads > 1 ? fmt::format(" on {} threads", r.threads) : std::string();

  Finding x = make_finding(FindingId::hotspot);
  const bool actionable = bw_loop || (!wrapper && ((cost == Cost::ManySmallLaunches && loop) || cost == Cost::Sync));
  if (actionable) x.severity = Severity::Warning;
  if (wrapper) {
    x.title = fmt::format("{} holds {:.0f} % of {} {} time{}{}", title, paced_share * 100, span, by_gpu ? "GPU" : "CPU",
                          split.empty() ? "" : ": ", split);
  } else {
    x.title = fmt::format("{} holds {:.0f} % of {} CPU time{} and {:.0f} % of {} GPU time", title, cpu_share * 100,
                          span, threads, gpu_share * 100, f.steps.empty() ? "its" : "their");
  }
  std::string kind;
  switch (cost) {
    case Cost::ManySmallLaunches:
      kind = fmt::format("many small launches: {:.0f} launches a call, {} of GPU work per kernel, so the GPU waits "
                         "while Python issues them one by one ({}; {} of Python self time in it)",
                         launches_per_call, human_duration(mean_kernel),
                         loop ? fmt::format("a loop in its own code: one call is made {} times in one call of it", r.repeated_calls)
                              : std::string("from the code it calls"),
                         human_duration(python_ns));
      x.try_next = {loop ? fmt::format("Replace the Python loop in {} by batched tensor ops (one op over all heads or "
                                       "items, F.scaled_dot_product_attention for attention): one launch instead of {:.0f}.",
                                       where, launches_per_call)
                         : fmt::format("Find what issues {:.0f} launches a call beneath {} and batch it, or fuse it with "
                                       "torch.compile.",
                                       launches_per_call, title)};
      if (const WhatIf* graphs = graph_capture_gain(f))
        x.try_next.push_back("Or capture the block in a CUDA graph: torch.compile(mode=\"reduce-overhead\") on the "
                             "module, or torch.cuda.graphs; the launches then cost one replay: " + replay_words(*graphs) + ".");
      break;
    case Cost::Sync:
      kind = fmt::format("waiting: {} of its CPU time is blocked in synchronizing calls{}", human_duration(sync_ns),
                         launches_per_call >= kManyLaunchesPerCall
                             ? fmt::format(", {:.0f} read-backs a call (device-to-host copies it waits for)", launches_per_call)
                             : std::string());
      x.try_next = {fmt::format("Find the sync in {} (.item(), .cpu(), .tolist(), a printed tensor, "
                                "torch.cuda.synchronize()) and move it out of the loop, or keep the value on the GPU.",
                                where),
                    "Read back once: one .tolist() or .cpu() of the whole tensor instead of .item() per element."};
      break;
    case Cost::OneKernel:
      kind = fmt::format("one kernel: {} takes {} of its {} of GPU time", std::string(t.name_of(r.longest_kernel)),
                         human_duration(t.dur_ns[r.longest_kernel]), human_duration(r.gpu_ns));
      x.try_next = {"See that kernel in the roofline table (`whyslow kernels`): how close it runs to the GPU's "
                    "ceiling says whether a better kernel (fused, flash attention, bf16) or less work is the way."};
      break;
    case Cost::GpuWork:
      kind = fmt::format("GPU work: {:.3g} kernels a call, {} each on average", kernels_per_call,
                         human_duration(mean_kernel));
      x.try_next = {"Its kernels are in the roofline table (`whyslow kernels`): start with the largest."};
      break;
    case Cost::ColdStart: {
      const StepFacts& cold = f.steps[static_cast<size_t>(f.cold_start.step_index)];
      kind = fmt::format("one-off start-up work: its call in {} takes {} of its {} of CPU time (the cold_start "
                         "finding says what the first step loads and sets up)",
                         cold.name, human_duration(t.dur_ns[r.longest_call]), human_duration(r.cpu_total_ns));
      x.try_next = {fmt::format("Nothing in the block to change for this: its first call pays start-up costs the steady "
                                "steps do not pay again. To see what it costs once warm, profile after a warm-up ({}).",
                                f.recording.from_torch ? "torch.profiler.schedule(wait=1, warmup=1, active=3)"
                                                       : "whyslow::schedule({.wait = 1, .warmup = 1, .active = 3})")};
      break;
    }
    case Cost::HostCollective:
      // Not CPU work to make cheaper or capture in a graph: communication with the other ranks.
      kind = fmt::format("communication on the host: Gloo runs its {} on the CPU (on a worker thread, no GPU kernel), "
                         "from when this rank joins it until every rank has, and moves the tensors through host memory",
                         host_collective_kind(g.label));
      x.try_next = {"For CUDA tensors, use NCCL (dist.init_process_group(\"nccl\"), one GPU per rank): its collectives "
                    "run on the GPU over NVLink or the network, beside the compute, not through host memory.",
                    "If ranks wait for one that joins late, load every rank's trace (whyslow explain rank*.json) to find "
                    "which and why."};
      break;
    case Cost::CpuWork:
      kind = fmt::format("CPU work: {} of its CPU time against {} of GPU work ({} of Python self time)",
                         human_duration(r.cpu_total_ns), human_duration(r.gpu_ns), human_duration(python_ns));
      // The GPU sets the pace and the replay gains nothing from graphs: CPU-side advice would
      // contradict gpu_bound, which says CPU-side tuning will not help.
      if (!graph_capture_gain(f) &&
          std::any_of(out.begin(), out.end(), [](const Finding& y) { return y.id == FindingId::gpu_bound; })) {
        x.try_next = {"The gpu_bound finding says the GPU sets the step's pace: this CPU work runs while the GPU "
                      "works, so making it cheaper shortens the step only once the GPU work is shorter. Start from "
                      "the kernels."};
        break;
      }
      x.try_next = {lib != UINT32_MAX ? fmt::format("Most of it is {}: if that is input preparation, move it off the step "
                                                    "(DataLoader workers, or on the GPU){}.",
                                                    t.names.view(b.library_frames[lib].name),
                                                    on_cpu || !graph_capture_gain(f) || r.launches == 0
                                                        ? ""
                                                        : "; if it issues GPU work, capture it in CUDA graphs")
                                      : cpu_work_advice(t, f, r)};
      break;
  }
  if (wrapper && !bw_loop) {
    std::vector<std::string> said;
    if (!split.empty()) said.push_back("The parts named above are where the step's time goes");
    const std::string limits = limit_findings(out);
    if (!limits.empty()) said.push_back(fmt::format("{}{} what limits the step", said.empty() ? "T" : "t", limits.substr(1)));
    said.push_back(said.empty() ? "`whyslow explain --json` lists every block, and where its time goes"
                                : "`whyslow explain --json` lists every block");
    std::string advice;
    for (const std::string& part : said) advice += (advice.empty() ? "" : "; ") + part;
    x.try_next = {advice + "."};
  }
  if (bw_loop) {
    const BlockGroup& target = b.groups[bw->group];
    const FrameName at = target.location == kNoName ? FrameName{} : parse_frame_name(t.names.view(target.location));
    x.try_next.insert(x.try_next.begin(),
                      fmt::format("Most of the backward is {}'s: replace the Python loop in its forward{} by batched "
                                  "tensor ops; its backward ops shrink with it.",
                                  target.label, at.ok ? fmt::format(" ({}:{})", at.file, at.line) : std::string()));
  }
  const std::string instances =
      h.rows.size() > 1 || g.instances > 1
          ? fmt::format(", summed over its {} place{} in the tree", h.rows.size(), h.rows.size() == 1 ? "" : "s")
          : std::string();
  const std::string own_backward =
      r.backward_ops > 0 && !bw
          ? fmt::format(" Its backward (autograd's ops made by its forward ops): {} of CPU time in {} ops, {} of GPU "
                        "work in {} kernels.",
                        human_duration(r.backward_cpu_ns), r.backward_ops, human_duration(r.backward_gpu_ns),
                        r.backward_kernels)
          : std::string();
  x.detail = fmt::format(
      "Descending from the {} into the code that holds most of each level's {} time (blocks of one module class, "
      "record_function name or function taken together) ends at {} ({}{}{}): "
      "{} call{}, {} of CPU time in total{} ({} outside its child blocks), {} of GPU work launched beneath it{}. "
      "Its cost is {}.{}{}{}{}",
      f.steps.empty() ? "trace window" : "steps", by_gpu ? "GPU" : "CPU", g.label, to_string(g.kind),
      frame.ok ? ", " + where : std::string(), instances, r.calls, r.calls == 1 ? "" : "s",
      human_duration(r.cpu_total_ns), threads, human_duration(r.self_cpu_ns), human_duration(r.gpu_ns),
      r.other_thread_gpu_ns > 0 ? fmt::format(" ({} of it launched on other threads while it ran)", human_duration(r.other_thread_gpu_ns))
                                : std::string(),
      kind, in_library, backward_text, own_backward,
      wrapper ? fmt::format(" It holds {:.0f} % of {} time: the step itself, so the parts above are where to look.",
                            paced_share * 100, span)
              : std::string());
  x.evidence = {{"cpu_pct", cpu_share * 100, "%"},
                {"gpu_pct", gpu_share * 100, "%"},
                us("cpu_us", r.cpu_total_ns),
                us("gpu_us", r.gpu_ns),
                count("calls", r.calls),
                count("instances", g.instances),
                count("threads", r.threads),
                {"kernels_per_call", kernels_per_call, "count"},
                {"launches_per_call", launches_per_call, "count"},
                us("mean_kernel_us", mean_kernel),
                us("sync_wait_us", sync_ns),
                us("python_us", python_ns),
                count("repeated_calls", r.repeated_calls),
                count("line", frame.ok ? static_cast<uint64_t>(frame.line) : 0),
                us("library_us", lib_ns),
                us("backward_cpu_us", r.backward_cpu_ns),
                us("backward_gpu_us", r.backward_gpu_ns)};
  if (r.longest_call != kNoEvent) {
    x.events.push_back({r.longest_call, "longest call"});
    add_mark(x.highlights, r.longest_call);
  }
  // What fixing it gives back: a loop's launches batched leave about its GPU work (the CPU time
  // beyond it goes, where the CPU sets the pace); a sync moved out, its wait. Elsewhere the
  // hotspot says where the time is, not what a fix would save: other findings measure that.
  // Per step, as the other findings measure (the blocks sum every step).
  const int64_t steps = std::max<int64_t>(1, static_cast<int64_t>(f.steps.size()));
  if (bw_loop && !by_gpu) {
    x.impact_ns = std::max<int64_t>(0, bw_sum.cpu_total_ns - bw_sum.gpu_ns) +
                  std::max<int64_t>(0, bw_sum.backward_cpu_ns - bw_sum.backward_gpu_ns);
    x.impact_what = "the loop's CPU time beyond its GPU work, in its forward and in the backward ops it makes";
  } else if (actionable && cost == Cost::ManySmallLaunches && !by_gpu) {
    x.impact_ns = std::max<int64_t>(0, r.cpu_total_ns - r.gpu_ns);
    x.impact_what = "its CPU time beyond its GPU work, which batching its launches would no longer spend";
  } else if (actionable && cost == Cost::Sync) {
    // As sync_wait's: a wait gives back only the GPU's idle time after it (while the GPU runs queued
    // work the wait costs nothing), so at most the steady state's idle time after syncs, per step.
    const BoundScope scope = bound_scope(f);
    x.impact_ns = std::min(sync_ns, scope.mean_ns(IdleCause::Sync) * steps);
    x.impact_what = "its time blocked in synchronizing calls, at most the GPU's idle time after syncs";
  } else {
    x.impact_what = "where the time is, not a saving: the other findings measure what a fix gives back";
  }
  x.impact_ns /= steps;
  x.impact_basis_ns = cpu_basis / steps;
  out.push_back(std::move(x));
}

}  // namespace whyslow
