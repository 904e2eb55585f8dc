// data_loading: the step waits for its input pipeline. Time inside DataLoader spans
// (enumerate(DataLoader)#…) on the step's thread is time the training loop spends getting the next
// batch — loading, decoding, transforming and collating in the main process, or waiting for
// workers that cannot keep up — and the GPU usually idles through it.
#include <fmt/core.h>

#include <algorithm>

#include "analysis/core/event_names.hpp"
#include "common/units.hpp"
#include "explain/evidence.hpp"
#include "explain/rules.hpp"

namespace whyslow {
namespace {

// A tenth of the step in the input pipeline is worth fixing: the usual fixes (workers, pinning,
// prefetching) cost a line of code each and take that time off the critical path.
constexpr double kMinLoadingShareOfStep = 0.10;
// From half the step on, the input pipeline is the bottleneck: nothing else matters as much.
constexpr double kCriticalShareOfStep = 0.50;

}  // namespace

void rule_data_loading(const Trace& t, const Facts& f, std::vector<Finding>& out) {
  const auto steps = steady_steps(f);
  if (steps.empty()) return;
  const int64_t step = median_of(steps, &StepFacts::duration_ns);
  const int64_t loading = median_of(steps, CpuCategory::DataLoading);
  const int64_t idle = median_of(steps, &StepFacts::data_loading_gpu_idle_ns);
  if (step <= 0 || static_cast<double>(loading) < kMinLoadingShareOfStep * static_cast<double>(step)) return;
  const double share = static_cast<double>(loading) / static_cast<double>(step);
  EventId longest = kNoEvent;
  for (EventId e = 0; e < t.size(); ++e)
    if (is_data_loader_span(t.name_of(e)) && (longest == kNoEvent || t.dur_ns[e] > t.dur_ns[longest])) longest = e;

  // A CPU-only run (no GPU lane in the trace) has no GPU to leave idle: the words say so.
  const bool has_gpu = std::any_of(t.tracks.begin(), t.tracks.end(),
                                   [](const Track& tr) { return tr.kind == TrackKind::Gpu; });
  Finding x = make_finding(FindingId::data_loading);
  if (share >= kCriticalShareOfStep) x.severity = Severity::Critical;
  x.title = fmt::format("The step waits for its input: {} of {} is spent getting the next batch from the "
                        "DataLoader{}",
                        human_duration(loading), describe_span(f, step),
                        has_gpu && idle > 0 ? fmt::format(", with the GPU idle for {}", human_duration(idle)) : "");
  x.detail = fmt::format(
      "The DataLoader spans (enumerate(DataLoader)#…) on the step's thread take {} of {} ({}). That is the "
      "time the loop waits for its next batch: with num_workers=0 the main process loads, transforms and "
      "collates every sample itself; with workers it waits when they cannot keep up. {}This is not "
      "launch overhead: CUDA graphs or a faster model would not shorten it.",
      human_duration(loading), describe_span(f, step), human_percent(share),
      has_gpu ? fmt::format("During that time {} of GPU time goes unused, because nothing is queued for the GPU "
                            "until the batch arrives. ", human_duration(idle))
              : std::string("The trace records no GPU work: the model's own steps wait behind the input. "));
  x.evidence = {us("data_loading_us", loading), us("step_us", step), percent("data_loading_pct", share),
                us("gpu_idle_during_us", idle)};
  if (longest != kNoEvent) x.events.push_back({longest, "longest DataLoader fetch"});
  // A DataLoader that already loads in worker processes (its iterator is the multi-process one)
  // waits for workers that cannot keep up: advising workers would be advice it already follows.
  const bool has_workers = longest != kNoEvent && loads_in_workers(t.name_of(longest));
  x.try_next = {has_workers
                    ? "The DataLoader already loads in worker processes (_MultiProcessingDataLoaderIter) and the loop "
                      "still waits: the workers cannot keep up. Raise num_workers while CPU cores are idle, make each "
                      "sample cheaper to load and transform, and keep persistent_workers=True."
                    : "Load in worker processes: DataLoader(num_workers=N) with N up to the CPU cores you can spare, "
                      "and persistent_workers=True so they survive between epochs.",
                "pin_memory=True and .to(device, non_blocking=True), so the copy to the GPU overlaps the step.",
                "Prefetch more batches (prefetch_factor) when the loading time varies from batch to batch.",
                "Move heavy transforms to the GPU (decode and augment batched tensors there), or do them once "
                "offline and store the result."};
  x.impact_ns = loading;
  x.impact_what = "the step's time waiting for its input";
  x.impact_basis_ns = step;
  out.push_back(std::move(x));
}

}  // namespace whyslow
