#include "cli/help_formatter.hpp"

#include <algorithm>
#include <sstream>
#include <string_view>

#include "cli/terminal_style.hpp"
#include "report/format.hpp"

namespace whyslow::cli {
namespace {

// The fewest columns a description keeps beside the option names: below this a help line would
// hold a word or two.
constexpr size_t kNarrowestDescription = 20;

// Continuation lines of an indented line (a list entry: what-if's edits) hang this much deeper, so
// the entry's name stands out.
constexpr size_t kListHang = 2;

// `text` wrapped at `width`, line by line: a line keeps its leading spaces, and an indented line
// wraps under its own text, kListHang deeper. The lines are joined by '\n' (CLI11 puts each in
// the description column) without a trailing one.
std::string wrapped(std::string_view text, size_t width) {
  std::string out;
  while (true) {
    const size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    const size_t lead = std::min(line.find_first_not_of(' '), line.size());
    line.remove_prefix(lead);
    const std::string first(lead, ' '), rest(lead == 0 ? 0 : lead + kListHang, ' ');
    report::append_wrapped(out, line, first, rest, width);
    if (nl == std::string_view::npos) break;
    text.remove_prefix(nl + 1);
  }
  if (!out.empty()) out.pop_back();  // append_wrapped ends each line in '\n'
  return out;
}

}  // namespace

HelpFormatter::HelpFormatter(size_t width) : width_(width) {}

size_t HelpFormatter::description_width() const {
  return std::max(width_ - std::min(width_, column_width_), kNarrowestDescription);
}

std::string HelpFormatter::make_option_desc(const CLI::Option* opt) const {
  return wrapped(CLI::Formatter::make_option_desc(opt), description_width());
}

std::string HelpFormatter::make_subcommand(const CLI::App* sub) const {
  std::stringstream out;
  CLI::detail::format_help(out, sub->get_display_name(true), wrapped(sub->get_description(), description_width()),
                           column_width_);
  return out.str();
}

std::string HelpFormatter::make_description(const CLI::App* app) const {
  const std::string text = CLI::Formatter::make_description(app);  // ends in '\n'
  return text.empty() ? text : wrapped(text.substr(0, text.size() - 1), width_) + '\n';
}

std::string HelpFormatter::make_footer(const CLI::App* app) const {
  std::string out;
  const std::string text = app->get_footer();  // a copy: the view below must not outlive it
  std::string_view footer = text;
  while (!footer.empty()) {
    const size_t nl = footer.find('\n');
    const std::string_view line = footer.substr(0, nl);
    out += line.starts_with(' ') ? std::string(line) : wrapped(line, width_);
    out += '\n';
    footer.remove_prefix(nl == std::string_view::npos ? footer.size() : nl + 1);
  }
  return out;
}

std::shared_ptr<HelpFormatter> stdout_help_formatter() {
  return std::make_shared<HelpFormatter>(stdout_style(false).prose_width);
}

}  // namespace whyslow::cli
