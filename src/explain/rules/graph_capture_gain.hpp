// The trace's own replay with each step's launches captured in a CUDA graph (the what-if of
// analysis/graph/edits/cuda_graphs.cpp), as the rules that advise graphs or advise against CPU-side
// work read it (hotspot, gpu_bound): one answer, so that no finding advises what another says
// will not help.
#pragma once

#include "analysis/facts.hpp"

namespace whyslow {

// Graph capture gives something when it shortens the steady step by at least 1 %: what costs less
// is never worth a warning, nor advice. Not where the step waits for data, is already replayed from
// a graph or launches nothing: the replay of those gains nothing.
inline constexpr double kMinGraphCaptureGainShare = 0.01;

// The cuda-graphs what-if (plain or reduce-overhead, whichever replays shorter) that gains at least
// kMinGraphCaptureGainShare of its step; nullptr when none does.
const WhatIf* graph_capture_gain(const Facts& facts);

}  // namespace whyslow
