// The torch.profiler call the findings about recording tell the user to paste: the README's
// recommended one (README.md, "Record a trace of your own program"), short.
#pragma once

#include "explain/finding.hpp"

namespace whyslow {

CodeSnippet torch_profile_snippet(std::string caption);

}  // namespace whyslow
