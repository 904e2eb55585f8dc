// `--json`: facts and findings in the stable schema documented in docs/JSON.md. Times are
// microseconds written from the integer nanoseconds with three decimals, so they are exact.
#include "report/json/comm_json.hpp"
#include "analysis/steps/steady_steps.hpp"
#include "analysis/blocks/code_origin.hpp"
#include "report/json/json_writer.hpp"
#include "report/json/json_report.hpp"
#include "report/json/roofline_json.hpp"
#include "report/json/idle_json.hpp"
#include "report/json/graph_json.hpp"
#include "report/json/loops_json.hpp"
#include "report/json/memory_json.hpp"
#include "report/json/schema.hpp"
#include "report/text/tables.hpp"

namespace whyslow {
namespace {

using report::JsonWriter;
using Layout = JsonWriter::Layout;

// {category: µs, …}: every CPU-time category, in the order of docs/JSON.md, zeros included.
void write_cpu_breakdown(JsonWriter& w, const CpuBreakdown& b) {
  w.key("cpu_breakdown_us").begin_object(Layout::Inline);
  for (size_t c = 0; c < kCpuCategories; ++c) w.key(to_string(static_cast<CpuCategory>(c))).microseconds(b[c]);
  w.end_object();
}

void write_trace(JsonWriter& w, const Trace& trace, const Facts& facts) {
  w.key("trace").begin_object();
  w.key("path").string(trace.path);
  w.key("events").unsigned_integer(trace.size());
  w.key("input_bytes").unsigned_integer(trace.input_bytes);
  w.key("truncated").boolean(trace.truncated);
  w.key("truncated_at_byte");
  if (trace.truncated) w.unsigned_integer(trace.truncated_at_byte);
  else w.null();
  w.key("repaired_op_links").unsigned_integer(trace.repaired_op_links);
  w.key("kind").string(to_string(trace_kind(facts)));
  w.key("recorded").string(to_string(facts.recording.what));
  w.key("devices").begin_array();
  for (const DeviceInfo& d : trace.devices) {
    w.begin_object(Layout::Inline);
    w.key("id").integer(d.id).key("name").string(d.name).key("num_sms");
    if (d.num_sms >= 0) w.integer(d.num_sms);
    else w.null();
    w.end_object();
  }
  w.end_array();
  w.key("window_us").microseconds(facts.window.duration_ns);
  w.key("window_start_us").microseconds(facts.window.start_ns);
  w.key("gpu_busy_us").microseconds(facts.gpu_busy_ns);
  report::write_gpu_idle(w, facts.window.idle);
  write_cpu_breakdown(w, facts.window.cpu_breakdown);
  w.key("cpu_breakdown_thread");
  if (facts.steps.empty() && facts.window_thread < trace.tracks.size()) w.string(trace.tracks[facts.window_thread].name);
  else w.null();
  report::write_trace_comm(w, trace, facts);
  report::write_trace_memory(w, facts);
  w.end_object();
}

void write_steps(JsonWriter& w, const Facts& facts) {
  w.key("steps").begin_array();
  for (size_t i = 0; i < facts.steps.size(); ++i) {
    const StepFacts& s = facts.steps[i];
    w.begin_object(Layout::Inline);
    w.key("name").string(s.name);
    w.key("start_us").microseconds(s.start_ns);
    w.key("duration_us").microseconds(s.duration_ns);
    w.key("cpu_us").microseconds(s.cpu_ns);
    w.key("sync_wait_us").microseconds(s.sync_wait_ns);
    w.key("gpu_busy_us").microseconds(s.gpu_busy_ns);
    w.key("kernels").unsigned_integer(s.kernels);
    w.key("memcpys").unsigned_integer(s.memcpys);
    w.key("memsets").unsigned_integer(s.memsets);
    w.key("launches").unsigned_integer(s.launches);
    write_cpu_breakdown(w, s.cpu_breakdown);
    w.key("data_loading_gpu_idle_us").microseconds(s.data_loading_gpu_idle_ns);
    w.key("allocator_calls").unsigned_integer(s.allocator_calls);
    report::write_gpu_idle(w, s.idle);
    report::write_step_comm(w, s);
    report::write_step_memory(w, facts, i);
    report::write_step_replay(w, facts, i);
    w.end_object();
  }
  w.end_array();
}

// An [x, y, z] launch dimension, or null when the trace did not record it.
void write_dim3(JsonWriter& w, const int32_t (&dim)[3]) {
  if (dim[0] < 0) {
    w.null();
    return;
  }
  w.begin_array(Layout::Inline);
  for (int32_t v : dim) w.integer(v);
  w.end_array();
}

void write_optional(JsonWriter& w, int32_t v) {
  if (v < 0) w.null();
  else w.integer(v);
}

void write_kernels(JsonWriter& w, const Trace& trace, const Facts& facts) {
  w.key("kernels").begin_array();
  for (size_t i = 0; i < facts.kernels.size(); ++i) {
    const KernelRow& k = facts.kernels[i];
    w.begin_object();
    w.key("name").string(trace.names.view(k.name));
    w.key("calls").unsigned_integer(k.calls);
    w.key("total_us").microseconds(k.total_ns);
    w.key("mean_us").microseconds(mean_ns(k));
    w.key("min_us").microseconds(k.min_ns);
    w.key("max_us").microseconds(k.max_ns);
    w.key("median_us").microseconds(k.median_ns);
    w.key("grid");
    write_dim3(w, k.launch.grid);
    w.key("block");
    write_dim3(w, k.launch.block);
    w.key("uniform_launch").boolean(k.uniform_launch);
    w.key("registers");
    write_optional(w, k.launch.registers);
    w.key("shared_memory");
    write_optional(w, k.launch.shared_memory);
    report::write_kernel_roofline(w, trace, facts, i);
    w.end_object();
  }
  w.end_array();
}

void write_ops(JsonWriter& w, const Facts& facts) {
  w.key("ops").begin_array();
  for (const OpRow& op : facts.ops) {
    w.begin_object(Layout::Inline);
    w.key("name").string(op.name);
    w.key("device_row").boolean(op.device_row);
    w.key("calls").unsigned_integer(op.calls);
    w.key("self_cpu_us").microseconds(op.self_cpu_ns);
    w.key("cpu_total_us").microseconds(op.cpu_total_ns);
    w.key("device_total_us").microseconds(op.device_total_ns);
    w.key("self_device_us").microseconds(op.self_device_ns);
    w.end_object();
  }
  w.end_array();
}

void write_annotations(JsonWriter& w, const Facts& facts) {
  w.key("annotations").begin_array();
  for (const AnnotationRow& a : facts.annotations) {
    w.begin_object(Layout::Inline);
    w.key("name").string(a.name);
    w.key("calls").unsigned_integer(a.calls);
    w.key("cpu_total_us").microseconds(a.cpu_total_ns);
    w.key("gpu_us").microseconds(a.gpu_ns);
    w.key("kernels").unsigned_integer(a.kernels);
    w.end_object();
  }
  w.end_array();
}

std::string_view attribution_name(uint8_t a) {
  switch (a) {
    case kOwnThread: return "own_thread";
    default: return "fwd_bwd_link";
  }
}

// "location": "file:line" of a frame name, or null.
void write_location(JsonWriter& w, const Trace& trace, NameId frame) {
  const std::string location = frame == kNoName ? std::string() : frame_location(trace.names.view(frame));
  w.key("location");
  location.empty() ? w.null() : w.string(location);
}

// The numbers a block row and a group (its rows summed) share.
void write_block_numbers(JsonWriter& w, const BlockRow& r) {
  w.key("calls").unsigned_integer(r.calls);
  w.key("cpu_total_us").microseconds(r.cpu_total_ns);
  w.key("self_cpu_us").microseconds(r.self_cpu_ns);
  w.key("gpu_us").microseconds(r.gpu_ns);
  w.key("other_thread_gpu_us").microseconds(r.other_thread_gpu_ns);
  w.key("kernels").unsigned_integer(r.kernels);
  w.key("launches").unsigned_integer(r.launches);
  w.key("attribution").string(attribution_name(r.attribution));
  w.key("threads").unsigned_integer(r.threads);
  w.key("repeated_calls").unsigned_integer(r.repeated_calls);
  w.key("backward_cpu_us").microseconds(r.backward_cpu_ns);
  w.key("backward_gpu_us").microseconds(r.backward_gpu_ns);
  w.key("backward_ops").unsigned_integer(r.backward_ops);
  w.key("backward_kernels").unsigned_integer(r.backward_kernels);
}

void write_blocks(JsonWriter& w, const Trace& trace, const Facts& facts) {
  const BlockFacts& b = facts.blocks;
  w.key("blocks_basis").begin_object(Layout::Inline);
  w.key("cpu_us").microseconds(b.basis_cpu_ns).key("gpu_us").microseconds(b.basis_gpu_ns);
  w.key("backward_us").microseconds(b.basis_backward_ns);
  w.end_object();
  w.key("blocks").begin_array();
  for (size_t i = 0; i < b.rows.size(); ++i) {
    const BlockRow& r = b.rows[i];
    w.begin_object(Layout::Inline);
    w.key("id").unsigned_integer(i);
    w.key("name").string(trace.names.view(r.name));
    w.key("kind").string(to_string(r.kind));
    write_location(w, trace, r.location);
    w.key("user_code").boolean(r.user_code);
    w.key("parent");
    r.parent == UINT32_MAX ? w.null() : w.unsigned_integer(r.parent);
    w.key("depth").unsigned_integer(r.depth);
    write_block_numbers(w, r);
    w.key("group").unsigned_integer(r.group);
    w.end_object();
  }
  w.end_array();
  w.key("block_groups").begin_array();
  for (size_t i = 0; i < b.groups.size(); ++i) {
    const BlockGroup& g = b.groups[i];
    w.begin_object(Layout::Inline);
    w.key("id").unsigned_integer(i);
    w.key("label").string(g.label);
    w.key("kind").string(to_string(g.kind));
    write_location(w, trace, g.location);
    w.key("user_code").boolean(g.user_code);
    w.key("instances").unsigned_integer(g.instances);
    w.key("rows").begin_array(Layout::Inline);
    for (const uint32_t r : g.rows) w.unsigned_integer(r);
    w.end_array();
    write_block_numbers(w, g.total);
    w.end_object();
  }
  w.end_array();
}

void write_findings(JsonWriter& w, const Trace& trace, const Facts& facts, const std::vector<Finding>& findings) {
  w.key("findings").begin_array();
  for (const Finding& f : findings) {
    w.begin_object();
    w.key("id").string(to_string(f.id));
    w.key("severity").string(to_string(f.severity));
    w.key("title").string(f.title);
    w.key("detail").string(f.detail);
    w.key("impact_us").microseconds(f.impact_ns);
    w.key("recoverable_basis").string(f.impact_what);
    w.key("what_if");
    if (f.what_if) report::write_what_if(w, *f.what_if);
    else w.null();
    w.key("evidence").begin_object();
    for (const Evidence& e : f.evidence) {
      w.key(e.key).begin_object(Layout::Inline);
      w.key("value").number(e.value).key("unit").string(e.unit);
      w.end_object();
    }
    w.end_object();
    w.key("events").begin_array();
    for (const EventRef& ref : f.events) {
      if (ref.event >= trace.size()) continue;  // a rule that found no event leaves kNoEvent
      const EventId e = ref.event;
      w.begin_object(Layout::Inline);
      w.key("name").string(trace.name_of(e));
      w.key("role").string(ref.role);
      w.key("start_us").microseconds(trace.start_ns[e]);
      w.key("offset_us").microseconds(trace.start_ns[e] - facts.window.start_ns);
      w.key("dur_us").microseconds(trace.dur_ns[e]);
      w.key("track").string(trace.tracks[trace.track[e]].name);
      w.end_object();
    }
    w.end_array();
    w.key("try").begin_array();
    for (const std::string& t : f.try_next) w.string(t);
    w.end_array();
    w.key("code").begin_array();
    for (const CodeSnippet& c : f.code) {
      w.begin_object();
      w.key("caption").string(c.caption).key("language").string(c.language).key("text").string(c.text);
      w.end_object();
    }
    w.end_array();
    w.key("about_the_trace").boolean(f.about_the_trace);
    w.end_object();
  }
  w.end_array();
}

}  // namespace

std::string render_json(const Trace& trace, const Facts& facts, const std::vector<Finding>& findings) {
  JsonWriter w;
  w.begin_object();
  w.key("whyslow_version").string(kWhyslowVersion);
  w.key("schema_version").integer(kJsonSchemaVersion);
  write_trace(w, trace, facts);
  write_steps(w, facts);
  write_kernels(w, trace, facts);
  write_ops(w, facts);
  write_annotations(w, facts);
  write_blocks(w, trace, facts);
  report::write_loops(w, trace, facts);
  report::write_memory(w, trace, facts);
  report::write_replay(w, facts);
  write_findings(w, trace, facts, findings);
  report::write_ceilings(w, facts);
  report::write_collectives(w, trace, facts);
  w.end_object();
  return w.take();
}

}  // namespace whyslow
