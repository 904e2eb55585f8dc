#include "report/html/timeline.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <map>

#include "report/html/event_class.hpp"
#include "report/html/page_schema.hpp"

namespace whyslow::report {
namespace {

using page_schema::at;
using page_schema::GpuDetailField;
using page_schema::LaneColumn;
using page_schema::OverviewField;

// Lanes in the order people read a trace: CPU threads (by process, busiest thread first),
// then GPU streams (by device and stream), then anything else.
// Of more than kMaxTimelineLanes, the busiest (most drawable events) are kept.
std::vector<TrackId> lane_order(const Trace& t, const std::vector<uint32_t>& drawable_per_track) {
  std::vector<TrackId> lanes;
  for (TrackId i = 0; i < t.tracks.size(); ++i)
    if (drawable_per_track[i] > 0) lanes.push_back(i);
  if (lanes.size() > kMaxTimelineLanes) {
    std::stable_sort(lanes.begin(), lanes.end(),
                     [&](TrackId a, TrackId b) { return drawable_per_track[a] > drawable_per_track[b]; });
    lanes.resize(kMaxTimelineLanes);
  }
  auto number = [](const std::string& s) {
    int64_t v = INT64_MAX;
    std::from_chars(s.data(), s.data() + s.size(), v);
    return v;
  };
  auto rank = [](TrackKind k) { return k == TrackKind::Cpu ? 0 : k == TrackKind::Gpu ? 1 : 2; };
  std::stable_sort(lanes.begin(), lanes.end(), [&](TrackId a, TrackId b) {
    const Track &x = t.tracks[a], &y = t.tracks[b];
    if (rank(x.kind) != rank(y.kind)) return rank(x.kind) < rank(y.kind);
    if (x.kind == TrackKind::Gpu) return std::pair(x.device, x.stream) < std::pair(y.device, y.stream);
    if (number(x.pid) != number(y.pid)) return number(x.pid) < number(y.pid);
    return drawable_per_track[a] > drawable_per_track[b];
  });
  return lanes;
}

std::string_view lane_kind(TrackKind k) {
  return k == TrackKind::Cpu ? "cpu" : k == TrackKind::Gpu ? "gpu" : "other";
}

using DetailTuple = std::array<int64_t, at(GpuDetailField::Count)>;  // a gpu_details entry

// Per-pixel summary of the events of one lane that were not embedded: for each (row, bucket),
// how much of the bucket they cover, how many there are, and the class of the longest.
struct Bucket {
  int64_t busy_ns = 0, longest_ns = -1;
  uint32_t count = 0;
  DrawClass cls = DrawClass::Other;
};

class Encoder {
 public:
  Encoder(const Trace& t, const Facts& f, const Selection& s)
      : t_(t), s_(s), classify_(t), t0_(f.window.start_ns),
        bucket_ns_(std::max<int64_t>(1, (f.window.duration_ns + kOverviewBuckets - 1) / kOverviewBuckets)),
        string_of_(t.names.size(), -1) {
    index_.of_event.assign(t.size(), -1);
    index_.lane_of_track.assign(t.tracks.size(), -1);
    row_.assign(t.size(), 0);
    for (auto& n : nearest_) n.assign(t.size(), kNoEvent);
  }

  void write(CompactJson& w) {
    std::vector<uint32_t> drawable(t_.tracks.size(), 0);
    for (EventId e = 0; e < t_.size(); ++e) drawable[t_.track[e]] += is_drawable(t_, e);
    const std::vector<TrackId> lanes = lane_order(t_, drawable);
    write_lanes(w, lanes);
    write_tables(w);
    write_flows(w);
    w.key("overview_buckets").integer(kOverviewBuckets);
    w.key("flattened_deep").integer(static_cast<int64_t>(flattened_deep_));
    const size_t with_events = static_cast<size_t>(std::count_if(drawable.begin(), drawable.end(), [](uint32_t n) { return n > 0; }));
    w.key("hidden_lanes").integer(static_cast<int64_t>(with_events - lanes.size()));
  }

  TimelineIndex take_index() { return std::move(index_); }

 private:
  int32_t string_id(NameId n) {
    int32_t& id = n == kNoName ? unnamed_ : string_of_[n];
    if (id < 0) {
      id = static_cast<int32_t>(strings_.size());
      strings_.push_back(t_.names.view(n));
    }
    return id;
  }

