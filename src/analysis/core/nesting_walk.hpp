// One walk down each track's events in their order (parents before children, each subtree whole
// after its root), keeping the chain of events open around the current one as the loader nested
// them (trace_builder.cpp: an event's parent is the innermost open event). What a pass keeps for
// each open event is its own `Entry`, made from the entry of the event's parent: a question about
// an event's ancestors ("the nearest op above it", "a compiled region around it") is answered
// from its parent's entry, and a sum over an event's subtree is read on entering and on leaving
// it. Memory: the chain, however many events (a memo per event took 4 bytes an event per
// question). Instant events are never nested and never parents: the walk leaves them out.
#pragma once

#include <utility>
#include <vector>

#include "trace/trace.hpp"

namespace whyslow {

// enter(e, above, entry): fill `entry` for event e from `above`, its parent's entry (nullptr for a
// root). leave(e, entry): e's subtree is done (innermost first); called for every event entered.
template <class Entry, class Enter, class Leave>
void walk_nesting(const Trace& t, Enter&& enter, Leave&& leave) {
  std::vector<std::pair<EventId, Entry>> open;
  const auto pop = [&] {
    leave(open.back().first, open.back().second);
    open.pop_back();
  };
  for (const Track& tr : t.tracks) {
    for (const EventId e : tr.events) {
      if (t.kind[e] == EventKind::Instant) continue;
      while (!open.empty() && open.back().first != t.parent[e]) pop();
      // The entry is filled where it lies: a temporary pushed after being filled field by field
      // was read back whole, a store-forwarding stall at each of a million events.
      auto& slot = open.emplace_back();
      slot.first = e;
      enter(e, open.size() > 1 ? &open[open.size() - 2].second : nullptr, slot.second);
    }
    while (!open.empty()) pop();
  }
}

// The walk without a leave step.
template <class Entry, class Enter>
void walk_nesting(const Trace& t, Enter&& enter) {
  walk_nesting<Entry>(t, std::forward<Enter>(enter), [](EventId, const Entry&) {});
}

}  // namespace whyslow
