// Whose code a Python frame is: the user's own, or a library's. torch names a with_stack frame
// "file(line): function" with the sys.path prefix stripped ("model.py(42): forward",
// "torch/nn/modules/linear.py(130): forward"), and C functions "<built-in method …>".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace whyslow {

// "model.py(42): forward" → file "model.py", line 42, function "forward"; ok false for names
// not of that form ("<built-in function linear>", "nn.Module: Linear_0").
struct FrameName {
  bool ok = false;
  std::string_view file;
  int64_t line = 0;
  std::string_view function;
};
FrameName parse_frame_name(std::string_view name);

// Library code: C builtins and frozen modules (<…>), anything under site-packages or
// dist-packages or an absolute Python install path, the trees of the ML libraries
// (kLibraryPackages in code_origin.cpp), code torch.compile generated (Inductor's and Triton's
// caches) and the standard library's common modules. Everything
// else that parses as a frame is the user's.
bool is_library_frame(std::string_view name);

// "model.py(42): forward" → "model.py:42"; "" for names not of that form.
std::string frame_location(std::string_view frame_name);

// "nn.Module: Attention_0" (with_modules): torch's event for one module call.
bool is_module_event_name(std::string_view name);

}  // namespace whyslow
