// A column of raw ids as the trace wrote them (args.correlation, External id): 4 bytes per event
// while every id fits in 32 bits, 8 bytes from the first one that does not. CUPTI's correlation
// ids are 32-bit and torch numbers External ids from 1 per process, so nearly every trace stays
// narrow; the load's memory peaks while these columns are alive (linking events), and the narrow
// form takes 8 bytes per event off that peak. An id outside [0, 2^32) widens the column once.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "common/unused_capacity.hpp"

namespace whyslow {

class IdColumn {
 public:
  int64_t operator[](size_t i) const { return wide_ ? wide_ids_[i] : narrow_ids_[i]; }
  size_t size() const { return wide_ ? wide_ids_.size() : narrow_ids_.size(); }
  bool empty() const { return size() == 0; }
  bool is_wide() const { return wide_; }

  void reserve(size_t n) { wide_ ? wide_ids_.reserve(n) : narrow_ids_.reserve(n); }
  void release_unused_capacity() const {
    wide_ ? whyslow::release_unused_capacity(wide_ids_) : whyslow::release_unused_capacity(narrow_ids_);
  }

  void push_back(int64_t id) {
    if (!wide_ && fits_narrow(id)) [[likely]] {
      narrow_ids_.push_back(static_cast<uint32_t>(id));
      return;
    }
    if (!wide_) widen();
    wide_ids_.push_back(id);
  }

 private:
  static bool fits_narrow(int64_t id) { return id >= 0 && id <= int64_t{UINT32_MAX}; }

  void widen() {
    wide_ids_.reserve(narrow_ids_.capacity());  // the reserve the loader made, kept
    wide_ids_.assign(narrow_ids_.begin(), narrow_ids_.end());
    std::vector<uint32_t>().swap(narrow_ids_);
    wide_ = true;
  }

  bool wide_ = false;
  std::vector<uint32_t> narrow_ids_;
  std::vector<int64_t> wide_ids_;
};

}  // namespace whyslow
