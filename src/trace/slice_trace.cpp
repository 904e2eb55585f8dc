#include "trace/slice_trace.hpp"

#include <algorithm>

#include "trace/trace_builder.hpp"

namespace whyslow {

Trace slice_trace(const Trace& t, int64_t start, int64_t end) {
  TraceBuilder b(t.path);
  StringPool& names = b.names();
  auto copy_name = [&](NameId id) { return id == kNoName ? kNoName : names.intern(t.names.view(id)); };
  auto in_window = [&](int64_t ts) { return ts >= start && ts <= end; };

  size_t next_comm = 0;  // t.comm_args is ascending by event
  for (EventId e = 0; e < t.size(); ++e) {
    while (next_comm < t.comm_args.size() && t.comm_args[next_comm].event < e) ++next_comm;
    const EventKind k = t.kind[e];
    const bool gpu_side = is_gpu_activity(k) || k == EventKind::Sync || k == EventKind::GpuUserAnnotation;
    bool keep;
    if (gpu_side && t.launch_link[e] != kNoEvent) keep = in_window(t.start_ns[t.launch_link[e]]);
    else if (k == EventKind::GpuUserAnnotation && t.op_link[e] != kNoEvent) keep = in_window(t.start_ns[t.op_link[e]]);
    else keep = in_window(t.start_ns[e]);
    if (!keep || k == EventKind::TraceSpan) continue;

    ParsedEvent p;
    p.ph = k == EventKind::Instant ? 'i' : 'X';
    p.name = copy_name(t.name[e]);
    p.category = copy_name(t.category[e]);
    const Track& track = t.tracks[t.track[e]];
    p.pid = names.intern(track.pid);
    p.tid = names.intern(track.tid);
    p.ts_ns = t.start_ns[e];
    p.dur_ns = t.dur_ns[e];
    p.has_ts = p.has_dur = true;
    p.correlation = t.correlation[e];
    p.external_id = t.external_id[e];
    p.forward_linked = std::binary_search(t.backward_ops.begin(), t.backward_ops.end(), e);
    const auto seq = std::lower_bound(t.op_sequence.begin(), t.op_sequence.end(), e,
                                      [](const Trace::OpSequence& s, EventId id) { return s.event < id; });
    if (seq != t.op_sequence.end() && seq->event == e) p.sequence = seq->seq;
    if (t.detail[e] != UINT32_MAX) {
      if (is_gpu_activity(k)) {
        p.gpu = t.gpu_detail[t.detail[e]];
      } else if (k == EventKind::Instant) {
        p.memory = t.memory[t.detail[e]];
        p.has_memory = true;
      } else if (k == EventKind::Sync) {
        p.sync_kind = copy_name(t.sync_kind[t.detail[e]]);
      } else {
        p.shapes.input_dims = copy_name(t.op_shapes[t.detail[e]].input_dims);
        p.shapes.input_type = copy_name(t.op_shapes[t.detail[e]].input_type);
        p.shapes.input_strides = copy_name(t.op_shapes[t.detail[e]].input_strides);
        p.shapes.concrete_inputs = copy_name(t.op_shapes[t.detail[e]].concrete_inputs);
      }
    }
    if (next_comm < t.comm_args.size() && t.comm_args[next_comm].event == e) {
      p.comm = t.comm_args[next_comm];
      p.comm.collective = copy_name(p.comm.collective);
      p.comm.dtype = copy_name(p.comm.dtype);
      p.comm.group = copy_name(p.comm.group);
    }
    b.add_event(p);
  }
  for (const Track& track : t.tracks) {
    ParsedEvent m;
    m.ph = 'M';
    m.name = names.intern("thread_name");
    m.pid = names.intern(track.pid);
    m.tid = names.intern(track.tid);
    m.meta_value = names.intern(track.name);
    b.add_metadata(m);
  }
  Trace& out = b.trace();
  out.devices = t.devices;
  out.base_time_ns = t.base_time_ns;
  out.distributed = t.distributed;
  out.schema_version = t.schema_version;
  out.input_bytes = t.input_bytes;
  return std::move(b).finish();
}

}  // namespace whyslow
