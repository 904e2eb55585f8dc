// The choice of event reader, a load option (load_trace.hpp) kept free of the readers' headers.
#pragma once

#include <cstdint>

namespace whyslow {

// Which reader turns a batch's bytes into events.
enum class EventReader : uint8_t {
  // The scanner written for Kineto's events (event_scanner.hpp); a batch it does not read itself
  // (anything unusual, and every error) goes to the general reader, so results and messages are
  // the general reader's.
  Scanner,
  // simdjson On-Demand over the batch (event_parser.cpp): the scanner's oracle.
  General,
  // Both, and a LoadError naming the first event where they differ (tests).
  Compare,
};

}  // namespace whyslow
