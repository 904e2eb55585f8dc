// memory_peak: where the memory of the largest step goes. From the allocators' records
// (profile_memory=True): the step's peak allocated and reserved bytes, the allocations live at that
// moment by what they are (kept across steps, saved for backward, made by backward, temporaries) and
// the largest of them with the op and block that allocated each — and advice by what dominates.
// Memory is not time: the finding is information for "why does this step need 5 GB", ranked by
// the time findings' rules like every finding that costs no time.
#include <fmt/core.h>

#include "common/units.hpp"
#include "explain/evidence.hpp"
#include "explain/highlights.hpp"
#include "explain/rules.hpp"

namespace whyslow {
namespace {

// One tensor holding a fifth of the peak is the thing to shrink: the usual culprits (logits of a
// large vocabulary, an attention score matrix) are single tensors of that order.
constexpr double kOutsizedShare = 0.20;
// Saved activations or state kept across steps make up "most" of the peak from 40 % on: the
// remedies for each (checkpointing; optimizer and parameter sharding) then move the peak most.
constexpr double kDominantShare = 0.40;
// Reserved bytes the allocator holds but no tensor uses: from a quarter of the reserved peak and
// 512 MiB on, fragmentation (or freed caches) is worth a word — smaller is the allocator's normal slack.
constexpr double kFragmentedShare = 0.25;
constexpr int64_t kFragmentedBytes = 512ll << 20;
// How many of the largest live allocations the finding names.
constexpr size_t kNamedAllocations = 5;

// The logits or the loss over them: a softmax-family or loss op's tensor (forward or backward), or
// a matrix product's output made outside backward (a backward matmul makes a gradient instead).
bool is_logits_or_loss(const Trace& t, const LiveAllocation& a) {
  if (a.op == kNoEvent) return false;
  const std::string_view op = t.name_of(a.op);
  for (std::string_view n : {"aten::log_softmax", "aten::_log_softmax", "aten::softmax", "aten::_softmax",
                             "aten::cross_entropy_loss", "aten::nll_loss", "aten::nll_loss_forward",
                             "aten::_log_softmax_backward_data", "aten::_softmax_backward_data", "aten::nll_loss_backward"})
    if (op == n) return true;
  if (a.role == MemoryRole::Backward) return false;
  for (std::string_view n : {"aten::addmm", "aten::mm", "aten::matmul", "aten::linear", "aten::bmm"})
    if (op == n) return true;
  return false;
}

std::string shape_text(const Trace& t, EventId op) {
  if (op == kNoEvent || t.detail[op] == UINT32_MAX || t.op_shapes[t.detail[op]].input_dims == kNoName) return "";
  // As written but on one line: some writers pretty-print args ("[\n  [\n    16, …").
  std::string out;
  for (char c : t.names.view(t.op_shapes[t.detail[op]].input_dims)) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    out += c;
    if (c == ',') out += ' ';
  }
  return out;
}

}  // namespace

