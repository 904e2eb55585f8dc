// The trace model: what every analysis reads. Columnar and immutable once loaded.
//
// Times are integer nanoseconds on the trace's own clock (Kineto's `ts` × 1000, exact: the
// decimal text is parsed digit by digit, never through a double). Names are interned: an
// event holds a NameId into `names`. One track per CPU thread and per GPU stream.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "trace/category_column.hpp"
#include "trace/id_column.hpp"
#include "trace/string_pool.hpp"

namespace whyslow {

using EventId = uint32_t;
inline constexpr EventId kNoEvent = UINT32_MAX;
using TrackId = uint32_t;

// What an event is, from its `cat` (both the current and the 2021 category names map here).
enum class EventKind : uint8_t {
  CpuOp,              // cpu_op / Operator: an ATen operator
  UserAnnotation,     // user_annotation: record_function blocks, ProfilerStep#N
  GpuUserAnnotation,  // gpu_user_annotation: the GPU-lane mirror of a user annotation
  PythonFunction,     // python_function (with_stack)
  Runtime,            // cuda_runtime / Runtime / hip runtime / mtia_runtime: host API calls
  Driver,             // cuda_driver: cuLaunchKernel and friends
  Kernel,             // kernel / Kernel / mtia_ccp_events compute jobs
  Memcpy,             // gpu_memcpy / Memcpy / mtia_ccp_events dma_request
  Memset,             // gpu_memset / Memset
  Sync,               // cuda_sync, MTIA event_record/event_wait/synchronize: GPU-side synchronization records
  Overhead,           // overhead: profiler's own work ("Activity Buffer Request")
  TraceSpan,          // Trace: the profiling window
  Instant,            // ph "i" events ([memory], Iteration Start, Record Window End)
  Other,              // any other category: kept, counted, not interpreted
};
std::string_view to_string(EventKind kind);

inline bool is_gpu_activity(EventKind k) {
  return k == EventKind::Kernel || k == EventKind::Memcpy || k == EventKind::Memset;
}
inline bool is_host_api(EventKind k) { return k == EventKind::Runtime || k == EventKind::Driver; }

// Kernel / copy details from `args`; -1 (or 0 for bytes) where the trace does not say.
struct GpuDetail {
  int32_t grid[3] = {-1, -1, -1};
  int32_t block[3] = {-1, -1, -1};
  int32_t registers = -1;
  int32_t shared_memory = -1;
  int64_t bytes = -1;
  bool operator==(const GpuDetail&) const = default;
};

// CPU op details from `args` (record_shapes): the raw JSON text of Input Dims / Input type /
// Input Strides / Concrete Inputs (the last two let the roofline see expanded tensors and read
// scalar arguments such as a reduction's dims or attention's is_causal).
struct OpShapes {
  NameId input_dims = kNoName;
  NameId input_type = kNoName;
  NameId input_strides = kNoName;
  NameId concrete_inputs = kNoName;
  bool operator==(const OpShapes&) const = default;
};

// A collective's parameters, from the args torch writes on its `record_param_comms` op (absent
// fields: kNoName / -1). Older traces (2023) write the op with none of them.
struct CommArgs {
  EventId event = kNoEvent;       // the record_param_comms op
  NameId collective = kNoName;    // "Collective name": allreduce, _allgather_base, …
  NameId dtype = kNoName;         // "dtype": Float, BFloat16, …
  NameId group = kNoName;         // "Process Group Name" (else "Process Group ID"), as text
  int64_t in_nelems = -1, out_nelems = -1;  // "In msg nelems" / "Out msg nelems"
  int32_t group_size = -1;        // "Group size"
  int64_t seq = -1;               // "Seq": the collective's sequence number in its group
  bool any() const { return collective != kNoName || in_nelems >= 0 || out_nelems >= 0 || seq >= 0; }
  bool operator==(const CommArgs&) const = default;
};

// One allocation or free an allocator reported (profile_memory=True): a "[memory]" instant event's
// args. Bytes > 0 allocates at Addr, < 0 frees what was allocated there; the totals are the
// allocator's after it (CUDA: torch.cuda.memory_allocated() / memory_reserved() of that device).
struct MemoryRecord {
  int64_t addr = -1;             // "Addr"; -1 when absent
  int64_t bytes = 0;             // "Bytes"
  int64_t total_allocated = -1;  // "Total Allocated"; -1 when absent
  int64_t total_reserved = -1;   // "Total Reserved"; -1 when absent
  int32_t device_type = -1;      // "Device Type" (c10::DeviceType: 0 CPU, 1 CUDA, …); -1 when absent
  int32_t device_id = -1;        // "Device Id" (-1 for the CPU)
  bool operator==(const MemoryRecord&) const = default;
};

// The top-level `distributedInfo` (torch.distributed): which rank wrote the trace.
struct DistributedInfo {
  int32_t rank = -1, world_size = -1;  // -1: not in the trace
  std::string backend;
};

enum class TrackKind : uint8_t { Cpu, Gpu, Other };
std::string_view to_string(TrackKind kind);  // "cpu", "gpu", "other"

struct Track {
  std::string pid;     // as written in the trace: "1234", "0", "Spans"
  std::string tid;     // "5678", "7", "stream 7"
  std::string name;    // from thread_name metadata, else a readable default
  TrackKind kind = TrackKind::Other;
  int32_t device = -1;  // GPU tracks: device index
  int64_t stream = -1;  // GPU tracks: stream id
  std::vector<EventId> events;  // sorted by (start, longer first): parents before children
};

struct DeviceInfo {
  int32_t id = -1;
  std::string name;
  int32_t num_sms = -1;
  int64_t total_global_mem = -1;
  int32_t compute_major = -1, compute_minor = -1;
};

// A launch flow (ph "s"/"f", cat ac2g and its older names): counted so a reader can see
// broken links; launch↔kernel linking itself uses the `correlation` args.
struct FlowStats {
  uint64_t starts = 0, finishes = 0, unmatched_finishes = 0, unmatched_starts = 0;
  int64_t max_id = 0;  // the largest flow id (0 without flows): annotate numbers its own above it
};

// Where the loader's time went, in seconds of wall-clock time per stage, for the benchmark's
// stage split. `read` (plain files) or `inflate` (gzip, which includes reading the compressed
// bytes) runs on a thread of its own, overlapped with the others; `wait` is how long the
// framer waited for it. `parse` is summed over the threads that parsed (parser threads and the
// calling thread); `frame` is the calling thread's time outside waiting, parsing and building.
// `total` is the load's wall-clock time.
struct LoadTimes {
  double read = 0, inflate = 0, wait = 0, frame = 0, parse = 0, build = 0, total = 0;
};

struct Trace {
  std::string path;
  StringPool names;

