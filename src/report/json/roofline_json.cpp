#include "report/json/roofline_json.hpp"

#include "report/roofline_words.hpp"

namespace whyslow::report {
namespace {

using Layout = JsonWriter::Layout;

void optional_string(JsonWriter& w, std::string_view s) {
  if (s.empty()) w.null();
  else w.string(s);
}

// Fields shared by a kernel and each of its shape groups. `calls` > 0: also per-call FLOPs/bytes.
void write_verdict(JsonWriter& w, const RooflineVerdict& v, uint64_t calls) {
  const bool known = v.ns > 0;
  w.key("flops");
  known ? w.number(v.flops) : w.null();
  w.key("bytes");
  known ? w.number(v.bytes) : w.null();
  if (calls > 0) {
    w.key("flops_per_call").number(v.flops / static_cast<double>(calls));
    w.key("bytes_per_call").number(v.bytes / static_cast<double>(calls));
  }
  w.key("intensity").number(v.intensity);
  w.key("achieved_flop_per_s").number(v.flop_per_s);
  w.key("achieved_bytes_per_s").number(v.bytes_per_s);
  w.key("roof_precision");
  known ? w.string(to_string(v.roof_precision)) : w.null();
  w.key("bound");
  v.bound == Bound::Unknown ? w.null() : w.string(to_string(v.bound));
  w.key("bound_reason");
  optional_string(w, describe_bound(v.basis));
  w.key("pct_of_peak").number(v.pct_of_peak);
  w.key("pct_of_measured").number(v.pct_of_measured);
  w.key("working_set_bytes").number(v.working_set);
  w.key("l2");
  v.l2 == L2Fit::Unknown ? w.null() : w.string(to_string(v.l2));
}

void write_rates(JsonWriter& w, const Ceilings& c) {
  w.begin_object();
  w.key("source").string(c.source);
  w.key("peak_flop_per_s").begin_object(Layout::Inline);
  for (Precision p : {Precision::FP64, Precision::FP32, Precision::TF32, Precision::FP16, Precision::BF16,
                      Precision::FP8, Precision::INT8})
    if (c.flops(p) > 0) w.key(to_string(p)).number(c.flops(p));
  w.end_object();
  w.key("memory_bytes_per_s");
  c.bytes_per_s > 0 ? w.number(c.bytes_per_s) : w.null();
  w.key("l2_bytes");
  c.l2_bytes > 0 ? w.integer(c.l2_bytes) : w.null();
  w.key("sm_count");
  c.sm_count > 0 ? w.integer(c.sm_count) : w.null();
  w.end_object();
}

}  // namespace

void write_kernel_roofline(JsonWriter& w, const Trace& trace, const Facts& facts, size_t index) {
  if (index >= facts.roofline.kernels.size()) return;
  const KernelRoofline& kr = facts.roofline.kernels[index];
  write_verdict(w, kr.total, 0);
  w.key("modelled_calls").unsigned_integer(kr.modelled_calls);
  w.key("no_model_reason");
  optional_string(w, describe_no_model(kr.why_not));
  w.key("shapes").begin_array();
  for (const RooflineGroup& g : kr.groups) {
    w.begin_object();
    w.key("op").string(trace.name_of(g.op));
    const OpShapes& s = trace.op_shapes[trace.detail[g.op]];
    w.key("input_dims");
    optional_string(w, s.input_dims == kNoName ? "" : trace.names.view(s.input_dims));
    w.key("input_types");
    optional_string(w, s.input_type == kNoName ? "" : trace.names.view(s.input_type));
    w.key("calls").unsigned_integer(g.calls);
    w.key("total_us").microseconds(g.verdict.ns);
    w.key("kernels_per_op").unsigned_integer(g.kernels_per_op);
    w.key("formula").string(g.cost.formula);
    write_verdict(w, g.verdict, g.calls);
    w.end_object();
  }
  w.end_array();
}

void write_ceilings(JsonWriter& w, const Facts& facts) {
  w.key("ceilings").begin_array();
  for (const DeviceCeilings& d : facts.roofline.devices) {
    w.begin_object();
    w.key("device").integer(d.device);
    w.key("name").string(d.name);
    w.key("sm_count");
    d.sm_count > 0 ? w.integer(d.sm_count) : w.null();
    w.key("datasheet");
    d.datasheet ? write_rates(w, *d.datasheet) : (void)w.null();
    w.key("measured");
    d.measured ? write_rates(w, *d.measured) : (void)w.null();
    w.key("note");
    optional_string(w, describe_unused_peaks(d));
    w.end_object();
  }
  w.end_array();
}

}  // namespace whyslow::report
