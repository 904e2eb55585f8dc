#include "analysis/cpu/host_waits.hpp"

#include "analysis/core/event_names.hpp"

namespace whyslow {
namespace {

HostWait wait_by_name(std::string_view name) {
  if (is_sync_call(name)) return HostWait::Sync;
  if (is_blocking_copy_call(name)) return HostWait::BlockingCopy;
  return HostWait::None;
}

bool is_pageable_copy(std::string_view memcpy_name) { return memcpy_name.find("Pageable") != std::string_view::npos; }

// The class of call e, with the two name tests answered by `by_name` and `pageable`.
template <class ByName, class Pageable>
HostWait classify(const Trace& t, EventId e, ByName&& by_name, Pageable&& pageable) {
  if (!is_host_api(t.kind[e])) return HostWait::None;
  if (const HostWait w = by_name(e); w != HostWait::None) return w;
  const EventId copy = t.launch_link[e];
  if (copy != kNoEvent && t.kind[copy] == EventKind::Memcpy && pageable(copy)) return HostWait::BlockingCopy;
  return HostWait::None;
}

}  // namespace

HostWait host_wait_kind(const Trace& t, EventId e) {
  return classify(
      t, e, [&](EventId x) { return wait_by_name(t.name_of(x)); },
      [&](EventId x) { return is_pageable_copy(t.name_of(x)); });
}

HostWaitNames::Traits HostWaitNames::test(std::string_view name) { return {wait_by_name(name), is_pageable_copy(name)}; }

HostWaitNames::HostWaitNames(const Trace& trace) : t_(trace), names_(trace, &test) {}

HostWait HostWaitNames::of(EventId e) {
  return classify(
      t_, e, [&](EventId x) { return names_.of(x).wait; }, [&](EventId x) { return names_.of(x).pageable; });
}

}  // namespace whyslow
