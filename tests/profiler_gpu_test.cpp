// GPU tests (ctest label `gpu`; run on the H200 machine by tools/gpu_check_profiler.sh): the
// trace holds exactly the GPU work that was launched, each piece linked to its launch call and
// to the scope that launched it.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "analysis/facts.hpp"
#include "profiler_gpu_kernels.hpp"
#include "profiler_test_support.hpp"

namespace whyslow {
namespace {

using testing::ScratchDir;

#define CUDA_OK(call) ASSERT_EQ((call), cudaSuccess) << #call

bool have_gpu() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess && n > 0;
}

std::multiset<std::string> names_of_kind(const Trace& t, EventKind kind) {
  std::multiset<std::string> names;
  for (EventId e = 0; e < t.size(); ++e)
    if (t.kind[e] == kind) names.emplace(t.name_of(e));
  return names;
}

// The scope a GPU activity is attributed to (by its External id), or "".
std::string scope_of(const Trace& t, EventId e) {
  return t.op_link[e] == kNoEvent ? "" : std::string(t.name_of(t.op_link[e]));
}

std::string launch_of(const Trace& t, EventId e) {
  return t.launch_link[e] == kNoEvent ? "" : std::string(t.name_of(t.launch_link[e]));
}

class ProfilerGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!have_gpu()) GTEST_SKIP() << "no CUDA device";
  }
};

