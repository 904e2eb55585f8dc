// Accumulates parsed events column by column, then finishes the Trace: tracks, per-track
// order, nesting, and the correlation / External id links. The JSON layer feeds it; nothing
// here knows about JSON.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "trace/distinct_rows.hpp"
#include "trace/trace.hpp"

namespace whyslow {

// One event as the parser saw it; reused for every event, so it never allocates.
struct ParsedEvent {
  char ph = 0;
  NameId name = kNoName;
  NameId category = kNoName;
  NameId pid = kNoName;  // pid / tid text, interned
  NameId tid = kNoName;
  int64_t ts_ns = 0;
  int64_t dur_ns = 0;
  bool has_ts = false, has_dur = false;
  int64_t correlation = 0;
  int64_t external_id = 0;
  bool has_gpu_detail = false;
  GpuDetail gpu;
  OpShapes shapes;
  NameId sync_kind = kNoName;
  CommArgs comm;  // record_param_comms parameters (event unset: the builder fills it)
  NameId meta_value = kNoName;  // ph "M": args.name / args.labels
  bool forward_linked = false;  // args["Fwd thread id"] ≠ 0: an autograd op run for another thread's forward
  int64_t sequence = -1;        // args["Sequence number"]: autograd's number of a forward op, shared by its backward
  bool has_memory = false;      // args of an allocator record ("[memory]": Addr, Bytes, Total Allocated, …)
  MemoryRecord memory;
  void reset() { *this = ParsedEvent{}; }
  bool operator==(const ParsedEvent&) const = default;
};

// "B" events open at once, all threads together: each is held whole (~260 bytes) until its "E".
// A real trace nests a few hundred deep on a few dozen threads; 2 M "B"s never closed (a 262 kB
// .gz) held 520 MB for a trace with no event in it. Past this many the load is refused.
inline constexpr size_t kMaxOpenDurations = size_t{1} << 16;

class TraceBuilder {
 public:
  explicit TraceBuilder(std::string path);
  StringPool& names() { return trace_.names; }
  Trace& trace() { return trace_; }  // for top-level metadata (devices, base time)

  // Adds a complete ("X") or instant ("i") event.
  void add_event(const ParsedEvent& e);
  void add_metadata(const ParsedEvent& e);  // ph "M"
  void add_flow(const ParsedEvent& e);      // ph "s" / "f"
  // A Chrome-trace duration event's two ends: "B" opens it on its thread, the next "E" on the
  // same thread closes the innermost one open (the format nests them per thread). close_duration
  // returns the pair as a complete ("X") event, for the caller to check and add_event(); nullptr
  // for an "E" with nothing open, counted as unbalanced like a "B" never closed.
  // Returns false, keeping nothing, when kMaxOpenDurations are open already.
  [[nodiscard]] bool open_duration(const ParsedEvent& e);
  const ParsedEvent* close_duration(const ParsedEvent& e);
  void count_ignored(char ph);
  // Makes room for about `expected` events in all, so the columns do not grow by doubling
  // (each doubling copies the column and touches twice its pages). The per-kind side tables get
  // the share of them the events so far had. Capacity never touched costs address space, not
  // memory; a reservation the system refuses is skipped (the columns then grow as before).
  void reserve(uint64_t expected);
  uint64_t event_count() const { return trace_.size(); }

  Trace finish() &&;

 private:
  void release_unused_columns() const;
  EventKind kind_of(NameId category, NameId name, NameId pid, char ph);  // pid: legacy traces
  TrackId track_of(NameId pid, NameId tid);
  void build_tracks();
  void nest_track(Track& t);
  void link_events();  // launch and op links as written; finish() repairs the op links after
  void count_flows();

  Trace trace_;
  std::unordered_map<uint64_t, TrackId> track_ids_;
  // The previous event's track, a shortcut for runs of events on one thread. Every 64-bit key
  // is some (pid, tid) pair (no pid and no tid is kNoName twice, all ones), so "no track yet"
  // is its own flag, not a reserved key.
  bool has_last_track_ = false;
  uint64_t last_track_key_ = 0;
  TrackId last_track_ = 0;
  struct CategoryKind {
    EventKind kind = EventKind::Other;
    bool by_name = false;  // the category mixes kinds: the event's name decides (MTIA)
    bool known = false;    // filled in
  };
  // By category NameId + 1 (0: no category): a direct index, since every event looks its category up.
  std::vector<CategoryKind> kind_by_category_;
  std::unordered_map<uint64_t, EventKind> kind_by_name_;  // (category, name) → kind, for by_name categories
  std::unordered_map<uint64_t, NameId> thread_names_;  // (pid, tid) → name
  std::unordered_map<NameId, NameId> process_labels_;  // pid → "CPU" / "GPU 0"
  std::unordered_set<NameId> metadata_pids_;
  DistinctRows<OpShapes> op_shapes_;                   // each distinct row once (distinct_rows.hpp)
  DistinctRows<GpuDetail> gpu_details_;
  std::vector<std::pair<int64_t, char>> flow_ends_;    // (id, ph) for the flow stats
  std::unordered_map<uint64_t, std::vector<ParsedEvent>> open_durations_;  // (pid, tid) → its open "B"s
  size_t open_count_ = 0;                                                   // in open_durations_, all threads
  ParsedEvent closed_duration_;                        // close_duration's result
  uint64_t unbalanced_durations_ = 0;
  uint64_t ignored_ = 0;
  std::string ignored_phases_;
};

}  // namespace whyslow
