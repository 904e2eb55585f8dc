#include "analysis/host_waits.hpp"

#include "analysis/event_names.hpp"

namespace whyslow {

HostWait host_wait_kind(const Trace& t, EventId e) {
  if (!is_host_api(t.kind[e])) return HostWait::None;
  const std::string_view name = t.name_of(e);
  if (is_sync_call(name)) return HostWait::Sync;
  if (is_blocking_copy_call(name)) return HostWait::BlockingCopy;
  const EventId copy = t.launch_link[e];
  if (copy != kNoEvent && t.kind[copy] == EventKind::Memcpy &&
      t.name_of(copy).find("Pageable") != std::string_view::npos)
    return HostWait::BlockingCopy;
  return HostWait::None;
}

}  // namespace whyslow
