// cpu_bound: the verdict for a program that runs on the CPU (analysis/recording: CPU work and no
// call that puts work on a GPU). Without it a CPU-only trace got no diagnosis at all (7 of 34
// traces from other people's repositories), or GPU advice (CUDA graphs) for CPU code. Says where
// the CPU time goes: the ops by self time as key_averages() ranks them, the categories of the
// steps' time, the threads; the blocks are the hotspot finding's. Advice fits what holds the time.
#include <fmt/core.h>

#include <algorithm>
#include <array>

#include "common/units.hpp"
#include "explain/evidence.hpp"
#include "explain/rules.hpp"
#include "explain/rules/cpu_categories.hpp"

namespace whyslow {
namespace {

// Ops named in the title: the few that hold most of the time, as torch's table shows them first.
constexpr size_t kOpsNamed = 3;
// The step's CPU categories named in the text: at most three, each holding at least 1 % of the step
// (below it a category changes nothing the reader would act on).
constexpr size_t kCategoriesNamed = 3;
constexpr double kCategoryNamedShare = 0.01;
// Matrix products and convolutions holding this share of the ops' self time are the workload's
// core: their advice (bf16 on the CPU, the threads) comes first. A third: below it, the elementwise
// and Python time around them is as large, and fusing it is the better first lever.
constexpr double kMatrixShare = 0.3;
// A machine with a GPU the program never uses, and CPU work holding half of each step: moving the
// work to the GPU is the change that matters, so the verdict is a warning.
constexpr double kUnusedGpuWarningShare = 0.5;

// A step that waits for its DataLoader at least half of its time is the data_loading finding's:
// faster ops (bf16, torch.compile) shorten only the rest, so the verdict says where the time is and
// advises nothing that would give less than the wait's fix.
constexpr double kDataLoadingLeadsShare = 0.5;

// ATen's matrix products and convolutions on the CPU (mkldnn/oneDNN kernels among them).
constexpr std::array<std::string_view, 12> kMatrixOps = {
    "aten::mm",           "aten::addmm",          "aten::bmm",           "aten::baddbmm",
    "aten::addbmm",       "aten::_addmm_activation", "aten::mkldnn_convolution", "aten::convolution_backward",
    "aten::mkldnn_linear", "aten::_mkl_linear",   "aten::slow_conv2d_forward", "aten::_slow_conv2d_backward"};

bool is_matrix_op(std::string_view name) {
  return std::find(kMatrixOps.begin(), kMatrixOps.end(), name) != kMatrixOps.end();
}

// An operator's row (aten::mm, c10d::allreduce_, autograd::engine::…), not a record_function
// block's ("forward", "Optimizer.step#AdamW.step") nor "ProfilerStep*": the hotspot names blocks.
bool is_operator_row(const OpRow& r) {
  return !r.device_row && r.name.find("::") != std::string::npos;
}

}  // namespace

void rule_cpu_bound(const Trace& t, const Facts& f, std::vector<Finding>& out) {
  if (f.recording.what != Recorded::CpuOnly) return;
  const std::vector<const StepFacts*> windows = steady_steps(f);
  const int64_t step = median_of(windows, &StepFacts::duration_ns);
  int64_t all_self = 0, matrix = 0;
  std::vector<const OpRow*> ops;
  for (const OpRow& r : f.ops) {
    if (r.device_row) continue;
    all_self += r.self_cpu_ns;  // torch's "Self CPU %" is of this sum
    if (!is_operator_row(r)) continue;
    ops.push_back(&r);
    if (is_matrix_op(r.name)) matrix += r.self_cpu_ns;
  }
  if (step <= 0 || all_self <= 0 || ops.empty()) return;
  std::stable_sort(ops.begin(), ops.end(), [](const OpRow* a, const OpRow* b) { return a->self_cpu_ns > b->self_cpu_ns; });
  const auto share = [&](int64_t ns) { return static_cast<double>(ns) / static_cast<double>(all_self); };
  std::string named;
  for (size_t i = 0; i < std::min(kOpsNamed, ops.size()); ++i)
    named += fmt::format("{}{} {}", i == 0 ? "" : ", ", ops[i]->name, human_percent(share(ops[i]->self_cpu_ns)));
  const auto categories = ranked_categories(windows);
  size_t op_threads = 0;
  for (const Track& tr : t.tracks)
    if (tr.kind == TrackKind::Cpu &&
        std::any_of(tr.events.begin(), tr.events.end(), [&](EventId e) { return t.kind[e] == EventKind::CpuOp; }))
      ++op_threads;
  const int64_t in_ops = median_of(windows, CpuCategory::CpuCompute);
  const double ops_share = static_cast<double>(in_ops) / static_cast<double>(step);
  const bool unused_gpu = !t.devices.empty();  // deviceProperties lists a GPU this program never used
  const int64_t loading = median_of(windows, CpuCategory::DataLoading);
  const bool loading_leads = static_cast<double>(loading) >= kDataLoadingLeadsShare * static_cast<double>(step);

  Finding x = make_finding(FindingId::cpu_bound);
  x.severity = unused_gpu && ops_share >= kUnusedGpuWarningShare ? Severity::Warning : Severity::Info;
  const std::string gpu_words = unused_gpu ? fmt::format("; the {} this machine has runs nothing", t.devices.front().name) : "";
  x.title = loading_leads
                ? fmt::format("The program runs on the CPU, and waits for its DataLoader {} of each {} step; its ops "
                              "hold {} of it{}",
                              human_percent(static_cast<double>(loading) / static_cast<double>(step)),
                              human_duration(step), human_percent(ops_share), gpu_words)
                : fmt::format("The program runs on the CPU: {} of the recorded self time{}", named, gpu_words);
  std::string where;
  for (size_t i = 0; i < std::min(kCategoriesNamed, categories.size()); ++i)
    if (static_cast<double>(categories[i].first) >= kCategoryNamedShare * static_cast<double>(step))
      where += fmt::format("{}{} {} ({})", i == 0 ? "" : ", ", human_duration(categories[i].first),
                         cpu_category_words(categories[i].second), human_percent(static_cast<double>(categories[i].first) / static_cast<double>(step)));
  x.detail = fmt::format(
      "No call in the trace puts work on a GPU, so {} is CPU time: {}. By self time, as key_averages() ranks "
      "them, the ops are {} of all recorded self time; matrix products and convolutions hold {}. Ops ran on {} "
      "thread{} (torch's intra-op threads, which run one op's work in parallel, are not recorded: "
      "torch.get_num_threads() says how many there are).",
      f.steps.empty() ? fmt::format("the {} profiled", human_duration(step))
                      : fmt::format("each {} step", human_duration(step)),
      where.empty() ? "nothing is recorded in it" : where, named, human_percent(share(matrix)), op_threads,
      op_threads == 1 ? "" : "s");
  x.evidence = {us("step_us", step), us("in_ops_us", in_ops), percent("in_ops_pct", ops_share),
                percent("top_op_pct", share(ops.front()->self_cpu_ns)), percent("matrix_pct", share(matrix)),
                count("op_threads", op_threads), count("gpus_described", t.devices.size())};
  if (unused_gpu)
    x.try_next.push_back(fmt::format(
        "Run it on the {}: model.to(\"cuda\") and each batch .to(\"cuda\", non_blocking=True) (pin_memory=True in "
        "the DataLoader); then profile with ProfilerActivity.CUDA too.",
        t.devices.front().name));
  if (loading_leads)
    x.try_next.push_back(fmt::format(
        "Shorten the wait for data first (the data_loading finding says how): faster ops, with bf16 or torch.compile, "
        "could give back at most their {} of the step.",
        human_duration(in_ops)));
  else if (share(matrix) >= kMatrixShare)
    x.try_next.push_back(
        "Matrix products and convolutions lead: with torch.autocast(\"cpu\", dtype=torch.bfloat16) they run in bf16 "
        "on CPUs with AMX or AVX-512 BF16 (Intel Sapphire Rapids, AMD Zen 4 and later); check that "
        "torch.get_num_threads() is the machine's physical core count.");
  else
    x.try_next.push_back(
        "Small ops and the Python between them lead: torch.compile fuses them into generated C++ loops on the CPU "
        "(Inductor's CPU backend), or write the step in fewer, larger tensor ops.");
  x.impact_ns = in_ops;
  x.impact_what = "the step's time in ops: only less or faster CPU work (or the GPU) shortens it";
  x.impact_basis_ns = step;
  out.push_back(std::move(x));
}

}  // namespace whyslow
