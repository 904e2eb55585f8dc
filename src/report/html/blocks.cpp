#include "report/html/blocks.hpp"

#include <algorithm>

#include "analysis/blocks/code_origin.hpp"
#include "common/share.hpp"
#include "report/format.hpp"
#include "report/html/page_schema.hpp"

namespace whyslow::report {
namespace {

// Blocks under this share of both the steps' CPU and GPU time stay out of the page (the JSON has
// them all): a trace with stacks can hold thousands of small user functions. A parent's share is
// never below its child's, so every kept row's parent is kept too.
constexpr double kMinEmbeddedShare = 0.005;
constexpr size_t kBlockNameWidth = 100;


}  // namespace

void write_blocks(CompactJson& w, const Trace& t, const Facts& f) {
  const BlockFacts& b = f.blocks;
  w.key("blocks").begin_object();
  w.key("cpu_ns").integer(b.basis_cpu_ns).key("gpu_ns").integer(b.basis_gpu_ns);
  w.key("rows").begin_array();
  std::vector<int64_t> index(b.rows.size(), -1);
  int64_t next = 0;
  for (size_t i = 0; i < b.rows.size(); ++i) {
    const BlockRow& r = b.rows[i];
    if (std::max(share(r.cpu_total_ns, b.basis_cpu_ns), share(r.gpu_ns, b.basis_gpu_ns)) < kMinEmbeddedShare) continue;
    const int64_t parent = r.parent == UINT32_MAX ? -1 : index[r.parent];
    if (r.parent != UINT32_MAX && parent < 0) continue;  // under a row left out
    index[i] = next++;
    w.begin_array().string(shorten(t.names.view(r.name), kBlockNameWidth)).string(to_string(r.kind));
    w.string(r.location == kNoName ? std::string() : frame_location(t.names.view(r.location)));
    w.integer(parent).integer(r.depth).integer(static_cast<int64_t>(r.calls)).integer(r.cpu_total_ns).integer(r.gpu_ns);
    w.integer(static_cast<int64_t>(r.kernels)).integer(static_cast<int64_t>(r.launches));
    const bool call = r.longest_call != kNoEvent;
    w.integer(call ? t.start_ns[r.longest_call] - f.window.start_ns : 0).integer(call ? t.dur_ns[r.longest_call] : 0);
    w.end_array();
  }
  w.end_array();
  w.end_object();
}

}  // namespace whyslow::report
