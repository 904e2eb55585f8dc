// Datasheets give NVLink as the total of both directions over all links of a GPU; NCCL's bus
// bandwidth (nccl-tests doc/PERFORMANCE.md) is a per-direction rate, so each entry is half the
// datasheet's total.
#include "analysis/comm/link_peaks.hpp"

#include <initializer_list>

#include "analysis/roofline/gpu_peaks.hpp"

namespace whyslow {
namespace {

constexpr double GB = 1e9;

struct Entry {
  std::initializer_list<std::string_view> names;
  LinkPeak peak;
};

// V100 SXM2: NVLink 2, 300 GB/s total (NVIDIA Tesla V100 datasheet, nvidia.com/en-us/data-center/v100).
// A100 SXM4: NVLink 3, 600 GB/s (NVIDIA A100 datasheet, nvidia.com/en-us/data-center/a100).
// A800 SXM4: NVLink 3 cut to 400 GB/s (NVIDIA A800 datasheet, nvidia.cn/data-center/a800).
// H100 SXM5 and H200 SXM: NVLink 4, 900 GB/s (H100 / H200 datasheets, nvidia.com/en-us/data-center/h100, /h200).
// H800 SXM5 (reported as "NVIDIA H800"): NVLink 4 cut to 400 GB/s (NVIDIA H800 datasheet, nvidia.cn/data-center/h800).
// GH200: NVLink 4, 900 GB/s for the Hopper GPU (NVIDIA GH200 Grace Hopper Superchip datasheet,
//   resources.nvidia.com/en-us-grace-cpu/grace-hopper-superchip), as in NVL32 and multi-superchip nodes.
// Left out: H20 (NVIDIA publishes no datasheet for it) and the PCIe cards whose NVLink is an
// optional bridge (A800 / H800 PCIe): their peer link depends on the build.
// B200: NVLink 5, 1.8 TB/s (NVIDIA DGX B200 datasheet, nvidia.com/en-us/data-center/dgx-b200).
// MI300X: 7 Infinity Fabric links of 128 GB/s = 896 GB/s peer to peer (AMD Instinct MI300X data sheet, amd.com).
const Entry kEntries[] = {
    {{"Tesla V100-SXM2-16GB", "Tesla V100-SXM2-32GB"},
     {"NVLink 2", 150 * GB, "NVIDIA Tesla V100 datasheet: 300 GB/s NVLink, both directions"}},
    {{"NVIDIA A100-SXM4-40GB", "NVIDIA A100-SXM4-80GB"},
     {"NVLink 3", 300 * GB, "NVIDIA A100 datasheet: 600 GB/s NVLink, both directions"}},
    {{"NVIDIA A800-SXM4-40GB", "NVIDIA A800-SXM4-80GB"},
     {"NVLink 3", 200 * GB, "NVIDIA A800 datasheet: 400 GB/s NVLink, both directions"}},
    {{"NVIDIA H100 80GB HBM3", "NVIDIA H100 SXM5 80GB"},
     {"NVLink 4", 450 * GB, "NVIDIA H100 datasheet: 900 GB/s NVLink, both directions"}},
    {{"NVIDIA H200"}, {"NVLink 4", 450 * GB, "NVIDIA H200 datasheet: 900 GB/s NVLink, both directions"}},
    {{"NVIDIA H800"}, {"NVLink 4", 200 * GB, "NVIDIA H800 datasheet: 400 GB/s NVLink, both directions"}},
    {{"NVIDIA GH200 480GB", "NVIDIA GH200 120GB", "NVIDIA GH200 144G HBM3e"},
     {"NVLink 4", 450 * GB, "NVIDIA GH200 datasheet: 900 GB/s NVLink, both directions"}},
    {{"NVIDIA B200"}, {"NVLink 5", 900 * GB, "NVIDIA DGX B200 datasheet: 1.8 TB/s NVLink per GPU, both directions"}},
    {{"AMD Instinct MI300X", "AMD Instinct MI300X VF"},
     {"Infinity Fabric", 448 * GB, "AMD Instinct MI300X data sheet: 896 GB/s peer-to-peer, both directions"}},
};

}  // namespace

const LinkPeak* link_peak(std::string_view device_name) {
  for (const Entry& e : kEntries)
    for (std::string_view n : e.names)
      if (same_gpu_name(n, device_name)) return &e.peak;
  return nullptr;
}

}  // namespace whyslow
