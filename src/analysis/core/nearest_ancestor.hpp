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
    if (memo_.empty()) memo_.assign(t_.size(), kUnknown);
    path_.clear();
    EventId found = kNoEvent;
    for (EventId a = e; a != kNoEvent; a = t_.parent[a]) {
      if (memo_[a] != kUnknown) {
        found = memo_[a];
        break;
      }
      if (marked_(a)) {
        found = a;
        break;
      }
      path_.push_back(a);
    }
    for (EventId p : path_) memo_[p] = found;
    if (found != kNoEvent) memo_[found] = found;
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
  const Trace& t_;
  std::function<bool(EventId)> marked_;
  std::vector<EventId> memo_;  // per event once known: its answer
  std::unordered_map<EventId, EventId> top_;  // marked event → the outermost marked event at or above it
  std::vector<EventId> marked_path_;          // outermost()'s, apart from of()'s path_, which of() clears
  std::vector<EventId> path_;
};

}  // namespace whyslow
