// The name predicates on the names that real traces hold: the HIP calls found in the ROCm traces
// of the public corpus (TraceLens mi300, HTA mi250: hipLaunchKernel, hipExtModuleLaunchKernel,
// hipModuleLaunchKernel, hipExtLaunchKernel, hipMemcpyAsync, hipMemcpyWithStream, hipMemsetAsync,
// hipDeviceSynchronize, hipStreamWaitEvent, hipGetDevicePropertiesR0600, …), their CUDA twins, and
// MTIA's runtime names (HTA's MTIA traces). Launches are found by correlation, not by name.
#include <gtest/gtest.h>

#include "analysis/core/event_names.hpp"

namespace whyslow {
namespace {

TEST(EventNames, SyncsOnEveryRuntime) {
  for (const char* n : {"cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize", "cuCtxSynchronize",
                        "hipDeviceSynchronize", "hipStreamSynchronize", "hipEventSynchronize", "synchronizeStream",
                        "synchronizeDevice", "synchronizeEvent"})
    EXPECT_TRUE(is_sync_call(n)) << n;
  // A stream waiting on an event does not block the host; MTIA's device-side record is not a host call.
  for (const char* n : {"cudaStreamWaitEvent", "hipStreamWaitEvent", "synchronize", "recordEvent", "hipLaunchKernel"})
    EXPECT_FALSE(is_sync_call(n)) << n;
}

TEST(EventNames, BlockingCopies) {
  // hipMemcpyWithStream returns when the copy is done (TraceLens mi300 traces: the input copy).
  for (const char* n : {"cudaMemcpy", "hipMemcpy", "hipMemcpyWithStream", "cuMemcpyDtoH_v2"})
    EXPECT_TRUE(is_blocking_copy_call(n)) << n;
  for (const char* n : {"cudaMemcpyAsync", "hipMemcpyAsync", "hipMemsetAsync"}) EXPECT_FALSE(is_blocking_copy_call(n)) << n;
}

TEST(EventNames, AllocatorOnEveryRuntime) {
  for (const char* n : {"cudaMalloc", "cudaFree", "cudaMallocAsync", "cudaFreeAsync", "cudaHostAlloc", "cudaMallocHost",
                        "cudaFreeHost", "cuMemAlloc_v2", "cuMemFree_v2", "cuMemCreate", "cuMemMap", "hipMalloc",
                        "hipFree", "hipMallocAsync", "hipFreeAsync", "hipMallocManaged", "hipHostMalloc", "hipHostAlloc",
                        "hipHostFree", "hipExtMallocWithFlags", "hipMemAllocHost", "hipMemCreate", "hipMemMap",
                        "hipMemUnmap", "hipMemRelease", "hipMemAddressReserve", "hipMemAddressFree", "hipMemSetAccess"})
    EXPECT_TRUE(is_allocator_call(n)) << n;
  for (const char* n : {"hipMemcpyAsync", "hipMemsetAsync", "hipMemGetInfo", "cuMemcpyHtoD_v2", "cudaMemGetInfo"})
    EXPECT_FALSE(is_allocator_call(n)) << n;
}

TEST(EventNames, GraphLaunchAndStartUpNames) {
  for (const char* n : {"cudaGraphLaunch", "hipGraphLaunch", "cuGraphLaunch"}) EXPECT_TRUE(is_graph_launch(n)) << n;
  EXPECT_FALSE(is_graph_launch("hipLaunchKernel"));
  for (const char* n : {"cudaStreamCreateWithFlags", "hipStreamCreateWithPriority", "hipStreamDestroy", "hipEventCreate"})
    EXPECT_TRUE(is_stream_or_event_creation(n)) << n;
  for (const char* n : {"cudaGetDeviceProperties_v2", "hipGetDevicePropertiesR0600", "hipFuncSetAttribute",
                        "hipOccupancyMaxActiveBlocksPerMultiprocessor", "hipModuleLoadData", "cuModuleGetFunction"})
    EXPECT_TRUE(is_library_setup_call(n)) << n;
  for (const char* n : {"cudaLaunchKernel", "hipExtModuleLaunchKernel", "cuLaunchKernel"})
    EXPECT_TRUE(is_cuda_or_hip_api(n)) << n;
  for (const char* n : {"runFunction - job_prep_and_submit_for_execution", "synchronizeStream", "aten::mm"})
    EXPECT_FALSE(is_cuda_or_hip_api(n)) << n;
}

TEST(EventNames, ConvolutionKernelsByTheirWordNotInsideConvert) {
  for (const char* n : {"void cudnn::cnn::implicit_convolve_sgemm<float, float, 1024, 5, 5, 3, 3, 3, 1, false, false, true>",
                        "cutlass::conv::kernel::ImplicitGemmConvolution<...>", "void at::native::conv_depthwise2d_forward_kernel<1, float, int>",
                        "kernel_grouped_conv_fwd_xdl_cshuffle", "MIOpenConvUni", "aten::_convolution", "CONV2D_FWD"})
    EXPECT_TRUE(says_convolution(n)) << n;
  // torch's sparse COO→CSR index kernel, FP8 conversions, Triton's fused converts: not convolutions.
  for (const char* n : {"void at::native::(anonymous namespace)::convert_indices_from_coo_to_csr_cuda_kernel<int, long>",
                        "fp8_conversion_kernel", "Converter", "triton_poi_fused_convert_element_type_0", "gemm", "cov"})
    EXPECT_FALSE(says_convolution(n)) << n;
}

}  // namespace
}  // namespace whyslow
