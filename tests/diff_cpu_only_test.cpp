// `whyslow diff` of two CPU-only runs (issue 46 item 6): no GPU rows ("GPU busy 0", "kernels 0")
// and no GPU words in the verdict or its advice, in the text and in the Markdown summary; a GPU
// pair keeps them.
#include <gtest/gtest.h>

#include <string>

#include "diff_pair.hpp"
#include "report/markdown/diff_markdown.hpp"
#include "report/text/text_report.hpp"
#include "test_support.hpp"

namespace whyslow {
namespace {

using testing::diff_pair;

bool says(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

// Two CPU-only recordings of one MLP: A loads its data in the step, B was recorded with more options.
TEST(DiffCpuOnly, NoGpuRowsOrWords) {
  const auto p = diff_pair(testing::fixture("mlp_dataloader_cpu.json.gz"),
                           testing::fixture_in("first_minutes", "cpu_train.json.gz"));
  ASSERT_TRUE(cpu_only(p.d.a) && cpu_only(p.d.b));
  TextOptions wide;
  wide.line_width = 1000;  // one line per paragraph: the words are looked for whole
  const std::string text = render_diff_text(p.d, wide), md = render_diff_markdown(p.d, nullptr);
  for (const std::string& out : {text, md}) {
    for (const char* row : {"GPU busy", "GPU idle", "blocked on the GPU", "kernels", "launches", "memcpys", "memsets"})
      EXPECT_FALSE(says(out, "  " + std::string(row) + " ") || says(out, "| " + std::string(row) + " |")) << row << "\n" << out;
    EXPECT_TRUE(says(out, "CPU (not blocked)")) << out;
    EXPECT_FALSE(says(out, "the same GPU work")) << out;
    EXPECT_FALSE(says(out, "as the GPU work grows")) << out;
    EXPECT_TRUE(says(out, "B spends 11.5 ms less CPU time per step. Both run on the CPU alone")) << out;
  }
}

TEST(DiffCpuOnly, AGpuPairKeepsItsGpuRows) {
  const auto p = diff_pair(testing::fixture("mm_bias_64_fp32_cold.json.gz"), testing::fixture("mm_bias_64_fp32.json.gz"));
  const std::string text = render_diff_text(p.d, TextOptions{}), md = render_diff_markdown(p.d, nullptr);
  EXPECT_TRUE(says(text, "  GPU busy ")) << text;
  EXPECT_TRUE(says(text, "  kernels ")) << text;
  EXPECT_TRUE(says(md, "| GPU busy |")) << md;
}

}  // namespace
}  // namespace whyslow
