// `loops[]`: one object per step whose top-level work repeats (analysis/steps/loops.cpp).
#include "report/json/loops_json.hpp"

#include "report/json/idle_json.hpp"

namespace whyslow::report {

void write_loops(JsonWriter& w, const Trace& trace, const Facts& facts) {
  using Layout = JsonWriter::Layout;
  w.key("loops").begin_array();
  for (const LoopFacts& l : facts.loops) {
    w.begin_object();
    w.key("step").string(loop_scope(facts.steps, l));
    w.key("block").string(loop_block_name(trace, l));
    w.key("marker").string(trace.names.view(l.marker));
    w.key("period_events").unsigned_integer(l.period);
    w.key("iterations").unsigned_integer(l.iteration_count);
    w.key("first_us").microseconds(l.iterations.front().duration_ns);
    w.key("median_us").microseconds(l.median_ns);
    w.key("cpu_median_us").microseconds(l.cpu_median_ns);
    w.key("gpu_median_us").microseconds(l.gpu_median_ns);
    w.key("first_tokens").integer(l.first_tokens);
    w.key("tokens_per_iteration").integer(l.tokens_per_iteration);
    w.key("tokens_per_s").number(tokens_per_s(l));
    // The iterations the loop kept (kMaxLoopIterationsKept), the rest counted.
    w.key("each_left_out").unsigned_integer(l.iteration_count - l.iterations.size());
    w.key("each").begin_array();
    for (const StepFacts& it : l.iterations) {
      w.begin_object(Layout::Inline);
      w.key("start_us").microseconds(it.start_ns);
      w.key("duration_us").microseconds(it.duration_ns);
      w.key("cpu_us").microseconds(it.cpu_ns);
      w.key("gpu_busy_us").microseconds(it.gpu_busy_ns);
      w.key("kernels").unsigned_integer(it.kernels);
      w.key("launches").unsigned_integer(it.launches);
      write_gpu_idle(w, it.idle);
      w.end_object();
    }
    w.end_array();
    w.end_object();
  }
  w.end_array();
}

}  // namespace whyslow::report
