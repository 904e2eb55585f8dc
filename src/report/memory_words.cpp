#include "report/memory_words.hpp"

namespace whyslow::report {

const DeviceMemory* main_memory_device(const Facts& facts) {
  return facts.memory.devices.empty() ? nullptr : &facts.memory.devices.front();
}

std::string memory_device_name(const DeviceMemory& d) {
  if (d.device_type == 0) return "cpu";
  const std::string type = d.device_type == 1 ? "cuda" : "device_type_" + std::to_string(d.device_type);
  return d.device_id >= 0 ? type + ":" + std::to_string(d.device_id) : type;
}

}  // namespace whyslow::report
