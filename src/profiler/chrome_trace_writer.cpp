#include "profiler/chrome_trace_writer.hpp"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <map>
#include <numeric>
#include <set>
#include <string_view>
#include <unordered_set>

#include "output/output_file.hpp"
#include "profiler/trace_links.hpp"
#include "whyslow/profiler.hpp"

namespace whyslow::profiler_detail {
namespace {

// Kineto's base: the Unix time floored to 7,889,238 s (about three months), so relative times
// stay short and every trace of a quarter shares one base.
constexpr int64_t kBaseIntervalNs = 7'889'238LL * 1'000'000'000LL;
constexpr size_t kFlushBytes = 1 << 20;

// The length of the well-formed UTF-8 sequence at s[i] (a byte >= 0x80), or 0 when there is none
// (Unicode's Table 3-7: no overlong forms, no surrogates, nothing above U+10FFFF).
size_t utf8_sequence_length(std::string_view s, size_t i) {
  const auto at = [&](size_t k) { return i + k < s.size() ? static_cast<unsigned char>(s[i + k]) : 0u; };
  const unsigned c = at(0);
  const auto tail = [&](size_t k) { return at(k) >= 0x80 && at(k) <= 0xBF; };
  if (c >= 0xC2 && c <= 0xDF) return tail(1) ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    const unsigned lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
    return at(1) >= lo && at(1) <= hi && tail(2) ? 3 : 0;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    const unsigned lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
    return at(1) >= lo && at(1) <= hi && tail(2) && tail(3) ? 4 : 0;
  }
  return 0;
}

class JsonOut {
 public:
  explicit JsonOut(OutputFile& file) : file_(file) { text_.reserve(kFlushBytes + 4096); }

  JsonOut& raw(std::string_view s) {
    text_ += s;
    if (text_.size() >= kFlushBytes) flush();
    return *this;
  }
  // A JSON string that whyslow and every JSON reader accept, whatever bytes a name holds: valid
  // UTF-8 as it is, each byte that does not belong to a valid sequence as U+FFFD, control
  // characters escaped, and the pair C0 80 (how ThreadBuffer::copy_name keeps a NUL) as \u0000.
  JsonOut& string(std::string_view s) {
    text_ += '"';
    for (size_t i = 0; i < s.size();) {
      const auto c = static_cast<unsigned char>(s[i]);
      if (c >= 0x80) {
        const size_t n = utf8_sequence_length(s, i);
        if (n > 0) {
          text_.append(s.substr(i, n));
          i += n;
        } else if (c == 0xC0 && i + 1 < s.size() && static_cast<unsigned char>(s[i + 1]) == 0x80) {
          text_ += "\\u0000";
          i += 2;
        } else {
          text_ += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
          ++i;
        }
        continue;
      }
      switch (c) {
        case '"': text_ += "\\\""; break;
        case '\\': text_ += "\\\\"; break;
        case '\n': text_ += "\\n"; break;
        case '\t': text_ += "\\t"; break;
        case '\r': text_ += "\\r"; break;
        default:
          if (c < 0x20) {
            static constexpr char kHex[] = "0123456789abcdef";
            const char escaped[] = {'\\', 'u', '0', '0', kHex[c >> 4], kHex[c & 0xF]};
            text_.append(escaped, sizeof escaped);
          } else {
            text_ += static_cast<char>(c);
          }
      }
      ++i;
    }
    text_ += '"';
    return *this;
  }
  template <typename Int>
  JsonOut& integer(Int v) {
    char buf[24];
    text_.append(buf, std::to_chars(buf, buf + sizeof buf, v).ptr);
    return *this;
  }
  JsonOut& real(double v, int fixed_decimals = -1) {
    char buf[64];
    auto r = fixed_decimals < 0 ? std::to_chars(buf, buf + sizeof buf, v)
                                : std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed,
                                                fixed_decimals);
    text_.append(buf, r.ptr);
    return *this;
  }
  // Microseconds with three decimals, exact: 1234567 ns → 1234.567.
  JsonOut& micros(int64_t ns) {
    if (ns < 0) {
      text_ += '-';
      ns = -ns;
    }
    integer(ns / 1000);
    char frac[4] = {static_cast<char>('0' + ns % 1000 / 100), static_cast<char>('0' + ns % 100 / 10),
                    static_cast<char>('0' + ns % 10), 0};
    text_ += '.';
    text_ += frac;
    return *this;
  }
  void flush() {
    file_.write(text_);
    text_.clear();
  }

