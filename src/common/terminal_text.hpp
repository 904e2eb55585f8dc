// Text from a trace, made safe to print on a terminal. A trace is untrusted input: a name or a
// key holding ESC sequences would retitle, recolour or clear the user's terminal when an error
// message or `whyslow info` echoes it, and invalid UTF-8 garbles the rest of the line.
#pragma once

#include <string>
#include <string_view>

namespace whyslow {

// `text` with everything a terminal could act on made visible:
//   - C0 control bytes and DEL (ESC, BEL, CR, backspace, NUL …) → \xNN
//   - C1 controls U+0080..U+009F (U+009B is a one-byte CSI on some terminals) → \u00NN
//   - bidirectional overrides and isolates (U+202A..U+202E, U+2066..U+2069), which reorder the
//     text around them on screen, and U+2028 / U+2029 (line breaks) → \uNNNN
//   - bytes that are not valid UTF-8 (stray continuation bytes, overlong forms, surrogates,
//     cut-off sequences) → \xNN, one per byte
// Everything else, valid UTF-8 included, is copied as is. Backslashes are not doubled: the
// result is for reading, not for parsing back.
std::string printable(std::string_view text);

// A whole text report, as printable() but its line breaks ('\n') kept: what every text renderer
// (report/text/) returns, so no name from the trace, wherever the report quotes it, reaches the
// terminal raw.
std::string printable_text(std::string_view text);

}  // namespace whyslow
