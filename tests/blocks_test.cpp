// Blocks of the user's code on the H200 fixtures of tests/fixtures/blocks (README there: the slow
// block is nn.Module: HeadLoopAttention_0, record_workloads.py line 299, 86 kernels a call, a
// Python loop over 16 heads), and the frame-name rules. The block numbers themselves are checked
// against the Python oracle by the blocks_oracle test.
#include <gtest/gtest.h>

#include <algorithm>

#include "analysis/blocks/code_origin.hpp"
#include "loader_test_util.hpp"
#include "test_support.hpp"

namespace whyslow {
namespace {

using testing::find;
using testing::evidence;

std::string blocks_fixture(const std::string& name) { return std::string(WHYSLOW_FIXTURES) + "/blocks/" + name; }


TEST(CodeOrigin, FrameNamesParse) {
  const FrameName f = parse_frame_name("record_workloads.py(299): forward");
  ASSERT_TRUE(f.ok);
  EXPECT_EQ(f.file, "record_workloads.py");
  EXPECT_EQ(f.line, 299);
  EXPECT_EQ(f.function, "forward");
  EXPECT_EQ(frame_location("my pkg/a(b).py(7): <lambda>"), "my pkg/a(b).py:7");
  EXPECT_FALSE(parse_frame_name("<built-in function linear>").ok);
  EXPECT_FALSE(parse_frame_name("nn.Module: Linear_0").ok);
  EXPECT_FALSE(parse_frame_name("model.py(4x): f").ok);
  EXPECT_FALSE(parse_frame_name("(42): f").ok);
}

TEST(CodeOrigin, LibraryOrUsers) {
  EXPECT_FALSE(is_library_frame("record_workloads.py(299): forward"));
  EXPECT_FALSE(is_library_frame("myproject/model.py(12): forward"));
  EXPECT_FALSE(is_library_frame("torchy/model.py(12): forward")) << "a prefix of a library name is not the library";
  EXPECT_TRUE(is_library_frame("torch/nn/modules/linear.py(130): forward"));
  EXPECT_TRUE(is_library_frame("transformers/models/llama/modeling_llama.py(300): forward"));
  EXPECT_TRUE(is_library_frame("/usr/lib/python3/dist-packages/foo/bar.py(1): f"));
  EXPECT_TRUE(is_library_frame("/opt/venv/lib/python3.12/site-packages/x.py(1): f"));
  EXPECT_TRUE(is_library_frame("enum.py(1267): __hash__"));
  EXPECT_TRUE(is_library_frame("<frozen os>(680): __getitem__"));
  EXPECT_TRUE(is_library_frame("<built-in method softmax of Tensor object at 0x7f>"));
}

// Issue 44 class 8: Inductor's output in a cache folder the user chose (TORCHINDUCTOR_CACHE_DIR=
// <project>/compile_cache, as the H200 recording inductor_user_cache put it) is generated code by its
// name, a hash in a folder named after the hash's first two characters; a user's file is not.
TEST(CodeOrigin, InductorModulesWhereverTheCacheIs) {
  EXPECT_TRUE(is_library_frame("/work/main/compile_cache/z4/cz4mty3fpn5prfu3clm47rsenxpymkf2hxm2k5fywuf5x65yo6sw.py(106): call"));
  EXPECT_TRUE(is_library_frame("proj/.cache/ab/cabcdefghijklmnopqrstuvwxyz0123456789abcdefghijklm.py(9): partition_0"));
  EXPECT_FALSE(is_library_frame("proj/z4/cz4mty3fpn5prfu3clm47rsenxpymkf2hxm2k5fywuf5x65yo6sw_test.py(3): f"));
  EXPECT_FALSE(is_library_frame("proj/ab/cache_helpers.py(3): f")) << "a short name is a user's file";
  EXPECT_FALSE(is_library_frame("proj/zz/cz4mty3fpn5prfu3clm47rsenxpymkf2hxm2k5fywuf5x65yo6sw.py(3): f"))
      << "the folder must be the hash's first two characters";
}

// with_stack + with_modules: the module tree, the user's frames, library frames folded.
TEST(Blocks, ModulesAndStackFixture) {
  const auto e = testing::explain_file(blocks_fixture("blocks_modules_stack.json.gz"));
  const BlockFacts& b = e.facts.blocks;
  ASSERT_FALSE(b.rows.empty());
  EXPECT_EQ(b.annotation_events, 0u);
  EXPECT_GT(b.module_events, 0u);
  EXPECT_EQ(b.python_frames, 1660u - b.module_events) << "1,660 python_function events, modules among them";
  auto row = [&](std::string_view name) -> const BlockRow* {
    for (const BlockRow& r : b.rows)
      if (e.trace.names.view(r.name) == name) return &r;
    return nullptr;
  };
  const BlockRow* slow = row("nn.Module: HeadLoopAttention_0");
  ASSERT_NE(slow, nullptr);
  EXPECT_EQ(slow->kind, BlockKind::Module);
  EXPECT_TRUE(slow->user_code);
  EXPECT_EQ(frame_location(e.trace.names.view(slow->location)), "record_workloads.py:299");
  EXPECT_EQ(slow->calls, 3u);
  EXPECT_EQ(slow->kernels, 3u * 86) << "86 of the forward's 129 kernels, each of 3 steps";
  EXPECT_EQ(e.trace.names.view(b.rows[slow->parent].name), "nn.Module: Block_2");
  const BlockRow* linear = row("nn.Module: Linear_0");
  ASSERT_NE(linear, nullptr);
  EXPECT_FALSE(linear->user_code) << "its forward is torch/nn/modules/linear.py";
  for (const BlockRow& r : b.rows) {
    EXPECT_FALSE(is_library_frame(e.trace.names.view(r.name)) && r.kind == BlockKind::Function) << "library frames fold";
    EXPECT_EQ(r.attribution, kOwnThread) << "one thread, no backward";
    EXPECT_GE(r.self_cpu_ns, 0);
  }
}

TEST(Blocks, HotspotIsTheHeadLoop) {
  const auto e = testing::explain_file(blocks_fixture("blocks_modules_stack.json.gz"));
  const Finding* h = find(e, FindingId::hotspot);
  ASSERT_NE(h, nullptr);
  EXPECT_NE(h->title.find("HeadLoopAttention (record_workloads.py:299)"), std::string::npos) << h->title;
  EXPECT_NE(h->title.find("record_workloads.py:299"), std::string::npos) << h->title;
  EXPECT_EQ(h->severity, Severity::Warning) << "many small launches from a Python loop";
  EXPECT_NE(h->detail.find("many small launches"), std::string::npos) << h->detail;
  EXPECT_EQ(evidence(*h, "line"), 299);
  EXPECT_EQ(evidence(*h, "kernels_per_call"), 86);
  EXPECT_EQ(evidence(*h, "calls"), 3);
  // 3.63–3.76 ms of each 5.95–6.77 ms step (README, Python sums): 55–65 % of the CPU time.
  EXPECT_GT(evidence(*h, "cpu_pct"), 55);
  EXPECT_LT(evidence(*h, "cpu_pct"), 65);
  EXPECT_FALSE(find(e, FindingId::no_annotations) == nullptr) << "stacks without record_function: the places";
}

TEST(Blocks, PlainTraceGetsTheRecipe) {
  const auto e = testing::explain_file(blocks_fixture("blocks_plain.json.gz"));
  EXPECT_TRUE(e.facts.blocks.rows.empty());
  EXPECT_EQ(find(e, FindingId::hotspot), nullptr);
  const Finding* n = find(e, FindingId::no_annotations);
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->severity, Severity::Info);
  EXPECT_EQ(evidence(*n, "python_frames"), 0);
  EXPECT_TRUE(std::any_of(n->try_next.begin(), n->try_next.end(),
                          [](const std::string& s) { return s.find("with_stack=True, with_modules=True") != std::string::npos; }));
}

// loss.backward() inside record_function("backward") on the main thread: autograd's thread launches
// the kernels. One launch inside a backward op (it carries a "Fwd thread id"), one from the same
// thread inside a forward op (torch 2.x writes "Fwd thread id": 0 there: not a backward op) but
// on autograd's engine thread (it runs backward ops: AccumulateGrad has no link either), one from a
// thread that runs no backward op (not the block's, however open it is: issue 29), one after the
// block closed (not).
TEST(Blocks, OtherThreadsBackwardLaunchesGoToTheMainThreadsOpenBlock) {
  testing::TempDir dir;
  const std::string launch = R"("cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 2, "dur": 5)";
  const std::string kernel = R"("ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "dur": 10)";
  const auto e = testing::explain_file(dir.write("bw.json", testing::trace_json({
      R"({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 1000})",
      R"({"ph": "X", "cat": "user_annotation", "name": "backward", "pid": 1, "tid": 1, "ts": 100, "dur": 200})",
      R"({"ph": "X", "cat": "cpu_op", "name": "autograd::engine::evaluate_function: MmBackward0", "pid": 1, "tid": 2, )"
      R"("ts": 110, "dur": 50, "args": {"Sequence number": 4, "Fwd thread id": 1}})",
      "{\"ph\": \"X\", " + launch + R"(, "ts": 120, "args": {"correlation": 1}})",
      R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 2, "ts": 195, "dur": 20, )"
      R"("args": {"Sequence number": 5, "Fwd thread id": 0}})",
      "{\"ph\": \"X\", " + launch + R"(, "ts": 200, "args": {"correlation": 2}})",
      "{\"ph\": \"X\", " + launch + R"(, "ts": 400, "args": {"correlation": 3}})",
      R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 3, "dur": 5, "ts": 250, )"
      R"("args": {"correlation": 4}})",
      "{" + kernel + R"(, "ts": 260, "args": {"correlation": 4}})",
      "{" + kernel + R"(, "ts": 130, "args": {"correlation": 1}})",
      "{" + kernel + R"(, "ts": 210, "args": {"correlation": 2}})",
      "{" + kernel + R"(, "ts": 410, "args": {"correlation": 3}})",
  })));
  ASSERT_EQ(e.trace.backward_ops.size(), 1u);
  EXPECT_EQ(e.trace.name_of(e.trace.backward_ops[0]), "autograd::engine::evaluate_function: MmBackward0");
  ASSERT_EQ(e.facts.blocks.rows.size(), 1u);
  const BlockRow& bw = e.facts.blocks.rows[0];
  EXPECT_EQ(e.trace.names.view(bw.name), "backward");
  EXPECT_EQ(bw.kernels, 2u);
  EXPECT_EQ(bw.launches, 2u);
  EXPECT_EQ(bw.gpu_ns, 20'000);
  EXPECT_EQ(bw.other_thread_gpu_ns, 20'000);
  EXPECT_EQ(bw.attribution, kForwardBackwardLink);
  EXPECT_EQ(e.facts.blocks.basis_gpu_ns, 40'000) << "all four launches are in the step";
}

}  // namespace
}  // namespace whyslow
