// hidden_copy: device-to-device copies the user did not write. An op like aten::addmm copies its
// bias into the output before the GEMM when it cannot fuse it; the copy is a separate GPU
// operation that the user's code never mentions.
#include <fmt/core.h>

#include <map>

#include "common/units.hpp"
#include "explain/evidence.hpp"
#include "explain/highlights.hpp"
#include "explain/rules.hpp"

namespace whyslow {
namespace {

// Ops that are themselves a copy the user asked for (.copy_(), .clone(), .to(), .item(), a list
// copy): a device-to-device copy under them is expected. (.item() on ROCm stages the scalar
// through a device-to-device copy.)
bool is_copy_op(std::string_view n) {
  return n == "aten::copy_" || n == "aten::_copy_from" || n == "aten::_to_copy" || n == "aten::to" ||
         n == "aten::clone" || n == "aten::contiguous" || n == "aten::_copy_from_and_resize" ||
         n == "aten::_foreach_copy_" || n == "aten::item" || n == "aten::_local_scalar_dense";
}

// From 5 % of all GPU time on, the copies are worth removing: a warning.
constexpr double kWarningCopyShareOfGpu = 0.05;

}  // namespace

void rule_hidden_copy(const Trace& t, const Facts& f, std::vector<Finding>& out) {
  struct Group { uint64_t copies = 0; int64_t ns = 0, bytes = 0; EventId example = kNoEvent; };
  std::map<std::string_view, Group> by_op;
  for (const CopyRow& c : f.copies.device_to_device) {
    EventId op = t.op_link[c.event];
    while (op != kNoEvent && t.kind[op] == EventKind::CpuOp && is_copy_op(t.name_of(op))) op = t.parent[op];
    if (op == kNoEvent || t.kind[op] != EventKind::CpuOp || t.name_of(op).substr(0, 6) != "aten::") continue;
    Group& g = by_op[t.name_of(op)];
    ++g.copies;
    g.ns += c.dur_ns;
    g.bytes += std::max<int64_t>(0, c.bytes);
    if (g.example == kNoEvent) g.example = c.event;
  }
  if (by_op.empty()) return;
  uint64_t copies = 0;
  int64_t ns = 0, bytes = 0;
  std::string where;
  Finding x;
  for (auto& [op, g] : by_op) {
    copies += g.copies;
    ns += g.ns;
    bytes += g.bytes;
    where += fmt::format("{}{} made {} ({}, {})", where.empty() ? "" : "; ", op, g.copies, human_bytes(g.bytes),
                         human_duration(g.ns));
    x.events.push_back({g.example, fmt::format("copy inside {}", op)});
  }
  x.id = FindingId::hidden_copy;
  x.severity = f.gpu_busy_ns > 0 && ns >= kWarningCopyShareOfGpu * static_cast<double>(f.gpu_busy_ns) ? Severity::Warning : Severity::Info;
  x.title = fmt::format("{} device-to-device copies ({}) that your code does not ask for, made inside {}", copies,
                        human_duration(ns), by_op.begin()->first);
  x.detail = fmt::format(
      "These copies run inside other ops, not from a .clone()/.copy_()/.to() in your code: {}. aten::addmm, for "
      "example, first copies its bias (or `input`) into the output when it cannot fold it into the GEMM's "
      "epilogue, then accumulates onto it.",
      where);
  x.evidence = {count("copies", copies), us("gpu_time_us", ns), {"bytes", static_cast<double>(bytes), "bytes"}};
  x.try_next = {"For a bias add, pass a 1-D contiguous bias of the output's dtype (x @ w + b, or F.linear) so "
                "cuBLASLt can fuse it as an epilogue.",
                "With torch.compile, check the generated code for the extern addmm: a (N, N) input forces the copy."};
  for (const CopyRow& c : f.copies.device_to_device) add_mark(x.highlights, c.event);
  x.impact_ns = ns;
  x.impact_what = "the copies' GPU time";
  x.impact_is_gpu_time = true;
  out.push_back(std::move(x));
}

}  // namespace whyslow
