// libFuzzer target: the allocator records (profile_memory=True's "[memory]" instants) and the
// passes that read them (src/analysis/memory/): sizes, totals and addresses of any value (±2^63,
// 2^50 and past, a free of what was never allocated, an address reused, a total that jumps),
// inside ops and steps on two devices, so the peaks, the live set at the peak and the ops and
// blocks it is charged to are all computed. Out-of-range records are left out and counted, never
// summed into "8388608 TiB" (issue 45 item 4).
#include <string>
#include <vector>

#include "fuzz_structured.hpp"

namespace {

using whyslow::fuzz::Choices;

// A few addresses, so allocations and frees meet; or any 64-bit value.
std::string address(Choices& c) {
  static const std::vector<std::string> addresses = {"140391139508224", "140391139508736", "140391329848384", "0", "-1",
                                                     "9223372036854775807"};
  return c.below(4) == 0 ? c.number_text() : c.pick(addresses);
}

std::string memory_event(Choices& c, int64_t ts) {
  const bool gpu = c.flag();
  return R"({"ph":"i","cat":"cpu_instant_event","s":"t","name":"[memory]","pid":1,"tid":1,"ts":)" + std::to_string(ts) +
         R"(,"args":{"Total Reserved":)" + c.number_text() + R"(,"Total Allocated":)" + c.number_text() +
         R"(,"Bytes":)" + c.number_text() + R"(,"Device Id":)" + (gpu ? std::to_string(c.below(3)) : "-1") +
         R"(,"Device Type":)" + (gpu ? "1" : "0") + R"(,"Addr":)" + address(c) + "}}";
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Choices c(data, size);
  std::vector<std::string> events;
  const int steps = 1 + static_cast<int>(c.below(4));
  for (int s = 0; s < steps && !c.done(); ++s) {
    const int64_t step_start = 1000 * s;
    events.push_back(R"({"ph":"X","cat":"user_annotation","name":"ProfilerStep#)" + std::to_string(s) +
                     R"(","pid":1,"tid":1,"ts":)" + std::to_string(step_start) + R"(,"dur":900})");
    const size_t ops = c.below(6);
    for (size_t k = 0; k < ops; ++k) {
      const int64_t op_start = step_start + 10 + 100 * static_cast<int64_t>(k);
      events.push_back(R"({"ph":"X","cat":"cpu_op","name":")" + std::string(c.flag() ? "aten::empty" : "aten::mm") +
                       R"(","pid":1,"tid":1,"ts":)" + std::to_string(op_start) + R"(,"dur":80})");
      const size_t records = c.below(5);
      for (size_t r = 0; r < records; ++r) events.push_back(memory_event(c, op_start + 1 + static_cast<int64_t>(c.below(90))));
    }
    const size_t loose = c.below(3);  // outside any op: charged to the step alone
    for (size_t r = 0; r < loose; ++r) events.push_back(memory_event(c, step_start + static_cast<int64_t>(c.below(1000))));
  }
  whyslow::fuzz::run_pipeline(whyslow::fuzz::trace_of(events));
  return 0;
}
