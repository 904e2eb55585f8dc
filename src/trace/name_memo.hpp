// A pass's name tests answered once per name: a trace repeats a few thousand names over millions
// of events, and the tests compare and search the text. The answer for a name is computed the
// first time an event with that name is asked about. Belongs to one pass on one thread.
#pragma once

#include <vector>

#include "trace/trace.hpp"

namespace whyslow {

template <typename Answer, typename Test>  // Test: Answer(std::string_view name)
class NameMemo {
 public:
  NameMemo(const Trace& trace, Test test) : t_(trace), test_(test), slots_(trace.names.size() + 1) {}

  Answer of(EventId e) {
    Slot& s = slots_[t_.name_slot(e)];
    if (!s.tested) s = {true, test_(t_.name_of(e))};
    return s.answer;
  }

 private:
  struct Slot {
    bool tested = false;
    Answer answer{};
  };
  const Trace& t_;
  Test test_;
  std::vector<Slot> slots_;
};

}  // namespace whyslow
