// Human-readable numbers for titles and tables: three significant digits in the largest unit that
// keeps the number at least 1 ("83.8 ms", "2.94 µs", "16.0 MiB", "12.1 GB/s"). Sizes are binary
// (KiB, MiB), rates decimal (GB/s), as CUDA tools print them.
#pragma once

#include <cstdint>
#include <string>

namespace whyslow {

std::string human_duration(int64_t ns);
std::string human_bytes(int64_t bytes);
std::string human_rate(double bytes_per_second);
std::string human_flops(double flops);          // 1.374e11 → "137 GFLOP"
std::string human_flop_rate(double per_second);  // 5.12e13 → "51.2 TFLOP/s"
std::string human_percent(double fraction);  // 0.982 → "98 %"; below 10 % one decimal
std::string human_ratio(double x);           // 840.2 → "840×", 3.46 → "3.5×"

}  // namespace whyslow
