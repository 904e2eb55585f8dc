// The layout of the HTML report's data blob where it is not self-describing: the one-letter
// column keys of a lane, how an event's colour class and row share one integer, and the
// positional tuples (steps, overview cells, launch details). The C++ writers (summary.cpp,
// timeline.cpp) write through these names, and the page gets the same constants as a script
// (`const SCHEMA = {...}`, from page_schema_script()) that its JavaScript reads instead of
// numbers of its own: the two sides cannot drift. tests/html_schema_test.cpp checks both.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "report/html/event_class.hpp"
#include "report/html/timeline.hpp"

namespace whyslow::report::page_schema {

// ---- a lane's columns: one entry per embedded event (X: C++ name, JS name, JSON key) ----
#define WHYSLOW_LANE_COLUMNS(X)                                                       \
  X(Start, START, "s")          /* start, ns, as a delta from the lane's previous event */ \
  X(Duration, DURATION, "d")    /* ns */                                               \
  X(Name, NAME, "n")            /* index into "strings" */                             \
  X(ClassRow, CLASS_ROW, "c")   /* pack_class_row(): colour class and nesting row */   \
  X(Detail, DETAIL, "x")        /* 0 none; k > 0: gpu_details[k-1]; k < 0: shapes[-k-1] */ \
  X(Overview, OVERVIEW, "o")    /* flat OverviewField tuples, not one per event */
enum class LaneColumn : uint8_t {
#define WHYSLOW_X(cpp, js, key) cpp,
  WHYSLOW_LANE_COLUMNS(WHYSLOW_X)
#undef WHYSLOW_X
};
std::string_view key(LaneColumn c);

// ---- an event's colour class and row in one integer: class + (row << kRowShift) ----
inline constexpr int kClassBits = 5;
inline constexpr int kRowShift = kClassBits;
inline constexpr int64_t kClassMask = (int64_t{1} << kClassBits) - 1;
static_assert(kDrawClassCount <= (1 << kClassBits), "every DrawClass must fit in the class bits");
// The page keeps rows in a Uint8Array.
static_assert(kMaxLaneRows <= 255, "a row must fit in a byte on the page");

constexpr int64_t pack_class_row(DrawClass c, int row) {
  return static_cast<int64_t>(c) | (static_cast<int64_t>(row) << kRowShift);
}
static_assert(pack_class_row(DrawClass::Other, kMaxLaneRows) >> kRowShift == kMaxLaneRows &&
              (pack_class_row(DrawClass::Other, kMaxLaneRows) & kClassMask) == static_cast<int64_t>(DrawClass::Other));

// ---- positional tuples: D.steps[i][StepField], a lane's "o" in strides of OverviewField, …
#define WHYSLOW_STEP_FIELDS(X)            \
  X(Name, NAME)          /* string */     \
  X(Start, START)        /* ns from the window's start */ \
  X(Duration, DURATION)  /* ns */         \
  X(Cpu, CPU)            /* ns: duration minus sync wait */ \
  X(SyncWait, SYNC_WAIT) /* ns */         \
  X(GpuBusy, GPU_BUSY)   /* ns, streams merged */ \
  X(Kernels, KERNELS)    /* count */      \
  X(Launches, LAUNCHES)  /* count */
enum class StepField : uint8_t {
#define WHYSLOW_X(cpp, js) cpp,
  WHYSLOW_STEP_FIELDS(WHYSLOW_X)
#undef WHYSLOW_X
  Count
};
static_assert(static_cast<int>(StepField::Name) == 0, "the writer puts the name first, the numbers after");

// Per-pixel summary of the events of a lane that were not embedded.
#define WHYSLOW_OVERVIEW_FIELDS(X) \
  X(Row, ROW)                      \
  X(Bucket, BUCKET)                /* 0 … overview_buckets-1 across the window */ \
  X(Percent, PERCENT)              /* share of the bucket covered, 1-100 */ \
  X(Class, CLASS)                  /* DrawClass of the longest event */ \
  X(Count, COUNT)                  /* events */
enum class OverviewField : uint8_t {
#define WHYSLOW_X(cpp, js) cpp,
  WHYSLOW_OVERVIEW_FIELDS(WHYSLOW_X)
#undef WHYSLOW_X
  Stride
};

// A kernel's or copy's launch details, D.gpu_details[k]; -1 unknown.
#define WHYSLOW_GPU_DETAIL_FIELDS(X) \
  X(GridX, GRID_X) X(GridY, GRID_Y) X(GridZ, GRID_Z) X(BlockX, BLOCK_X) X(BlockY, BLOCK_Y) X(BlockZ, BLOCK_Z) \
  X(Registers, REGISTERS) X(SharedMemory, SHARED_MEMORY) X(Bytes, BYTES)
enum class GpuDetailField : uint8_t {
#define WHYSLOW_X(cpp, js) cpp,
  WHYSLOW_GPU_DETAIL_FIELDS(WHYSLOW_X)
#undef WHYSLOW_X
  Count
};

// A block of the user's code, D.blocks.rows[i] (html/blocks.cpp): rows depth first, a parent
// before its children.
#define WHYSLOW_BLOCK_FIELDS(X)                                                   \
  X(Name, NAME)          /* string: the event's name */                         \
  X(Kind, KIND)          /* "annotation", "module", "function" */               \
  X(Location, LOCATION)  /* "file:line" or "" */                                \
  X(Parent, PARENT)      /* index of the parent row, -1 at the top */           \
  X(Depth, DEPTH)                                                               \
  X(Calls, CALLS)                                                               \
  X(Cpu, CPU)            /* ns, all calls */                                    \
  X(Gpu, GPU)            /* ns of GPU work launched beneath it, all calls */    \
  X(Kernels, KERNELS)                                                           \
  X(Launches, LAUNCHES)                                                         \
  X(Start, START)        /* its longest call: ns from the window's start */     \
  X(Duration, DURATION)  /* … and its duration, ns */
enum class BlockField : uint8_t {
#define WHYSLOW_X(cpp, js) cpp,
  WHYSLOW_BLOCK_FIELDS(WHYSLOW_X)
#undef WHYSLOW_X
  Count
};
static_assert(static_cast<int>(BlockField::Name) == 0 && static_cast<int>(BlockField::Location) == 2,
              "the writer puts the three strings first, the numbers after");

// A segment of the critical path drawn on the timeline, D.critical_path.segments in strides of
// PathField (html/path_overlay.cpp).
#define WHYSLOW_PATH_FIELDS(X)                                                    \
  X(Event, EVENT)        /* the page's index of its event, -1: CPU work between host calls, a lag */ \
  X(Lane, LANE)          /* the page's lane, -1 when the page does not draw it */ \
  X(Start, START)        /* ns from the window's start */                       \
  X(Duration, DURATION)  /* ns */                                               \
  X(Kind, KIND)          /* PathKind: an index into SCHEMA.PATH_KINDS */
enum class PathField : uint8_t {
#define WHYSLOW_X(cpp, js) cpp,
  WHYSLOW_PATH_FIELDS(WHYSLOW_X)
#undef WHYSLOW_X
  Stride
};
// SCHEMA.PATH_KINDS lists to_string(PathKind) by value: the values must run 0, 1, 2, … in this order.
inline constexpr PathKind kPathKinds[] = {PathKind::Cpu, PathKind::Gpu, PathKind::Latency, PathKind::Wait};
static_assert(static_cast<int>(kPathKinds[0]) == 0 && static_cast<int>(kPathKinds[1]) == 1 &&
                  static_cast<int>(kPathKinds[2]) == 2 && static_cast<int>(kPathKinds[3]) == 3,
              "a segment's kind is its PathKind's value, the index of its name in SCHEMA.PATH_KINDS");

template <typename Field>
constexpr size_t at(Field f) { return static_cast<size_t>(f); }

// `const SCHEMA = {...};`: the constants above for the page's scripts, plus the draw classes
// that are kernels (for the page's kernel counts).
std::string page_schema_script();

}  // namespace whyslow::report::page_schema
