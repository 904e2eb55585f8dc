// The nearest event up a chain of parents that has some property, memoized: each event is looked
// at once however many queries pass through it, so questions asked from deep inside long chains
// of nested events (syncs inside 400k nested ops) stay linear.
#pragma once

#include <functional>
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

 private:
  static constexpr EventId kUnknown = kNoEvent - 1;
  const Trace& t_;
  std::function<bool(EventId)> marked_;
  std::vector<EventId> memo_;  // per event once known: its answer
  std::vector<EventId> path_;
};

}  // namespace whyslow
