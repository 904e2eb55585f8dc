#include "trace/string_pool.hpp"

#include <cstring>

#include "common/same_bytes.hpp"

namespace whyslow {
namespace {

// FNV-1a over 8-byte words, the last 1-8 bytes as one word (two overlapping loads; the length,
// mixed in first, keeps apart strings those loads would read alike): names are short, and this is
// cheap and good enough for a table whose collisions are resolved by comparing the bytes.
uint64_t hash_bytes(std::string_view s) {
  uint64_t h = 1469598103934665603ull;
  const auto mix = [&h](uint64_t w) {
    h = (h ^ w) * 1099511628211ull;
    h ^= h >> 29;
  };
  mix(s.size());  // a word of its own: XORed into the first word, a length could cancel a byte
  const char* p = s.data();
  size_t n = s.size();
  for (; n > 8; p += 8, n -= 8) mix(load_word(p, 8));
  if (n >= 4) {
    mix((load_word(p, 4) << 32) | load_word(p + n - 4, 4));
  } else if (n > 0) {  // 1-3 bytes: the first, middle and last cover them all
    const auto byte = [](char c) { return static_cast<uint64_t>(static_cast<unsigned char>(c)); };
    mix((byte(p[0]) << 16) | (byte(p[n / 2]) << 8) | byte(p[n - 1]));
  }
  return h ^ (h >> 32);
}

constexpr size_t kBlockBytes = 1 << 20;

}  // namespace

StringPool::StringPool() : table_(1024, kNoName) {}
StringPool::StringPool(StringPool&&) noexcept = default;
StringPool& StringPool::operator=(StringPool&&) noexcept = default;
StringPool::~StringPool() = default;

NameId StringPool::find(std::string_view s) const {
  const uint64_t h = hash_bytes(s);
  const size_t mask = table_.size() - 1;
  for (size_t i = h & mask;; i = (i + 1) & mask) {
    const NameId id = table_[i];
    if (id == kNoName) return kNoName;
    if (hashes_[id] == h && same_bytes(views_[id], s)) return id;
  }
}

uint64_t StringPool::hash(std::string_view s) { return hash_bytes(s); }

NameId StringPool::intern(std::string_view s, uint64_t h) {
  const size_t mask = table_.size() - 1;
  size_t i = h & mask;
  for (;; i = (i + 1) & mask) {
    const NameId id = table_[i];
    if (id == kNoName) break;
    if (hashes_[id] == h && same_bytes(views_[id], s)) return id;
  }
  if (blocks_.empty() || block_used_ + s.size() > block_size_) {
    block_size_ = s.size() > kBlockBytes ? s.size() : kBlockBytes;
    blocks_.push_back(std::make_unique<char[]>(block_size_));
    block_used_ = 0;
  }
  char* dst = blocks_.back().get() + block_used_;
  if (!s.empty()) std::memcpy(dst, s.data(), s.size());
  block_used_ += s.size();
  const NameId id = static_cast<NameId>(views_.size());
  views_.emplace_back(dst, s.size());
  hashes_.push_back(h);
  table_[i] = id;
  if (views_.size() * 2 > table_.size()) grow_table();
  return id;
}

void StringPool::grow_table() {
  std::vector<NameId> bigger(table_.size() * 2, kNoName);
  const size_t mask = bigger.size() - 1;
  for (NameId id = 0; id < views_.size(); ++id) {
    size_t i = hashes_[id] & mask;
    while (bigger[i] != kNoName) i = (i + 1) & mask;
    bigger[i] = id;
  }
  table_.swap(bigger);
}

}  // namespace whyslow
