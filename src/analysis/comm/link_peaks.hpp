// The GPU-to-GPU link's peak bandwidth per GPU and direction (NVLink, AMD Infinity Fabric), from
// the vendors' datasheets: what a collective's bus bandwidth is held against.
#pragma once

#include <string_view>

namespace whyslow {

struct LinkPeak {
  std::string_view link;    // "NVLink 4"
  double bytes_per_s = 0;   // one direction, per GPU
  std::string_view source;  // the datasheet
};

// By the driver's GPU name (deviceProperties.name, case-insensitive); nullptr when the GPU is not
// in the table (PCIe cards: their peer link depends on the host, whyslow does not guess).
const LinkPeak* link_peak(std::string_view device_name);

}  // namespace whyslow
