// Reading record_shapes' argument lists. The texts are short JSON arrays ("[[4096, 4096], [4096],
// []]", "[\"float\", \"Scalar\"]"), parsed here by a small recursive reader: they are read only
// for the ops that launched kernels, far off the loader's hot path.
#include "analysis/core/op_inputs.hpp"

#include <algorithm>

#include <charconv>

#include "common/checked_math.hpp"

namespace whyslow {
namespace {

struct JsonValue {
  enum class Kind { Int, String, Array, Other } kind = Kind::Other;
  int64_t number = 0;
  std::string text;
  std::vector<JsonValue> items;
};

class Reader {
 public:
  explicit Reader(std::string_view s) : s_(s) {}

  std::optional<JsonValue> value() {
    skip();
    if (i_ >= s_.size()) return std::nullopt;
    JsonValue v;
    if (s_[i_] == '[') {
      // Deeper than any argument list torch writes: a hostile text, refused before it can
      // exhaust the stack of this recursive reader.
      if (depth_ >= kMaxDepth) return std::nullopt;
      const struct Nest {
        int& d;
        explicit Nest(int& x) : d(++x) {}
        ~Nest() { --d; }
      } nest(depth_);
      v.kind = JsonValue::Kind::Array;
      ++i_;
      skip();
      if (i_ < s_.size() && s_[i_] == ']') return ++i_, v;
      while (true) {
        auto item = value();
        if (!item) return std::nullopt;
        v.items.push_back(std::move(*item));
        skip();
        if (i_ >= s_.size()) return std::nullopt;
        if (s_[i_] == ']') return ++i_, v;
        if (s_[i_] != ',') return std::nullopt;
        ++i_;
      }
    }
    if (s_[i_] == '"') {
      v.kind = JsonValue::Kind::String;
      for (++i_; i_ < s_.size() && s_[i_] != '"'; ++i_) {
        if (s_[i_] == '\\' && i_ + 1 < s_.size()) ++i_;  // the escaped character, kept as is
        v.text += s_[i_];
      }
      if (i_ >= s_.size()) return std::nullopt;
      return ++i_, v;
    }
    const size_t start = i_;
    while (i_ < s_.size() && s_[i_] != ',' && s_[i_] != ']' && !space(s_[i_])) ++i_;
    if (const std::optional<int64_t> n = parse_int(s_.substr(start, i_ - start))) {
      v.kind = JsonValue::Kind::Int;
      v.number = *n;
    }
    return v;  // other numbers, true/false/null: kept as Other
  }