void rule_memory_peak(const Trace& t, const Facts& f, std::vector<Finding>& out) {
  if (f.memory.devices.empty()) return;
  const DeviceMemory& d = f.memory.devices.front();  // the first GPU, else the CPU
  if (d.live_peak_allocated <= 0 || d.live_at_peak.empty()) return;
  const auto& by_role = d.live_bytes_by_role;
  const int64_t live = d.live_bytes;
  // What no record allocated: tensors made before the profiler started (the model's parameters, …).
  const int64_t unrecorded = std::max<int64_t>(0, d.live_peak_allocated - live);
  const double peak = static_cast<double>(d.live_peak_allocated);
  auto share = [&](int64_t b) { return static_cast<double>(b) / peak; };
  const std::string where = d.peak_step >= 0 ? f.steps[d.peak_step].name : std::string("the trace");
  const std::string device = d.device_type == 0 ? "the CPU" : fmt::format("GPU {}", d.device_id);
  const int64_t slack = d.peak_reserved >= 0 ? d.peak_reserved - d.peak_allocated : 0;
  const bool fragmented = d.peak_reserved > 0 && slack >= kFragmentedBytes &&
                          static_cast<double>(slack) >= kFragmentedShare * static_cast<double>(d.peak_reserved);

  Finding x = make_finding(FindingId::memory_peak);
  // The CPU allocator reserves nothing in torch's records (Total Reserved is always 0 there).
  const std::string reserved = d.peak_reserved > 0 ? fmt::format(" ({} reserved)", human_bytes(d.peak_reserved)) : "";
  x.title = fmt::format("Memory peaks at {} allocated on {} in {}{}: {} of it in {} allocation{} live at once",
                        human_bytes(d.live_peak_allocated), device, where, reserved, human_bytes(live),
                        d.live_at_peak.size(), d.live_at_peak.size() == 1 ? "" : "s");
  std::string largest;
  for (size_t i = 0; i < d.live_at_peak.size() && i < kNamedAllocations; ++i) {
    const LiveAllocation& a = d.live_at_peak[i];
    const std::string shape = shape_text(t, a.op);
    largest += fmt::format("\n  - {} {} by {}{}{}", human_bytes(a.bytes), to_string(a.role),
                           a.op == kNoEvent ? std::string("no op") : std::string(t.name_of(a.op)),
                           shape.empty() ? "" : fmt::format(" {}", shape),
                           a.block == kNoEvent ? "" : fmt::format(" in '{}'", t.name_of(a.block)));
  }
  x.detail = fmt::format(
      "At its peak ({} into the trace) {} holds {} allocated by tensors{}. "
      "Of the allocated bytes: {} kept across steps (allocated before the step: parameters, optimizer state), "
      "{} saved for backward (activations: allocated outside backward, freed by it), {} made by backward "
      "(gradients and their temporaries), {} temporaries freed within the step, {} allocated in the step and "
      "still live after it, and {} allocated before the profiler recorded anything. The largest live "
      "allocations:{}",
      human_duration(d.live_peak_at_ns - f.window.start_ns), device, human_bytes(d.live_peak_allocated),
      d.peak_reserved > 0 ? fmt::format(" and {} reserved by the caching allocator", human_bytes(d.peak_reserved)) : "",
      human_bytes(by_role[0]), human_bytes(by_role[1]),
      human_bytes(by_role[2]), human_bytes(by_role[3]), human_bytes(by_role[4]), human_bytes(unrecorded), largest);
  const LiveAllocation& top = d.live_at_peak.front();
  if (share(top.bytes) >= kOutsizedShare && is_logits_or_loss(t, top))
    x.try_next.push_back(fmt::format(
        "One tensor of {} ({} of the peak, by {}) looks like the logits or the loss over a large vocabulary: compute "
        "the loss in chunks of the sequence, fuse the last linear layer with the cross-entropy (Liger's or "
        "torchtune's fused linear cross-entropy), or keep the logits in bf16.",
        human_bytes(top.bytes), human_percent(share(top.bytes)), t.name_of(top.op)));
  else if (share(top.bytes) >= kOutsizedShare && top.role != MemoryRole::Backward && top.role != MemoryRole::Persistent)
    x.try_next.push_back(fmt::format("One tensor holds {} of the peak ({}, by {}): shrink or split that one first.",
                                     human_percent(share(top.bytes)), human_bytes(top.bytes),
                                     top.op == kNoEvent ? std::string("no op") : std::string(t.name_of(top.op))));
  if (share(by_role[static_cast<size_t>(MemoryRole::Activation)]) >= kDominantShare)
    x.try_next.push_back("Activations saved for backward dominate: activation checkpointing "
                         "(torch.utils.checkpoint on the repeated blocks) or a smaller micro-batch with gradient "
                         "accumulation trades compute for them.");
  // No backward in the trace: an inference step, whose state is the model's weights.
  const bool training = by_role[static_cast<size_t>(MemoryRole::Backward)] > 0 ||
                        by_role[static_cast<size_t>(MemoryRole::Activation)] > 0;
  if (share(by_role[static_cast<size_t>(MemoryRole::Persistent)] + unrecorded) >= kDominantShare)
    x.try_next.push_back(training ? "State kept across steps dominates (parameters, gradients, optimizer state): a fused or "
                                    "8-bit optimizer, bf16 parameters, or sharding it across GPUs (FSDP, ZeRO) shrinks it."
                                  : "The model's weights and buffers, allocated before the step, hold most of the peak: "
                                    "that is the floor of an inference step; bf16, fp8 or int8 weights lower it.");
  if (fragmented)
    x.try_next.push_back(fmt::format(
        "The allocator reserves {} more than tensors use at the peak: fragmentation. "
        "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True lets it grow segments instead of keeping holes.",
        human_bytes(slack)));
  x.evidence = {{"peak_allocated_bytes", static_cast<double>(d.live_peak_allocated), "bytes"},
                {"peak_reserved_bytes", static_cast<double>(std::max<int64_t>(0, d.peak_reserved)), "bytes"},
                {"live_bytes", static_cast<double>(live), "bytes"},
                count("live_allocations", d.live_at_peak.size()),
                {"persistent_bytes", static_cast<double>(by_role[0]), "bytes"},
                {"activation_bytes", static_cast<double>(by_role[1]), "bytes"},
                {"backward_bytes", static_cast<double>(by_role[2]), "bytes"},
                {"temporary_bytes", static_cast<double>(by_role[3]), "bytes"},
                {"kept_bytes", static_cast<double>(by_role[4]), "bytes"},
                {"unrecorded_bytes", static_cast<double>(unrecorded), "bytes"},
                {"largest_bytes", static_cast<double>(top.bytes), "bytes"}};
  for (size_t i = 0; i < d.live_at_peak.size() && i < kNamedAllocations; ++i)
    if (d.live_at_peak[i].op != kNoEvent) x.events.push_back({d.live_at_peak[i].op, i == 0 ? "largest live allocation" : "live allocation"});
  if (d.peak_event != kNoEvent) add_mark(x.highlights, d.peak_event);
  x.impact_what = "memory, not time: what it gives back is bytes (the evidence says how many)";
  x.context_only = true;  // what the step needs in memory, not what slows it
  out.push_back(std::move(x));
}

}  // namespace whyslow
