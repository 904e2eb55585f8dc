#include "report/digest/digest_file.hpp"

#include <simdjson.h>

#include <cctype>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include "common/terminal_text.hpp"
#include "report/json/json_writer.hpp"
#include "trace/load_error.hpp"
#include "trace/time_range.hpp"

namespace whyslow {
namespace {

using report::JsonWriter;
using Layout = JsonWriter::Layout;

// ---- writing ----

void write_collectives(JsonWriter& w, const std::vector<RankCollective>& collectives) {
  // One compact row per collective: [group, seq, kind, start_ns, end_ns] (a rank has thousands).
  w.key("collectives").begin_array();
  for (const RankCollective& c : collectives) {
    w.begin_array(Layout::Inline);
    w.string(c.group).integer(c.seq).string(to_string(c.kind)).integer(c.start_ns).integer(c.end_ns);
    w.end_array();
  }
  w.end_array();
}

}  // namespace

std::string render_digest_json(const RankSummary& s) {
  const RankDigest& d = s.digest;
  JsonWriter w;
  w.begin_object();
  w.key(kDigestKey).integer(kDigestVersion);
  w.key("rank").integer(d.rank).key("world_size").integer(d.world_size).key("path").string(d.path);
  w.key("steps").unsigned_integer(d.steps).key("trace_steps").unsigned_integer(d.trace_steps);
  w.key("step_ns").integer(d.step_ns).key("compute_ns").integer(d.compute_ns);
  w.key("comm_ns").integer(d.comm_ns).key("exposed_comm_ns").integer(d.exposed_comm_ns);
  w.key("first_step_start_ns").integer(d.first_step_start_ns);
  w.key("cpu_ns").begin_object(Layout::Inline);
  for (size_t c = 0; c < kCpuCategories; ++c) w.key(to_string(static_cast<CpuCategory>(c))).integer(d.cpu[c]);
  w.end_object();
  write_collectives(w, d.collectives);
  w.key("blocks").begin_array();
  for (const RankBlock& b : d.blocks) {
    w.begin_array(Layout::Inline);
    w.string(to_string(b.kind)).string(b.name).integer(b.per_step_ns).integer(b.gpu_per_step_ns);
    w.end_array();
  }
  w.end_array();
  w.key("findings").begin_array();
  for (const RankFindingLine& f : s.findings) {
    w.begin_array(Layout::Inline);
    w.string(to_string(f.id)).string(to_string(f.severity)).string(f.title);
    w.end_array();
  }
  w.end_array();
  w.end_object();
  std::string out = w.take();
  out += '\n';
  return out;
}

namespace {

// ---- reading ----

class Reader {
 public:
  explicit Reader(const std::string& source) : source_(source) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw LoadError(LoadError::Kind::Schema, printable(source_) + ": not a valid whyslow digest: " + what, 0);
  }

  simdjson::dom::element field(simdjson::dom::object o, std::string_view key) const {
    simdjson::dom::element e;
    if (o[key].get(e)) fail("no \"" + std::string(key) + "\"");
    return e;
  }
  int64_t integer(simdjson::dom::element e, std::string_view what) const {
    int64_t v = 0;
    if (e.get_int64().get(v)) fail(std::string(what) + " is not an integer");
    return v;
  }
  uint32_t count(simdjson::dom::element e, std::string_view what) const {
    const int64_t v = integer(e, what);
    if (v < 0 || v > static_cast<int64_t>(UINT32_MAX)) fail(std::string(what) + " is out of range");
    return static_cast<uint32_t>(v);
  }
  std::string_view text(simdjson::dom::element e, std::string_view what) const {
    std::string_view v;
    if (e.get_string().get(v)) fail(std::string(what) + " is not a string");
    return v;
  }
  simdjson::dom::array array(simdjson::dom::element e, std::string_view what, size_t size = 0) const {
    simdjson::dom::array a;
    if (e.get_array().get(a)) fail(std::string(what) + " is not an array");
    if (size && a.size() != size) fail(std::string(what) + " does not have " + std::to_string(size) + " items");
    return a;
  }
  // The enum value whose to_string() is `name`.
  template <typename Enum>
  Enum named(std::string_view name, size_t values, std::string_view what) const {
    for (size_t i = 0; i < values; ++i)
      if (to_string(static_cast<Enum>(i)) == name) return static_cast<Enum>(i);
    fail(std::string(what) + " \"" + printable(name) + "\" is unknown to this whyslow");
  }

