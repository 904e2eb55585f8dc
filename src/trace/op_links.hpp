// Sanity of the GPU event → op links (Trace::op_link) that the External id gives.
#pragma once

#include <cstdint>

#include "trace/trace.hpp"

namespace whyslow {

// Kineto writes a launch's `External id` as the id of the op on the CPU stack when the launch ran,
// so the op it names always encloses the launch call on the call's thread. Some writers broke
// this: in the 2023 PARAM et_replay traces and HTA's critical_path traces every kernel, copy and
// runtime call carries a copy of its CUPTI correlation id as External id, which names whichever
// unrelated op has that number (kernels launched inside aten::cudnn_convolution name an
// aten::result_type 0.86 s later). A link whose op does not contain the launch call is broken; it
// is replaced by the op the call is inside: the innermost cpu_op or user annotation on its parent
// chain (kNoEvent when there is none). The links of runtime/driver calls and of GPU-side sync
// records are checked and repaired the same way. Needs parent, launch_link and op_link set;
// linear in the number of events. Returns how many kernels, copies and memsets had their link
// replaced (the GPU time that was credited to the wrong op).
uint64_t repair_op_links(Trace& t);

}  // namespace whyslow
