// The raw `cat` of each event. A trace holds a few dozen categories, so each event keeps a 1-byte
// code into the column's own list of them: 3 bytes an event less than a name id at the load's
// memory peak (4 MB on the bench's 542 MB trace), while the loader links its events. Past 256
// categories (a hostile or synthetic file) the column widens once to a name id per event.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/unused_capacity.hpp"
#include "trace/string_pool.hpp"

namespace whyslow {

class CategoryColumn {
 public:
  NameId operator[](size_t i) const { return wide_mode_ ? wide_[i] : distinct_[narrow_[i]]; }
  size_t size() const { return wide_mode_ ? wide_.size() : narrow_.size(); }
  bool is_wide() const { return wide_mode_; }
  void reserve(size_t n) { wide_mode_ ? wide_.reserve(n) : narrow_.reserve(n); }
  void release_unused_capacity() const {
    wide_mode_ ? whyslow::release_unused_capacity(wide_) : whyslow::release_unused_capacity(narrow_);
  }

  void push_back(NameId category) {
    if (wide_mode_) {
      wide_.push_back(category);
      return;
    }
    if (category == last_category_ && !narrow_.empty()) {  // runs of one category: most events
      narrow_.push_back(narrow_.back());
      return;
    }
    last_category_ = category;
    // Each category's code by its name id + 1 (0: not seen yet); kNoName is slot 0 of the ids.
    const size_t slot = category == kNoName ? 0 : size_t{category} + 1;
    if (slot >= code_plus_one_.size()) code_plus_one_.resize(slot + 1, 0);
    if (code_plus_one_[slot] == 0) {
      if (distinct_.size() == kNarrowCodes) {
        widen();
        wide_.push_back(category);
        return;
      }
      distinct_.push_back(category);
      code_plus_one_[slot] = static_cast<uint16_t>(distinct_.size());
    }
    narrow_.push_back(static_cast<uint8_t>(code_plus_one_[slot] - 1));
  }

 private:
  static constexpr size_t kNarrowCodes = 256;
  void widen() {
    wide_.reserve(narrow_.capacity());  // the reserve the loader made, kept
    for (uint8_t c : narrow_) wide_.push_back(distinct_[c]);
    std::vector<uint8_t>().swap(narrow_);
    std::vector<uint16_t>().swap(code_plus_one_);
    wide_mode_ = true;
  }

  bool wide_mode_ = false;
  NameId last_category_ = kNoName;  // the category of narrow_.back()
  std::vector<uint8_t> narrow_;
  std::vector<NameId> distinct_;        // the categories seen, by code
  std::vector<uint16_t> code_plus_one_;  // by name id + 1
  std::vector<NameId> wide_;
};

}  // namespace whyslow
