// The per-rank digest file (src/report/digest/, docs/DIGEST.md): read back equal to what was
// written, on a real rank; bad digests are refused with the file and what is wrong. Issue 32's
// reproducers (HostileDigest, HostileRanks): digests the cross-rank pass could not compute with
// (item 1: SIGFPE on trace_steps 0; item 5: wrapped-around numbers; item 4: their size) and
// ranks that are not one job.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <climits>
#include <cstdlib>
#include <stdexcept>
#include <string>

#include "analysis/ranks/cross_rank.hpp"
#include "analysis/ranks/rank_digest.hpp"
#include "common/checked_math.hpp"
#include "loader_test_util.hpp"
#include "report/digest/digest_file.hpp"
#include "report/digest/ranks_job.hpp"
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
    EXPECT_EQ(a.blocks[i].kind, b.blocks[i].kind);
    EXPECT_EQ(a.blocks[i].name, b.blocks[i].name);
    EXPECT_EQ(a.blocks[i].per_step_ns, b.blocks[i].per_step_ns);
    EXPECT_EQ(a.blocks[i].gpu_per_step_ns, b.blocks[i].gpu_per_step_ns);
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
  // Version 1 (blocks without kind and GPU time) is read by no whyslow that writes 2.
  expect_refused(replaced("\"whyslow_digest\": 2", "\"whyslow_digest\": 1"), "version 1");
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

// ---- issue 32 ----

using testing::TempDir;

// A small valid digest: one all-reduce from `start` to `end`, the blocks a real one has.
RankSummary digest_of(int32_t rank, int64_t start, int64_t end, int32_t world_size = 2) {
  RankSummary s;
  RankDigest& d = s.digest;
  d.rank = rank;
  d.world_size = world_size;
  d.path = "rank" + std::to_string(rank) + ".json";
  d.steps = 1;
  d.trace_steps = 1;
  d.step_ns = 1000;
  d.first_step_start_ns = start;
  d.collectives = {{"0", 0, CollectiveKind::AllReduce, start, end}};
  d.blocks = {{RankBlockKind::Annotation, "## forward ##", 500, 40}, {RankBlockKind::GpuCompute, "gpu:compute", 100, 0}};
  return s;
}

std::string text_of(const RankSummary& s) { return render_digest_json(s); }

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from << " in " << text;
  return at == std::string::npos ? text : text.replace(at, from.size(), to);
}

TEST(HostileDigest, TraceStepsZeroIsRefused) {
  const std::string good = text_of(digest_of(0, 100, 200));
  EXPECT_NO_THROW(parse_digest_json(good, "r7.digest.json"));
  expect_refused(replaced(good, "\"trace_steps\": 1", "\"trace_steps\": 0"), "trace_steps is 0");
  expect_refused(replaced(good, "\"steps\": 1", "\"steps\": 2"), "more than trace_steps");
}

// The reproducer of item 1 on the command line: exit 2 with the file named, not SIGFPE.
TEST(HostileDigest, TheCliRefusesTraceStepsZeroWithoutACrash) {
  TempDir dir;
  const std::string a = dir.write("rank0.digest.json", text_of(digest_of(0, 100, 200)));
  const std::string b = dir.write("rank1.digest.json",
                                  replaced(text_of(digest_of(1, 150, 200)), "\"trace_steps\": 1", "\"trace_steps\": 0"));
  const std::string err = dir.path("err.txt");
  const int status = std::system(("'" WHYSLOW_BINARY "' explain '" + a + "' '" + b + "' >/dev/null 2>'" + err + "'").c_str());
  ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
  EXPECT_EQ(WEXITSTATUS(status), 2);
  const std::string message = testing::read_file(err);
  EXPECT_NE(message.find(b), std::string::npos) << message;
  EXPECT_NE(message.find("trace_steps"), std::string::npos) << message;
}

// Issue 45 item 8: an error about a digest named the trace it was made from ("rank0.json and
// rank0.json are both rank 0"), not the digest files given.
TEST(HostileDigest, ErrorsNameTheDigestFilesGiven) {
  TempDir dir;
  const std::string a = dir.write("monday.digest.json", text_of(digest_of(0, 100, 200)));
  const std::string b = dir.write("tuesday.digest.json", text_of(digest_of(0, 150, 200)));
  const std::string c = dir.write("wednesday.digest.json", text_of(digest_of(1, 150, 200, 4)));
  const std::string err = dir.path("err.txt");
  for (const auto& [files, what] : {std::pair{"'" + a + "' '" + b + "'", std::string("are both rank 0")},
                                    std::pair{"'" + a + "' '" + c + "'", std::string("world_size")}}) {
    const int status = std::system(("'" WHYSLOW_BINARY "' explain " + files + " >/dev/null 2>'" + err + "'").c_str());
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) != 0) << files;
    const std::string message = testing::read_file(err);
    EXPECT_NE(message.find(what), std::string::npos) << message;
    EXPECT_NE(message.find(what == "world_size" ? c : b), std::string::npos) << message;
    EXPECT_NE(message.find("the digest of rank"), std::string::npos) << message;
  }
}

