// `--help` for people: CLI11 2.1 prints each description on one line (230 columns for `report`);
// this formatter wraps descriptions, option texts and footers to the width prose gets on stdout
// (terminal_style.hpp: the terminal's, at most 100 columns; 80 into a pipe), never inside a word.
#pragma once

#include <CLI/CLI.hpp>

#include <memory>

namespace whyslow::cli {

// Wraps at `width` columns. Footer lines that start with a space (an example command) are kept
// as written, so they paste as they read.
class HelpFormatter : public CLI::Formatter {
 public:
  explicit HelpFormatter(size_t width);

  std::string make_option_desc(const CLI::Option* opt) const override;
  std::string make_subcommand(const CLI::App* sub) const override;
  std::string make_description(const CLI::App* app) const override;
  std::string make_footer(const CLI::App* app) const override;

 private:
  size_t description_width() const;  // the columns right of the option names

  size_t width_;
};

// The formatter for stdout's width; set on an app before its subcommands are added (CLI11 copies
// a parent's formatter into each subcommand as it is made).
std::shared_ptr<HelpFormatter> stdout_help_formatter();

}  // namespace whyslow::cli
