// The names whyslow recognises in traces, in one place: host synchronization calls, blocking
// copies, launch APIs, start-up costs, torch.compile markers. Matching is on exact names or
// prefixes documented next to each.
#pragma once

#include <string_view>

namespace whyslow {

// cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize and their driver/HIP twins,
// and MTIA's synchronizeStream/synchronizeDevice/synchronizeEvent: the host blocks until queued
// device work finishes.
bool is_sync_call(std::string_view name);

// Synchronous copy APIs (cudaMemcpy, cuMemcpyDtoH, hipMemcpy, …, not the *Async ones): the host
// blocks until the copy is done.
bool is_blocking_copy_call(std::string_view name);

// cudaGraphLaunch / hipGraphLaunch / cuGraphLaunch: one call replays a whole CUDA graph.
bool is_graph_launch(std::string_view name);
// cudaStreamBeginCapture / cudaStreamEndCapture and their driver/HIP twins (…StreamBeginCapture*):
// the stream records launches into a CUDA graph instead of running them.
bool is_capture_begin(std::string_view name);
bool is_capture_end(std::string_view name);
// cudaStreamWaitEvent / hipStreamWaitEvent / cuStreamWaitEvent: a stream waits for an event's record.
bool is_stream_wait(std::string_view name);
// cudaEventRecord / hipEventRecord / cuEventRecord, and the waits on an event from the host:
// cudaEventSynchronize / hipEventSynchronize / cuEventSynchronize. A library timing candidate
// kernels records an event around each and waits for the last.
bool is_event_record(std::string_view name);
bool is_event_sync(std::string_view name);
// A call that can make a stream wait on something outside its own queue: a stream wait, an event
// record (what another stream's wait waits for), a host function on the stream.
bool is_cross_stream_call(std::string_view name);

// 2021 traces file record_function blocks under the ops' category ("Operator"): their names give
// them away — "ProfilerStep#5", "enumerate(DataLoader)#…", "Optimizer.step#SGD.step", "## forward ##".
bool is_record_function_name(std::string_view name);

// torch.utils.data's iterator spans: "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
// "enumerate(DataPipe)#…": the step waiting for (or computing) its next batch.
// Autograd's backward: its engine's events ("autograd::engine::evaluate_function: …") or a backward
// node ("MmBackward0", the ops it runs are inside one of them).
bool is_backward_event_name(std::string_view name);
bool is_data_loader_span(std::string_view name);
// A DataLoader span of the multi-process iterator ("…#_MultiProcessingDataLoaderIter.__next__"): the
// loader already loads in worker processes, and the trace does not say how many.
bool loads_in_workers(std::string_view name);
// A collective that runs on the host: Gloo's `gloo:<collective>` annotation, on its worker thread
// from when this rank joins until every rank has (analysis/ranks/host_collectives.hpp).
bool is_host_collective(std::string_view name);
// Its name without the "gloo:" prefix: "all_reduce".
std::string_view host_collective_kind(std::string_view name);

// Device memory and pinned host memory allocation and release: cudaMalloc*, cudaFree*,
// cudaHostAlloc, cudaMallocHost, cudaFreeHost, cuMemAlloc*, cuMemFree*, cuMemCreate/Map/Unmap/
// Release/AddressReserve/AddressFree/SetAccess (expandable segments), hipMalloc*/hipFree*/
// hipHostMalloc/hipHostAlloc/hipHostFree/hipMemAlloc*/hipExtMallocWithFlags, hipMemCreate/Map/…
// (HIP's virtual memory API, as cuMem*).
bool is_allocator_call(std::string_view name);

// Stream and event creation and destruction: cudaStreamCreate*, cudaEventCreate*, … and twins.
bool is_stream_or_event_creation(std::string_view name);

// Kernel attribute and device queries a library makes on first use: cudaFuncGetAttributes,
// cudaFuncSetAttribute, cudaGetSymbolAddress, cudaDeviceGetAttribute, cudaOccupancy*,
// cudaGetDeviceProperties*, cuModule*, cuLibrary*, … and their HIP twins (hipGetDevicePropertiesR0600).
bool is_library_setup_call(std::string_view name);

// A CUDA runtime/driver or HIP call by its name (cuda*, cu*, hip*): not MTIA's runtime, not a
// vendor library's own annotations.
bool is_cuda_or_hip_api(std::string_view name);

// Any copy API (cudaMemcpy*, cuMemcpy*, hipMemcpy*, async or not).
bool is_copy_call(std::string_view name);
// A call that puts work on the GPU and so leaves a GPU record when CUDA activity is recorded: a
// kernel launch (cudaLaunch*, cuLaunch*, hipLaunch*, hipExtLaunch*, hipModuleLaunch*,
// hipExtModuleLaunch*), a graph launch, a copy or a memset (…Memcpy…, …Memset…).
bool is_gpu_work_call(std::string_view name);
// An op or block that exists only where a GPU runs the work: the NCCL process group's collectives
// ("nccl:all_reduce", "nccl:all_to_all": c10d's ProcessGroupNCCL names them so; NCCL runs only on
// GPUs) and aten::record_stream (which marks a CUDA tensor's use on a stream; a CPU tensor raises).
bool is_gpu_only_op(std::string_view name);

// CUDA's lazy loading as CUPTI records it (overhead events): a kernel's module loaded, or one
// function of it, for its first use.
inline constexpr std::string_view kModuleLoadingEvent = "Runtime Triggered Module Loading";
inline constexpr std::string_view kLazyFunctionLoadingEvent = "Lazy Function Loading";
bool is_kernel_loading(std::string_view name);

// CUPTI asking for an activity buffer: "Activity Buffer Request".
bool is_profiler_buffer_request(std::string_view name);
// The profiler's own bookkeeping: buffer requests, "Buffer Flush".
bool is_profiler_bookkeeping(std::string_view name);

// torch.compile's own markers.
bool is_compiled_region(std::string_view name);   // "Torch-Compiled Region: 0/0"
bool is_dynamo_cache_lookup(std::string_view name);
bool is_compiled_graph_call(std::string_view name);  // "## Call CompiledFxGraph <hash> ##"
// "... (dynamo_timed)", "entire_frame_compile"; not the CUDA graph trees' own timed calls
// ("cudagraphify.get_container (dynamo_timed)"), which run at every call, not once per compile.
bool is_compilation_event(std::string_view name);
bool is_cudagraph_tree_event(std::string_view name);  // "cudagraphify…" or a cudagraph_trees.py frame: Inductor's CUDA graph trees
bool is_triton_kernel(std::string_view name);        // triton_poi_/red_/per_/tem_fused_*
// A kernel name that says "conv" in any case (conv2d, implicit_convolve, ImplicitGemmConvolution,
// CONV) as a word of its own, not inside "convert" / "conversion" (convert_indices_from_coo_to_csr
// is an index kernel).
bool says_convolution(std::string_view name);

}  // namespace whyslow