 private:
  const std::string& source_;
};

// How many values each enum has, for Reader::named: the last one plus one.
constexpr size_t kCollectiveKinds = static_cast<size_t>(CollectiveKind::Other) + 1;
constexpr size_t kSeverities = static_cast<size_t>(Severity::Critical) + 1;
constexpr size_t kRankBlockKinds = static_cast<size_t>(RankBlockKind::GpuCompute) + 1;

// Refuses an object holding a key twice: JSON readers disagree on which one counts (simdjson
// takes the first, others the last), so such a digest means two things.
void require_unique_keys(const Reader& r, simdjson::dom::object o, std::string_view where) {
  std::set<std::string_view> seen;
  for (const auto field : o)
    if (!seen.insert(field.key).second) r.fail("the key \"" + printable(field.key) + "\" appears twice in " + std::string(where));
}

// What the cross-rank pass assumes of one rank's values: the ranges a loaded trace's times keep
// (trace/time_range.hpp), so that a digest from elsewhere cannot make its arithmetic wrap.
int64_t time_ns(const Reader& r, simdjson::dom::element e, std::string_view what) {
  const int64_t v = r.integer(e, what);
  if (v <= -kMaxAbsTimeNs || v >= kMaxAbsTimeNs) r.fail(std::string(what) + " is outside ±2^62 ns, the times whyslow reads");
  return v;
}
int64_t duration_ns(const Reader& r, simdjson::dom::element e, std::string_view what) {
  const int64_t v = r.integer(e, what);
  if (v < 0) r.fail(std::string(what) + " is negative");
  if (v >= TimeRange::kMaxSpanNs) r.fail(std::string(what) + " is 2^62 ns (146 years) or more");
  return v;
}

void read_rank(const Reader& r, simdjson::dom::object o, RankDigest& d) {
  const int64_t rank = r.integer(r.field(o, "rank"), "rank");
  if (rank < -1 || rank > INT32_MAX) r.fail("rank is out of range");
  d.rank = static_cast<int32_t>(rank);
  const int64_t world_size = r.integer(r.field(o, "world_size"), "world_size");
  if (world_size == 0 || world_size < -1 || world_size > INT32_MAX) r.fail("world_size is out of range");
  d.world_size = static_cast<int32_t>(world_size);
  if (d.world_size > 0 && d.rank >= d.world_size)
    r.fail("rank " + std::to_string(d.rank) + " is not below world_size " + std::to_string(d.world_size));
}

void read_steps(const Reader& r, simdjson::dom::object o, RankDigest& d) {
  d.steps = r.count(r.field(o, "steps"), "steps");
  d.trace_steps = r.count(r.field(o, "trace_steps"), "trace_steps");
  // The collectives' lateness is divided by trace_steps; steady steps are some of the steps.
  if (d.trace_steps == 0) r.fail("trace_steps is 0 (a trace without steps counts its window as 1)");
  if (d.steps > d.trace_steps) r.fail("steps (the steady ones) is more than trace_steps (all of them)");
  d.step_ns = duration_ns(r, r.field(o, "step_ns"), "step_ns");
  d.compute_ns = duration_ns(r, r.field(o, "compute_ns"), "compute_ns");
  d.comm_ns = duration_ns(r, r.field(o, "comm_ns"), "comm_ns");
  d.exposed_comm_ns = duration_ns(r, r.field(o, "exposed_comm_ns"), "exposed_comm_ns");
  d.first_step_start_ns = time_ns(r, r.field(o, "first_step_start_ns"), "first_step_start_ns");
  simdjson::dom::object cpu;
  if (r.field(o, "cpu_ns").get_object().get(cpu)) r.fail("cpu_ns is not an object");
  require_unique_keys(r, cpu, "cpu_ns");
  for (size_t c = 0; c < kCpuCategories; ++c) {
    const std::string_view key = to_string(static_cast<CpuCategory>(c));
    d.cpu[c] = duration_ns(r, r.field(cpu, key), key);
  }
}

void read_collectives(const Reader& r, simdjson::dom::object o, RankDigest& d) {
  for (const auto row : r.array(r.field(o, "collectives"), "collectives")) {
    const auto a = r.array(row, "a collective", 5);
    RankCollective c;
    c.group = std::string(r.text(a.at(0).value_unsafe(), "a collective's group"));
    c.seq = r.integer(a.at(1).value_unsafe(), "a collective's seq");
    if (c.seq < -1) r.fail("a collective's seq is below -1 (-1: not said)");
    c.kind = r.named<CollectiveKind>(r.text(a.at(2).value_unsafe(), "a collective's kind"), kCollectiveKinds,
                                     "collective kind");
    c.start_ns = time_ns(r, a.at(3).value_unsafe(), "a collective's start");
    c.end_ns = time_ns(r, a.at(4).value_unsafe(), "a collective's end");
    if (c.end_ns < c.start_ns) r.fail("a collective ends before it starts");
    d.collectives.push_back(std::move(c));
  }
}

void read_blocks(const Reader& r, simdjson::dom::object o, RankDigest& d) {
  for (const auto row : r.array(r.field(o, "blocks"), "blocks")) {
    const auto a = r.array(row, "a block", 4);
    RankBlock b{r.named<RankBlockKind>(r.text(a.at(0).value_unsafe(), "a block's kind"), kRankBlockKinds, "block kind"),
                std::string(r.text(a.at(1).value_unsafe(), "a block's name")),
                duration_ns(r, a.at(2).value_unsafe(), "a block's time"),
                duration_ns(r, a.at(3).value_unsafe(), "a block's GPU time")};
    // The cross-rank pass looks blocks up by binary search on (kind, name).
    if (!d.blocks.empty() && !(d.blocks.back() < b))
      r.fail("blocks are not sorted by kind and name, each once (\"" + printable(b.name) + "\" after \"" +
             printable(d.blocks.back().name) + "\")");
    d.blocks.push_back(std::move(b));
  }
}

void read_findings(const Reader& r, simdjson::dom::object o, RankSummary& s) {
  for (const auto row : r.array(r.field(o, "findings"), "findings")) {
    const auto a = r.array(row, "a finding", 3);
    RankFindingLine f;
    f.id = r.named<FindingId>(r.text(a.at(0).value_unsafe(), "a finding's id"), finding_catalog().size(), "finding id");
    f.severity = r.named<Severity>(r.text(a.at(1).value_unsafe(), "a finding's severity"), kSeverities, "severity");
    f.title = std::string(r.text(a.at(2).value_unsafe(), "a finding's title"));
    s.findings.push_back(std::move(f));
  }
}

RankSummary parse_digest(const simdjson::padded_string& padded, const std::string& source) {
  const Reader r(source);
  simdjson::dom::parser parser;
  simdjson::dom::element root;
  if (const auto error = parser.parse(padded).get(root)) r.fail(std::string("JSON: ") + simdjson::error_message(error));
  simdjson::dom::object o;
  if (root.get_object().get(o)) r.fail("the top level is not an object");
  const int64_t version = r.integer(r.field(o, kDigestKey), kDigestKey);
  if (version != kDigestVersion)
    r.fail("version " + std::to_string(version) + ", this whyslow reads version " + std::to_string(kDigestVersion));
  require_unique_keys(r, o, "the digest");
  RankSummary s;
  read_rank(r, o, s.digest);
  s.digest.path = std::string(r.text(r.field(o, "path"), "path"));
  if (source != s.digest.path) s.digest.read_from = source;
  read_steps(r, o, s.digest);
  read_collectives(r, o, s.digest);
  read_blocks(r, o, s.digest);
  read_findings(r, o, s);
  return s;
}

}  // namespace

