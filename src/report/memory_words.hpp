// The allocator a report speaks of, and its name, for every renderer (text, JSON).
#pragma once

#include <string>

#include "analysis/facts.hpp"

namespace whyslow::report {

// The device whose numbers stand for the trace's memory: the first GPU, else the CPU; nullptr when
// the trace has no allocator records.
const DeviceMemory* main_memory_device(const Facts& facts);
std::string memory_device_name(const DeviceMemory& d);  // "cuda:0", "cpu"

}  // namespace whyslow::report
