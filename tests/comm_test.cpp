// Communication in one trace (issue 14): NCCL/RCCL kernels split from compute, exposed
// communication, the collectives' sizes from record_param_comms, bus bandwidth against the link,
// and the findings that follow (gpu_bound withheld, exposed_comm, comm_wait; the distributed
// library's own syncs kept from host_sync_in_loop). Hand-built traces whose numbers are read off
// the JSON below.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "analysis/comm/comm_names.hpp"
#include "analysis/comm/link_peaks.hpp"
#include "explain/finding.hpp"
#include "loader_test_util.hpp"
#include "test_support.hpp"

namespace whyslow {
namespace {

using testing::find;


std::string x(const std::string& name, const std::string& cat, int64_t ts, int64_t dur, const std::string& pid,
              const std::string& tid, const std::string& args = "{}") {
  return "{\"ph\":\"X\",\"name\":\"" + name + "\",\"cat\":\"" + cat + "\",\"ts\":" + std::to_string(ts) +
         ",\"dur\":" + std::to_string(dur) + ",\"pid\":" + pid + ",\"tid\":" + tid + ",\"args\":" + args + "}";
}

std::string trace_json(const std::vector<std::string>& events, const std::string& device = "NVIDIA H200",
                       const std::string& extra = "") {
  std::string out = "{\"deviceProperties\":[{\"id\":0,\"name\":\"" + device + "\"}]," + extra + "\"traceEvents\":[";
  for (size_t i = 0; i < events.size(); ++i) out += (i ? "," : "") + events[i];
  return out + "]}";
}

testing::Explained explain_text(const std::string& json) {
  testing::TempDir dir;
  return testing::explain_file(dir.write("t.json", json));
}

// Times in µs. One step [0, 1000): a compute kernel [100, 200), an all-reduce [150, 450) on its own
// stream, a memcpy [500, 520). compute = 100 + 20, comm = 300, exposed = 450 − 200 = 250.
std::vector<std::string> one_step(int64_t allreduce_us = 300, const std::string& comm_args = "") {
  const std::string param_args = comm_args.empty() ? "{\"External id\":7}" : comm_args;
  return {
      x("ProfilerStep#1", "user_annotation", 0, 1000, "1", "1"),
      x("c10d::allreduce_", "cpu_op", 10, 30, "1", "1", "{\"External id\":6}"),
      x("record_param_comms", "cpu_op", 11, 28, "1", "1", param_args),
      x("cudaLaunchKernel", "cuda_runtime", 12, 5, "1", "1", "{\"correlation\":2}"),
      x("cudaLaunchKernel", "cuda_runtime", 50, 5, "1", "1", "{\"correlation\":1}"),
      x("cudaMemcpyAsync", "cuda_runtime", 60, 5, "1", "1", "{\"correlation\":3}"),
      x("sgemm", "kernel", 100, 100, "0", "7", "{\"correlation\":1,\"device\":0,\"stream\":7}"),
      x("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)", "kernel", 150, allreduce_us, "0", "9",
        "{\"correlation\":2,\"device\":0,\"stream\":9}"),
      x("Memcpy HtoD (Pinned -> Device)", "gpu_memcpy", 500, 20, "0", "7", "{\"correlation\":3,\"device\":0,\"stream\":7}"),
  };
}

TEST(Comm, KernelNames) {
  EXPECT_TRUE(is_comm_kernel("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, unsigned long, ncclWork*)"));
  EXPECT_TRUE(is_comm_kernel("ncclDevKernel_Generic(ncclDevKernelArgsStorage<4096ul>)"));  // RCCL on MI300
  EXPECT_TRUE(is_comm_kernel("rcclGenericKernel"));
  EXPECT_FALSE(is_comm_kernel("nccl_like_gemm"));
  EXPECT_FALSE(is_comm_kernel("void at::native::vectorized_elementwise_kernel"));
  EXPECT_EQ(collective_kind("_allgather_base", ""), CollectiveKind::AllGather);
  EXPECT_EQ(collective_kind("reduce_scatter_tensor_coalesced", ""), CollectiveKind::ReduceScatter);
  EXPECT_EQ(collective_kind("", "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t"), CollectiveKind::SendRecv);
  EXPECT_EQ(collective_kind("", "ncclDevKernel_Generic"), CollectiveKind::Other);
  // nccl-tests doc/PERFORMANCE.md: all-reduce 2(n−1)/n, all-gather (n−1)/n, broadcast 1.
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveKind::AllReduce, 8), 1.75);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveKind::AllGather, 4), 0.75);
  EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveKind::Broadcast, 8), 1.0);
  EXPECT_EQ(bus_bandwidth_factor(CollectiveKind::Other, 8), 0.0);
  ASSERT_NE(link_peak("NVIDIA H200"), nullptr);
  EXPECT_DOUBLE_EQ(link_peak("nvidia h200")->bytes_per_s, 450e9);
  EXPECT_EQ(link_peak("NVIDIA H100 PCIe"), nullptr);  // peer link depends on the host: not guessed
}