// Issue 45 item 8: JSON's whitespace before the object is any length; past 64 bytes of it, the
// digest was taken for a trace.
TEST(HostileDigest, LeadingWhitespaceOfAnyLengthIsStillADigest) {
  TempDir dir;
  const std::string text = text_of(digest_of(0, 100, 200));
  for (const size_t blank : {size_t{1}, size_t{63}, size_t{64}, size_t{200}, size_t{100000}}) {
    std::string padded;
    for (size_t i = 0; i < blank; ++i) padded += " \n\t\r"[i % 4];
    EXPECT_TRUE(is_digest_file(dir.write("r.digest.json", padded + text))) << blank;
    EXPECT_EQ(read_digest_file(dir.path("r.digest.json"), size_t{1} << 20).digest.rank, 0) << blank;
  }
  EXPECT_FALSE(is_digest_file(dir.write("v.json", std::string(100, ' ') + "\v" + text)));  // not JSON's whitespace
}

TEST(HostileDigest, ValuesTheCrossRankPassCannotComputeWithAreRefused) {
  const std::string good = text_of(digest_of(0, 100, 200));
  // Negative durations, printed as such before.
  expect_refused(replaced(good, "\"step_ns\": 1000", "\"step_ns\": -5"), "step_ns is negative");
  expect_refused(replaced(good, "\"gpu:compute\", 100, 0]", "\"gpu:compute\", -100, 0]"), "a block's time is negative");
  expect_refused(replaced(good, "\"## forward ##\", 500, 40]", "\"## forward ##\", 500, -40]"), "a block's GPU time is negative");
  expect_refused(replaced(good, "\"python\": 0", "\"python\": -1"), "python is negative");
  // Times that wrapped the skew and the clock offset ("-2 ns", "-9223372037 s").
  expect_refused(replaced(good, "100, 200]", "100, 9223372036854775807]"), "outside ±2^62");
  expect_refused(replaced(good, "\"first_step_start_ns\": 100", "\"first_step_start_ns\": -9223372036854775808"),
                 "outside ±2^62");
  expect_refused(replaced(good, "\"step_ns\": 1000", "\"step_ns\": 4611686018427387904"), "2^62 ns");
  expect_refused(replaced(good, "[\"0\", 0,", "[\"0\", -7,"), "seq is below -1");
}

TEST(HostileDigest, UnsortedOrRepeatedBlocksAreRefused) {
  const std::string good = text_of(digest_of(0, 100, 200));
  // The cross-rank pass looks blocks up by binary search: unsorted, it found "a median of 0".
  std::string unsorted = replaced(good, "[\"annotation\", \"## forward ##\", 500, 40]", "[\"gpu_compute\", \"zz\", 500, 0]");
  expect_refused(unsorted, "not sorted by kind and name");
  expect_refused(replaced(good, "[\"gpu_compute\", \"gpu:compute\", 100, 0]", "[\"annotation\", \"## forward ##\", 100, 0]"),
                 "each once");
  // A kind this build does not know: it cannot say whether the block is the user's code.
  expect_refused(replaced(good, "[\"annotation\",", "[\"widget\","), "block kind \"widget\" is unknown");
}

TEST(HostileDigest, RepeatedKeysAreRefused) {
  const std::string good = text_of(digest_of(0, 100, 200));
  expect_refused(replaced(good, "{\n", "{\n  \"whyslow_digest\": 2,\n"), "\"whyslow_digest\" appears twice");
  expect_refused(replaced(good, "\"rank\": 0,", "\"rank\": 0, \"rank\": 1,"), "\"rank\" appears twice");
  expect_refused(replaced(good, "\"python\": 0", "\"python\": 0, \"python\": 5"), "appears twice in cpu_ns");
}

TEST(HostileDigest, ARankNotBelowTheWorldSizeIsRefused) {
  expect_refused(text_of(digest_of(9, 100, 200, 2)), "rank 9 is not below world_size 2");
  expect_refused(text_of(digest_of(0, 100, 200, 0)), "world_size is out of range");
  EXPECT_NO_THROW(parse_digest_json(text_of(digest_of(9, 100, 200, -1)), "r7.digest.json"));  // world size not said
}

