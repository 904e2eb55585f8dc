// The per-rank digest file (src/report/digest/, docs/DIGEST.md): read back equal to what was
// written, on a real rank; bad digests are refused with the file and what is wrong.
#include <gtest/gtest.h>

#include <string>

#include "analysis/ranks/rank_digest.hpp"
#include "report/digest/digest_file.hpp"
#include "test_support.hpp"
#include "trace/load_error.hpp"
#include "trace/trace_set.hpp"

namespace whyslow {
namespace {

RankSummary dlrm_rank0() {
  const auto e = testing::explain_file(std::string(WHYSLOW_FIXTURES) + "/ranks/dlrm_worker0.json.gz");
  RankSummary s{make_digest(e.trace, e.facts, rank_of(e.trace)), {}};
  for (const Finding& f : e.findings) s.findings.push_back({f.id, f.severity, f.title});
  return s;
}

void expect_equal(const RankDigest& a, const RankDigest& b) {
  EXPECT_EQ(a.rank, b.rank);
  EXPECT_EQ(a.path, b.path);
  EXPECT_EQ(a.steps, b.steps);
  EXPECT_EQ(a.trace_steps, b.trace_steps);
  EXPECT_EQ(a.step_ns, b.step_ns);
  EXPECT_EQ(a.compute_ns, b.compute_ns);
  EXPECT_EQ(a.comm_ns, b.comm_ns);
  EXPECT_EQ(a.exposed_comm_ns, b.exposed_comm_ns);
  EXPECT_EQ(a.first_step_start_ns, b.first_step_start_ns);
  EXPECT_EQ(a.world_size, b.world_size);
  EXPECT_EQ(a.cpu, b.cpu);
  ASSERT_EQ(a.collectives.size(), b.collectives.size());
  for (size_t i = 0; i < a.collectives.size(); ++i) {
    EXPECT_EQ(a.collectives[i].group, b.collectives[i].group);
    EXPECT_EQ(a.collectives[i].seq, b.collectives[i].seq);
    EXPECT_EQ(a.collectives[i].kind, b.collectives[i].kind);
    EXPECT_EQ(a.collectives[i].start_ns, b.collectives[i].start_ns);
    EXPECT_EQ(a.collectives[i].end_ns, b.collectives[i].end_ns);
  }
  ASSERT_EQ(a.blocks.size(), b.blocks.size());
  for (size_t i = 0; i < a.blocks.size(); ++i) {
    EXPECT_EQ(a.blocks[i].name, b.blocks[i].name);
    EXPECT_EQ(a.blocks[i].per_step_ns, b.blocks[i].per_step_ns);
  }
}

TEST(Digest, ARealRankReadsBackEqual) {
  const RankSummary s = dlrm_rank0();
  ASSERT_EQ(s.digest.rank, 0);
  ASSERT_FALSE(s.digest.collectives.empty());
  ASSERT_FALSE(s.findings.empty());
  const std::string text = render_digest_json(s);
  const RankSummary back = parse_digest_json(text, "rank0.digest.json");
  expect_equal(s.digest, back.digest);
  ASSERT_EQ(s.findings.size(), back.findings.size());
  for (size_t i = 0; i < s.findings.size(); ++i) {
    EXPECT_EQ(s.findings[i].id, back.findings[i].id);
    EXPECT_EQ(s.findings[i].severity, back.findings[i].severity);
    EXPECT_EQ(s.findings[i].title, back.findings[i].title);
  }
  EXPECT_EQ(render_digest_json(back), text);
}

// The error names the file and what is wrong; never a crash, never a half-read digest.
void expect_refused(const std::string& text, const std::string& what) {
  try {
    parse_digest_json(text, "r7.digest.json");
    ADD_FAILURE() << "accepted: " << text;
  } catch (const LoadError& e) {
    EXPECT_NE(std::string(e.what()).find("r7.digest.json"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
  }
}

TEST(Digest, BadDigestsAreRefusedWithTheFileAndTheReason) {
  const std::string good = render_digest_json(dlrm_rank0());
  const auto replaced = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    const size_t at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return s.replace(at, from.size(), to);
  };
  expect_refused("[1, 2]", "not an object");
  expect_refused("{\"traceEvents\": []}", "no \"whyslow_digest\"");
  expect_refused(replaced("\"whyslow_digest\": 1", "\"whyslow_digest\": 2"), "version 2");
  expect_refused(replaced("\"step_ns\"", "\"step_nanos\""), "no \"step_ns\"");
  expect_refused(replaced("\"all_to_all\"", "\"all_to_some\""), "collective kind \"all_to_some\"");
  expect_refused(replaced("\"exposed_comm\"", "\"no_such_finding\""), "finding id \"no_such_finding\"");
  expect_refused(good.substr(0, good.size() / 2), "JSON");
}

TEST(Digest, ToldApartFromATraceByItsFirstKey) {
  const std::string dir = ::testing::TempDir();
  const auto write = [&](const std::string& name, const std::string& text) {
    const std::string path = dir + "/" + name;
    FILE* f = std::fopen(path.c_str(), "wb");
    std::fwrite(text.data(), 1, text.size(), f);
    std::fclose(f);
    return path;
  };
  EXPECT_TRUE(is_digest_file(write("a.digest.json", render_digest_json(dlrm_rank0()))));
  EXPECT_TRUE(is_digest_file(write("b.digest.json", " {\"whyslow_digest\":1}")));
  EXPECT_FALSE(is_digest_file(write("c.json", "{\"traceEvents\": [], \"whyslow_digest\": 1}")));
  EXPECT_FALSE(is_digest_file(write("d.json", "{\"whyslow_digest_x\": 1}")));
  EXPECT_FALSE(is_digest_file(dir + "/does-not-exist.json"));
}

}  // namespace
}  // namespace whyslow