  // 0: none; k > 0: gpu_details[k-1]; k < 0: shapes[-k-1].
  int64_t detail_of(EventId e) {
    const uint32_t d = t_.detail[e];
    if (d == UINT32_MAX) return 0;
    if (is_gpu_activity(t_.kind[e])) {
      const GpuDetail& g = t_.gpu_detail[d];
      DetailTuple key{};
      key[at(GpuDetailField::GridX)] = g.grid[0];
      key[at(GpuDetailField::GridY)] = g.grid[1];
      key[at(GpuDetailField::GridZ)] = g.grid[2];
      key[at(GpuDetailField::BlockX)] = g.block[0];
      key[at(GpuDetailField::BlockY)] = g.block[1];
      key[at(GpuDetailField::BlockZ)] = g.block[2];
      key[at(GpuDetailField::Registers)] = g.registers;
      key[at(GpuDetailField::SharedMemory)] = g.shared_memory;
      key[at(GpuDetailField::Bytes)] = g.bytes;
      if (g.grid[0] < 0 && g.registers < 0 && g.shared_memory < 0 && g.bytes < 0) return 0;
      auto [it, added] = gpu_details_.try_emplace(key, static_cast<int64_t>(gpu_details_.size()));
      return it->second + 1;
    }
    if (t_.kind[e] == EventKind::CpuOp || t_.kind[e] == EventKind::UserAnnotation) {
      const OpShapes& sh = t_.op_shapes[d];
      const std::pair<int32_t, int32_t> key{sh.input_dims == kNoName ? -1 : string_id(sh.input_dims),
                                            sh.input_type == kNoName ? -1 : string_id(sh.input_type)};
      auto [it, added] = shapes_.try_emplace(key, static_cast<int64_t>(shapes_.size()));
      return -(it->second + 1);
    }
    return 0;
  }

  // Python stack frames (with_stack traces) nest 30-60 deep above the ops they call: in one lane
  // they would push the ops out of sight. So a thread's Python frames get a lane of their own, and
  // an event's row counts only the ancestors that are drawn in its lane.
  enum Part : uint8_t { kMain, kPython };
  Part part_of(EventId e) const { return t_.kind[e] == EventKind::PythonFunction ? kPython : kMain; }

  // Rows of the track's events; returns how many events each part has.
  std::array<size_t, 2> place_rows(const Track& tr) {
    std::array<size_t, 2> count{0, 0};
    for (EventId e : tr.events) {  // sorted by start, parents before children
      const EventId p = t_.parent[e];
      for (Part part : {kMain, kPython})
        nearest_[part][e] = is_drawable(t_, e) && part_of(e) == part ? e : p == kNoEvent ? kNoEvent : nearest_[part][p];
      if (!is_drawable(t_, e)) continue;
      const EventId above = p == kNoEvent ? kNoEvent : nearest_[part_of(e)][p];
      row_[e] = static_cast<uint16_t>(std::min(above == kNoEvent ? 0 : row_[above] + 1, kMaxLaneRows));
      ++count[part_of(e)];
    }
    return count;
  }

  // CPU threads and GPU streams first, so that launch arrows stay short; then the Python stacks
  // (tall, and read less often); then anything else.
  void write_lanes(CompactJson& w, const std::vector<TrackId>& tracks) {
    std::vector<std::pair<TrackId, Part>> main, python, other;
    for (TrackId id : tracks) {
      const std::array<size_t, 2> count = place_rows(t_.tracks[id]);
      if (count[kMain] > 0) (t_.tracks[id].kind == TrackKind::Other ? other : main).emplace_back(id, kMain);
      if (count[kPython] > 0) python.emplace_back(id, kPython);
    }
    w.key("lanes").begin_array();
    int32_t lane = 0;
    for (const auto* group : {&main, &python, &other})
      for (const auto& [id, part] : *group) {
        const Track& tr = t_.tracks[id];
        if (part == kMain) index_.lane_of_track[id] = lane;
        ++lane;
        write_lane(w, tr, part == kPython ? "Python stack · " + tr.name : tr.name, part);
      }
    w.end_array();
  }

  void write_lane(CompactJson& w, const Track& tr, const std::string& name, Part part) {
    std::vector<int64_t> starts, durs, names, classes, details;
    int rows = 0;
    int64_t prev = 0, deep = 0;
    for (EventId e : tr.events) {
      if (!is_drawable(t_, e) || part_of(e) != part) continue;
      const int row = row_[e];
      deep += row == kMaxLaneRows;
      rows = std::max(rows, row + 1);
      const DrawClass cls = classify_(e);
      if (!s_.embedded[e]) {
        summarize(row, e, cls);
        continue;
      }
      const int64_t start = t_.start_ns[e] - t0_;
      index_.of_event[e] = next_index_++;
      starts.push_back(start - prev);
      prev = start;
      durs.push_back(t_.dur_ns[e]);
      names.push_back(string_id(t_.name[e]));
      classes.push_back(page_schema::pack_class_row(cls, row));
      details.push_back(detail_of(e));
    }
    flattened_deep_ += static_cast<size_t>(deep);
    w.begin_object();
    w.key("name").string(name);
    w.key("kind").string(lane_kind(tr.kind));
    w.key("rows").integer(rows);
    w.key("deep").integer(deep);  // events on the flattened row (row kMaxLaneRows)
    w.key(page_schema::key(LaneColumn::Start)).integers(starts);
    w.key(page_schema::key(LaneColumn::Duration)).integers(durs);
    w.key(page_schema::key(LaneColumn::Name)).integers(names);
    w.key(page_schema::key(LaneColumn::ClassRow)).integers(classes);
    w.key(page_schema::key(LaneColumn::Detail)).integers(details);
    // Overview: flat OverviewField tuples, one per (row, bucket) with events. Only the buckets this
    // lane touched are read and cleared: a lane costs its events, not the whole grid.
    w.key(page_schema::key(LaneColumn::Overview)).begin_array();
    std::sort(touched_.begin(), touched_.end());
    for (const size_t i : touched_) {
      Bucket& b = overview_[i];
      std::array<int64_t, at(OverviewField::Stride)> cell{};
      cell[at(OverviewField::Row)] = static_cast<int64_t>(i) / kOverviewBuckets;
      cell[at(OverviewField::Bucket)] = static_cast<int64_t>(i) % kOverviewBuckets;
      cell[at(OverviewField::Percent)] = std::clamp<int64_t>((100 * b.busy_ns + bucket_ns_ - 1) / bucket_ns_, 1, 100);
      cell[at(OverviewField::Class)] = static_cast<int64_t>(b.cls);
      cell[at(OverviewField::Count)] = b.count;
      for (int64_t v : cell) w.integer(v);
      b = Bucket{};
    }
    touched_.clear();
    w.end_array();
    w.end_object();
  }

