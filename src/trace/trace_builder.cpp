#include "trace/trace_builder.hpp"

#include <algorithm>
#include <future>
#include <new>
#include <numeric>
#include <stdexcept>
#include <utility>

#include "common/gallop.hpp"
#include "common/sort_runs.hpp"
#include "common/unused_capacity.hpp"
#include "trace/legacy_events.hpp"
#include "trace/number_text.hpp"
#include "trace/op_links.hpp"

namespace whyslow {
namespace {

uint64_t pair_key(NameId a, NameId b) { return (static_cast<uint64_t>(a) << 32) | b; }

// Host events sharing one correlation id that a GPU event's launch is chosen among: a trace
// merged from a few processes has one per process; a hostile one with the id on every launch
// would make the choice quadratic, so past this many the first process's launch is taken.
constexpr size_t kMaxSharedIdLaunches = 64;

EventKind kind_for_category(std::string_view cat) {
  struct Entry { std::string_view cat; EventKind kind; };
  // Current Kineto names first, then the 2021 names and other vendors' runtimes.
  static constexpr Entry kTable[] = {
      {"cpu_op", EventKind::CpuOp},
      {"user_annotation", EventKind::UserAnnotation},
      {"gpu_user_annotation", EventKind::GpuUserAnnotation},
      {"python_function", EventKind::PythonFunction},
      {"cuda_runtime", EventKind::Runtime},
      {"cuda_driver", EventKind::Driver},
      {"kernel", EventKind::Kernel},
      {"gpu_memcpy", EventKind::Memcpy},
      {"gpu_memset", EventKind::Memset},
      {"cuda_sync", EventKind::Sync},
      {"overhead", EventKind::Overhead},
      {"Trace", EventKind::TraceSpan},
      {"Operator", EventKind::CpuOp},
      {"Runtime", EventKind::Runtime},
      {"Kernel", EventKind::Kernel},
      {"Memcpy", EventKind::Memcpy},
      {"Memset", EventKind::Memset},
      {"mtia_runtime", EventKind::Runtime},
      {"mtia_ccp_events", EventKind::Kernel},  // MTIA device activity (refined by name below)
  };
  for (const Entry& e : kTable)
    if (e.cat == cat) return e.kind;
  return EventKind::Other;
}

// MTIA writes all its device activity in one category, mtia_ccp_events, and its runtime category
// also holds device-side records; the event's name says what it is:
//   mtia_ccp_events "dma_request"                   a DMA transfer (args: direction, size) → Memcpy
//   mtia_ccp_events "event_record" / "event_wait"   a stream recording or waiting on an event: the
//                                                   device-side synchronization that cuda_sync
//                                                   records for CUDA (not work) → Sync
//   mtia_ccp_events, any other name                 a compute job ("add-dtype_Float", "fc-…") → Kernel
//   mtia_runtime "synchronize"                      the device's record of a host synchronizeStream,
//                                                   on the stream's submission-queue track with
//                                                   the host call's correlation → Sync
// Categories without a by-name refinement keep the category's kind.
bool refined_by_name(std::string_view cat) { return cat == "mtia_ccp_events" || cat == "mtia_runtime"; }
EventKind refine_by_name(EventKind by_category, std::string_view name) {
  if (by_category == EventKind::Kernel) {
    if (name == "dma_request") return EventKind::Memcpy;
    if (name == "event_record" || name == "event_wait") return EventKind::Sync;
  } else if (by_category == EventKind::Runtime && name == "synchronize") {
    return EventKind::Sync;
  }
  return by_category;
}

bool is_cpu_side(EventKind k) {
  return k == EventKind::CpuOp || k == EventKind::UserAnnotation ||
         k == EventKind::PythonFunction || is_host_api(k);
}
bool is_gpu_side(EventKind k) {
  return is_gpu_activity(k) || k == EventKind::GpuUserAnnotation || k == EventKind::Sync;
}

// "7", "stream 7", "stream 7 " → 7; -1 when there is no number.
int64_t trailing_number(std::string_view s) {
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  size_t i = s.size();
  while (i > 0 && ((s[i - 1] >= '0' && s[i - 1] <= '9') || s[i - 1] == '-')) --i;
  return integer_text_to_i64(s.substr(i)).value_or(-1);
}

}  // namespace

std::string_view to_string(EventKind kind) {
  switch (kind) {
    case EventKind::CpuOp: return "cpu_op";
    case EventKind::UserAnnotation: return "user_annotation";
    case EventKind::GpuUserAnnotation: return "gpu_user_annotation";
    case EventKind::PythonFunction: return "python_function";
    case EventKind::Runtime: return "runtime";
    case EventKind::Driver: return "driver";
    case EventKind::Kernel: return "kernel";
    case EventKind::Memcpy: return "memcpy";
    case EventKind::Memset: return "memset";
    case EventKind::Sync: return "sync";
    case EventKind::Overhead: return "overhead";
    case EventKind::TraceSpan: return "trace_span";
    case EventKind::Instant: return "instant";
    case EventKind::Other: return "other";
  }
  return "other";
}

std::string_view to_string(TrackKind kind) {
  switch (kind) {
    case TrackKind::Cpu: return "cpu";
    case TrackKind::Gpu: return "gpu";
    case TrackKind::Other: return "other";
  }
  return "other";
}

TraceBuilder::TraceBuilder(std::string path) { trace_.path = std::move(path); }

EventKind TraceBuilder::kind_of(NameId category, NameId name, NameId pid, char ph) {
  if (ph == 'i' || ph == 'I') return EventKind::Instant;
  if (category == kNoName && trace_.names.view(pid) == kLegacyCpuPid)
    return legacy_cpu_event_kind(trace_.names.view(name));
  const size_t slot = category == kNoName ? 0 : size_t{category} + 1;
  if (slot >= kind_by_category_.size()) kind_by_category_.resize(slot + 1);
  CategoryKind& ck = kind_by_category_[slot];
  if (!ck.known) {
    const std::string_view cat = trace_.names.view(category);
    ck = CategoryKind{kind_for_category(cat), refined_by_name(cat), true};
  }
  if (!ck.by_name) return ck.kind;
  auto named = kind_by_name_.find(pair_key(category, name));
  if (named != kind_by_name_.end()) return named->second;
  const EventKind k = refine_by_name(ck.kind, trace_.names.view(name));
  kind_by_name_.emplace(pair_key(category, name), k);
  return k;
}

TrackId TraceBuilder::track_of(NameId pid, NameId tid) {
  const uint64_t key = pair_key(pid, tid);
  if (has_last_track_ && key == last_track_key_) return last_track_;
  auto [it, inserted] = track_ids_.try_emplace(key, static_cast<TrackId>(trace_.tracks.size()));
  if (inserted) {
    Track t;
    t.pid = std::string(trace_.names.view(pid));
    t.tid = std::string(trace_.names.view(tid));
    trace_.tracks.push_back(std::move(t));
  }
  has_last_track_ = true;
  last_track_key_ = key;
  last_track_ = it->second;
  return it->second;
}

void TraceBuilder::reserve(uint64_t expected) {
  Trace& t = trace_;
  const uint64_t now = t.size();
  if (expected <= now || now == 0) return;
  // A side table's share so far, scaled to `expected`, plus the same margin the caller gave.
  const auto share = [&](size_t side) { return static_cast<size_t>(side * (static_cast<double>(expected) / now)); };
  try {
    t.start_ns.reserve(expected);
    t.dur_ns.reserve(expected);
    t.name.reserve(expected);
    t.kind.reserve(expected);
    t.category.reserve(expected);
    t.track.reserve(expected);
    t.correlation.reserve(expected);
    t.external_id.reserve(expected);
    t.detail.reserve(expected);
    t.gpu_detail.reserve(share(t.gpu_detail.size()));
    t.op_shapes.reserve(share(t.op_shapes.size()));
    t.sync_kind.reserve(share(t.sync_kind.size()));
  } catch (const std::bad_alloc&) {  // a hint, not a need
  } catch (const std::length_error&) {
  }
}

void TraceBuilder::add_event(const ParsedEvent& e) {
  Trace& t = trace_;
  const EventKind kind = kind_of(e.category, e.name, e.pid, e.ph);
  t.start_ns.push_back(e.ts_ns);
  t.dur_ns.push_back(e.dur_ns > 0 ? e.dur_ns : 0);
  t.name.push_back(e.name);
  t.kind.push_back(kind);
  t.category.push_back(e.category);
  t.track.push_back(track_of(e.pid, e.tid));
  t.correlation.push_back(e.correlation);
  t.external_id.push_back(e.external_id);
  uint32_t detail = UINT32_MAX;
  if (is_gpu_activity(kind)) {
    detail = gpu_details_.intern(e.gpu, t.gpu_detail);
  } else if (kind == EventKind::CpuOp || kind == EventKind::UserAnnotation) {
    if (e.shapes.input_dims != kNoName || e.shapes.input_type != kNoName) {
      detail = op_shapes_.intern(e.shapes, t.op_shapes);
    }
  } else if (kind == EventKind::Sync) {
    detail = static_cast<uint32_t>(t.sync_kind.size());
    t.sync_kind.push_back(e.sync_kind);
  } else if (kind == EventKind::Instant && e.has_memory) {
    detail = static_cast<uint32_t>(t.memory.size());
    t.memory.push_back(e.memory);
  }
  t.detail.push_back(detail);
  if (e.comm.any() && (kind == EventKind::CpuOp || kind == EventKind::UserAnnotation)) {
    t.comm_args.push_back(e.comm);
    t.comm_args.back().event = static_cast<EventId>(t.size() - 1);
  }
  if (e.forward_linked) t.backward_ops.push_back(static_cast<EventId>(t.size() - 1));
  if (e.sequence >= 0 && kind == EventKind::CpuOp)
    t.op_sequence.push_back({static_cast<EventId>(t.size() - 1), e.sequence});
}

void TraceBuilder::add_metadata(const ParsedEvent& e) {
  if (e.pid != kNoName) metadata_pids_.insert(e.pid);
  const std::string_view what = trace_.names.view(e.name);
  if (e.meta_value == kNoName) return;
  if (what == "thread_name") thread_names_[pair_key(e.pid, e.tid)] = e.meta_value;
  else if (what == "process_labels") process_labels_[e.pid] = e.meta_value;
}

void TraceBuilder::add_flow(const ParsedEvent& e) {
  if (e.ph == 's') ++trace_.flows.starts;
  else ++trace_.flows.finishes;
  trace_.flows.max_id = std::max(trace_.flows.max_id, e.correlation);
  flow_ends_.emplace_back(e.correlation, e.ph);
}

bool TraceBuilder::open_duration(const ParsedEvent& e) {
  if (open_count_ >= kMaxOpenDurations) return false;
  open_durations_[pair_key(e.pid, e.tid)].push_back(e);
  ++open_count_;
  return true;
}

const ParsedEvent* TraceBuilder::close_duration(const ParsedEvent& e) {
  const auto open = open_durations_.find(pair_key(e.pid, e.tid));
  if (open == open_durations_.end() || open->second.empty()) {
    ++unbalanced_durations_;
    return nullptr;
  }
  closed_duration_ = std::move(open->second.back());
  open->second.pop_back();
  --open_count_;
  closed_duration_.ph = 'X';
  // Both times within ±2^62 (the parser checks each): the difference fits. An end before its
  // begin is a negative duration, stored as 0 like an "X" event's.
  closed_duration_.dur_ns = e.ts_ns - closed_duration_.ts_ns;
  closed_duration_.has_dur = true;
  return &closed_duration_;
}

void TraceBuilder::count_ignored(char ph) {
  ++ignored_;
  if (ignored_phases_.find(ph) == std::string::npos) ignored_phases_.push_back(ph);
}

Trace TraceBuilder::finish() && {
  release_unused_columns();
  trace_.ignored_events = ignored_;
  trace_.ignored_phases = std::move(ignored_phases_);
  for (const auto& [thread, open] : open_durations_) unbalanced_durations_ += open.size();
  open_durations_ = {};
  trace_.unbalanced_durations = unbalanced_durations_;
  trace_.metadata_pids.assign(metadata_pids_.begin(), metadata_pids_.end());
  std::sort(trace_.metadata_pids.begin(), trace_.metadata_pids.end());
  // Counting flows (a sort of their ends) and filling the tracks touch different members: they
  // run on two cores. Both are done, and the flows' list freed, before the tables below exist.
  std::future<void> flows = std::async(std::launch::async, [this] { count_flows(); });
  build_tracks();
  flows.get();
  // Nesting (per track: sort, parents) and linking (correlation and External id tables) touch
  // different columns: they run on two cores. Repairing links needs both.
  trace_.parent.assign(trace_.size(), kNoEvent);
  std::future<void> nesting = std::async(std::launch::async, [this] {
    for (Track& t : trace_.tracks) nest_track(t);
  });
  link_events();
  nesting.get();
  trace_.repaired_op_links = repair_op_links(trace_);
  return std::move(trace_);
}

// The columns were reserved for the events the loader expected (TraceBuilder::reserve): what no
// event took goes back before the tables below add the load's peak.
void TraceBuilder::release_unused_columns() const {
  const Trace& t = trace_;
  release_unused_capacity(t.start_ns);
  release_unused_capacity(t.dur_ns);
  release_unused_capacity(t.name);
  release_unused_capacity(t.kind);
  t.category.release_unused_capacity();
  release_unused_capacity(t.track);
  t.correlation.release_unused_capacity();
  t.external_id.release_unused_capacity();
  release_unused_capacity(t.detail);
  release_unused_capacity(t.gpu_detail);
  release_unused_capacity(t.op_shapes);
  release_unused_capacity(t.sync_kind);
}

// Flow ends: ids with a start but no finish and the reverse ("flows with a missing end").
void TraceBuilder::count_flows() {
  // Writers number flows in the order they write them: a few ascending runs to merge.
  sort_runs(flow_ends_.begin(), flow_ends_.end(), std::less<>());
  for (size_t i = 0; i < flow_ends_.size();) {
    size_t j = i;
    bool has_s = false, has_f = false;
    for (; j < flow_ends_.size() && flow_ends_[j].first == flow_ends_[i].first; ++j) {
      has_s |= flow_ends_[j].second == 's';
      has_f |= flow_ends_[j].second != 's';
    }
    if (has_s && !has_f) ++trace_.flows.unmatched_starts;
    if (has_f && !has_s) ++trace_.flows.unmatched_finishes;
    i = j;
  }
  flow_ends_ = {};
}

void TraceBuilder::build_tracks() {
  Trace& t = trace_;
  std::vector<uint32_t> counts(t.tracks.size(), 0);
  for (TrackId tr : t.track) ++counts[tr];
  for (size_t i = 0; i < t.tracks.size(); ++i) t.tracks[i].events.reserve(counts[i]);
  // Which sides each track's events are on, in the same pass that lists them.
  constexpr uint8_t kGpuSide = 1, kCpuSide = 2;
  std::vector<uint8_t> sides(t.tracks.size(), 0);
  for (EventId e = 0; e < t.size(); ++e) {
    t.tracks[t.track[e]].events.push_back(e);
    sides[t.track[e]] |= (is_gpu_side(t.kind[e]) ? kGpuSide : 0) | (is_cpu_side(t.kind[e]) ? kCpuSide : 0);
  }

  for (auto& [key, id] : track_ids_) {
    Track& tr = t.tracks[id];
    tr.kind = sides[id] & kGpuSide ? TrackKind::Gpu : sides[id] & kCpuSide ? TrackKind::Cpu : TrackKind::Other;
    auto named = thread_names_.find(key);
    if (named != thread_names_.end()) tr.name = std::string(t.names.view(named->second));
    while (!tr.name.empty() && tr.name.back() == ' ') tr.name.pop_back();
    if (tr.kind == TrackKind::Gpu) {
      tr.device = static_cast<int32_t>(trailing_number(tr.pid));
      tr.stream = trailing_number(tr.tid);
      if (tr.name.empty()) tr.name = "GPU " + tr.pid + " stream " + std::to_string(tr.stream);
    } else if (tr.name.empty()) {
      tr.name = "thread " + tr.tid;
    }
  }
}

// Parent links as torch builds its op tree: sort by (start, longer first); an event is a child
// of the innermost open event that fully contains it. Partial overlaps close the open event.
void TraceBuilder::nest_track(Track& tr) {
  const Trace& t = trace_;
  // A track is a few ascending runs.
  sort_runs(tr.events.begin(), tr.events.end(), [&](EventId a, EventId b) { return t.nests_before(a, b); });
  std::vector<EventId> open;
  for (EventId e : tr.events) {
    if (t.kind[e] == EventKind::Instant) continue;
    const int64_t start = t.start_ns[e], end = t.end_ns(e);
    while (!open.empty()) {
      const EventId top = open.back();
      if (start >= t.end_ns(top) || end > t.end_ns(top)) {
        open.pop_back();
        continue;
      }
      trace_.parent[e] = top;
      break;
    }
    open.push_back(e);
  }
}

void TraceBuilder::link_events() {
  Trace& t = trace_;
  t.launch_link.assign(t.size(), kNoEvent);
  t.op_link.assign(t.size(), kNoEvent);

  // The events carrying each id, ordered by (id, event): 4 bytes per entry, not a copy of the
  // key (the load's memory peaks here), and nearly in order already, since writers number ids in
  // the order they write events: merging the runs sorts them.
  // Counted first and filled to size: growing them would copy each once more at the peak.
  const auto carries_correlation = [&](EventId e) { return is_host_api(t.kind[e]) && t.correlation[e] != 0; };
  const auto carries_external = [&](EventId e) {
    const EventKind k = t.kind[e];
    return (k == EventKind::CpuOp || k == EventKind::UserAnnotation) && t.external_id[e] != 0 &&
           t.tracks[t.track[e]].kind == TrackKind::Cpu;
  };
  size_t correlations_count = 0, externals_count = 0;
  for (EventId e = 0; e < t.size(); ++e) {
    correlations_count += carries_correlation(e);
    externals_count += carries_external(e);
  }
  std::vector<EventId> by_correlation, by_external;
  by_correlation.reserve(correlations_count);
  by_external.reserve(externals_count);
  for (EventId e = 0; e < t.size(); ++e) {
    if (carries_correlation(e)) by_correlation.push_back(e);
    if (carries_external(e)) by_external.push_back(e);
  }
  auto sort_by = [](std::vector<EventId>& v, const IdColumn& key) {
    sort_runs(v.begin(), v.end(), [&](EventId a, EventId b) { return key[a] != key[b] ? key[a] < key[b] : a < b; });
  };
  sort_by(by_correlation, t.correlation);
  sort_by(by_external, t.external_id);
  // The first event (the lowest EventId) with the id, or kNoEvent. Searched from where the
  // previous search of the table ended: events come in nearly the order of their ids.
  struct Table {
    const std::vector<EventId>& events;
    const IdColumn& key;
    std::vector<EventId>::const_iterator last_found = events.begin();
    EventId find(int64_t id) {
      last_found = gallop_lower_bound(events.begin(), events.end(), last_found, id,
                                      [&](EventId a, int64_t x) { return key[a] < x; });
      return last_found != events.end() && key[*last_found] == id ? *last_found : kNoEvent;
    }
  };
  Table correlations{by_correlation, t.correlation}, externals{by_external, t.external_id};
  // The launch of a GPU event: the host event with its correlation id. Processes number their ids
  // each from 1, so a trace merged from several holds an id once per process, and one process may
  // reuse an id (a counter that wrapped, a hostile file); the launch is then the one with that id
  // that came last before the GPU event (linking every kernel to the first launch made a 1 µs
  // queue look like 150 ms) — or rather the outermost call of its process around it: a runtime call
  // and the driver call inside it share the id, and the runtime call is the launch.
  const auto launch_of = [&](EventId gpu_event) {
    const int64_t id = t.correlation[gpu_event];
    const EventId first = correlations.find(id);
    if (first == kNoEvent) return first;
    const auto same_id = [&](std::vector<EventId>::const_iterator it) {
      return it != by_correlation.end() && t.correlation[*it] == id;
    };
    if (!same_id(correlations.last_found + 1)) return first;  // the id once: nearly every trace
    const auto candidates_end = [&] {
      auto it = correlations.last_found;
      for (size_t seen = 0; same_id(it) && seen < kMaxSharedIdLaunches; ++it, ++seen) {}
      return it;
    }();
    EventId latest = kNoEvent;
    for (auto it = correlations.last_found; it != candidates_end; ++it)
      if (t.start_ns[*it] <= t.start_ns[gpu_event] && (latest == kNoEvent || t.start_ns[*it] > t.start_ns[latest]))
        latest = *it;
    if (latest == kNoEvent) return first;
    const std::string& pid = t.tracks[t.track[latest]].pid;
    EventId outer = latest;
    for (auto it = correlations.last_found; it != candidates_end; ++it)
      if (t.tracks[t.track[*it]].pid == pid && t.start_ns[*it] <= t.start_ns[latest] &&
          t.end_ns(*it) >= t.end_ns(latest) && std::pair(t.start_ns[*it], *it) < std::pair(t.start_ns[outer], outer))
        outer = *it;
    return outer;
  };
  for (EventId e = 0; e < t.size(); ++e) {
    const EventKind k = t.kind[e];
    const bool gpu = is_gpu_activity(k) || k == EventKind::Sync;
    if (gpu && t.correlation[e] != 0) {
      const EventId host = launch_of(e);
      t.launch_link[e] = host;
      if (host != kNoEvent && (t.launch_link[host] == kNoEvent ||
                               t.start_ns[e] < t.start_ns[t.launch_link[host]]))
        t.launch_link[host] = e;
    }
    if ((gpu || is_host_api(k)) && t.external_id[e] != 0)
      t.op_link[e] = externals.find(t.external_id[e]);
  }
}

}  // namespace whyslow