TEST_F(ProfilerGpu, KernelsCopiesAndGraphsAreLinkedToTheirLaunchAndScope) {
  constexpr int n = 1 << 20;
  constexpr size_t bytes = sizeof(float) * n;
  constexpr size_t memset_bytes = 4096;
  float *device = nullptr, *device2 = nullptr, *pinned = nullptr;
  CUDA_OK(cudaMalloc(&device, bytes));
  CUDA_OK(cudaMalloc(&device2, bytes));
  CUDA_OK(cudaMallocHost(&pinned, bytes));
  std::vector<float> pageable(n, 1.0f);
  cudaStream_t stream = nullptr;
  CUDA_OK(cudaStreamCreate(&stream));
  cudaGraphExec_t graph = whyslow_test::make_three_kernel_graph(device, n, stream);
  ASSERT_NE(graph, nullptr);

  ScratchDir dir;
  const std::string path = dir.file("gpu.json.gz");
  int ready = 0;
  // Step 0 warms up (its GPU work must not appear), steps 1 and 2 are recorded.
  Profiler profiler({.schedule = schedule({.wait = 0, .warmup = 1, .active = 2}),
                     .on_trace_ready = [&](Profiler& p) {
                       ++ready;
                       p.export_chrome_trace(path);
                     }});
  profiler.start();
  for (int step = 0; step < 3; ++step) {
    {
      WHYSLOW_SCOPE("fill");
      CUDA_OK(cudaMemsetAsync(device2, 0, memset_bytes, stream));
    }
    {
      WHYSLOW_SCOPE("upload");
      CUDA_OK(cudaMemcpy(device, pageable.data(), bytes, cudaMemcpyHostToDevice));
      CUDA_OK(cudaMemcpyAsync(device2, pinned, bytes / 2, cudaMemcpyHostToDevice, stream));
    }
    {
      WHYSLOW_SCOPE("compute");
      whyslow_test::launch_scale(device, n, 2.0f, stream);
      whyslow_test::launch_scale(device, n, 0.5f, stream);
      {
        WHYSLOW_SCOPE("inner");
        whyslow_test::launch_add_one(device, n, stream);
      }
    }
    {
      WHYSLOW_SCOPE("graph");
      CUDA_OK(cudaGraphLaunch(graph, stream));
    }
    {
      WHYSLOW_SCOPE("download");
      CUDA_OK(cudaStreamSynchronize(stream));
      CUDA_OK(cudaMemcpy(pageable.data(), device, bytes, cudaMemcpyDeviceToHost));
    }
    profiler.step();
  }
  profiler.stop();
  ASSERT_EQ(ready, 1);
  ASSERT_TRUE(profiler.gpu_activity());

  const Trace t = load_trace(path);
  EXPECT_EQ(testing::step_names(t), (std::vector<std::string>{"ProfilerStep#1", "ProfilerStep#2"}));

  // Kernel count and names: exactly what the two recorded steps launched.
  std::multiset<std::string> expected_kernels;
  for (int step = 0; step < 2; ++step) {
    expected_kernels.insert({whyslow_test::kScaleKernel, whyslow_test::kScaleKernel, whyslow_test::kAddOneKernel});
    for (const char* k : whyslow_test::kGraphKernels) expected_kernels.insert(k);
  }
  EXPECT_EQ(names_of_kind(t, EventKind::Kernel), expected_kernels);

  // Every kernel linked to its launch call and to the innermost scope around that call.
  const std::map<std::string, std::string> scope_of_kernel = {
      {whyslow_test::kScaleKernel, "compute"}, {whyslow_test::kAddOneKernel, "inner"},
      {whyslow_test::kGraphKernels[0], "graph"}, {whyslow_test::kGraphKernels[1], "graph"},
      {whyslow_test::kGraphKernels[2], "graph"}};
  std::map<int64_t, int> kernels_per_graph_launch;
  for (EventId e = 0; e < t.size(); ++e) {
    if (t.kind[e] != EventKind::Kernel) continue;
    const std::string name(t.name_of(e));
    EXPECT_EQ(scope_of(t, e), scope_of_kernel.at(name)) << name;
    const std::string launch = launch_of(t, e);
    if (scope_of_kernel.at(name) == "graph") {
      EXPECT_EQ(launch, "cudaGraphLaunch") << name;
      ++kernels_per_graph_launch[t.correlation[e]];
    } else {
      EXPECT_EQ(launch.rfind("cudaLaunchKernel", 0), 0u) << name << " launched by '" << launch << "'";
    }
    ASSERT_NE(t.launch_link[e], kNoEvent);
    EXPECT_EQ(t.correlation[t.launch_link[e]], t.correlation[e]);
    EXPECT_EQ(t.external_id[t.launch_link[e]], t.external_id[e]);
    EXPECT_GE(t.start_ns[e], t.start_ns[t.launch_link[e]]) << "a kernel cannot start before its launch";
  }
  // Graph launches expanded: each cudaGraphLaunch shows its three kernels.
  EXPECT_EQ(kernels_per_graph_launch.size(), 2u);
  for (const auto& [correlation, kernels] : kernels_per_graph_launch) EXPECT_EQ(kernels, 3) << correlation;
  EXPECT_NE(testing::read_text(path).size(), 0u);

  // Copies and memsets: bytes per launch call as requested, names saying pageable or pinned.
  std::map<std::string, std::multiset<uint64_t>> copies;  // name → bytes per launch
  std::map<EventId, int64_t> bytes_per_call;
  for (EventId e = 0; e < t.size(); ++e) {
    if (t.kind[e] != EventKind::Memcpy && t.kind[e] != EventKind::Memset) continue;
    ASSERT_NE(t.launch_link[e], kNoEvent) << t.name_of(e);
    bytes_per_call[t.launch_link[e]] += t.gpu_detail[t.detail[e]].bytes;
    const std::string scope = scope_of(t, e);
    const char* expected = t.kind[e] == EventKind::Memset                           ? "fill"
                           : t.name_of(e).find("HtoD") != std::string_view::npos ? "upload"
                                                                                 : "download";
    EXPECT_EQ(scope, expected) << t.name_of(e);
  }
  for (const auto& [call, total] : bytes_per_call) {
    std::string kind;
    for (EventId e = 0; e < t.size(); ++e)
      if (t.launch_link[e] == call && (t.kind[e] == EventKind::Memcpy || t.kind[e] == EventKind::Memset))
        kind = t.name_of(e);
    copies[kind].insert(static_cast<uint64_t>(total));
  }
  EXPECT_EQ(copies["Memcpy HtoD (Pageable -> Device)"], (std::multiset<uint64_t>{bytes, bytes}));
  EXPECT_EQ(copies["Memcpy HtoD (Pinned -> Device)"], (std::multiset<uint64_t>{bytes / 2, bytes / 2}));
  EXPECT_EQ(copies["Memcpy DtoH (Device -> Pageable)"], (std::multiset<uint64_t>{bytes, bytes}));
  EXPECT_EQ(copies["Memset (Device)"], (std::multiset<uint64_t>{memset_bytes, memset_bytes}));

  // Synchronization records, linked to the call that waited and to its scope.
  size_t stream_syncs = 0;
  for (EventId e = 0; e < t.size(); ++e)
    if (t.kind[e] == EventKind::Sync && launch_of(t, e) == "cudaStreamSynchronize") {
      ++stream_syncs;
      EXPECT_EQ(t.name_of(e), "Stream Sync");
      EXPECT_EQ(scope_of(t, e), "download");
    }
  EXPECT_EQ(stream_syncs, 2u);

  // Each scope mirrored on the GPU lane, with its CPU twin's External id.
  const std::multiset<std::string> mirrored = names_of_kind(t, EventKind::GpuUserAnnotation);
  for (const char* scope : {"fill", "upload", "compute", "inner", "graph", "download"})
    EXPECT_GE(mirrored.count(scope), 2u) << scope;

  // Launch flows all pair up; device properties are there.
  EXPECT_GT(t.flows.starts, 0u);
  EXPECT_EQ(t.flows.unmatched_starts, 0u);
  EXPECT_EQ(t.flows.unmatched_finishes, 0u);
  ASSERT_FALSE(t.devices.empty());
  EXPECT_GT(t.devices[0].num_sms, 0);
  EXPECT_FALSE(t.devices[0].name.empty());

  // whyslow explain reads it like a torch trace.
  const Facts facts = analyze(t);
  ASSERT_EQ(facts.steps.size(), 2u);
  for (const StepFacts& s : facts.steps) {
    EXPECT_EQ(s.kernels, 6u) << s.name;
    EXPECT_EQ(s.memcpys, 3u) << s.name;
    EXPECT_EQ(s.memsets, 1u) << s.name;
    EXPECT_GT(s.gpu_busy_ns, 0) << s.name;
  }

  cudaGraphExecDestroy(graph);
  cudaStreamDestroy(stream);
  cudaFreeHost(pinned);
  cudaFree(device);
  cudaFree(device2);
}