RankSummary parse_digest_json(std::string_view text, const std::string& source) {
  simdjson::padded_string padded(text);
  return parse_digest(padded, source);
}

RankSummary read_digest_file(const std::string& path, size_t max_bytes) {
  std::error_code ec;
  const uintmax_t size = std::filesystem::file_size(path, ec);
  if (!ec && size > max_bytes)
    throw LoadError(LoadError::Kind::TooLarge,
                    printable(path) + ": the digest is larger than " + std::to_string(max_bytes >> 20) +
                        " MiB, the limit on a single JSON value (run with --max-value-size MiB to raise it)",
                    0);
  simdjson::padded_string padded;
  if (ec || simdjson::padded_string::load(path).get(padded))
    throw LoadError(LoadError::Kind::Io, printable(path) + ": cannot read the digest", 0);
  return parse_digest(padded, path);
}

bool is_digest_file(const std::string& path) {
  // Only a regular file is peeked at: the bytes read from a pipe would be gone for its loader.
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return false;
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  // JSON's whitespace before the object, however much (a digest re-indented or written with
  // blank lines first), then the head of the object.
  const auto is_json_space = [](int c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (in && is_json_space(in.peek())) in.get();
  char head[64] = {};
  in.read(head, sizeof head);
  const std::string_view text(head, static_cast<size_t>(in.gcount()));
  size_t at = 0;
  const auto skip_space = [&] {
    while (at < text.size() && is_json_space(static_cast<unsigned char>(text[at]))) ++at;
  };
  if (at >= text.size() || text[at] != '{') return false;
  ++at;
  skip_space();
  const size_t end = at + 1 + kDigestKey.size();  // the key in quotes
  return end < text.size() && text[at] == '"' && text.substr(at + 1, kDigestKey.size()) == kDigestKey && text[end] == '"';
}

}  // namespace whyslow
