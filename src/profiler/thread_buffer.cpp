#include "profiler/thread_buffer.hpp"

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <new>

namespace whyslow::profiler_detail {

ThreadBuffer::ThreadBuffer(int32_t tid, std::string thread_name)
    : tid_(tid), thread_name_(std::move(thread_name)), chunks_(new ScopeRecord*[kMaxChunks]()) {}

ThreadBuffer::~ThreadBuffer() {
  for (size_t i = 0; i < kMaxChunks && chunks_[i]; ++i) delete[] chunks_[i];
}

void ThreadBuffer::reset(uint32_t window) noexcept {
  // Count first, then the tag: a reader that sees the new tag also sees the emptied count.
  count_.store(0, std::memory_order_relaxed);
  name_block_ = 0;
  name_used_ = 0;
  window_.store(window, std::memory_order_release);
}

ScopeRecord* ThreadBuffer::new_chunk(size_t index) noexcept {
  if (index >= kMaxChunks) return nullptr;
  // Chunks are kept across windows, so this allocation happens once per 16 K records.
  chunks_[index] = new (std::nothrow) ScopeRecord[kChunkRecords];
  return chunks_[index];
}

const char* ThreadBuffer::copy_name(std::string_view name) noexcept {
  // Records keep names as C strings: a NUL inside the name would end it early, silently. Each is
  // stored as C0 80 instead (Modified UTF-8's NUL, never valid UTF-8 otherwise), which the JSON
  // writer (chrome_trace_writer.cpp) writes back as \u0000.
  const char* const end = name.data() + name.size();
  size_t nuls = 0;
  for (const char* p = name.data(); (p = static_cast<const char*>(std::memchr(p, '\0', static_cast<size_t>(end - p)))) != nullptr; ++p)
    ++nuls;
  const size_t need = name.size() + nuls + 1;
  while (name_block_ < name_blocks_.size() && name_blocks_[name_block_].size - name_used_ < need) {
    ++name_block_;
    name_used_ = 0;
  }
  if (name_block_ == name_blocks_.size()) {
    try {
      const size_t size = std::max(kNameBlockBytes, need);
      name_blocks_.push_back({std::make_unique<char[]>(size), size});
    } catch (const std::bad_alloc&) {
      return nullptr;
    }
    name_used_ = 0;
  }
  char* out = name_blocks_[name_block_].bytes.get() + name_used_;
  if (nuls == 0) {
    std::memcpy(out, name.data(), name.size());
  } else {
    char* w = out;
    for (const char c : name) {
      if (c == '\0') {
        *w++ = static_cast<char>(0xC0);
        *w++ = static_cast<char>(0x80);
      } else {
        *w++ = c;
      }
    }
  }
  out[need - 1] = '\0';
  name_used_ += need;
  return out;
}

namespace {

struct Registry {
  std::mutex mutex;
  std::vector<std::unique_ptr<ThreadBuffer>> buffers;
};
Registry& registry() {
  static Registry* r = new Registry;  // never destroyed: threads may outlive static destructors
  return *r;
}

// Marks the buffer as exited when its thread ends; the registry frees it after collection.
struct ExitMarker {
  ThreadBuffer* buffer = nullptr;
  ~ExitMarker();
};

thread_local ExitMarker t_exit_marker;

ExitMarker::~ExitMarker() {
  if (buffer) buffer->exited.store(true, std::memory_order_release);
  t_thread_buffer = nullptr;
}

std::string current_thread_name() {
  char name[16] = {};
  if (pthread_getname_np(pthread_self(), name, sizeof name) != 0) return {};
  return name;
}

}  // namespace

ThreadBuffer* register_this_thread() noexcept {
  try {
    auto buffer = std::make_unique<ThreadBuffer>(static_cast<int32_t>(syscall(SYS_gettid)),
                                                 current_thread_name());
    Registry& r = registry();
    std::lock_guard lock(r.mutex);
    r.buffers.push_back(std::move(buffer));
    t_thread_buffer = r.buffers.back().get();
  } catch (const std::exception&) {
    return nullptr;
  }
  t_exit_marker.buffer = t_thread_buffer;
  return t_thread_buffer;
}

void for_each_thread_buffer(const std::function<void(const ThreadBuffer&)>& f) {
  Registry& r = registry();
  std::lock_guard lock(r.mutex);
  for (const auto& b : r.buffers) f(*b);
  std::erase_if(r.buffers, [](const auto& b) { return b->exited.load(std::memory_order_acquire); });
}

}  // namespace whyslow::profiler_detail