  // ---- events, one column per field ----
  std::vector<int64_t> start_ns;     // ts × 1000
  std::vector<int64_t> dur_ns;       // 0 for instant events
  std::vector<NameId> name;
  std::vector<EventKind> kind;
  std::vector<TrackId> track;
  // The raw ids, as written: read by the loader to link events (launch_link, op_link below) and
  // by slice_trace to link a slice again, by nothing after. The pipeline drops them before the
  // analyses (drop_raw_ids()), so analysis and report code must not read them.
  CategoryColumn category;           // raw `cat` (kNoName when absent)
  IdColumn correlation;              // args.correlation; 0 when absent
  IdColumn external_id;              // args["External id"]; 0 when absent
  std::vector<EventId> parent;       // enclosing event on the same track, or kNoEvent
  // GPU activity → the runtime/driver call that launched it (same `correlation`);
  // runtime/driver call → the first GPU activity it launched. kNoEvent when unresolved.
  std::vector<EventId> launch_link;
  // GPU activity and host API calls → the CPU op or annotation whose `External id` they carry
  // (the innermost op on the stack at launch time). kNoEvent when unresolved. Where that op does
  // not enclose the launch call (a broken External id), the op that does (trace/op_links.hpp).
  std::vector<EventId> op_link;
  std::vector<uint32_t> detail;      // index into gpu_detail (GPU activity), op_shapes (ops) or memory (instants)

