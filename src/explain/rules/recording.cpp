// nothing_recorded / gpu_not_recorded: what the trace cannot say (analysis/recording/recording.cpp
// decides what was recorded). A trace with nothing in it, or with GPU work but no record of it on
// the GPU, must never read as an all-clear or as an idle GPU: the finding says what is missing,
// the usual reasons, and how to record it; explain() runs no rule that reads the GPU's records.
#include <fmt/core.h>

#include <string>
#include <vector>

#include "common/units.hpp"
#include "explain/evidence.hpp"
#include "explain/rules.hpp"
#include "explain/rules/record_snippet.hpp"

namespace whyslow {

void rule_recording(const Trace& t, const Facts& f, std::vector<Finding>& out) {
  const RecordingFacts& r = f.recording;
  if (r.what == Recorded::Nothing) {
    Finding x = make_finding(FindingId::nothing_recorded);
    x.about_the_trace = true;
    x.title = "The profiler recorded nothing: no op, block, step or GPU work in the trace";
    x.detail = fmt::format(
        "The trace holds only metadata{}: no ATen op, record_function block, ProfilerStep, Python frame, kernel launch "
        "or GPU record, so there is nothing to explain. The usual reasons: the profiled code ran outside the "
        "`with profile()` block (or before prof.start(), after prof.stop()); a schedule without repeat=1, whose "
        "last cycle torch exports at exit with no step in it; or an export of a cycle that recorded no step "
        "(prof.step() must be called once per step).",
        f.window.duration_ns > 0 ? fmt::format(" and the profiler's own events, over {}", human_duration(f.window.duration_ns))
                                 : std::string());
    x.evidence = {us("window_us", f.window.duration_ns)};
    x.try_next = {"Record the code inside the `with` block, call prof.step() once per step, and give the "
                  "schedule no more steps than the loop takes (repeat=1)."};
    x.code = {torch_profile_snippet("Or record the steps like this:")};
    x.impact_what = "a statement about the trace, not a cost";
    out.push_back(std::move(x));
    return;
  }
  if (r.what != Recorded::GpuNotRecorded) return;
  Finding x = make_finding(FindingId::gpu_not_recorded);
  x.about_the_trace = true;
  const std::string machine =
      !t.devices.empty()
          ? fmt::format(" on a machine whose trace describes {} GPU{}", t.devices.size(), t.devices.size() == 1 ? "" : "s")
          : std::string();
  if (r.gpu_work_calls + r.gpu_sync_calls > 0) {
    x.title = fmt::format("The GPU's records are missing: {} calls that put work on the GPU, {} that wait for it, and "
                          "no kernel, copy or memset in the trace",
                          r.gpu_work_calls, r.gpu_sync_calls);
    x.detail = fmt::format(
        "The CPU side uses a GPU ({} kernel launches, copies and memsets, {} synchronizing calls{}), but nothing "
        "records when its work ran on the GPU, so whyslow says nothing of the GPU's time: neither how busy it was "
        "nor why it waited. The usual reasons: the trace was recorded with ProfilerActivity.CPU alone (torch still "
        "records the CUDA calls then); CUPTI could not trace the GPU where the program ran (a WSL or virtual-GPU "
        "driver without CUPTI's activity tracing, or another tool holding CUPTI: Nsight Systems, DCGM profiling; "
        "the profiler warns at start when it cannot); or its records were lost (the program exited before the "
        "profiler stopped and flushed them). The CPU side below is measured as recorded.",
        r.gpu_work_calls, r.gpu_sync_calls, machine);
  } else {
    // No CUDA call at all: only the ops say a GPU ran the work.
    std::vector<std::string> signs;
    if (r.gpu_only_ops > 0)
      signs.push_back(fmt::format("{} op{} that run only on a GPU, such as {}", r.gpu_only_ops,
                                  r.gpu_only_ops == 1 ? "" : "s", r.gpu_only_op));
    if (!r.gpu_backend.empty()) signs.push_back(fmt::format("the distributed backend {}, which runs only on GPUs", r.gpu_backend));
    const BeyondCpuFacts& b = r.beyond_cpu;
    if (!b.op.empty())
      // The formula names the op: "aten::mm: 2·M·N·K = 2·4096·4096·4096".
      signs.push_back(fmt::format("{} = {} of {} per call in {} of CPU time: {}, beyond any CPU's {}", b.formula,
                                  human_flops(b.flops_per_call), b.precision, human_duration(b.mean_ns),
                                  human_flop_rate(b.flops_per_s), human_flop_rate(b.ceiling_flops_per_s)));
    std::string said = signs.at(0);
    for (size_t i = 1; i < signs.size(); ++i) said += (i + 1 == signs.size() ? " and " : ", ") + signs[i];
    x.title = fmt::format("The GPU's records are missing: the trace's ops ran on a GPU ({}), but it holds no CUDA "
                          "call, kernel, copy or memset",
                          said);
    x.detail = fmt::format(
        "The program used a GPU{}, but the trace holds only its CPU ops: no kernel launch, no synchronizing call and "
        "no record of the GPU's work (the CUDA activity was not recorded), so whyslow says nothing of the GPU's time, "
        "and the CPU time below leaves out the CUDA calls.{} The usual reasons: the trace was cut down to its CPU ops "
        "(a tool or a script that filtered the events; test data often is), or it was recorded with "
        "ProfilerActivity.CPU alone by a torch that records no CUDA call then.",
        machine,
        b.op.empty() ? std::string()
                     : fmt::format(" The ops' durations are the time their launches took on the CPU: {} calls of {} "
                                   "average {} each, while their shapes say each computed {}.",
                                   b.calls, b.op, human_duration(b.mean_ns), human_flops(b.flops_per_call)));
  }
  x.evidence = {count("gpu_work_calls", r.gpu_work_calls), count("gpu_sync_calls", r.gpu_sync_calls),
                count("gpu_records", r.gpu_records),
                count("gpu_only_ops", r.gpu_only_ops), count("gpus_described", t.devices.size())};
  if (!r.beyond_cpu.op.empty())
    x.evidence.push_back({"beyond_cpu_op_rate", r.beyond_cpu.flops_per_s / 1e12, "TFLOP/s"});
  x.try_next = {"Record CUDA activity too: activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]. If it was "
                "asked for, read the warnings the profiler printed when it started (CUPTI's errors are there), and "
                "record again outside WSL or without another profiler attached."};
  x.code = {torch_profile_snippet("Record both sides like this:")};
  x.impact_what = "a statement about the trace, not a cost";
  out.push_back(std::move(x));
}

}  // namespace whyslow
