#include "report/html/rank_spans.hpp"

#include <algorithm>

namespace whyslow::report {

RankSpans rank_spans(const CrossRankFacts& f, size_t r, int64_t window_start_ns) {
  RankSpans out;
  // MatchedCollective times are on rank 0's clock: this rank's clock is clock_offset_ns[r] ahead.
  // (cross_rank() checked that the aligned times and offsets do not overflow; both terms lie within
  // ±2^62 ns of this rank's own times.)
  const int64_t to_page = f.clock_offset_ns[r] - window_start_ns;
  for (const MatchedCollective& m : f.collectives) {
    if (m.skew_ns <= 0) continue;  // all arrived together: nobody waited
    const int64_t first = *std::min_element(m.start_ns.begin(), m.start_ns.end()), last = m.start_ns[m.last];
    if (r == m.last) out.late.emplace_back(first + to_page, last + to_page);
    else if (m.start_ns[r] < last) out.waits.emplace_back(m.start_ns[r] + to_page, last + to_page);
  }
  return out;
}

}  // namespace whyslow::report