  void summarize(int row, EventId e, DrawClass cls) {
    const int64_t start = t_.start_ns[e] - t0_, end = start + t_.dur_ns[e];
    const int64_t last = std::min(kOverviewBuckets - 1, end / bucket_ns_);
    // Grown to the deepest row summarised so far: most traces never need more than a few rows.
    const size_t rows_needed = static_cast<size_t>(row + 1) * static_cast<size_t>(kOverviewBuckets);
    if (overview_.size() < rows_needed) overview_.resize(rows_needed);
    for (int64_t k = std::max<int64_t>(0, start / bucket_ns_); k <= last; ++k) {
      const size_t i = static_cast<size_t>(row * kOverviewBuckets + k);
      Bucket& b = overview_[i];
      if (b.count == 0) touched_.push_back(i);
      b.busy_ns += std::min(end, (k + 1) * bucket_ns_) - std::max(start, k * bucket_ns_);
      ++b.count;
      if (t_.dur_ns[e] > b.longest_ns) {
        b.longest_ns = t_.dur_ns[e];
        b.cls = cls;
      }
    }
  }

  void write_tables(CompactJson& w) {
    w.key("strings").begin_array();
    for (std::string_view s : strings_) w.string(s);
    w.end_array();
    std::vector<const DetailTuple*> gpu(gpu_details_.size());
    for (const auto& [key, id] : gpu_details_) gpu[static_cast<size_t>(id)] = &key;
    w.key("gpu_details").begin_array();  // GpuDetailField tuples; -1 unknown
    for (const auto* key : gpu) w.integers(*key);
    w.end_array();
    std::vector<std::pair<int32_t, int32_t>> shapes(shapes_.size());
    for (const auto& [key, id] : shapes_) shapes[static_cast<size_t>(id)] = key;
    w.key("shapes").begin_array();  // [Input Dims string, Input type string]; -1 absent
    for (const auto& [dims, types] : shapes) w.begin_array().integer(dims).integer(types).end_array();
    w.end_array();
  }

  // Launch call → the GPU work it started, both embedded: flat [launch, gpu, launch, gpu, …].
  void write_flows(CompactJson& w) {
    w.key("flows").begin_array();
    for (EventId e = 0; e < t_.size(); ++e) {
      if (!is_gpu_activity(t_.kind[e]) || index_.of_event[e] < 0) continue;
      const EventId host = t_.launch_link[e];
      if (host == kNoEvent || index_.of_event[host] < 0) continue;
      w.integer(index_.of_event[host]).integer(index_.of_event[e]);
    }
    w.end_array();
  }

  const Trace& t_;
  const Selection& s_;
  DrawClassifier classify_;
  int64_t t0_, bucket_ns_;
  TimelineIndex index_;
  int32_t next_index_ = 0;
  std::vector<uint16_t> row_;           // row in its lane per event (kMaxLaneRows: the flattened row)
  std::vector<EventId> nearest_[2];     // per Part: the event or its closest ancestor drawn in that lane
  std::vector<Bucket> overview_;        // the current lane's summary: row-major, kOverviewBuckets per row, grown on use
  std::vector<size_t> touched_;         // its buckets with a count, in the order first touched
  std::vector<int32_t> string_of_;      // NameId → index into strings_, -1 when not written yet
  int32_t unnamed_ = -1;
  std::vector<std::string_view> strings_;
  std::map<DetailTuple, int64_t> gpu_details_;
  std::map<std::pair<int32_t, int32_t>, int64_t> shapes_;
  size_t flattened_deep_ = 0;
};

}  // namespace

TimelineIndex write_timeline(CompactJson& w, const Trace& t, const Facts& f, const Selection& s) {
  Encoder enc(t, f, s);
  enc.write(w);
  return enc.take_index();
}

}  // namespace whyslow::report
