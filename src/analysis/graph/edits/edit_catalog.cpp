#include <fmt/core.h>

#include <algorithm>
#include <array>

#include "analysis/graph/edits/edits.hpp"

namespace whyslow {
namespace {

constexpr std::array kEdits = {
    EditInfo{"one-off", "remove the one-off costs of the cold step", "", edit_one_off},
    EditInfo{"cuda-graphs", "replay each step's launches as one CUDA graph",
             "\"reduce-overhead\": as torch.compile(mode=\"reduce-overhead\"), with its per-call cost", edit_cuda_graphs},
    EditInfo{"no-sync", "keep one host sync per step, at its end", "a name the waits to remove contain (the call or the op around it)",
             edit_no_sync},
    EditInfo{"pin", "pin the pageable copies' host memory and copy with non_blocking=True", "", edit_pin},
    EditInfo{"workers", "load the data in DataLoader worker processes", "the number of workers (default 4)", edit_workers},
    EditInfo{"fuse", "fuse each chain of pointwise kernels into one kernel", "", edit_fuse},
    EditInfo{"tensor-cores", "run the fp32 GEMMs on tensor cores", "\"tf32\" (the default) or \"bf16\"", edit_tensor_cores},
    EditInfo{"roofline", "run the kernels far under their roof at 75 % of it", "", edit_roofline_target},
    EditInfo{"host-op", "take a host op's CPU work off each step (made on the GPU, or once before the loop)",
             "the op's name, as the trace writes it (aten::coalesce)", edit_host_op},
};

}  // namespace

std::span<const EditInfo> edit_catalog() { return kEdits; }

EditOutcome apply_edit(const EditInfo& edit, const EditContext& c, std::string_view param, GraphState& s) {
  if (edit.param.empty() && !param.empty()) {
    EditOutcome out;
    out.why_not = fmt::format("{} takes no parameter, not \"{}\"", edit.name, param);
    return out;
  }
  return edit.apply(c, param, s);
}

const EditInfo* find_edit(std::string_view name) {
  for (const EditInfo& e : kEdits)
    if (e.name == name) return &e;
  return nullptr;
}

}  // namespace whyslow
