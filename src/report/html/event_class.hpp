// The colour class of an event in the HTML report: from its kind and, for kernels and copies, its
// name, so that a GPU lane reads at a glance (GEMMs green, elementwise yellow, copies brown, …).
// The page draws each class in one colour and lists the classes in its legend.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "trace/trace.hpp"

namespace whyslow::report {

enum class DrawClass : uint8_t {
  CpuOp, Annotation, Python, HostApi, HostWait, Overhead, CpuOther,
  GpuAnnotation, Gemm, Conv, Attention, Elementwise, Reduction, Communication, Triton, OtherKernel,
  CopyHtoD, CopyDtoH, CopyOther, Memset, GpuSync, Other,
};
inline constexpr int kDrawClassCount = static_cast<int>(DrawClass::Other) + 1;

// Classifies events; kernel and copy names are classified once per distinct name (a trace
// launches the same few kernels a million times).
class DrawClassifier {
 public:
  explicit DrawClassifier(const Trace& trace) : trace_(trace), by_name_(trace.names.size(), -1) {}
  DrawClass operator()(EventId e);

 private:
  const Trace& trace_;
  std::vector<int8_t> by_name_;  // -1: not classified yet
};

// Stable key the page's colours are keyed on ("gemm"), and the legend's words ("GEMM kernel").
std::string_view draw_class_key(DrawClass c);
std::string_view draw_class_label(DrawClass c);

inline bool is_kernel_class(DrawClass c) { return c >= DrawClass::Gemm && c <= DrawClass::OtherKernel; }

}  // namespace whyslow::report
