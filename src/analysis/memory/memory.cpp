// Where the memory goes, from the allocators' own records (profile_memory=True: a "[memory]"
// instant per allocation and free, with the allocator's totals after it): each device's peak, each
// step's peak and its allocated bytes at the start and the end, and the allocations live at the
// largest step peak — matched to their frees by address and order, attributed to the innermost CPU
// op and record_function block open on their thread, and sorted by what they are (kept across steps,
// saved for backward, made by backward, temporary, kept past the step).
#include <algorithm>
#include <map>
#include <unordered_map>

#include "analysis/passes.hpp"
#include "analysis/steps/steady_steps.hpp"
#include "trace/steps.hpp"

namespace whyslow {
namespace {

// What was open on the allocating (or freeing) thread.
struct AllocationContext {
  EventId op = kNoEvent, block = kNoEvent;
  bool backward = false;  // inside an op autograd ran
};

// Autograd runs each backward node inside "autograd::engine::evaluate_function: <Node>", on its
// engine thread for CUDA work and on the calling thread for CPU work. (Not "Fwd thread id": torch
// 2.x writes it on forward ops too, as 0.)
bool is_backward_frame(const Trace& t, EventId e) {
  return t.name_of(e).starts_with("autograd::engine::evaluate_function");
}

// The context of each memory record marked in `wanted` (a bit per event; a record with nothing open
// around it has the empty context): one sweep per thread that has records, with the stack of events
// open at each record (the nesting torch's op tree uses) and, beside each, the context it and the
// events below it give. A record reads the top's: walking the whole stack at each record was
// quadratic under 90,000 nested events. Only the records the peak's allocations need are kept
// (a context for every record took 4.4 MB on the bench's profile_memory trace, 366,444 records).
std::unordered_map<EventId, AllocationContext> record_contexts(const Trace& t, const std::vector<bool>& wanted) {
  std::unordered_map<EventId, AllocationContext> out;
  std::vector<EventId> open;
  std::vector<AllocationContext> context;  // per entry of `open`
  for (const Track& tr : t.tracks) {
    const bool has_records = std::any_of(tr.events.begin(), tr.events.end(), [&](EventId e) {
      return t.kind[e] == EventKind::Instant && t.detail[e] != UINT32_MAX;
    });
    if (!has_records) continue;
    open.clear();
    context.clear();
    const auto pop = [&] {
      open.pop_back();
      context.pop_back();
    };
    for (EventId e : tr.events) {
      const int64_t start = t.start_ns[e];
      if (t.kind[e] != EventKind::Instant) {
        while (!open.empty() && !(t.start_ns[open.back()] <= start && t.end_ns(e) <= t.end_ns(open.back()))) pop();
        // The innermost op and block: this event where it is one, else what was open around it.
        AllocationContext c = context.empty() ? AllocationContext{} : context.back();
        if (t.kind[e] == EventKind::CpuOp) {
          c.op = e;
          c.backward = c.backward || is_backward_frame(t, e);
        }
        if (t.kind[e] == EventKind::UserAnnotation && !is_profiler_step(t, e)) c.block = e;
        open.push_back(e);
        context.push_back(c);
        continue;
      }
      if (t.detail[e] == UINT32_MAX) continue;
      while (!open.empty() && t.end_ns(open.back()) < start) pop();
      if (!context.empty() && wanted[e]) out[e] = context.back();
    }
  }
  return out;
}

// A memory record is named by its instant event (4 bytes a record in the lists below).
const MemoryRecord& record_of(const Trace& t, EventId e) { return t.memory[t.detail[e]]; }

// One device's records replayed in time order: the allocated and reserved totals after each.
struct Timeline {
  const Trace& t;
  std::vector<EventId> records;                  // the records replayed, in time order
  std::vector<int64_t> allocated, reserved;      // after each record; reserved -1 where absent
  int64_t initial_allocated = 0;                 // before the first record
  size_t size() const { return records.size(); }
  int64_t ts(size_t i) const { return t.start_ns[records[i]]; }
  // The first record at or after `ns`, and the first after it.
  size_t first_from(int64_t ns) const {
    return static_cast<size_t>(std::lower_bound(records.begin(), records.end(), ns,
                                                [&](EventId e, int64_t x) { return t.start_ns[e] < x; }) -
                               records.begin());
  }
  size_t first_after(int64_t ns) const {
    return static_cast<size_t>(std::upper_bound(records.begin(), records.end(), ns,
                                                [&](int64_t x, EventId e) { return x < t.start_ns[e]; }) -
                               records.begin());
  }
};

bool within_memory_range(int64_t bytes) { return bytes >= -kMaxMemoryBytes && bytes <= kMaxMemoryBytes; }

Timeline replay_totals(const Trace& t, std::vector<EventId> records, DeviceMemory& d) {
  Timeline tl{t, {}, {}, {}, 0};
  // In time order, records at the same time in event order (the order they came in): sorted in
  // place, where a stable sort would hold a second copy of the records at this pass's peak.
  std::sort(records.begin(), records.end(), [&](EventId a, EventId b) {
    return t.start_ns[a] != t.start_ns[b] ? t.start_ns[a] < t.start_ns[b] : a < b;
  });
  // Every value below stays within ±kMaxMemoryBytes (records that would take one beyond are left
  // out), so sums of two of them cannot overflow.
  std::erase_if(records, [&](EventId r) {
    const MemoryRecord& m = record_of(t, r);
    const bool out = !within_memory_range(m.bytes) || m.total_allocated > kMaxMemoryBytes ||
                     m.total_reserved > kMaxMemoryBytes;
    d.out_of_range_records += out;
    return out;
  });
  tl.initial_allocated =
      !records.empty() && record_of(t, records.front()).total_allocated >= 0
          ? record_of(t, records.front()).total_allocated - record_of(t, records.front()).bytes
          : 0;
  int64_t allocated = tl.initial_allocated, reserved = -1;
  // Addresses allocated and not yet freed, with their bytes: a free elsewhere is unmatched. Their
  // sum is what live_after adds up at the peak, so it is held within range here too.
  std::unordered_map<int64_t, int64_t> live;
  int64_t live_sum = 0;
  // The records kept are moved down over those left out, in place.
  size_t kept = 0;
  tl.allocated.reserve(records.size());
  tl.reserved.reserve(records.size());
  for (const EventId r : records) {
    const MemoryRecord& m = record_of(t, r);
    // The allocator's own total is the truth (it is what torch.cuda.memory_allocated() returns); a
    // total that is not the previous one plus Bytes is counted, never silently mixed in.
    const int64_t summed = allocated + m.bytes;
    const auto at = m.bytes > 0 ? live.find(m.addr) : live.end();
    const int64_t live_then = live_sum + (m.bytes > 0 ? m.bytes - (at != live.end() ? at->second : 0) : 0);
    if (!within_memory_range(summed) || live_then > kMaxMemoryBytes) {
      ++d.out_of_range_records;
      continue;
    }
    records[kept++] = r;
    ++d.records;
    if (m.bytes > 0) {
      ++d.allocations;
      live[m.addr] = m.bytes;
      live_sum = live_then;
    } else if (m.bytes < 0) {
      ++d.frees;
      const auto it = live.find(m.addr);
      if (it == live.end()) {
        ++d.unmatched_frees;
      } else {
        live_sum -= it->second;
        live.erase(it);
      }
    }
    if (m.total_allocated >= 0) {
      if (m.total_allocated != summed) ++d.total_mismatches;
      allocated = m.total_allocated;
    } else {
      allocated = summed;
    }
    if (m.total_reserved >= 0) reserved = m.total_reserved;
    if (allocated < 0) ++d.negative_totals;
    tl.allocated.push_back(allocated);
    tl.reserved.push_back(reserved);
    if (allocated > d.peak_allocated) {
      d.peak_allocated = allocated;
      d.peak_at_ns = t.start_ns[r];
      d.peak_event = r;
    }
    d.peak_reserved = std::max(d.peak_reserved, reserved);
  }
  records.resize(kept);
  tl.records = std::move(records);
  return tl;
}

// Each step's totals: allocated at its start (after the last record before it), the largest totals
// from its start to its end, allocated at its end.
void measure_step_memory(const Timeline& tl, const std::vector<StepFacts>& steps, DeviceMemory& d) {
  d.steps.assign(steps.size(), {});
  for (size_t s = 0; s < steps.size(); ++s) {
    StepMemory& m = d.steps[s];
    const size_t i0 = tl.first_from(steps[s].start_ns), i1 = tl.first_after(steps[s].end_ns);
    m.start_allocated = i0 > 0 ? tl.allocated[i0 - 1] : tl.initial_allocated;
    m.peak_allocated = m.start_allocated;
    m.peak_at_ns = steps[s].start_ns;
    m.peak_reserved = i0 > 0 ? tl.reserved[i0 - 1] : -1;
    for (size_t i = i0; i < i1; ++i) {
      if (tl.allocated[i] > m.peak_allocated) {
        m.peak_allocated = tl.allocated[i];
        m.peak_at_ns = tl.ts(i);
      }
      m.peak_reserved = std::max(m.peak_reserved, tl.reserved[i]);
    }
    m.end_allocated = i1 > 0 ? tl.allocated[i1 - 1] : tl.initial_allocated;
    m.recorded = i1 > i0;
  }
}

// The allocations live just after record `at` (replayed by address: a free ends the allocation
// made there last), with the record that frees each later, if any.
void live_after(const Trace& t, const Timeline& tl, size_t at, DeviceMemory& d) {
  std::unordered_map<int64_t, size_t> live;  // addr → index of its allocating record
  for (size_t i = 0; i <= at && i < tl.size(); ++i) {
    const MemoryRecord& m = record_of(t, tl.records[i]);
    if (m.bytes > 0) live[m.addr] = i;
    else if (m.bytes < 0) live.erase(m.addr);
  }
  std::unordered_map<int64_t, size_t> index_of;  // addr → its entry in live_at_peak
  for (const auto& [addr, i] : live) {
    LiveAllocation a;
    a.alloc = tl.records[i];
    a.bytes = record_of(t, a.alloc).bytes;
    index_of[addr] = d.live_at_peak.size();
    d.live_at_peak.push_back(a);
  }
  for (size_t i = at + 1; i < tl.size() && !index_of.empty(); ++i) {
    const MemoryRecord& m = record_of(t, tl.records[i]);
    if (m.bytes == 0) continue;
    const auto it = index_of.find(m.addr);
    if (it == index_of.end()) continue;
    if (m.bytes < 0) d.live_at_peak[it->second].freed = tl.records[i];
    index_of.erase(it);  // freed, or the address reused: either way this allocation's end is known
  }
}

// The live allocations' ops, blocks and roles (from the contexts of their records), their sums,
// largest first.
void classify_live(const Trace& t, const std::unordered_map<EventId, AllocationContext>& ctx,
                   const StepFacts* step, DeviceMemory& d) {
  const auto context_of = [&](EventId e) {
    const auto it = ctx.find(e);
    return it == ctx.end() ? AllocationContext{} : it->second;
  };
  for (LiveAllocation& a : d.live_at_peak) {
    const AllocationContext c = context_of(a.alloc);
    a.op = c.op;
    a.block = c.block;
    const int64_t at_ns = t.start_ns[a.alloc];
    const bool freed = a.freed != kNoEvent;
    const int64_t freed_ns = freed ? t.start_ns[a.freed] : INT64_MAX;
    if (step && at_ns < step->start_ns) a.role = MemoryRole::Persistent;
    else if (c.backward) a.role = MemoryRole::Backward;
    else if (freed && context_of(a.freed).backward) a.role = MemoryRole::Activation;
    else if (freed && (!step || freed_ns <= step->end_ns)) a.role = MemoryRole::Temporary;
    else a.role = step ? MemoryRole::Kept : MemoryRole::Persistent;
  }
  for (const LiveAllocation& a : d.live_at_peak) {
    d.live_bytes += a.bytes;
    d.live_bytes_by_role[static_cast<size_t>(a.role)] += a.bytes;
  }
  std::sort(d.live_at_peak.begin(), d.live_at_peak.end(), [](const LiveAllocation& x, const LiveAllocation& y) {
    return x.bytes != y.bytes ? x.bytes > y.bytes : x.alloc < y.alloc;
  });
}

// At most kMemoryCurvePoints points: the records cut into equal stretches of time, each point the
// largest totals of its stretch at the time of its largest allocated total.
std::vector<std::array<int64_t, 3>> curve_of(const Timeline& tl) {
  std::vector<std::array<int64_t, 3>> out;
  if (tl.size() == 0) return out;
  const int64_t from = tl.ts(0), span = std::max<int64_t>(1, tl.ts(tl.size() - 1) - from);
  size_t bucket = SIZE_MAX;
  for (size_t i = 0; i < tl.size(); ++i) {
    const size_t b = std::min(kMemoryCurvePoints - 1,
                              static_cast<size_t>(static_cast<double>(tl.ts(i) - from) / static_cast<double>(span) *
                                                  static_cast<double>(kMemoryCurvePoints)));
    if (b != bucket) {
      out.push_back({tl.ts(i), tl.allocated[i], tl.reserved[i]});
      bucket = b;
      continue;
    }
    std::array<int64_t, 3>& p = out.back();
    if (tl.allocated[i] > p[1]) {
      p[0] = tl.ts(i);
      p[1] = tl.allocated[i];
    }
    p[2] = std::max(p[2], tl.reserved[i]);
  }
  return out;
}

}  // namespace

std::string_view to_string(MemoryRole r) {
  switch (r) {
    case MemoryRole::Persistent: return "persistent";
    case MemoryRole::Activation: return "activation";
    case MemoryRole::Backward: return "backward";
    case MemoryRole::Temporary: return "temporary";
    case MemoryRole::Kept: return "kept";
  }
  return "persistent";
}

MemoryFacts memory_usage(const Trace& t, const std::vector<StepFacts>& steps) {
  MemoryFacts out;
  std::map<std::pair<int32_t, int32_t>, std::vector<EventId>> by_device;  // (CPU last, GPUs by id)
  // Counted first and filled to size: a list grown by doubling holds up to twice its records.
  const auto device_key = [](const MemoryRecord& m) {
    return std::pair<int32_t, int32_t>{m.device_type == 0 ? 1 : 0, m.device_type == 0 ? -1 : m.device_id};
  };
  std::map<std::pair<int32_t, int32_t>, size_t> counts;
  for (const MemoryRecord& m : t.memory) ++counts[device_key(m)];
  for (const auto& [key, n] : counts) by_device[key].reserve(n);
  for (EventId e = 0; e < t.size(); ++e)
    if (t.kind[e] == EventKind::Instant && t.detail[e] != UINT32_MAX) {
      const MemoryRecord& m = t.memory[t.detail[e]];
      by_device[device_key(m)].push_back(e);
    }
  if (by_device.empty()) return out;
  std::vector<const StepFacts*> peak_step;  // per device: the step whose peak is opened up, if any
  for (auto& [key, records] : by_device) {
    DeviceMemory d;
    d.device_type = record_of(t, records.front()).device_type;
    d.device_id = record_of(t, records.front()).device_id;
    const Timeline tl = replay_totals(t, std::move(records), d);
    measure_step_memory(tl, steps, d);
    d.curve = curve_of(tl);
    // The peak to open up: the step with the largest allocated peak, else the trace's.
    const StepFacts* step = nullptr;
    int64_t target_ns = d.peak_at_ns;
    d.live_peak_allocated = d.peak_allocated;
    for (size_t s = 0; s < d.steps.size(); ++s)
      if (d.steps[s].recorded && (d.peak_step < 0 || d.steps[s].peak_allocated > d.steps[d.peak_step].peak_allocated))
        d.peak_step = static_cast<int>(s);
    if (d.peak_step >= 0) {
      step = &steps[d.peak_step];
      target_ns = d.steps[d.peak_step].peak_at_ns;
      d.live_peak_allocated = d.steps[d.peak_step].peak_allocated;
    }
    d.live_peak_at_ns = target_ns;
    // The record the peak follows: the last one at that time whose total is the peak (or, when the
    // step's start holds the peak, the last record before it).
    size_t at = 0;
    bool found = false;
    for (size_t i = 0; i < tl.size() && tl.ts(i) <= target_ns; ++i)
      if (tl.allocated[i] == d.live_peak_allocated) {
        at = i;
        found = true;
      }
    if (found) live_after(t, tl, at, d);
    out.devices.push_back(std::move(d));
    peak_step.push_back(step);
  }
  // The contexts of the records the live allocations name, every device's in one sweep.
  std::vector<bool> wanted(t.size());
  for (const DeviceMemory& d : out.devices)
    for (const LiveAllocation& a : d.live_at_peak) {
      wanted[a.alloc] = true;
      if (a.freed != kNoEvent) wanted[a.freed] = true;
    }
  const std::unordered_map<EventId, AllocationContext> ctx = record_contexts(t, wanted);
  for (size_t i = 0; i < out.devices.size(); ++i) classify_live(t, ctx, peak_step[i], out.devices[i]);
  return out;
}

}  // namespace whyslow
