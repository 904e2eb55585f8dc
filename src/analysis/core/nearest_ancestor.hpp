// The nearest event up a chain of parents that has some property, memoized: each event is looked
// at once however many queries pass through it, so questions asked from deep inside long chains
// of nested events (syncs inside 400k nested ops) stay linear.
#pragma once

#include <functional>
#include <unordered_map>
#include <vector>

#include "trace/trace.hpp"

namespace whyslow {

class NearestAncestor {
 public:
  NearestAncestor(const Trace& t, std::function<bool(EventId)> marked) : t_(t), marked_(std::move(marked)) {}

  // `e` itself or its nearest ancestor that is marked; kNoEvent when none (or e is kNoEvent).
  EventId of(EventId e) {
    path_.clear();
    EventId found = kNoEvent;
    for (EventId a = e; a != kNoEvent; a = t_.parent[a]) {
      if (const EventId known = memo(a); known != kUnknown) {
        found = known;
        break;
      }
      if (marked_(a)) {
        found = a;
        break;
      }
      path_.push_back(a);
    }
    for (EventId p : path_) remember(p, found);
    if (found != kNoEvent) remember(found, found);
    return found;
  }

  // `e` itself or its outermost ancestor that is marked; kNoEvent when none. Up the marked events
  // only, each marked event's answer kept: a deep chain of marked events is climbed once.
  EventId outermost(EventId e) {
    EventId found = of(e);
    if (found == kNoEvent) return found;
    marked_path_.clear();
    for (;;) {
      if (const auto it = top_.find(found); it != top_.end()) {
        found = it->second;
        break;
      }
      marked_path_.push_back(found);
      const EventId up = of(t_.parent[found]);
      if (up == kNoEvent) break;
      found = up;
    }
    for (EventId p : marked_path_) top_[p] = found;
    return found;
  }

 private:
  static constexpr EventId kUnknown = kNoEvent - 1;
  // The answers are kept in a hash map while few events have one, then in an array over all events
  // (4 bytes an event): most passes ask about a few events (syncs, collectives, compiled calls) and
  // an array per pass held 5 MB of a 542 MB trace's memory, several passes at a time. Past one
  // event in this many an array takes over: the map, ~40 bytes an entry, then holds under a
  // sixth of the array it hands its answers to, and a pass that asks about every event pays little.
  static constexpr size_t kEventsPerSparseAnswer = 64;
  EventId memo(EventId a) const {
    if (!dense_.empty()) return dense_[a];
    const auto it = sparse_.find(a);
    return it == sparse_.end() ? kUnknown : it->second;
  }
  void remember(EventId a, EventId answer) {
    if (!dense_.empty()) {
      dense_[a] = answer;
      return;
    }
    sparse_[a] = answer;
    if (sparse_.size() * kEventsPerSparseAnswer <= t_.size()) return;
    dense_.assign(t_.size(), kUnknown);
    for (const auto& [event, known] : sparse_) dense_[event] = known;
    std::unordered_map<EventId, EventId>().swap(sparse_);
  }

  const Trace& t_;
  std::function<bool(EventId)> marked_;
  std::unordered_map<EventId, EventId> sparse_;  // event → its answer, while few are known
  std::vector<EventId> dense_;                    // then per event (kUnknown: not yet)
  std::unordered_map<EventId, EventId> top_;  // marked event → the outermost marked event at or above it
  std::vector<EventId> marked_path_;          // outermost()'s, apart from of()'s path_, which of() clears
  std::vector<EventId> path_;
};

}  // namespace whyslow
