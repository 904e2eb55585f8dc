// The four text tables shared by `whyslow explain`, `whyslow ops` and `whyslow kernels`, each
// with its title line.
#pragma once

#include <string>
#include <string_view>

#include "analysis/facts.hpp"

namespace whyslow::report {

// Each table's title and notes wrap at `line_width` columns (text_table.hpp: table_title); its rows
// are as wide as they are.

// Names wider than this are shortened in the middle: a table stays readable on a terminal
// while the head and tail of a C++ kernel name still identify it.
inline constexpr size_t kNameWidth = 60;
// Marks torch's device-side op rows, which share their name with a CPU-side row.
inline constexpr std::string_view kDeviceRowSuffix = " (device)";

std::string steps_table(const Facts& facts, size_t line_width);  // every step, then the whole trace as a total
// Each step's thread's time by CPU category (the stepless window's main thread without steps).
std::string cpu_time_table(const Trace& trace, const Facts& facts, size_t line_width);
std::string kernels_table(const Trace& trace, const Facts& facts, size_t max_rows, size_t line_width);
std::string ops_table(const Facts& facts, size_t max_rows, size_t line_width);
std::string annotations_table(const Facts& facts, size_t max_rows, size_t line_width);
// The user's code as a tree (record_function, nn.Module, Python frames): blocks_table.cpp.
std::string blocks_table(const Trace& trace, const Facts& facts, size_t max_rows, size_t line_width);
// Roofline per kernel and shape group, with the ceilings used (roofline_table.cpp).
std::string roofline_table(const Trace& trace, const Facts& facts, size_t max_rows, size_t line_width);
// Steps split into the iterations of a loop (loops_table.cpp); empty when no step repeats.
std::string loops_table(const Trace& trace, const Facts& facts, size_t line_width);
// Each step's memory on the trace's main allocator, or the one line saying how to record it.
std::string memory_table(const Trace& trace, const Facts& facts, size_t line_width);
// The dependency graph's (graph_tables.cpp): "What sets the pace" (the steady step's critical
// path) and "What would it take" (each edit replayed, then all together); "" when there is none.
std::string pace_table(const Facts& facts, size_t max_rows, size_t line_width);
std::string what_if_table(const Facts& facts, size_t line_width);

}  // namespace whyslow::report
