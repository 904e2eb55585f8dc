#include "trace/legacy_events.hpp"

namespace whyslow {
namespace {

// "AddmmBackward0", "MulBackward1": torch names autograd nodes <Forward>Backward<version>.
bool is_autograd_node(std::string_view name) {
  constexpr std::string_view kBackward = "Backward";
  size_t digits = name.size();
  while (digits > 0 && name[digits - 1] >= '0' && name[digits - 1] <= '9') --digits;
  if (digits == name.size()) return false;
  const std::string_view stem = name.substr(0, digits);
  return stem.size() > kBackward.size() && stem.ends_with(kBackward);
}

}  // namespace

EventKind legacy_cpu_event_kind(std::string_view name) {
  if (name.find("::") != std::string_view::npos || is_autograd_node(name)) return EventKind::CpuOp;
  return EventKind::UserAnnotation;
}

}  // namespace whyslow
