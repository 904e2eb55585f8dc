// byte_limits: how fast one core of this machine can move a trace's bytes at all, the floor under
// each of the loader's stages (bench/run_bench.sh prints them beside whyslow_bench's stages).
//
//   byte_limits FILE...
//
// One line per FILE, tab-separated, after a header line:
//   file  input_MB  disk_MB  read_MBps  inflate_MBps  memcpy_MBps  index_MBps  walk_MBps
// read: read() of the file, out of a warm page cache, into one 1 MiB buffer (what the loader's
// reading costs at least; MB/s of the bytes on disk, compressed for a .gz); inflate: the same bytes inflated by the loader's own InputSource
// (ISA-L's igzip, or zlib without it; 0 for a plain file) into that buffer; memcpy: the
// uncompressed bytes copied once, from memory already touched to memory already touched (what
// any pass over them costs at least); index: simdjson's structural index of the whole document,
// its stage 1, which On-Demand builds before it reads a single value (any parse with simdjson
// costs at least that); walk: that index and then On-Demand's walk over every field of every
// event and of its args, taking each key and each value's text as written and nothing more (no
// unescaping, no number conversion: what any On-Demand reader of those events costs at least,
// and what whyslow's parse adds to it is its own work). MB = 10^6 bytes of uncompressed JSON; each number is the best of three
// runs on one thread.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <simdjson.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "trace/input_source.hpp"
#include "trace/load_error.hpp"

namespace {

constexpr int kRuns = 3;                  // best of three: the first run may still warm caches
constexpr size_t kReadChunk = size_t{1} << 20;  // the loader reads in chunks of about this size

template <class F>
double best_seconds(F&& run) {
  double best = 1e300;
  for (int i = 0; i < kRuns; ++i) {
    const auto t0 = std::chrono::steady_clock::now();
    run();
    best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return best;
}

double read_seconds(const std::string& path, std::vector<char>& chunk) {
  return best_seconds([&] {
    const int fd = open(path.c_str(), O_RDONLY);
    if (fd < 0) throw std::runtime_error("cannot open " + path);
    while (read(fd, chunk.data(), chunk.size()) > 0) {
    }
    close(fd);
  });
}

// The whole uncompressed JSON, through the loader's input path, with simdjson's padding.
// inflate_seconds: the best of three runs of the source's own inflating (its background thread's
// time, InputSource::produce_seconds), not the copying into the string here.
struct Uncompressed {
  simdjson::padded_string json;
  bool compressed = false;
  double inflate_seconds = 1e300;
};

Uncompressed uncompressed(const std::string& path, std::vector<char>& chunk) {
  Uncompressed out;
  std::string bytes;
  for (int i = 0; i < kRuns; ++i) {
    whyslow::InputSource in(path);
    bytes.clear();
    for (size_t n; (n = in.read(chunk.data(), chunk.size())) > 0;) bytes.append(chunk.data(), n);
    out.inflate_seconds = std::min(out.inflate_seconds, in.produce_seconds());
    out.compressed = in.compressed();
  }
  out.json = simdjson::padded_string(bytes);
  return out;
}

namespace od = simdjson::ondemand;

// Every field of `object`, and of any object value one level down (an event's args): each key's
// first byte and each value's text summed into `sink`, so the walk cannot be optimized away.
void walk_fields(od::object object, bool nested, uint64_t& sink) {
  for (auto field : object) {
    if (field.error()) throw std::runtime_error("simdjson cannot walk a field");
    od::field& f = field.value_unsafe();  // in place, as the loader reads it
    sink += static_cast<unsigned char>(*f.key().raw());
    od::value& v = f.value();
    od::json_type type;
    if (v.type().get(type)) throw std::runtime_error("simdjson cannot type a value");
    if (nested && type == od::json_type::object) {
      od::object inner;
      if (v.get_object().get(inner)) throw std::runtime_error("simdjson cannot open an object");
      walk_fields(inner, false, sink);
    } else {
      sink += v.raw_json_token().size();
    }
  }
}

// Index and walk of the document's traceEvents; returns the number of events walked.
size_t walk_events(od::parser& parser, const simdjson::padded_string& json, uint64_t& sink) {
  od::document doc;
  od::array events;
  if (parser.iterate(json).get(doc) || doc["traceEvents"].get_array().get(events))
    throw std::runtime_error("simdjson cannot walk traceEvents");
  size_t n = 0;
  for (auto item : events) {
    od::object event;
    if (item.error() || item.value_unsafe().get_object().get(event)) throw std::runtime_error("simdjson: an event that is not an object");
    walk_fields(event, true, sink);
    ++n;
  }
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: byte_limits FILE...\n");
    return 1;
  }
  std::printf("file\tinput_MB\tdisk_MB\tread_MBps\tinflate_MBps\tmemcpy_MBps\tindex_MBps\twalk_MBps\n");
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string path = argv[i];
      std::vector<char> chunk(kReadChunk);
      const double read_s = read_seconds(path, chunk);
      const Uncompressed in = uncompressed(path, chunk);
      const simdjson::padded_string& json = in.json;
      const double mb = static_cast<double>(json.size()) / 1e6;

      std::unique_ptr<char[]> copy(new char[json.size()]);
      std::memset(copy.get(), 0, json.size());  // touched, so the copy measures copying, not page faults
      const double memcpy_s = best_seconds([&] { std::memcpy(copy.get(), json.data(), json.size()); });

      simdjson::ondemand::parser parser(json.size());
      if (parser.allocate(json.size())) throw std::runtime_error("simdjson cannot allocate for " + path);
      const double index_s = best_seconds([&] {
        simdjson::ondemand::document doc;
        if (parser.iterate(json).get(doc)) throw std::runtime_error("simdjson cannot index " + path);
      });
      // The walk reaches the last event, so the index it reads was built, not promised.
      uint64_t sink = 0;
      size_t events = 0;
      const double walk_s = best_seconds([&] { events = walk_events(parser, json, sink); });
      std::fprintf(stderr, "byte_limits: %s: %zu events in traceEvents walked (%llu)\n", path.c_str(), events,
                   static_cast<unsigned long long>(sink % 1000));

      struct stat st {};
      const double disk_mb = stat(path.c_str(), &st) == 0 ? static_cast<double>(st.st_size) / 1e6 : 0;
      std::printf("%s\t%.1f\t%.1f\t%.0f\t%.0f\t%.0f\t%.0f\t%.0f\n", path.c_str(), mb, disk_mb, disk_mb / read_s,
                  in.compressed ? mb / in.inflate_seconds : 0.0, mb / memcpy_s, mb / index_s, mb / walk_s);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "byte_limits: %s\n", e.what());
    return 2;
  }
  return 0;
}
