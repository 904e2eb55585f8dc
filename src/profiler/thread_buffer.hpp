// Per-thread scope buffers: the owner thread appends without a lock; the profiler reads the
// complete records of a window from any thread.
//
// A record is written whole when its scope closes, then published by a release store of the
// count, so the reader takes [0, count) without stopping the writer. Records live in fixed
// chunks that never move, and each buffer is tagged with the window its records belong to: the
// owner starts over (count = 0) the first time it records in a newer window.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace whyslow::profiler_detail {

// Left uninitialised on purpose: chunks are allocated without zeroing, so their pages are
// touched one at a time as records fill them, not all at once inside someone's scope.
struct ScopeRecord {
  uint64_t start, end;  // clock ticks
  const char* name;
};

class ThreadBuffer {
 public:
  ThreadBuffer(int32_t tid, std::string thread_name);
  ~ThreadBuffer();
  ThreadBuffer(const ThreadBuffer&) = delete;
  ThreadBuffer& operator=(const ThreadBuffer&) = delete;

  // ---- owner thread (inline: the scope hot path) ----
  // Forgets the records and copied names of an older window.
  void begin_window(uint32_t window) noexcept {
    if (window_.load(std::memory_order_relaxed) != window) [[unlikely]] reset(window);
  }
  // False when the buffer is full or out of memory (the record is dropped).
  bool append(const ScopeRecord& record) noexcept {
    const size_t n = count_.load(std::memory_order_relaxed);
    ScopeRecord* chunk = n / kChunkRecords < kMaxChunks ? chunks_[n / kChunkRecords] : nullptr;
    if (chunk == nullptr) [[unlikely]] {
      chunk = new_chunk(n / kChunkRecords);
      if (chunk == nullptr) return false;
    }
    chunk[n % kChunkRecords] = record;
    count_.store(n + 1, std::memory_order_release);
    return true;
  }
  // A copy of `name` that lives until the next window begins (a NUL inside it kept as C0 80);
  // nullptr when out of memory.
  const char* copy_name(std::string_view name) noexcept;

  // ---- any thread ----
  // Calls f(record) for each complete record of `window`.
  template <typename F>
  void for_each_record(uint32_t window, F&& f) const {
    if (window_.load(std::memory_order_acquire) != window) return;
    const size_t n = count_.load(std::memory_order_acquire);
    for (size_t i = 0; i < n; ++i) f(chunks_[i / kChunkRecords][i % kChunkRecords]);
  }
  int32_t tid() const { return tid_; }
  const std::string& thread_name() const { return thread_name_; }
  // Set when the thread exits; the buffer is freed after its last window is collected.
  std::atomic<bool> exited{false};

 private:
  void reset(uint32_t window) noexcept;
  ScopeRecord* new_chunk(size_t index) noexcept;

  static constexpr size_t kChunkRecords = 16384;
  static constexpr size_t kMaxChunks = 4096;  // 67 M records per thread and window
  static constexpr size_t kNameBlockBytes = 64 * 1024;

  const int32_t tid_;
  const std::string thread_name_;
  std::atomic<uint32_t> window_{0};
  std::atomic<size_t> count_{0};
  std::unique_ptr<ScopeRecord*[]> chunks_;
  struct NameBlock {
    std::unique_ptr<char[]> bytes;
    size_t size = 0;
  };
  std::vector<NameBlock> name_blocks_;
  size_t name_block_ = 0, name_used_ = 0;
};

// The calling thread's buffer; nullptr until it records its first scope.
inline thread_local ThreadBuffer* t_thread_buffer = nullptr;

ThreadBuffer* register_this_thread() noexcept;

// The calling thread's buffer, registered on first use; nullptr when it cannot be allocated.
inline ThreadBuffer* this_thread_buffer() noexcept {
  ThreadBuffer* buffer = t_thread_buffer;
  return buffer != nullptr ? buffer : register_this_thread();
}

// Calls f(buffer) for every registered buffer, under the registry lock; then frees the
// buffers of threads that have exited.
void for_each_thread_buffer(const std::function<void(const ThreadBuffer&)>& f);

}  // namespace whyslow::profiler_detail
