#include "analysis/blocks/code_origin.hpp"

#include <array>

namespace whyslow {
namespace {

// Installed packages appear under their top-level directory once torch strips the sys.path
// prefix: the deep-learning stack a model is built on and the scientific and image libraries
// its input pipeline uses, whose frames are never the user's.
constexpr std::array<std::string_view, 36> kLibraryPackages = {
    "torch",     "transformers", "vllm",        "flashinfer", "triton",       "numpy",
    "accelerate", "deepspeed",   "megatron",    "apex",       "xformers",     "flash_attn",
    "timm",      "diffusers",    "torchvision", "torchaudio", "lightning",    "pytorch_lightning",
    "peft",      "safetensors",  "tokenizers",  "sglang",     "fbgemm_gpu",   "torchrec",
    "scipy",     "PIL",          "cv2",         "sklearn",    "pandas",       "tqdm",
    "einops",    "datasets",     "huggingface_hub", "decord", "av",           "jax"};

// The standard library's modules a training or inference loop passes through (the frames torch
// records between the user's calls: context managers, enum hashing, threading, logging).
constexpr std::array<std::string_view, 32> kStandardLibrary = {
    "abc",      "asyncio",   "collections", "concurrent", "contextlib", "copy",      "copyreg", "dataclasses",
    "enum",     "functools", "importlib",   "inspect",    "json",       "logging",   "multiprocessing",
    "os",       "posixpath", "queue",       "random",     "re",         "selectors", "socket",  "threading",
    "traceback", "typing",   "warnings",    "weakref",    "_weakrefset", "types",    "operator", "pickle",
    "tempfile"};

// Code that torch.compile and its backends write and run: Inductor's output and Triton's cache
// (/tmp/torchinductor_<user>/…/c….py, ~/.triton/cache/…, TORCHINDUCTOR_CACHE_DIR under a
// torch_compile_debug folder). FX's generated modules are named "<eval_with_key>.N", a '<' name.
// None of it is code the user wrote or can edit.
constexpr std::array<std::string_view, 4> kGeneratedCodePaths = {"torchinductor_", "/.triton/", "triton/cache/",
                                                                 "torch_compile_debug/"};

// Inductor names each module it writes after its hash, in a folder named after the hash's first
// two characters: <cache>/z4/cz4mty3…6sw.py. Wherever TORCHINDUCTOR_CACHE_DIR puts the cache (a
// folder inside the user's project), that name says the code is generated, not the folder.
constexpr size_t kMinInductorHashChars = 40;  // sha256 in base32 is 52; a shorter name is a user's file

bool is_inductor_module(std::string_view file) {
  if (!file.ends_with(".py")) return false;
  const size_t slash = file.rfind('/');
  if (slash == std::string_view::npos || slash < 3 || file[slash - 3] != '/') return false;
  const std::string_view folder = file.substr(slash - 2, 2);
  std::string_view base = file.substr(slash + 1);
  base.remove_suffix(3);
  if (base.size() < 1 + kMinInductorHashChars || base[0] != 'c' || base.substr(1, 2) != folder) return false;
  for (char ch : base.substr(1))
    if (!((ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9'))) return false;
  return true;
}

// The first path component, without ".py": "torch/nn/x.py" → "torch", "enum.py" → "enum".
std::string_view top_component(std::string_view file) {
  const size_t slash = file.find('/');
  std::string_view head = file.substr(0, slash);
  if (slash == std::string_view::npos && head.ends_with(".py")) head.remove_suffix(3);
  return head;
}

}  // namespace

FrameName parse_frame_name(std::string_view name) {
  FrameName f;
  if (name.empty() || name.front() == '<') return f;
  const size_t colon = name.find("): ");
  if (colon == std::string_view::npos) return f;
  const size_t open = name.rfind('(', colon);
  if (open == std::string_view::npos || open == 0 || open + 1 == colon) return f;
  int64_t line = 0;
  for (size_t i = open + 1; i < colon; ++i) {
    if (name[i] < '0' || name[i] > '9' || line > 100'000'000) return f;
    line = line * 10 + (name[i] - '0');
  }
  f.ok = true;
  f.file = name.substr(0, open);
  f.line = line;
  f.function = name.substr(colon + 3);
  return f;
}

bool is_library_frame(std::string_view name) {
  const FrameName f = parse_frame_name(name);
  if (!f.ok || f.file.front() == '<') return true;  // builtins, "<frozen os>(680): …", "<string>(1): …"
  if (f.file.find("site-packages/") != std::string_view::npos ||
      f.file.find("dist-packages/") != std::string_view::npos || f.file.find("/lib/python") != std::string_view::npos)
    return true;
  for (std::string_view p : kGeneratedCodePaths)
    if (f.file.find(p) != std::string_view::npos) return true;
  if (is_inductor_module(f.file)) return true;
  const std::string_view top = top_component(f.file);
  for (std::string_view p : kLibraryPackages)
    if (top == p) return true;
  for (std::string_view p : kStandardLibrary)
    if (top == p) return true;
  return false;
}

std::string frame_location(std::string_view frame_name) {
  const FrameName f = parse_frame_name(frame_name);
  return f.ok ? std::string(f.file) + ":" + std::to_string(f.line) : std::string();
}

bool is_module_event_name(std::string_view name) { return name.starts_with("nn.Module: "); }

}  // namespace whyslow