TEST_F(ProfilerGpu, ScopesOnTwoThreadsOwnTheKernelsTheyLaunch) {
  constexpr int n = 1 << 16, launches = 5;
  ScratchDir dir;
  Profiler profiler;
  profiler.start();
  std::vector<std::thread> threads;
  for (const char* scope : {"thread_a", "thread_b"}) {
    threads.emplace_back([scope] {
      float* data = nullptr;
      cudaStream_t stream = nullptr;
      cudaMalloc(&data, sizeof(float) * n);
      cudaStreamCreate(&stream);
      {
        const Scope s{std::string_view(scope)};
        for (int i = 0; i < launches; ++i) whyslow_test::launch_scale(data, n, 1.0f, stream);
      }
      cudaStreamSynchronize(stream);
      cudaStreamDestroy(stream);
      cudaFree(data);
    });
  }
  for (auto& th : threads) th.join();
  profiler.stop();
  profiler.export_chrome_trace(dir.file("threads.json"));
  const Trace t = load_trace(dir.file("threads.json"));
  std::map<std::string, std::set<int64_t>> streams_of_scope;
  size_t kernels = 0;
  for (EventId e = 0; e < t.size(); ++e) {
    if (t.kind[e] != EventKind::Kernel) continue;
    ++kernels;
    const std::string scope = scope_of(t, e);
    ASSERT_TRUE(scope == "thread_a" || scope == "thread_b") << scope;
    // The launch ran on the scope's own thread.
    EXPECT_EQ(t.track[t.launch_link[e]], t.track[t.op_link[e]]);
    streams_of_scope[scope].insert(t.tracks[t.track[e]].stream);
  }
  EXPECT_EQ(kernels, 2u * launches);
  ASSERT_EQ(streams_of_scope.size(), 2u);
  EXPECT_EQ(streams_of_scope["thread_a"].size(), 1u);
  EXPECT_NE(streams_of_scope["thread_a"], streams_of_scope["thread_b"]);
}

TEST_F(ProfilerGpu, GpuOffRecordsNoGpuActivity) {
  ScratchDir dir;
  float* data = nullptr;
  CUDA_OK(cudaMalloc(&data, 1024 * sizeof(float)));
  Profiler profiler({.gpu = false});
  profiler.start();
  {
    WHYSLOW_SCOPE("cpu_side");
    whyslow_test::launch_scale(data, 1024, 2.0f, nullptr);
    CUDA_OK(cudaDeviceSynchronize());
  }
  profiler.stop();
  profiler.export_chrome_trace(dir.file("off.json"));
  const Trace t = load_trace(dir.file("off.json"));
  EXPECT_FALSE(profiler.gpu_activity());
  EXPECT_TRUE(names_of_kind(t, EventKind::Kernel).empty());
  EXPECT_EQ(testing::names_of(t, EventKind::UserAnnotation), std::vector<std::string>{"cpu_side"});
  cudaFree(data);
}

}  // namespace
}  // namespace whyslow