 private:
  OutputFile& file_;
  std::string text_;
};

std::string_view api_category(const ApiCall& c) { return c.driver ? "cuda_driver" : "cuda_runtime"; }

std::string_view activity_category(GpuKind k) {
  switch (k) {
    case GpuKind::Kernel: return "kernel";
    case GpuKind::Memcpy: return "gpu_memcpy";
    case GpuKind::Memset: return "gpu_memset";
    case GpuKind::Sync: return "cuda_sync";
  }
  return "kernel";
}

class TraceWriter {
 public:
  TraceWriter(const RecordedTrace& trace, JsonOut& out)
      : t_(trace), out_(out), links_(link_trace(trace)) {
    base_ns_ = (trace.start_ns + trace.unix_offset_ns) / kBaseIntervalNs * kBaseIntervalNs;
  }

  void write(const std::string& path) {
    out_.raw("{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [");
    write_devices();
    out_.raw("\n  ],\n");
    if (t_.gpu_collected) {
      out_.raw("  \"cupti_version\": ").integer(t_.gpu.cupti_version);
      out_.raw(",\n  \"cuda_runtime_version\": ").integer(t_.gpu.cuda_runtime_version);
      out_.raw(",\n  \"cuda_driver_version\": ").integer(t_.gpu.cuda_driver_version);
      out_.raw(",\n");
    }
    out_.raw("  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": ").integer(base_ns_);
    out_.raw(",\n  \"traceEvents\": [");
    write_ranges();
    write_api_calls();
    write_activities();
    write_gpu_annotations();
    write_overheads();
    write_metadata();
    write_window();
    out_.raw("\n  ],\n  \"traceName\": ").string(path).raw("\n}\n");
    out_.flush();
  }

 private:
  // Relative trace time of a profiler-clock time.
  int64_t rel(int64_t profiler_ns) const { return profiler_ns + t_.unix_offset_ns - base_ns_; }

  void begin_event() {
    out_.raw(first_event_ ? "\n  {" : ",\n  {");
    first_event_ = false;
  }
  void slice(std::string_view cat, std::string_view name, int64_t pid, int64_t tid, int64_t start_ns,
             int64_t end_ns) {
    begin_event();
    out_.raw("\n    \"ph\": \"X\", \"cat\": ").string(cat).raw(", \"name\": ").string(name);
    out_.raw(", \"pid\": ").integer(pid).raw(", \"tid\": ").integer(tid);
    out_.raw(",\n    \"ts\": ").micros(rel(start_ns)).raw(", \"dur\": ").micros(end_ns - start_ns);
  }
  void flow(char phase, uint32_t id, int64_t pid, int64_t tid, int64_t start_ns) {
    begin_event();
    out_.raw("\n    \"ph\": \"").raw(std::string_view(&phase, 1)).raw("\", \"id\": ").integer(id);
    out_.raw(", \"pid\": ").integer(pid).raw(", \"tid\": ").integer(tid);
    out_.raw(", \"ts\": ").micros(rel(start_ns)).raw(",\n    \"cat\": \"ac2g\", \"name\": \"ac2g\"");
    out_.raw(phase == 'f' ? ", \"bp\": \"e\"\n  }" : "\n  }");
  }

  const DeviceProperties* device(uint32_t id) const {
    for (const auto& d : t_.gpu.devices)
      if (d.id == static_cast<int>(id)) return &d;
    return nullptr;
  }

  void write_devices() {
    bool first = true;
    for (const DeviceProperties& d : t_.gpu.devices) {
      out_.raw(first ? "\n    {" : ",\n    {");
      first = false;
      out_.raw("\n      \"id\": ").integer(d.id).raw(", \"name\": ").string(d.name);
      out_.raw(", \"totalGlobalMem\": ").integer(d.total_global_mem);
      out_.raw(",\n      \"computeMajor\": ").integer(d.compute_major);
      out_.raw(", \"computeMinor\": ").integer(d.compute_minor);
      out_.raw(",\n      \"maxThreadsPerBlock\": ").integer(d.max_threads_per_block);
      out_.raw(", \"maxThreadsPerMultiprocessor\": ").integer(d.max_threads_per_multiprocessor);
      out_.raw(",\n      \"regsPerBlock\": ").integer(d.regs_per_block);
      out_.raw(", \"warpSize\": ").integer(d.warp_size);
      out_.raw(",\n      \"sharedMemPerBlock\": ").integer(d.shared_mem_per_block);
      out_.raw(", \"numSms\": ").integer(d.num_sms);
      out_.raw(",\n      \"regsPerMultiprocessor\": ").integer(d.regs_per_multiprocessor);
      out_.raw(", \"sharedMemPerBlockOptin\": ").integer(d.shared_mem_per_block_optin);
      out_.raw(", \"sharedMemPerMultiprocessor\": ").integer(d.shared_mem_per_multiprocessor);
      out_.raw("\n    }");
    }
  }

  void write_ranges() {
    int64_t index = 0;
    for (uint32_t r : links_.range_order) {
      const CpuRange& range = t_.ranges[r];
      slice("user_annotation", t_.names[range.name], t_.pid, range.tid, range.start_ns, range.end_ns);
      out_.raw(",\n    \"args\": {\n      \"External id\": ").integer(links_.range_external_id[r]);
      out_.raw(", \"Record function id\": 0, \"Ev Idx\": ").integer(index++).raw("\n    }\n  }");
    }
  }

  void write_api_calls() {
    std::unordered_set<uint32_t> launched;  // calls with GPU work: they start a flow
    for (size_t a = 0; a < t_.gpu.activities.size(); ++a)
      if (links_.activity_api[a] >= 0) launched.insert(t_.gpu.activities[a].correlation);
    const auto& calls = t_.gpu.api_calls;
    for (uint32_t c : by_start(calls)) {
      const ApiCall& call = calls[c];
      slice(api_category(call), t_.gpu.names[call.name], t_.pid, call.tid, call.start_ns, call.end_ns);
      out_.raw(",\n    \"args\": {\n      ");
      if (links_.api_external_id[c] != 0)
        out_.raw("\"External id\": ").integer(links_.api_external_id[c]).raw(", ");
      out_.raw("\"cbid\": ").integer(call.cbid).raw(", \"correlation\": ").integer(call.correlation);
      out_.raw("\n    }\n  }");
      if (launched.count(call.correlation)) flow('s', call.correlation, t_.pid, call.tid, call.start_ns);
    }
  }

  void write_activities() {
    const auto& acts = t_.gpu.activities;
    for (uint32_t a : by_start(acts)) {
      const GpuActivity& g = acts[a];
      slice(activity_category(g.kind), t_.gpu.names[g.name], g.device, g.stream, g.start_ns, g.end_ns);
      out_.raw(",\n    \"args\": {\n      ");
      const int32_t call = links_.activity_api[a];
      if (call >= 0 && links_.api_external_id[call] != 0)
        out_.raw("\"External id\": ").integer(links_.api_external_id[call]).raw(", ");
      switch (g.kind) {
        case GpuKind::Kernel: kernel_args(g); break;
        case GpuKind::Memcpy:
        case GpuKind::Memset: copy_args(g); break;
        case GpuKind::Sync: sync_args(g); break;
      }
      out_.raw("\n    }\n  }");
      if (call >= 0) flow('f', g.correlation, g.device, g.stream, g.start_ns);
    }
  }

  void kernel_args(const GpuActivity& g) {
    out_.raw("\"queued\": 0, \"device\": ").integer(g.device).raw(", \"context\": ").integer(g.context);
    out_.raw(", \"stream\": ").integer(g.stream).raw(", \"correlation\": ").integer(g.correlation);
    out_.raw(", \"registers per thread\": ").integer(g.registers);
    out_.raw(", \"shared memory\": ").integer(g.shared_memory);
    if (const DeviceProperties* d = device(g.device); d && d->num_sms > 0 && d->warp_size > 0) {
      const double blocks = static_cast<double>(g.grid[0]) * g.grid[1] * g.grid[2];
      const int64_t threads = static_cast<int64_t>(g.block[0]) * g.block[1] * g.block[2];
      const double warps_per_block = static_cast<double>((threads + d->warp_size - 1) / d->warp_size);
      out_.raw(", \"blocks per SM\": ").real(blocks / d->num_sms, 6);
      out_.raw(", \"warps per SM\": ").real(blocks * warps_per_block / d->num_sms, 6);
    }
    out_.raw(", \"grid\": [").integer(g.grid[0]).raw(", ").integer(g.grid[1]).raw(", ").integer(g.grid[2]);
    out_.raw("], \"block\": [").integer(g.block[0]).raw(", ").integer(g.block[1]).raw(", ").integer(g.block[2]);
    out_.raw("]");
    if (g.occupancy_percent >= 0) out_.raw(", \"est. achieved occupancy %\": ").integer(g.occupancy_percent);
    if (g.graph_id != 0) {
      out_.raw(", \"graph id\": ").integer(g.graph_id);
      out_.raw(", \"graph node id\": ").integer(g.graph_node_id);
    }
  }

  void copy_args(const GpuActivity& g) {
    out_.raw("\"device\": ").integer(g.device).raw(", \"context\": ").integer(g.context);
    out_.raw(", \"stream\": ").integer(g.stream).raw(", \"correlation\": ").integer(g.correlation);
    out_.raw(", \"bytes\": ").integer(g.bytes);
    if (g.end_ns > g.start_ns)  // bytes per ns = GB/s
      out_.raw(", \"memory bandwidth (GB/s)\": ").real(static_cast<double>(g.bytes) / (g.end_ns - g.start_ns));
    if (g.graph_id != 0) {
      out_.raw(", \"graph id\": ").integer(g.graph_id);
      out_.raw(", \"graph node id\": ").integer(g.graph_node_id);
    }
  }

  void sync_args(const GpuActivity& g) {
    out_.raw("\"cuda_sync_kind\": ").string(t_.gpu.names[g.name]);
    out_.raw(", \"stream\": ").integer(g.stream).raw(", \"device\": ").integer(g.device);
    out_.raw(", \"context\": ").integer(g.context).raw(", \"correlation\": ").integer(g.correlation);
    if (g.event_id != UINT32_MAX) {
      out_.raw(", \"wait_on_stream\": ").integer(g.wait_on_stream);
      out_.raw(", \"wait_on_cuda_event_record_corr_id\": ").integer(g.wait_on_event_correlation);
      out_.raw(", \"wait_on_cuda_event_id\": ").integer(g.event_id);
    }
  }

  // Kineto widens the mirror by 1 ns on each side so viewers draw it around its kernels.
  void write_gpu_annotations() {
    for (const GpuAnnotation& a : links_.gpu_annotations) {
      slice("gpu_user_annotation", t_.names[t_.ranges[a.range].name], a.device, a.stream,
            a.start_ns - 1, a.end_ns + 1);
      out_.raw(",\n    \"args\": {\n      \"External id\": ").integer(links_.range_external_id[a.range]);
      out_.raw("\n    }\n  }");
    }
  }

  void write_overheads() {
    for (const GpuOverhead& o : t_.gpu.overheads) {
      slice("overhead", t_.gpu.names[o.name], -1, 0, o.start_ns, o.end_ns);
      out_.raw("\n  }");
    }
  }

  void begin_metadata(std::string_view what, int64_t pid, int64_t tid, std::string_view key) {
    begin_event();
    out_.raw("\n    \"name\": ").string(what).raw(", \"ph\": \"M\", \"ts\": ").micros(rel(t_.start_ns));
    out_.raw(", \"pid\": ").integer(pid).raw(", \"tid\": ").integer(tid);
    out_.raw(",\n    \"args\": {\n      ").string(key).raw(": ");
  }
  void metadata(std::string_view what, int64_t pid, int64_t tid, std::string_view key, std::string_view text) {
    begin_metadata(what, pid, tid, key);
    out_.string(text).raw("\n    }\n  }");
  }
  void sort_index(std::string_view what, int64_t pid, int64_t tid, int64_t index) {
    begin_metadata(what, pid, tid, "sort_index");
    out_.integer(index).raw("\n    }\n  }");
  }

  void write_metadata() {
    metadata("process_name", t_.pid, 0, "name", t_.process_name);
    metadata("process_labels", t_.pid, 0, "labels", "CPU");
    sort_index("process_sort_index", t_.pid, 0, t_.pid);
    std::set<uint32_t> gpus;
    std::set<std::pair<uint32_t, int64_t>> streams;
    for (const GpuActivity& g : t_.gpu.activities) {
      gpus.insert(g.device);
      streams.emplace(g.device, g.stream);
    }
    for (uint32_t d : gpus) {
      metadata("process_name", d, 0, "name", t_.process_name);
      metadata("process_labels", d, 0, "labels", "GPU " + std::to_string(d));
      sort_index("process_sort_index", d, 0, 5'000'000 + d);
    }
    // Threads with scopes know their names; threads that only made CUDA calls get a number.
    std::map<int32_t, std::string> threads;
    for (const ApiCall& c : t_.gpu.api_calls) threads.emplace(c.tid, "");
    for (const ThreadInfo& th : t_.threads) threads[th.tid] = th.name;
    for (const auto& [tid, thread_name] : threads) {
      std::string name = "thread " + std::to_string(tid);
      if (!thread_name.empty()) name += " (" + thread_name + ")";
      metadata("thread_name", t_.pid, tid, "name", name);
      sort_index("thread_sort_index", t_.pid, tid, tid);
    }
    for (const auto& [d, stream] : streams) {
      // Kineto's stream names end in a space; readers that match on them expect it.
      metadata("thread_name", d, stream, "name", "stream " + std::to_string(stream) + " ");
      sort_index("thread_sort_index", d, stream, stream);
    }
  }

  void write_window() {
    begin_event();
    out_.raw("\n    \"ph\": \"X\", \"cat\": \"Trace\", \"ts\": ").micros(rel(t_.start_ns));
    out_.raw(", \"dur\": ").micros(t_.end_ns - t_.start_ns);
    out_.raw(",\n    \"pid\": \"Spans\", \"tid\": \"whyslow Profiler\", \"name\": \"whyslow Profiler (0)\"");
    out_.raw(",\n    \"args\": {\n      \"Op count\": 0\n    }\n  }");
    begin_event();
    out_.raw("\n    \"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\", \"pid\": \"\", \"tid\": \"\", \"ts\": ");
    out_.micros(rel(t_.end_ns)).raw("\n  }");
  }

  template <typename T>
  static std::vector<uint32_t> by_start(const std::vector<T>& items) {
    std::vector<uint32_t> order(items.size());
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return items[a].start_ns < items[b].start_ns; });
    return order;
  }

  const RecordedTrace& t_;
  JsonOut& out_;
  TraceLinks links_;
  int64_t base_ns_ = 0;
  bool first_event_ = true;
};

}  // namespace

void write_chrome_trace(const RecordedTrace& trace, const std::string& path) {
  const bool gzip = path.size() >= 3 && path.compare(path.size() - 3, 3, ".gz") == 0;
  try {
    OutputOptions options;
    options.gzip = gzip;
    OutputFile file(path, options);
    JsonOut out(file);
    TraceWriter(trace, out).write(path);
    file.commit();
  } catch (const OutputError& e) {
    throw ProfilerError(std::string("cannot write the trace: ") + e.what());
  }
}

}  // namespace whyslow::profiler_detail
