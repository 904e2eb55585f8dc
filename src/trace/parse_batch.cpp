// Which reader reads a batch (parsed_batch.hpp: EventReader), and the comparison of the two.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "trace/event_scanner.hpp"
#include "trace/load_error.hpp"
#include "trace/parsed_batch.hpp"

namespace whyslow {
namespace {

void clear_outputs(ParsedBatch& b) {
  b.events.clear();
  b.texts.clear();
  b.strings.clear();
  b.owned.clear();
  b.replaced_control_chars = 0;
  b.read_by_general_reader = false;
}

// One reader's events with their strings' text (the two readers keep strings in different places).
struct ReadEvents {
  std::vector<BatchEvent> events;
  std::vector<std::pair<TextField, std::optional<std::string>>> texts;
};

ReadEvents copy_events(const ParsedBatch& b) {
  ReadEvents r{b.events, {}};
  r.texts.reserve(b.texts.size());
  for (const EventText& t : b.texts)
    r.texts.emplace_back(t.field, t.text == kAbsentText ? std::nullopt
                                                        : std::optional<std::string>(b.strings.distinct[t.text]));
  return r;
}

[[noreturn]] void readers_differ(const ParsedBatch& b, const std::string& path, size_t i, const std::string& what) {
  const uint64_t offset = i < b.spans.size() ? b.bytes_file_offset + b.spans[i].begin : b.bytes_file_offset;
  throw LoadError(LoadError::Kind::Schema,
                  path + ": byte " + std::to_string(offset) + " (event #" + std::to_string(b.first_index + i) +
                      "): the event scanner and the general reader differ: " + what,
                  offset);
}

// Reads the batch with both readers and throws on the first difference; the general reader's
// events (or error) are what the load goes on with.
void compare_readers(ParsedBatch& b, const std::string& path) {
  const bool scanned = scan_event_batch(b);
  const ReadEvents scanner = scanned ? copy_events(b) : ReadEvents{};
  clear_outputs(b);
  b.read_by_general_reader = !scanned;  // what a load with the scanner would have done
  try {
    parse_batch_general(b, path);
  } catch (const LoadError& e) {
    if (scanned) readers_differ(b, path, b.events.size(), std::string("only the general reader refused it: ") + e.what());
    throw;
  }
  if (!scanned) return;
  const ReadEvents general = copy_events(b);
  if (scanner.events.size() != general.events.size())
    readers_differ(b, path, std::min(scanner.events.size(), general.events.size()), "a different number of events");
  size_t text = 0;
  for (size_t i = 0; i < general.events.size(); ++i) {
    const BatchEvent &s = scanner.events[i], &g = general.events[i];
    if (!(s.event == g.event)) readers_differ(b, path, i, "the numbers read differ");
    if (s.texts_end != g.texts_end || s.file_offset != g.file_offset)
      readers_differ(b, path, i, "its strings or its offset differ");
    for (; text < g.texts_end; ++text)
      if (scanner.texts[text] != general.texts[text])
        readers_differ(b, path, i, "string #" + std::to_string(text) + " differs");
  }
}

}  // namespace

void parse_batch(ParsedBatch& batch, const std::string& path, EventReader reader) {
  clear_outputs(batch);
  batch.error = nullptr;
  if (batch.spans.empty()) return;
  const auto t0 = std::chrono::steady_clock::now();
  try {
    switch (reader) {
      case EventReader::Scanner:
        if (!scan_event_batch(batch)) {
          clear_outputs(batch);
          batch.read_by_general_reader = true;
          parse_batch_general(batch, path);
        }
        break;
      case EventReader::General:
        batch.read_by_general_reader = true;
        parse_batch_general(batch, path);
        break;
      case EventReader::Compare:
        compare_readers(batch, path);
        break;
    }
  } catch (...) {
    batch.error = std::current_exception();
  }
  batch.parse_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace whyslow
