// libFuzzer target: the digest reader (docs/DIGEST.md) on arbitrary bytes, then the cross-rank
// pass and its report on what it accepts. A LoadError is the expected answer to a bad digest; a
// digest accepted must render back to text that reads back the same, and two ranks made of it
// (a copy of it as another rank) must go through cross_rank() and explain_ranks() without a
// sanitizer report: the reader promises the pass values it can compute with.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/ranks/cross_rank.hpp"
#include "explain/explain_ranks.hpp"
#include "report/digest/digest_file.hpp"
#include "report/format.hpp"
#include "report/ranks_report.hpp"
#include "trace/load_error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  whyslow::RankSummary s;
  try {
    s = whyslow::parse_digest_json(text, "fuzz.digest.json");
  } catch (const whyslow::LoadError& e) {
    if (std::string(e.what()).empty()) std::abort();  // every error says what went wrong
    return 0;
  }
  const std::string again = whyslow::render_digest_json(s);
  if (whyslow::render_digest_json(whyslow::parse_digest_json(again, "again")) != again) std::abort();
  // A second rank with the same collectives: rank 0, or 1 where this one is 0.
  whyslow::RankDigest other = s.digest;
  other.rank = s.digest.rank == 0 ? 1 : 0;
  if (other.rank >= other.world_size) other.world_size = s.digest.world_size = -1;
  try {
    whyslow::RanksReport rep;
    rep.facts = whyslow::cross_rank({s.digest, other});
    rep.findings = whyslow::explain_ranks(rep.facts);
    rep.rank_findings = {s.findings, s.findings};
    volatile size_t out = whyslow::render_ranks_text(rep, whyslow::report::kDefaultLineWidth).size() + whyslow::render_ranks_json(rep).size();
    (void)out;
  } catch (const std::invalid_argument&) {  // clocks too far apart, ranks of two jobs: said, not computed
  }
  return 0;
}
