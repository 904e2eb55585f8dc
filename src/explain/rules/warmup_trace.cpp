// warmup_trace: the trace records a warm-up phase — CUDA-graph capture, or torch.compile
// compiling — so no steady-state verdict (overhead_bound, gpu_bound, …) is given, and the user is
// told what to record instead. The kind is decided once (steady_steps.hpp: trace_kind).
#include <fmt/core.h>

#include "common/units.hpp"
#include "explain/evidence.hpp"
#include "explain/rules.hpp"

namespace whyslow {

void rule_warmup_trace(const Trace&, const Facts& f, std::vector<Finding>& out) {
  const TraceKind kind = trace_kind(f);
  // A first call recorded alone: cold_start speaks, with its causes and what to record instead.
  if (kind == TraceKind::Steady || kind == TraceKind::FirstCall) return;
  Finding x = make_finding(FindingId::warmup_trace);
  x.evidence = {us("window_us", f.window.duration_ns)};
  if (kind == TraceKind::GraphCapture) {
    x.title = fmt::format("This trace records CUDA-graph capture ({} {}, {} of the {} window), not a steady state",
                          f.compile.captures, f.compile.captures == 1 ? "capture" : "captures",
                          human_duration(f.compile.capture_ns), human_duration(f.window.duration_ns));
    x.detail = fmt::format(
        "Between StreamBeginCapture and StreamEndCapture the stream records its launches into a CUDA graph "
        "instead of running them, so the GPU idles and each launch costs more than it will at replay. Its "
        "GPU busy share, launch gaps and per-kernel CPU time describe the capture, not the serving or "
        "training loop: whyslow gives no bound verdict for it. The capture itself is a one-off cost of "
        "{} here{}.",
        human_duration(f.compile.capture_ns), f.compile.graph_launches > 0
                                                  ? fmt::format("; the trace also replays graphs {} times",
                                                                f.compile.graph_launches)
                                                  : "");
    x.evidence.insert(x.evidence.end(), {count("captures", f.compile.captures), us("capture_us", f.compile.capture_ns)});
    x.try_next = {"Profile the replay phase instead: start the profiler after capture (after the engine's "
                  "warm-up, e.g. vLLM/SGLang's profiler endpoints once serving), and give it a schedule with "
                  "wait/warmup steps.",
                  "If capture time itself matters (start-up latency), capture fewer batch sizes or cache the "
                  "compiled graphs."};
  } else {
    x.title = fmt::format("This trace records torch.compile compiling ({} of the {} window), not a steady state",
                          human_duration(f.compile.compile_ns), human_duration(f.window.duration_ns));
    x.detail =
        "Dynamo and Inductor compile during most of the profiled window, so its GPU busy share and CPU time "
        "describe compilation, which runs once: whyslow gives no bound verdict for it.";
    x.evidence.push_back(us("compile_us", f.compile.compile_ns));
    x.try_next = {"Profile after warm-up: run the compiled function a few times first, or use "
                  "schedule(wait=1, warmup=1, active=3, repeat=1) with prof.step() per iteration.",
                  "To see what compilation costs and why it recompiles: TORCH_LOGS=recompiles, tlparse."};
  }
  x.impact_ns = 0;  // a statement about the trace, not a cost
  x.impact_what = "a statement about the trace, not a cost";
  out.push_back(std::move(x));
}

}  // namespace whyslow
