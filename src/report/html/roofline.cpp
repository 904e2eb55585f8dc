#include "report/html/roofline.hpp"

#include <cmath>

#include "report/format.hpp"

namespace whyslow::report {
namespace {

// Kernel names in the plot's tooltips are shortened like the charts' (the full name is one hover away
// in the timeline).
constexpr size_t kPointNameWidth = 80;

void write_roofs(CompactJson& w, const Ceilings& c) {
  w.begin_object();
  w.key("source").string(c.source);
  w.key("bytes_per_s").number(c.bytes_per_s);
  w.key("flop_per_s").begin_object();
  for (int p = 0; p < kPrecisions; ++p)
    if (c.flop_per_s[static_cast<size_t>(p)] > 0) w.key(to_string(static_cast<Precision>(p))).number(c.flop_per_s[static_cast<size_t>(p)]);
  w.end_object();
  w.end_object();
}

}  // namespace

void write_roofline(CompactJson& w, const Trace& t, const Facts& f) {
  w.key("roofline");
  const RooflineFacts& r = f.roofline;
  // One GPU's roofs: the device most of the modelled kernel time ran on.
  int device = -1;
  int64_t best = -1;
  std::vector<int64_t> per_device(r.devices.size(), 0);
  for (const KernelRoofline& k : r.kernels)
    if (k.device >= 0 && std::isfinite(k.total.intensity)) per_device[static_cast<size_t>(k.device)] += k.total.ns;
  for (size_t i = 0; i < per_device.size(); ++i)
    if (per_device[i] > best && r.devices[i].datasheet) best = per_device[i], device = static_cast<int>(i);
  if (device < 0 || best <= 0) {
    w.null();
    return;
  }
  const DeviceCeilings& dev = r.devices[static_cast<size_t>(device)];
  w.begin_object();
  w.key("device").string(dev.name);
  w.key("datasheet");
  write_roofs(w, *dev.datasheet);
  w.key("measured");
  if (dev.measured) write_roofs(w, *dev.measured);
  else w.null();
  // [short name, intensity (FLOP/byte), achieved FLOP/s, time ns, bound, roof precision, % of peak]
  w.key("points").begin_array();
  for (size_t i = 0; i < r.kernels.size() && i < f.kernels.size(); ++i) {
    const KernelRoofline& k = r.kernels[i];
    const RooflineVerdict& v = k.total;
    if (k.device != device || !std::isfinite(v.intensity) || !std::isfinite(v.flop_per_s) || v.flop_per_s <= 0) continue;
    w.begin_array().string(shorten(t.names.view(f.kernels[i].name), kPointNameWidth)).number(v.intensity);
    w.number(v.flop_per_s).integer(v.ns).string(to_string(v.bound)).string(to_string(v.roof_precision));
    w.number(v.pct_of_peak).end_array();
  }
  w.end_array();
  w.end_object();
}

}  // namespace whyslow::report
