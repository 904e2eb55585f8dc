// Two traces loaded, analyzed and diffed, kept together (the diff refers to both): the diff tests'
// one way to make a pair.
#pragma once

#include <string>

#include "analysis/facts.hpp"
#include "diff/diff.hpp"
#include "trace/load_trace.hpp"

namespace whyslow::testing {

struct DiffPair {
  Trace ta, tb;
  Facts fa, fb;
  Diff d;
};

inline DiffPair diff_pair(const std::string& a, const std::string& b) {
  DiffPair p{load_trace(a), load_trace(b), {}, {}, {}};
  p.fa = analyze(p.ta);
  p.fb = analyze(p.tb);
  p.d = diff_traces(p.ta, p.fa, p.tb, p.fb);
  return p;
}

}  // namespace whyslow::testing
