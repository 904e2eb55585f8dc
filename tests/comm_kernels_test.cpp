// Collective kernels of the libraries that bypass NCCL (PyTorch symmetric memory, vLLM / SGLang
// custom all-reduce, TensorRT-LLM, DeepEP), matched by exact function name, and the compute
// kernels that must not match. Names are spelled as Kineto records them (demangled).
#include <gtest/gtest.h>

#include "analysis/comm/comm_names.hpp"

namespace whyslow {
namespace {

CollectiveKind kind(std::string_view kernel) { return collective_kind("", kernel); }

TEST(CommKernels, PytorchSymmetricMemory) {
  // 73 of these in TraceLens's B200 vLLM trace.
  const char* multimem =
      "void (anonymous namespace)::multimem_all_reduce_kernel<c10::BFloat16, 16>(c10::BFloat16*, unsigned long, "
      "unsigned int**, unsigned long, unsigned long)";
  EXPECT_TRUE(is_comm_kernel(multimem));
  EXPECT_EQ(kind(multimem), CollectiveKind::AllReduce);
  EXPECT_EQ(kind("void (anonymous namespace)::multimem_all_gather_kernel<16>(char*, char*, unsigned long, "
                 "unsigned int**, unsigned long, unsigned long)"),
            CollectiveKind::AllGather);
  EXPECT_EQ(kind("void (anonymous namespace)::one_shot_all_reduce_kernel<float, 16, 8>(float**, float*, float*, "
                 "unsigned long, unsigned long, unsigned int**, unsigned long, unsigned long)"),
            CollectiveKind::AllReduce);
  // reduce_scatter_out runs the two-shot kernel with its reduce_scatter template argument true.
  EXPECT_EQ(kind("void (anonymous namespace)::two_shot_all_reduce_kernel<c10::BFloat16, 16, 8, false, false>("
                 "c10::BFloat16**, c10::BFloat16*, unsigned long, unsigned long, unsigned int**, unsigned long, "
                 "unsigned long, unsigned long)"),
            CollectiveKind::AllReduce);
  EXPECT_EQ(kind("void (anonymous namespace)::two_shot_all_reduce_kernel<c10::BFloat16, 16, 8, true, false>("
                 "c10::BFloat16**, c10::BFloat16*, unsigned long, unsigned long, unsigned int**, unsigned long, "
                 "unsigned long, unsigned long)"),
            CollectiveKind::ReduceScatter);
  EXPECT_TRUE(is_comm_kernel("void (anonymous namespace)::two_shot_all_reduce_kernel_inplace<float, 16, 4>(float**, "
                             "unsigned long, unsigned long, unsigned int**, unsigned long, unsigned long)"));
}

TEST(CommKernels, CustomAllReduces) {
  const char* vllm =
      "void vllm::cross_device_reduce_1stage<__nv_bfloat16, 8>(vllm::RankData*, vllm::RankSignals, vllm::Signal*, "
      "__nv_bfloat16*, int, int)";
  EXPECT_TRUE(is_comm_kernel(vllm));
  EXPECT_EQ(kind(vllm), CollectiveKind::AllReduce);
  EXPECT_TRUE(is_comm_kernel("void vllm::cross_device_reduce_2stage<__half, 4>(vllm::RankData*, vllm::RankSignals, "
                             "vllm::Signal*, __half*, int, int)"));
  EXPECT_TRUE(is_comm_kernel("void sglang::cross_device_reduce_1stage<__nv_bfloat16, 8>(sglang::RankData*, "
                             "sglang::RankSignals, sglang::Signal*, __nv_bfloat16*, int, int)"));
  EXPECT_EQ(kind("void tensorrt_llm::kernels::twoShotAllReduceKernel<__nv_bfloat16, 8>("
                 "tensorrt_llm::kernels::AllReduceParams)"),
            CollectiveKind::AllReduce);
}

TEST(CommKernels, DeepEpDispatchAndCombineAreAllToAll) {
  EXPECT_EQ(kind("void deep_ep::intranode::dispatch<8, 768, 6144>(int4*, float*, int*, long*, float*, int*, int*, "
                 "int*, int4 const*, float const*, long const*, float const*, bool const*, int const*, int, int, "
                 "int, int, int, int, int, void**, int, int, int)"),
            CollectiveKind::AllToAll);
  EXPECT_EQ(kind("void deep_ep::internode_ll::combine<false, 7168>(void*, void*, int*, void*, void const*, "
                 "long const*, float const*, int const*, long const*, int*, int*, int, int, int, int, int, int, "
                 "int, int, int, bool)"),
            CollectiveKind::AllToAll);
  // The 2026 legacy/ namespace keeps the same kernels.
  EXPECT_EQ(kind("void deep_ep::legacy::internode::notify_dispatch<true, 8>(int const*, int*, int, int const*, "
                 "int*, int, int, int const*, int*, int*, int, int, int, int, int, int, void*, int*, int, void**, "
                 "int**, int, nvshmem_team_t)"),
            CollectiveKind::AllToAll);
  EXPECT_EQ(kind("void deep_ep::elastic::pp_send_impl<8, 1000000000l>(ncclDevComm, ncclWindow_vidmem*)"),
            CollectiveKind::SendRecv);
  EXPECT_EQ(kind("void deep_ep::intranode::barrier<8>(int**, int)"), CollectiveKind::Other);
  EXPECT_TRUE(is_comm_kernel("void deep_ep::intranode::barrier<8>(int**, int)"));
  // c10d's own collective name still comes first.
  EXPECT_EQ(collective_kind("allreduce", "void deep_ep::intranode::combine<8, 768, 4096>(int4*)"),
            CollectiveKind::AllReduce);
}

// DeepEP by its functions, whatever the namespace above them: DeepSeek's published profiles
// (deepseek-ai/profile-data's train.json, H800, EP64) name its kernels dpsk::ep::…, and its decode
// profile the low-latency kernels dispatch_ll / combine_ll (deepseek-ai/DeepEP#348).
TEST(CommKernels, DeepEpUnderDeepSeeksNamespace) {
  EXPECT_EQ(kind("void dpsk::ep::internode::dispatch<false, 8, true, 8>(int4*, float*, long*, float*, "
                 "dpsk::ep::internode::SourceMeta*, int4 const*, float const*, long const*, float const*, int*, int*)"),
            CollectiveKind::AllToAll);
  EXPECT_EQ(kind("void dpsk::ep::internode::combine<false, 8, __nv_bfloat16, 8, 2, 16, 24>(int4*, float*, bool const*)"),
            CollectiveKind::AllToAll);
  EXPECT_EQ(kind("void dpsk::ep::internode::notify_dispatch<false, 8>(int const*, long*, int, int const*, int*)"),
            CollectiveKind::AllToAll);
  EXPECT_EQ(kind("void dpsk::ep::internode::cached_notify<false>(int, int, int, int, int*, int, int, int const*)"),
            CollectiveKind::Other);
  EXPECT_TRUE(is_comm_kernel("void dpsk::ep::internode::cached_notify<false>(int, int, int, int, int*)"));
  EXPECT_EQ(kind("void dpsk::ep::internode::dispatch_ll<false, 8>(void*, float*, int*)"), CollectiveKind::AllToAll);
  EXPECT_EQ(kind("void dpsk::ep::internode::combine_ll<false, 8>(void*, void*, int*)"), CollectiveKind::AllToAll);
  // The layout count stays local work under any namespace; a namespace that only ends in "ep" is not DeepEP's.
  EXPECT_FALSE(is_comm_kernel("void dpsk::ep::cuda::get_dispatch_layout<256, 32, 8>(long const*, int*, int*, int*, bool*)"));
  EXPECT_FALSE(is_comm_kernel("void sleep::internode::dispatch<8>(int*)"));
  EXPECT_FALSE(is_comm_kernel("void my::step::intranode::combine<8>(int*)"));
  EXPECT_FALSE(is_comm_kernel("void intranode::dispatch<8>(int*)"));
}

TEST(CommKernels, ComputeKernelsNamedLikeCollectivesAreCompute) {
  for (const char* name : {
           // DeepEP's local work: the layout count, buffer cleaning, epilogues.
           "void deep_ep::layout::get_dispatch_layout<256, 32, 8>(long const*, int*, int*, int*, bool*, int, int, "
           "int, int, int)",
           "void deep_ep::internode_ll::clean_low_latency_buffer<32>(int*, int, int*, int)",
           "void deep_ep::elastic::combine_reduce_epilogue_impl<8>(nv_bfloat16*)",
           // Reductions and GEMMs with "reduce" in them.
           "void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::func_wrapper_t<float, "
           "at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, "
           "unsigned int, float, 4, 4> >(at::native::ReduceOp<float, at::native::func_wrapper_t<float, "
           "at::native::sum_functor<float, float, float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, "
           "unsigned int, float, 4, 4>)",
           "void cutlass::Kernel2<cutlass_80_wmma_tensorop_bf16_s161616gemm_bf16_16x16_128x2_tn_align8>(Params)",
           "void splitKreduce_kernel<32, 16, int, float, float, float, float, true, false, false>(cublasSplitKParams<float>, "
           "float const*, float const*, float*, float const*, float const*, float const*, float const*, float*, void*, "
           "long, float*, int*)",
           "void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, false, false>(float*, float const*, "
           "int, int, int, bool const*, int, bool)",
           // A name that only contains a library kernel's name is not it.
           "void my_ops::cross_device_reduce_1stage<float, 2>(float*)",
           "void (anonymous namespace)::one_shot_all_reduce_kernel_fused_rmsnorm<float>(float*)",
       })
    EXPECT_FALSE(is_comm_kernel(name)) << name;
}

TEST(CommKernels, MtiaCollectiveAnnotationsAreTheLibrarys) {
  // HTA's MTIA traces annotate each collective on the host as hccl:<collective>.
  EXPECT_TRUE(is_distributed_library_frame("hccl:allgather"));
  EXPECT_TRUE(is_distributed_library_frame("hccl:all_to_all"));
}

}  // namespace
}  // namespace whyslow
