#include "trace/foreign_file.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>

#include "common/terminal_text.hpp"

namespace whyslow {
namespace {

// How to get what whyslow reads, said after every kind.
constexpr std::string_view kRecordTrace =
    "whyslow reads the JSON trace torch.profiler writes (Kineto's, plain or .json.gz): record the program "
    "inside `with torch.profiler.profile(...) as prof:`, then call prof.export_chrome_trace(\"trace.json\") "
    "after the block (or give on_trace_ready=torch.profiler.tensorboard_trace_handler(\"tb\")) and pass "
    "trace.json (or tb/); from Python, `with whyslow.profile(steps=3) as p:` records and explains in one line";

// A zip archive's local file header (PKWARE APPNOTE 4.3.7): its signature, and where the first
// entry's name length and name lie.
constexpr std::string_view kZipMagic{"PK\x03\x04", 4};
constexpr size_t kZipNameLengthAt = 26, kZipNameAt = 30;
// torch.save's zip format (torch ≥ 1.6) keeps the pickled object in <name>/data.pkl.
constexpr std::string_view kCheckpointPickle = "data.pkl";
// A pickle's first bytes: PROTO (0x80) and a protocol number; torch.save's older format
// (torch < 1.6) and pickle.dump write protocols 2 to 5.
constexpr unsigned char kPickleProto = 0x80;
constexpr unsigned char kPickleMinProtocol = 2, kPickleMaxProtocol = 5;
// SQLite's header string (sqlite.org/fileformat.html, 1.3.1): what `nsys export --type sqlite`
// and `nsys stats` write.
constexpr std::string_view kSqliteMagic{"SQLite format 3\0", 16};
// A Perfetto trace is a protobuf `Trace` whose field 1 (`packet`) repeats, length-delimited:
// each packet starts with the tag (1 << 3) | 2.
constexpr unsigned char kPerfettoPacketTag = 0x0a;
// A varint is at most 10 bytes; a length over 2^32 is no packet.
constexpr size_t kMaxLengthVarintBytes = 5;
// How far into the file an HTML page's <html> tag may come (after a doctype and comments).
constexpr size_t kHtmlTagWithin = 4096;
// UTF-8's byte order mark, which web pages saved on Windows often begin with.
constexpr std::string_view kUtf8Bom{"\xEF\xBB\xBF", 3};

// Extensions that name a kind whose magic bytes are not published (Nsight's reports): the name is
// the evidence there is. Perfetto's protobuf too, for a trace whose first packet the check misses.
struct Extension {
  std::string_view ext;
  std::string_view kind;
};
constexpr std::array<Extension, 4> kNsightExtensions = {{
    {".nsys-rep", "an Nsight Systems report"},
    {".qdrep", "an Nsight Systems report (.qdrep, its name before 2021.4)"},
    {".qdstrm", "an Nsight Systems capture (.qdstrm, before its conversion to a report)"},
    {".ncu-rep", "an Nsight Compute report (kernels' counters, not a timeline)"},
}};
constexpr std::array<std::string_view, 2> kPerfettoExtensions = {".pftrace", ".perfetto-trace"};

constexpr std::string_view kNsightAdvice =
    "No Nsight export (`nsys export` to JSON or SQLite, `ncu --csv`) is Kineto's JSON: they are Nsight's own "
    "tables, so record the program again with torch.profiler. ";

uint16_t u16le(std::string_view s, size_t at) {
  return static_cast<uint16_t>(static_cast<unsigned char>(s[at]) | static_cast<unsigned char>(s[at + 1]) << 8);
}

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

// The path without ".gz", lower case: "run.nsys-rep.gz" ends in ".nsys-rep".
std::string stem(std::string_view path) {
  std::string p = lower(path);
  if (p.size() > 3 && p.ends_with(".gz")) p.resize(p.size() - 3);
  return p;
}

std::string zip_kind(std::string_view head) {
  std::string first;
  if (head.size() >= kZipNameAt) {
    const size_t n = u16le(head, kZipNameLengthAt);
    // The name is the file's bytes: shown as printable() shows names, no control byte reaching the terminal.
    first = printable(head.substr(kZipNameAt, std::min(n, head.size() - kZipNameAt)));
  }
  // The checkpoint's data.pkl comes first; another writer's order still names it in the head.
  if (first.ends_with(kCheckpointPickle) || head.find(std::string("/") + std::string(kCheckpointPickle)) != std::string_view::npos)
    return "a torch.save checkpoint (a zip archive holding " +
           (first.ends_with(kCheckpointPickle) ? first : std::string(kCheckpointPickle)) +
           "): saved tensors or a model's weights, not a profiler trace. ";
  return "a zip archive" + (first.empty() ? std::string() : " (its first file: " + first + ")") +
         ", not a trace: unzip it and pass the trace it holds (.json or .json.gz), or record one. ";
}

// Whether `head` reads as a protobuf Trace: a packet tag, a length, a packet that starts with a
// valid field tag, and after it the next packet's tag (or the end of the file).
bool is_perfetto_protobuf(const FileStart& s) {
  const std::string_view h = s.head;
  if (h.size() < 3 || static_cast<unsigned char>(h[0]) != kPerfettoPacketTag) return false;
  uint64_t length = 0;
  size_t i = 1;
  for (int shift = 0;; shift += 7, ++i) {
    if (i >= h.size() || i > kMaxLengthVarintBytes) return false;
    const auto b = static_cast<unsigned char>(h[i]);
    length |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (!(b & 0x80)) break;
  }
  ++i;  // the packet's first byte
  if (length < 2 || i >= h.size()) return false;
  const auto tag = static_cast<unsigned char>(h[i]);
  const int wire_type = tag & 7;
  if ((tag >> 3) == 0 || !(wire_type == 0 || wire_type == 1 || wire_type == 2 || wire_type == 5)) return false;
  const uint64_t next = i + length;
  if (next < h.size()) return static_cast<unsigned char>(h[next]) == kPerfettoPacketTag;
  return next == h.size() || !s.whole;  // the packet ends the file, or runs past what was read
}

bool is_html(std::string_view head) {
  if (head.starts_with(kUtf8Bom)) head.remove_prefix(kUtf8Bom.size());
  while (!head.empty() && std::isspace(static_cast<unsigned char>(head.front()))) head.remove_prefix(1);
  if (head.empty() || head.front() != '<') return false;
  const std::string start = lower(head.substr(0, kHtmlTagWithin));
  return start.starts_with("<!doctype html") || start.find("<html") != std::string::npos;
}

}  // namespace

std::optional<std::string> name_foreign_file(const FileStart& s) {
  const std::string_view h = s.head;
  const std::string name = stem(s.path);
  std::string kind;
  if (h.starts_with(kZipMagic)) {
    kind = zip_kind(h);
  } else if (h.size() >= 2 && static_cast<unsigned char>(h[0]) == kPickleProto &&
             static_cast<unsigned char>(h[1]) >= kPickleMinProtocol && static_cast<unsigned char>(h[1]) <= kPickleMaxProtocol) {
    kind = "a Python pickle (torch.save's format before torch 1.6, or pickle.dump): saved objects, not a profiler "
           "trace. ";
  } else if (h.starts_with(kSqliteMagic)) {
    kind = "an SQLite database (what `nsys export --type sqlite` and `nsys stats` write), not a trace. ";
    kind += kNsightAdvice;
  } else if (is_html(h)) {
    kind = "an HTML page, not a trace: a web page saved in place of the file it shows (on GitHub, download the "
           "file's \"Raw\" link), or a report another tool wrote from a trace. Pass the trace itself (.json or "
           ".json.gz), or record one. ";
  } else if (is_perfetto_protobuf(s) ||
             std::any_of(kPerfettoExtensions.begin(), kPerfettoExtensions.end(), [&](std::string_view e) { return name.ends_with(e); })) {
    kind = "a Perfetto trace in protobuf (binary) form, not JSON: Perfetto's UI opens torch.profiler's JSON too, so "
           "record it with torch.profiler and export_chrome_trace. ";
  } else {
    for (const Extension& e : kNsightExtensions)
      if (name.ends_with(e.ext)) {
        kind = std::string(e.kind) + ", not a torch.profiler trace. " + std::string(kNsightAdvice);
        break;
      }
  }
  if (kind.empty()) return std::nullopt;
  return std::string(s.gzipped ? "this is, after gunzip, " : "this is ") + kind + std::string(kRecordTrace);
}

}  // namespace whyslow