TEST(Comm, LinkPeaksOfTheExportParts) {
  // Datasheet totals of both directions, halved: A800 and H800 400 GB/s, GH200 900 GB/s.
  ASSERT_NE(link_peak("NVIDIA H800"), nullptr);
  EXPECT_DOUBLE_EQ(link_peak("NVIDIA H800")->bytes_per_s, 200e9);
  EXPECT_DOUBLE_EQ(link_peak("NVIDIA A800-SXM4-80GB")->bytes_per_s, 200e9);
  EXPECT_DOUBLE_EQ(link_peak("NVIDIA GH200 144G HBM3e")->bytes_per_s, 450e9);
  EXPECT_EQ(link_peak("NVIDIA H800 PCIe"), nullptr);  // NVLink only through an optional bridge
  EXPECT_EQ(link_peak("NVIDIA H20"), nullptr);        // no datasheet to read it from
}

TEST(Comm, StepSplitsComputeCommAndExposed) {
  const auto e = explain_text(trace_json(one_step()));
  ASSERT_EQ(e.facts.steps.size(), 1u);
  const StepFacts& s = e.facts.steps[0];
  EXPECT_EQ(s.compute_ns, 120'000);
  EXPECT_EQ(s.comm_ns, 300'000);
  EXPECT_EQ(s.exposed_comm_ns, 250'000);
  EXPECT_EQ(s.gpu_busy_ns, s.compute_ns + s.exposed_comm_ns);
  EXPECT_EQ(e.facts.window.comm_ns, 300'000);
  EXPECT_EQ(e.facts.window.exposed_comm_ns, 250'000);
  ASSERT_EQ(e.facts.comm.calls.size(), 1u);
  EXPECT_EQ(e.facts.comm.calls[0].exposed_ns, 250'000);
  EXPECT_EQ(e.facts.comm.calls[0].step, 0);
}

TEST(Comm, CollectiveParametersAndBusBandwidth) {
  // 8 ranks all-reduce 4 Mi floats = 16 MiB: S = 16 MiB, busBw = S × 1.75 / t; on an H200 (450 GB/s
  // per direction) the link needs 16 MiB × 1.75 / 450e9 s = 65.24 µs.
  const std::string args = "{\"External id\":7,\"Collective name\":\"allreduce\",\"dtype\":\"Float\",\"In msg nelems\":4194304,"
                           "\"Out msg nelems\":4194304,\"Group size\":8,\"Process Group Name\":\"0\",\"Seq\":41}";
  const auto e = explain_text(trace_json(one_step(300, args)));
  ASSERT_EQ(e.facts.comm.calls.size(), 1u);
  const CollectiveCall& c = e.facts.comm.calls[0];
  EXPECT_NE(c.op, kNoEvent);
  EXPECT_EQ(c.kind, CollectiveKind::AllReduce);
  EXPECT_EQ(e.trace.names.view(c.group), "0");
  EXPECT_EQ(c.seq, 41);
  EXPECT_EQ(c.ranks, 8);
  EXPECT_EQ(c.bytes, 16 << 20);
  EXPECT_EQ(c.link_ns, static_cast<int64_t>((16 << 20) * 1.75 / 450e9 * 1e9));
  EXPECT_NEAR(bus_bytes_per_s(c, 300'000), (16 << 20) * 1.75 / 300e-6, 1);
  EXPECT_EQ(e.facts.comm.link, "NVLink 4");
}

TEST(Comm, WaitingInACollectiveIsNotGpuBound) {
  // Compute 120 µs of a 1000 µs step, comm 880 µs: busy 100 %, but not GPU-bound.
  const auto e = explain_text(trace_json(one_step(880)));
  EXPECT_EQ(find(e.findings, FindingId::gpu_bound), nullptr);
  const Finding* exposed = find(e.findings, FindingId::exposed_comm);
  ASSERT_NE(exposed, nullptr);
  EXPECT_EQ(exposed->severity, Severity::Critical);  // 810 µs of 1000: ≥ 40 %
  EXPECT_EQ(exposed->impact_ns, 810'000);  // 880 less the 50 µs beside the GEMM and the 20 µs memcpy
}

TEST(Comm, SlowCollectiveIsAWaitForAPeer) {
  // 16 MiB all-reduce needs 65 µs on the H200's link; taking 880 µs it waited ≈ 880 − (2 × 65 + 50).
  const std::string args = "{\"External id\":7,\"Collective name\":\"allreduce\",\"dtype\":\"Float\",\"In msg nelems\":4194304,"
                           "\"Out msg nelems\":4194304,\"Group size\":8}";
  const auto slow = explain_text(trace_json(one_step(880, args)));
  const Finding* wait = find(slow.findings, FindingId::comm_wait);
  ASSERT_NE(wait, nullptr);
  const int64_t needed = static_cast<int64_t>(static_cast<double>(slow.facts.comm.calls[0].link_ns) / 0.5) + 50'000;
  EXPECT_EQ(wait->impact_ns, std::min<int64_t>(880'000 - needed, 810'000));
  // The same collective at 150 µs is within its bytes' time plus latency: no wait.
  const auto fast = explain_text(trace_json(one_step(150, args)));
  EXPECT_EQ(find(fast.findings, FindingId::comm_wait), nullptr);
  // Without sizes there is nothing to hold the time against.
  const auto unsized = explain_text(trace_json(one_step(880)));
  EXPECT_EQ(find(unsized.findings, FindingId::comm_wait), nullptr);
}

TEST(Comm, DistributedInfoGivesTheRank) {
  const auto e = explain_text(trace_json(one_step(), "NVIDIA H200",
                                         "\"distributedInfo\":{\"backend\":\"nccl\",\"rank\":3,\"world_size\":8},"));
  EXPECT_EQ(e.trace.distributed.rank, 3);
  EXPECT_EQ(e.trace.distributed.world_size, 8);
  EXPECT_EQ(e.trace.distributed.backend, "nccl");
  EXPECT_EQ(e.facts.comm.calls[0].ranks, 8);  // no Group size: the world
}

// Four steps of 1000 µs, each with four 30 µs cudaEventSynchronize calls; `inside` names the frame
// around them.
std::vector<std::string> syncing_steps(const std::string& inside) {
  std::vector<std::string> ev;
  for (int s = 0; s < 4; ++s) {
    const int64_t t0 = s * 1000;
    ev.push_back(x("ProfilerStep#" + std::to_string(s + 1), "user_annotation", t0, 1000, "1", "1"));
    ev.push_back(x(inside, "user_annotation", t0 + 10, 500, "1", "1"));
    for (int i = 0; i < 4; ++i) ev.push_back(x("cudaEventSynchronize", "cuda_runtime", t0 + 20 + 100 * i, 30, "1", "1"));
    ev.push_back(x("cudaLaunchKernel", "cuda_runtime", t0 + 600, 5, "1", "1",
                   "{\"correlation\":" + std::to_string(100 + s) + "}"));
    ev.push_back(x("k", "kernel", t0 + 610, 300, "0", "7",
                   "{\"correlation\":" + std::to_string(100 + s) + ",\"device\":0,\"stream\":7}"));
  }
  return ev;
}

TEST(Comm, DistributedLibrarySyncsAreNotTheUsers) {
  const auto user = explain_text(trace_json(syncing_steps("## training loop ##")));
  EXPECT_NE(find(user.findings, FindingId::host_sync_in_loop), nullptr);
  EXPECT_EQ(user.facts.syncs.library_calls, 0u);
  const auto ddp = explain_text(trace_json(syncing_steps("DistributedDataParallel.forward")));
  EXPECT_EQ(find(ddp.findings, FindingId::host_sync_in_loop), nullptr);
  EXPECT_EQ(ddp.facts.syncs.library_calls, 16u);
  EXPECT_EQ(ddp.facts.syncs.library_wait_ns, 16 * 30'000);
}

}  // namespace
}  // namespace whyslow
