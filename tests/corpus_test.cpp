// The public corpus (../shared/traces/public, read in place): every file loads, and our counts
// equal the statistics in its SOURCES.md, which were computed independently with Python's json
// module. Per file: X + i events = Trace::size() (M, s and f are not events in the model), events
// by `cat`, flow starts and finishes, devices, schemaVersion and baseTimeNanoseconds.
#include <gtest/gtest.h>

#include <cctype>
#include <cstdint>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "trace/load_error.hpp"
#include "trace/load_trace.hpp"

namespace whyslow {
namespace {

namespace fs = std::filesystem;

struct Expected {
  const char* file;  // relative to the corpus directory
  uint64_t events;   // ph X + ph i
  uint64_t flow_starts, flow_finishes;
  int devices;
  int schema_version;
  int64_t base_time_ns;
  std::map<std::string, uint64_t> by_category;  // X and i events by `cat`; "-" = no cat
};

// Generated from SOURCES.md ("events", "cats" minus flow and M counts, "ph", "flows", "devices").
const std::vector<Expected>& corpus() {
  static const std::vector<Expected> table = {
    {"AMD-AGI__TraceLens/tests__traces__b200__eager_trace.json.gz",
     22355, 931, 1370, 8, 1, 1767189312000000000LL,
     {{"python_function", 15230}, {"cpu_op", 4809}, {"cuda_runtime", 1151}, {"kernel", 768}, {"cuda_driver", 221}, {"gpu_memcpy", 161}, {"overhead", 9}, {"user_annotation", 3}, {"gpu_user_annotation", 3}}},
    {"AMD-AGI__TraceLens/tests__traces__h100__Falconsai_nsfw_image_detection__1016002.json.gz",
     4539, 207, 332, 1, 1, 1751410836000000000LL,
     {{"python_function", 2117}, {"cpu_op", 1258}, {"cpu_instant_event", 620}, {"cuda_runtime", 334}, {"kernel", 154}, {"cuda_driver", 49}, {"-", 2}, {"gpu_memset", 2}, {"user_annotation", 1}, {"gpu_user_annotation", 1}, {"Trace", 1}}},
    {"AMD-AGI__TraceLens/tests__traces__h100__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
     14532, 1201, 2428, 1, 1, 1751410836000000000LL,
     {{"python_function", 4262}, {"cpu_op", 4186}, {"cpu_instant_event", 2450}, {"cuda_runtime", 1921}, {"kernel", 1465}, {"gpu_memset", 241}, {"-", 2}, {"user_annotation", 1}, {"gpu_memcpy", 1}, {"cuda_driver", 1}, {"gpu_user_annotation", 1}, {"Trace", 1}}},
    {"AMD-AGI__TraceLens/tests__traces__h100__facebook_timesformer-base-finetuned-k400__1016002.json.gz",
     48602, 538, 925, 1, 1, 1751410836000000000LL,
     {{"python_function", 42330}, {"cpu_op", 3540}, {"cpu_instant_event", 1264}, {"cuda_runtime", 881}, {"kernel", 446}, {"gpu_memset", 86}, {"cuda_driver", 48}, {"-", 2}, {"gpu_memcpy", 2}, {"user_annotation", 1}, {"gpu_user_annotation", 1}, {"Trace", 1}}},
    {"AMD-AGI__TraceLens/tests__traces__h100__gaunernst_bert-small-uncased__1016001.json.gz",
     2298, 86, 107, 1, 1, 1751410836000000000LL,
     {{"python_function", 1385}, {"cpu_op", 479}, {"cpu_instant_event", 236}, {"cuda_runtime", 110}, {"kernel", 60}, {"cuda_driver", 22}, {"-", 2}, {"user_annotation", 1}, {"gpu_memcpy", 1}, {"gpu_user_annotation", 1}, {"Trace", 1}}},
    {"AMD-AGI__TraceLens/tests__traces__h100__google_owlv2-large-patch14-ensemble__1016001.json.gz",
     117635, 5552, 8905, 1, 1, 1751410836000000000LL,
     {{"python_function", 65313}, {"cpu_op", 24378}, {"cpu_instant_event", 13474}, {"cuda_runtime", 8567}, {"kernel", 4330}, {"gpu_memset", 750}, {"cuda_driver", 725}, {"gpu_memcpy", 85}, {"user_annotation", 7}, {"-", 2}, {"overhead", 2}, {"gpu_user_annotation", 1}, {"Trace", 1}}},
    {"AMD-AGI__TraceLens/tests__traces__inference__sglang_decode__capture_traces__bs_32_rank0.json.gz",
     60151, 548, 954, 1, 1, 1775078550000000000LL,
     {{"python_function", 54073}, {"cpu_op", 3556}, {"cuda_runtime", 1500}, {"cpu_instant_event", 1014}, {"-", 2}, {"user_annotation", 2}, {"kernel", 2}, {"gpu_user_annotation", 1}, {"Trace", 1}}},
    {"AMD-AGI__TraceLens/tests__traces__inference__sglang_decode__sglang_Qwen3-8B_decode.json.gz",
     1471, 14, 573, 1, 1, 1775078550000000000LL,
     {{"python_function", 821}, {"kernel", 555}, {"cpu_op", 61}, {"cuda_runtime", 29}, {"gpu_memcpy", 3}, {"user_annotation", 2}}},
    {"AMD-AGI__TraceLens/tests__traces__inference__sglang_prefilldecode__sglang_Qwen3-8B_prefilldecode.json.gz",
     58712, 534, 1069, 1, 1, 1775078550000000000LL,
     {{"python_function", 53321}, {"cpu_op", 3786}, {"cuda_runtime", 1069}, {"kernel", 527}, {"gpu_memcpy", 7}, {"user_annotation", 2}}},
    {"AMD-AGI__TraceLens/tests__traces__inference__vllm_decode_full__capture_traces__graph_capture_rank_0.1773709742341309550.pt.trace.json.gz",
     128047, 433, 2705, 8, 1, 1767189312000000000LL,
     {{"python_function", 119876}, {"cpu_op", 3819}, {"cuda_runtime", 3128}, {"cpu_instant_event", 1184}, {"user_annotation", 26}, {"kernel", 7}, {"gpu_memcpy", 3}, {"-", 2}, {"gpu_user_annotation", 1}, {"Trace", 1}}},
    {"AMD-AGI__TraceLens/tests__traces__inference__vllm_decode_full__graph_execution.json.gz",
     1539, 13, 441, 8, 1, 1767189312000000000LL,
     {{"python_function", 984}, {"kernel", 425}, {"cpu_op", 100}, {"cuda_runtime", 20}, {"gpu_memcpy", 9}, {"user_annotation", 1}}},
    {"AMD-AGI__TraceLens/tests__traces__inference__vllm_prefilldecode_piecewise__capture_traces__graph_capture_rank_0.1773709679453551615.pt.trace.json.gz",
     118915, 487, 2797, 8, 1, 1767189312000000000LL,
     {{"python_function", 110876}, {"cpu_op", 3611}, {"cuda_runtime", 3184}, {"cpu_instant_event", 1114}, {"kernel", 99}, {"user_annotation", 26}, {"-", 2}, {"gpu_memcpy", 1}, {"gpu_user_annotation", 1}, {"Trace", 1}}},
    {"AMD-AGI__TraceLens/tests__traces__inference__vllm_prefilldecode_piecewise__graph_execution.json.gz",
     18485, 62, 742, 8, 1, 1767189312000000000LL,
     {{"python_function", 17038}, {"cpu_op", 642}, {"kernel", 413}, {"cuda_runtime", 381}, {"gpu_memcpy", 10}, {"user_annotation", 1}}},
    {"AMD-AGI__TraceLens/tests__traces__inference__xdit_flux.1__capture_traces__capture_trace_rank_0.json.gz",
     181601, 2577, 9017, 1, 1, 1782967788000000000LL,
     {{"python_function", 162461}, {"cuda_runtime", 9039}, {"cpu_op", 7538}, {"kernel", 2540}, {"gpu_memcpy", 15}, {"gpu_user_annotation", 3}, {"-", 2}, {"user_annotation", 2}, {"Trace", 1}}},
    {"AMD-AGI__TraceLens/tests__traces__inference__xdit_flux.1_aiter_sage__profile_trace_rank_0.json.gz",
     218575, 1602, 9222, 1, 1, 1782967788000000000LL,
     {{"python_function", 201328}, {"kernel", 7830}, {"cpu_op", 6409}, {"cuda_runtime", 2958}, {"gpu_memcpy", 36}, {"user_annotation", 6}, {"gpu_user_annotation", 5}, {"-", 2}, {"Trace", 1}}},
    {"AMD-AGI__TraceLens/tests__traces__inference__xdit_sd_3.5__profile_trace_rank_0.json.gz",
     200516, 8065, 30454, 1, 1, 1782967788000000000LL,
     {{"python_function", 134628}, {"cuda_runtime", 30453}, {"cpu_op", 27354}, {"kernel", 8042}, {"gpu_memcpy", 23}, {"user_annotation", 7}, {"gpu_user_annotation", 5}, {"-", 2}, {"gpu_memset", 1}, {"Trace", 1}}},
    {"AMD-AGI__TraceLens/tests__traces__mi210__gpu_only_trace__gpu_only_trace.json.gz",
     1196, 562, 631, 4, 1, 1759300074000000000LL,
     {{"cuda_runtime", 631}, {"kernel", 562}, {"-", 2}, {"Trace", 1}}},
    {"AMD-AGI__TraceLens/tests__traces__mi300__Falconsai_nsfw_image_detection__1016002.json.gz",
     4719, 155, 437, 1, 1, 1751410836000000000LL,
     {{"python_function", 2121}, {"cpu_op", 1381}, {"cpu_instant_event", 620}, {"cuda_runtime", 437}, {"kernel", 155}, {"-", 2}, {"user_annotation", 1}, {"gpu_user_annotation", 1}, {"Trace", 1}}},
    {"AMD-AGI__TraceLens/tests__traces__mi300__Qwen_Qwen1.5-0.5B-Chat__1016005.json.gz",
     14806, 1054, 2170, 1, 1, 1751410836000000000LL,
     {{"cpu_op", 4619}, {"python_function", 4266}, {"cpu_instant_event", 2692}, {"cuda_runtime", 1707}, {"kernel", 1516}, {"-", 2}, {"user_annotation", 1}, {"gpu_memcpy", 1}, {"gpu_user_annotation", 1}, {"Trace", 1}}},
    {"AMD-AGI__TraceLens/tests__traces__mi300__facebook_timesformer-base-finetuned-k400__1016002.json.gz",
     48590, 449, 851, 1, 1, 1751410836000000000LL,
     {{"python_function", 42334}, {"cpu_op", 3591}, {"cpu_instant_event", 1360}, {"cuda_runtime", 851}, {"kernel", 447}, {"-", 2}, {"gpu_memcpy", 2}, {"user_annotation", 1}, {"gpu_user_annotation", 1}, {"Trace", 1}}},
    {"AMD-AGI__TraceLens/tests__traces__mi300__gaunernst_bert-small-uncased__1016001.json.gz",
     2371, 61, 161, 1, 1, 1751410836000000000LL,
     {{"python_function", 1389}, {"cpu_op", 519}, {"cpu_instant_event", 236}, {"cuda_runtime", 161}, {"kernel", 60}, {"-", 2}, {"user_annotation", 1}, {"gpu_memcpy", 1}, {"gpu_user_annotation", 1}, {"Trace", 1}}},
    {"AMD-AGI__TraceLens/tests__traces__mi300__google_owlv2-large-patch14-ensemble__1016001.json.gz",
     117513, 4340, 8867, 1, 1, 1751410836000000000LL,
     {{"python_function", 65248}, {"cpu_op", 24783}, {"cpu_instant_event", 14264}, {"cuda_runtime", 8867}, {"kernel", 4255}, {"gpu_memcpy", 85}, {"user_annotation", 7}, {"-", 2}, {"gpu_user_annotation", 1}, {"Trace", 1}}},
    {"AMD-AGI__TraceLens/tests__traces__mi300__resnet_act_checkpoint.json.gz",
     49210, 2817, 4362, 8, 1, 1767189312000000000LL,
     {{"python_function", 34405}, {"cpu_op", 8004}, {"cuda_runtime", 3100}, {"kernel", 2995}, {"gpu_memcpy", 550}, {"gpu_memset", 108}, {"user_annotation", 24}, {"gpu_user_annotation", 21}, {"-", 2}, {"Trace", 1}}},
    {"AMD-AGI__TraceLens/tests__traces__perf_model__normalization__normalization_layer_test.json.gz",
     7929, 226, 285, 8, 1, 1767189312000000000LL,
     {{"python_function", 6004}, {"cpu_op", 978}, {"cpu_instant_event", 475}, {"cuda_runtime", 236}, {"kernel", 168}, {"user_annotation", 30}, {"gpu_user_annotation", 30}, {"gpu_memset", 5}, {"-", 2}, {"Trace", 1}}},
    {"AMD-AGI__TraceLens/tests__traces__torch_compile_triton__trace.json.gz",
     117, 13, 58, 1, 1, 1775078550000000000LL,
     {{"cuda_runtime", 59}, {"cpu_op", 41}, {"kernel", 12}, {"-", 2}, {"user_annotation", 1}, {"gpu_user_annotation", 1}, {"Trace", 1}}},
    {"facebookresearch__HolisticTraceAnalysis/tests__data__amd_trace__mi250_minitoy_train_ROCm6_2_kineto.json.gz",
     115, 20, 25, 4, 1, 1735632360000000000LL,
     {{"cpu_op", 70}, {"cuda_runtime", 21}, {"kernel", 14}, {"user_annotation", 3}, {"-", 2}, {"gpu_memcpy", 2}, {"gpu_user_annotation", 2}, {"Trace", 1}}},
    {"facebookresearch__HolisticTraceAnalysis/tests__data__call_stack__backward_thread.json",
     7, 0, 0, 0, 0, 0LL,
     {{"cpu_op", 3}, {"user_annotation", 2}, {"kernel", 1}, {"cuda_runtime", 1}}},
    {"facebookresearch__HolisticTraceAnalysis/tests__data__cpu_only__rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz",
     18, 0, 0, 0, 1, 1719853884000000000LL,
     {{"user_annotation", 11}, {"cpu_op", 4}, {"-", 2}, {"Trace", 1}}},
    {"facebookresearch__HolisticTraceAnalysis/tests__data__critical_path__alexnet__benchmark_result_2869224_1695835535_trace.json.gz",
     870, 155, 345, 8, 1, 0LL,
     {{"cuda_runtime", 361}, {"cpu_op", 359}, {"kernel", 79}, {"cuda_sync", 41}, {"gpu_memcpy", 16}, {"user_annotation", 8}, {"gpu_memset", 3}, {"-", 2}, {"Trace", 1}}},
    {"facebookresearch__HolisticTraceAnalysis/tests__data__critical_path__cuda_event_sync__event_sync_trace.json.gz",
     35, 7, 14, 8, 1, 0LL,
     {{"cuda_runtime", 12}, {"cpu_op", 10}, {"kernel", 4}, {"cuda_sync", 4}, {"-", 2}, {"user_annotation", 1}, {"gpu_memcpy", 1}, {"Trace", 1}}},
    {"facebookresearch__HolisticTraceAnalysis/tests__data__critical_path__cuda_event_sync_multi_stream__event_sync_trace.json.gz",
     59, 8, 42, 8, 1, 0LL,
     {{"cuda_runtime", 39}, {"cpu_op", 6}, {"cuda_sync", 5}, {"gpu_memset", 3}, {"kernel", 3}, {"-", 2}, {"Trace", 1}}},
    {"facebookresearch__HolisticTraceAnalysis/tests__data__critical_path__end_to_end__simple_add__output__overlaid_critical_path_trace.json.gz",
     840, 347, 507, 8, 1, 0LL,
     {{"cpu_op", 359}, {"cuda_runtime", 331}, {"kernel", 79}, {"cuda_sync", 41}, {"gpu_memcpy", 16}, {"user_annotation", 8}, {"gpu_memset", 3}, {"-", 2}, {"Trace", 1}}},
    {"facebookresearch__HolisticTraceAnalysis/tests__data__critical_path__simple_add__benchmark_result_493459_1694039959_trace.json.gz",
     840, 155, 315, 8, 1, 0LL,
     {{"cpu_op", 359}, {"cuda_runtime", 331}, {"kernel", 79}, {"cuda_sync", 41}, {"gpu_memcpy", 16}, {"user_annotation", 8}, {"gpu_memset", 3}, {"-", 2}, {"Trace", 1}}},
    {"facebookresearch__HolisticTraceAnalysis/tests__data__cupti_profiler__benchmark_result_924719_1679055439_trace.json.gz",
     2327, 104, 1758, 8, 1, 0LL,
     {{"cuda_runtime", 1862}, {"cpu_op", 375}, {"cuda_profiler_range", 77}, {"user_annotation", 8}, {"-", 3}, {"Trace", 2}}},
    {"facebookresearch__HolisticTraceAnalysis/tests__data__df_index_resolver__df_index_resolver.json.gz",
     151391, 22290, 42373, 2, 1, 0LL,
     {{"cpu_op", 56680}, {"cuda_runtime", 42373}, {"cpu_instant_event", 28010}, {"kernel", 19370}, {"gpu_memcpy", 2040}, {"user_annotation", 2035}, {"gpu_memset", 880}, {"-", 2}, {"Trace", 1}}},
    {"facebookresearch__HolisticTraceAnalysis/tests__data__distributed_info_unavailable__distributed_info_not_found.json.gz",
     2467, 0, 0, 8, 1, 0LL,
     {{"cpu_op", 2424}, {"user_annotation", 43}}},
    {"facebookresearch__HolisticTraceAnalysis/tests__data__execution_trace__benchmark_simple_add_trace.json.gz",
     58, 9, 10, 8, 1, 0LL,
     {{"cpu_op", 28}, {"cuda_runtime", 15}, {"user_annotation", 8}, {"kernel", 4}, {"-", 2}, {"Trace", 1}}},
    {"facebookresearch__HolisticTraceAnalysis/tests__data__large_integer_trace__rank-70.Mar_25_20_48_12.2861.pt.trace.json.gz",
     2, 0, 0, 0, 1, 0LL,
     {{"kernel", 1}, {"cpu_op", 1}}},
    {"facebookresearch__HolisticTraceAnalysis/tests__data__mtia_inference_trace__mtia_inference_rank_0.json.gz",
     14181, 635, 1166, 1, 1, 1767189312000000000LL,
     {{"cpu_op", 10346}, {"user_annotation", 1696}, {"mtia_ccp_events", 1313}, {"mtia_runtime", 823}, {"-", 2}, {"Trace", 1}}},
    {"facebookresearch__HolisticTraceAnalysis/tests__data__mtia_trace_single_rank__mtia_rank_0.json.gz",
     138377, 3658, 3658, 0, 1, 1727743122000000000LL,
     {{"cpu_op", 108889}, {"mtia_ccp_events", 25814}, {"mtia_runtime", 3453}, {"user_annotation", 214}, {"-", 4}, {"Trace", 3}}},
    {"facebookresearch__HolisticTraceAnalysis/tests__data__nccl_parser_config__nccl_data.json.gz",
     26935, 4405, 9195, 8, 1, 1711964646000000000LL,
     {{"cpu_op", 14346}, {"cuda_runtime", 8740}, {"kernel", 2700}, {"gpu_memcpy", 960}, {"gpu_memset", 114}, {"user_annotation", 42}, {"gpu_user_annotation", 30}, {"-", 2}, {"Trace", 1}}},
    {"facebookresearch__HolisticTraceAnalysis/tests__data__negative_queue_length_values_check__rank0.json.gz",
     67219, 6600, 35071, 8, 1, 0LL,
     {{"cuda_runtime", 33924}, {"cpu_op", 25185}, {"kernel", 6080}, {"gpu_memcpy", 1390}, {"user_annotation", 360}, {"gpu_memset", 277}, {"-", 2}, {"Trace", 1}}},
    {"facebookresearch__HolisticTraceAnalysis/tests__data__ns_resolution_trace__rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
     45422, 7306, 15928, 8, 1, 0LL,
     {{"cpu_op", 23910}, {"cuda_runtime", 15329}, {"kernel", 4350}, {"gpu_memcpy", 1600}, {"gpu_memset", 145}, {"user_annotation", 70}, {"gpu_user_annotation", 15}, {"-", 2}, {"Trace", 1}}},
    {"facebookresearch__HolisticTraceAnalysis/tests__data__rank_non_gpu__rank_non_gpu.json.gz",
     2467, 0, 0, 0, 0, 0LL,
     {{"cpu_op", 2424}, {"user_annotation", 43}}},
    {"facebookresearch__HolisticTraceAnalysis/tests__data__rank_unavailable__rank_not_found.json.gz",
     2467, 0, 0, 0, 0, 0LL,
     {{"cpu_op", 2424}, {"user_annotation", 43}}},
    {"facebookresearch__HolisticTraceAnalysis/tests__data__trace_compare__base__base.json.gz",
     33, 0, 0, 0, 0, 0LL,
     {{"cpu_op", 6}, {"gpu_memcpy", 6}, {"kernel", 6}, {"gpu_memset", 6}, {"cuda_runtime", 5}, {"user_annotation", 4}}},
    {"facebookresearch__HolisticTraceAnalysis/tests__data__trace_compare__test__test.json.gz",
     34, 0, 0, 0, 0, 0LL,
     {{"cpu_op", 9}, {"gpu_memcpy", 6}, {"gpu_memset", 6}, {"kernel", 5}, {"cuda_runtime", 5}, {"user_annotation", 3}}},
    {"facebookresearch__HolisticTraceAnalysis/tests__data__trace_diff__control__control.json.gz",
     74939, 9450, 24692, 8, 1, 0LL,
     {{"cpu_op", 40506}, {"cuda_runtime", 24692}, {"kernel", 8568}, {"gpu_memset", 654}, {"user_annotation", 288}, {"gpu_memcpy", 228}, {"-", 2}, {"Trace", 1}}},
    {"facebookresearch__HolisticTraceAnalysis/tests__data__trace_diff__test__test.json.gz",
     68326, 9984, 26815, 2, 1, 0LL,
     {{"cpu_op", 31236}, {"cuda_runtime", 21167}, {"kernel", 9876}, {"gpu_memcpy", 4856}, {"gpu_memset", 900}, {"user_annotation", 288}, {"-", 2}, {"Trace", 1}}},
    {"facebookresearch__HolisticTraceAnalysis/tests__data__trace_file_list__inference_rank_1.json.gz",
     14, 4, 4, 0, 0, 0LL,
     {{"Runtime", 8}, {"Kernel", 4}, {"-", 1}, {"Trace", 1}}},
    {"facebookresearch__HolisticTraceAnalysis/tests__data__trace_filter__sampled_rank-0.json.gz",
     4811, 0, 0, 0, 1, 0LL,
     {{"cpu_op", 2329}, {"cuda_runtime", 1204}, {"kernel", 1154}, {"user_annotation", 73}, {"gpu_memcpy", 40}, {"gpu_memset", 10}, {"Trace", 1}}},
    {"facebookresearch__HolisticTraceAnalysis/tests__data__trace_filter__sampled_rank-1.json.gz",
     4676, 0, 0, 0, 1, 0LL,
     {{"cpu_op", 2302}, {"cuda_runtime", 1154}, {"kernel", 1104}, {"user_annotation", 65}, {"gpu_memcpy", 40}, {"gpu_memset", 10}, {"Trace", 1}}},
    {"facebookresearch__HolisticTraceAnalysis/tests__data__triton_example__triton_example.json.gz",
     10, 2, 1, 8, 1, 1727743122000000000LL,
     {{"cpu_op", 3}, {"-", 2}, {"user_annotation", 1}, {"kernel", 1}, {"cuda_driver", 1}, {"cuda_runtime", 1}, {"Trace", 1}}},
    {"facebookresearch__HolisticTraceAnalysis/tests__data__with_gpu_user_annotation__step_based_trace_2543932.json.gz",
     986, 140, 180, 2, 1, 0LL,
     {{"cpu_op", 643}, {"cuda_runtime", 180}, {"kernel", 130}, {"user_annotation", 10}, {"gpu_memcpy", 10}, {"gpu_user_annotation", 10}, {"-", 2}, {"Trace", 1}}},
    {"facebookresearch__param/et_replay__tests__inputs__dlrm_kineto.tar.gz__dlrm_kineto__worker0_step_12.1694128201545.pt.trace.json",
     2462, 261, 525, 8, 1, 0LL,
     {{"cpu_op", 1633}, {"cuda_runtime", 525}, {"kernel", 245}, {"user_annotation", 40}, {"gpu_memcpy", 16}, {"-", 2}, {"Trace", 1}}},
    {"facebookresearch__param/et_replay__tests__inputs__dlrm_kineto.tar.gz__dlrm_kineto__worker1_step_12.1694128201556.pt.trace.json",
     2529, 262, 591, 8, 1, 0LL,
     {{"cpu_op", 1633}, {"cuda_runtime", 527}, {"kernel", 310}, {"user_annotation", 40}, {"gpu_memcpy", 16}, {"-", 2}, {"Trace", 1}}},
    {"facebookresearch__param/et_replay__tests__inputs__dlrm_kineto.tar.gz__dlrm_kineto__worker2_step_12.1694128201554.pt.trace.json",
     2451, 262, 513, 8, 1, 0LL,
     {{"cpu_op", 1633}, {"cuda_runtime", 513}, {"kernel", 246}, {"user_annotation", 40}, {"gpu_memcpy", 16}, {"-", 2}, {"Trace", 1}}},
    {"facebookresearch__param/et_replay__tests__inputs__dlrm_kineto.tar.gz__dlrm_kineto__worker3_step_12.1694128201557.pt.trace.json",
     2554, 273, 605, 8, 1, 0LL,
     {{"cpu_op", 1633}, {"cuda_runtime", 541}, {"kernel", 315}, {"user_annotation", 40}, {"gpu_memcpy", 16}, {"gpu_memset", 6}, {"-", 2}, {"Trace", 1}}},
    {"facebookresearch__param/et_replay__tests__inputs__dlrm_kineto.tar.gz__dlrm_kineto__worker4_step_12.1694128201547.pt.trace.json",
     2472, 273, 523, 8, 1, 0LL,
     {{"cpu_op", 1633}, {"cuda_runtime", 523}, {"kernel", 251}, {"user_annotation", 40}, {"gpu_memcpy", 16}, {"gpu_memset", 6}, {"-", 2}, {"Trace", 1}}},
    {"facebookresearch__param/et_replay__tests__inputs__dlrm_kineto.tar.gz__dlrm_kineto__worker5_step_12.1694128201549.pt.trace.json",
     2442, 261, 505, 8, 1, 0LL,
     {{"cpu_op", 1633}, {"cuda_runtime", 505}, {"kernel", 245}, {"user_annotation", 40}, {"gpu_memcpy", 16}, {"-", 2}, {"Trace", 1}}},
    {"facebookresearch__param/et_replay__tests__inputs__dlrm_kineto.tar.gz__dlrm_kineto__worker6_step_12.1694128201553.pt.trace.json",
     2453, 262, 515, 8, 1, 0LL,
     {{"cpu_op", 1633}, {"cuda_runtime", 515}, {"kernel", 246}, {"user_annotation", 40}, {"gpu_memcpy", 16}, {"-", 2}, {"Trace", 1}}},
    {"facebookresearch__param/et_replay__tests__inputs__dlrm_kineto.tar.gz__dlrm_kineto__worker7_step_12.1694128201553.pt.trace.json",
     2442, 262, 504, 8, 1, 0LL,
     {{"cpu_op", 1633}, {"cuda_runtime", 504}, {"kernel", 246}, {"user_annotation", 40}, {"gpu_memcpy", 16}, {"-", 2}, {"Trace", 1}}},
    {"facebookresearch__param/et_replay__tests__inputs__linear_kineto.json.gz",
     61952, 10356, 14515, 8, 1, 0LL,
     {{"cpu_op", 36998}, {"cuda_runtime", 14515}, {"kernel", 8716}, {"gpu_memset", 1640}, {"user_annotation", 80}, {"-", 2}, {"Trace", 1}}},
    {"facebookresearch__param/et_replay__tests__inputs__resnet_kineto.json.gz",
     75550, 10323, 25718, 8, 1, 0LL,
     {{"cpu_op", 39416}, {"cuda_runtime", 25928}, {"kernel", 9628}, {"gpu_memset", 362}, {"gpu_memcpy", 123}, {"user_annotation", 90}, {"-", 2}, {"Trace", 1}}},
    {"pytorch__kineto/docs__traces__after_fix_trace.json",
     11, 1, 3, 8, 1, 1775078550000000000LL,
     {{"cpu_op", 4}, {"-", 2}, {"cuda_sync", 2}, {"cuda_runtime", 1}, {"kernel", 1}, {"Trace", 1}}},
    {"pytorch__kineto/docs__traces__before_fix_trace.json",
     11, 1, 3, 8, 1, 1775078550000000000LL,
     {{"cpu_op", 4}, {"-", 2}, {"cuda_sync", 2}, {"cuda_runtime", 1}, {"kernel", 1}, {"Trace", 1}}},
    {"pytorch__kineto/tb_plugin__samples__resnet50_num_workers_0__worker0.1623143089861.pt.trace.json.gz",
     57506, 9096, 9096, 4, 1, 0LL,
     {{"Operator", 23646}, {"-", 12840}, {"Runtime", 11923}, {"Kernel", 8772}, {"Memset", 312}, {"Memcpy", 12}, {"Trace", 1}}},
    {"pytorch__kineto/tb_plugin__samples__resnet50_num_workers_4__worker0.1623212756351.pt.trace.json.gz",
     52888, 9258, 9258, 4, 1, 0LL,
     {{"Operator", 20562}, {"Runtime", 12085}, {"-", 10982}, {"Kernel", 8868}, {"Memset", 378}, {"Memcpy", 12}, {"Trace", 1}}},
    {"pytorch__kineto/tb_plugin__test__gpu_metrics_input.json",
     256, 32, 32, 4, 1, 0LL,
     {{"Operator", 179}, {"Runtime", 42}, {"Kernel", 30}, {"-", 2}, {"Memcpy", 2}, {"Trace", 1}}},
  };
  return table;
}

fs::path corpus_dir() { return fs::path(WHYSLOW_PUBLIC_TRACES); }

bool is_trace_file(const fs::path& p) {
  const std::string name = p.filename().string();
  auto ends_with = [&](const std::string& s) {
    return name.size() >= s.size() && name.compare(name.size() - s.size(), s.size(), s) == 0;
  };
  return ends_with(".json") || ends_with(".json.gz");
}

// Parent links must be same-track nestings; each track's events in (start, longer first) order.
void expect_consistent(const Trace& t) {
  ASSERT_EQ(t.parent.size(), t.size());
  ASSERT_EQ(t.launch_link.size(), t.size());
  ASSERT_EQ(t.op_link.size(), t.size());
  size_t on_tracks = 0, bad_order = 0, bad_parent = 0, bad_link = 0;
  for (const Track& tr : t.tracks) {
    on_tracks += tr.events.size();
    for (size_t i = 1; i < tr.events.size(); ++i) {
      const EventId a = tr.events[i - 1], b = tr.events[i];
      if (t.start_ns[a] > t.start_ns[b] ||
          (t.start_ns[a] == t.start_ns[b] && t.dur_ns[a] < t.dur_ns[b]))
        ++bad_order;
    }
  }
  for (EventId e = 0; e < t.size(); ++e) {
    const EventId p = t.parent[e];
    if (p != kNoEvent && (t.track[p] != t.track[e] || t.start_ns[p] > t.start_ns[e] ||
                          t.end_ns(p) < t.end_ns(e) || p == e))
      ++bad_parent;
    const EventId l = t.launch_link[e];
    if (l != kNoEvent && (l >= t.size() || t.correlation[l] != t.correlation[e])) ++bad_link;
    // An op link names an op that encloses the launch call on its thread (the repaired links
    // included); where there is no launch call to hold it against, the op carries the same
    // External id.
    const EventId o = t.op_link[e];
    const EventId call = is_host_api(t.kind[e]) ? e : l;
    if (o != kNoEvent) {
      if (o >= t.size() || (t.kind[o] != EventKind::CpuOp && t.kind[o] != EventKind::UserAnnotation)) ++bad_link;
      else if (call == kNoEvent ? t.external_id[o] != t.external_id[e]
                                : t.track[o] != t.track[call] || t.start_ns[o] > t.start_ns[call] ||
                                      t.end_ns(call) > t.end_ns(o))
        ++bad_link;
    }
  }
  EXPECT_EQ(on_tracks, t.size());
  EXPECT_EQ(bad_order, 0u);
  EXPECT_EQ(bad_parent, 0u);
  EXPECT_EQ(bad_link, 0u);
}

TEST(Corpus, EveryFileInTheDirectoryLoads) {
  if (!fs::is_directory(corpus_dir())) GTEST_SKIP() << "no corpus at " << corpus_dir();
  std::set<std::string> known;
  for (const Expected& x : corpus()) known.insert(x.file);
  size_t files = 0;
  for (const auto& entry : fs::recursive_directory_iterator(corpus_dir())) {
    if (!entry.is_regular_file() || !is_trace_file(entry.path())) continue;
    ++files;
    const std::string rel = fs::relative(entry.path(), corpus_dir()).string();
    if (known.count(rel)) continue;  // loaded and checked by CorpusFile below
    // A file SOURCES.md does not describe: it must still load.
    EXPECT_NO_THROW({
      try {
        (void)load_trace(entry.path().string());
      } catch (const LoadError& e) {
        ADD_FAILURE() << e.what();
        throw;
      }
    }) << rel;
  }
  EXPECT_GE(files, corpus().size());
}

class CorpusFile : public ::testing::TestWithParam<size_t> {};

TEST_P(CorpusFile, LoadsWithTheIndependentCounts) {
  const Expected& x = corpus()[GetParam()];
  const fs::path path = corpus_dir() / x.file;
  if (!fs::exists(path)) GTEST_SKIP() << "corpus file absent: " << path;
  Trace t;
  try {
    t = load_trace(path.string());
  } catch (const LoadError& e) {
    FAIL() << e.what();
  }
  EXPECT_FALSE(t.truncated);
  EXPECT_EQ(t.size(), x.events);
  EXPECT_EQ(t.flows.starts, x.flow_starts);
  EXPECT_EQ(t.flows.finishes, x.flow_finishes);
  EXPECT_EQ(t.ignored_events, 0u);  // the corpus holds only X, i, M, s and f
  EXPECT_EQ(t.devices.size(), static_cast<size_t>(x.devices));
  EXPECT_EQ(t.schema_version, x.schema_version);
  EXPECT_EQ(t.base_time_ns, x.base_time_ns);
  std::map<std::string, uint64_t> by_category;
  for (EventId e = 0; e < t.size(); ++e)
    ++by_category[t.category[e] == kNoName ? std::string("-") : std::string(t.names.view(t.category[e]))];
  EXPECT_EQ(by_category, x.by_category);
  expect_consistent(t);
}

std::string test_name(const ::testing::TestParamInfo<size_t>& info) {
  std::string file = corpus()[info.param].file;
  file = file.substr(file.find('/') + 1);
  for (const char* noise : {"tests__traces__", "tests__data__", "et_replay__tests__inputs__"})
    if (file.rfind(noise, 0) == 0) file = file.substr(std::string(noise).size());
  std::string out = std::to_string(info.param) + "_";
  for (char c : file.substr(0, 48)) out += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return out;
}

INSTANTIATE_TEST_SUITE_P(Public, CorpusFile, ::testing::Range<size_t>(0, corpus().size()), test_name);

// The file kinds the brief names, checked by hand beyond the table: 2021 ids and categories,
// integers above INT64_MAX, MTIA categories, re-serialized floats.
TEST(Corpus, Schema2021TbPluginTracks) {
  const fs::path path = corpus_dir() / "pytorch__kineto/tb_plugin__test__gpu_metrics_input.json";
  if (!fs::exists(path)) GTEST_SKIP() << "corpus file absent: " << path;
  const Trace t = load_trace(path.string());
  size_t gpu_tracks = 0, kernels_linked = 0, kernels = 0;
  for (const Track& tr : t.tracks) {
    if (tr.kind != TrackKind::Gpu) continue;
    ++gpu_tracks;
    EXPECT_EQ(tr.tid.rfind("stream ", 0), 0u) << tr.tid;
    EXPECT_GE(tr.stream, 0);
    EXPECT_GE(tr.device, 0);
  }
  EXPECT_GT(gpu_tracks, 0u);
  for (EventId e = 0; e < t.size(); ++e) {
    if (t.kind[e] != EventKind::Kernel) continue;
    ++kernels;
    if (t.launch_link[e] != kNoEvent) ++kernels_linked;
  }
  EXPECT_EQ(kernels, 30u);
  EXPECT_EQ(kernels_linked, kernels);  // every kernel has its Runtime launch
  // Devices from the 2021 key "computeProperties" (major / minor / multiProcessorCount).
  ASSERT_EQ(t.devices.size(), 4u);
  EXPECT_EQ(t.devices[0].name, "Tesla V100-DGXS-32GB");
  EXPECT_EQ(t.devices[0].compute_major, 7);
  EXPECT_EQ(t.devices[0].compute_minor, 0);
  EXPECT_EQ(t.devices[0].num_sms, 80);
  EXPECT_EQ(t.devices[1].total_global_mem, 34087305216);
}

TEST(Corpus, LargeIntegerTrace) {
  const fs::path path = corpus_dir() /
      "facebookresearch__HolisticTraceAnalysis/tests__data__large_integer_trace__rank-70.Mar_25_20_48_12.2861.pt.trace.json.gz";
  if (!fs::exists(path)) GTEST_SKIP() << "corpus file absent: " << path;
  const Trace t = load_trace(path.string());
  ASSERT_EQ(t.size(), 2u);
  EXPECT_EQ(t.name_of(0), "ncclKernel_AllReduce");
  EXPECT_EQ(t.start_ns[0], 100000);
  EXPECT_EQ(t.dur_ns[0], 50000);
  EXPECT_EQ(t.name_of(1), "record_param_comms");
  EXPECT_EQ(t.start_ns[1], 200000);
  EXPECT_EQ(t.kind[1], EventKind::CpuOp);
}

}  // namespace
}  // namespace whyslow