  std::vector<GpuDetail> gpu_detail;  // each distinct row once: events with the same one share it (distinct_rows.hpp)
  std::vector<OpShapes> op_shapes;    // each distinct row once, as gpu_detail
  std::vector<NameId> sync_kind;     // per Sync event in order of `detail`: cuda_sync_kind
  std::vector<CommArgs> comm_args;   // record_param_comms ops with parameters, ascending by event
  std::vector<MemoryRecord> memory;  // per instant event with allocator args, in event order
  // Autograd's backward ops (args "Fwd thread id" other than 0, which torch 2.x writes on forward
  // ops; with the "Sequence number" that torch's `fwdbwd` flows are drawn from): work run on the
  // engine's thread for another thread's forward.
  // Ascending; sparse, so no per-event column.
  std::vector<EventId> backward_ops;
  // Autograd's "Sequence number" of the ops that have one, ascending by event: a forward op and
  // the backward ops run for it share it (per forward thread), which links a backward op to the
  // forward op, and so to the module, that made it.
  struct OpSequence {
    EventId event;
    int64_t seq;
  };
  std::vector<OpSequence> op_sequence;

  std::vector<Track> tracks;
  // The pids metadata events ("ph": "M") name, each once: a process may exist only as its
  // process_name (Kineto names idle GPUs' processes), and annotate must not take its pid.
  std::vector<NameId> metadata_pids;
  std::vector<DeviceInfo> devices;
  FlowStats flows;

  int64_t base_time_ns = 0;          // baseTimeNanoseconds (0 when absent)
  DistributedInfo distributed;
  int schema_version = 0;
  bool truncated = false;            // the file ended mid-event and --allow-truncated was given
  uint64_t truncated_at_byte = 0;
  uint64_t input_bytes = 0;          // uncompressed bytes read
  uint64_t replaced_control_chars = 0;
  uint64_t ignored_events = 0;       // phases whyslow does not read (C, b/e, …): counted
  std::string ignored_phases;        // their 'ph' letters, each once, in order of first appearance
  uint64_t unbalanced_durations = 0; // "B" never closed and "E" with nothing open on its thread: left out
  uint64_t repaired_op_links = 0;    // kernels/copies/memsets whose External id op did not enclose their launch
  LoadTimes load_times;

  size_t size() const { return start_ns.size(); }
  // Frees the raw id columns (9 bytes per event, 17 where an id needs 64 bits) once the links are built: a sixth of a loaded
  // trace, before the analyses' own peak.
  void drop_raw_ids() {
    category = {};
    correlation = {};
    external_id = {};
  }
  int64_t end_ns(EventId e) const { return start_ns[e] + dur_ns[e]; }
  std::string_view name_of(EventId e) const { return names.view(name[e]); }
  // The event's entry in a table of names.size() + 1 entries, one per name and the last for none.
  size_t name_slot(EventId e) const { return name[e] == kNoName ? names.size() : name[e]; }
  // The order of a thread's events in torch's op tree (Track::events is sorted by it): by start,
  // the longer of two that start together first (a parent before its children), then by id.
  bool nests_before(EventId a, EventId b) const {
    if (start_ns[a] != start_ns[b]) return start_ns[a] < start_ns[b];
    if (dur_ns[a] != dur_ns[b]) return dur_ns[a] > dur_ns[b];
    return a < b;
  }
  // An op's (or annotation's) recorded "Input Dims" (record_shapes); kNoName without.
  NameId input_dims_of(EventId e) const {
    const bool has_shapes = (kind[e] == EventKind::CpuOp || kind[e] == EventKind::UserAnnotation) && detail[e] != UINT32_MAX;
    return has_shapes ? op_shapes[detail[e]].input_dims : kNoName;
  }
  // A launch: a runtime/driver call that started a kernel, memcpy or memset. (Its launch_link
  // can also name a synchronization's GPU-side record, which CUPTI correlates with
  // cudaEventSynchronize and friends; that call launched nothing.)
  bool is_launch(EventId e) const {
    return is_host_api(kind[e]) && launch_link[e] != kNoEvent && is_gpu_activity(kind[launch_link[e]]);
  }
};

}  // namespace whyslow
