// A call that times kernels of its own: a library autotuning on a shape it has not seen (cuDNN's
// benchmark mode, cuBLASLt's search, Triton at run time) records a CUDA event around each
// candidate kernel and waits on them from the host. Those waits are the library's, not a read-back
// of the user's, and the call's time is its search, paid once per shape.
#pragma once

#include "trace/trace.hpp"

namespace whyslow {

struct KernelTiming {
  bool timed = false;        // events recorded and waited on inside the call, on its thread
  bool convolution = false;  // a cuDNN convolution op inside it (torch.backends.cudnn.benchmark)
};

KernelTiming kernel_timing_inside(const Trace& trace, EventId call);

}  // namespace whyslow
