#include "trace/input_source.hpp"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <exception>
#include <mutex>
#include <thread>

#include "common/terminal_text.hpp"
#include "trace/gzip_stream.hpp"
#include "trace/raw_file.hpp"

namespace whyslow {
namespace {

// Read-ahead: four chunks of 256 KiB, two batches of events (load_trace.cpp): the
// reader thread keeps a couple of batches ahead of the framer; 1 MiB per file in flight.
constexpr size_t kChunkBytes = size_t{256} << 10;
constexpr size_t kChunks = 4;

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

bool starts_with_gzip_magic(RawFile& file) { return file.peek() == std::string_view("\x1f\x8b", 2); }

}  // namespace

struct InputSource::Prefetch {
  Prefetch(std::unique_ptr<RawFile> f, bool gzipped) : file(std::move(f)) {
    if (gzipped) gzip = std::make_unique<GzipStream>(*file);
    for (Chunk& c : chunks) c.data = std::make_unique_for_overwrite<char[]>(kChunkBytes);
    thread = std::thread([this] { produce_all(); });
  }
  ~Prefetch() {
    {
      std::lock_guard lock(m);
      stop = true;
    }
    cv.notify_all();
    thread.join();
  }

  size_t produce(char* dst) { return gzip ? gzip->read(dst, kChunkBytes) : file->read(dst, kChunkBytes); }

  // The background thread: fills free chunks in order until the end, an error, or stop.
  void produce_all() {
    for (size_t slot = 0;; slot = (slot + 1) % kChunks) {
      {
        std::unique_lock lock(m);
        cv.wait(lock, [&] { return stop || filled < kChunks; });
        if (stop) return;
      }
      size_t got = 0;
      std::exception_ptr err;
      const auto t0 = std::chrono::steady_clock::now();
      try {
        got = produce(chunks[slot].data.get());
      } catch (...) {
        err = std::current_exception();
      }
      {
        std::lock_guard lock(m);
        busy_seconds += seconds_since(t0);
        file_read = gzip ? gzip->compressed_consumed() : file->bytes_read();
        chunks[slot].len = got;
        if (got > 0) ++filled;
        if (got == 0 || err) {
          done = true;
          error = err;
        }
      }
      cv.notify_all();
      if (got == 0 || err) return;
    }
  }

  struct Chunk {
    std::unique_ptr<char[]> data;
    size_t len = 0;
  };
  std::unique_ptr<RawFile> file;
  std::unique_ptr<GzipStream> gzip;
  Chunk chunks[kChunks];
  std::mutex m;
  std::condition_variable cv;
  size_t filled = 0;     // chunks ready for the reader, starting at `head`
  size_t head = 0;       // the chunk read() takes bytes from
  size_t head_used = 0;  // bytes of it already handed out
  bool done = false, stop = false;
  std::exception_ptr error;  // what ended the stream early, thrown after the bytes before it
  double busy_seconds = 0;
  uint64_t file_read = 0;  // file bytes behind the chunks so far, for progress (read under m)
  std::thread thread;
};

InputSource::InputSource(const std::string& path) {
  auto file = std::make_unique<RawFile>(path, printable(path));
  compressed_ = starts_with_gzip_magic(*file);
  if (!compressed_ && file->is_regular()) {
    direct_ = std::move(file);
    return;
  }
  prefetch_ = std::make_unique<Prefetch>(std::move(file), compressed_);
}

InputSource::~InputSource() = default;

uint64_t InputSource::file_size() const { return direct_ ? direct_->size() : prefetch_->file->size(); }

uint64_t InputSource::file_bytes_read() const {
  if (direct_) return direct_->bytes_read();
  std::lock_guard lock(prefetch_->m);
  return prefetch_->file_read;
}

double InputSource::produce_seconds() const {
  if (direct_) return direct_seconds_;
  std::lock_guard lock(prefetch_->m);
  return prefetch_->busy_seconds;
}

size_t InputSource::read(char* dst, size_t n) {
  if (direct_) {
    const auto t0 = std::chrono::steady_clock::now();
    const size_t got = direct_->read(dst, n);
    direct_seconds_ += seconds_since(t0);
    return got;
  }
  Prefetch& p = *prefetch_;
  size_t total = 0;
  while (total < n) {
    std::unique_lock lock(p.m);
    if (p.filled == 0) {
      if (p.done) {
        if (p.error && total == 0) std::rethrow_exception(p.error);
        break;
      }
      const auto t0 = std::chrono::steady_clock::now();
      p.cv.wait(lock, [&] { return p.filled > 0 || p.done; });
      wait_seconds_ += seconds_since(t0);
      continue;
    }
    lock.unlock();  // the head chunk is the reader's until it is handed back
    Prefetch::Chunk& c = p.chunks[p.head];
    const size_t take = std::min(n - total, c.len - p.head_used);
    std::memcpy(dst + total, c.data.get() + p.head_used, take);
    total += take;
    p.head_used += take;
    if (p.head_used == c.len) {
      p.head_used = 0;
      p.head = (p.head + 1) % kChunks;
      lock.lock();
      --p.filled;
      lock.unlock();
      p.cv.notify_all();
    }
  }
  return total;
}

}  // namespace whyslow
