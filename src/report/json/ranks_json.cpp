#include <algorithm>

#include "report/json/json_writer.hpp"
#include "report/json/schema.hpp"
#include "report/ranks_report.hpp"

namespace whyslow {
namespace {

using report::JsonWriter;
using Layout = JsonWriter::Layout;

void write_ranks(JsonWriter& w, const RanksReport& rep) {
  const CrossRankFacts& f = rep.facts;
  w.key("ranks").begin_array();
  for (size_t i = 0; i < f.ranks.size(); ++i) {
    const RankDigest& d = f.ranks[i];
    w.begin_object();
    w.key("rank").integer(d.rank).key("path").string(d.path).key("steps").unsigned_integer(d.steps);
    w.key("step_us").microseconds(d.step_ns).key("compute_us").microseconds(d.compute_ns);
    w.key("comm_us").microseconds(d.comm_ns).key("exposed_comm_us").microseconds(d.exposed_comm_ns);
    w.key("cpu_breakdown_us").begin_object(Layout::Inline);
    for (size_t c = 0; c < kCpuCategories; ++c) w.key(to_string(static_cast<CpuCategory>(c))).microseconds(d.cpu[c]);
    w.end_object();
    w.key("clock_offset_us").microseconds(f.clock_offset_ns[i]);
    w.key("late_us").microseconds(f.late_per_step_ns[i]).key("times_last").unsigned_integer(f.times_last[i]);
    w.key("findings").begin_array();
    for (const RankFindingLine& l : rep.rank_findings[i]) {
      w.begin_object(Layout::Inline);
      w.key("id").string(to_string(l.id)).key("severity").string(to_string(l.severity)).key("title").string(l.title);
      w.end_object();
    }
    w.end_array();
    w.end_object();
  }
  w.end_array();
}

void write_matching(JsonWriter& w, const CrossRankFacts& f) {
  w.key("collectives").begin_object(Layout::Inline);
  w.key("matched").unsigned_integer(f.collectives.size());
  w.key("matched_by").string(f.matched_by_seq ? "seq" : "order");
  w.key("median_skew_us").microseconds(f.median_skew_ns);
  w.key("max_skew_us").microseconds(f.max_skew_ns);
  w.end_object();
}

void write_findings(JsonWriter& w, const RanksReport& rep) {
  w.key("findings").begin_array();
  for (const RankFinding& rf : rep.findings) {
    const Finding& x = rf.finding;
    w.begin_object();
    w.key("id").string(to_string(x.id)).key("severity").string(to_string(x.severity));
    w.key("title").string(x.title).key("detail").string(x.detail).key("impact_us").microseconds(x.impact_ns);
    w.key("evidence").begin_object();
    for (const Evidence& e : x.evidence) {
      w.key(e.key).begin_object(Layout::Inline);
      w.key("value").number(e.value).key("unit").string(e.unit);
      w.end_object();
    }
    w.end_object();
    w.key("cause");
    if (rf.has_cause) {
      w.begin_object(Layout::Inline);
      w.key("rank").integer(rf.cause_rank).key("block").string(rf.cause.block);
      w.key("kind").string(to_string(rf.cause.kind)).key("measure").string(rf.cause.gpu ? "gpu" : "cpu");
      w.key("block_us").microseconds(rf.cause.block_ns).key("others_us").microseconds(rf.cause.others_ns);
      w.end_object();
    } else {
      w.null();
    }
    w.key("try").begin_array();
    for (const std::string& t : x.try_next) w.string(t);
    w.end_array();
    w.end_object();
  }
  w.end_array();
}

}  // namespace

std::string render_ranks_json(const RanksReport& rep) {
  JsonWriter w;
  w.begin_object();
  w.key("whyslow_version").string(kWhyslowVersion);
  w.key("schema_version").integer(kJsonSchemaVersion);
  write_ranks(w, rep);
  write_matching(w, rep.facts);
  write_findings(w, rep);
  w.end_object();
  return w.take();
}

}  // namespace whyslow
