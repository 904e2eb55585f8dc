#include "cli/subcommand_typo.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <string_view>
#include <vector>

namespace whyslow::cli {
namespace {

// Two edits catch a swapped pair ("explian") or a dropped and a wrong letter ("diffs", "kernal"),
// and no two subcommand names are within two edits of each other, so a suggestion is never a toss-up.
constexpr size_t kMaxTypoEdits = 2;

// Edits (insert, delete, replace, swap two neighbours) between a and b: the optimal string
// alignment distance.
size_t edits(std::string_view a, std::string_view b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

}  // namespace

std::optional<std::string> unknown_subcommand(const CLI::App& app, int argc, const char* const* argv) {
  if (argc < 2 || argv[1][0] == '-') return std::nullopt;
  const std::string_view word = argv[1];
  std::vector<std::string> names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) names.push_back(sub->get_name());
  if (std::find(names.begin(), names.end(), word) != names.end()) return std::nullopt;
  const auto closest = std::min_element(names.begin(), names.end(), [&](const std::string& x, const std::string& y) {
    return edits(word, x) < edits(word, y);
  });
  if (closest != names.end() && edits(word, *closest) <= kMaxTypoEdits)
    return fmt::format("unknown subcommand '{}', did you mean '{}'?", word, *closest);
  return fmt::format("unknown subcommand '{}'; the subcommands are {} (whyslow --help)", word, fmt::join(names, ", "));
}

}  // namespace whyslow::cli
