// no_annotations: the trace cannot say which of its time is the user's code. With neither
// record_function blocks nor nn.Module events nor Python frames: the profiler options and the
// lines to paste. With Python frames but no record_function: the few blocks of the user's code
// where a record_function would pay off most (they hold a real share of the step, but not all
// of it: a block around the whole step says nothing the step does not).
#include <fmt/core.h>

#include <algorithm>
#include <utility>

#include "analysis/blocks/block_groups.hpp"
#include "analysis/blocks/code_origin.hpp"
#include "common/share.hpp"
#include "explain/evidence.hpp"
#include "explain/rules.hpp"

namespace whyslow {
namespace {

// The places worth a record_function: at least a tenth of the steps' CPU or GPU time (smaller
// blocks are not where a step is won), and under nine tenths (a block around nearly the whole step,
// a `main` or `train_step`, adds nothing to the step itself). Three are enough to start with.
constexpr double kMinPlaceShare = 0.10, kMaxPlaceShare = 0.90;
constexpr size_t kMaxPlaces = 3;
// A place with a place below it holding at least half of its time is named by that one instead:
// the inner block says more, as the hotspot's descent does.
constexpr double kInnerPlaceShare = 0.5;


// A name for the record_function: a module's class ("nn.Module: HeadLoopAttention_0" →
// "HeadLoopAttention"), a function's name.
std::string block_label(const Trace& t, const BlockRow& r) {
  if (r.kind == BlockKind::Module) return std::string(module_class(t.names.view(r.name)));
  return std::string(parse_frame_name(t.names.view(r.location)).function);
}

}  // namespace

void rule_no_annotations(const Trace& t, const Facts& f, std::vector<Finding>& out) {
  const BlockFacts& b = f.blocks;
  if (b.annotation_events > 0) return;
  Finding x = make_finding(FindingId::no_annotations);
  if (b.module_events == 0 && b.python_frames == 0) {
    x.title = "No record_function blocks, nn.Module events or Python stacks: whyslow cannot tell which code is yours";
    x.detail =
        "The trace holds the ops and kernels but nothing of the code that called them, so no time can be put on "
        "a line of yours. torch.profiler records your modules and Python frames when asked to (with_modules, "
        "with_stack: a few % more profiling overhead), and record_function names any block you choose.";
    x.try_next = {
        "Profile with stacks and modules: torch.profiler.profile(activities=[ProfilerActivity.CPU, "
        "ProfilerActivity.CUDA], record_shapes=True, with_stack=True, with_modules=True)"};
    x.code = {{"Or name the top-level blocks of a step yourself:", "python",
               "from torch.profiler import record_function\n"
               "\n"
               "with record_function(\"forward\"):\n"
               "    loss = model(batch)\n"
               "with record_function(\"backward\"):\n"
               "    loss.backward()\n"
               "with record_function(\"optimizer\"):\n"
               "    optimizer.step()\n"
               "    optimizer.zero_grad()"}};
  } else {
    std::vector<uint8_t> candidate(b.rows.size(), 0), covered(b.rows.size(), 0);
    for (size_t i = 0; i < b.rows.size(); ++i) {
      const BlockRow& r = b.rows[i];
      if (r.location == kNoName || (r.kind == BlockKind::Module && !r.user_code)) continue;
      const double s = std::max(share(r.cpu_total_ns, b.basis_cpu_ns), share(r.gpu_ns, b.basis_gpu_ns));
      candidate[i] = s >= kMinPlaceShare && s < kMaxPlaceShare;
    }
    // Per row, the largest CPU and GPU time of a candidate below it: rows come parents first, so
    // one backward pass carries them up (linear however deep the tree).
    std::vector<int64_t> below_cpu(b.rows.size(), 0), below_gpu(b.rows.size(), 0);
    for (size_t i = b.rows.size(); i-- > 0;) {
      const BlockRow& r = b.rows[i];
      if (candidate[i] &&
          (share(below_cpu[i], r.cpu_total_ns) >= kInnerPlaceShare || share(below_gpu[i], r.gpu_ns) >= kInnerPlaceShare))
        covered[i] = 1;
      if (r.parent == UINT32_MAX) continue;
      const int64_t cpu = std::max(below_cpu[i], candidate[i] ? r.cpu_total_ns : 0);
      const int64_t gpu = std::max(below_gpu[i], candidate[i] ? r.gpu_ns : 0);
      below_cpu[r.parent] = std::max(below_cpu[r.parent], cpu);
      below_gpu[r.parent] = std::max(below_gpu[r.parent], gpu);
    }
    std::vector<const BlockRow*> places;
    for (size_t i = 0; i < b.rows.size(); ++i)
      if (candidate[i] && !covered[i]) places.push_back(&b.rows[i]);
    if (places.empty()) return;
    auto weight = [&](const BlockRow* r) {
      return std::max(share(r->cpu_total_ns, b.basis_cpu_ns), share(r->gpu_ns, b.basis_gpu_ns));
    };
    std::stable_sort(places.begin(), places.end(), [&](const BlockRow* a, const BlockRow* c) { return weight(a) > weight(c); });
    // One record_function in a module's forward or a function names every place it runs: one
    // entry per group of code, with the group's time.
    std::vector<uint8_t> seen(b.groups.size(), 0);
    std::erase_if(places, [&](const BlockRow* r) { return std::exchange(seen[r->group], 1) != 0; });
    if (places.size() > kMaxPlaces) places.resize(kMaxPlaces);
    x.title = fmt::format("Python stacks but no record_function: {} place{} where one would pay off most", places.size(),
                          places.size() == 1 ? "" : "s");
    x.detail =
        "The Python frames locate your code, but a record_function block is what names it in every tool "
        "(Perfetto, TensorBoard, key_averages) and costs far less than with_stack. These blocks of your code "
        "hold a real share of the steps:";
    for (const BlockRow* r : places) {
      const std::string location = frame_location(t.names.view(r->location));
      const BlockGroup& g = b.groups[r->group];
      const int64_t cpu_basis = b.basis_cpu_ns * std::max<uint32_t>(1, g.total.threads);
      x.detail += g.rows.size() > 1
                      ? fmt::format("\n  - {} at {} ({} places): {:.0f} % of the CPU time, {:.0f} % of the GPU time",
                                    group_title(g), location, g.rows.size(), share(g.total.cpu_total_ns, cpu_basis) * 100,
                                    share(g.total.gpu_ns, b.basis_gpu_ns) * 100)
                      : fmt::format("\n  - {} at {}: {:.0f} % of the CPU time, {:.0f} % of the GPU time",
                                    t.names.view(r->name), location, share(r->cpu_total_ns, cpu_basis) * 100,
                                    share(r->gpu_ns, b.basis_gpu_ns) * 100);
      const std::string label = block_label(t, *r);
      x.try_next.push_back(fmt::format("At {}: with torch.profiler.record_function(\"{}\"): around the call, or "
                                       "decorate the function with @torch.profiler.record_function(\"{}\")",
                                       location, label, label));
      if (r->longest_call != kNoEvent) x.events.push_back({r->longest_call, "a place for record_function"});
    }
    x.evidence.push_back(count("places", places.size()));
  }
  x.evidence.insert(x.evidence.begin(), {count("annotations", b.annotation_events), count("module_events", b.module_events),
                                         count("python_frames", b.python_frames)});
  x.impact_what = "a way to read the trace, not a saving";
  out.push_back(std::move(x));
}

}  // namespace whyslow
