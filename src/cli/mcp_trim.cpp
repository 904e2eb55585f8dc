#include "cli/mcp_trim.hpp"

#include <fmt/core.h>
#include <simdjson.h>

#include <algorithm>
#include <limits>
#include <vector>

#include "report/json/json_writer.hpp"

namespace whyslow::cli {
namespace {

using report::JsonWriter;
using Layout = JsonWriter::Layout;
namespace od = simdjson::ondemand;

constexpr size_t kAllRows = std::numeric_limits<size_t>::max();
// The most rows per array a cut keeps: the largest tables hold hundreds (kernels, ops, blocks),
// which no agent reads through; the cut keeps as many as fit, up to these.
constexpr size_t kMostRowsKept = 256;
// Cut only when nothing else makes the document fit: the findings (each with its evidence and its
// fixes) are what an agent calls whyslow for, a few KB each.
constexpr std::string_view kCutLast = "findings";

// Arrays cut at one path ("kernels", "steps[].critical_path"): the rows kept, the most there were.
struct Cut {
  std::string path;
  size_t kept = 0;
  size_t of = 0;
};

struct Rewrite {
  JsonWriter out;
  size_t rows = kAllRows;
  bool cut_findings = false;
  std::vector<std::string> omitted;  // top-level fields left out
  std::vector<Cut> cuts;

  void note_cut(const std::string& path, size_t of) {
    auto it = std::find_if(cuts.begin(), cuts.end(), [&](const Cut& c) { return c.path == path; });
    if (it == cuts.end()) cuts.push_back({path, rows, of});
    else it->of = std::max(it->of, of);
  }
};

// A token as read: ondemand's raw token runs to the next one, spaces included.
std::string_view without_trailing_space(std::string_view token) {
  while (!token.empty() && (token.back() == ' ' || token.back() == '\n' || token.back() == '\t' || token.back() == '\r'))
    token.remove_suffix(1);
  return token;
}

void rewrite_value(Rewrite& r, od::value v, const std::string& path);

void rewrite_object(Rewrite& r, od::object obj, const std::string& path) {
  r.out.begin_object(Layout::Inline);
  for (auto field : obj) {
    const std::string_view key = field.unescaped_key();
    r.out.key(key);
    rewrite_value(r, field.value(), path + "." + std::string(key));
  }
  r.out.end_object();
}

void rewrite_array(Rewrite& r, od::array array, const std::string& path) {
  r.out.begin_array(Layout::Inline);
  const std::string element_path = path + "[]";
  const bool in_findings = path.starts_with(kCutLast) && (path.size() == kCutLast.size() || path[kCutLast.size()] == '[');
  const size_t rows = in_findings && !r.cut_findings ? kAllRows : r.rows;
  size_t n = 0;
  for (auto element : array) {
    if (n++ < rows) rewrite_value(r, element.value(), element_path);
  }
  r.out.end_array();
  if (n > rows) r.note_cut(path, n);
}

void rewrite_value(Rewrite& r, od::value v, const std::string& path) {
  switch (v.type()) {
    case od::json_type::object: rewrite_object(r, v.get_object(), path); break;
    case od::json_type::array: rewrite_array(r, v.get_array(), path); break;
    default: r.out.raw(without_trailing_space(v.raw_json_token())); break;
  }
}

std::string full_document_hint(size_t full_bytes) {
  return fmt::format("call the tool again with \"full\": true for the whole document ({} bytes), as the command's "
                     "--json prints it", full_bytes);
}

void write_note(Rewrite& r, size_t full_bytes, size_t max_bytes) {
  JsonWriter& w = r.out;
  w.key("trimmed").begin_object();
  w.key("limit_bytes").unsigned_integer(max_bytes).key("full_bytes").unsigned_integer(full_bytes);
  w.key("omitted_fields").begin_array();
  for (const std::string& f : r.omitted) w.string(f);
  w.end_array();
  w.key("rows_per_array");
  if (r.cuts.empty()) w.null();
  else w.unsigned_integer(r.rows);
  w.key("cut_arrays").begin_array();
  for (const Cut& c : r.cuts)
    w.begin_object().key("path").string(c.path).key("kept").unsigned_integer(c.kept).key("of").unsigned_integer(c.of).end_object();
  w.end_array();
  w.key("full_document").string(full_document_hint(full_bytes));
  w.end_object();
}

std::string what_was_cut(const Rewrite& r, size_t full_bytes, size_t max_bytes) {
  if (r.omitted.empty() && r.cuts.empty()) return {};
  std::string s = fmt::format("Trimmed to fit {} bytes:", max_bytes);
  if (!r.omitted.empty()) {
    s += " only this tool's fields kept (left out:";
    for (const std::string& f : r.omitted) s += " " + f;
    s += ")";
  }
  if (!r.cuts.empty())
    s += fmt::format("{} arrays cut to their first {} rows ({} of them, listed in \"trimmed\")",
                     r.omitted.empty() ? "" : ";", r.rows, r.cuts.size());
  return s + "; " + full_document_hint(full_bytes) + ".";
}

TrimmedDocument rewrite(const simdjson::padded_string& document, std::span<const std::string_view> keep, size_t rows,
                        bool cut_findings, size_t max_bytes) {
  Rewrite r;
  r.rows = rows;
  r.cut_findings = cut_findings;
  od::parser parser;
  od::document doc = parser.iterate(document);
  // The top-level object by hand: its fields are the ones `keep` chooses, and the note goes last.
  r.out.begin_object(Layout::Inline);
  for (auto field : doc.get_object()) {
    const std::string_view key = field.unescaped_key();
    if (!keep.empty() && std::find(keep.begin(), keep.end(), key) == keep.end()) {
      r.omitted.emplace_back(key);
      continue;  // ondemand skips the value unread
    }
    r.out.key(key);
    rewrite_value(r, field.value(), std::string(key));
  }
  const size_t full_bytes = document.size();
  if (!r.omitted.empty() || !r.cuts.empty()) write_note(r, full_bytes, max_bytes);
  r.out.end_object();
  return {r.out.take(), what_was_cut(r, full_bytes, max_bytes)};
}

}  // namespace

TrimmedDocument trim_document(std::string_view document, std::span<const std::string_view> keep, size_t max_bytes) {
  const simdjson::padded_string padded(document);
  TrimmedDocument whole = rewrite(padded, keep, kAllRows, false, max_bytes);
  if (whole.json.size() <= max_bytes) return whole;
  for (const bool cut_findings : {false, true}) {
    // The most rows per array that fit: fewer rows never make a longer document.
    TrimmedDocument best = rewrite(padded, keep, 0, cut_findings, max_bytes);
    if (best.json.size() > max_bytes) continue;
    size_t fits = 0, too_many = kMostRowsKept + 1;
    while (too_many - fits > 1) {
      const size_t rows = fits + (too_many - fits) / 2;
      TrimmedDocument t = rewrite(padded, keep, rows, cut_findings, max_bytes);
      if (t.json.size() <= max_bytes) {
        fits = rows;
        best = std::move(t);
      } else {
        too_many = rows;
      }
    }
    return best;
  }
  // Without a row left in any array only the scalars remain: nothing smaller to give.
  return rewrite(padded, keep, 0, true, max_bytes);
}

}  // namespace whyslow::cli
