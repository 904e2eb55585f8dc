// The one list of finding ids (src/explain/finding_ids.def) against what depends on it: the table
// in docs/JSON.md, and the evidence keys the rules really emit on every fixture.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "test_support.hpp"

namespace whyslow {
namespace {

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string catalog_table() {
  std::string out = "| `id` | fires when | evidence keys |\n|---|---|---|\n";
  for (const FindingInfo& f : finding_catalog())
    out += "| `" + std::string(f.name) + "` | " + std::string(f.fires_when) + " | " + std::string(f.evidence_keys) + " |\n";
  return out;
}

TEST(FindingCatalog, DocsTableIsTheCatalog) {
  const std::string docs = read_text(std::string(WHYSLOW_SOURCE_DIR) + "/docs/JSON.md");
  const std::string table = catalog_table();
  EXPECT_NE(docs.find(table), std::string::npos)
      << "docs/JSON.md's finding table differs from src/explain/finding_ids.def; paste this table:\n" << table;
}

TEST(FindingCatalog, NamesAreUniqueSnakeCase) {
  std::set<std::string_view> seen;
  for (const FindingInfo& f : finding_catalog()) {
    EXPECT_TRUE(seen.insert(f.name).second) << f.name;
    EXPECT_TRUE(std::regex_match(std::string(f.name), std::regex("[a-z][a-z0-9_]*"))) << f.name;
    EXPECT_EQ(to_string(f.id), f.name);
    EXPECT_FALSE(f.title.empty());
  }
}

// The keys a catalog entry documents: every `backticked` snake_case word, following "same as `id`".
std::set<std::string> documented_keys(const FindingInfo& f) {
  std::set<std::string> keys;
  const std::string text(f.evidence_keys);
  const std::regex word("`([a-z0-9_<>]+)`");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), word); it != std::sregex_iterator(); ++it)
    keys.insert((*it)[1]);
  keys.insert({"recoverable_us", "recoverable_pct"});  // explain() ends every finding with them
  for (const FindingInfo& other : finding_catalog())
    if (text.find("same as `" + std::string(other.name) + "`") != std::string::npos) {
      const std::set<std::string> more = documented_keys(other);
      keys.insert(more.begin(), more.end());
    }
  return keys;
}

// Every evidence key a rule writes on any committed fixture is one the catalog documents.
TEST(FindingCatalog, EmittedEvidenceKeysAreDocumented) {
  size_t findings = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(WHYSLOW_FIXTURES)) {
    const std::string path = entry.path().string();
    if (!path.ends_with(".json.gz") || path.find("/roofline/") != std::string::npos) continue;
    const testing::Explained e = testing::explain_file(path);
    for (const Finding& f : e.findings) {
      ++findings;
      const std::set<std::string> keys = documented_keys(info(f.id));
      for (const Evidence& ev : f.evidence)
        EXPECT_TRUE(keys.count(ev.key)) << to_string(f.id) << " writes evidence key " << ev.key
                                        << " that finding_ids.def does not list (" << path << ")";
    }
  }
  EXPECT_GT(findings, 50u);
}

}  // namespace
}  // namespace whyslow
