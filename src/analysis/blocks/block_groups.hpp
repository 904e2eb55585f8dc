// Blocks grouped by the code they run (BlockGroup): what answers "which of my code is slow" when
// the code is used in several places (a module class with several instances, a helper called
// from several blocks).
#pragma once

#include <string>
#include <string_view>

#include "analysis/facts.hpp"

namespace whyslow {

// "nn.Module: Rotary_3" → "Rotary" (torch numbers a class's instances); other names as they are.
std::string_view module_class(std::string_view module_event_name);

// `which` rows of `rows` as one block: times and counts summed, the most threads and repeated
// calls of one row, the longest call and kernel of all, the attribution bits of all; name, kind,
// location and parent are the first row's.
BlockRow sum_rows(const Trace& trace, const std::vector<BlockRow>& rows, const std::vector<uint32_t>& which);

// Fills blocks.groups and each row's `group`.
void group_blocks(const Trace& trace, BlockFacts& blocks);

// "Rotary ×4" for a group of several instances, else the label.
std::string group_title(const BlockGroup& group);

}  // namespace whyslow