TEST(HostileRanks, MixedWorldSizesAreNotOneJob) {
  std::vector<RankDigest> ranks = {digest_of(0, 100, 200, 2).digest, digest_of(1, 100, 200, 4).digest};
  try {
    cross_rank(ranks);
    ADD_FAILURE() << "accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("rank0.json says world_size 2, rank1.json says 4"), std::string::npos) << e.what();
  }
  // A rank that does not say its world size joins either.
  ranks[1].world_size = -1;
  EXPECT_NO_THROW(cross_rank(ranks));
  // A trace's distributedInfo (not read through a digest) is held to the same.
  ranks[1] = digest_of(5, 100, 200, 2).digest;
  EXPECT_THROW(cross_rank(ranks), std::invalid_argument);
}

// What the CLI, whyslow-mpi and the Python module call: the same refusal is the inputs' error
// (LoadError: exit code 2), naming the files; it aborted the process before (an uncaught
// std::invalid_argument, exit 134).
TEST(HostileRanks, MixedWorldSizesAreTheInputsErrorNotAnAbort) {
  try {
    ranks_of_one_job({digest_of(0, 100, 200, 2), digest_of(1, 100, 200, 4)});
    ADD_FAILURE() << "accepted";
  } catch (const LoadError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("not the ranks of one job"), std::string::npos) << what;
    EXPECT_NE(what.find("rank0.json says world_size 2, rank1.json says 4"), std::string::npos) << what;
  }
}

TEST(HostileRanks, ClocksTooFarApartAreAnErrorNotAWrappedNumber) {
  // Each rank's times within ±2^62 (what the reader allows), the two clocks 2^63 - 2 ns apart:
  // the second collective's start less the clock offset does not fit in int64.
  const int64_t edge = (int64_t{1} << 62) - 1;
  RankDigest r0 = digest_of(0, -edge, -edge).digest, r1 = digest_of(1, edge, edge).digest;
  r0.collectives.push_back({"0", 1, CollectiveKind::AllReduce, edge, edge});
  r1.collectives.push_back({"0", 1, CollectiveKind::AllReduce, -edge, -edge});
  for (const RankDigest& d : {r0, r1}) EXPECT_NO_THROW(parse_digest_json(render_digest_json({d, {}}), d.path));
  try {
    const CrossRankFacts f = cross_rank({r0, r1});
    ADD_FAILURE() << "median skew " << f.median_skew_ns;
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("too far apart"), std::string::npos) << e.what();
  }
  // Clocks far apart but lined up by their collectives are fine.
  RankDigest near0 = digest_of(0, -edge, -edge + 10).digest, near1 = digest_of(1, edge - 20, edge).digest;
  const CrossRankFacts f = cross_rank({near0, near1});
  EXPECT_EQ(f.clock_offset_ns[1], 2 * edge - 10);
  EXPECT_EQ(f.median_skew_ns, 10);
}

// Item 4: a digest is one JSON value, held whole: --max-value-size bounds it.
TEST(HostileDigest, ADigestLargerThanTheValueLimitIsRefused) {
  TempDir dir;
  RankSummary s = digest_of(0, 100, 200);
  s.digest.path = std::string(size_t{3} << 20, 'p');
  const std::string path = dir.write("rank0.digest.json", text_of(s));
  try {
    read_digest_file(path, size_t{2} << 20);
    ADD_FAILURE() << "read";
  } catch (const LoadError& e) {
    EXPECT_EQ(e.kind(), LoadError::Kind::TooLarge) << e.what();
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--max-value-size"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_digest_file(path, size_t{4} << 20).digest.path.size(), size_t{3} << 20);
  const std::string err = dir.path("err.txt"), other = dir.write("rank1.digest.json", text_of(digest_of(1, 100, 200)));
  const int status = std::system(
      ("'" WHYSLOW_BINARY "' explain --max-value-size 2 '" + other + "' '" + path + "' >/dev/null 2>'" + err + "'").c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2);
  EXPECT_NE(testing::read_file(err).find("--max-value-size"), std::string::npos);
}

TEST(CheckedMath, SaysWhenTheResultDoesNotFit) {
  EXPECT_EQ(checked_add(1, 2), std::optional<int64_t>(3));
  EXPECT_EQ(checked_add(INT64_MAX, 1), std::nullopt);
  EXPECT_EQ(checked_sub(INT64_MIN, 1), std::nullopt);
  EXPECT_EQ(checked_sub(0, INT64_MIN), std::nullopt);
  EXPECT_EQ(checked_sub(-5, 3), std::optional<int64_t>(-8));
  EXPECT_EQ(checked_mul(INT64_MAX / 2, 3), std::nullopt);
  EXPECT_EQ(checked_mul(-4, 5), std::optional<int64_t>(-20));
}

}  // namespace
}  // namespace whyslow
