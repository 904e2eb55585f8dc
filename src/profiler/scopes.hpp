// What the Profiler controls about scopes beyond the recording window.
#pragma once

namespace whyslow::profiler_detail {

// Whether this build can open NVTX ranges (it has the CUDA toolkit's NVTX headers).
bool nvtx_available();
// While on, each recorded scope also opens an NVTX range of the same name.
void set_nvtx_ranges(bool on);

}  // namespace whyslow::profiler_detail
