// hotspot: the innermost block of the user's code that holds the step. From the steps down, a
// child block that holds most of its parent's time (GPU or CPU time, whichever sets the pace) is
// where the parent's time went; the descent stops where the time spreads over several children.
// The hotspot is the deepest block of the user's own code on that path (library modules such as
// nn.Linear may hold it below), with the library frame its own time goes to. Then: what kind of
// cost it is, with the file:line and what to try.
#include <fmt/core.h>

#include <algorithm>

#include "analysis/blocks/code_origin.hpp"
#include "common/units.hpp"
#include "explain/evidence.hpp"
#include "explain/highlights.hpp"
#include "explain/rules.hpp"

namespace whyslow {
namespace {

// A child holding at least half of its parent's time holds more than all its siblings together:
// it, not the parent, is where that time went. Below half, no one child explains the parent.
// The time is the one that sets the steps' pace: GPU time when the GPU work launched in the steps
// is at least their duration (the CPU is ahead, waiting), CPU time otherwise.
constexpr double kMostOfParent = 0.5;
// Many small launches: a Python loop issuing kernels one by one. 16 launches a call is more
// than any single layer's forward issues (a Linear: 1–2, an attention: ≤ 10); a kernel of ≤ 10 µs
// of GPU work is about what it costs the CPU to issue it (a few µs of launch plus Python and
// dispatch), so the GPU waits on the loop rather than the loop on the GPU.
constexpr double kManyLaunchesPerCall = 16;
constexpr int64_t kSmallKernelNs = 10'000;
// A block blocked in syncs for at least half its CPU time is spent waiting, not working.
constexpr double kSyncShare = 0.5;
// One kernel of at least half the block's GPU time is the block's GPU cost.
constexpr double kOneKernelShare = 0.5;

enum class Cost { ManySmallLaunches, Sync, OneKernel, GpuWork, CpuWork };

double share(int64_t part, int64_t whole) { return whole > 0 ? static_cast<double>(part) / static_cast<double>(whole) : 0; }

bool gpu_sets_the_pace(const BlockFacts& b) { return b.basis_gpu_ns > 0 && b.basis_gpu_ns >= b.basis_cpu_ns; }

bool is_users(const BlockRow& r) { return r.kind != BlockKind::Module || r.user_code; }

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

// The innermost user block on the descent, or UINT32_MAX.
uint32_t find_hotspot(const BlockFacts& b) {
  const bool by_gpu = gpu_sets_the_pace(b);
  auto time = [&](const BlockRow& r) { return by_gpu ? r.gpu_ns : r.cpu_total_ns; };
  const Children children(b.rows.size(), [&](size_t i) { return b.rows[i].parent; });
  uint32_t at = static_cast<uint32_t>(b.rows.size()), hotspot = UINT32_MAX;  // at: the top
  int64_t parent_ns = by_gpu ? b.basis_gpu_ns : b.basis_cpu_ns;
  for (;;) {
    uint32_t best = UINT32_MAX;  // children that hold most of the parent: at most one, but ties at exactly half
    for (uint32_t i = children.first[at]; i != UINT32_MAX; i = children.next[i]) {
      if (share(time(b.rows[i]), parent_ns) < kMostOfParent) continue;
      if (best == UINT32_MAX || time(b.rows[i]) > time(b.rows[best])) best = i;
    }
    if (best == UINT32_MAX) return hotspot;
    at = best;
    parent_ns = time(b.rows[at]);
    if (is_users(b.rows[at])) hotspot = at;
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

Cost cost_of(const Trace& t, const BlockRow& r) {
  const double launches_per_call = r.calls ? static_cast<double>(r.launches) / static_cast<double>(r.calls) : 0;
  const int64_t mean_kernel = r.kernels ? r.gpu_ns / static_cast<int64_t>(r.kernels) : 0;
  if (share(r.cpu_breakdown[static_cast<size_t>(CpuCategory::SyncWait)], r.cpu_total_ns) >= kSyncShare) return Cost::Sync;
  if (launches_per_call >= kManyLaunchesPerCall && mean_kernel <= kSmallKernelNs && r.gpu_ns < r.cpu_total_ns)
    return Cost::ManySmallLaunches;
  if (r.gpu_ns >= r.cpu_total_ns) {
    if (r.longest_kernel != kNoEvent && share(t.dur_ns[r.longest_kernel], r.gpu_ns) >= kOneKernelShare) return Cost::OneKernel;
    return Cost::GpuWork;
  }
  return Cost::CpuWork;
}

}  // namespace

void rule_hotspot(const Trace& t, const Facts& f, std::vector<Finding>& out) {
  const BlockFacts& b = f.blocks;
  const uint32_t h = find_hotspot(b);
  if (h == UINT32_MAX) return;
  const BlockRow& r = b.rows[h];
  const std::string name(t.names.view(r.name));
  const FrameName frame = r.location == kNoName ? FrameName{} : parse_frame_name(t.names.view(r.location));
  const std::string where = frame.ok ? fmt::format("{}:{}", frame.file, frame.line) : std::string("its call site");
  const uint64_t calls = std::max<uint64_t>(1, r.calls);
  const double kernels_per_call = static_cast<double>(r.kernels) / static_cast<double>(calls);
  const double launches_per_call = static_cast<double>(r.launches) / static_cast<double>(calls);
  const int64_t mean_kernel = r.kernels ? r.gpu_ns / static_cast<int64_t>(r.kernels) : 0;
  const int64_t sync_ns = r.cpu_breakdown[static_cast<size_t>(CpuCategory::SyncWait)];
  const int64_t python_ns = r.cpu_breakdown[static_cast<size_t>(CpuCategory::Python)];
  const double cpu_pct = share(r.cpu_total_ns, b.basis_cpu_ns) * 100, gpu_pct = share(r.gpu_ns, b.basis_gpu_ns) * 100;
  const Cost cost = cost_of(t, r);
  // Most of the block's time in library code it calls.
  const uint32_t lib = library_hotspot(t, b, h);
  const int64_t lib_ns = lib == UINT32_MAX ? 0 : b.library_frames[lib].cpu_total_ns - b.library_frames[lib].block_ns;
  const std::string in_library =
      lib == UINT32_MAX ? std::string()
                        : fmt::format(" Most of its time is in library code it calls: {} takes {} ({:.0f} % of the block).",
                                      t.names.view(b.library_frames[lib].name), human_duration(lib_ns),
                                      share(lib_ns, r.cpu_total_ns) * 100);

  Finding x = make_finding(FindingId::hotspot);
  if (cost == Cost::ManySmallLaunches || cost == Cost::Sync) x.severity = Severity::Warning;
  x.title = fmt::format("{}{} holds {:.0f} % of {} CPU time and {:.0f} % of {} GPU time", name,
                        frame.ok ? " (" + where + ")" : std::string(), cpu_pct,
                        f.steps.empty() ? "the window's" : "the steps'", gpu_pct, f.steps.empty() ? "its" : "their");
  std::string kind;
  switch (cost) {
    case Cost::ManySmallLaunches:
      kind = fmt::format("many small launches: {:.0f} launches a call, {} of GPU work per kernel, so the GPU waits "
                         "while Python issues them one by one (a loop in this block, or in what it calls; "
                         "{} of Python self time in it)",
                         launches_per_call, human_duration(mean_kernel), human_duration(python_ns));
      x.try_next = {fmt::format("Replace the Python loop in {} by batched tensor ops (one matmul over all heads or "
                                "items, F.scaled_dot_product_attention for attention): one launch instead of {:.0f}.",
                                where, launches_per_call),
                    "Or capture the block in a CUDA graph: torch.compile(mode=\"reduce-overhead\") on the module, or "
                    "torch.cuda.graphs; the launches then cost one replay."};
      break;
    case Cost::Sync:
      kind = fmt::format("waiting: {} of its CPU time is blocked in synchronizing calls", human_duration(sync_ns));
      x.try_next = {fmt::format("Find the sync in {} (.item(), .cpu(), .tolist(), a printed tensor, "
                                "torch.cuda.synchronize()) and move it out of the loop, or keep the value on the GPU.",
                                where)};
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
    case Cost::CpuWork:
      kind = fmt::format("CPU work: {} of its CPU time against {} of GPU work ({} of Python self time)",
                         human_duration(r.cpu_total_ns), human_duration(r.gpu_ns), human_duration(python_ns));
      x.try_next = {lib != UINT32_MAX
                        ? fmt::format("Most of it is {}: if that is input preparation, move it off the step (DataLoader "
                                      "workers, or on the GPU); if it issues GPU work, capture it in CUDA graphs.",
                                      t.names.view(b.library_frames[lib].name))
                        : "Capture the block in CUDA graphs or torch.compile it (Python and dispatch overhead go away), "
                          "or move its CPU work off the step."};
      break;
  }
  x.detail = fmt::format(
      "Descending from the {} into the block that holds most of each level's {} time ends at {} ({}{}): "
      "{} call{}, {} of CPU time in total ({} outside its child blocks), {} of GPU work launched beneath it{}. "
      "Its cost is {}.{}",
      f.steps.empty() ? "trace window" : "steps", gpu_sets_the_pace(b) ? "GPU" : "CPU", name, to_string(r.kind), frame.ok ? ", " + where : std::string(), r.calls, r.calls == 1 ? "" : "s", human_duration(r.cpu_total_ns),
      human_duration(r.self_cpu_ns), human_duration(r.gpu_ns),
      r.other_thread_gpu_ns > 0 ? fmt::format(" ({} of it launched on other threads while it ran)", human_duration(r.other_thread_gpu_ns))
                                : std::string(),
      kind, in_library);
  x.evidence = {{"cpu_pct", cpu_pct, "%"},
                {"gpu_pct", gpu_pct, "%"},
                us("cpu_us", r.cpu_total_ns),
                us("gpu_us", r.gpu_ns),
                count("calls", r.calls),
                {"kernels_per_call", kernels_per_call, "count"},
                {"launches_per_call", launches_per_call, "count"},
                us("mean_kernel_us", mean_kernel),
                us("sync_wait_us", sync_ns),
                us("python_us", python_ns),
                count("line", frame.ok ? static_cast<uint64_t>(frame.line) : 0),
                us("library_us", lib_ns)};
  if (r.longest_call != kNoEvent) {
    x.events.push_back({r.longest_call, "longest call"});
    add_mark(x.highlights, r.longest_call);
  }
  x.impact_ns = r.cpu_total_ns;
  x.impact_basis_ns = b.basis_cpu_ns;
  out.push_back(std::move(x));
}

}  // namespace whyslow