 private:
  // Re-serialized traces (Python's json.dump with indent) spread the arrays over lines.
  static bool space(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }
  void skip() {
    while (i_ < s_.size() && space(s_[i_])) ++i_;
  }
  // record_shapes nests at most three levels (a TensorList's shapes: [[[2, 3], [4]], …]).
  static constexpr int kMaxDepth = 8;
  std::string_view s_;
  size_t i_ = 0;
  int depth_ = 0;
};

std::optional<JsonValue> read_array(const Trace& t, NameId id) {
  if (id == kNoName) return std::nullopt;
  Reader r(t.names.view(id));
  auto v = r.value();
  if (!v || v->kind != JsonValue::Kind::Array) return std::nullopt;
  return v;
}

// [4096, 4096] → {4096, 4096}; a list of lists (a TensorList) → nothing.
std::optional<std::vector<int64_t>> ints(const JsonValue& v) {
  std::vector<int64_t> out;
  for (const JsonValue& x : v.items) {
    if (x.kind != JsonValue::Kind::Int) return std::nullopt;
    out.push_back(x.number);
  }
  return out;
}

}  // namespace

std::string_view to_string(Precision p) {
  switch (p) {
    case Precision::FP64: return "fp64";
    case Precision::FP32: return "fp32";
    case Precision::TF32: return "tf32";
    case Precision::FP16: return "fp16";
    case Precision::BF16: return "bf16";
    case Precision::FP8: return "fp8";
    case Precision::INT8: return "int8";
    case Precision::Other: return "other";
  }
  return "other";
}

// The C++ type names torch's profiler writes for tensor dtypes (c10::ScalarType's names).
int OpInput::element_bytes() const {
  if (type == "float" || type == "int" || type == "unsigned int") return 4;
  if (type == "c10::BFloat16" || type == "c10::Half" || type == "short int" || type == "unsigned short") return 2;
  if (type == "double" || type == "long int" || type == "long long int" || type == "unsigned long" ||
      type == "c10::complex<float>")
    return 8;
  if (type == "c10::complex<double>") return 16;
  if (type == "c10::complex<c10::Half>") return 4;
  if (type == "bool" || type == "signed char" || type == "unsigned char" || type.starts_with("c10::Float8_"))
    return 1;
  return 0;
}

Precision OpInput::precision() const {
  if (type == "float") return Precision::FP32;
  if (type == "c10::BFloat16") return Precision::BF16;
  if (type == "c10::Half") return Precision::FP16;
  if (type == "double") return Precision::FP64;
  if (type.starts_with("c10::Float8_")) return Precision::FP8;
  if (type == "signed char" || type == "unsigned char") return Precision::INT8;
  return Precision::Other;
}

int64_t OpInput::numel() const {
  int64_t n = 1;
  for (int64_t d : dims) n *= d;
  return n;
}

int64_t OpInput::stored_numel() const {
  if (strides.size() != dims.size()) return numel();
  // A tensor with a dimension of 0 stores nothing. Its other dimensions are not bounded by the
  // shape check (element_count() is 0 whatever they are), so they must not be multiplied when the
  // empty one is broadcast (stride 0: the fuzzer's [0, 2^62, 112] overflowed here).
  if (std::find(dims.begin(), dims.end(), 0) != dims.end()) return 0;
  int64_t n = 1;
  for (size_t i = 0; i < dims.size(); ++i)
    if (strides[i] != 0) n *= dims[i];
  return n;
}

std::optional<int64_t> element_count(const std::vector<int64_t>& dims) {
  int64_t n = 1;
  for (const int64_t d : dims) {
    if (d < 0) return std::nullopt;
    const std::optional<int64_t> next = checked_mul(n, d);
    if (!next || *next > kMaxTensorElements) return std::nullopt;
    n = *next;
  }
  return n;
}

bool impossible_shapes(const std::vector<OpInput>& inputs) {
  for (const OpInput& in : inputs) {
    if (!element_count(in.dims)) return true;
    for (const std::vector<int64_t>& dims : in.list_dims)
      if (!element_count(dims)) return true;
  }
  return false;
}

int element_bytes_from_kernel_name(std::string_view kernel) {
  constexpr std::string_view kOpaque = "OpaqueType<";
  const size_t at = kernel.find(kOpaque);
  if (at == std::string_view::npos) return 0;
  int n = 0;
  for (size_t i = at + kOpaque.size(); i < kernel.size() && kernel[i] >= '0' && kernel[i] <= '9' && n < 1000; ++i)
    n = n * 10 + (kernel[i] - '0');
  return n;
}

std::optional<std::vector<OpInput>> op_inputs(const Trace& t, EventId op) {
  if (op == kNoEvent || t.detail[op] == UINT32_MAX) return std::nullopt;
  if (t.kind[op] != EventKind::CpuOp) return std::nullopt;
  const OpShapes& s = t.op_shapes[t.detail[op]];
  auto dims = read_array(t, s.input_dims);
  auto types = read_array(t, s.input_type);
  if (!dims || !types || dims->items.size() != types->items.size()) return std::nullopt;
  auto strides = read_array(t, s.input_strides);
  auto concrete = read_array(t, s.concrete_inputs);
  std::vector<OpInput> out(dims->items.size());
  for (size_t i = 0; i < out.size(); ++i) {
    OpInput& in = out[i];
    in.type = types->items[i].text;
    if (auto d = ints(dims->items[i])) {
      in.dims = std::move(*d);
    } else {
      in.list = true;
      for (const JsonValue& item : dims->items[i].items)
        if (auto ld = ints(item)) in.list_dims.push_back(std::move(*ld));
    }
    if (strides && i < strides->items.size())
      if (auto st = ints(strides->items[i])) in.strides = std::move(*st);
    if (concrete && i < concrete->items.size()) in.concrete = concrete->items[i].text;
  }
  return out;
}

std::optional<std::vector<int64_t>> parse_int_list(std::string_view text) {
  Reader r(text);
  auto v = r.value();
  if (!v || v->kind != JsonValue::Kind::Array) return std::nullopt;
  return ints(*v);
}

std::optional<int64_t> parse_int(std::string_view text) {
  int64_t n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return n;
}

std::string first_tensor_shape(std::string_view dims) {
  for (size_t open = dims.find('['); open != std::string_view::npos; open = dims.find('[', open + 1)) {
    const size_t close = dims.find(']', open);
    if (close == std::string_view::npos) return "";
    const std::string_view shape = dims.substr(open, close - open + 1);
    if (shape.find('[', 1) == std::string_view::npos) return shape == "[]" ? "" : std::string(shape);
  }
  return "";
}

}  // namespace whyslow
