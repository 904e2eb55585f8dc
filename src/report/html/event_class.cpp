#include "report/html/event_class.hpp"

#include <algorithm>
#include <array>
#include <string>

#include "analysis/comm/comm_names.hpp"
#include "analysis/core/event_names.hpp"
#include "analysis/cpu/host_waits.hpp"

namespace whyslow::report {
namespace {

bool contains_any(std::string_view haystack, std::initializer_list<std::string_view> needles) {
  for (std::string_view n : needles)
    if (haystack.find(n) != std::string_view::npos) return true;
  return false;
}

// Kernel families by the words their libraries put in the names (cuBLAS, CUTLASS, cuDNN,
// rocBLAS/Tensile, FlashAttention, NCCL, Triton, ATen). Order matters: a Triton kernel named
// triton_red_fused_gemm… is Triton, a cuDNN "implicit_convolve_sgemm" is a convolution.
DrawClass kernel_class(std::string_view name) {
  if (is_comm_kernel(name)) return DrawClass::Communication;  // NCCL/RCCL and the libraries' collectives
  if (is_triton_kernel(name)) return DrawClass::Triton;
  std::string lower(name.substr(0, 256));
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (contains_any(lower, {"nccl", "rccl", "allreduce", "all_reduce", "allgather", "all_gather",
                           "reducescatter", "reduce_scatter", "alltoall", "all_to_all"}))
    return DrawClass::Communication;
  if (contains_any(lower, {"flash", "fmha", "attention", "attn", "sdpa"})) return DrawClass::Attention;
  if (says_convolution(lower) || contains_any(lower, {"winograd", "fprop", "dgrad", "wgrad"})) return DrawClass::Conv;
  if (contains_any(lower, {"gemm", "cutlass", "xmma", "matmul", "cublas", "nvjet", "cijk_", "wgmma", "gemv"}))
    return DrawClass::Gemm;
  if (contains_any(lower, {"reduce", "softmax", "norm", "sum_", "mean", "argmax", "topk", "scan", "cumsum"}))
    return DrawClass::Reduction;
  if (contains_any(lower, {"elementwise", "vectorized", "unrolled", "pointwise", "fill", "copy", "cat_",
                           "index", "gather", "scatter", "distribution"}))
    return DrawClass::Elementwise;
  return DrawClass::OtherKernel;
}

DrawClass copy_class(std::string_view name) {
  if (name.find("HtoD") != std::string_view::npos) return DrawClass::CopyHtoD;
  if (name.find("DtoH") != std::string_view::npos) return DrawClass::CopyDtoH;
  return DrawClass::CopyOther;
}

struct ClassText {
  std::string_view key, label;
};
constexpr std::array<ClassText, kDrawClassCount> kText = {{
    {"cpu_op", "ATen op"},
    {"annotation", "record_function block / step"},
    {"python", "Python function"},
    {"host_api", "CUDA runtime / driver call"},
    {"host_wait", "blocking call: sync or blocking copy"},
    {"overhead", "profiler overhead"},
    {"cpu_other", "other CPU event"},
    {"gpu_annotation", "GPU-lane annotation"},
    {"gemm", "GEMM kernel"},
    {"conv", "convolution kernel"},
    {"attention", "attention kernel"},
    {"elementwise", "elementwise / copy kernel"},
    {"reduction", "reduction / norm / softmax kernel"},
    {"communication", "communication kernel (NCCL/RCCL, custom all-reduce, DeepEP)"},
    {"triton", "Triton kernel (torch.compile)"},
    {"other_kernel", "other kernel"},
    {"copy_htod", "memcpy host → device"},
    {"copy_dtoh", "memcpy device → host"},
    {"copy_other", "memcpy device → device / peer"},
    {"memset", "memset"},
    {"gpu_sync", "GPU sync record"},
    {"other", "other event"},
}};

}  // namespace

DrawClass DrawClassifier::operator()(EventId e) {
  const Trace& t = trace_;
  const EventKind kind = t.kind[e];
  if ((kind == EventKind::Kernel || kind == EventKind::Memcpy) && t.name[e] != kNoName) {
    int8_t& known = by_name_[t.name[e]];
    if (known < 0)
      known = static_cast<int8_t>(kind == EventKind::Kernel ? kernel_class(t.name_of(e)) : copy_class(t.name_of(e)));
    return static_cast<DrawClass>(known);
  }
  switch (kind) {
    case EventKind::CpuOp: return DrawClass::CpuOp;
    case EventKind::UserAnnotation: return DrawClass::Annotation;
    case EventKind::PythonFunction: return DrawClass::Python;
    case EventKind::Runtime:
    case EventKind::Driver:
      return host_wait_kind(t, e) == HostWait::None ? DrawClass::HostApi : DrawClass::HostWait;
    case EventKind::Overhead: return DrawClass::Overhead;
    case EventKind::GpuUserAnnotation: return DrawClass::GpuAnnotation;
    case EventKind::Kernel: return DrawClass::OtherKernel;  // a kernel without a name
    case EventKind::Memcpy: return DrawClass::CopyOther;
    case EventKind::Memset: return DrawClass::Memset;
    case EventKind::Sync: return DrawClass::GpuSync;
    default:
      return t.tracks[t.track[e]].kind == TrackKind::Cpu ? DrawClass::CpuOther : DrawClass::Other;
  }
}

std::string_view draw_class_key(DrawClass c) { return kText[static_cast<size_t>(c)].key; }
std::string_view draw_class_label(DrawClass c) { return kText[static_cast<size_t>(c)].label; }

}  // namespace whyslow::report
