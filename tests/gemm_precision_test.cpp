// GEMM precision and unit (analysis/core/gemm_precision.hpp): the name rules on real kernel names,
// every GEMM-looking kernel name of the fixtures, the name rules checked against record_shapes'
// dtypes, and the launching op's dtype where the name does not say.
#include "analysis/core/gemm_precision.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/core/op_inputs.hpp"
#include "loader_test_util.hpp"
#include "test_support.hpp"
#include "trace/load_trace.hpp"

namespace whyslow {
namespace {

struct NamedKernel {
  std::string_view name;
  GemmUnit unit;
};

// Real kernel names, each with the trace it came from ("fixtures/" under tests/fixtures, "public/"
// under ../shared/traces/public). Names longer than a line are cut after their library's words
// and types (what the rules read); the rest is tile and tuning parameters.
constexpr NamedKernel kRealNames[] = {
    // ---- FP32 on CUDA cores ----
    // fixtures/torch/mm_bias_4096_fp32.json.gz (aten::mm, float)
    {"sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize256x128x8_stage3_warpsize4x2x1_ffma_aligna4_alignc4_execute_"
     "kernel__5x_cublas",
     GemmUnit::Fp32Simt},
    // fixtures/public/resnet50_v100_steps5_6.json.gz
    {"volta_sgemm_64x64_nn", GemmUnit::Fp32Simt},
    // public/facebookresearch__HolisticTraceAnalysis/tests__data__critical_path__cuda_event_sync_multi_stream__…
    {"ampere_sgemm_128x64_nn", GemmUnit::Fp32Simt},
    // fixtures/code_groups/mlp_train_blocks.json.gz
    {"void cutlass::Kernel2<cutlass_80_simt_sgemm_256x128_8x4_nn_align1>(cutlass_80_simt_sgemm_256x128_8x4_nn_"
     "align1::Params)",
     GemmUnit::Fp32Simt},
    // fixtures/code_groups/gpt_rotary_train.json.gz
    {"void sgemm_largek_lds64<true, false, 5, 5, 4, 4, 4, 34>(float*, float const*, float const*, int, int",
     GemmUnit::Fp32Simt},
    // public/facebookresearch__HolisticTraceAnalysis/tests__data__trace_diff__test__test.json.gz
    {"void gemv2T_kernel_val<int, int, float, float, float, float, 128, 16, 4, 4, false, false, cublasGemvParams<"
     "cublasGemvTensorStridedBatched<float const>",
     GemmUnit::Fp32Simt},
    // fixtures/code_groups/holdout/holdout_bert_infer.json.gz
    {"void gemmSN_TN_kernel<float, 128, 16, 2, 4, 8, 9, false, cublasGemvTensorStridedBatched<float const>",
     GemmUnit::Fp32Simt},
    // fixtures/blocks/llama_generate_eager.json.gz (aten::bmm, float)
    {"void gemmk1_kernel<int, float, 256, 5, true, false, false, false, cublasGemvTensorStridedBatched<float const>",
     GemmUnit::Fp32Simt},
    // public/facebookresearch__HolisticTraceAnalysis/tests__data__trace_diff__test__test.json.gz
    {"void magma_sgemmEx_kernel<float, float, float, false, false, 6, 3, 5, 3, 3>(int, int, int, Tensor, int",
     GemmUnit::Fp32Simt},
    // public/facebookresearch__HolisticTraceAnalysis/tests__data__trace_diff__control__control.json.gz
    {"std::enable_if<!(false), void>::type internal::gemvx::kernel<int, int, float, float, float, float, false, "
     "true, true, false, 7, cublasGemvParams<",
     GemmUnit::Fp32Simt},

    // ---- TF32 tensor cores ----
    // public/facebookresearch__HolisticTraceAnalysis/tests__data__nccl_parser_config__nccl_data.json.gz
    {"void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_64x64_16x6_nt_align4>(cutlass_80_tensorop_s1688gemm_64x64_"
     "16x6_nt_align4::Params)",
     GemmUnit::Tf32TensorCore},
    // fixtures/roofline/mm_bias_4096_tf32.json.gz (aten::mm, float)
    {"sm90_xmma_gemm_f32f32_tf32f32_f32_nn_n_tilesize128x256x32_warpgroupsize2x1x1_execute_segment_k_off_kernel__"
     "5x_cublas",
     GemmUnit::Tf32TensorCore},

    // ---- bf16 tensor cores ----
    // fixtures/public/h100_falconsai_vit.json.gz (aten::addmm, c10::BFloat16)
    {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__"
     "5x_cublas",
     GemmUnit::Bf16TensorCore},
    // fixtures/public/h100_falconsai_vit.json.gz
    {"void cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x6_tn_align8>(cutlass_80_tensorop_"
     "bf16_s16816gemm_relu_bf16_64x64_64x6_tn_align8::Params)",
     GemmUnit::Bf16TensorCore},
    // fixtures/blocks/llama_generate_static.json.gz (aten::bmm, c10::BFloat16)
    {"void cutlass::Kernel2<cutlass_75_wmma_tensorop_bf16_s161616gemm_bf16_32x32_32x1_nn_align1>(cutlass_75_wmma_"
     "tensorop_bf16_s161616gemm_bf16_32x32_32x1_nn_align1::Params)",
     GemmUnit::Bf16TensorCore},
    // public/AMD-AGI__TraceLens/tests__traces__h100__facebook_timesformer-base-finetuned-k400__1016002.json.gz
    {"void cutlass::Kernel2<cutlass_75_tensorop_bf16_s1688gemm_bf16_128x128_nn_align1>(cutlass_75_tensorop_bf16_"
     "s1688gemm_bf16_128x128_nn_align1::Params)",
     GemmUnit::Bf16TensorCore},
    // fixtures/compile/control_a.json.gz; fixtures/torch/mm_bias_4096_bf16.json.gz (aten::mm, c10::BFloat16)
    {"nvjet_sm90_tst_256x128_64x4_1x2_h_bz_coopA_NNT", GemmUnit::Bf16TensorCore},
    // public/AMD-AGI__TraceLens/tests__traces__b200__eager_trace.json.gz (Blackwell: no sm in the name)
    {"nvjet_tst_144x128_64x6_2x1_v_bz_bias_TNN", GemmUnit::Bf16TensorCore},
    // public/AMD-AGI__TraceLens/tests__traces__inference__xdit_flux.1__capture_traces__capture_trace_rank_0.json.gz
    // (aten::mm, c10::BFloat16)
    {"Cijk_Alik_Bljk_BBS_BH_Bias_HA_S_SAV_UserArgs_MT128x64x128_MI16x16x1_SN_LDSB1_AFC1_AG0_AFEM1_AFEM1_ASEM1_CB0",
     GemmUnit::Bf16TensorCore},
    // public/AMD-AGI__TraceLens/tests__traces__mi300__google_owlv2-large-patch14-ensemble__1016001.json.gz
    // (aten::addmm, c10::BFloat16)
    {"Cijk_Ailk_Bljk_B_BS_BH_Bias_HA_S_SAV_UserArgs_MT16x16x32_MI16x16x1_SN_LDSB0_AFC1_AFEM1_AFEM1_ASEM1_CLR1",
     GemmUnit::Bf16TensorCore},

    // ---- fp16 tensor cores ----
    // fixtures/inference/holdout/holdout_gpt2_generate.json.gz (its split-K reduction is templated on __half)
    {"nvjet_sm90_hsh_64x8_64x16_4x1_v_bz_bias_NNT", GemmUnit::Fp16TensorCore},
    // fixtures/inference/holdout/holdout_gpt2_generate.json.gz
    {"void cutlass::Kernel2<cutlass_75_wmma_tensorop_f16_s161616gemm_f16_32x32_128x1_tn_align1>(cutlass_75_wmma_"
     "tensorop_f16_s161616gemm_f16_32x32_128x1_tn_align1::Params)",
     GemmUnit::Fp16TensorCore},
    // public/facebookresearch__HolisticTraceAnalysis/tests__data__trace_file_list__inference_rank_1.json.gz
    {"void cutlass::Kernel<cutlass_70_wmma_tensorop_f16_s161616gemm_f16_32x32_64x2_tn_align8>(cutlass_70_wmma_"
     "tensorop_f16_s161616gemm_f16_32x32_64x2_tn_align8::Params)",
     GemmUnit::Fp16TensorCore},

    // ---- FP8 tensor cores ----
    // public/AMD-AGI__TraceLens/tests__traces__b200__eager_trace.json.gz (vllm::moe_forward: e2m1 weights, e4m3
    // activations, e4m3 out)
    {"bmm_MxE4m3_MxE2m1MxE4m3_Fp32_t128x16x256u2_s3_et128x16_m128x16x32_cga1x1x1_16dp256b_rM_TN_transOut_"
     "schedP2x1x2x3_biasM_bN_tma_tmaOpt_clmp_swiGlu_dynBatch_sm100f",
     GemmUnit::Fp8TensorCore},
    // public/AMD-AGI__TraceLens/tests__traces__b200__eager_trace.json.gz (the same, bf16 out)
    {"bmm_Bfloat16_MxE2m1MxE4m3_Fp32_t128x16x256u2_s3_et128x16_m128x16x32_cga1x1x1_16dp256b_rM_TN_transOut_"
     "schedP2x1x2x3_biasM_bN_tmaOpt_clmp_dynBatch_sm100f",
     GemmUnit::Fp8TensorCore},

    // ---- FP32 on AMD matrix cores ----
    // public/AMD-AGI__TraceLens/tests__traces__mi300__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz (aten::bmm, float)
    {"Cijk_Ailk_Bljk_S_B_Bias_HA_S_SAV_UserArgs_MT16x16x128_MI16x16x1_SN_LDSB1_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0",
     GemmUnit::Fp32MatrixCore},
    // public/facebookresearch__HolisticTraceAnalysis/tests__data__amd_trace__mi250_minitoy_train_ROCm6_2_kineto
    // .json.gz (aten::mm, float)
    {"Cijk_Ailk_Bjlk_SB_Bias_AS_SAV_UserArgs_MT64x16x16_MI16x16x1_SN_LDSB0_AFC1_AFEM1_AFEM1_ASEM1_CLR1_CADS0_EPS0",
     GemmUnit::Fp32MatrixCore},

    // ---- fp16/bf16 data on CUDA cores ----
    // fixtures/blocks/llama_generate_eager.json.gz (aten::bmm, c10::BFloat16)
    {"std::enable_if<!(false), void>::type internal::gemvx::kernel<int, int, __nv_bfloat16, __nv_bfloat16, "
     "__nv_bfloat16, float, false, true, true, false, 6",
     GemmUnit::HalfSimt},
    // fixtures/blocks/llama_generate_eager.json.gz (aten::bmm, c10::BFloat16)
    {"void gemvNSP_kernel<__nv_bfloat16, __nv_bfloat16, __nv_bfloat16, float, 1, 32, 4, 1024, false, "
     "cublasGemvParamsEx<",
     GemmUnit::HalfSimt},
    // public/facebookresearch__HolisticTraceAnalysis/tests__data__trace_file_list__inference_rank_1.json.gz
    {"void gemmk1_kernel<float, 256, 5, false, false, false, false, cublasGemvTensorStridedBatched<__half const>",
     GemmUnit::HalfSimt},
    // public/AMD-AGI__TraceLens/tests__traces__h100__google_owlv2-large-patch14-ensemble__1016001.json.gz
    // (aten::addmm, c10::BFloat16)
    {"void gemv2T_kernel_val<int, int, __nv_bfloat16, __nv_bfloat16, __nv_bfloat16, float, 128, 16, 4, 4, false, "
     "false, cublasGemvParamsEx<",
     GemmUnit::HalfSimt},

    // ---- GEMMs whose names do not say ----
    // public/AMD-AGI__TraceLens/tests__traces__inference__vllm_prefilldecode_piecewise__graph_execution.json.gz
    {"_matmul_ogs_NNT_bf16xbf16xmxfp4_128x128x128x1", GemmUnit::UnknownGemm},
    // public/facebookresearch__HolisticTraceAnalysis/tests__data__critical_path__alexnet__benchmark_result_2869224_…
    // (aten::cudnn_convolution: cuDNN's; what "gc" stands for is not documented)
    {"ampere_gcgemm_64x64_nt", GemmUnit::UnknownGemm},

    // ---- not GEMMs ----
    // fixtures/public/resnet50_v100_steps5_6.json.gz: a cuDNN convolution
    {"void implicit_convolve_sgemm<float, float, 128, 5, 5, 3, 3, 3, 1, false, true, true>(int, int, int",
     GemmUnit::NotGemm},
    // fixtures/roofline/ops_zoo.json.gz (aten::cudnn_convolution)
    {"sm90_xmma_fprop_implicit_gemm_bf16bf16_bf16f32_f32_nhwckrsc_nhwc_tilesize64x128x64_warpgroupsize1x1x1_g1_"
     "execute_segment_k_off_kernel__5x_cudnn",
     GemmUnit::NotGemm},
    // fixtures/cpu/dataloader_workers0.json.gz (aten::cudnn_convolution)
    {"sm80_xmma_fprop_implicit_gemm_f32f32_f32f32_f32_nchwkcrs_nchw_tilesize256x64x8_stage3_warpsize2x2x1_g1_ffma_"
     "aligna4_alignc4_execute_kernel__5x_cudnn",
     GemmUnit::NotGemm},
    // fixtures/cpu/dataloader_workers0.json.gz (aten::convolution_backward)
    {"_ZN17cutlass__5x_cudnn6KernelINS_4conv6kernel23ImplicitGemmConvolutionINS1_11threadblock22ImplicitGemm"
     "MultistageINS_4gemm9GemmShapeILi64ELi64ELi32EEEN",
     GemmUnit::NotGemm},
    // fixtures/cpu/dataloader_workers0.json.gz: cuDNN's workspace setup for a convolution
    {"void cask_plugin__5x_cudnn::xmma__5x_cudnn::init_device_workspace_kernel<xmma__5x_cudnn::implicit_gemm::"
     "wgrad_indexed::Warp_specialized_params<",
     GemmUnit::NotGemm},
    // public/AMD-AGI__TraceLens/tests__traces__inference__xdit_flux.1__capture_traces__capture_trace_rank_0.json.gz
    {"igemm_fwd_gtcx3_nhwc_bf16_bx0_ex1_bt128x128x32_wt32x32x8_ws1x1_wr2x2_ta1x8x2x1_1x4x1x64_tb1x8x2x1_1x4x1x64_"
     "gkgs",
     GemmUnit::NotGemm},
    // public/AMD-AGI__TraceLens/tests__traces__mi300__resnet_act_checkpoint.json.gz (aten::convolution_backward)
    {"_ZN2ck16tensor_operation6device37kernel_batched_gemm_xdlops_bwd_weightINS_47GridwiseGemm_bk0mk1_bk0nk1_mn_"
     "xdlops_bwd_weightILi64EttftLNS_25InMemoryDat",
     GemmUnit::NotGemm},
    // fixtures/inference/generate_bare.json.gz: a GEMM's split-K reduction
    {"void cublasLt::splitKreduce_kernel<32, 16, int, float, __nv_bfloat16, float, __nv_bfloat16, false, float",
     GemmUnit::NotGemm},
    // fixtures/public/resnet50_v100_steps5_6.json.gz
    {"void splitKreduce_kernel<float, float, float, float>(cublasSplitKParams<float>, float const*, float const*, "
     "float*, float const*, float const*, float const*)",
     GemmUnit::NotGemm},
    // fixtures/compile/ro_fixed.json.gz: Inductor's pointwise kernel after the addmm
    {"triton_poi_fused_addmm_gelu_0", GemmUnit::NotGemm},
    // fixtures/ranks/dlrm_worker0.json.gz: FBGEMM's embedding bookkeeping
    {"void fbgemm_gpu::permute_2D_lengths_kernel<int>(int, int, int const*, int const*, int*)", GemmUnit::NotGemm},
    // fixtures/ranks/dlrm_worker0.json.gz: BLAS-1 dot product, its reduction in reduce_1Block_kernel
    {"void dot_kernel<float, 128, 0, cublasDotParams<cublasGemvTensorStridedBatched<float const>, "
     "cublasGemvTensorStridedBatched<float> > >(cublasDotParams<",
     GemmUnit::NotGemm},
    // fixtures/blocks/attention_sdpa.json.gz: attention
    {"cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x64_4x1x1_cga1x1x1_kernel0_0",
     GemmUnit::NotGemm},
};

TEST(GemmPrecision, RealKernelNames) {
  for (const NamedKernel& k : kRealNames)
    EXPECT_EQ(gemm_unit_of_name(k.name), k.unit)
        << k.name << ": " << to_string(gemm_unit_of_name(k.name)) << ", expected " << to_string(k.unit);
}

// Names from outside the trace corpus, quoted in public profiling notes (found through the code
// search of ../shared): Inductor's GEMM templates, cuBLASLt's FP8 nvjet kernels.
TEST(GemmPrecision, NamesQuotedInPublicProfilingNotes) {
  EXPECT_EQ(gemm_unit_of_name("triton_tem_fused_bmm_7"), GemmUnit::UnknownGemm);
  EXPECT_EQ(gemm_unit_of_name("triton_tem_fused__to_copy_addmm_gelu_t_view_9"), GemmUnit::UnknownGemm);
  EXPECT_EQ(gemm_unit_of_name("triton_tem_fused_flex_attention_backward"), GemmUnit::NotGemm);
  EXPECT_EQ(gemm_unit_of_name("nvjet_sm90_qqtst_128x128_128x6_1x2_h_bz_ovscale_TNT"), GemmUnit::Fp8TensorCore);
  EXPECT_EQ(gemm_unit_of_name("nvjet_sm100_tst_16x64_64x16_4x1_v_bz_TNN"), GemmUnit::Bf16TensorCore);
  // Quoted as a prefix (a router gate in bf16 with fp32 output): tss, bf16 in, fp32 out.
  EXPECT_EQ(gemm_unit_of_name("nvjet_sm90_tss_64x8_64x16_4x1_v_"), GemmUnit::Bf16TensorCore);
  EXPECT_EQ(gemm_unit_of_name("cutlass3x_sm100_simt_sgemm_f32_f32_f32_f32_f32_64x64x16_1x1x1_3_tnn_align1_bias_"
                              "f32_relu"),
            GemmUnit::Fp32Simt);
}

// GEMMs that say fp8 in a name no decoder above knows: DeepSeek's grouped GEMMs (its published
// train.json) and DeepGEMM's; a kernel of a GEMM library's namespace that is not a GEMM keeps its unit.
TEST(GemmPrecision, Fp8InTheNameOfAnyGemm) {
  EXPECT_EQ(gemm_unit_of_name("void cutlass::device_kernel<dpsk::grouped_gemm::cuda::m_grouped_fp8_ptp128c::GemmKernel>"
                              "(dpsk::grouped_gemm::cuda::m_grouped_fp8_ptp128c::GemmKernel::Params)"),
            GemmUnit::Fp8TensorCore);
  EXPECT_EQ(gemm_unit_of_name("void cutlass::device_kernel<dpsk::grouped_gemm::cuda::fp8_dptp128c_acc::GemmKernel>"
                              "(dpsk::grouped_gemm::cuda::fp8_dptp128c_acc::GemmKernel::Params)"),
            GemmUnit::Fp8TensorCore);
  EXPECT_EQ(gemm_unit_of_name("void deep_gemm::fp8_gemm_kernel<4096u, 7168u, 128u, 160u, 128u, 1u, 8u, 128u, 128u, 4u, "
                              "(deep_gemm::GemmType)0>(float*, int*, unsigned int, CUtensorMap_st, CUtensorMap_st)"),
            GemmUnit::Fp8TensorCore);
  EXPECT_EQ(gemm_unit_of_name("void dpsk::grouped_gemm::cuda::utils::transpose<512, 128, 4, 4>(unsigned char const*, "
                              "unsigned char*, int, int, int, int)"),
            GemmUnit::UnknownGemm);
}

// hipBLASLt writes "M" and the intermediate type after the data type when fp32 runs as xf32
// (ProblemType.__str__, F32XdlMathOp): the real S_B name above with that part.
TEST(GemmPrecision, TensileXf32IsTf32) {
  EXPECT_EQ(gemm_unit_of_name("Cijk_Ailk_Bljk_S_MX_B_Bias_HA_S_SAV_UserArgs_MT16x16x128_MI16x16x1_SN_LDSB1"),
            GemmUnit::Tf32TensorCore);
}

TEST(GemmPrecision, IdsAndWordsAreDistinct) {
  std::set<std::string_view> ids, words;
  for (int i = 0; i <= static_cast<int>(GemmUnit::UnknownGemm); ++i) {
    const auto u = static_cast<GemmUnit>(i);
    EXPECT_TRUE(ids.insert(to_string(u)).second) << to_string(u);
    EXPECT_TRUE(words.insert(describe(u)).second) << describe(u);
  }
  EXPECT_EQ(to_string(GemmUnit::Fp32Simt), "fp32_simt");
  EXPECT_EQ(to_string(GemmUnit::Tf32TensorCore), "tf32_tensor_core");
  EXPECT_EQ(describe(GemmUnit::Fp32Simt), "FP32 on CUDA cores (FFMA)");
  EXPECT_EQ(describe(GemmUnit::Bf16TensorCore), "bf16 tensor cores");
}

std::vector<std::string> fixture_traces() {
  std::vector<std::string> out;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(WHYSLOW_FIXTURES))
    if (entry.path().string().ends_with(".json.gz")) out.push_back(entry.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

// Kernels whose names say GEMM but that are not one, each for a reason.
constexpr std::string_view kNotGemms[] = {
    "implicit_gemm",           // cuDNN's xmma convolutions (fprop/dgrad/wgrad) and their workspace setup
    "implicit_convolve_sgemm", // cuDNN's convolution
    "explicit_convolve_sgemm", // cuDNN's convolution
    "ImplicitGemmConvolution", // CUTLASS's convolution, as cuDNN ships it
    "fbgemm_gpu::",            // the FBGEMM library's embedding and quantization kernels
};

// Every fixture kernel whose name says gemm (sgemm included), gemv, nvjet or Cijk is classified a
// GEMM, unless it is one of the non-GEMMs above.
TEST(GemmPrecision, EveryGemmNamedFixtureKernelIsAGemm) {
  std::map<GemmUnit, int> names_per_unit;
  std::set<std::string> seen;
  for (const std::string& path : fixture_traces()) {
    const Trace t = load_trace(path);
    for (EventId e = 0; e < t.size(); ++e) {
      if (t.kind[e] != EventKind::Kernel) continue;
      const std::string name(t.name_of(e));
      if (!seen.insert(name).second) continue;
      if (name.find("gemm") == std::string::npos && name.find("gemv") == std::string::npos &&
          name.find("nvjet") == std::string::npos && name.find("Cijk") == std::string::npos)
        continue;
      const GemmUnit unit = gemm_unit_of_name(name);
      ++names_per_unit[unit];
      bool listed = false;
      for (std::string_view part : kNotGemms) listed |= name.find(part) != std::string::npos;
      if (listed)
        EXPECT_EQ(unit, GemmUnit::NotGemm) << name << " (" << path << ")";
      else
        EXPECT_NE(unit, GemmUnit::NotGemm) << name << " (" << path << ")";
    }
  }
  // The fixtures hold FP32 SIMT, TF32, bf16, fp16 and bf16-gemv GEMMs: a change that loses a family
  // shows here.
  for (GemmUnit u : {GemmUnit::Fp32Simt, GemmUnit::Tf32TensorCore, GemmUnit::Bf16TensorCore,
                     GemmUnit::Fp16TensorCore, GemmUnit::HalfSimt})
    EXPECT_GT(names_per_unit[u], 0) << to_string(u);
}

// The dtype of the innermost op enclosing the kernel's launch that has a tensor input; nothing
// when no such op recorded shapes.
std::optional<Precision> launching_op_precision(const Trace& t, EventId kernel) {
  if (t.launch_link[kernel] == kNoEvent) return std::nullopt;
  for (EventId op = t.parent[t.launch_link[kernel]]; op != kNoEvent; op = t.parent[op])
    if (const auto inputs = op_inputs(t, op))
      for (const OpInput& in : *inputs)
        if (in.is_tensor()) return in.precision();
  return std::nullopt;
}

// The precision an op's inputs have when a kernel of `unit` runs its GEMM.
std::set<Precision> input_precisions(GemmUnit unit) {
  switch (unit) {
    case GemmUnit::Fp32Simt:
    case GemmUnit::Fp32MatrixCore:
    case GemmUnit::Tf32TensorCore: return {Precision::FP32};
    case GemmUnit::HalfSimt: return {Precision::BF16, Precision::FP16};
    case GemmUnit::Bf16TensorCore: return {Precision::BF16};
    case GemmUnit::Fp16TensorCore: return {Precision::FP16};
    case GemmUnit::Fp8TensorCore: return {Precision::FP8};
    case GemmUnit::Int8TensorCore: return {Precision::INT8};
    case GemmUnit::Fp64: return {Precision::FP64};
    case GemmUnit::NotGemm:
    case GemmUnit::UnknownGemm: return {};
  }
  return {};
}

// Where a fixture recorded shapes, the precision the name rules read agrees with the dtype of the
// op that launched the kernel (nvjet's t is bf16 on 60-odd kernels of aten::mm/addmm/bmm, …).
TEST(GemmPrecision, NameRulesAgreeWithRecordedDtypes) {
  int checked = 0;
  for (const std::string& path : fixture_traces()) {
    const Trace t = load_trace(path);
    for (EventId e = 0; e < t.size(); ++e) {
      if (t.kind[e] != EventKind::Kernel) continue;
      const std::set<Precision> expected = input_precisions(gemm_unit_of_name(t.name_of(e)));
      const std::optional<Precision> recorded = launching_op_precision(t, e);
      if (expected.empty() || !recorded) continue;
      ++checked;
      EXPECT_TRUE(expected.count(*recorded)) << t.name_of(e) << " launched on " << to_string(*recorded) << " inputs ("
                                             << path << ")";
    }
  }
  EXPECT_GT(checked, 500);
}

// A real trace with record_shapes: cuBLASLt's nvjet kernel under aten::mm on bf16 inputs.
TEST(GemmPrecision, NvjetUnderBf16MmIsBf16) {
  const Trace t = load_trace(testing::fixture("mm_bias_4096_bf16.json.gz"));
  int kernels = 0;
  for (EventId e = 0; e < t.size(); ++e) {
    if (t.kind[e] != EventKind::Kernel || !t.name_of(e).starts_with("nvjet_")) continue;
    ++kernels;
    EXPECT_EQ(launching_op_precision(t, e), Precision::BF16);
    EXPECT_EQ(gemm_unit(t, e), GemmUnit::Bf16TensorCore);
  }
  EXPECT_GT(kernels, 0);
}

// Kernels whose names do not say, launched from ops of each dtype: the op's first tensor decides,
// except float (TF32 or not is not in the trace). The launch sits in a record_function block
// inside the op, as Inductor's and the libraries' blocks do.
TEST(GemmPrecision, SilentNamesTakeTheLaunchingOpsDtype) {
  testing::TempDir dir;
  std::vector<std::string> events;
  const std::pair<std::string_view, std::string_view> ops[] = {
      {"c10::Half", "triton_tem_fused_mm_0"},
      {"c10::BFloat16", "_matmul_ogs_NNT_bf16xbf16xmxfp4_128x128x128x1"},
      {"c10::Float8_e4m3fn", "triton_tem_fused__scaled_mm_1"},
      {"float", "triton_tem_fused_addmm_2"},
  };
  int id = 1;
  for (const auto& [dtype, kernel] : ops) {
    const std::string ts = std::to_string(id * 100), corr = std::to_string(id);
    const std::string type = "\"" + std::string(dtype) + "\"";
    events.push_back(R"({"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 1, "tid": 1, "ts": )" + ts +
                     R"(, "dur": 50, "args": {"External id": )" + corr +
                     R"(, "Input Dims": [[], [64, 64], [64, 64]], "Input type": ["Scalar", )" + type + ", " + type +
                     "]}}");
    events.push_back(R"({"ph": "X", "cat": "user_annotation", "name": "block", "pid": 1, "tid": 1, "ts": )" + ts +
                     R"(.5, "dur": 40})");
    events.push_back(R"({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": )" +
                     ts + R"(.7, "dur": 5, "args": {"correlation": )" + corr + R"(, "External id": )" + corr + "}}");
    events.push_back(R"({"ph": "X", "cat": "kernel", "name": ")" + std::string(kernel) +
                     R"(", "pid": 0, "tid": 7, "ts": )" + std::to_string(id * 100 + 10) +
                     R"(, "dur": 20, "args": {"device": 0, "stream": 7, "correlation": )" + corr + "}}");
    ++id;
  }
  const Trace t = load_trace(dir.write("silent.json", testing::trace_json(events)));
  EXPECT_EQ(gemm_unit(t, testing::event_named(t, "triton_tem_fused_mm_0")), GemmUnit::Fp16TensorCore);
  EXPECT_EQ(gemm_unit(t, testing::event_named(t, "_matmul_ogs_NNT_bf16xbf16xmxfp4_128x128x128x1")),
            GemmUnit::Bf16TensorCore);
  EXPECT_EQ(gemm_unit(t, testing::event_named(t, "triton_tem_fused__scaled_mm_1")), GemmUnit::Fp8TensorCore);
  EXPECT_EQ(gemm_unit(t, testing::event_named(t, "triton_tem_fused_addmm_2")), GemmUnit::UnknownGemm);
}

}  // namespace
}  // namespace whyslow
