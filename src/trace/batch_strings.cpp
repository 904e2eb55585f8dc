#include <algorithm>
#include <cstdint>

#include "common/same_bytes.hpp"
#include "trace/parsed_batch.hpp"
#include "trace/string_pool.hpp"

namespace whyslow {

uint32_t BatchStrings::add(std::string_view s) {
  const uint64_t h = StringPool::hash(s);
  const size_t mask = table_.size() - 1;
  size_t i = h & mask;
  for (;; i = (i + 1) & mask) {
    const uint32_t id = table_[i];
    if (id == kAbsentText) break;
    if (hashes[id] == h && same_bytes(distinct[id], s)) return id;
  }
  const uint32_t id = static_cast<uint32_t>(distinct.size());
  distinct.push_back(s);
  hashes.push_back(h);
  table_[i] = id;
  used_.push_back(static_cast<uint32_t>(i));
  if (distinct.size() * 2 > table_.size()) grow();
  return id;
}

void BatchStrings::clear() {
  distinct.clear();
  hashes.clear();
  // Only the slots this batch filled: the table keeps the size of the largest batch's strings,
  // and clearing all of it for every batch cost more than filling it.
  for (const uint32_t slot : used_) table_[slot] = kAbsentText;
  used_.clear();
}

void BatchStrings::grow() {
  std::vector<uint32_t> bigger(table_.size() * 2, kAbsentText);
  const size_t mask = bigger.size() - 1;
  used_.clear();
  for (uint32_t id = 0; id < distinct.size(); ++id) {
    size_t i = hashes[id] & mask;
    while (bigger[i] != kAbsentText) i = (i + 1) & mask;
    bigger[i] = id;
    used_.push_back(static_cast<uint32_t>(i));
  }
  table_.swap(bigger);
}

}  // namespace whyslow
