// How the text subcommands print on stdout: as wide as the terminal, markers in colour on a
// terminal. A pipe or a file gets its tables whole and its prose at 80 columns, unless COLUMNS
// says a width.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "report/format.hpp"

namespace whyslow::cli {

struct TerminalStyle {
  size_t width = 0;     // columns lines are cut at; 0: none (a pipe without COLUMNS, or --wide)
  bool colour = false;  // stdout is a terminal, TERM is not "dumb" and NO_COLOR is unset or empty
  size_t prose_width = report::kPipeLineWidth;  // columns prose wraps at (never inside a word)
};

// What a pipe or a file gets: no cut, no colour, prose at report::kPipeLineWidth (--wide:
// report::kDefaultLineWidth). whyslow-mpi prints this whatever its stdout is.
TerminalStyle pipe_style(bool wide);

// The width: --wide none; else COLUMNS when it holds a number; else the terminal's. Never under
// kNarrowestWidth (terminal_style.cpp). Prose wraps at that width, at most
// report::kDefaultLineWidth; with no width, as pipe_style.
TerminalStyle stdout_style(bool wide);

// `text` (prose already wrapped at prose_width) printed whole: lines wider than the terminal cut
// with "…", severity markers coloured.
void print_styled(std::string_view text, const TerminalStyle& style);
// A JSON document (is_json) as it is, anything else as print_styled.
void print_output(std::string_view out, bool is_json, const TerminalStyle& style);

}  // namespace whyslow::cli
