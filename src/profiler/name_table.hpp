// Interned names: each distinct string stored once, referred to by index.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace whyslow::profiler_detail {

class NameTable {
 public:
  uint32_t intern(std::string_view name) {
    auto it = index_.find(name);
    if (it != index_.end()) return it->second;
    const auto id = static_cast<uint32_t>(names_.size());
    names_.emplace_back(name);
    index_.emplace(names_.back(), id);
    return id;
  }
  const std::string& operator[](uint32_t id) const { return names_[id]; }

 private:
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  std::vector<std::string> names_;
  std::unordered_map<std::string, uint32_t, Hash, std::equal_to<>> index_;
};

}  // namespace whyslow::profiler_detail
