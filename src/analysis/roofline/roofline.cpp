// The roofline pass: FLOPs and bytes per kernel call from the op that launched it, grouped by
// shape, held against the GPU's roofs (see roofline.hpp for the grouping and the split).
#include "analysis/roofline/roofline.hpp"


#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "analysis/facts.hpp"

namespace whyslow {
namespace {

struct OpKernels {
  uint32_t count = 0;
  int64_t ns = 0;
};

int64_t blocks_of(const GpuDetail& d) {
  if (d.grid[0] < 0) return -1;
  return static_cast<int64_t>(d.grid[0]) * d.grid[1] * d.grid[2];
}

// Achieved rates over `ns`, the bounding roof at this intensity, and the verdict.
RooflineVerdict evaluate(double flops, double bytes, int64_t ns, uint64_t calls, Precision precision, int64_t blocks,
                         double working_set, const DeviceCeilings* dev) {
  RooflineVerdict v;
  v.flops = flops;
  v.bytes = bytes;
  v.ns = ns;
  v.roof_precision = precision;
  v.working_set = working_set;
  if (bytes > 0) v.intensity = flops / bytes;
  if (ns > 0) {
    v.flop_per_s = flops / (static_cast<double>(ns) * 1e-9);
    v.bytes_per_s = bytes / (static_cast<double>(ns) * 1e-9);
  }
  const Ceilings* sheet = dev ? dev->datasheet : nullptr;
  BoundBasis& why = v.basis;
  why.precision = precision;
  if (!sheet) {
    why.reason = dev ? BoundReason::NoDatasheet : BoundReason::UnknownGpu;
    if (dev) why.gpu_name = dev->name;
    return v;
  }
  if (sheet->l2_bytes > 0) v.l2 = working_set <= static_cast<double>(sheet->l2_bytes) ? L2Fit::Fits : L2Fit::Spills;
  // pct of the roof that bounds this intensity: the memory roof where intensity × bandwidth is
  // under the compute peak, else the compute peak.
  const auto pct = [&](double peak, double bw) {
    if (bw <= 0 || ns <= 0 || std::isnan(v.intensity)) return kNoValue;
    if (peak <= 0) return kNoValue;
    return v.intensity * bw < peak ? 100 * v.bytes_per_s / bw : 100 * v.flop_per_s / peak;
  };
  const double peak = sheet->flops(precision), bw = sheet->bytes_per_s;
  if (peak <= 0) {
    why.reason = BoundReason::NoRateForPrecision;
    why.gpu_name = sheet->name;
    return v;
  }
  v.pct_of_peak = pct(peak, bw);
  if (dev->measured) {
    const Ceilings& m = *dev->measured;
    v.pct_of_measured = pct(m.flops(precision) > 0 ? m.flops(precision) : 0, m.bytes_per_s);
  }
  const int64_t mean_ns = calls > 0 ? ns / static_cast<int64_t>(calls) : 0;
  const double ridge = peak / bw;
  why.blocks = blocks;
  why.sm_count = dev->sm_count;
  why.mean_call_ns = mean_ns;
  why.intensity = v.intensity;
  why.ridge = ridge;
  why.peak_flops = peak;
  why.bandwidth = bw;
  if (blocks >= 0 && dev->sm_count > 0 && static_cast<double>(blocks) < kMinFilledSms * dev->sm_count) {
    v.bound = Bound::Latency;
    why.reason = BoundReason::FewBlocks;
  } else if (mean_ns < kShortKernelNs && v.flop_per_s < kFarUnderRoof * peak && v.bytes_per_s < kFarUnderRoof * bw) {
    v.bound = Bound::Latency;
    why.reason = BoundReason::ShortCalls;
  } else if (v.intensity >= ridge) {
    v.bound = Bound::Compute;
    why.reason = BoundReason::AtOrAboveRidge;
  } else {
    v.bound = Bound::Memory;
    why.reason = BoundReason::BelowRidge;
  }
  return v;
}

std::vector<DeviceCeilings> resolve_devices(const Trace& t, const Ceilings* measured) {
  std::vector<DeviceCeilings> out;
  for (const DeviceInfo& d : t.devices) {
    DeviceCeilings dc;
    dc.device = d.id;
    dc.name = d.name;
    dc.datasheet = datasheet_ceilings(d.name);
    dc.sm_count = d.num_sms > 0 ? d.num_sms : dc.datasheet ? dc.datasheet->sm_count : 0;
    if (measured) {
      if (measured->name.empty() || same_gpu_name(measured->name, d.name)) dc.measured = *measured;
      else dc.peaks_measured_on = measured->name;
    }
    out.push_back(std::move(dc));
  }
  return out;
}

int device_index(const Trace& t, const std::vector<DeviceCeilings>& devices, EventId e) {
  const int32_t id = t.tracks[t.track[e]].device;
  for (size_t i = 0; i < devices.size(); ++i)
    if (devices[i].device == id) return static_cast<int>(i);
  return devices.size() == 1 ? 0 : -1;  // a trace that describes one GPU ran on it
}

}  // namespace

std::string_view to_string(Bound b) {
  switch (b) {
    case Bound::Compute: return "compute";
    case Bound::Memory: return "memory";
    case Bound::Latency: return "latency";
    case Bound::Unknown: return "unknown";
  }
  return "unknown";
}

std::string_view to_string(L2Fit f) {
  switch (f) {
    case L2Fit::Fits: return "fits";
    case L2Fit::Spills: return "spills";
    case L2Fit::Unknown: return "unknown";
  }
  return "unknown";
}

Precision roof_precision(const OpCost& cost, std::string_view kernel_name) {
  if (cost.unit == MathUnit::Vector) return cost.precision == Precision::FP64 ? Precision::FP64 : Precision::FP32;
  if (cost.precision == Precision::FP32 &&
      (kernel_name.find("tf32") != std::string_view::npos || kernel_name.find("tensorop_s") != std::string_view::npos))
    return Precision::TF32;
  return cost.precision;
}

RooflineFacts roofline(const Trace& t, const std::vector<KernelRow>& kernels, const Ceilings* measured) {
  RooflineFacts out;
  out.devices = resolve_devices(t, measured);

  // The kernels each op call launched: only ops with recorded shapes are modelled below. One entry
  // per linked kernel, sorted by op, then summed in place (a node per op call in a hash map was most
  // of this pass's time; op calls share their shapes' entry in op_shapes, so that is no index).
  std::vector<std::pair<EventId, OpKernels>> per_op;
  for (const KernelRow& row : kernels)
    for (EventId e : row.events) {
      const EventId op = t.op_link[e];
      if (op == kNoEvent || t.detail[op] == UINT32_MAX) continue;
      if (t.kind[op] != EventKind::CpuOp && t.kind[op] != EventKind::UserAnnotation) continue;
      per_op.push_back({op, {1, t.dur_ns[e]}});
    }
  std::sort(per_op.begin(), per_op.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  size_t kept = 0;
  for (size_t i = 0; i < per_op.size(); ++i) {
    if (kept > 0 && per_op[kept - 1].first == per_op[i].first) {
      ++per_op[kept - 1].second.count;
      per_op[kept - 1].second.ns += per_op[i].second.ns;
    } else {
      per_op[kept++] = per_op[i];
    }
  }
  per_op.resize(kept);
  auto kernels_of = [&](EventId op) -> const OpKernels& {
    return std::lower_bound(per_op.begin(), per_op.end(), op, [](const auto& p, EventId x) { return p.first < x; })->second;
  };
  OpModelCache models(t);

  for (const KernelRow& row : kernels) {
    KernelRoofline kr;
    if (!row.events.empty()) kr.device = device_index(t, out.devices, row.events.front());
    const DeviceCeilings* dev = kr.device >= 0 ? &out.devices[kr.device] : nullptr;
    const std::string_view kernel_name = t.names.view(row.name);
    std::map<std::tuple<NameId, NameId, NameId, NameId, NameId>, size_t> group_of;
    for (EventId e : row.events) {
      const EventId op = t.op_link[e];
      const OpModel* model = nullptr;
      if (op == kNoEvent) {
        if (kr.why_not.empty()) kr.why_not = NoModel{NoModelReason::NoLinkedOp, {}, {}, 0};
      } else if (t.kind[op] != EventKind::CpuOp) {
        if (kr.why_not.empty()) kr.why_not = NoModel{NoModelReason::NotLaunchedByAtenOp, std::string(t.name_of(op)), {}, 0};
      } else if (model = &models.of(op, e).model; !model->ok) {
        if (kr.why_not.empty()) kr.why_not = model->why_not;
        model = nullptr;
      }
      if (!model) continue;
      const OpShapes& s = t.op_shapes[t.detail[op]];
      const auto key = std::make_tuple(t.name[op], s.input_dims, s.input_type, s.input_strides, s.concrete_inputs);
      auto [it, inserted] = group_of.try_emplace(key, kr.groups.size());
      if (inserted) {
        RooflineGroup g;
        g.example = e;
        g.op = op;
        g.kernels_per_op = kernels_of(op).count;
        g.cost = model->cost;
        kr.groups.push_back(std::move(g));
      }
      RooflineGroup& g = kr.groups[it->second];
      const OpKernels& k = kernels_of(op);
      const double share = k.ns > 0 ? static_cast<double>(t.dur_ns[e]) / static_cast<double>(k.ns) : 1.0 / k.count;
      ++g.calls;
      ++kr.modelled_calls;
      g.verdict.ns += t.dur_ns[e];
      g.verdict.flops += model->cost.flops * share;
      g.verdict.bytes += model->cost.bytes * share;
    }
    double flops = 0, bytes = 0;
    int64_t ns = 0;
    for (RooflineGroup& g : kr.groups) {
      g.verdict = evaluate(g.verdict.flops, g.verdict.bytes, g.verdict.ns, g.calls,
                           roof_precision(g.cost, kernel_name), blocks_of(t.gpu_detail[t.detail[g.example]]),
                           g.cost.working_set, dev);
      flops += g.verdict.flops;
      bytes += g.verdict.bytes;
      ns += g.verdict.ns;
    }
    std::sort(kr.groups.begin(), kr.groups.end(),
              [](const RooflineGroup& a, const RooflineGroup& b) { return a.verdict.ns > b.verdict.ns; });
    if (!kr.groups.empty()) {
      const RooflineGroup& top = kr.groups.front();
      kr.total = evaluate(flops, bytes, ns, kr.modelled_calls, top.verdict.roof_precision,
                          blocks_of(t.gpu_detail[t.detail[top.example]]), top.cost.working_set, dev);
      kr.total.bound = top.verdict.bound;
      kr.total.basis = top.verdict.basis;
      kr.total.l2 = top.verdict.l2;
    }
    out.kernels.push_back(std::move(kr));
  }
  out.chains = pointwise_chains(t, models);
  return out;
}

}  // namespace whyslow
