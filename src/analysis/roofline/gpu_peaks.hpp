// What a GPU can do at most: peak arithmetic rate per precision, memory bandwidth, L2 size and
// SM count. From the vendors' datasheets (datasheet_*.cpp, each with its source), or measured on
// the machine and read from a peaks file (`--peaks FILE`, format in docs/JSON.md).
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/core/op_inputs.hpp"

namespace whyslow {

struct Ceilings {
  std::string name;    // the GPU, as its driver names it: "NVIDIA H200"
  std::string source;  // the datasheet (title and URL), or the peaks file and when it was measured
  // Dense peak FLOP/s (OP/s for int8) by Precision; 0 where unknown or not supported. FP32 is
  // the rate of plain fp32 arithmetic (CUDA cores), the roof of fp32 GEMMs without TF32 and of
  // all non-matrix work; the others are the matrix (tensor core) rates.
  std::array<double, kPrecisions> flop_per_s{};
  double bytes_per_s = 0;  // device memory bandwidth
  int64_t l2_bytes = 0;    // the last cache before device memory; 0 where no source gives it
  int32_t sm_count = 0;

  double flops(Precision p) const { return flop_per_s[static_cast<size_t>(p)]; }
};

// One row of the datasheet table: the names the driver reports for one part (deviceProperties.name)
// and its ceilings, source included.
struct DatasheetRow {
  std::vector<std::string_view> names;
  Ceilings ceilings;
};

// Every row, NVIDIA's and AMD's: the datasheet_*.cpp files beside gpu_peaks.cpp, joined there.
const std::vector<DatasheetRow>& datasheet_table();

// The datasheet entry for a GPU, matched by its exact name as the driver reports it
// (deviceProperties.name, as same_gpu_name compares names); nullptr for GPUs not in the table,
// whose roofline whyslow does not guess.
const Ceilings* datasheet_ceilings(std::string_view device_name);

// Whether two GPU names are the same: case, surrounding spaces and a leading "NVIDIA " aside
// (older drivers, 455 and 457 among them, left it off GeForce names: "GeForce RTX 3090").
bool same_gpu_name(std::string_view a, std::string_view b);

// Reads a peaks file (what tools/measure_ceilings.py writes). Throws std::runtime_error with a
// message that names the file and what is wrong.
Ceilings load_ceilings_file(const std::string& path);

}  // namespace whyslow
