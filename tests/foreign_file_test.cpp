// Files mistaken for a trace (issue 46 item 5): the loader names what each is and how to record a
// Kineto trace instead, plain and gzipped; each file's first bytes are built here as its writer
// lays them out.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "loader_test_util.hpp"
#include "trace/load_error.hpp"
#include "trace/load_trace.hpp"

namespace whyslow {
namespace {

using testing::TempDir;

// What every named kind ends with: the way to get the trace whyslow reads.
constexpr std::string_view kAdvice = "export_chrome_trace";

std::string le16(size_t n) { return {static_cast<char>(n & 0xff), static_cast<char>(n >> 8)}; }

// A zip's local file header (APPNOTE 4.3.7) for one stored entry `name`, then its bytes.
std::string zip_entry(const std::string& name, const std::string& data) {
  std::string h("PK\x03\x04", 4);
  h += le16(20) + le16(0) + le16(0) + le16(0) + le16(0);  // version, flags, method (stored), time, date
  h += std::string(4, '\0');                                // crc-32 (not checked by the reader)
  h += le16(data.size()) + le16(0) + le16(data.size()) + le16(0);  // sizes (32-bit each)
  h += le16(name.size()) + le16(0);                         // name length, extra length
  return h + name + data;
}

// torch.save's zip: <archive>/data.pkl first (a pickle), then the tensors' storages.
std::string torch_checkpoint() {
  return zip_entry("archive/data.pkl", std::string("\x80\x02}q\x00.", 6)) +
         zip_entry("archive/data/0", std::string(64, '\x01'));
}

// A Perfetto Trace: repeated field 1 (`packet`), each a TracePacket holding a timestamp
// (field 8, varint) and trusted_packet_sequence_id (field 10, varint).
std::string perfetto_trace() {
  std::string out;
  for (int i = 0; i < 4; ++i) {
    const std::string packet = std::string("\x40\x96\x01\x50", 4) + static_cast<char>(1 + i);
    out += '\x0a';
    out += static_cast<char>(packet.size());
    out += packet;
  }
  return out;
}

std::string load_error(const std::string& path) {
  try {
    load_trace(path);
  } catch (const LoadError& e) {
    EXPECT_EQ(e.kind(), LoadError::Kind::Syntax) << e.what();
    EXPECT_EQ(e.byte_offset(), 0u) << e.what();
    return e.what();
  }
  ADD_FAILURE() << path << " loaded";
  return {};
}

struct Kind {
  std::string file, bytes;
  std::vector<std::string> said;  // the kind's words the message must hold
};

std::vector<Kind> kinds() {
  return {
      {"model.pt", torch_checkpoint(), {"torch.save checkpoint", "archive/data.pkl", "not a profiler trace"}},
      {"bundle.zip", zip_entry("run/trace.json", "{}"), {"a zip archive", "run/trace.json", "unzip it"}},
      {"old.pt", std::string("\x80\x02\x8a\x0a", 4) + std::string(20, 'x'), {"a Python pickle", "torch.save"}},
      {"run.pftrace.bin", perfetto_trace(), {"Perfetto trace in protobuf", "not JSON"}},
      {"run.nsys-rep", std::string("\x00\x01\x02\x03 binary", 11), {"an Nsight Systems report", "nsys export"}},
      {"run.qdrep", std::string("\x05\x00\x00\x00 binary", 11), {"an Nsight Systems report (.qdrep", "nsys export"}},
      {"run.sqlite", std::string("SQLite format 3\0\x10\x00", 18), {"SQLite database", "nsys export --type sqlite"}},
      {"trace.json", "\xEF\xBB\xBF<!DOCTYPE html>\n<html lang=\"en\"><head><title>trace.json at main</title>",
       {"an HTML page", "\"Raw\""}},
      {"page.json", "\n  <!-- saved -->\n<HTML><body>", {"an HTML page"}},
  };
}

TEST(ForeignFile, EachKindIsNamedWithTheWayToRecordATrace) {
  TempDir dir;
  for (const Kind& k : kinds()) {
    SCOPED_TRACE(k.file);
    const std::string path = dir.write(k.file, k.bytes);
    const std::string what = load_error(path);
    EXPECT_NE(what.find(path), std::string::npos) << what;
    for (const std::string& s : k.said) EXPECT_NE(what.find(s), std::string::npos) << s << " in: " << what;
    EXPECT_NE(what.find(kAdvice), std::string::npos) << what;
    EXPECT_EQ(what.find("not a JSON trace"), std::string::npos) << what;
  }
}

TEST(ForeignFile, GzippedKindsAreNamedAfterGunzip) {
  TempDir dir;
  for (const Kind& k : kinds()) {
    SCOPED_TRACE(k.file);
    const std::string what = load_error(dir.write_gz(k.file + ".gz", k.bytes));
    EXPECT_NE(what.find("this is, after gunzip, "), std::string::npos) << what;
    for (const std::string& s : k.said) EXPECT_NE(what.find(s), std::string::npos) << s << " in: " << what;
    EXPECT_NE(what.find(kAdvice), std::string::npos) << what;
  }
}

// Nsight's advice says what its exports are not: no nsys export gives Kineto's JSON.
TEST(ForeignFile, NsightReportSaysNoExportGivesKinetoJson) {
  TempDir dir;
  const std::string what = load_error(dir.write("profile.nsys-rep", std::string("\x01\x02\x03\x04", 4)));
  EXPECT_NE(what.find("No Nsight export"), std::string::npos) << what;
  EXPECT_NE(what.find("record the program again with torch.profiler"), std::string::npos) << what;
}

// Other bytes keep the plain message, and JSON that happens to start like a protobuf (a newline
// then a string) is valid JSON of the wrong shape, not a Perfetto trace.
TEST(ForeignFile, UnknownBytesAndJsonAreNotNamed) {
  TempDir dir;
  const std::string elf = load_error(dir.write("a.out", std::string("\x7f" "ELF\x02\x01", 6)));
  EXPECT_NE(elf.find("not a JSON trace"), std::string::npos) << elf;
  try {
    load_trace(dir.write("string.json", "\n\"abcdef\""));
    ADD_FAILURE() << "a JSON string loaded";
  } catch (const LoadError& e) {
    EXPECT_EQ(e.kind(), LoadError::Kind::Schema) << e.what();
    EXPECT_EQ(std::string(e.what()).find("Perfetto"), std::string::npos) << e.what();
  }
  // A real trace whose name says Nsight still loads: the name counts only for bytes that are no trace.
  const Trace t = load_trace(dir.write("renamed.nsys-rep", R"({"traceEvents": []})"));
  EXPECT_EQ(t.size(), 0u);
}

}  // namespace
}  // namespace whyslow
