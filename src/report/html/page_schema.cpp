#include "report/html/page_schema.hpp"

#include <initializer_list>
#include <string_view>
#include <utility>

#include "report/html/json.hpp"

namespace whyslow::report::page_schema {

std::string_view key(LaneColumn c) {
  switch (c) {
#define WHYSLOW_X(cpp, js, json_key) \
  case LaneColumn::cpp: return json_key;
    WHYSLOW_LANE_COLUMNS(WHYSLOW_X)
#undef WHYSLOW_X
  }
  return "";
}

std::string page_schema_script() {
  CompactJson w;
  w.begin_object();
  w.key("LANE").begin_object();
#define WHYSLOW_X(cpp, js, json_key) w.key(#js).string(json_key);
  WHYSLOW_LANE_COLUMNS(WHYSLOW_X)
#undef WHYSLOW_X
  w.end_object();
  w.key("CLASS_BITS").integer(kClassBits);
  w.key("CLASS_MASK").integer(kClassMask);
  w.key("ROW_SHIFT").integer(kRowShift);
  w.key("MAX_LANE_ROWS").integer(kMaxLaneRows);
  // A tuple's fields by position, {NAME: i, …} (a flat list's STRIDE too).
  auto positions = [&](std::string_view name, std::initializer_list<std::pair<std::string_view, int64_t>> fields) {
    w.key(name).begin_object();
    for (const auto& [field, i] : fields) w.key(field).integer(i);
    w.end_object();
  };
#define WHYSLOW_X(cpp, js) {#js, static_cast<int64_t>(StepField::cpp)},
  positions("STEP", {WHYSLOW_STEP_FIELDS(WHYSLOW_X)});
#undef WHYSLOW_X
#define WHYSLOW_X(cpp, js) {#js, static_cast<int64_t>(OverviewField::cpp)},
  positions("OVERVIEW", {WHYSLOW_OVERVIEW_FIELDS(WHYSLOW_X){"STRIDE", static_cast<int64_t>(OverviewField::Stride)}});
#undef WHYSLOW_X
#define WHYSLOW_X(cpp, js) {#js, static_cast<int64_t>(GpuDetailField::cpp)},
  positions("GPU_DETAIL", {WHYSLOW_GPU_DETAIL_FIELDS(WHYSLOW_X)});
#undef WHYSLOW_X
#define WHYSLOW_X(cpp, js) {#js, static_cast<int64_t>(BlockField::cpp)},
  positions("BLOCK", {WHYSLOW_BLOCK_FIELDS(WHYSLOW_X)});
#undef WHYSLOW_X
#define WHYSLOW_X(cpp, js) {#js, static_cast<int64_t>(PathField::cpp)},
  positions("PATH", {WHYSLOW_PATH_FIELDS(WHYSLOW_X){"STRIDE", static_cast<int64_t>(PathField::Stride)}});
#undef WHYSLOW_X
  w.key("PATH_KINDS").begin_array();
  for (PathKind k : kPathKinds) w.string(to_string(k));
  w.end_array();
  w.key("KERNEL_CLASSES").begin_array();
  for (int c = 0; c < kDrawClassCount; ++c)
    if (is_kernel_class(static_cast<DrawClass>(c))) w.string(draw_class_key(static_cast<DrawClass>(c)));
  w.end_array();
  w.end_object();
  return "const SCHEMA = " + w.take() + ";\n";
}

}  // namespace whyslow::report::page_schema
