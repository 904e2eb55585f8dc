// Advice that never contradicts the trace's own replay (issue 46, item 1): the hotspot advises
// capturing a block's launches in CUDA graphs only where the replay of the trace's steps with its
// launches captured (whyslow what-if --edit cuda-graphs) shortens the steady step by 1 % or more.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/facts.hpp"
#include "explain/finding.hpp"
#include "test_support.hpp"
#include "trace/load_error.hpp"
#include "trace/load_trace.hpp"

namespace whyslow {
namespace {

// The hotspot's advice on a fixture, joined; "" where there is no hotspot and none is `required`
// (a step that waits for its DataLoader: data_loading names the fetch, the hotspot does not again).
std::string hotspot_advice(const std::string& path, bool required = true) {
  const Trace t = load_trace(path);
  const Facts f = analyze(t);
  for (const Finding& x : explain(t, f))
    if (x.id == FindingId::hotspot) {
      std::string out;
      for (const std::string& s : x.try_next) out += s + "\n";
      return out;
    }
  if (required) ADD_FAILURE() << "no hotspot on " << path;
  return "";
}

bool advises_graph_capture(const std::string& advice) {
  return advice.find("Capture the block in CUDA graphs") != std::string::npos ||
         advice.find("capture the block in a CUDA graph") != std::string::npos;
}

// Where graph capture would give nothing: a step that waits for its DataLoader (data_loading says
// CUDA graphs will not help), and a step that already replays a CUDA graph (reduce-overhead).
TEST(AdviceAgreement, NoGraphCaptureWhereTheReplayGainsNothing) {
  for (const std::string& path : {testing::fixture_in("cpu", "dataloader_workers0.json.gz"),
                                  testing::fixture("mlp_bf16_reduce_overhead.json.gz"),
                                  testing::fixture_in("compile", "ro_fixed.json.gz")}) {
    SCOPED_TRACE(path);
    const std::string advice = hotspot_advice(path, false);
    EXPECT_FALSE(advises_graph_capture(advice)) << advice;
  }
}

// Where it gives something (an eager 64×64 matmul, overhead-bound), the advice says how much, from
// the replay.
TEST(AdviceAgreement, GraphCaptureAdvisedWithTheReplaysSaving) {
  const std::string advice = hotspot_advice(testing::fixture_in("compile", "mm64_eager.json.gz"));
  EXPECT_TRUE(advises_graph_capture(advice)) << advice;
  EXPECT_NE(advice.find("the replay of the steps with their launches in one CUDA graph saves"), std::string::npos)
      << advice;
  EXPECT_NE(advice.find("--edit cuda-graphs"), std::string::npos) << advice;
}

// Whether `text` names the finding `id` as a word ("(see sync_wait)", "the overhead_bound finding").
bool names(const std::string& text, std::string_view id) {
  const auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  for (size_t at = text.find(id); at != std::string::npos; at = text.find(id, at + 1))
    if ((at == 0 || !word(text[at - 1])) && (at + id.size() == text.size() || !word(text[at + id.size()]))) return true;
  return false;
}

// A finding that sends the reader to another finding sends them to one in the output (issue 46
// item 2: the README example's hotspot pointed to overhead_bound and gpu_bound, neither there).
// Ids with an underscore only: "straggler" is also the word for a late rank.
TEST(AdviceAgreement, FindingsPointOnlyToFindingsInTheOutput) {
  size_t traces = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(WHYSLOW_FIXTURES)) {
    const std::string path = entry.path().string();
    if (!path.ends_with(".json.gz")) continue;
    Trace t;
    try {
      t = load_trace(path);
    } catch (const LoadError&) {
      continue;  // a fixture of the loader's errors
    }
    ++traces;
    const Facts f = analyze(t);
    const std::vector<Finding> out = explain(t, f);
    for (const Finding& x : out) {
      std::string text = x.title + "\n" + x.detail;
      for (const std::string& s : x.try_next) text += "\n" + s;
      for (const FindingInfo& other : finding_catalog()) {
        if (other.name.find('_') == std::string_view::npos || !names(text, other.name)) continue;
        EXPECT_TRUE(std::any_of(out.begin(), out.end(), [&](const Finding& y) { return to_string(y.id) == other.name; }))
            << path << ": " << to_string(x.id) << " names " << other.name << ", which is not in the output";
      }
    }
  }
  EXPECT_GT(traces, 50u);
}

}  // namespace
}  // namespace whyslow
