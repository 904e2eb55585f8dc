// pageable_memcpy: copies between the GPU and pageable (ordinary, unpinned) host memory. CUDA
// stages them through a pinned bounce buffer, so they run below the link's bandwidth and block
// the CPU for their whole duration, even when issued as "async".
#include <fmt/core.h>

#include "common/units.hpp"
#include "explain/evidence.hpp"
#include "explain/highlights.hpp"
#include "explain/rules.hpp"

namespace whyslow {
namespace {

// Copies adding up to under 50 µs are not worth a change of allocation strategy.
constexpr int64_t kMinTotalNs = 50'000;
// Copies of a few bytes (a scalar read back) are bound by latency, not bandwidth: pinning would
// not speed them up. Under 64 kB in total the rule stays silent.
constexpr int64_t kMinTotalBytes = 64 * 1024;
// From 10 % of the profiled time on they are a real cost: a warning.
constexpr double kWarningPageableShareOfWindow = 0.10;

}  // namespace

void rule_pageable_memcpy(const Trace& t, const Facts& f, std::vector<Finding>& out) {
  const auto& copies = f.copies.pageable;
  int64_t total_ns = 0, bytes = 0, host_ns = 0;
  bool bytes_known = true;
  EventId slowest = kNoEvent;
  for (const CopyRow& c : copies) {
    total_ns += c.dur_ns;
    if (c.bytes < 0) bytes_known = false;
    else bytes += c.bytes;
    if (slowest == kNoEvent || c.dur_ns > t.dur_ns[slowest]) slowest = c.event;
    if (t.launch_link[c.event] != kNoEvent) host_ns += t.dur_ns[t.launch_link[c.event]];
  }
  if (copies.empty() || total_ns < kMinTotalNs || (bytes_known && bytes < kMinTotalBytes)) return;
  const double bandwidth = bytes_known && total_ns > 0 ? static_cast<double>(bytes) * 1e9 / static_cast<double>(total_ns) : 0;
  const int64_t window = f.window.duration_ns;
  Finding x = make_finding(FindingId::pageable_memcpy);
  x.severity = window > 0 && total_ns >= kWarningPageableShareOfWindow * static_cast<double>(window) ? Severity::Warning : Severity::Info;
  x.title = fmt::format("{} copies to or from pageable host memory take {}{}", copies.size(), human_duration(total_ns),
                        bandwidth > 0 ? fmt::format(" at {}", human_rate(bandwidth)) : std::string());
  x.detail = fmt::format(
      "Host memory from a plain allocation (torch.tensor on the CPU, numpy arrays) is pageable: the GPU cannot "
      "read it directly, so CUDA copies it through a pinned staging buffer in chunks. The copy runs well below "
      "the PCIe/NVLink bandwidth, cannot overlap with other work, and the CPU is blocked in the copy call for "
      "its whole length ({} of launch-call time here), even for a non_blocking copy.{}",
      human_duration(host_ns),
      bytes_known ? fmt::format(" {} moved in total.", human_bytes(bytes)) : std::string());
  x.evidence = {count("copies", copies.size()), us("gpu_time_us", total_ns), us("host_blocked_us", host_ns)};
  if (bytes_known) {
    x.evidence.push_back({"bytes", static_cast<double>(bytes), "bytes"});
    x.evidence.push_back({"bandwidth", bandwidth / 1e9, "GB/s"});
  }
  x.events.push_back({slowest, "slowest pageable copy"});
  for (const CopyRow& c : copies) {  // each copy and the call that issued it
    add_mark(x.highlights, c.event);
    add_mark(x.highlights, t.launch_link[c.event]);
  }
  x.try_next = {f.recording.from_torch
                    ? "Allocate host tensors pinned (tensor.pin_memory(), DataLoader(pin_memory=True)) and copy with "
                      "non_blocking=True: faster, and the CPU does not wait."
                    : "Allocate the host buffers pinned (cudaMallocHost, or cudaHostRegister on existing memory) and "
                      "copy with cudaMemcpyAsync: faster, and the CPU does not wait.",
                "Reuse one pinned buffer for repeated transfers instead of pinning per step."};
  x.impact_ns = total_ns;
  x.impact_what = "the blocking copies' time (pinned memory makes them asynchronous)";
  out.push_back(std::move(x));
}

}  // namespace whyslow
