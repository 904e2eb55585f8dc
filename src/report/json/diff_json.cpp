// `whyslow diff --json`: the schema documented in docs/JSON.md ("whyslow diff").
#include "report/json/diff_window_json.hpp"
#include "report/json/json_report.hpp"
#include "report/json/json_writer.hpp"
#include "report/json/schema.hpp"

namespace whyslow {
namespace {

using report::JsonWriter;
using Layout = JsonWriter::Layout;

void spread(JsonWriter& w, const char* key, const Spread& s, bool time) {
  w.key(key).begin_object(Layout::Inline);
  for (auto [name, v] : {std::pair{"median", s.median}, {"min", s.min}, {"max", s.max}}) {
    w.key(name);
    if (time) w.microseconds(v);
    else w.integer(v);
  }
  w.end_object();
}

void side(JsonWriter& w, const char* key, const StepProfile& p) {
  w.key(key).begin_object();
  w.key("path").string(p.path);
  w.key("device").string(p.device);
  w.key("steady_steps").unsigned_integer(p.steps);
  w.key("whole_window").boolean(p.whole_window);
  w.key("left_out").begin_array();
  for (const std::string& s : p.left_out) w.string(s);
  w.end_array();
  w.key("step_us").microseconds(p.step.median);
  w.key("cpu_us").microseconds(p.cpu.median);
  w.key("gpu_busy_us").microseconds(p.gpu_busy.median);
  w.key("gpu_idle_us").microseconds(p.gpu_idle.median);
  w.key("sync_wait_us").microseconds(p.sync_wait.median);
  w.key("kernels_per_step").integer(p.kernels.median);
  w.key("launches_per_step").integer(p.launches.median);
  w.key("launches_by_api").begin_object(Layout::Inline);
  for (const auto& [api, s] : p.launches_by_api) w.key(api).integer(s.median);
  w.end_object();
  w.key("memcpys_per_step").integer(p.memcpys.median);
  w.key("memcpy_bytes_per_step").integer(p.memcpy_bytes.median);
  w.key("memsets_per_step").integer(p.memsets.median);
  w.key("memset_bytes_per_step").integer(p.memset_bytes.median);
  w.key("step_mad_us").microseconds(p.step_mad_ns);
  w.key("spread").begin_object();
  spread(w, "step_us", p.step, true);
  spread(w, "cpu_us", p.cpu, true);
  spread(w, "gpu_busy_us", p.gpu_busy, true);
  spread(w, "kernels", p.kernels, false);
  spread(w, "launches", p.launches, false);
  w.end_object();
  const CompileCost& c = p.compile;
  w.key("compile").begin_object(Layout::Inline);
  w.key("region_calls_per_step").number(c.region_calls);
  w.key("region_us_per_step").microseconds(c.region_ns);
  w.key("cache_lookups_per_step").number(c.cache_lookups);
  w.key("cache_lookup_us_per_step").microseconds(c.cache_lookup_ns);
  w.key("wrapper_prologue_us_per_step").microseconds(c.wrapper_prologue_ns);
  w.key("graph_calls_per_step").number(c.graph_calls);
  w.key("graph_call_us_per_step").microseconds(c.graph_call_ns);
  w.key("outside_graph_us_per_step").microseconds(c.outside_graph_ns);
  w.key("graph_breaks_per_step").number(c.graph_breaks);
  w.key("recompilations").unsigned_integer(c.recompilations);
  w.key("compile_us").microseconds(c.compile_ns);
  w.key("steps_compiling").unsigned_integer(c.steps_compiling);
  w.key("compilations_in_steps").unsigned_integer(c.compilations);
  w.key("compile_us_per_compiling_step").microseconds(c.compile_per_step_ns);
  w.end_object();
  w.key("cuda_graphs").begin_object(Layout::Inline);
  w.key("launches_per_step").number(p.graphs.launches);
  w.key("kernels_per_launch").number(p.graphs.kernels_per_launch);
  w.key("memcpys_per_step").number(p.graphs.copies);
  w.key("cudagraph_tree_calls_per_step").number(p.graphs.tree_events);
  w.end_object();
  w.end_object();
}

void kernel_list(JsonWriter& w, const char* key, const std::vector<KernelDelta>& list) {
  w.key(key).begin_array();
  for (const KernelDelta& k : list) {
    w.begin_object(Layout::Inline);
    w.key("name").string(k.name);
    w.key("a_calls_per_step").number(k.a_calls);
    w.key("b_calls_per_step").number(k.b_calls);
    w.key("a_us_per_step").microseconds(k.a_ns);
    w.key("b_us_per_step").microseconds(k.b_ns);
    w.end_object();
  }
  w.end_array();
}

// A part of the step on both sides: `{key, label, unit, a: {median, min, max}, b: {…}, delta}`.
void component(JsonWriter& w, const Component& c) {
  const bool time = c.unit == Quantity::Time;
  w.begin_object(Layout::Inline);
  w.key("key").string(c.key);
  w.key("label").string(c.label);
  w.key("unit").string(time ? "us" : "count");
  spread(w, "a", c.a, time);
  spread(w, "b", c.b, time);
  w.key("delta");
  if (time) w.microseconds(c.delta());
  else w.integer(c.delta());
  w.end_object();
}

void components(JsonWriter& w, const char* key, const std::vector<Component>& list) {
  w.key(key).begin_array();
  for (const Component& c : list) component(w, c);
  w.end_array();
}

void strings(JsonWriter& w, const char* key, const std::vector<std::string>& v) {
  w.key(key).begin_array(Layout::Inline);
  for (const std::string& s : v) w.string(s);
  w.end_array();
}

}  // namespace

std::string render_diff_json(const Diff& d, const report::DiffGate* gate) {
  JsonWriter w;
  w.begin_object();
  w.key("whyslow_version").string(kWhyslowVersion);
  w.key("schema_version").integer(kJsonSchemaVersion);
  w.key("kind").string("diff");
  strings(w, "mismatches", d.mismatches);
  side(w, "a", d.a);
  side(w, "b", d.b);
  w.key("kernels").begin_object();
  kernel_list(w, "matched", d.matched);
  kernel_list(w, "only_a", d.only_a);
  kernel_list(w, "only_b", d.only_b);
  w.key("replacements").begin_array();
  for (const Replacement& r : d.replacements) {
    w.begin_object();
    strings(w, "a", r.a_work);
    strings(w, "b", r.b_work);
    strings(w, "a_ops", r.a_ops);
    strings(w, "b_ops", r.b_ops);
    w.key("a_us").microseconds(r.a_ns);
    w.key("b_us").microseconds(r.b_ns);
    w.key("fusion").string(r.fusion);
    w.end_object();
  }
  w.end_array();
  w.key("alignment_note").string(d.alignment_note);
  w.end_object();
  components(w, "components", d.components);
  components(w, "blocks", d.blocks);
  const Verdict& v = d.verdict;
  w.key("verdict").begin_object();
  w.key("comparable").boolean(v.comparable);
  w.key("faster");
  if (v.comparable) w.string(v.faster);
  else w.null();
  w.key("delta_step_us").microseconds(v.delta_step_ns);
  w.key("delta_pct");
  if (v.delta_pct) w.number(*v.delta_pct);
  else w.null();
  w.key("noise_us").microseconds(v.noise_ns);
  w.key("basis").string(v.basis);
  w.key("confidence");
  if (v.confidence.empty()) w.null();
  else w.string(v.confidence);
  w.key("outlier_step");
  if (v.outlier_step.empty()) w.null();
  else w.string(v.outlier_step);
  w.key("cause");
  if (v.cause.kind.empty()) {
    w.null();
  } else {
    w.begin_object(Layout::Inline);
    w.key("kind").string(v.cause.kind);
    w.key("key").string(v.cause.key);
    w.key("delta_us").microseconds(v.cause.delta_ns);
    w.end_object();
  }
  w.key("significance").number(v.significance);
  w.key("rank_test").begin_object(Layout::Inline);
  w.key("u_b_slower").number(v.test.u_b_slower);
  w.key("pairs").number(v.test.pairs);
  w.key("p_value").number(v.test.p_value);
  w.key("exact").boolean(v.test.exact);
  w.key("smallest_p").number(v.test.smallest_p);
  w.key("ranges_disjoint").boolean(v.test.ranges_disjoint);
  w.end_object();
  w.key("overlap");
  if (!v.overlap.measured) {
    w.null();
  } else {
    w.begin_object(Layout::Inline);
    w.key("share").number(v.overlap.share);
    w.key("basis").string(v.overlap.basis);
    w.key("kernel_share").number(v.overlap.kernel_share);
    w.key("shape_share");
    if (v.overlap.shape_share < 0) w.null();
    else w.number(v.overlap.shape_share);
    for (auto [key, share] : {std::pair{"scaled_shape_share", v.overlap.scaled_shape_share},
                              {"top_input_share", v.overlap.top_input_share}}) {
      w.key(key);
      if (share < 0) w.null();
      else w.number(share);
    }
    w.key("inputs_agree").boolean(v.overlap.inputs_agree);
    strings(w, "agreeing_inputs", v.overlap.agreeing_inputs);
    w.end_object();
  }
  w.key("decomposition").begin_object(Layout::Inline);
  w.key("delta_gpu_busy_us").microseconds(v.delta_gpu_busy_ns);
  w.key("delta_cpu_us").microseconds(v.delta_cpu_ns);
  w.key("decided_by").string(v.decided_by);
  w.key("bound_a").string(v.bound_a);
  w.key("bound_b").string(v.bound_b);
  w.key("syncs_every_step").boolean(v.syncs_every_step);
  w.end_object();
  components(w, "largest_changes", v.largest_changes);
  w.key("advice").begin_object(Layout::Inline);
  w.key("keep");
  if (v.advice.keep.empty()) w.null();
  else w.string(v.advice.keep);
  w.key("because");
  if (v.advice.because.empty()) w.null();
  else w.string(v.advice.because);
  w.end_object();
  w.key("same_job").boolean(v.same_job);
  write_window_and_steady(w, d);
  w.key("summary").string(v.summary);
  strings(w, "try", v.try_next);
  w.end_object();
  if (gate) {
    w.key("gate").begin_object(Layout::Inline);
    w.key("max_slower_pct").number(gate->max_slower_pct);
    w.key("fails").boolean(gate->result.fails);
    w.key("slower_pct");
    if (gate->result.slower_pct) w.number(*gate->result.slower_pct);
    else w.null();
    w.key("reason").string(gate->result.reason);
    w.end_object();
  }
  w.end_object();
  std::string out = w.take();
  out += '\n';
  return out;
}

}  // namespace whyslow
