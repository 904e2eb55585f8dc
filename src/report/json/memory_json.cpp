#include "report/json/memory_json.hpp"

#include "report/memory_words.hpp"

namespace whyslow::report {
namespace {

using Layout = JsonWriter::Layout;

void optional_bytes(JsonWriter& w, int64_t v) {
  if (v < 0) w.null();
  else w.integer(v);
}

}  // namespace

void write_trace_memory(JsonWriter& w, const Facts& facts) {
  w.key("memory");
  if (facts.memory.devices.empty()) {
    w.null();
    return;
  }
  w.begin_array();
  for (const DeviceMemory& d : facts.memory.devices) {
    w.begin_object(Layout::Inline);
    w.key("device").string(memory_device_name(d));
    w.key("records").unsigned_integer(d.records);
    w.key("allocations").unsigned_integer(d.allocations);
    w.key("frees").unsigned_integer(d.frees);
    w.key("peak_allocated_bytes");
    optional_bytes(w, d.peak_allocated);
    w.key("peak_reserved_bytes");
    optional_bytes(w, d.peak_reserved);
    w.key("peak_at_us").microseconds(d.peak_at_ns);
    w.key("unmatched_frees").unsigned_integer(d.unmatched_frees);
    w.key("total_mismatches").unsigned_integer(d.total_mismatches);
    w.key("negative_totals").unsigned_integer(d.negative_totals);
    w.key("out_of_range_records").unsigned_integer(d.out_of_range_records);
    w.end_object();
  }
  w.end_array();
}

void write_step_memory(JsonWriter& w, const Facts& facts, size_t step) {
  w.key("memory");
  const DeviceMemory* d = main_memory_device(facts);
  if (!d || step >= d->steps.size()) {
    w.null();
    return;
  }
  const StepMemory& m = d->steps[step];
  w.begin_object(Layout::Inline);
  w.key("device").string(memory_device_name(*d));
  w.key("peak_allocated_bytes");
  optional_bytes(w, m.peak_allocated);
  w.key("peak_reserved_bytes");
  optional_bytes(w, m.peak_reserved);
  w.key("peak_at_us").microseconds(m.peak_at_ns);
  w.key("start_allocated_bytes");
  optional_bytes(w, m.start_allocated);
  w.key("end_allocated_bytes");
  optional_bytes(w, m.end_allocated);
  w.end_object();
}

void write_memory(JsonWriter& w, const Trace& trace, const Facts& facts) {
  w.key("memory");
  const DeviceMemory* d = main_memory_device(facts);
  if (!d) {
    w.null();
    return;
  }
  w.begin_object();
  w.key("device").string(memory_device_name(*d));
  w.key("step");
  if (d->peak_step >= 0 && static_cast<size_t>(d->peak_step) < facts.steps.size()) w.string(facts.steps[d->peak_step].name);
  else w.null();
  w.key("peak_allocated_bytes");
  optional_bytes(w, d->live_peak_allocated);
  w.key("peak_at_us").microseconds(d->live_peak_at_ns);
  w.key("live_bytes").integer(d->live_bytes);
  w.key("live_allocations").unsigned_integer(d->live_at_peak.size());
  w.key("by_role").begin_object(Layout::Inline);
  for (size_t r = 0; r < kMemoryRoles; ++r)
    w.key(to_string(static_cast<MemoryRole>(r))).integer(d->live_bytes_by_role[r]);
  w.end_object();
  w.key("top").begin_array();
  for (size_t i = 0; i < d->live_at_peak.size() && i < kMemoryTopRows; ++i) {
    const LiveAllocation& a = d->live_at_peak[i];
    w.begin_object(Layout::Inline);
    w.key("bytes").integer(a.bytes);
    w.key("role").string(to_string(a.role));
    w.key("op");
    a.op == kNoEvent ? w.null() : w.string(trace.name_of(a.op));
    w.key("input_dims");
    const NameId dims = a.op != kNoEvent && trace.detail[a.op] != UINT32_MAX ? trace.op_shapes[trace.detail[a.op]].input_dims : kNoName;
    dims == kNoName ? w.null() : w.string(trace.names.view(dims));
    w.key("block");
    a.block == kNoEvent ? w.null() : w.string(trace.name_of(a.block));
    w.key("allocated_at_us").microseconds(trace.start_ns[a.alloc]);
    w.key("freed_at_us");
    a.freed == kNoEvent ? w.null() : w.microseconds(trace.start_ns[a.freed]);
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

}  // namespace whyslow::report
