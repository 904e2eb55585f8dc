#include "analysis/core/event_names.hpp"

namespace whyslow {

bool is_sync_call(std::string_view n) {
  for (std::string_view prefix : {"cuda", "hip", "cu"}) {
    if (!n.starts_with(prefix)) continue;
    const std::string_view rest = n.substr(prefix.size());
    if (rest == "DeviceSynchronize" || rest == "StreamSynchronize" || rest == "EventSynchronize" ||
        rest == "CtxSynchronize" || rest == "StreamSynchronize_ptsz")
      return true;
  }
  // MTIA's runtime (cat mtia_runtime, on the host thread).
  return n == "synchronizeStream" || n == "synchronizeDevice" || n == "synchronizeEvent";
}

bool is_blocking_copy_call(std::string_view n) {
  if (n.find("Async") != std::string_view::npos) return false;
  return n.starts_with("cudaMemcpy") || n.starts_with("cuMemcpy") || n.starts_with("hipMemcpy");
}

bool is_capture_begin(std::string_view n) { return is_cuda_or_hip_api(n) && n.find("StreamBeginCapture") != std::string_view::npos; }
bool is_capture_end(std::string_view n) { return is_cuda_or_hip_api(n) && n.find("StreamEndCapture") != std::string_view::npos; }
bool is_cross_stream_call(std::string_view n) {
  if (is_stream_wait(n) || is_event_record(n)) return true;
  for (std::string_view p : {"cudaLaunchHostFunc", "hipLaunchHostFunc", "cuLaunchHostFunc", "cudaStreamAddCallback",
                             "hipStreamAddCallback"})
    if (n.starts_with(p)) return true;
  return false;
}

bool is_stream_wait(std::string_view n) {
  return n == "cudaStreamWaitEvent" || n == "hipStreamWaitEvent" || n == "cuStreamWaitEvent";
}
bool is_graph_launch(std::string_view n) { return n == "cudaGraphLaunch" || n == "hipGraphLaunch" || n == "cuGraphLaunch"; }


bool is_record_function_name(std::string_view n) {
  return n.starts_with("## ") || (n.find('#') != std::string_view::npos && !n.starts_with("aten::"));
}

bool is_backward_event_name(std::string_view n) {
  return n.starts_with("autograd::engine") || n.find("Backward") != std::string_view::npos;
}

bool is_data_loader_span(std::string_view n) {
  return n.starts_with("enumerate(DataLoader)#") || n.starts_with("enumerate(DataPipe)#");
}

bool loads_in_workers(std::string_view n) { return n.find("_MultiProcessingDataLoaderIter") != std::string_view::npos; }

namespace {
constexpr std::string_view kGlooPrefix = "gloo:";
}  // namespace

bool is_host_collective(std::string_view n) { return n.starts_with(kGlooPrefix); }

std::string_view host_collective_kind(std::string_view n) {
  return is_host_collective(n) ? n.substr(kGlooPrefix.size()) : std::string_view();
}

bool is_allocator_call(std::string_view n) {
  for (std::string_view p : {"cudaMalloc", "cudaFree", "cudaHostAlloc", "cuMemAlloc", "cuMemFree", "cuMemHostAlloc",
                             "hipMalloc", "hipFree", "hipHostMalloc", "hipHostAlloc", "hipHostFree", "hipMemAlloc",
                             "hipExtMallocWithFlags"})
    if (n.starts_with(p)) return true;
  for (std::string_view prefix : {"cu", "hip"}) {
    if (!n.starts_with(prefix)) continue;
    const std::string_view rest = n.substr(prefix.size());
    for (std::string_view x : {"MemCreate", "MemMap", "MemUnmap", "MemRelease", "MemAddressReserve",
                               "MemAddressFree", "MemSetAccess"})
      if (rest == x) return true;
  }
  return false;
}

bool is_stream_or_event_creation(std::string_view n) {
  for (std::string_view p : {"cudaStreamCreate", "cudaStreamDestroy", "cudaEventCreate", "cuStreamCreate",
                             "cuStreamDestroy", "cuEventCreate", "hipStreamCreate", "hipStreamDestroy",
                             "hipEventCreate"})
    if (n.starts_with(p)) return true;
  return false;
}

bool is_library_setup_call(std::string_view n) {
  for (std::string_view p : {"cudaFuncGetAttributes", "cudaFuncSetAttribute", "cudaGetSymbolAddress",
                             "cudaDeviceGetAttribute", "cudaOccupancy", "cudaGetDeviceProperties",
                             "cudaGetFuncBySymbol", "cuModule", "cuLibrary", "cuKernelGet", "cuFuncGetAttribute",
                             "cuFuncSetAttribute", "hipFuncGetAttributes", "hipFuncSetAttribute",
                             "hipGetSymbolAddress", "hipDeviceGetAttribute", "hipOccupancy",
                             "hipGetDeviceProperties", "hipGetFuncBySymbol", "hipModule"})
    if (n.starts_with(p)) return true;
  return false;
}

bool is_cuda_or_hip_api(std::string_view n) { return n.starts_with("cu") || n.starts_with("hip"); }

bool is_copy_call(std::string_view n) { return n.find("Memcpy") != std::string_view::npos; }

bool is_gpu_work_call(std::string_view n) {
  for (std::string_view p : {"cudaLaunch", "cuLaunch", "hipLaunch", "hipExtLaunch", "hipModuleLaunch", "hipExtModuleLaunch"})
    if (n.starts_with(p)) return true;
  return is_graph_launch(n) || is_copy_call(n) || n.find("Memset") != std::string_view::npos;
}

bool is_gpu_only_op(std::string_view n) { return n.starts_with("nccl:") || n == "aten::record_stream"; }

bool is_event_record(std::string_view n) {
  return n.starts_with("cudaEventRecord") || n.starts_with("hipEventRecord") || n.starts_with("cuEventRecord");
}
bool is_event_sync(std::string_view n) {
  return n == "cudaEventSynchronize" || n == "hipEventSynchronize" || n == "cuEventSynchronize";
}

bool is_kernel_loading(std::string_view n) { return n == kModuleLoadingEvent || n == kLazyFunctionLoadingEvent; }

bool is_profiler_buffer_request(std::string_view n) { return n == "Activity Buffer Request"; }
bool is_profiler_bookkeeping(std::string_view n) { return is_profiler_buffer_request(n) || n == "Buffer Flush"; }

bool is_compiled_region(std::string_view n) { return n.starts_with("Torch-Compiled Region"); }
bool is_dynamo_cache_lookup(std::string_view n) { return n == "TorchDynamo Cache Lookup"; }
bool is_compiled_graph_call(std::string_view n) { return n.starts_with("## Call CompiledFxGraph"); }
// The tree's own events, or (with_stack) a Python frame of its module: where Inductor skipped the
// graphs (an input mutated in place) the tree's code still runs at every call, and with_stack shows
// it — "torch/_inductor/cudagraph_trees.py(2109): run" — with no "cudagraphify" event.
bool is_cudagraph_tree_event(std::string_view n) {
  return n.starts_with("cudagraphify") || n.find("torch/_inductor/cudagraph_trees.py(") != std::string_view::npos;
}
bool is_compilation_event(std::string_view n) {
  return (n.ends_with("(dynamo_timed)") && !is_cudagraph_tree_event(n)) || n == "entire_frame_compile";
}
bool is_triton_kernel(std::string_view n) { return n.starts_with("triton_"); }
bool says_convolution(std::string_view n) {
  const auto lower = [](char c) { return static_cast<char>(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c); };
  for (size_t i = 0; i + 4 <= n.size(); ++i) {
    if (lower(n[i]) != 'c' || lower(n[i + 1]) != 'o' || lower(n[i + 2]) != 'n' || lower(n[i + 3]) != 'v') continue;
    const bool conver = i + 6 <= n.size() && lower(n[i + 4]) == 'e' && lower(n[i + 5]) == 'r';
    if (!conver) return true;
  }
  return false;
}

}  // namespace whyslow
