// A plain (uncompressed) trace file mapped into memory, so the loader frames its events where
// they lie instead of copying them from the page cache through read() into a buffer of its own
// (on a 540 MB trace that copy is a tenth of the load's CPU time). The mapping is private and
// writable: the loader blanks stray control bytes in place, and no write reaches the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace whyslow {

class MappedFile {
 public:
  // The file mapped, or null where it cannot be (not a regular file, empty, or mmap refused):
  // the caller then reads it. `fd` stays the caller's.
  static std::unique_ptr<MappedFile> map(int fd);
  ~MappedFile();
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;

  // The file's bytes; at least kReadablePadding readable bytes follow data()[size() - 1]
  // (zeros), as simdjson needs after a value it parses in place.
  char* data() const { return data_; }
  uint64_t size() const { return size_; }
  static constexpr size_t kReadablePadding = 4096;

  // The caller is done with the bytes before `offset`: their pages leave the process's memory
  // (the page cache keeps them), so resident memory stays a window, not the file.
  void release_before(uint64_t offset);

 private:
  MappedFile(char* data, uint64_t size, size_t mapped) : data_(data), size_(size), mapped_(mapped) {}
  char* data_;
  uint64_t size_;
  size_t mapped_;          // bytes of address space, padding included
  uint64_t released_ = 0;  // pages before this offset are released
};

}  // namespace whyslow
