#include "report/html/page_schema.hpp"

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
  w.key("STEP").begin_object();
#define WHYSLOW_X(cpp, js) w.key(#js).integer(static_cast<int64_t>(StepField::cpp));
  WHYSLOW_STEP_FIELDS(WHYSLOW_X)
#undef WHYSLOW_X
  w.end_object();
  w.key("OVERVIEW").begin_object();
#define WHYSLOW_X(cpp, js) w.key(#js).integer(static_cast<int64_t>(OverviewField::cpp));
  WHYSLOW_OVERVIEW_FIELDS(WHYSLOW_X)
#undef WHYSLOW_X
  w.key("STRIDE").integer(static_cast<int64_t>(OverviewField::Stride));
  w.end_object();
  w.key("GPU_DETAIL").begin_object();
#define WHYSLOW_X(cpp, js) w.key(#js).integer(static_cast<int64_t>(GpuDetailField::cpp));
  WHYSLOW_GPU_DETAIL_FIELDS(WHYSLOW_X)
#undef WHYSLOW_X
  w.end_object();
  w.key("BLOCK").begin_object();
#define WHYSLOW_X(cpp, js) w.key(#js).integer(static_cast<int64_t>(BlockField::cpp));
  WHYSLOW_BLOCK_FIELDS(WHYSLOW_X)
#undef WHYSLOW_X
  w.end_object();
  w.key("KERNEL_CLASSES").begin_array();
  for (int c = 0; c < kDrawClassCount; ++c)
    if (is_kernel_class(static_cast<DrawClass>(c))) w.string(draw_class_key(static_cast<DrawClass>(c)));
  w.end_array();
  w.end_object();
  return "const SCHEMA = " + w.take() + ";\n";
}

}  // namespace whyslow::report::page_schema
