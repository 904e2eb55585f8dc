// Interned strings: each distinct name is stored once and referred to by a 32-bit id.
// Names repeat enormously in traces (the same kernel launched a million times), so an event
// holds an id, and comparing two names is comparing two integers.
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

namespace whyslow {

using NameId = uint32_t;
inline constexpr NameId kNoName = UINT32_MAX;

class StringPool {
 public:
  StringPool();
  StringPool(StringPool&&) noexcept;
  StringPool& operator=(StringPool&&) noexcept;
  ~StringPool();

  NameId intern(std::string_view s) { return intern(s, hash(s)); }
  // The same, with hash(s) computed already (by the loader's parser thread).
  NameId intern(std::string_view s, uint64_t hash);
  static uint64_t hash(std::string_view s);
  // kNoName when `s` was never interned.
  NameId find(std::string_view s) const;
  std::string_view view(NameId id) const { return id == kNoName ? std::string_view{} : views_[id]; }
  size_t size() const { return views_.size(); }

 private:
  void grow_table();
  std::vector<std::string_view> views_;
  std::vector<std::unique_ptr<char[]>> blocks_;  // stable storage: views never move
  size_t block_used_ = 0, block_size_ = 0;
  std::vector<NameId> table_;                    // open addressing, power-of-two size
  std::vector<uint64_t> hashes_;
};

}  // namespace whyslow
