// Warnings: misuse and degraded collection are reported, never thrown from a scope or a step.
#pragma once

#include <string_view>

#include "whyslow/profiler.hpp"

namespace whyslow::profiler_detail {

// To `handler`, or to stderr as "whyslow: <message>" when it is empty.
void emit_warning(const WarningHandler& handler, std::string_view message);

// From code that has no profiler at hand (a scope closed on the wrong thread, a full buffer):
// to the running profiler's handler, once per process for each `key`. Never throws: a handler
// that throws is ignored.
void warn_once(std::string_view key, std::string_view message) noexcept;

// The handler warn_once() uses while a profiler runs; an empty one means stderr.
void set_running_warning_handler(WarningHandler handler);

}  // namespace whyslow::profiler_detail
